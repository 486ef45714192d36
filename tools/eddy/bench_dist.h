/* `eddy bench dist.sph dist.pbf` (or `dist`, both): the distributed step
 * measured as bench cases. Launched under mpirun -np N (or srun) they run
 * tools/bench_dist.sh's dam break of 36,000 particles first on rank 0
 * alone (the one-rank reference, in the same run) and then over all N
 * ranks; without a launcher, on one rank. Rank 0 prints one JSON line a
 * case: ms a step and particle-steps a second over `steps` steps (after 3
 * to warm up), the same on one rank and the ratio, and over ranks a
 * substep's split into compute, pack, exchange and wait (the slowest
 * rank's), ghosts a rank, halo bytes and submissions a substep, from the
 * ranks' statistics (docs/distributed.md). */
#ifndef EDDY_TOOL_BENCH_DIST_H
#define EDDY_TOOL_BENCH_DIST_H

#include "eddy/eddy.h"

#include <stdbool.h>
#include <stdint.h>

/* Whether a bench argument names these cases. */
bool eddy_bench_dist_case(const char *name);
/* Runs the cases `name` names (collective over the launch's ranks);
 * steps 0: 20. Returns 0, or 1 when a run failed. */
int eddy_bench_dist(eddy_engine *e, const char *name, uint32_t steps);

#endif
