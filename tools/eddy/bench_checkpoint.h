/* eddy bench's checkpoint case (bench_checkpoint.c). */
#ifndef EDDY_BENCH_CHECKPOINT_H
#define EDDY_BENCH_CHECKPOINT_H

#include "eddy/eddy_bench.h"

int eddy_bench_checkpoint_run(eddy_engine *e, const eddy_bench_case *c, const eddy_bench_options *o,
                              eddy_bench_result *r);

#endif
