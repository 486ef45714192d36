/* The built-in modules' bench cases and pass costs (eddy_bench.h), as
 * builtin.c collects their descriptors. A built-in module with cases adds
 * its modules/<name>/<name>_bench.c here. Only the modules built
 * (eddy_builtin_config.h) have cases. */
#include "eddy/eddy_bench.h"
#include "builtin_headers.h"

#include <stddef.h>

/* The order `eddy bench` runs them in (and lists them): the haptic loop
 * last, since it runs for seconds of wall-clock time. */
static const eddy_bench_case *(*const case_lists[])(uint32_t *count) = {
#if EDDY_BUILTIN_SPH
    eddy_sph_bench_cases,
#endif
#if EDDY_BUILTIN_PBF
    eddy_pbf_bench_cases,
#endif
#if EDDY_BUILTIN_RIGID
    eddy_rigid_bench_cases,
#endif
#if EDDY_BUILTIN_DEFORM
    eddy_deform_bench_cases,
#endif
#if EDDY_BUILTIN_VOLUME
    eddy_volume_bench_cases,
#endif
#if EDDY_BUILTIN_PBF
    eddy_pbf_haptic_bench_cases,
#endif
    NULL,
};

static const eddy_bench_module *(*const module_list[])(void) = {
#if EDDY_BUILTIN_SPH
    eddy_sph_bench_module,
#endif
#if EDDY_BUILTIN_PBF
    eddy_pbf_bench_module,
#endif
#if EDDY_BUILTIN_RIGID
    eddy_rigid_bench_module,
#endif
#if EDDY_BUILTIN_DEFORM
    eddy_deform_bench_module,
#endif
#if EDDY_BUILTIN_VOLUME
    eddy_volume_bench_module,
#endif
    NULL,
};

const eddy_bench_case *eddy_builtin_bench_case(uint32_t index)
{
    for (size_t l = 0; case_lists[l]; l++) {
        uint32_t k;
        const eddy_bench_case *list = case_lists[l](&k);
        if (index < k)
            return &list[index];
        index -= k;
    }
    return NULL;
}

const eddy_bench_module *eddy_builtin_bench_module(uint32_t index)
{
    for (uint32_t i = 0; module_list[i]; i++)
        if (i == index)
            return module_list[i]();
    return NULL;
}
