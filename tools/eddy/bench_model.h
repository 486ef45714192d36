/* eddy bench's pass profile and GPU time model.
 *
 * Each pass has a cost description (eddy_bench_pass_cost, eddy/eddy_bench.h):
 * the core's prims in bench_model.c, a module's in its bench file, listed by
 * eddy_builtin_bench_module. It gives the bytes a pass streams per element
 * (its own reads and writes, once), the neighbour set its loop walks (the
 * 27 cells' candidates, the neighbour list, or none), the bytes each visit
 * gathers and the arithmetic per visit and per element. With the counts
 * measured on the case's elements (eddy_bench_stats: the neighbours of the
 * final particles, a mesh's degrees) that gives per pass and step: bytes
 * moved, visits and flops per element, their rates at the measured time,
 * and the roofline reading (compute- or memory-bound against a device's
 * balance of flops to bytes). A rendered frame's passes are priced per tet,
 * boundary face or ray from the work a C twin counts in the frame
 * (eddy_bench_frame_stats, eddy_bench_module.frame_model).
 *
 * On a device (bench_device.h) a pass's predicted time per call is
 *
 *   overhead + max(stream / bandwidth, gathers / cache, flops / peak,
 *                  visits per element x visit latency x waves)
 *
 * and the largest term names what bounds it. */
#ifndef EDDY_TOOL_BENCH_MODEL_H
#define EDDY_TOOL_BENCH_MODEL_H

#include "bench_device.h"
#include "eddy/eddy_bench.h"

#include <stdint.h>
#include <stdio.h>

/* One measured pass of a case: its label, dispatches per step and GPU ms
 * per step. */
typedef struct bench_pass_measure {
    const char *label;
    double calls, ms;
} bench_pass_measure;

/* Prints `,"profile":{...}` for the passes that have a cost description
 * (and `,"model":{...}` with a device), for n elements (a frame: n rays).
 * Figures are per element and step; a pass whose element is not the case's
 * own says so ("per": "tet", "face" or "ray"). */
void bench_print_profile(FILE *f, const bench_pass_measure *passes, int count, uint32_t n,
                         const eddy_bench_stats *ns, const bench_device_model *device);

/* eddy run --profile: a table of the passes whose label starts with
 * `prefix` (a module's name and a dot), from totals over a run (calls and
 * ms), per particle and call. */
void bench_print_profile_text(FILE *f, const bench_pass_measure *passes, int count, uint32_t n,
                              const eddy_bench_stats *ns, const char *prefix);

#endif
