/* eddy_module.h: for module authors.
 *
 * A module is a versioned descriptor that a program registers with an engine
 * (eddy_register_module; eddy's own modules come with their library,
 * libeddy-modules), or that lives in a shared library exporting
 *
 *     EDDY_MODULE_EXPORT const eddy_module_desc *eddy_module_entry(void);
 *
 * which eddy_load_module() (or `eddy run --module lib.so`) calls. eddy reads
 * abi_major, abi_minor and struct_size before touching anything else:
 *  - another major version is refused, with a message naming both versions
 *    (the layout or the meaning of fields changed);
 *  - an older minor version loads: minor versions only append fields at the
 *    end of eddy_module_desc (and of the structs eddy passes to modules), so
 *    eddy copies the struct_size bytes the module has and zero-fills the
 *    fields it was built without, which all mean "absent";
 *  - a newer minor version is refused (the module may rely on fields this
 *    eddy does not know), naming both versions.
 * Start a descriptor with EDDY_MODULE_DESC_VERSION, which fills those three.
 *
 * Life of a system (a module instance named in a scene):
 *   create(ctx) -> declare_step(state, step) once -> the step graph runs many
 *   times -> stats(state, ...) per output frame -> destroy(state).
 * A scene creates all its systems, in order, before any declares its step:
 * declare_step may look for buffers that systems after it add to a shared
 * set (a fluid's slice of the forces on a rigid set).
 * A module never records Vulkan commands or barriers itself: it adds passes
 * with their declared accesses and the graph derives the barriers.
 */
#ifndef EDDY_MODULE_H
#define EDDY_MODULE_H

#include "eddy.h"
#include "eddy_solids.h"
#include <stddef.h>


#ifdef __cplusplus
extern "C" {
#endif

/* The module ABI. The major is raised whenever eddy_module_desc, the structs
 * passed to modules or anything a module calls change incompatibly; the
 * minor when fields are appended (see above). History:
 *   3    (eddy 0.1) one u32 abi_version; refused by 4.x as major 3
 *   4.0  abi_major/abi_minor/struct_size, eddy_system_ctx.size, slots
 *   4.1  ports appended: inputs, outputs, set_input, get_input, read_outputs
 *   4.2  EDDY_PARAM_LIST and eddy_system_ctx.lists
 *   4.3  view appended: a system's own picture for a host's camera
 *   4.4  checkpoint appended: the system's state for checkpoints
 *   4.5  reach and set_count appended: runs over MPI ranks
 *   4.6  declare_parts appended: a substep in parts over MPI ranks
 *   4.7  eddy_sync_desc.gather_set and gather_first appended: rows gathered
 *        for another set than the system's first, inside a shared buffer */
#define EDDY_MODULE_ABI_MAJOR 4
#define EDDY_MODULE_ABI_MINOR 7
/* Fills the version fields of an eddy_module_desc initializer:
 *     static const eddy_module_desc desc = { EDDY_MODULE_DESC_VERSION, .name = ... }; */
#define EDDY_MODULE_DESC_VERSION                                                          \
    .abi_major = EDDY_MODULE_ABI_MAJOR, .abi_minor = EDDY_MODULE_ABI_MINOR,            \
    .struct_size = sizeof(eddy_module_desc)

#if defined(__GNUC__)
#define EDDY_MODULE_EXPORT __attribute__((visibility("default")))
#else
#define EDDY_MODULE_EXPORT
#endif

#define EDDY_MODULE_ENTRY_SYMBOL "eddy_module_entry"

typedef enum eddy_param_type {
    EDDY_PARAM_FLOAT = 1, /* one number */
    EDDY_PARAM_INT = 2,   /* one integer (stored in value[0]) */
    EDDY_PARAM_BOOL = 3,  /* true/false (value[0] is 0 or 1) */
    EDDY_PARAM_VEC3 = 4,  /* three numbers; the range applies to each */
    /* A list of entries, each a fixed group of numbers (a transfer function's
     * [[s, r, g, b, a], ...]). Its def is not a default but the list's shape:
     * group = (uint32_t)def[0] numbers an entry (1..16) and at most
     * (uint32_t)def[1] entries (1..65536), whole numbers, checked at
     * registration. The scene value is a JSON array of 1..def[1] entries, each
     * an array of exactly group numbers, every number finite and in
     * [min, max]. Absent from the scene, the list has zero entries and the
     * module applies its own default (its doc says which); `eddy modules`
     * shows the type as "list of <group>", the default as "none". The entries
     * reach create in ctx->lists[i]; ctx->params[i] holds def, unused. */
    EDDY_PARAM_LIST = 5,
} eddy_param_type;

/* The bounds of a list's shape (EDDY_PARAM_LIST's def[0] and def[1]): at most
 * 8 MiB of numbers a list, whatever a scene file holds. */
#define EDDY_PARAM_LIST_MAX_GROUP 16
#define EDDY_PARAM_LIST_MAX_ENTRIES 65536

/* At most this many parameters a module, and shared buffer names. */
#define EDDY_MAX_PARAMS 64

typedef struct eddy_param_info {
    const char *name;      /* key in the scene file's "params" object */
    eddy_param_type type;
    const char *unit;      /* SI unit ("m/s^2", "1" for none) */
    double def[3];         /* default (def[0] for scalars); a list's shape (EDDY_PARAM_LIST) */
    double min, max;       /* inclusive range checked on load */
    const char *doc;       /* one line for `eddy modules` and the README */
} eddy_param_info;

typedef struct eddy_param_value {
    double v[3];
} eddy_param_value;

/* The entries of an EDDY_PARAM_LIST param as the scene gave them. */
typedef struct eddy_param_list {
    const double *values; /* count x group numbers, entry-major (entry k is values[k * group ..]);
                             NULL when count is 0 */
    uint32_t count;       /* entries: 0 when the scene leaves the list out */
} eddy_param_list;

/* A slot: a named place for particle sets in a system. A scene binds sets to
 * a system's slots by name ("sets": {"fluid": "water", "boundary": ["cube"]}),
 * or its one set with "set" (the first slot). A module without slots has one,
 * "set", 1..1. At most EDDY_MAX_SLOTS slots of at most EDDY_MAX_SLOT_SETS
 * sets each. */
#define EDDY_MAX_SLOTS 8
#define EDDY_MAX_SLOT_SETS 16
typedef struct eddy_slot_info {
    const char *name; /* key in the system's "sets" object */
    const char *doc;  /* what the sets are for, one line for `eddy modules` */
    uint32_t min;     /* sets the slot needs (0: optional) */
    uint32_t max;     /* sets it takes, 1..EDDY_MAX_SLOT_SETS */
} eddy_slot_info;

/* Ports: a system's per-step inputs (a tool's position, a stirring centre)
 * and outputs (the force on a tool), named and typed. The host writes inputs
 * between steps and reads outputs after them (eddy_scene_set_input,
 * eddy_scene_output); a scene drives inputs from key-frame paths and logs
 * outputs to CSV; the haptic loop drives a vec3 input from a device and
 * renders a vec3 output as its force. A module moves the values through the
 * runtime's staged transfers (eddy_buffer_stage_write/read), so a step with
 * ports stays one submit and one wait. */
typedef enum eddy_port_type {
    EDDY_PORT_FLOAT = 1, /* one number (value[0]) */
    EDDY_PORT_VEC3 = 3,  /* three numbers */
} eddy_port_type;

#define EDDY_MAX_PORTS 16
typedef struct eddy_port_info {
    const char *name;    /* "tool.position": key of the scene's "inputs", CSV column prefix */
    eddy_port_type type;
    const char *unit;    /* SI unit ("m", "N", "1" for none) */
    const char *doc;     /* one line for `eddy modules` */
} eddy_port_info;

/* The sets bound to one slot, in the scene's order. */
typedef struct eddy_slot_sets {
    const eddy_particles *sets;
    uint32_t count;
} eddy_slot_sets;

/* What a system gets at creation. Valid during create only, except the
 * engine pointer and handles, which live as long as the system. */
typedef struct eddy_system_ctx {
    uint32_t size;                 /* sizeof(eddy_system_ctx) in this eddy: fields are only
                                      appended, so a module reads those below its own */
    eddy_engine *engine;
    const char *name;              /* the system's name in the scene */
    eddy_particles particles;      /* the set it runs on: the first set of its first slot */
    const eddy_slot_sets *slots;   /* one per descriptor slot, in order (one for a module
                                      without slots); valid during create only */
    uint32_t slot_count;
    const eddy_param_value *params;/* one per descriptor param, in order, defaults filled in */
    float box_min[3], box_max[3];  /* the scene's box (m) */
    double dt;                     /* s, one substep */
    uint32_t substeps;             /* substeps per step */
    const eddy_solid *solids;      /* the scene's static solids (eddy_solids.h) */
    uint32_t solid_count;
    bool adaptive;                 /* the scene adapts substeps to stable_dt (below):
                                      a dt above the system's bound is not an error */
    /* Who moves the sets in the slots, per slot (bit j: the slot's set j):
     * the set is the first set of a system that steps before this one in
     * every substep (listed earlier in the scene: at this system's turn the
     * set is where the substep ends), or of one that steps after it. A set
     * in neither mask is moved by no system. Read only when ctx->size
     * covers them (EDDY_SYSTEM_CTX_HAS). */
    uint32_t moved_before[EDDY_MAX_SLOTS], moved_after[EDDY_MAX_SLOTS];
    /* ---- ABI 4.2 */
    /* One per descriptor param, in order: a list param's entries (count 0
     * when the scene leaves it out, and for every other type). The numbers
     * belong to the scene and are freed when create returns: copy what the
     * system keeps. Valid during create only. Read only when
     * EDDY_SYSTEM_CTX_HAS(ctx, lists). */
    const eddy_param_list *lists;
} eddy_system_ctx;

/* Whether a module compiled against this header may read ctx->field (the
 * scene that made ctx knew of it). */
#define EDDY_SYSTEM_CTX_HAS(ctx, field) \
    ((ctx)->size >= offsetof(eddy_system_ctx, field) + sizeof((ctx)->field))

/* A frame being written: where, which, when. */
typedef struct eddy_frame_ctx {
    const char *out_dir; /* the run's output folder (exists) */
    uint32_t frame;      /* frame number, from 0 */
    double time;         /* s */
} eddy_frame_ctx;

/* Per-frame statistics: a module adds named numbers to the frame's JSON
 * line with eddy_stats_add, and writes its own files with the writers of
 * eddy_output.h (both in libeddy-scene, which runs the frames). */
typedef struct eddy_stats eddy_stats;

/* A host's camera for a system's own picture (eddy_module_desc.view,
 * eddy_scene_system_view): the conventions of eddy's particle renderer
 * (scene "output.images"): pixel (x, y) sees the ray through its centre,
 * row 0 at the top. */
typedef struct eddy_system_view_desc {
    uint32_t struct_size;    /* required: EDDY_SIZED(eddy_system_view_desc) */
    float eye[3];            /* m, finite */
    float target[3];         /* m, finite, not equal to eye */
    float up[3];             /* not parallel to target - eye */
    float fov_deg;           /* vertical field of view, (0, 179) degrees */
    uint32_t width, height;  /* px, 1..16384 each */
} eddy_system_view_desc;

/* What a system's view gives. Owned by the system: valid until its next
 * view call or its destruction (which never frees what a recorded graph
 * may still use). */
typedef struct eddy_system_view {
    uint32_t struct_size; /* required: EDDY_SIZED(eddy_system_view); the callee fills what fits */
    /* Draws the system's set as it is when the graph runs (run it, or
     * record it after the step with eddy_graph_record). */
    eddy_graph graph;
    /* Written by the graph, width x height: premultiplied colour and opacity
     * (EDDY_FORMAT_RGBA32F) and the distance along each pixel's view ray to
     * the first thing drawn (EDDY_FORMAT_R32F, m; +inf: nothing). */
    eddy_image color, depth;
} eddy_system_view;

/* Checkpoints (eddy_checkpoint.h, in libeddy-scene): the values a system
 * declares as its state, each stored as a dataset of count x components
 * values of one type. */
typedef struct eddy_checkpoint eddy_checkpoint;
typedef enum eddy_state_type {
    EDDY_STATE_F32 = 1, /* float */
    EDDY_STATE_U32 = 2, /* uint32_t */
    EDDY_STATE_I32 = 3, /* int32_t */
    EDDY_STATE_F64 = 4, /* double */
    EDDY_STATE_U64 = 5, /* uint64_t */
    EDDY_STATE_U8 = 6,  /* uint8_t (bytes, bools) */
} eddy_state_type;

/* Over MPI ranks (docs/distributed.md), what passes between two parts of a
 * substep (eddy_step_parts.sync). */
#define EDDY_SYNC_BUFFERS_MAX 4u
typedef struct eddy_sync_desc {
    uint32_t struct_size; /* required: EDDY_SIZED(eddy_sync_desc) */
    /* Ghost rows refreshed: after the part, each ghost particle's row of
     * each buffer is replaced by the row its owner computed. Rows of
     * row_bytes[k] (a multiple of 4, 4..256) bytes, one a particle of the
     * system's first set. */
    eddy_buffer buffers[EDDY_SYNC_BUFFERS_MAX];
    uint32_t row_bytes[EDDY_SYNC_BUFFERS_MAX];
    uint32_t buffer_count; /* 0..EDDY_SYNC_BUFFERS_MAX */
    /* Optional: a uint32 a row, the index in the set (particle order) of
     * the particle row k belongs to (a grid's sorted_index); 0: row k is
     * particle k. Read after the part. */
    eddy_buffer order;
    /* Optional reduction over the ranks, in place in `reduce` at
     * reduce_offset (bytes, a multiple of 4): sum_u64 unsigned 64-bit
     * integers (low word first), each summed over the ranks (saturating
     * at 2^64 - 1), then max_u32
     * unsigned 32-bit integers (non-negative floats' bits order as the
     * floats), the largest kept. Integer sums and maxima do not depend on
     * the order the ranks' values come in: a convergence test made of them
     * decides the same on any number of ranks. */
    eddy_buffer reduce;
    uint64_t reduce_offset;
    uint32_t sum_u64, max_u32; /* each 0..64 */
    /* Rows gathered whole: after the part, the rows of gather[k] (particle
     * order, gather_bytes[k] each: a multiple of 4, 4..256) of the
     * particles each rank owns go to row `id` of full[k] on every rank (id:
     * the particle's index in the whole set; full[k] holds a row for each),
     * so a sum over a body's particles sees all of them, in the order of
     * one rank. */
    eddy_buffer gather[EDDY_SYNC_BUFFERS_MAX], full[EDDY_SYNC_BUFFERS_MAX];
    uint32_t gather_bytes[EDDY_SYNC_BUFFERS_MAX];
    uint32_t gather_count; /* 0..EDDY_SYNC_BUFFERS_MAX */
    /* ---- module ABI 4.7 (a 4.6 desc, without them, reads as zeros) */
    /* The set whose particles the gathered rows are (zero handle: the
     * system's first set): one of the scene's sets, which may be another
     * slot's (a fluid's boundary). */
    eddy_particles gather_set;
    /* The row of gather[k] and full[k] that holds that set's first
     * particle (a buffer of several sets one after another); 0 default. */
    uint32_t gather_first;
} eddy_sync_desc;

/* Over MPI ranks: a substep declared in parts (eddy_module_desc.
 * declare_parts), for a system whose passes read values that other passes
 * of the same substep computed at neighbours (solver iterations), or that
 * reduce over the whole set (convergence tests). The scene runs the parts
 * in order, and between two parts refreshes the ghosts' rows and reduces
 * as the sync that ended the first says. Valid during declare_parts. */
typedef struct eddy_step_parts eddy_step_parts;
struct eddy_step_parts {
    uint32_t struct_size; /* the scene's sizeof(eddy_step_parts) */
    /* The graph the system adds passes to now; sync replaces it. */
    eddy_graph graph;
    /* Index of the part being declared (0 first). */
    uint32_t part;
    /* Set by the system, m: the farthest a particle may move in the substep
     * for its reach to hold (positions it predicts and moves within the
     * substep); the scene fails the run after a substep in which an owned
     * particle ended farther than this from where it started
     * (dist.too_fast). 0 (the default): no limit, the passes read the
     * positions at the substep's start. */
    double travel;
    /* A uint32 a particle of `set` (particle order): 1 where this rank owns
     * it, 0 for a ghost; reductions count the owned ones only. Written by
     * the scene before the substep; zero handle for a set not the
     * system's. */
    eddy_buffer (*owned)(eddy_step_parts *parts, eddy_particles set);
    /* Ends the part being declared (its passes run before the sync's
     * exchange); parts->graph becomes the next part's. */
    eddy_result (*sync)(eddy_step_parts *parts, const eddy_sync_desc *sync);
    /* The parts from `first` to the one the last sync ended run again, each
     * time with its sync, until the uint32 at done_offset (bytes) in `done`
     * (optional: without, `times` runs) is not 0 after a run, or `times`
     * runs (at least 1). Loops follow each other, each ended by a sync. */
    eddy_result (*loop)(eddy_step_parts *parts, uint32_t first, uint32_t times, eddy_buffer done,
                        uint64_t done_offset);
    void *scene; /* the scene's own */
};

struct eddy_module_desc {
    /* EDDY_MODULE_DESC_VERSION fills these three. The two 16-bit halves sit
     * where ABI 3 had one 32-bit version, so an ABI 3 module reads as 3.0. */
    uint16_t abi_major;     /* EDDY_MODULE_ABI_MAJOR the module was built with */
    uint16_t abi_minor;     /* EDDY_MODULE_ABI_MINOR the module was built with */
    uint32_t struct_size;   /* sizeof(eddy_module_desc) the module was built with */
    const char *name;       /* unique; the scene's "module" value */
    const char *version;    /* the module's own version, free form */
    const char *summary;    /* one line */
    const eddy_param_info *params;
    uint32_t param_count;
    /* Particle-set buffers the system reads or writes (shared with other
     * modules): standard ones are always there, others it adds with
     * eddy_particles_add_buffer in create. */
    const char *const *shared_buffers;
    uint32_t shared_buffer_count;
    /* Creates the system's kernels and buffers; *state is the module's. */
    eddy_result (*create)(const eddy_system_ctx *ctx, void **state);
    /* Frees what create made. state may be NULL after a failed create. */
    void (*destroy)(void *state);
    /* Adds the system's passes for one substep to the step graph. */
    eddy_result (*declare_step)(void *state, eddy_graph step);
    /* Optional: adds per-frame statistics. */
    void (*stats)(void *state, eddy_stats *st);
    /* Optional: writes the system's own files for a frame (meshes, ...),
     * after the particle files; not called when output is off. */
    eddy_result (*write_frame)(void *state, const eddy_frame_ctx *frame);
    /* Optional, for adaptive stepping: the largest stable substep (s) for the
     * current state, and a new substep length. After set_dt the scene builds
     * a new step graph and calls declare_step again. */
    double (*stable_dt)(void *state);
    eddy_result (*set_dt)(void *state, double dt);
    /* The system's slots (see eddy_slot_info); NULL and 0: one slot "set",
     * 1..1. */
    const eddy_slot_info *slots;
    uint32_t slot_count;
    /* ---- ABI 4.1 */
    /* Ports (see eddy_port_info): what the system takes and gives each step. */
    const eddy_port_info *inputs;
    uint32_t input_count;
    const eddy_port_info *outputs;
    uint32_t output_count;
    /* Required with inputs: input `index` goes from `from` at the start of
     * the next step to `to` at its end (the module documents how it moves
     * across the substeps: linearly, or held at `to`). Called between steps
     * only; refused with a message (EDDY_ERROR_INVALID_ARGUMENT) when the
     * system cannot take it (a tool of radius 0, a non-finite value). */
    eddy_result (*set_input)(void *state, uint32_t index, const double from[3], const double to[3]);
    /* Required with inputs: the input's value where the system holds it now
     * (after a clamp, for instance), from which a host's drive starts. */
    eddy_result (*get_input)(void *state, uint32_t index, double value[3]);
    /* Required with outputs: every output's value after the last step (3
     * numbers an output, in order; a float in the first): what the staged
     * read of that step brought back, or, before the first step, the state
     * at rest. */
    eddy_result (*read_outputs)(void *state, double *values);
    /* ---- ABI 4.3 */
    /* Optional: the system's own picture (a volume renderer's image) for a
     * host's camera (checked by the scene: eddy_scene_system_view). Between
     * steps; the first call, and one with another size, creates the graph and
     * images (and may destroy the last ones: eddy keeps what a recording
     * still uses); every call sets the camera, which the graph reads when it
     * runs. Waits: may upload the camera (a transfer eddy waits for). */
    eddy_result (*view)(void *state, const eddy_system_view_desc *desc, eddy_system_view *out);
    /* ---- ABI 4.4 */
    /* Required for checkpoints (a scene with a system whose module has none
     * runs, but eddy_scene_save refuses it with checkpoint.unsupported
     * naming the module): declares, with eddy_checkpoint_buffer and
     * eddy_checkpoint_values, everything of the system that carries over
     * from one step to the next and that its create does not rebuild from
     * the scene: its own buffers that hold state (not scratch a substep
     * overwrites before reading), the set buffers it adds that hold state
     * (to give them a type and unit: the scene saves every set buffer
     * anyway), and host values (a dt set by adaptive stepping, a port's
     * last value, per-frame statistics gathered since the last frame).
     * Called between steps, on a saved scene (each declaration is written)
     * and on one being restored right after its create (each declaration
     * is read in place, at once: after the calls, eddy_checkpoint_restoring
     * tells the module to re-derive what depends on them). The names must
     * be the same both ways. Waits: the transfers of the declared buffers. */
    eddy_result (*checkpoint)(void *state, eddy_checkpoint *cp);
    /* ---- ABI 4.5 */
    /* Optional, for runs over MPI ranks (docs/distributed.md): both or
     * neither. A system that has them runs on a rank's piece of its sets:
     * the particles the rank owns and, as ghosts, every particle within
     * the reach of them, in ascending order of their index in the whole
     * set. The scene replaces them between substeps (eddy_particles_set_count,
     * then set_count, then declare_step again, into a graph whose first
     * passes are the scene's own) and keeps only the owned particles'
     * results, so a system never needs to know which are ghosts. Every
     * set buffer travels with its particle: state a system keeps per
     * particle from substep to substep belongs in set buffers, keyed by
     * the set's "id" buffer (eddy.h) where it names other particles.
     * reach: in *metres, how far a substep carries: a particle's state
     * after one substep may depend on the states, at the substep's start,
     * of the particles within this distance and of no other (a density
     * pass then a force reading the neighbours' densities: twice the
     * support radius; 0 for a system that reads no neighbours). A system
     * that cannot run this way as configured (per-particle state in
     * buffers of its own that carries over substeps, a reduction over the
     * whole set steering its passes) returns EDDY_ERROR_UNSUPPORTED after
     * a message saying why. Between steps; never waits. */
    eddy_result (*reach)(void *state, double *metres);
    /* The set's count changed (its buffers' first count elements are the
     * particles now, not the same ones as before): step that many from the
     * next declare_step on. Between steps; may wait (a parameter upload). */
    eddy_result (*set_count)(void *state);
    /* ---- ABI 4.6 */
    /* Optional, with reach: over MPI ranks, the scene calls this instead of
     * declare_step, for the same passes declared in parts
     * (eddy_step_parts): a reach alone cannot cover solver iterations or a
     * reduction over the whole set. Its parts, run in order with their
     * syncs, must give the owned particles the same results, bit for bit,
     * as declare_step on one rank. Every rank declares the same parts,
     * syncs and loops, one without particles of the set too (the scene
     * stops the run when they differ). Between steps; may wait (a small
     * upload or fill of the system's own buffers). */
    eddy_result (*declare_parts)(void *state, eddy_step_parts *parts);
};

typedef const eddy_module_desc *(*eddy_module_entry_fn)(void);

#ifdef __cplusplus
}
#endif
#endif
