/* smooth: an example of a module built out of tree whose kernel loops over
 * each particle's neighbours with eddy's uniform grid (eddy/eddy_prims.h,
 * grid.glsl, neighbours.glsl); see README.md beside this file and
 * docs/modules.md. Every substep it smooths the velocities of its set
 * pairwise within a radius h:
 *
 *     v_i += c sum_j 2 m_j / (m_i + m_j) w(|x_i - x_j| / h) (v_j - v_i),
 *     w(q) = (1 - q^2)^3 for q < 1,   c = rate dt,
 *
 * which conserves the total momentum exactly (each pair's exchange is equal
 * and opposite) and damps the velocity differences between neighbours: an
 * artificial viscosity in the spirit of XSPH. */
#include <eddy/eddy_module.h>
#include <eddy/eddy_output.h>
#include <eddy/eddy_prims.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* smooth.comp compiled by glslc at build time (meson.build). */
static const uint32_t smooth_spv[] =
#include "smooth.spv.inc"
    ;

enum { P_RADIUS, P_RATE, P_COUNT };

static const eddy_param_info params[P_COUNT] = {
    [P_RADIUS] = { "radius", EDDY_PARAM_FLOAT, "m", { 0.1 }, 1e-4, 100,
                   "support radius h: particles closer than h exchange momentum" },
    [P_RATE] = { "rate", EDDY_PARAM_FLOAT, "1/s", { 10 }, 0, 1e6,
                 "pair relaxation rate at zero distance; c = rate dt a substep, keep c times the "
                 "neighbours' summed weight under 1" },
};

static const eddy_slot_info slots[] = {
    { "particles", "the particles whose velocities are smoothed", 1, 1 },
};

/* Read (position, mass) and written (velocity): the set's standard buffers. */
static const char *const shared[] = { "position", "velocity", "mass" };

/* The grid's tables hold two uints a cell: keep them well inside a storage
 * buffer (lavapipe allows 128 MiB). */
#define SMOOTH_MAX_CELLS (1u << 24)

/* The push constants of smooth.comp (std430: vec4, ivec4, vec4, uint). */
typedef struct smooth_push {
    float origin[4]; /* xyz grid corner (m), w 1 / cell (1/m) */
    int32_t dims[4]; /* xyz cells */
    float h_c[4];    /* x h (m), y c = rate dt (1) */
    uint32_t count;  /* particles */
} smooth_push;

typedef struct smooth {
    eddy_engine *e;
    eddy_particles set;
    eddy_grid *grid;
    eddy_buffer spos, svel, smass; /* cell-order copies the loop reads */
    eddy_kernel kernel;
    double rate;
    smooth_push push;
} smooth;

/* The CPU reference of smooth.comp, for tests: one substep of all n
 * particles (position and velocity vec4, mass float) into out (vec4), by
 * brute force over every pair in double precision, so it checks the grid's
 * neighbour search as well as the sum. */
void smooth_step_cpu(float h, float c, uint32_t n, const float *position, const float *velocity, const float *mass,
                     float *out);
void smooth_step_cpu(float h, float c, uint32_t n, const float *position, const float *velocity, const float *mass,
                     float *out)
{
    double h2 = (double)h * h;
    for (uint32_t i = 0; i < n; i++) {
        double sum[3] = { 0, 0, 0 };
        for (uint32_t j = 0; j < n; j++) {
            double r2 = 0;
            for (int a = 0; a < 3; a++) {
                double d = (double)position[4 * j + a] - position[4 * i + a];
                r2 += d * d;
            }
            if (j == i || r2 >= h2)
                continue;
            double s = 1 - r2 / h2, w = 2.0 * mass[j] / ((double)mass[i] + mass[j]) * s * s * s;
            for (int a = 0; a < 3; a++)
                sum[a] += w * ((double)velocity[4 * j + a] - velocity[4 * i + a]);
        }
        for (int a = 0; a < 3; a++)
            out[4 * i + a] = (float)(velocity[4 * i + a] + (double)c * sum[a]);
        out[4 * i + 3] = 0.0f;
    }
}

/* A grid over the box with a cell of margin on every side, cells of side h. */
static eddy_result make_grid(smooth *s, const eddy_system_ctx *ctx, double h)
{
    uint64_t cells = 1;
    for (int a = 0; a < 3; a++) {
        double n = ceil(((double)ctx->box_max[a] - ctx->box_min[a]) / h) + 2;
        if (n > SMOOTH_MAX_CELLS || (cells *= (uint64_t)n) > SMOOTH_MAX_CELLS) {
            eddy_log(ctx->engine, EDDY_LOG_ERROR, "system.too_large", "system '%s': a grid of cells of radius %g m "
                     "over the box needs more than %u cells; raise radius or shrink the box",
                     ctx->name, h, SMOOTH_MAX_CELLS);
            return EDDY_ERROR_LIMIT;
        }
        s->push.dims[a] = (int32_t)n;
        s->push.origin[a] = (float)(ctx->box_min[a] - h);
    }
    s->push.origin[3] = (float)(1.0 / h);
    char label[160];
    snprintf(label, sizeof label, "%s.grid", ctx->name);
    s->grid = eddy_create_grid(ctx->engine, &(eddy_grid_desc){ EDDY_SIZED(eddy_grid_desc),
        .label = label, .origin = { s->push.origin[0], s->push.origin[1], s->push.origin[2] }, .cell = (float)h,
        .dims = { (uint32_t)s->push.dims[0], (uint32_t)s->push.dims[1], (uint32_t)s->push.dims[2] },
        .max_count = s->push.count });
    return s->grid ? EDDY_OK : EDDY_ERROR_LIMIT;
}

static eddy_buffer own_buffer(const eddy_system_ctx *ctx, const char *what, uint64_t size)
{
    char label[160];
    snprintf(label, sizeof label, "%s.%s", ctx->name, what);
    return eddy_create_buffer(ctx->engine, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = size,
                                                                .label = label });
}

static eddy_result create(const eddy_system_ctx *ctx, void **state)
{
    smooth *s = calloc(1, sizeof *s);
    if (!s)
        return EDDY_ERROR_OUT_OF_MEMORY;
    *state = s;
    s->e = ctx->engine;
    s->set = ctx->slots[0].sets[0];
    s->push.count = eddy_particles_count(ctx->engine, s->set);
    double h = ctx->params[P_RADIUS].v[0];
    s->rate = ctx->params[P_RATE].v[0];
    s->push.h_c[0] = (float)h;
    /* Explicit: the pair sums are taken at the substep's start. */
    s->push.h_c[1] = (float)(s->rate * ctx->dt);
    eddy_log(ctx->engine, EDDY_LOG_DEBUG, "smooth.created", "%s: radius %g m, rate %g 1/s, c = %.9g a substep on "
             "'%s' (%u particles)", ctx->name, h, s->rate, s->push.h_c[1], eddy_particles_name(ctx->engine, s->set),
             s->push.count);
    if (s->push.count == 0)
        return EDDY_OK; /* nothing to smooth: no passes */
    eddy_result r = make_grid(s, ctx, h);
    if (r != EDDY_OK)
        return r;
    uint64_t n = s->push.count;
    s->spos = own_buffer(ctx, "sorted_position", 16 * n);
    s->svel = own_buffer(ctx, "sorted_velocity", 16 * n);
    s->smass = own_buffer(ctx, "sorted_mass", 4 * n);
    if (!s->spos.id || !s->svel.id || !s->smass.id)
        return EDDY_ERROR_OUT_OF_MEMORY;
    char label[160];
    snprintf(label, sizeof label, "%s.smooth", ctx->name);
    s->kernel = eddy_create_kernel(ctx->engine, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = label,
                                                                     EDDY_SPIRV(smooth_spv) });
    return s->kernel.id ? EDDY_OK : EDDY_ERROR_VULKAN;
}

static void destroy(void *state)
{
    smooth *s = state;
    if (!s)
        return;
    eddy_destroy_kernel(s->e, s->kernel);
    eddy_destroy_buffer(s->e, s->spos);
    eddy_destroy_buffer(s->e, s->svel);
    eddy_destroy_buffer(s->e, s->smass);
    eddy_destroy_grid(s->e, s->grid);
    free(s);
}

/* The grid on the substep's positions, the loop's inputs gathered into cell
 * order, then the loop, which writes each velocity back to its own place. */
static eddy_result declare_step(void *state, eddy_graph step)
{
    smooth *s = state;
    eddy_engine *e = s->e;
    uint32_t n = s->push.count;
    if (n == 0)
        return EDDY_OK;
    eddy_buffer position = eddy_particles_buffer(e, s->set, "position");
    eddy_buffer velocity = eddy_particles_buffer(e, s->set, "velocity");
    eddy_result r = eddy_grid_record_build(e, s->grid, step, position, n);
    if (r == EDDY_OK)
        r = eddy_grid_record_gather(e, s->grid, step, position, s->spos, 4, n);
    if (r == EDDY_OK)
        r = eddy_grid_record_gather(e, s->grid, step, velocity, s->svel, 4, n);
    if (r == EDDY_OK)
        r = eddy_grid_record_gather(e, s->grid, step, eddy_particles_buffer(e, s->set, "mass"), s->smass, 1, n);
    if (r != EDDY_OK)
        return r;
    eddy_grid_buffers gb = eddy_grid_get_buffers(s->grid);
    int rc = eddy_graph_add_pass(e, step, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "smooth.velocity",
        .kernel = s->kernel,
        .bindings = { { s->spos, EDDY_READ }, { s->svel, EDDY_READ }, { s->smass, EDDY_READ },
                      { gb.cell_start, EDDY_READ }, { gb.cell_end, EDDY_READ }, { gb.sorted_index, EDDY_READ },
                      { velocity, EDDY_WRITE } },
        .threads = n,
        .push = &s->push,
        .push_size = sizeof s->push,
    });
    return rc < 0 ? (eddy_result)rc : EDDY_OK;
}

static void stats(void *state, eddy_stats *st)
{
    smooth *s = state;
    eddy_stats_add(st, "coefficient", s->push.h_c[1]);
}

static const eddy_module_desc desc = {
    EDDY_MODULE_DESC_VERSION,
    .name = "smooth",
    .version = "1.0",
    .summary = "pairwise velocity smoothing over neighbours within h; conserves momentum",
    .params = params,
    .param_count = P_COUNT,
    .shared_buffers = shared,
    .shared_buffer_count = 3,
    .create = create,
    .destroy = destroy,
    .declare_step = declare_step,
    .stats = stats,
    .slots = slots,
    .slot_count = 1,
};

EDDY_MODULE_EXPORT const eddy_module_desc *eddy_module_entry(void);
EDDY_MODULE_EXPORT const eddy_module_desc *eddy_module_entry(void)
{
    return &desc;
}
