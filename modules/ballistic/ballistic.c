/* ballistic module: see README.md beside this file. */
#include "ballistic.h"
#include "eddy/eddy_checkpoint.h"

#include <stdio.h>
#include <math.h>
#include <stdlib.h>

static const uint32_t ballistic_spv[] =
#include "ballistic.spv.inc"
    ;

enum { P_GRAVITY, P_RESTITUTION, P_COUNT };

static const eddy_param_info params[P_COUNT] = {
    [P_GRAVITY] = { "gravity", EDDY_PARAM_VEC3, "m/s^2", { 0, -9.81, 0 }, -1e4, 1e4,
                    "uniform acceleration of every particle" },
    [P_RESTITUTION] = { "restitution", EDDY_PARAM_FLOAT, "1", { 0.5 }, 0, 1,
                        "normal speed after a wall contact / before it" },
};

static const char *const shared[] = { "position", "velocity", "clamped" };

typedef struct ballistic {
    eddy_engine *e;
    eddy_particles set;
    eddy_kernel kernel;
    eddy_buffer clamped; /* the set's "clamped" flags (eddy.h) */
    eddy_ballistic_params push;
} ballistic;

static eddy_result create(const eddy_system_ctx *ctx, void **state)
{
    ballistic *b = calloc(1, sizeof *b);
    if (!b)
        return EDDY_ERROR_OUT_OF_MEMORY;
    *state = b;
    b->e = ctx->engine;
    b->set = ctx->particles;
    for (int a = 0; a < 3; a++) {
        b->push.gravity_dt[a] = (float)ctx->params[P_GRAVITY].v[a];
        b->push.box_min_e[a] = ctx->box_min[a];
        b->push.box_max[a] = ctx->box_max[a];
    }
    b->push.gravity_dt[3] = (float)ctx->dt;
    b->push.box_min_e[3] = (float)ctx->params[P_RESTITUTION].v[0];
    b->push.count = eddy_particles_count(ctx->engine, ctx->particles);
    b->clamped = eddy_particles_add_buffer(ctx->engine, ctx->particles, "clamped", 4);
    if (!b->clamped.id)
        return EDDY_ERROR_OUT_OF_MEMORY;
    char label[128];
    snprintf(label, sizeof label, "%s.integrate", ctx->name);
    b->kernel = eddy_create_kernel(ctx->engine, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc),
        .label = label, EDDY_SPIRV(ballistic_spv) });
    return b->kernel.id ? EDDY_OK : EDDY_ERROR_VULKAN;
}

static void destroy(void *state)
{
    ballistic *b = state;
    if (!b)
        return;
    eddy_destroy_kernel(b->e, b->kernel);
    free(b);
}

static eddy_result declare_step(void *state, eddy_graph step)
{
    ballistic *b = state;
    int r = eddy_graph_add_pass(b->e, step, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "ballistic.integrate",
        .kernel = b->kernel,
        .bindings = {
            { eddy_particles_buffer(b->e, b->set, "position"), EDDY_READ_WRITE },
            { eddy_particles_buffer(b->e, b->set, "velocity"), EDDY_READ_WRITE },
            { b->clamped, EDDY_WRITE },
        },
        .threads = b->push.count,
        .push = &b->push,
        .push_size = sizeof b->push,
    });
    return r < 0 ? (eddy_result)r : EDDY_OK;
}

/* Ballistic motion has no stability bound; the step only sets accuracy. */
static double stable_dt(void *state)
{
    (void)state;
    return INFINITY;
}

static eddy_result set_dt(void *state, double dt)
{
    ballistic *b = state;
    b->push.gravity_dt[3] = (float)dt;
    return EDDY_OK;
}

void eddy_ballistic_step_cpu(const eddy_ballistic_params *p, float pos[4], float vel[4])
{
    float dt = p->gravity_dt[3], e = p->box_min_e[3];
    for (int a = 0; a < 3; a++) {
        float v = vel[a] + p->gravity_dt[a] * dt;
        float x = pos[a] + v * dt;
        float lo = p->box_min_e[a] + pos[3], hi = p->box_max[a] - pos[3];
        if (x < lo) {
            x = lo + e * (lo - x);
            v = v < 0.0f ? -e * v : v;
        } else if (x > hi) {
            x = hi - e * (x - hi);
            v = v > 0.0f ? -e * v : v;
        }
        float mn = lo < hi ? lo : hi, mx = lo < hi ? hi : lo;
        x = x < mn ? mn : x > mx ? mx : x;
        pos[a] = x;
        vel[a] = v;
    }
    vel[3] = 0.0f;
}

static const eddy_slot_info slots[] = {
    { "particles", "the particles it moves", 1, 1 },
};

/* No state of its own: what it moves is the sets' (saved by the scene),
 * and its substep comes from the scene. */
static eddy_result checkpoint(void *state, eddy_checkpoint *cp)
{
    (void)state, (void)cp;
    return EDDY_OK;
}

static const eddy_module_desc desc = {
    EDDY_MODULE_DESC_VERSION,
    .slots = slots,
    .slot_count = 1,
    .name = "ballistic",
    .version = "1.0",
    .summary = "particles under gravity, bouncing off the scene box with restitution",
    .params = params,
    .param_count = P_COUNT,
    .shared_buffers = shared,
    .shared_buffer_count = 2,
    .create = create,
    .destroy = destroy,
    .declare_step = declare_step,
    .stable_dt = stable_dt,
    .set_dt = set_dt,
    .checkpoint = checkpoint,
};

const eddy_module_desc *eddy_ballistic_module(void)
{
    return &desc;
}
