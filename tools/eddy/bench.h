/* eddy bench: see bench.c. */
#ifndef EDDY_TOOL_BENCH_H
#define EDDY_TOOL_BENCH_H

#include "eddy/eddy.h"
#include "bench_device.h"

#include <stdio.h>

typedef struct bench_options {
    uint32_t iterations;               /* timed runs a case; 0 = 5 */
    uint32_t particles;                /* the cases that take a particle count (EDDY_BENCH_PARTICLES) at
                                          about this many particles instead of their own; 0 = theirs */
    bool no_reference;                 /* skip the C references (large scaling runs) */
    bool no_lists;                     /* the cases with neighbour lists (EDDY_BENCH_LISTS) without them
                                          ("neighbour_list": 0: every loop scans the cells) */
    const bench_device_model *model;   /* predict each case's time on this device; NULL = no */
} bench_options;

/* Runs the named cases (all when argc is 0). Returns 0, 1 when a case
 * failed, 2 when no case matched. */
int eddy_bench_main(eddy_engine *e, int argc, char **argv, const bench_options *o);

/* The usage's lines for eddy bench: its options, every case and group. */
void eddy_bench_usage(FILE *f);

#endif
