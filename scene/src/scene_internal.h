/* What the scene_*.c files share: the scene's types (its particle sets,
 * systems and their tools, struct eddy_scene itself), the parser's context,
 * the host arrays a particle set is built in, and the functions one file
 * defines and another calls. The scene is split by concern: scene_json.c
 * (field readers and the parser's message), scene_fill.c (particle sets),
 * scene_system.c (tools, params, solids, images), scene_load.c (load,
 * destroy, info), scene_step.c (tools and stepping), scene_output.c
 * (statistics and frame files). None of this is public API: the scene is
 * opaque outside the engine (eddy.h). */
#ifndef EDDY_SCENE_INTERNAL_H
#define EDDY_SCENE_INTERNAL_H

#include "eddy/eddy.h"
#include "eddy/eddy_module.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "eddy/eddy_scene.h"
#include "output.h"
#include "render.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct scene_set {
    eddy_particles handle;
    char name[EDDY_NAME_MAX + 1];
    uint32_t count;
} scene_set;

typedef struct path_key {
    double t, x[3];
} path_key;

/* An input port as the scene drives it: along a key-framed path (the
 * system's "inputs"), or to where the host (eddy_scene_set_input, a haptic
 * loop) puts it; else held where the system has it. */
typedef struct scene_input {
    const eddy_port_info *port;
    bool scripted;        /* the scene gives a path */
    bool host;            /* eddy_scene_set_input took over */
    path_key *keys;
    uint32_t key_count;
    bool smooth;          /* cubic Hermite through the keys, else linear */
    double at[3];         /* the value at the end of the last step, as set */
    double target[3];     /* host: the value at the end of the next step */
    double held[3];       /* where the system held it when last asked (after its clamp) */
    bool held_known;      /* held is set: what eddy_scene_input gives while a host's steps run */
} scene_input;

typedef struct scene_system {
    const eddy_module_desc *module;
    void *state;
    char name[EDDY_NAME_MAX + 1];
    uint32_t rate;        /* the system's substeps per scene substep ("substeps") */
    uint32_t pass_first, pass_count; /* its passes in the step graph (one rank) */
    scene_input *inputs;  /* module->input_count */
    double *outputs;      /* 3 per output: the last step's values (zero before the first);
                             inactive: the last values read, once outputs_known */
    bool outputs_known;
    /* Active: inputs are set and outputs read every step (an input is
     * driven, or the ports are logged). */
    bool active;
    bool log;             /* write ports_<system>.csv */
    char *text;           /* log lines not yet appended to the file */
    size_t len, cap;
    eddy_param_value *params; /* module->param_count values as created (eddy_scene_system_param) */
    eddy_particles set;       /* the first slot's first set */
} scene_system;

struct eddy_scene {
    eddy_engine *e;
    char path[4096];
    char name[EDDY_SCENE_NAME_MAX + 1];
    char out_dir[EDDY_OUT_DIR_MAX + 1];
    double dt;
    uint32_t substeps;
    bool adaptive;         /* substeps follow the systems' stable_dt, checked per frame */
    /* Over MPI ranks ("balance"): the split moves when the most loaded
     * rank is above the mean by balance_threshold, loaded by its particles
     * or (balance_time) by its measured compute time. */
    bool balance_time;
    double balance_threshold;
    uint32_t current_substeps;
    uint32_t max_substeps; /* adaptive: at most this many */
    bool adapt_pending;    /* over ranks: the next substep adapts, after its exchange */
    double duration;
    uint64_t steps, steps_done;
    uint64_t frame_step; /* steps_done at the last frame: the "clamped" counts cover (frame_step, steps_done] */
    uint32_t frame_every;
    bool vtk, stats, no_output, profile;
    float box_min[3], box_max[3];
    scene_set *sets;
    uint32_t set_count;
    scene_system *systems;
    uint32_t system_count;
    eddy_solid *solids;
    uint32_t solid_count;
    eddy_graph graph;
    uint64_t generation;      /* of graph: grows each time adaptive stepping replaces it */
    bool recorded;            /* steps recorded by a host not yet known finished (outputs unread) */
    bool out_closed;          /* the .tmp logs (stats.jsonl, tool CSVs) of a ready output were
                                 renamed by eddy_scene_finish_output: no more frames */
    eddy_pvd_entry *pvd;      /* per set and frame; file names owned here */
    uint32_t pvd_count, pvd_cap;
    uint32_t frames;
    bool out_ready;
    /* PNG frames ("output.images"). */
    eddy_renderer *renderer;
    uint32_t image_w, image_h;
    int color_by;            /* 0 speed, 1 density, 2 set, 3 phase */
    double color_range[2];
    bool images;             /* the scene asked for images: view holds their camera */
    eddy_render_desc view;
    /* Checkpoints (checkpoint.c): the scene text as loaded, which a
     * checkpoint carries and whose hash it checks. */
    char *text;
    /* Restored from a checkpoint with output on: the first frame continues
     * the folder instead of clearing it, cutting each log back to its
     * length at the checkpoint (bytes; stats.jsonl first, then each
     * system's port log) and rewriting the .pvd series. */
    bool resume_out;
    uint64_t *resume_bytes;  /* 1 + system_count */
    /* Runs over MPI ranks (scene_dist.c); NULL on one rank. */
    struct scene_dist *dist;
};

/* The parser's state while one scene is read: the engine to log to, the
 * file named in messages, and whether a message was given already (a scene
 * gets one message: the first problem). */
typedef struct parse_ctx {
    eddy_engine *e;
    const char *file;
    bool failed;
    uint64_t host_budget; /* bytes a set's host arrays and a mesh fill may take */
} parse_ctx;

/* A set's particles in host memory while the set is built (scene_fill.c),
 * uploaded to its buffers by load (scene_load.c). */
typedef struct host_particles {
    float *position, *velocity, *mass;
    uint32_t *phase;
    uint64_t count, cap;
    /* A "tetmesh" set: its tets and boundary triangles (indices into the
     * set), the vertex scalar, and the "pinned" flags (NULL: none). */
    uint32_t *tets, *surface;
    uint32_t tet_count, surface_count;
    /* A "cloth" set: its triangles. */
    uint32_t *triangles;
    uint32_t triangle_count;
    float *scalar;
    uint32_t *pinned;
} host_particles;

/* ------------------------------------------------------------------ scene_json.c */

/* Logs the first problem of a scene (the id from the list in eddy.h, then
 * "<file>: <field>: <text>") and returns false, so a parser can
 * `return scene_fail(...)`; later problems are not logged. */
bool scene_fail(parse_ctx *c, const char *id, const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* "a number", "an array", ... for messages; "nothing" for NULL. */
const char *scene_json_type(const cJSON *j);
/* Fails on a key of obj that is not in keys (NULL-terminated). */
bool scene_check_keys(parse_ctx *c, const cJSON *obj, const char *path, const char *const *keys);
/* The field readers: obj[key] (reported as "<path>.<key>"), def when it is
 * absent and not required; anything else fails with the reason. */
bool scene_get_number(parse_ctx *c, const cJSON *obj, const char *key, const char *path,
                      bool required, double def, double min, double max, double *out);
bool scene_get_vec3(parse_ctx *c, const cJSON *j, const char *field, double min, double max,
                    double out[3]);
bool scene_get_vec3_key(parse_ctx *c, const cJSON *obj, const char *key, const char *path,
                        bool required, const double def[3], double out[3]);
bool scene_get_string(parse_ctx *c, const cJSON *obj, const char *key, const char *path,
                      bool required, const char **out);
bool scene_get_bool(parse_ctx *c, const cJSON *obj, const char *key, const char *path, bool def,
                    bool *out);
bool scene_get_whole(parse_ctx *c, const cJSON *obj, const char *key, const char *path, double def,
                     double min, double max, double *out);
bool scene_check_name(parse_ctx *c, const char *field, const char *name, size_t max);
bool scene_get_name(parse_ctx *c, const cJSON *obj, const char *key, const char *path, bool required,
                    size_t max, const char **out);
bool scene_check_duplicates(parse_ctx *c, const cJSON *j, const char *path);
/* The folder part of a path ("." for none): files are relative to the scene file. */
void scene_dir_of(const char *path, char *out, size_t cap);
/* The whole file, NUL-terminated (free it); NULL with the reason in err. */
char *scene_read_file(const char *path, char *err, size_t cap);
/* 1-based line and column of `at` in text, for JSON syntax errors. */
void scene_line_col(const char *text, const char *at, int *line, int *col);

/* ------------------------------------------------------------------ scene_fill.c */

void scene_host_free(host_particles *h);
/* particle_sets[index]: its particles into h, its capacity and name. */
bool scene_parse_set(parse_ctx *c, eddy_scene *s, const cJSON *js, int index, uint64_t limit,
                     host_particles *h, uint32_t *capacity, char name[EDDY_NAME_MAX + 1]);

/* ------------------------------------------------------------------ scene_system.c */

/* An input's path value at time t (s): held before the first key and after
 * the last. */
void scene_input_path_at(const scene_input *in, double t, double out[3]);
/* The system's "inputs" ({"port": {"path": [...], "interpolation": ...}})
 * into sys->inputs (allocated here, one per module input). */
bool scene_parse_inputs(parse_ctx *c, const cJSON *jin, const char *path, scene_system *sys);
/* Makes a system's ports active (scene_step.c): its inputs are set and its
 * outputs read every step; each input starts where its path starts or where
 * the system holds it. */
eddy_result scene_activate_ports(eddy_scene *s, scene_system *sys);
/* The ports the scene logs: 1 (float) or 3 numbers per input and output. */
uint32_t scene_port_width(const eddy_port_info *p);
/* The scene's system named `name`, or NULL after a message
 * (scene.unknown_system). */
scene_system *scene_find_system(const eddy_scene *s, const char *name);
/* A system's "params" (jp, NULL when absent) against what module m
 * declares: values[i] and lists[i] for each of its params, defaults filled
 * in. A list param's numbers are malloc'd into lists[i] (count 0 and NULL
 * for every other param and an absent list); the caller frees them with
 * scene_free_param_lists once create returns. On failure nothing is left
 * allocated. */
bool scene_parse_params(parse_ctx *c, const eddy_module_desc *m, const cJSON *jp,
                        const char *path, eddy_param_value *values, eddy_param_list *lists);
void scene_free_param_lists(eddy_param_list *lists, uint32_t count);
bool scene_parse_solid(parse_ctx *c, const cJSON *j, const char *path, eddy_solid *out);
bool scene_parse_images(parse_ctx *c, eddy_scene *s, const cJSON *j, eddy_render_desc *rd);

/* ------------------------------------------------------------------ scene_step.c */

/* Adaptive stepping: called by load for the first substep count and by
 * eddy_scene_run after each frame. */
eddy_result scene_adapt(eddy_scene *s);
/* The smallest of this rank's systems' stable substeps; scene_adapt's
 * choice for a given one (over ranks: the smallest over the ranks). */
double scene_stable_dt(eddy_scene *s);
eddy_result scene_adapt_to(eddy_scene *s, double stable);
/* Waits for a host's recorded steps and reads their outputs (scene_step.c). */
eddy_result scene_wait_recorded(eddy_scene *s);
/* A new step graph of n substeps (adaptive stepping, a restored checkpoint). */
eddy_result scene_set_substeps(eddy_scene *s, uint32_t n);

/* ------------------------------------------------------------------ scene_dist.c */

/* Runs over MPI ranks (docs/distributed.md); without MPI in the build only
 * scene_dist_attach exists, refusing a communicator. */
/* After a load on every rank of *comm (s NULL where it failed): the
 * ranks agree, split the scene and keep their parts; NULL on every rank
 * after one message when any failed. */
eddy_scene *scene_dist_attach(eddy_engine *e, eddy_scene *s, const void *comm);
void scene_dist_free(eddy_scene *s);
/* n steps over the ranks (eddy_scene_step's graph runs). */
eddy_result scene_dist_steps(eddy_scene *s, uint64_t n);
/* A call that the ranks do not run together yet: one message. */
eddy_result scene_dist_refuse(const eddy_scene *s, const char *what);
/* The frame's collective parts: the folder made by rank 0 before the
 * others write (res: this rank's result so far), set i's statistics
 * (gathered to rank 0 in index order: the one-rank numbers) and its
 * pieces (.vtp per rank, .pvtp by rank 0), and the frame's end: the
 * ranks' figures into the statistics line and one result for all. */
eddy_result scene_dist_frame_begin(eddy_scene *s, eddy_result res);
eddy_result scene_dist_frame_set(eddy_scene *s, uint32_t i, double t, eddy_stats *st, bool *unstable);
eddy_result scene_dist_frame_end(eddy_scene *s, eddy_stats *st, eddy_result res);
bool scene_dist_root(const eddy_scene *s);
/* Over ranks: true on every rank when v is true on any (v itself on one
 * rank); the run's stop flag and wall-clock checkpoints, which each rank
 * sees at its own moment. */
bool scene_dist_any(eddy_scene *s, bool v);
/* Over ranks (collective): one result on every rank, r where it failed
 * and a failure with the first failing rank's message elsewhere; r itself
 * on one rank. */
eddy_result scene_dist_agree(eddy_scene *s, eddy_result r);
/* Whether system k writes its own frame files here: on one rank; over
 * ranks rank 0, for a system of a set every rank holds whole (its mesh). */
bool scene_dist_writes_frames(const eddy_scene *s, uint32_t k);
/* eddy_scene_save over ranks: every set gathered to rank 0 in index order,
 * which writes the one-rank file (scene_checkpoint_write); a run resumes
 * from it on any number of ranks. */
eddy_result scene_dist_save(eddy_scene *s, const char *path);

/* ------------------------------------------------------------------ scene_output.c (for scene_dist.c) */

/* Set i's statistics over n particles' host arrays (see set_stats). */
void scene_set_stats(eddy_scene *s, uint32_t i, uint32_t n, double t, eddy_stats *st, const float *pos,
                     const float *vel, const float *mass, uint32_t clamped, bool *unstable);
/* Adds frame file `file` of set i to its .pvd series and rewrites it. */
eddy_result scene_add_pvd(eddy_scene *s, uint32_t i, double t, const char *file);
/* The statistics line's printf (scene_output.c). */
void scene_stats_printf(eddy_stats *st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ------------------------------------------------------------------ checkpoint.c */

/* The scene text a checkpoint carries and the path it was loaded from
 * (malloc'd; NULL after a message naming the file). */
char *scene_checkpoint_text(eddy_engine *e, const char *checkpoint, char *path, size_t path_cap);
/* Whether every system's module declares its state; false after a message
 * (checkpoint.unsupported, naming `file` and the module). */
bool scene_checkpointable(eddy_scene *s, const char *file);
/* eddy_scene_save's work on one rank: the scene's state into path. */
eddy_result scene_checkpoint_write(eddy_scene *s, const char *path);
/* Restores a loaded scene from the checkpoint it was made from; false
 * after one message. */
bool scene_restore(eddy_scene *s, const char *checkpoint);
/* The first frame (or checkpoint) of a restored scene: the folder
 * continued (logs cut back, .pvd series rewritten); then out_ready. */
eddy_result scene_resume_out(eddy_scene *s);

/* ------------------------------------------------------------------ scene_output.c */

/* The name of the scene's log k: stats.jsonl (0), then system k - 1's
 * ports_<system>.csv; false when the scene does not write that log. */
bool scene_log_name(const eddy_scene *s, uint32_t k, char *out, size_t cap);
/* "<out_dir>/<file>" (false when it does not fit cap). */
bool scene_out_path(const eddy_scene *s, char *path, size_t cap, const char *file);
/* Appends the ports' buffered log lines to their files. */
eddy_result scene_flush_port_logs(eddy_scene *s);
/* Rewrites set i's .pvd series from s->pvd. */
eddy_result scene_write_pvd(eddy_scene *s, uint32_t i);

/* Called by eddy_destroy_scene: a scene's appended files are renamed into
 * place whether the run finished or stopped on an error. */
eddy_result scene_close_output(eddy_scene *s);

/* The engine a scene runs on (the haptic loop logs through it). */
eddy_engine *eddy_scene_engine(const eddy_scene *s);

/* A NULL scene cannot log through its engine: one line on stderr
 * (handle.invalid, naming the function), and the function's failure value. */
#define SCENE_GUARD(s, fail)                                                                       \
    do {                                                                                           \
        if (!(s) || !(s)->e) {                                                                     \
            fprintf(stderr, "eddy error [handle.invalid]: %s: the scene is %s\n", __func__,        \
                    (s) ? "empty: its engine was destroyed first" : "NULL");                       \
            fail;                                                                                  \
        }                                                                                          \
    } while (0)
/* eddy_engine_on_destroy's callback for a scene (scene_load.c). */
void scene_engine_gone(void *scene);

/* A NULL pointer a function reads or writes its values through: one
 * message (api.null) naming the function and the argument. */
#define SCENE_NEED(s, ptr, fail)                                                                   \
    do {                                                                                           \
        if (!(ptr)) {                                                                              \
            eddy_log((s)->e, EDDY_LOG_ERROR, "api.null", "%s: %s is NULL", __func__, #ptr);       \
            fail;                                                                                  \
        }                                                                                          \
    } while (0)

#endif
