/* eddy bench: see bench.c. */
#ifndef EDDY_TOOL_BENCH_H
#define EDDY_TOOL_BENCH_H

#include "eddy/eddy.h"
#include "eddy/eddy_scene.h"

/* Runs the named cases (all when argc is 0), `iterations` timed runs each
 * (0 = 5). Returns 0, 1 when a case failed, 2 when no case matched. */
int eddy_bench_main(eddy_engine *e, int argc, char **argv, uint32_t iterations);

#endif
