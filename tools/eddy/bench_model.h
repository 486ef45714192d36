/* eddy bench's pass profile and GPU time model.
 *
 * Each particle pass of the fluid and rigid steps has a cost description
 * read off its shader (bench_model.c, pass_costs): the bytes it streams per
 * particle (its own reads and writes, once), the neighbour set its loop walks
 * (the 27 cells' candidates, the neighbour list, or none), the bytes each
 * visit gathers and the arithmetic per visit and per particle. With the
 * neighbour counts measured on the case's particles (bench_count_neighbours)
 * that gives per pass and step: bytes moved, visits and flops per particle,
 * their rates at the measured time, and the roofline reading (compute- or
 * memory-bound against a device's balance of flops to bytes). The deform
 * passes are per vertex (visits: the spring graph's degree); the volume
 * renderer's per tet, boundary face or ray, from the work a frame of the C
 * twin counts (bench_volume_stats).
 *
 * A device file (JSON, bench_model_parse) describes a GPU for the time model:
 *
 *   { "name": "NVIDIA H100 SXM", "bandwidth_GBps": 3350, "cache_GBps": 10000,
 *     "gflops": 67000, "pass_overhead_us": 4, "visit_latency_ns": 60,
 *     "resident_threads": 270336, "simd_width": 32 }
 *
 * bandwidth_GBps: device memory bandwidth (streamed bytes); cache_GBps: the
 * rate neighbour gathers run at (spatially sorted neighbours hit the cache);
 * gflops: FP32 peak (an FMA is 2 flops); pass_overhead_us: dispatch plus
 * barrier per pass; visit_latency_ns: the serial cost of one neighbour visit
 * in one thread when too few threads run to hide memory latency;
 * resident_threads (optional, 0 or absent: no limit): the threads the
 * device holds at once, so a pass of more elements runs in waves, each
 * paying the latency chain; simd_width (optional, 0 or absent: none): the
 * lanes that run in lockstep, so a loop whose trip count differs across
 * lanes (volume.cast's rays) runs as long as its longest lane in each
 * group (8: a 256-bit CPU SIMD; 32: a warp). A pass's predicted time per
 * call is
 *
 *   overhead + max(stream / bandwidth, gathers / cache, flops / peak,
 *                  visits per element x visit latency x waves)
 *
 * and the largest term names what bounds it. */
#ifndef EDDY_TOOL_BENCH_MODEL_H
#define EDDY_TOOL_BENCH_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct bench_device_model {
    char name[128];
    double bandwidth_gbps;   /* > 0 */
    double cache_gbps;       /* > 0 */
    double gflops;           /* > 0 */
    double pass_overhead_us; /* >= 0 */
    double visit_latency_ns; /* >= 0 */
    double resident_threads; /* >= 0; 0: no limit */
    double simd_width;       /* 0 (none), 8 or 32 */
} bench_device_model;

/* Parses a device file's text (len bytes, not necessarily terminated).
 * Returns 0, or -1 with a message naming `source`, the field and the expected
 * value in err. */
int bench_model_parse(const char *text, size_t len, const char *source, bench_device_model *out, char *err,
                      size_t errlen);

/* Reads and parses a file (at most 64 KiB). */
int bench_model_load(const char *path, bench_device_model *out, char *err, size_t errlen);

/* Per particle, over the particles' final positions (xyz of vec4, n of
 * them), as bench_count_neighbours finds them: candidates in the 27 cells of
 * size h around each (the scans' visits), neighbours within h (i itself
 * included) and within list_r (the neighbour lists' entries; list_r = h
 * where lists hold exactly the neighbours). It returns false when out of
 * memory or when the particles spread over more than 64 cells each. */
/* The volume renderer's frame (eddy_volume_cast_counts of the C twin, which
 * does the passes' work): the mesh and image sizes, and totals over the
 * frame. With tets > 0 the volume.* passes are modelled per tet, boundary
 * face or ray, and the sort's passes per face (their keys). */
typedef struct bench_volume_stats {
    double tets, faces, rays;               /* counts; rays: pixels */
    double tested, fragments, tested_max;   /* volume.raster: pixels tested, covered; the most one face tested */
    double steps, pieces;                   /* volume.cast: tets crossed, table samples */
    double lane_steps8, lane_steps32;       /* the steps SIMD lanes of 8 and 32 run (the longest ray each) */
    double enters, entries_read, bvh_nodes; /* entry lookups, list entries read, BVH nodes visited */
} bench_volume_stats;

typedef struct bench_neighbour_stats {
    double candidates, neighbours, list;
    double ghosts; /* lattice points the wall-ghost loop visits (bench_count_ghosts), 0 unless counted */
    bool scans;                /* the fluid's lists are off (--no-lists): its list loops scan the cells */
    double solver_iterations;  /* IISPH: iterations a step that did work (the C twin's); 0: unknown, every
                                  recorded iteration counts in full */
    bench_volume_stats volume; /* zero but for the volume cases */
} bench_neighbour_stats;
bool bench_count_neighbours(const float *pos, uint32_t n, float h, float list_r, bench_neighbour_stats *out);

/* Mean lattice points per particle that the wall-ghost loop
 * (shaders/ghosts.glsl: spacing s, support h, box [lo, hi]) visits: the
 * points outside the box in the block around a particle within h of a
 * wall, 0 for the others. Into out->ghosts. */
void bench_count_ghosts(const float *pos, uint32_t n, float h, float s, const float lo[3], const float hi[3],
                        bench_neighbour_stats *out);

/* One measured pass of a case: its label, dispatches per step and GPU ms
 * per step. */
typedef struct bench_pass_measure {
    const char *label;
    double calls, ms;
} bench_pass_measure;

/* Prints `,"profile":{...}` for the passes that have a cost description
 * (and `,"model":{...}` with a device), for n particles (volume: n rays).
 * Figures are per element and step; a pass whose element is not the case's
 * own says so ("per": "tet", "face" or "ray"). */
void bench_print_profile(FILE *f, const bench_pass_measure *passes, int count, uint32_t n,
                         const bench_neighbour_stats *ns, const bench_device_model *device);

/* eddy run --profile: a table of the passes whose label starts with
 * `prefix` (e.g. "pbf."), from totals over a run (calls and ms), per
 * particle and call. */
void bench_print_profile_text(FILE *f, const bench_pass_measure *passes, int count, uint32_t n,
                              const bench_neighbour_stats *ns, const char *prefix);

#endif
