/* wind: an example of a module built out of tree against an installed eddy
 * (pkg-config eddy-module); see README.md beside this file and
 * docs/modules.md. Every particle of the bound set is dragged towards a
 * wind velocity w with a time constant tau:
 *
 *     dv/dt = (w - v) / tau,   so   v(t) = w + (v0 - w) exp(-t / tau),
 *
 * integrated exactly each substep (the step is stable for any dt). */
#include <eddy/eddy_module.h>
#include <eddy/eddy_output.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* wind.comp compiled by glslc at build time (meson.build). */
static const uint32_t wind_spv[] =
#include "wind.spv.inc"
    ;

enum { P_VELOCITY, P_TIME_CONSTANT, P_COUNT };

static const eddy_param_info params[P_COUNT] = {
    [P_VELOCITY] = { "velocity", EDDY_PARAM_VEC3, "m/s", { 2, 0, 0 }, -1e3, 1e3,
                     "the wind velocity the particles are dragged towards" },
    [P_TIME_CONSTANT] = { "time_constant", EDDY_PARAM_FLOAT, "s", { 0.5 }, 1e-3, 100,
                          "relaxation time: the slip velocity falls by e in this time" },
};

static const eddy_slot_info slots[] = {
    { "particles", "the particles the wind drags", 1, 1 },
};

/* The set's standard velocity buffer: read and written. */
static const char *const shared[] = { "velocity" };

/* The push constants of wind.comp (std430 layout: a vec4, then a uint). */
typedef struct wind_push {
    float wind_decay[4]; /* xyz wind (m/s), w exp(-dt / tau) */
    uint32_t count;      /* particles */
} wind_push;

typedef struct wind {
    eddy_engine *e;
    eddy_particles set;
    eddy_kernel kernel;
    double tau;
    double dt;
    wind_push push;
} wind;

/* The CPU reference of wind.comp, for tests: one substep of one particle. */
void wind_step_cpu(const float wind_decay[4], float velocity[4]);
void wind_step_cpu(const float wind_decay[4], float velocity[4])
{
    for (int a = 0; a < 3; a++)
        velocity[a] = wind_decay[a] + (velocity[a] - wind_decay[a]) * wind_decay[3];
    velocity[3] = 0.0f;
}

static void set_decay(wind *w, double dt)
{
    w->dt = dt;
    w->push.wind_decay[3] = (float)exp(-dt / w->tau);
}

static eddy_result create(const eddy_system_ctx *ctx, void **state)
{
    wind *w = calloc(1, sizeof *w);
    if (!w)
        return EDDY_ERROR_OUT_OF_MEMORY;
    *state = w;
    w->e = ctx->engine;
    /* The set bound to the "particles" slot (ctx->particles is the same: the
     * first set of the first slot). */
    w->set = ctx->slots[0].sets[0];
    for (int a = 0; a < 3; a++)
        w->push.wind_decay[a] = (float)ctx->params[P_VELOCITY].v[a];
    w->tau = ctx->params[P_TIME_CONSTANT].v[0];
    set_decay(w, ctx->dt);
    w->push.count = eddy_particles_count(ctx->engine, w->set);
    /* A module's own message identifiers live under its name. */
    eddy_log(ctx->engine, EDDY_LOG_DEBUG, "wind.created",
             "%s: wind (%g, %g, %g) m/s, time constant %g s, decay %.9g a substep on '%s' (%u particles)",
             ctx->name, w->push.wind_decay[0], w->push.wind_decay[1], w->push.wind_decay[2], w->tau,
             w->push.wind_decay[3], eddy_particles_name(ctx->engine, w->set), w->push.count);
    char label[128];
    snprintf(label, sizeof label, "%s.drag", ctx->name);
    w->kernel = eddy_create_kernel(ctx->engine, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = label, EDDY_SPIRV(wind_spv) });
    return w->kernel.id ? EDDY_OK : EDDY_ERROR_VULKAN;
}

static void destroy(void *state)
{
    wind *w = state;
    if (!w)
        return;
    eddy_destroy_kernel(w->e, w->kernel);
    free(w);
}

static eddy_result declare_step(void *state, eddy_graph step)
{
    wind *w = state;
    int r = eddy_graph_add_pass(w->e, step, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "wind.drag",
        .kernel = w->kernel,
        .bindings = { { eddy_particles_buffer(w->e, w->set, "velocity"), EDDY_READ_WRITE } },
        .threads = w->push.count,
        .push = &w->push,
        .push_size = sizeof w->push,
    });
    return r < 0 ? (eddy_result)r : EDDY_OK;
}

static void stats(void *state, eddy_stats *st)
{
    wind *w = state;
    eddy_stats_add(st, "decay", w->push.wind_decay[3]);
}

/* The exact integrator has no stability bound. */
static double stable_dt(void *state)
{
    (void)state;
    return INFINITY;
}

static eddy_result set_dt(void *state, double dt)
{
    set_decay(state, dt);
    return EDDY_OK;
}

static const eddy_module_desc desc = {
    EDDY_MODULE_DESC_VERSION,
    .name = "wind",
    .version = "1.0",
    .summary = "drags particles towards a wind velocity: dv/dt = (w - v) / tau",
    .params = params,
    .param_count = P_COUNT,
    .shared_buffers = shared,
    .shared_buffer_count = 1,
    .create = create,
    .destroy = destroy,
    .declare_step = declare_step,
    .stats = stats,
    .stable_dt = stable_dt,
    .set_dt = set_dt,
    .slots = slots,
    .slot_count = 1,
};

EDDY_MODULE_EXPORT const eddy_module_desc *eddy_module_entry(void);
EDDY_MODULE_EXPORT const eddy_module_desc *eddy_module_entry(void)
{
    return &desc;
}
