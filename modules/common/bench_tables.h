/* The accessors every built-in module's <name>_bench.c gives
 * builtin_bench.c (eddy_bench.h): its case list and its pass costs. */
#ifndef EDDY_BENCH_TABLES_H
#define EDDY_BENCH_TABLES_H

#include "eddy/eddy_bench.h"

/* Defines `fn`, which returns the static array `table` and its length. */
#define EDDY_BENCH_CASE_LIST(fn, table)                   \
    const eddy_bench_case *fn(uint32_t *count)            \
    {                                                     \
        *count = (uint32_t)(sizeof table / sizeof table[0]); \
        return table;                                     \
    }

/* The costs fields of an eddy_bench_module initializer. */
#define EDDY_BENCH_COSTS(table) .costs = table, .cost_count = sizeof table / sizeof table[0]

#endif
