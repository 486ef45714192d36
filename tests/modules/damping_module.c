/* A module built as its own shared library, loaded with dlopen by the tests:
 * linear velocity damping, v *= exp(-rate * dt) each substep. Built for this
 * eddy's ABI, and again claiming ABI TEST_MODULE_MAJOR.TEST_MODULE_MINOR
 * (an older major, a newer major, a newer minor), which eddy must refuse.
 * Built once more with TEST_GROWTH as "test_growth",
 * v *= exp(+rate * dt): a module that blows up, for the tests of a run that
 * goes non-finite (on one MPI rank of a run over ranks, too). */
#include "eddy/eddy_module.h"
#include "eddy/eddy_output.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

static const uint32_t damping_spv[] =
#include "damping.spv.inc"
    ;

static const eddy_param_info params[] = {
#ifdef TEST_GROWTH
    /* Up to a factor that overflows in one substep: a rank's particles go
     * non-finite at once (tests/mpi/run_test.sh). */
    { "rate", EDDY_PARAM_FLOAT, "1/s", { 1.0 }, 0, 1e9, "velocity growth rate" },
#else
    { "rate", EDDY_PARAM_FLOAT, "1/s", { 1.0 }, 0, 1000, "velocity decay rate" },
#endif
#ifdef TEST_NULL_PARAM_NAME
    /* A module library's mistake eddy must refuse, not crash on. */
    { NULL, EDDY_PARAM_FLOAT, "1", { 0 }, 0, 1, "a parameter without a name" },
#endif
};

typedef struct damping {
    eddy_engine *e;
    eddy_particles set;
    eddy_kernel k;
    struct { uint32_t count; float factor; } push;
    uint64_t steps_declared;
} damping;

static eddy_result create(const eddy_system_ctx *ctx, void **state)
{
    damping *d = calloc(1, sizeof *d);
    if (!d)
        return EDDY_ERROR_OUT_OF_MEMORY;
    *state = d;
    d->e = ctx->engine;
    d->set = ctx->particles;
    d->push.count = eddy_particles_count(ctx->engine, ctx->particles);
#ifdef TEST_GROWTH
    d->push.factor = (float)exp(ctx->params[0].v[0] * ctx->dt);
#else
    d->push.factor = (float)exp(-ctx->params[0].v[0] * ctx->dt);
#endif
    d->k = eddy_create_kernel(ctx->engine, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "damping", EDDY_SPIRV(damping_spv) });
    return d->k.id ? EDDY_OK : EDDY_ERROR_VULKAN;
}

static void destroy(void *state)
{
    damping *d = state;
    if (d)
        eddy_destroy_kernel(d->e, d->k);
    free(d);
}

static eddy_result declare_step(void *state, eddy_graph g)
{
    damping *d = state;
    int r = eddy_graph_add_pass(d->e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "damping.scale", .kernel = d->k, .threads = d->push.count,
        .bindings = { { eddy_particles_buffer(d->e, d->set, "velocity"), EDDY_READ_WRITE } },
        .push = &d->push, .push_size = sizeof d->push });
    return r < 0 ? (eddy_result)r : EDDY_OK;
}

static void stats(void *state, eddy_stats *st)
{
    damping *d = state;
    eddy_stats_add(st, "factor", d->push.factor);
}

#ifdef TEST_GROWTH
/* Over MPI ranks: each particle on its own (reach 0). */
static eddy_result reach(void *state, double *metres)
{
    (void)state;
    *metres = 0;
    return EDDY_OK;
}

static eddy_result set_count(void *state)
{
    damping *d = state;
    d->push.count = eddy_particles_count(d->e, d->set);
    return EDDY_OK;
}
#endif

static const char *const shared[] = { "velocity" };

static const eddy_module_desc desc = {
#if defined(TEST_MODULE_4_0)
    /* Built against ABI 4.0, before the ports: its descriptor ends where
     * 4.0's did, and eddy zero-fills what came later. */
    .abi_major = 4,
    .abi_minor = 0,
    .struct_size = offsetof(eddy_module_desc, inputs),
#elif defined(TEST_MODULE_MAJOR)
    /* A module of another ABI: refused before anything past these is read. */
    .abi_major = TEST_MODULE_MAJOR,
    .abi_minor = TEST_MODULE_MINOR,
    .struct_size = sizeof(eddy_module_desc),
#else
    EDDY_MODULE_DESC_VERSION,
#endif
#ifdef TEST_NULL_PARAM_NAME
    .name = "test_null_param",
#elif defined(TEST_GROWTH)
    .name = "test_growth",
#elif defined(TEST_MODULE_4_0)
    .name = "test_damping_4_0",
#else
    .name = "test_damping",
#endif
    .version = "1",
    .summary = "test module: linear velocity damping",
    .params = params,
    .param_count = sizeof params / sizeof params[0],
    .shared_buffers = shared,
    .shared_buffer_count = 1,
    .create = create,
    .destroy = destroy,
    .declare_step = declare_step,
    .stats = stats,
#ifdef TEST_GROWTH
    .reach = reach,
    .set_count = set_count,
#endif
};

EDDY_MODULE_EXPORT const eddy_module_desc *eddy_module_entry(void);
EDDY_MODULE_EXPORT const eddy_module_desc *eddy_module_entry(void)
{
    return &desc;
}
