/* The built-in modules' bench cases and pass costs (eddy_bench.h), as
 * builtin.c collects their descriptors. A built-in module with cases adds
 * its modules/<name>/<name>_bench.c here. */
#include "eddy/eddy_bench.h"

#include "deform/deform.h"
#include "pbf/pbf.h"
#include "rigid/rigid.h"
#include "sph/sph.h"
#include "volume/volume.h"

#include <stddef.h>

/* The order `eddy bench` runs them in (and lists them): the haptic loop
 * last, since it runs for seconds of wall-clock time. */
static const eddy_bench_case *(*const case_lists[])(uint32_t *count) = {
    eddy_sph_bench_cases, eddy_pbf_bench_cases, eddy_rigid_bench_cases, eddy_deform_bench_cases,
    eddy_volume_bench_cases, eddy_pbf_haptic_bench_cases,
};

const eddy_bench_case *eddy_builtin_bench_case(uint32_t index)
{
    for (size_t l = 0; l < sizeof case_lists / sizeof case_lists[0]; l++) {
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
    const eddy_bench_module *(*const list[])(void) = { eddy_sph_bench_module, eddy_pbf_bench_module,
                                                       eddy_rigid_bench_module, eddy_deform_bench_module,
                                                       eddy_volume_bench_module };
    return index < sizeof list / sizeof list[0] ? list[index]() : NULL;
}
