/* eddy_scene.h: the scene layer (libeddy-scene), above the core (eddy.h).
 *
 * JSON scenes with particle fills and meshes, the step loop with adaptive
 * substeps and tools, output files (VTK .vtp/.pvd, PLY, PNG frames from the
 * particle renderer, stats.jsonl, tool logs) and the haptic loop. A scene
 * names modules by their registered names: the program registers them first
 * (eddy_register_module; libeddy-modules registers eddy's own). Same conventions as eddy.h: one thread at a time
 * per engine, SI units, every failure logs one message with an identifier.
 */
#ifndef EDDY_SCENE_H
#define EDDY_SCENE_H

#include "eddy/eddy.h"
#include "eddy/eddy_solids.h"
#include "eddy/eddy_module.h" /* eddy_system_view_desc, eddy_system_view */

#include <signal.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ scenes */

typedef struct eddy_scene eddy_scene;

typedef struct eddy_scene_desc {
    uint32_t struct_size; /* required: sizeof(eddy_scene_desc), EDDY_SIZED(eddy_scene_desc) */
    const char *path;      /* scene file (JSON); used in messages */
    const char *json;      /* or: the scene text itself (path then only names it) */
    const char *out_dir;   /* output folder; NULL = "out/<scene name>" */
    bool profile;          /* GPU timestamps per pass */
    bool no_output;        /* write nothing (tests) */
    bool allow_plugins;    /* load the module libraries a scene's "plugins" names
                              (they run their code in this process); default
                              false: such a scene is refused with a message */
    uint64_t host_budget;  /* bytes of host memory loading may take for one
                              set's particles, a fill's lattice or a mesh's
                              voxels, checked before each allocation; 0 =
                              EDDY_SCENE_DEFAULT_HOST_BUDGET (4 GiB) */
    /* ---- 1.4 */
    /* A checkpoint (eddy_scene_save) to continue from; NULL = none. With
     * path and json NULL the scene text is the one the checkpoint carries
     * (and path the one it was loaded from, for its meshes); with either
     * given, it must be that scene (checkpoint.foreign otherwise). The
     * scene is made as from its file, then every system's state, the sets,
     * time, steps and frames are restored: its steps continue bitwise as
     * the saved run's would have. With output on, its output folder must
     * be the saved run's (out_dir as it was): the first frame cuts
     * stats.jsonl and the port logs back to their length at the checkpoint
     * and rewrites the .pvd series; later frames overwrite the saved run's
     * files of the same numbers. Refused with one message (checkpoint.*,
     * docs/checkpoint.md) for a damaged, foreign, newer or malformed file;
     * nothing is written then. The file is untrusted input. */
    const char *checkpoint;
    /* ---- 1.5 */
    /* Runs over MPI ranks (docs/distributed.md): a pointer to the MPI_Comm
     * whose ranks run the scene together, each with its own engine (one
     * device each); NULL = this process alone, as before. Every rank loads
     * the same scene and makes the same calls in the same order; each
     * collective call (load, step, run, frames) ends with an agreement, so
     * an error on one rank fails the call on every rank, with the failing
     * rank's message (dist.failed), and no rank waits for one that stopped.
     * A communicator of one rank runs exactly as NULL. The scene uses its
     * own duplicate of the communicator; the pointer is read during the
     * call only. Needs an eddy built with MPI (eddy_scene_mpi()); a scene
     * whose systems cannot run over ranks is refused (dist.unsupported). */
    const void *mpi_comm;
} eddy_scene_desc;
/* Whether this eddy was built with MPI (eddy_scene_desc.mpi_comm). */
EDDY_API bool eddy_scene_mpi(void);
#define EDDY_SCENE_DEFAULT_HOST_BUDGET (4ull << 30)

/* Parses and checks the whole scene and creates its sets, systems and step
 * graph. Nothing is written to disk here: a bad scene fails with one message
 * (file, field, expected value) before any output exists. Input is treated
 * as hostile: a key given twice in one object, a fraction where a count is
 * due, a name that is not one file name part (scene name at most 127 bytes,
 * set and system names at most 63, valid UTF-8, no '/', '\\', ".." or
 * control characters), an out_dir over 2,047 bytes or a path over 4,095
 * are refused, never cut; sizes are checked before they are multiplied or
 * allocated. Waits: for the uploads of the sets' initial state. */
EDDY_API eddy_scene *eddy_load_scene(eddy_engine *e, const eddy_scene_desc *desc);
/* Waits: for the host's recordings of the scene's steps (the host must have
 * submitted them), then frees the scene's objects as their GPU use ends.
 * NULL is ignored. A scene whose engine was destroyed first is an empty
 * shell (the engine let it go: eddy_engine_on_destroy): this frees it, and
 * every other call on it is refused (handle.invalid on stderr). Destroying
 * a scene twice is a use after free, as for any freed pointer. */
EDDY_API void eddy_destroy_scene(eddy_scene *s);

typedef struct eddy_scene_info {
    const char *name;
    double dt;            /* s, one step (all substeps) */
    uint32_t substeps;    /* now (adaptive stepping changes it per frame) */
    double duration;      /* s */
    uint64_t steps;       /* ceil(duration / dt) */
    uint64_t steps_done;
    double time;          /* s, simulated so far */
    uint32_t frame_every; /* steps between output frames */
    uint32_t particle_count; /* all sets */
    const char *out_dir;
    uint64_t graph_generation; /* from 1; grows whenever the scene replaces its step
                                  graph (adaptive stepping): a host that records
                                  eddy_scene_graph itself records it again then */
} eddy_scene_info;
EDDY_API eddy_scene_info eddy_scene_get_info(const eddy_scene *s);

/* Advances `steps` steps (no output). Waits: for the host's recordings of
 * earlier steps (submitted first), then for these steps. */
EDDY_API eddy_result eddy_scene_step(eddy_scene *s, uint64_t steps);
/* The scene's step graph described (eddy_graph_describe), its systems as
 * the groups: what runs each substep and in which order, the buffers each
 * pass reads and writes, and where the barriers fall. format
 * EDDY_DESCRIBE_TEXT or EDDY_DESCRIBE_DOT; out and capacity as there
 * (EDDY_ERROR_LIMIT when it does not fit: *length + 1 bytes do). Refused
 * over MPI ranks (each substep declares a graph of its own). Never waits. */
EDDY_API eddy_result eddy_scene_describe(eddy_scene *s, eddy_describe_format format, char *out, size_t capacity,
                                         size_t *length);
/* Writes one output frame of the current state (VTK, stats) when outputs are
 * on. The first frame prepares the output folder: it is created when missing;
 * an existing one must be empty or hold an earlier eddy run (its marker file
 * .eddy_output), whose .vtp .vtu .pvd .png .ply .csv .jsonl .tmp and .h5 files are
 * removed first, so the folder only ever holds one run. Frames (.vtp, .png,
 * surface meshes) and the .pvd series are written whole to NAME.tmp and
 * renamed; stats.jsonl and ports_<system>.csv grow as NAME.tmp and are renamed
 * by eddy_scene_finish_output or eddy_destroy_scene. A frame in which a set
 * went non-finite writes its statistics line, then fails. Waits: as
 * eddy_scene_step, for the recordings, then for the downloads. */
EDDY_API eddy_result eddy_scene_write_frame(eddy_scene *s);
/* Renames stats.jsonl and the tool logs into place (eddy_destroy_scene does
 * it too, ignoring errors); after it no frame can be written. */
EDDY_API eddy_result eddy_scene_finish_output(eddy_scene *s);
/* Runs the scene to its end (or max_steps more steps when non-zero),
 * writing a frame every frame interval and at the last step (and one of the
 * start when no frame was written yet); prints a progress line when
 * progress is true. eddy_scene_run_with without checkpoints. Waits: as
 * eddy_scene_step, for every step. */
EDDY_API eddy_result eddy_scene_run(eddy_scene *s, uint64_t max_steps, bool progress);

/* ------------------------------------------------------------------ checkpoints */

/* Saves the scene's whole state at this step boundary to path, an HDF5
 * file (docs/checkpoint.md): the scene text and its hash, eddy's version,
 * time, steps and frames, every set buffer, every system's declared state
 * (eddy_checkpoint.h), the ports' values and where the output files stand
 * (their pending lines are appended first). Written to "<path>.tmp",
 * flushed, synced and renamed over path, so an earlier file of that name
 * stays whole until the new one is complete. Refused with
 * checkpoint.unsupported naming the module when a system's module declares
 * no state (ABI before 4.4). Over MPI ranks (eddy_scene_desc.mpi_comm)
 * every rank calls it with the same path: the sets are gathered to rank 0,
 * which writes the file a one-rank run would (resumable on any number of
 * ranks). Waits: for the host's recordings (submitted first) and the
 * downloads. */
EDDY_API eddy_result eddy_scene_save(eddy_scene *s, const char *path);

/* Run options: eddy_scene_run with checkpoints and a stop flag. */
typedef struct eddy_run_desc {
    uint32_t struct_size;     /* required: EDDY_SIZED(eddy_run_desc) */
    uint64_t max_steps;       /* steps to run; 0 = to the scene's end (what is left of it) */
    bool progress;            /* a progress line on stderr */
    /* A checkpoint "checkpoint_<step, 12 digits>.h5" in the output folder
     * at every multiple of this simulated time (s, rounded to whole steps,
     * counted from the scene's start, so a resumed run keeps the schedule);
     * 0 = none. Output must be on. Range [0, 1e12]. */
    double checkpoint_every;
    /* Also one whenever this much wall-clock time (s) has passed since the
     * last; 0 = none. Range [0, 1e9]. */
    double checkpoint_wall;
    /* Checkpoints kept in the folder (the newest); 0 = 2; at most
     * EDDY_CHECKPOINT_LIST_MAX. */
    uint32_t checkpoint_keep;
    /* Read between steps (a signal handler's flag; NULL = none): once
     * nonzero, the run finishes the step, writes a checkpoint (with output
     * on, checkpoints asked for or not) and returns EDDY_OK before its end
     * (eddy_scene_info.steps_done says where). */
    const volatile sig_atomic_t *stop;
} eddy_run_desc;
#define EDDY_CHECKPOINT_LIST_MAX 64u

/* eddy_scene_run with checkpoints; refused with run.invalid for options
 * out of range or checkpoints with output off. Waits: as eddy_scene_run,
 * and for each checkpoint's downloads and its file's sync. */
EDDY_API eddy_result eddy_scene_run_with(eddy_scene *s, const eddy_run_desc *desc);
/* The path of dir's index-th newest checkpoint file (0 = the newest; by
 * the step in its name, "checkpoint_<step>.h5"), for a resume that falls
 * back to an older one when the newest is damaged: EDDY_OK, or
 * EDDY_ERROR_NOT_FOUND past the last (EDDY_ERROR_INVALID_ARGUMENT when it
 * does not fit cap). Touches no engine; never waits. */
EDDY_API eddy_result eddy_checkpoint_path(const char *dir, uint32_t index, char *path, size_t cap);
/* Never waits. The scene's step graph now (one step: all substeps). Adaptive stepping
 * replaces it (eddy_scene_info.graph_generation changes); the old one is
 * destroyed, and freed once no recording uses it. Hosts that want time,
 * inputs and outputs to advance record with eddy_scene_record instead. */
EDDY_API eddy_graph eddy_scene_graph(const eddy_scene *s);

/* ------------------------------------------------------------------ hosts */

#define EDDY_SCENE_RECORD_MAX_STEPS 1000u

/* Steps of the scene recorded into a host's command buffer (a Vulkan
 * renderer's frame), instead of submitted by eddy. */
typedef struct eddy_scene_record_desc {
    uint32_t struct_size; /* required: sizeof(eddy_scene_record_desc), EDDY_SIZED(eddy_scene_record_desc) */
    /* Required: in the recording state, for a queue of the engine's queue
     * family (eddy_engine_vk). Not owned by eddy. */
    VkCommandBuffer command_buffer;
    /* As in eddy_record_desc: a timeline semaphore the host's submission
     * signals to done_value once the command buffer has finished; or
     * VK_NULL_HANDLE, and the host calls eddy_recorded_work_done then. */
    VkSemaphore done_semaphore;
    uint64_t done_value;
    uint32_t steps;        /* steps to record; 0 = 1; at most EDDY_SCENE_RECORD_MAX_STEPS */
    /* The host's own uses of eddy's buffers before and after the recorded
     * steps (eddy_host_use; NULL and 0: "anything", always safe). */
    const eddy_host_use *before;
    uint32_t before_count;
    const eddy_host_use *after;
    uint32_t after_count;
} eddy_scene_record_desc;

/* Records desc->steps steps into the host's command buffer exactly as
 * eddy_scene_step would run them: the same passes, so the host's submission
 * gives bitwise the same particles. The scene advances at once (steps done,
 * time), and each step's inputs are set as eddy_scene_step sets them (a
 * path's value at the step's end, or the host's eddy_scene_set_input), their
 * transfers riding in the command buffer. Outputs come back when the host's
 * command buffer has finished: see eddy_scene_collect.
 *
 * Adaptive scenes adapt at each call once every earlier recording has
 * finished (eddy_poll_idle; a host that waits for its frame before recording
 * the next adapts every call, like eddy_scene_run after every frame), and
 * never wait for it; a new graph changes
 * eddy_scene_info.graph_generation. Recording must not overlap another call
 * on the same engine (one thread at a time). Fails with scene.record for a
 * missing command buffer or steps over the limit. */
EDDY_API eddy_result eddy_scene_record(eddy_scene *s, const eddy_scene_record_desc *desc);
/* Async compute: steps submitted on eddy's queue (an adopted compute queue
 * beside the host's graphics queue, eddy_adopt_desc.share_families) without
 * waiting, after the host's semaphores. */
typedef struct eddy_scene_submit_desc {
    uint32_t struct_size; /* required: sizeof(eddy_scene_submit_desc), EDDY_SIZED(eddy_scene_submit_desc) */
    uint32_t steps;                   /* 0 = 1; at most EDDY_SCENE_RECORD_MAX_STEPS */
    const eddy_semaphore_wait *waits; /* the host's semaphores the first step waits on (its
                                         frame done with what eddy writes); copied */
    uint32_t wait_count;              /* 0..EDDY_SUBMIT_WAITS_MAX */
} eddy_scene_submit_desc;

/* Submits desc->steps steps as eddy_scene_step runs them (bitwise the same),
 * the first after desc->waits, and returns at once: *value is the value of
 * eddy_engine_timeline(e) that signals their end, for the host's queue to
 * wait on before it reads eddy's buffers (and for eddy_wait). The scene
 * advances at once; inputs and adaptive stepping as in eddy_scene_record,
 * outputs through eddy_scene_collect. Refused with scene.record for steps
 * over the limit, submit.invalid for bad waits. */
EDDY_API eddy_result eddy_scene_submit(eddy_scene *s, const eddy_scene_submit_desc *desc, uint64_t *value);
/* Never waits. When every recording has finished (eddy_poll_idle), reads the
 * outputs of the last recorded step (eddy_scene_output gives them from then
 * on) and writes one line of each logged system's ports (ports_<system>.csv)
 * for that step; returns EDDY_OK. Steps recorded since the last collect
 * without a line of their own are not logged: a host that wants every step
 * in the log collects after every one-step recording. EDDY_TIMEOUT while a
 * recording still runs (outputs keep their values before it). eddy_scene_step,
 * eddy_scene_run and eddy_scene_write_frame first wait for the recordings
 * (the host must have submitted them). */
EDDY_API eddy_result eddy_scene_collect(eddy_scene *s);

/* ------------------------------------------------------------------ ports */

/* A system's ports (eddy_port_info in eddy_module.h; `eddy modules` lists
 * them): inputs it takes and outputs it gives every step. A scene drives an
 * input along a key-frame path ("inputs": {"tool.position": {"path":
 * [{"t": 0, "value": [x, y, z]}], "interpolation": "smooth"}}) and writes
 * every input and output of a system with "log": true (the default when a
 * path drives it) to ports_<system>.csv, a line per step. A system whose
 * ports are driven or logged runs them every step, still with one submit and
 * one wait a step. Not thread safe with eddy_scene_step: call between steps,
 * from the same thread. */

/* Sets input `input` of `system` (a float in value[0], or a vec3) to reach
 * `value` at the end of the next step; it moves from where it was as the
 * module documents. From then on the host drives it (a path no longer does).
 * Refused with a message for an unknown system or input or a non-finite
 * value. */
EDDY_API eddy_result eddy_scene_set_input(eddy_scene *s, const char *system, const char *input, const double value[3]);
/* Input `input` of `system` where the system holds it now: the end of the
 * last step, after the module's clamp (a tool set past a wall reads where
 * it stopped), not the value asked for. Never waits on a host's work: while
 * steps a host recorded or submitted still run, it gives the value it gave
 * at its last call while nothing ran (after eddy_scene_collect returned
 * EDDY_OK, say), or, when it was never read, EDDY_TIMEOUT with
 * record.unfinished (read it again after eddy_scene_collect returns
 * EDDY_OK). Otherwise it may wait for eddy's own
 * submitted work (a download). */
EDDY_API eddy_result eddy_scene_input(const eddy_scene *s, const char *system, const char *input, double value[3]);
/* The value of the scene's path of an input at time t (s): a scripted device
 * for haptic runs. Thread safe (reads the path only). Fails with a message
 * when the scene gives that input no path. */
EDDY_API eddy_result eddy_scene_input_path(const eddy_scene *s, const char *system, const char *input, double t,
                                  double value[3]);
/* Output `output` of `system` after the last step (a float in value[0]): for
 * a system stepped with its ports, what that step gave (before the first,
 * what the system reported when its ports were set up: a tool at rest where
 * its path starts); otherwise the module reads its state now. Never waits
 * on a host's work: while steps a host recorded or submitted still run, it
 * gives the values of the last collect or the last read before them, or
 * EDDY_TIMEOUT with record.unfinished when they were never known. */
EDDY_API eddy_result eddy_scene_output(const eddy_scene *s, const char *system, const char *output, double value[3]);
/* The scene's particle set `index` (from 0, in scene order), or a zero
 * handle past the last. With eddy_particles_name, _count, _capacity,
 * _buffer_name / _buffer and _elements_name / _elements a host lists what
 * it can draw. */
EDDY_API eddy_particles eddy_scene_set(const eddy_scene *s, uint32_t index);
/* How the scene asks to be seen: its "output.images" camera and colours,
 * for a host or viewer that draws it as the scene's PNG frames do. A
 * returned struct: it never changes within a major version. */
typedef struct eddy_scene_view {
    bool images;                     /* the scene has "output.images"; false: the rest is zero */
    uint32_t width, height;          /* px */
    double eye[3], target[3], up[3]; /* m; up not necessarily orthogonal to the view */
    double fov_deg;                  /* vertical field of view, degrees */
    int32_t color_by;                /* 0 speed, 1 density, 2 set, 3 phase */
    double range[2];                 /* the colour scale (m/s or kg/m^3) */
} eddy_scene_view;
/* Fills *out. Never waits. */
EDDY_API eddy_result eddy_scene_get_view(const eddy_scene *s, eddy_scene_view *out);
/* The scene's static solids ("solids": planes, spheres, capsules, glasses;
 * eddy_solids.h), *count of them; valid while the scene lives. Never
 * waits. */
EDDY_API const eddy_solid *eddy_scene_solids(const eddy_scene *s, uint32_t *count);
/* The scene's box (m): every module keeps its particles inside. */
EDDY_API void eddy_scene_box(const eddy_scene *s, double min[3], double max[3]);
/* The name of the scene's system `index` (from 0, in scene order), or NULL past the last. */
EDDY_API const char *eddy_scene_system_name(const eddy_scene *s, uint32_t index);
/* The module of the scene's system `name` (its ports: inputs, outputs), or
 * NULL after a message. */
EDDY_API const eddy_module_desc *eddy_scene_system_module(const eddy_scene *s, const char *name);
/* The value of parameter `param` of system `system` as the system was
 * created with it (the module's default where the scene left it out; a
 * float or int in value[0], a vec3 in all three), or an error after a
 * message naming both. */
EDDY_API eddy_result eddy_scene_system_param(const eddy_scene *s, const char *system, const char *param, double value[3]);
/* The particle set in system `system`'s first slot (its own set), or a
 * zero handle after a message when there is no such system. */
EDDY_API eddy_particles eddy_scene_system_set(const eddy_scene *s, const char *system);
/* The own picture of system `system` (a module with a view, such as
 * "volume") for a host's camera: fills out (see eddy_system_view) after
 * checking desc (finite camera, eye not on target, up not along the view,
 * fov in (0, 179), sizes 1..16384; else EDDY_ERROR_INVALID_ARGUMENT after a
 * message naming the field). A module without one: EDDY_ERROR_UNSUPPORTED
 * after a message (eddy_scene_system_module(...)->view tells beforehand).
 * Between steps, not thread-safe. Waits: may upload the camera. */
EDDY_API eddy_result eddy_scene_system_view(eddy_scene *s, const char *system, const eddy_system_view_desc *desc,
                                            eddy_system_view *out);

/* ------------------------------------------------------------------ haptics */

/* A haptic device: called from the haptic thread every 1/rate s with the
 * force to render (N) and the sample time (s since the loop started); writes
 * the device position (m, scene coordinates) to `position`. Must return
 * quickly (well under the period). */
typedef void (*eddy_haptic_fn)(void *user, double time, const double force[3], double position[3]);

typedef struct eddy_haptic_desc {
    uint32_t struct_size; /* required: sizeof(eddy_haptic_desc), EDDY_SIZED(eddy_haptic_desc) */
    const char *system;    /* the system the device drives; required */
    const char *input;     /* its vec3 input the device's position drives; NULL = the
                              system's first vec3 input */
    const char *output;    /* its vec3 output rendered as the force (N); NULL = the
                              system's first vec3 output named "*.total" in N, else
                              its first vec3 output in N */
    eddy_haptic_fn device; /* required */
    void *user;            /* passed to device */
    double rate;           /* Hz, samples per second; default 1000 */
    double duration;       /* s of wall-clock time; 0 = until the scene's duration is simulated */
    const char *log_path;  /* CSV of every sample (time, force, position, ...); NULL = none.
                              Written to "<path>.tmp" and renamed at the end. */
} eddy_haptic_desc;

typedef struct eddy_haptic_report {
    uint64_t samples;        /* force samples delivered */
    uint64_t steps;          /* simulation steps run meanwhile */
    double mean_interval;    /* s between samples (first to last over samples - 1) */
    double max_interval;     /* s, the longest gap between two samples */
    double max_jump;         /* N, the largest |F_k - F_k-1| between two samples */
    double max_slope;        /* N/s, the steepest ramp: max |F_k - F_rendered(t_k)| / T_k;
                                two samples dt apart differ by at most max_slope dt */
    double max_sim_jump;     /* N, the largest change between two simulation results */
    double min_sim_interval; /* s, the shortest time between two simulation results */
} eddy_haptic_report;

/* Runs a haptic loop: a thread calls desc->device every 1/rate s with a force
 * sample and takes the device position, while the calling thread steps the
 * simulation as fast as it can with the tool following the device. The force
 * is continuous however slow the simulation: each new simulation result F_k
 * arriving at t_k is reached by a linear ramp from the force being rendered
 * then, over T_k = t_k - t_(k-1) (the last interval between results, at least
 * one period), so consecutive samples differ by at most
 * |F_k - F_rendered(t_k)| * period / T_k (first-order hold with one interval
 * of delay; see modules/pbf/README.md). Returns after desc->duration. */
EDDY_API eddy_result eddy_haptic_run(eddy_scene *s, const eddy_haptic_desc *desc, eddy_haptic_report *report);

#ifdef __cplusplus
}
#endif
#endif
