/* rigid_push: an example of a module built out of tree that puts a force on
 * rigid bodies through the coupling API (eddy/eddy_couple.h); see README.md
 * beside this file and docs/modules.md. Every particle of its set gets
 *
 *     f_i = m_i (a - omega^2 (x_i - p)),
 *
 * a uniform acceleration field a and a harmonic trap of angular frequency
 * omega = 2 pi f about the anchor p. Both are proportional to the mass, so on
 * a rigid body of mass M and centre of mass X they sum to F = M (a - omega^2
 * (X - p)) through X: the body translates without turning, uniformly
 * accelerated (f = 0) or oscillating about p + a / omega^2 with period 1 / f.
 *
 * The forces go into the system's own slice of the set's rigid.external
 * forces, claimed at create and overwritten every substep; the rigid system
 * (or deform) adds the slices to its particles' forces. */
#include <eddy/eddy_couple.h>
#include <eddy/eddy_module.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* rigid_push.comp compiled by glslc at build time (meson.build). */
static const uint32_t push_spv[] =
#include "rigid_push.spv.inc"
    ;

#define PUSH_PI 3.14159265358979323846

enum { P_ACCELERATION, P_ANCHOR, P_FREQUENCY, P_COUNT };

static const eddy_param_info params[P_COUNT] = {
    [P_ACCELERATION] = { "acceleration", EDDY_PARAM_VEC3, "m/s^2", { 0, 0, 0 }, -1e4, 1e4,
                         "uniform acceleration field a: each particle gets m a" },
    [P_ANCHOR] = { "anchor", EDDY_PARAM_VEC3, "m", { 0, 0, 0 }, -1e6, 1e6,
                   "the trap's centre p" },
    [P_FREQUENCY] = { "frequency", EDDY_PARAM_FLOAT, "Hz", { 1 }, 0, 1e3,
                      "the trap's natural frequency f: each particle gets -m (2 pi f)^2 (x - p); 0 = no trap" },
};

static const eddy_slot_info slots[] = {
    { "bodies", "the set pushed on: a rigid set (or a deform set), whose system sums the force", 1, 1 },
};

/* Read: position and mass; written: the claimed slice. */
static const char *const shared[] = { "position", "mass", "rigid.external.<k>" };

/* The push constants of rigid_push.comp (std430: two vec4, then a uint). */
typedef struct push_consts {
    float accel[4];  /* xyz a (m/s^2), w 0 */
    float anchor[4]; /* xyz p (m), w omega^2 (1/s^2) */
    uint32_t count;  /* particles */
} push_consts;

typedef struct rigid_push {
    eddy_engine *e;
    eddy_particles set;
    eddy_buffer slice; /* rigid.external.<k>: this system's forces (N) */
    eddy_kernel kernel;
    double omega;      /* rad/s */
    push_consts push;
} rigid_push;

/* The CPU reference of rigid_push.comp, for tests: the force (N) on one
 * particle at `position` (vec4, m) of mass kg, with the push constants'
 * accel and anchor as above. */
void rigid_push_force_cpu(const float accel[4], const float anchor[4], const float position[4], float mass,
                          float force[4]);
void rigid_push_force_cpu(const float accel[4], const float anchor[4], const float position[4], float mass,
                          float force[4])
{
    for (int a = 0; a < 3; a++)
        force[a] = mass * (accel[a] - anchor[3] * (position[a] - anchor[a]));
    force[3] = 0.0f;
}

/* The bodies' centres follow x'' = -omega^2 (x - p) + a, integrated by the
 * rigid system's symplectic Euler: stable up to omega dt = 2; at omega dt = 1
 * its frequency is still within 4% (about (omega dt)^2 / 24). Without a trap
 * the force does not depend on the state: no bound. */
static double stable_dt(void *state)
{
    rigid_push *s = state;
    return s->omega > 0 ? 1.0 / s->omega : INFINITY;
}

/* Nothing in the force depends on dt. */
static eddy_result set_dt(void *state, double dt)
{
    (void)state, (void)dt;
    return EDDY_OK;
}

static eddy_result create(const eddy_system_ctx *ctx, void **state)
{
    rigid_push *s = calloc(1, sizeof *s);
    if (!s)
        return EDDY_ERROR_OUT_OF_MEMORY;
    *state = s;
    s->e = ctx->engine;
    s->set = ctx->slots[0].sets[0];
    s->push.count = eddy_particles_count(ctx->engine, s->set);
    s->omega = 2 * PUSH_PI * ctx->params[P_FREQUENCY].v[0];
    for (int a = 0; a < 3; a++) {
        s->push.accel[a] = (float)ctx->params[P_ACCELERATION].v[a];
        s->push.anchor[a] = (float)ctx->params[P_ANCHOR].v[a];
    }
    s->push.anchor[3] = (float)(s->omega * s->omega);
    if (!ctx->adaptive && ctx->dt > stable_dt(s)) {
        eddy_log(ctx->engine, EDDY_LOG_ERROR, "system.unstable", "system '%s': a substep of %g s is over the trap's "
                 "bound 1 / (2 pi f) = %g s; lower frequency or dt, or add substeps", ctx->name, ctx->dt, stable_dt(s));
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    /* Listed after the set's own system, the force would reach the bodies a
     * substep late (computed where they were, not where they are). */
    if (EDDY_SYSTEM_CTX_HAS(ctx, moved_before) && (ctx->moved_before[0] & 1u))
        eddy_log(ctx->engine, EDDY_LOG_WARN, "rigid_push.late", "system '%s': set '%s' is moved by a system listed "
                 "before it, which reads this force a substep late; list '%s' before the set's rigid system",
                 ctx->name, eddy_particles_name(ctx->engine, s->set), ctx->name);
    /* The slice is claimed at create, in the order the systems are created:
     * the rigid system sums the slices in that order, so reruns give the
     * same bits. */
    s->slice = eddy_rigid_claim_external(ctx->engine, s->set, ctx->name);
    if (!s->slice.id)
        return EDDY_ERROR_INVALID_ARGUMENT;
    eddy_log(ctx->engine, EDDY_LOG_DEBUG, "rigid_push.created", "%s: a (%g, %g, %g) m/s^2, trap %g rad/s about "
             "(%g, %g, %g) m on '%s' (%u particles)", ctx->name, s->push.accel[0], s->push.accel[1], s->push.accel[2],
             s->omega, s->push.anchor[0], s->push.anchor[1], s->push.anchor[2],
             eddy_particles_name(ctx->engine, s->set), s->push.count);
    char label[128];
    snprintf(label, sizeof label, "%s.force", ctx->name);
    s->kernel = eddy_create_kernel(ctx->engine, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = label,
                                                                     EDDY_SPIRV(push_spv) });
    return s->kernel.id ? EDDY_OK : EDDY_ERROR_VULKAN;
}

/* The slice belongs to the set, which frees it. */
static void destroy(void *state)
{
    rigid_push *s = state;
    if (!s)
        return;
    eddy_destroy_kernel(s->e, s->kernel);
    free(s);
}

static eddy_result declare_step(void *state, eddy_graph step)
{
    rigid_push *s = state;
    if (s->push.count == 0)
        return EDDY_OK;
    int r = eddy_graph_add_pass(s->e, step, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "rigid_push.force",
        .kernel = s->kernel,
        .bindings = { { eddy_particles_buffer(s->e, s->set, "position"), EDDY_READ },
                      { eddy_particles_buffer(s->e, s->set, "mass"), EDDY_READ },
                      { s->slice, EDDY_WRITE } },
        .threads = s->push.count,
        .push = &s->push,
        .push_size = sizeof s->push,
    });
    return r < 0 ? (eddy_result)r : EDDY_OK;
}

static const eddy_module_desc desc = {
    EDDY_MODULE_DESC_VERSION,
    .name = "rigid_push",
    .version = "1.0",
    .summary = "pushes rigid bodies through a rigid.external slice: uniform field m a plus a trap -m omega^2 (x - p)",
    .params = params,
    .param_count = P_COUNT,
    .shared_buffers = shared,
    .shared_buffer_count = 3,
    .create = create,
    .destroy = destroy,
    .declare_step = declare_step,
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
