/* contact module: see README.md beside this file. */
#include "contact.h"

#include "eddy/eddy_checkpoint.h"
#include "eddy/eddy_prims.h"
#include "rigid/rigid.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint32_t begin_spv[] =
#include "contact_begin.spv.inc"
    ;
static const uint32_t force_spv[] =
#include "contact_force.spv.inc"
    ;
static const uint32_t end_spv[] =
#include "set_slice.spv.inc"
    ;

enum { P_STIFFNESS, P_DAMPING, P_SHEAR, P_COUNT };

static const eddy_param_info params[P_COUNT] = {
    [P_STIFFNESS] = { "stiffness", EDDY_PARAM_FLOAT, "N/m", { 5000 }, 1e-6, 1e12,
                      "contact spring k: how far the particles of the two sides sink into each other" },
    [P_DAMPING] = { "damping", EDDY_PARAM_FLOAT, "N s/m", { 2 }, 0, 1e9,
                    "dashpot eta on the pair's relative velocity" },
    [P_SHEAR] = { "shear", EDDY_PARAM_FLOAT, "N s/m", { 1 }, 0, 1e9,
                  "shear k_t on the tangential relative velocity" },
};

static const char *const shared[] = { "position", "velocity", "mass", "rigid.external.<k>" };

#define SIDE_SETS 8u

typedef struct contact_set {
    eddy_particles set;
    uint32_t offset, count;
    eddy_buffer position, velocity, external;
} contact_set;

typedef struct side {
    contact_set sets[SIDE_SETS];
    uint32_t set_count, n;
    eddy_grid *grid;
    eddy_buffer pos, vel, spos, svel, force;
} side;

typedef struct contact {
    eddy_engine *e;
    char name[64];
    side s[2];
    struct eddy_contact_params p;
    eddy_buffer params;
    eddy_kernel begin, force, end;
    double min_mass; /* kg: the lightest particle of either side */
} contact;

static void destroy(void *state)
{
    contact *c = state;
    if (!c)
        return;
    for (int k = 0; k < 2; k++) {
        side *s = &c->s[k];
        eddy_destroy_grid(c->e, s->grid);
        eddy_buffer own[] = { s->pos, s->vel, s->spos, s->svel, s->force };
        for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
            eddy_destroy_buffer(c->e, own[i]);
    }
    eddy_destroy_buffer(c->e, c->params);
    eddy_destroy_kernel(c->e, c->begin);
    eddy_destroy_kernel(c->e, c->force);
    eddy_destroy_kernel(c->e, c->end);
    free(c);
}

/* The message ids (eddy_messages.h) the create refusals use. */
enum { ID_INVALID, ID_TOO_LARGE, ID_UNSTABLE };

__attribute__((format(printf, 4, 5))) static eddy_result fail(contact *c, eddy_result r, int id,
                                                               const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (id == ID_UNSTABLE)
        eddy_log(c->e, EDDY_LOG_ERROR, "system.unstable", "system '%s': %s", c->name, msg);
    else if (id == ID_TOO_LARGE)
        eddy_log(c->e, EDDY_LOG_ERROR, "system.too_large", "system '%s': %s", c->name, msg);
    else
        eddy_log(c->e, EDDY_LOG_ERROR, "system.invalid", "system '%s': %s", c->name, msg);
    return r;
}

/* The explicit springs' bound, as the rigid module's: dt <= 0.15 sqrt(m/k)
 * and dt <= 0.5 m / (eta + k_t), m the lightest particle. */
static double bound_dt(const struct eddy_contact_params *p, double m)
{
    double b = 0.15 * sqrt(m / p->coeffs[0]), c = p->coeffs[1] + p->coeffs[2];
    return c > 0 ? fmin(b, 0.5 * m / c) : b;
}

static eddy_buffer scratch(contact *c, const char *what, int k, uint64_t bytes, const void *data)
{
    char label[160];
    snprintf(label, sizeof label, "%s.%s.%c", c->name, what, k ? 'b' : 'a');
    return eddy_create_buffer(c->e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = bytes < 16 ? 16 : bytes, .label = label,
                                                         .data = data, .data_size = data ? bytes : 0 });
}

/* A side's sets: their buffers, slices, largest radius and lightest mass. */
static eddy_result add_side(contact *c, const eddy_system_ctx *ctx, int k, double *rmax)
{
    eddy_engine *e = c->e;
    side *s = &c->s[k];
    const eddy_slot_sets *slot = &ctx->slots[k];
    uint64_t n = 0;
    *rmax = 0;
    for (uint32_t j = 0; j < slot->count && j < SIDE_SETS; j++) {
        eddy_particles set = slot->sets[j];
        const char *sn = eddy_particles_name(e, set);
        if (EDDY_SYSTEM_CTX_HAS(ctx, moved_before) && (ctx->moved_before[k] >> j & 1u))
            return fail(c, EDDY_ERROR_INVALID_ARGUMENT, ID_INVALID, "set '%s' is moved by a system listed "
                        "before this one; expected this system first in \"systems\" (the systems that move its "
                        "sets take its forces in the same substep)", sn);
        for (uint32_t o = 0; o < ctx->slots[1 - k].count; o++)
            if (ctx->slots[1 - k].sets[o].id == set.id)
                return fail(c, EDDY_ERROR_INVALID_ARGUMENT, ID_INVALID, "set '%s' is on both sides; "
                            "expected each set in \"a\" or in \"b\"", sn);
        contact_set *cs = &s->sets[s->set_count++];
        *cs = (contact_set){ .set = set, .offset = (uint32_t)n, .count = eddy_particles_count(e, set),
                             .position = eddy_particles_buffer(e, set, "position"),
                             .velocity = eddy_particles_buffer(e, set, "velocity") };
        n += cs->count;
        if (n > UINT32_MAX / 16)
            return fail(c, EDDY_ERROR_LIMIT, ID_TOO_LARGE, "side '%s' has %llu particles; expected at most %u",
                        k ? "b" : "a", (unsigned long long)n, UINT32_MAX / 16);
        /* A pinned particle (the scene's "pinned" buffer) does not move,
         * so it bounds no step. */
        eddy_buffer mb = eddy_particles_buffer(e, set, "mass"), pb = eddy_particles_buffer(e, set, "pinned");
        float *x = malloc(16ull * cs->count + 16), *m = malloc(4ull * cs->count + 4);
        uint32_t *pin = calloc(cs->count + 1ull, 4);
        eddy_result r = x && m && pin ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
        if (r == EDDY_OK && cs->count)
            r = eddy_buffer_download(e, cs->position, 0, 16ull * cs->count, x);
        if (r == EDDY_OK && cs->count)
            r = eddy_buffer_download(e, mb, 0, 4ull * cs->count, m);
        if (r == EDDY_OK && cs->count && pb.id)
            r = eddy_buffer_download(e, pb, 0, 4ull * cs->count, pin);
        for (uint32_t i = 0; r == EDDY_OK && i < cs->count; i++) {
            if (!(x[4 * i + 3] > 0) || !isfinite(x[4 * i + 3]) || !(m[i] > 0) || !isfinite(m[i])) {
                r = fail(c, EDDY_ERROR_INVALID_ARGUMENT, ID_INVALID, "particle %u of set '%s' has radius "
                         "%g m and mass %g kg; expected both positive and finite", i, sn, x[4 * i + 3], m[i]);
            }
            *rmax = fmax(*rmax, x[4 * i + 3]);
            if (!pin[i])
                c->min_mass = fmin(c->min_mass, m[i]);
        }
        free(x);
        free(m);
        free(pin);
        if (r != EDDY_OK)
            return r;
        cs->external = eddy_rigid_claim_external(e, set, c->name);
        if (!cs->external.id)
            return EDDY_ERROR_OUT_OF_MEMORY;
    }
    s->n = (uint32_t)n;
    s->pos = scratch(c, "position", k, 16 * n, NULL);
    s->vel = scratch(c, "velocity", k, 16 * n, NULL);
    s->spos = scratch(c, "sorted.position", k, 16 * n, NULL);
    s->svel = scratch(c, "sorted.velocity", k, 16 * n, NULL);
    s->force = scratch(c, "force", k, 16 * n, NULL);
    return s->pos.id && s->vel.id && s->spos.id && s->svel.id && s->force.id ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
}

static eddy_result create(const eddy_system_ctx *ctx, void **state)
{
    contact *c = calloc(1, sizeof *c);
    if (!c)
        return EDDY_ERROR_OUT_OF_MEMORY;
    *state = c;
    c->e = ctx->engine;
    c->min_mass = INFINITY;
    snprintf(c->name, sizeof c->name, "%s", ctx->name);
    struct eddy_contact_params *p = &c->p;
    p->coeffs[0] = (float)ctx->params[P_STIFFNESS].v[0];
    p->coeffs[1] = (float)ctx->params[P_DAMPING].v[0];
    p->coeffs[2] = (float)ctx->params[P_SHEAR].v[0];
    double ra, rb;
    eddy_result r = add_side(c, ctx, 0, &ra);
    if (r == EDDY_OK)
        r = add_side(c, ctx, 1, &rb);
    if (r != EDDY_OK)
        return r;
    /* One grid geometry for both sides: a cell as wide as the largest
     * contact distance, over the scene's box (outside it, the border
     * cells). */
    double cell = ra + rb, cells = 1;
    for (int a = 0; a < 3; a++) {
        double d = ceil((ctx->box_max[a] - ctx->box_min[a]) / cell);
        p->dims[a] = d < 1 ? 1 : d > 1e6 ? 1000000 : (int32_t)d;
        p->grid[a] = ctx->box_min[a];
        cells *= p->dims[a];
    }
    p->grid[3] = (float)(1.0 / cell);
    p->counts[0] = c->s[0].n;
    p->counts[1] = c->s[1].n;
    if (cells > (double)(1u << 26))
        return fail(c, EDDY_ERROR_LIMIT, ID_TOO_LARGE, "its grid (cells of %g m, the two sides' largest "
                    "radii summed) would have %.0f cells; expected at most 2^26: larger particles or a "
                    "smaller box", cell, cells);
    double bound = bound_dt(p, c->min_mass);
    if (ctx->dt > bound * (1 + 1e-9) && !ctx->adaptive)
        return fail(c, EDDY_ERROR_INVALID_ARGUMENT, ID_UNSTABLE, "the substep is %g s, above the contact "
                    "springs' stable %g s (0.15 sqrt(m/k), 0.5 m/(damping + shear), m the lightest particle "
                    "%g kg): expected more substeps or a lower stiffness", ctx->dt, bound, c->min_mass);
    c->params = eddy_create_buffer(c->e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof *p, .label = "contact.params",
                                                              .data = p, .data_size = sizeof *p });
    if (!c->params.id)
        return EDDY_ERROR_OUT_OF_MEMORY;
    for (int k = 0; k < 2; k++) {
        char gl[160];
        snprintf(gl, sizeof gl, "%s.grid.%c", c->name, k ? 'b' : 'a');
        c->s[k].grid = eddy_create_grid(c->e, &(eddy_grid_desc){ EDDY_SIZED(eddy_grid_desc),
            .label = gl, .origin = { p->grid[0], p->grid[1], p->grid[2] }, .cell = (float)cell,
            .dims = { (uint32_t)p->dims[0], (uint32_t)p->dims[1], (uint32_t)p->dims[2] },
            .max_count = c->s[k].n ? c->s[k].n : 1 });
        if (!c->s[k].grid)
            return EDDY_ERROR_LIMIT;
    }
    c->begin = eddy_create_kernel(c->e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "contact.begin", EDDY_SPIRV(begin_spv) });
    c->force = eddy_create_kernel(c->e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "contact.force", EDDY_SPIRV(force_spv) });
    c->end = eddy_create_kernel(c->e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "contact.end", EDDY_SPIRV(end_spv) });
    return c->begin.id && c->force.id && c->end.id ? EDDY_OK : EDDY_ERROR_VULKAN;
}

static int set_pass(contact *c, eddy_graph g, const contact_set *cs, eddy_pass_desc desc)
{
    if (!cs->count)
        return 0;
    uint32_t push[2] = { cs->offset, cs->count };
    desc.threads = cs->count;
    desc.push = push;
    desc.push_size = sizeof push;
    return eddy_graph_add_pass(c->e, g, &desc);
}

static eddy_result declare_step(void *state, eddy_graph g)
{
    contact *c = state;
    int rc = 0;
    for (int k = 0; k < 2; k++) {
        side *s = &c->s[k];
        for (uint32_t j = 0; rc >= 0 && j < s->set_count; j++)
            rc = set_pass(c, g, &s->sets[j], (eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
                .label = "contact.begin", .kernel = c->begin,
                .bindings = { { s->sets[j].position, EDDY_READ }, { s->sets[j].velocity, EDDY_READ },
                              { s->pos, EDDY_WRITE }, { s->vel, EDDY_WRITE } } });
        if (rc >= 0 && s->n) {
            eddy_result r = eddy_grid_record_build(c->e, s->grid, g, s->pos, s->n);
            if (r == EDDY_OK)
                r = eddy_grid_record_gather(c->e, s->grid, g, s->pos, s->spos, 4, s->n);
            if (r == EDDY_OK)
                r = eddy_grid_record_gather(c->e, s->grid, g, s->vel, s->svel, 4, s->n);
            if (r != EDDY_OK)
                return r;
        }
    }
    for (int k = 0; rc >= 0 && k < 2; k++) {
        side *s = &c->s[k], *o = &c->s[1 - k];
        if (!s->n)
            continue;
        eddy_grid_buffers gb = eddy_grid_get_buffers(o->grid);
        uint32_t push = s->n;
        rc = eddy_graph_add_pass(c->e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "contact.force", .kernel = c->force, .threads = s->n, .push = &push, .push_size = sizeof push,
            .bindings = { { c->params, EDDY_READ }, { s->pos, EDDY_READ }, { s->vel, EDDY_READ },
                          { o->spos, EDDY_READ }, { o->svel, EDDY_READ }, { gb.cell_start, EDDY_READ },
                          { gb.cell_end, EDDY_READ }, { s->force, EDDY_WRITE } } });
        for (uint32_t j = 0; rc >= 0 && j < s->set_count; j++)
            rc = set_pass(c, g, &s->sets[j], (eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
                .label = "contact.end", .kernel = c->end,
                .bindings = { { s->force, EDDY_READ }, { s->sets[j].external, EDDY_WRITE } } });
    }
    return rc < 0 ? EDDY_ERROR_INVALID_ARGUMENT : EDDY_OK;
}

static double stable_dt(void *state)
{
    contact *c = state;
    return bound_dt(&c->p, c->min_mass);
}

/* The forces do not depend on the substep. */
static eddy_result set_dt(void *state, double dt)
{
    (void)state, (void)dt;
    return EDDY_OK;
}

void eddy_contact_force_cpu(const struct eddy_contact_params *p, uint32_t na, const float *pos_a,
                            const float *vel_a, uint32_t nb, const float *pos_b, const float *vel_b,
                            float *force_a)
{
    for (uint32_t i = 0; i < na; i++) {
        const float *xi = pos_a + 4 * i, *vi = vel_a + 4 * i;
        double f[3] = { 0, 0, 0 };
        for (uint32_t j = 0; j < nb; j++) {
            const float *xj = pos_b + 4 * j, *vj = vel_b + 4 * j;
            double r[3], v[3], r2 = 0, d = (double)xi[3] + xj[3];
            for (int a = 0; a < 3; a++) {
                r[a] = (double)xj[a] - xi[a];
                v[a] = (double)vj[a] - vi[a];
                r2 += r[a] * r[a];
            }
            if (r2 >= d * d || r2 == 0)
                continue;
            double len = sqrt(r2), vn = 0;
            for (int a = 0; a < 3; a++)
                vn += v[a] * r[a] / len;
            for (int a = 0; a < 3; a++) {
                double n = r[a] / len;
                f[a] += -p->coeffs[0] * (d - len) * n + p->coeffs[1] * v[a] + p->coeffs[2] * (v[a] - vn * n);
            }
        }
        for (int a = 0; a < 3; a++)
            force_a[4 * i + a] = (float)f[a];
        force_a[4 * i + 3] = 0;
    }
}

static const eddy_slot_info slots[] = {
    { "a", "sets on one side (a deformable body, a cloth): each of their particles touches those of \"b\"",
      1, SIDE_SETS },
    { "b", "sets on the other side (rigid bodies, another deformable body)", 1, SIDE_SETS },
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
    .slot_count = 2,
    .name = "contact",
    .version = "0.1",
    .summary = "DEM contacts between the particles of two groups of sets, both ways (Harada 2007)",
    .params = params,
    .param_count = P_COUNT,
    .shared_buffers = shared,
    .shared_buffer_count = sizeof shared / sizeof shared[0],
    .create = create,
    .destroy = destroy,
    .declare_step = declare_step,
    .stable_dt = stable_dt,
    .set_dt = set_dt,
    .checkpoint = checkpoint,
};

const eddy_module_desc *eddy_contact_module(void)
{
    return &desc;
}
