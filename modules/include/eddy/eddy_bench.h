/* eddy_bench.h: what a module tells `eddy bench` and `eddy run --profile`
 * about itself (libeddy-modules), so that the tools know modules only
 * through this interface:
 *  - benchmark cases (eddy_bench_case): each builds its scene, times the
 *    module's GPU step and runs the module's C reference from the same start,
 *    and says whether both agree;
 *  - cost descriptions of its passes (eddy_bench_module): what each moves,
 *    visits and computes per element, for the pass profile and the GPU time
 *    model of the tools (tools/eddy/bench_model.h);
 *  - how to count the per-particle work of one of its systems after a run
 *    (eddy run --profile).
 * A built-in module keeps all of it in modules/<name>/<name>_bench.c;
 * eddy_builtin_bench_case and eddy_builtin_bench_module list them.
 * Single-threaded: a case uses the engine it is given, nothing else. */
#ifndef EDDY_BENCH_H
#define EDDY_BENCH_H

#include "eddy/eddy.h"
#include "eddy/eddy_scene.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ cases */

/* What the command line asks of every case. */
typedef struct eddy_bench_options {
    uint32_t iterations;  /* timed runs a case; > 0 */
    uint32_t particles;   /* cases with EDDY_BENCH_PARTICLES at about this many
                             particles instead of their own; 0: their own */
    bool no_reference;    /* skip the C reference (large scaling runs): no
                             cpu_ms, no match */
    bool no_lists;        /* cases with EDDY_BENCH_LISTS without neighbour
                             lists: every loop scans the cells */
    const char *data_dir; /* eddy's data folder (meshes/, tets/); not NULL */
} eddy_bench_options;

/* A rendered frame's work, counted by a C twin of the renderer's passes:
 * the mesh and image sizes, and totals over the frame. A case that fills
 * tets (> 0) is priced per tet, boundary face or ray
 * (eddy_bench_module.frame_model), and the sort's passes per face. */
typedef struct eddy_bench_frame_stats {
    double tets, faces, rays;               /* counts; rays: pixels */
    double tested, fragments, tested_max;   /* rasterising: pixels tested, covered; the most one face tested */
    double steps, pieces;                   /* ray casting: tets crossed, table samples */
    double lane_steps8, lane_steps32;       /* the steps SIMD lanes of 8 and 32 run (the longest ray each) */
    double enters, entries_read, bvh_nodes; /* entry lookups, list entries read, BVH nodes visited */
} eddy_bench_frame_stats;

/* Per element (particle, vertex) of a case or system, the work its passes'
 * loops do (eddy_bench_count_neighbours, eddy_bench_count_ghosts, or the
 * case's own counts). */
typedef struct eddy_bench_stats {
    double candidates;        /* particles in the 27 cells of size h around each */
    double neighbours;        /* within h (itself included); a mesh: its degree */
    double list;              /* within the lists' reach; a mesh: its springs */
    double ghosts;            /* lattice points the wall-ghost loop visits; 0 unless counted */
    bool scans;               /* the lists are off (--no-lists): list loops scan the cells */
    double solver_iterations; /* iterations a step that did work (the C twin's solve); 0: unknown,
                                 every recorded iteration counts in full */
    eddy_bench_frame_stats frame; /* zero but for a rendered frame */
} eddy_bench_stats;

/* A case's measurement, which the tool prints as one JSON line. */
typedef struct eddy_bench_result {
    const char *unit;       /* what n counts: "particles", "vertices", "pixels" or "elements" */
    uint32_t n;             /* elements a step or frame */
    uint32_t iterations;    /* timed runs (eddy_bench_time_graph sets it) */
    double gpu_ms, wall_ms; /* over the timed runs: the passes' GPU time, the host's wall clock */
    double cpu_ms;          /* the C reference over as many runs */
    bool match;             /* the device's result equals the C reference's within the case's tolerance */
    bool no_reference;      /* the C reference did not run: no cpu figures, no match */
    bool has_stats;         /* stats holds the case's counts: print the pass profile */
    bool printed;           /* the case printed its own line (a measurement of another kind) */
    uint64_t bytes;         /* device buffers the case's scene created; 0: not measured */
    int pass_count;         /* entries of passes */
    eddy_pass_time passes[64]; /* the timed runs' passes (eddy_bench_time_graph); their labels
                                  point into labels, so they outlive the case's graph */
    char labels[64][96];
    eddy_bench_stats stats;
} eddy_bench_result;

/* What a case honours, for the usage and the options' checks. */
enum {
    EDDY_BENCH_PARTICLES = 1u << 0, /* eddy_bench_options.particles */
    EDDY_BENCH_LISTS = 1u << 1,     /* eddy_bench_options.no_lists */
};

typedef struct eddy_bench_case eddy_bench_case;
/* Runs case c on e and fills r (unit, n, timings, cpu_ms, match, stats).
 * Returns 0 when the device's result equals the C reference's (or the
 * reference did not run), 1 when it differs, -1 when the case failed
 * (nothing measured). The tool zeroes r before, and after prints r for 0
 * and 1 unless r->printed. */
typedef int (*eddy_bench_run_fn)(eddy_engine *e, const eddy_bench_case *c, const eddy_bench_options *o,
                                 eddy_bench_result *r);
struct eddy_bench_case {
    const char *name;      /* GROUP.SIZE: `eddy bench NAME` or `eddy bench GROUP` */
    eddy_bench_run_fn run;
    uint32_t n;            /* the case's size, as its run reads it */
    uint32_t variant;      /* which of its run's variants; 0: the plain one */
    uint32_t flags;        /* EDDY_BENCH_* */
    const char *note;      /* what the usage says beside the name, or NULL */
};

/* Runs g once to warm up (pipelines compile at first use on some drivers),
 * then `iterations` times with timestamps (g must have them on); fills r's
 * iterations, gpu_ms, wall_ms, passes and pass_count. */
EDDY_API eddy_result eddy_bench_time_graph(eddy_engine *e, eddy_graph g, uint32_t iterations, eddy_bench_result *r);

/* A monotonic clock in ms, for timing C references. */
EDDY_API double eddy_bench_now_ms(void);

/* Per particle, over the particles' positions (xyz of vec4, n of them), into
 * out (zeroed first): candidates in the 27 cells of size h around each (the
 * scans' visits), neighbours within h (i itself included) and within
 * list_r (the lists' entries; list_r = h where lists hold exactly the
 * neighbours). False when out of memory or when the particles spread over
 * more than 64 cells each. */
EDDY_API bool eddy_bench_count_neighbours(const float *pos, uint32_t n, float h, float list_r, eddy_bench_stats *out);

/* Mean lattice points per particle that the wall-ghost loop
 * (shaders/ghosts.glsl: spacing s, support h, box [lo, hi]) visits: the
 * points outside the box in the block around a particle within h of a
 * wall, 0 for the others. Into out->ghosts. */
EDDY_API void eddy_bench_count_ghosts(const float *pos, uint32_t n, float h, float s, const float lo[3], const float hi[3],
                             eddy_bench_stats *out);

/* ------------------------------------------------------------------ pass costs */

/* The neighbour set a pass's loop walks, per element. */
typedef enum eddy_bench_visits {
    EDDY_BENCH_VISIT_NONE,
    EDDY_BENCH_VISIT_CANDIDATES, /* the 27 cells' particles (a scan) */
    EDDY_BENCH_VISIT_LIST,       /* the neighbour list's entries (stats.list) */
    EDDY_BENCH_VISIT_NEIGHBOURS, /* the neighbours within h (stats.neighbours) */
} eddy_bench_visits;

/* What one call of a pass handles: one element of the case (a particle, a
 * vertex), or one sort key. */
typedef enum eddy_bench_per {
    EDDY_BENCH_PER_ELEMENT,
    EDDY_BENCH_PER_KEY,
} eddy_bench_per;

/* Per element and call, read off a pass's shader (bytes of 4-byte floats
 * and indices; a flop is an add, multiply, divide or square root, an FMA
 * two). stream: own state read and written once, plus list_bytes per list
 * entry read or written (the list is streamed, 4 bytes an entry; a scan
 * writes one per list entry); visit_bytes: what each neighbour visit
 * gathers (cache hits on a GPU: neighbours are sorted near each other); a
 * scan of the 27 cells also reads 54 cell-table entries. */
typedef struct eddy_bench_pass_cost {
    const char *label;        /* the pass's label */
    double stream, list_bytes; /* bytes */
    eddy_bench_visits visits;
    double visit_bytes, visit_flops, flops;
    double ghost_flops;       /* per wall-ghost lattice point the pass's ghost loop visits */
    double visit_stream;      /* bytes each visit streams (a matrix entry, a spring's state), not gathered */
    eddy_bench_per per;
    bool solver_iteration;    /* recorded max_iterations times and dispatched with no groups once the
                                 solve converged: stats.solver_iterations of its calls do work */
} eddy_bench_pass_cost;

/* A pass's model per element and call: bytes streamed and gathered,
 * neighbour visits, flops. */
typedef struct eddy_bench_pass_model {
    double stream, gathered, visits, flops;
} eddy_bench_pass_model;

/* A module's passes for the pass profile, the time model and
 * `eddy run --profile`. */
typedef struct eddy_bench_module {
    const eddy_module_desc *(*module)(void); /* the module described */
    const eddy_bench_pass_cost *costs;        /* its passes' costs; none: NULL */
    uint32_t cost_count;
    bool lists_optional; /* without lists (stats.scans) its list loops scan the cells like the pass that
                            builds them, and nothing reads or writes a list */
    /* A pass priced from a rendered frame's counts (called when f->tets > 0): its model per element
     * and call, the elements (*count) and what one is (*per: "tet", "face", "ray"). false: not one
     * of these (its costs apply). simd_width: the lanes of the device modelled in lockstep (0: none).
     * NULL: the module renders no frames. */
    bool (*frame_model)(const char *label, double calls, const eddy_bench_frame_stats *f, double simd_width,
                        eddy_bench_pass_model *m, double *count, const char **per);
    /* eddy run --profile: system `system` of scene s after its run, counted from its set's
     * positions into out, its particles into *count. false: nothing to print (a parameter
     * missing, out of memory, a sparse spray). NULL: no per-particle profile. */
    bool (*system_stats)(eddy_engine *e, const eddy_scene *s, const char *system, uint32_t *count,
                         eddy_bench_stats *out);
} eddy_bench_module;

/* ------------------------------------------------------------------ the built-in modules' */

/* The built-in modules' cases in the order `eddy bench` runs them: the
 * index-th, or NULL past the last. Static storage. */
EDDY_API const eddy_bench_case *eddy_builtin_bench_case(uint32_t index);

/* The built-in modules' cost descriptions: the index-th, or NULL past the
 * last. Static storage. */
EDDY_API const eddy_bench_module *eddy_builtin_bench_module(uint32_t index);

#ifdef __cplusplus
}
#endif
#endif
