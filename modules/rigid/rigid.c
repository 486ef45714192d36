/* rigid module: see README.md beside this file. */
#include "rigid.h"
#include "common/dist_reach.h"

#include "eddy/eddy_checkpoint.h"
#include "eddy/eddy_output.h"
#include "eddy/eddy_prims.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint32_t particles_spv[] =
#include "rigid_particles.spv.inc"
    ;
static const uint32_t contact_spv[] =
#include "rigid_contact.spv.inc"
    ;
static const uint32_t integrate_spv[] =
#include "rigid_integrate.spv.inc"
    ;
static const uint32_t granular_spv[] =
#include "rigid_granular.spv.inc"
    ;
static const uint32_t history_spv[] =
#include "rigid_history.spv.inc"
    ;
static const uint32_t contact_coupled_spv[] =
#include "rigid_contact_coupled.spv.inc"
    ;
static const uint32_t external_sum_spv[] =
#include "rigid_external_sum.spv.inc"
    ;

enum { P_DIAMETER, P_STIFFNESS, P_DAMPING, P_SHEAR, P_FRICTION, P_WALL_STIFFNESS, P_GRAVITY, P_GRANULAR, P_COUNT };

static const eddy_param_info params[P_COUNT] = {
    [P_DIAMETER] = { "diameter", EDDY_PARAM_FLOAT, "m", { 0 }, 0, 100, "particle diameter d: contact distance and grid cell; 0 = twice the set's particle radius" },
    [P_STIFFNESS] = { "stiffness", EDDY_PARAM_FLOAT, "N/m", { 5000 }, 1e-6, 1e12, "spring k of a contact (eq. 10)" },
    [P_DAMPING] = { "damping", EDDY_PARAM_FLOAT, "N s/m", { 2 }, 0, 1e9, "dashpot eta on the relative velocity (eq. 11)" },
    [P_SHEAR] = { "shear", EDDY_PARAM_FLOAT, "N s/m", { 1 }, 0, 1e9, "shear k_t on the tangential relative velocity (eqs. 12-13)" },
    [P_FRICTION] = { "friction", EDDY_PARAM_FLOAT, "1", { 0 }, 0, 10, "Coulomb friction mu with a tangential spring 2k/7 per contact (Cundall-Strack; not in the chapter; 0 = off)" },
    [P_WALL_STIFFNESS] = { "wall_stiffness", EDDY_PARAM_FLOAT, "N/m", { 0 }, 0, 1e12, "spring of the box walls (a mirrored particle); 0 = stiffness" },
    [P_GRAVITY] = { "gravity", EDDY_PARAM_VEC3, "m/s^2", { 0, -9.81, 0 }, -1e4, 1e4, "uniform acceleration" },
    [P_GRANULAR] = { "granular", EDDY_PARAM_BOOL, "1", { 0 }, 0, 1, "granular material: every particle moves on its own (section 29.3.1); else bodies by phase" },
};

static const char *const shared[] = { "position", "velocity", "mass", "phase", "rigid.body", "rigid.matrix", "rigid.rest",
                                      "rigid.inverse_mass", "rigid.external.<k>", "clamped", "rigid.added_mass",
                                      "rigid.added" };

/* K_CONTACT_COUPLED and K_EXTERNAL_SUM are made when a step finds slices. */
enum { K_PARTICLES, K_CONTACT, K_INTEGRATE, K_GRANULAR, K_HISTORY, K_CONTACT_COUPLED, K_EXTERNAL_SUM, K_COUNT };

typedef struct rigid {
    eddy_engine *e;
    eddy_particles set;
    uint32_t n, bodies;
    uint32_t cap; /* particles the step's buffers hold: the set's capacity */
    char name[64];
    struct eddy_rigid_params p;
    float min_mass;
    eddy_grid *grid;
    eddy_kernel k[K_COUNT];
    eddy_buffer params, rest, offsets, force, torque, bforce, btorque, sp, sv, sbody;
    eddy_buffer external_sum; /* the rigid.external slices' sum, with two or more */
    /* Friction: contact memory, 16 slots a particle, keyed by the other
     * particle's id. hid and hxi are the set's ("rigid.contacts",
     * "rigid.shear"): they travel with the particles when the set is
     * reordered (runs over ranks); the next tables are scratch. */
    eddy_buffer hid, hxi, hid_next, hxi_next;
    /* Each particle's id when the set has no "id" buffer: its index. */
    eddy_buffer ids;
    eddy_buffer position, velocity, mass, phase, body, matrix, clamped;
    /* "rigid.added", per body: xyz its last substep's acceleration
     * (m/s^2), w the added mass of the fluids it is in (kg;
     * added_mass_once). */
    eddy_buffer added;
    bool added_known;
    /* Over MPI ranks (bodies): the whole set's count, each particle's
     * force and torque gathered from the ranks by id, its rest offset, and
     * where rigid.integrate flags the particles it found outside (by index
     * in the whole set; over ranks not the set's "clamped"). */
    uint32_t total;
    eddy_buffer force_full, torque_full, rest_full, clamped_full;
} rigid;

static void destroy(void *state)
{
    rigid *s = state;
    if (!s)
        return;
    eddy_destroy_grid(s->e, s->grid);
    for (int i = 0; i < K_COUNT; i++)
        eddy_destroy_kernel(s->e, s->k[i]);
    eddy_buffer own[] = { s->params, s->offsets, s->force, s->torque, s->bforce, s->btorque,
                          s->sp, s->sv, s->sbody, s->hid_next, s->hxi_next, s->external_sum, s->ids,
                          s->force_full, s->torque_full, s->rest_full, s->clamped_full };
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        eddy_destroy_buffer(s->e, own[i]);
    free(s);
}

static eddy_buffer scratch(rigid *s, const char *what, uint64_t bytes, const void *data)
{
    char label[160];
    snprintf(label, sizeof label, "%s.%s", s->name, what);
    /* Padded to 16 bytes for the shaders' vec4 loads; the caller's data is
     * only `bytes` long. */
    return eddy_create_buffer(s->e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = bytes < 16 ? 16 : bytes, .label = label,
                                                         .data = bytes ? data : NULL, .data_size = bytes });
}

/* The largest stable substep: 0.15 sqrt(m / k) for the contact springs (a
 * stack of cubes still crept 1 cm in 2 s at 0.2, and came to rest at 0.15:
 * tests/physics/test_rigid.c), and the dashpots' m / (eta + k_t) / 2. */
static double bound_dt(const struct eddy_rigid_params *p, double m)
{
    double k = fmax(p->gravity[3], p->coeffs[2]), c = p->coeffs[0] + p->coeffs[1];
    double dt = 0.15 * sqrt(m / k);
    return c > 0 ? fmin(dt, 0.5 * m / c) : dt;
}

/* Walls that hold what rests on them: a body at rest on the floor is held
 * by the wall springs of the particles it stands on, each pushing k_w times
 * its overlap d - 2 (x - wall) (rigid_walls). Its centres stay inside the
 * box only if those springs carry its weight with an overlap below d; this
 * asks for at most d/2 (a centre d/4 above the plane, leaving room for the
 * landing): k_w >= 2 M |g| / (n_b d). n_b, the particles it stands on, is
 * taken as n^(2/3) for a body of n particles: the face of a voxelised cube
 * (exact for a cube on a face; a body settles on a broad side, and its pose
 * as filled says little: a tilted bunny touches with 2). A grain stands on
 * one. Softer walls are refused with the stiffness needed: below it a heavy
 * body used to sink through the floor, and now would sit on the box's hard
 * limit. */
static eddy_result check_wall_stiffness(rigid *s, uint32_t n, const float *mass, const struct eddy_rigid_body *bodies,
                                        const uint32_t *offsets, bool granular)
{
    const struct eddy_rigid_params *p = &s->p;
    double g = sqrt((double)p->gravity[0] * p->gravity[0] + (double)p->gravity[1] * p->gravity[1] +
                    (double)p->gravity[2] * p->gravity[2]);
    double d = p->box_min[3], kw = p->coeffs[2];
    if (!(g > 0))
        return EDDY_OK;
    double need = 0, M_worst = 0, nb_worst = 1;
    uint32_t worst = 0, B = granular ? n : s->bodies;
    for (uint32_t k = 0; k < B; k++) {
        double M = granular ? mass[k] : bodies[k].x[3];
        double nb = granular ? 1 : pow(offsets[k + 1] - offsets[k], 2.0 / 3.0);
        double k_need = 2 * M * g / (nb * d);
        if (k_need > need)
            need = k_need, worst = k, M_worst = M, nb_worst = nb;
    }
    if (kw >= need)
        return EDDY_OK;
    eddy_log(s->e, EDDY_LOG_ERROR, "system.walls_too_soft",
             "system '%s': wall_stiffness %g N/m cannot hold %s %u (%g kg) on the floor: the %.3g particle(s) it "
             "stands on carry its weight with an overlap of at most d/2 only at wall_stiffness >= %g N/m "
             "(2 M |g| / (n d), n = particles^(2/3), d = %g m); raise wall_stiffness (or stiffness when "
             "wall_stiffness is 0)", s->name, kw, granular ? "grain" : "body", worst, M_worst, nb_worst, need, d);
    return EDDY_ERROR_INVALID_ARGUMENT;
}

/* The parameter block: the grid over the box at the particle diameter d
 * (refused when it spans too many cells: *r), the step and the contact
 * model's coefficients. */
static void param_block(rigid *s, const eddy_system_ctx *ctx, double d, bool granular, eddy_result *r)
{
    struct eddy_rigid_params *p = &s->p;
    for (int a = 0; a < 3; a++) {
        p->grid[a] = (float)(ctx->box_min[a] - d);
        /* Bounded before the conversion: a huge box over a small diameter
         * does not fit an int (found by fuzz_scene: undefined behaviour). */
        double cells = ceil((ctx->box_max[a] - ctx->box_min[a]) / d) + 2;
        p->dims[a] = cells > 1 << 20 ? (1 << 20) + 1 : (int32_t)cells;
        p->box_min[a] = ctx->box_min[a];
        p->box_max[a] = ctx->box_max[a];
        p->gravity[a] = (float)ctx->params[P_GRAVITY].v[a];
        if (*r == EDDY_OK && p->dims[a] > 1 << 20) {
            eddy_log(s->e, EDDY_LOG_ERROR, "system.too_large", "system '%s': the box spans too many cells of d = %g m along "
                     "axis %d; raise the diameter or shrink the box", s->name, d, a);
            *r = EDDY_ERROR_LIMIT;
        }
    }
    p->grid[3] = (float)(1.0 / d);
    p->dims[3] = granular;
    p->box_min[3] = (float)d;
    p->box_max[3] = (float)ctx->dt;
    p->gravity[3] = (float)ctx->params[P_STIFFNESS].v[0];
    p->coeffs[0] = (float)ctx->params[P_DAMPING].v[0];
    p->coeffs[1] = (float)ctx->params[P_SHEAR].v[0];
    p->coeffs[2] = (float)(ctx->params[P_WALL_STIFFNESS].v[0] > 0 ? ctx->params[P_WALL_STIFFNESS].v[0]
                                                                    : ctx->params[P_STIFFNESS].v[0]);
    p->coeffs[3] = (float)ctx->params[P_FRICTION].v[0];
    p->counts[0] = s->n;
}

/* Contact memory: with friction, 16 slots a particle in the set's
 * buffers, all empty (0xffffffff) at the start; the particles' own ids
 * (0, 1, ...) for a set without an "id" buffer. */
static eddy_result create_memory(rigid *s)
{
    eddy_engine *e = s->e;
    uint64_t cap = s->cap, slots = s->p.coeffs[3] > 0 ? 16ull * cap : 1;
    uint32_t *fill = malloc(4 * (slots > cap ? slots : cap) + 4);
    if (!fill)
        return EDDY_ERROR_OUT_OF_MEMORY;
    memset(fill, 0xff, 4 * slots);
    if (s->p.coeffs[3] > 0) {
        s->hid = eddy_particles_add_buffer(e, s->set, "rigid.contacts", 4 * 16);
        s->hxi = eddy_particles_add_buffer(e, s->set, "rigid.shear", 16 * 16);
        if (s->hid.id && eddy_buffer_upload(e, s->hid, 0, 4 * slots, fill) != EDDY_OK)
            s->hid = (eddy_buffer){ 0 };
    } else {
        s->hid = scratch(s, "contacts.id", 4 * slots, fill);
        s->hxi = scratch(s, "contacts.shear", 16 * slots, NULL);
    }
    s->hid_next = scratch(s, "contacts.id_next", 4 * slots, fill);
    s->hxi_next = scratch(s, "contacts.shear_next", 16 * slots, NULL);
    for (uint64_t i = 0; i < cap; i++)
        fill[i] = (uint32_t)i;
    s->ids = scratch(s, "ids", 4 * cap, fill);
    free(fill);
    return s->hid.id && s->hxi.id && s->hid_next.id && s->hxi_next.id && s->ids.id ? EDDY_OK
                                                                                  : EDDY_ERROR_OUT_OF_MEMORY;
}

/* The buffers: the bodies, their matrices and the particles' rest offsets
 * (shared with renderers and fluids), the inverse masses a coupled fluid
 * weighs (fluid_w), the forces, the sorted copies and the contact memory.
 * Every buffer is attempted before a missing one is reported. */
static eddy_result create_buffers(rigid *s, const struct eddy_rigid_body *bodies, const float *rest,
                                  const uint32_t *offsets, const float *fluid_w)
{
    eddy_engine *e = s->e;
    const struct eddy_rigid_params *p = &s->p;
    uint32_t n = s->n, B = s->bodies;
    eddy_result r = EDDY_OK;
    s->body = eddy_particles_add_buffer(e, s->set, "rigid.body", sizeof(struct eddy_rigid_body));
    s->matrix = eddy_particles_add_buffer(e, s->set, "rigid.matrix", 64);
    /* One row a body, not a particle (with "rigid.added" below): over MPI
     * ranks every rank keeps every body, the same. */
    if (eddy_particles_mark_set_rows(e, s->set, "rigid.body") != EDDY_OK ||
        eddy_particles_mark_set_rows(e, s->set, "rigid.matrix") != EDDY_OK)
        r = EDDY_ERROR_OUT_OF_MEMORY;
    s->clamped = eddy_particles_add_buffer(e, s->set, "clamped", 4);
    if (!s->clamped.id)
        r = EDDY_ERROR_OUT_OF_MEMORY;
    /* Found (zero: a fixed obstacle) when the fluid came first. */
    eddy_buffer fw = eddy_particles_add_buffer(e, s->set, "rigid.inverse_mass", 4);
    if (n && (!fw.id || !fluid_w || eddy_buffer_upload(e, fw, 0, 4ull * n, fluid_w) != EDDY_OK))
        r = EDDY_ERROR_OUT_OF_MEMORY;
    s->params = scratch(s, "params", sizeof *p, p);
    /* Shared: a renderer draws each body's particles as matrix[body] x rest. */
    s->rest = eddy_particles_add_buffer(e, s->set, "rigid.rest", 16);
    if (!s->rest.id || (n && rest && eddy_buffer_upload(e, s->rest, 0, 16ull * n, rest) != EDDY_OK))
        r = EDDY_ERROR_OUT_OF_MEMORY;
    s->offsets = scratch(s, "offsets", 4ull * (B + 1), offsets);
    uint64_t cap = s->cap;
    s->force = scratch(s, "force", 16ull * cap, NULL);
    s->torque = scratch(s, "torque", 16ull * cap, NULL);
    s->bforce = scratch(s, "body_force", 16ull * B, NULL);
    s->btorque = scratch(s, "body_torque", 16ull * B, NULL);
    s->sp = scratch(s, "sorted.position", 16ull * cap, NULL);
    s->sv = scratch(s, "sorted.velocity", 16ull * cap, NULL);
    s->sbody = scratch(s, "sorted.body", 4ull * cap, NULL);
    /* Shared: the momentum a body in a fluid holds back is w xyz dt. */
    s->added = eddy_particles_add_buffer(e, s->set, "rigid.added", 16);
    if (!s->added.id || (n && eddy_buffer_fill(e, s->added, 0, 16ull * n, 0) != EDDY_OK) ||
        eddy_particles_mark_set_rows(e, s->set, "rigid.added") != EDDY_OK)
        r = EDDY_ERROR_OUT_OF_MEMORY;
    r = r == EDDY_OK ? create_memory(s) : r;
    if (!s->body.id || !s->matrix.id || !s->params.id || !s->rest.id || !s->offsets.id || !s->force.id ||
        !s->torque.id || !s->bforce.id || !s->btorque.id || !s->sp.id || !s->sv.id || !s->sbody.id)
        r = EDDY_ERROR_OUT_OF_MEMORY;
    if (r == EDDY_OK && B)
        r = eddy_buffer_upload(e, s->body, 0, sizeof *bodies * B, bodies);
    return r;
}

static eddy_result create(const eddy_system_ctx *ctx, void **state)
{
    eddy_engine *e = ctx->engine;
    rigid *s = calloc(1, sizeof *s);
    if (!s)
        return EDDY_ERROR_OUT_OF_MEMORY;
    *state = s;
    s->e = e;
    s->set = ctx->particles;
    s->n = eddy_particles_count(e, ctx->particles);
    s->total = s->n;
    s->cap = eddy_particles_capacity(e, ctx->particles);
    snprintf(s->name, sizeof s->name, "%s", ctx->name);
    uint32_t n = s->n;
    s->position = eddy_particles_buffer(e, s->set, "position");
    s->velocity = eddy_particles_buffer(e, s->set, "velocity");
    s->mass = eddy_particles_buffer(e, s->set, "mass");
    s->phase = eddy_particles_buffer(e, s->set, "phase");
    float *pos = malloc(16ull * n + 16), *vel = malloc(16ull * n + 16), *mass = malloc(4ull * n + 4);
    uint32_t *phase = malloc(4ull * n + 4);
    eddy_result r = pos && vel && mass && phase ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
    if (r == EDDY_OK && n)
        r = eddy_buffer_download(e, s->position, 0, 16ull * n, pos);
    if (r == EDDY_OK && n)
        r = eddy_buffer_download(e, s->velocity, 0, 16ull * n, vel);
    if (r == EDDY_OK && n)
        r = eddy_buffer_download(e, s->mass, 0, 4ull * n, mass);
    if (r == EDDY_OK && n)
        r = eddy_buffer_download(e, s->phase, 0, 4ull * n, phase);
    double d = ctx->params[P_DIAMETER].v[0];
    if (d <= 0)
        d = n ? 2.0 * pos[3] : 0.02;
    bool granular = ctx->params[P_GRANULAR].v[0] != 0;
    struct eddy_rigid_params *p = &s->p;
    param_block(s, ctx, d, granular, &r);
    struct eddy_rigid_body *bodies = NULL;
    float *rest = NULL;
    uint32_t *offsets = NULL;
    s->min_mass = INFINITY;
    for (uint32_t i = 0; i < n && r == EDDY_OK; i++)
        s->min_mass = fminf(s->min_mass, mass[i]);
    if (r == EDDY_OK && !granular && n) {
        char err[512];
        int64_t B = eddy_rigid_build_bodies(n, pos, vel, mass, phase, d, &bodies, &rest, &offsets, err, sizeof err);
        if (B < 0) {
            eddy_log(e, EDDY_LOG_ERROR, "system.invalid", "system '%s': %s", s->name, err);
            r = EDDY_ERROR_INVALID_ARGUMENT;
        } else {
            s->bodies = (uint32_t)B;
        }
    }
    p->counts[1] = s->bodies;
    if (r == EDDY_OK && n)
        r = check_wall_stiffness(s, n, mass, bodies, offsets, granular);
    /* Published for a fluid coupled to the set (modules/couple). */
    float *fluid_w = r == EDDY_OK && n ? malloc(4ull * n) : NULL;
    if (fluid_w)
        eddy_rigid_fluid_inverse_mass(n, pos, mass, offsets, s->bodies, d, granular, fluid_w);
    double bound = bound_dt(p, s->min_mass);
    if (r == EDDY_OK && n && ctx->dt > bound * (1 + 1e-9) && !ctx->adaptive) {
        eddy_log(e, EDDY_LOG_ERROR, "system.unstable", "system '%s': substep dt = %g s is above the stability bound %g s "
                 "(0.15 sqrt(m / k) with the lightest particle %g kg and k = %g N/m; 0.5 m / (damping + "
                 "shear)): lower dt or raise substeps", s->name, ctx->dt, bound, s->min_mass, fmax(p->gravity[3], p->coeffs[2]));
        r = EDDY_ERROR_INVALID_ARGUMENT;
    }
    free(pos), free(vel), free(mass), free(phase);
    if (r == EDDY_OK) {
        char gl[160];
        snprintf(gl, sizeof gl, "%s.grid", ctx->name);
        s->grid = eddy_create_grid(e, &(eddy_grid_desc){ EDDY_SIZED(eddy_grid_desc),
            .label = gl, .origin = { p->grid[0], p->grid[1], p->grid[2] }, .cell = (float)d,
            .dims = { (uint32_t)p->dims[0], (uint32_t)p->dims[1], (uint32_t)p->dims[2] },
            .max_count = s->cap ? s->cap : 1 });
        if (!s->grid)
            r = EDDY_ERROR_LIMIT;
    }
    if (r == EDDY_OK)
        r = create_buffers(s, bodies, rest, offsets, fluid_w);
    free(bodies), free(rest), free(offsets), free(fluid_w);
    const struct { const uint32_t *spv; size_t size; const char *label; } ks[K_CONTACT_COUPLED] = {
        { particles_spv, sizeof particles_spv, "rigid.particles" }, { contact_spv, sizeof contact_spv, "rigid.contact" },
        { integrate_spv, sizeof integrate_spv, "rigid.integrate" }, { granular_spv, sizeof granular_spv, "rigid.granular" },
        { history_spv, sizeof history_spv, "rigid.history" },
    };
    for (int i = 0; i < K_CONTACT_COUPLED && r == EDDY_OK; i++) {
        s->k[i] = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = ks[i].label, .spirv = ks[i].spv, .spirv_size = ks[i].size });
        if (!s->k[i].id)
            r = EDDY_ERROR_VULKAN;
    }
    return r;
}

eddy_buffer eddy_rigid_external(eddy_engine *e, eddy_particles set, uint32_t k)
{
    char name[32];
    snprintf(name, sizeof name, "rigid.external.%u", k);
    return eddy_particles_buffer(e, set, name);
}

eddy_buffer eddy_rigid_claim_external(eddy_engine *e, eddy_particles set, const char *system)
{
    uint32_t k = 0;
    while (k < EDDY_RIGID_EXTERNAL_MAX && eddy_rigid_external(e, set, k).id)
        k++;
    if (k == EDDY_RIGID_EXTERNAL_MAX) {
        eddy_log(e, EDDY_LOG_ERROR, "system.invalid", "system '%s': set '%s' takes forces from %u systems already; "
                 "expected at most %u", system, eddy_particles_name(e, set), k, EDDY_RIGID_EXTERNAL_MAX);
        return (eddy_buffer){ 0 };
    }
    char name[32];
    snprintf(name, sizeof name, "rigid.external.%u", k);
    eddy_buffer b = eddy_particles_add_buffer(e, set, name, 16);
    if (b.id && eddy_buffer_fill(e, b, 0, 16ull * eddy_particles_capacity(e, set), 0) != EDDY_OK)
        return (eddy_buffer){ 0 };
    return b;
}

static eddy_kernel kernel_once(rigid *s, int i, const uint32_t *spv, size_t size, const char *label)
{
    if (!s->k[i].id)
        s->k[i] = eddy_create_kernel(s->e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = label, .spirv = spv, .spirv_size = size });
    return s->k[i];
}

eddy_result eddy_rigid_record_external(eddy_engine *e, eddy_graph g, eddy_particles set, uint32_t n,
                                       const char *system, eddy_kernel *kernel, eddy_buffer *sum,
                                       eddy_buffer *external)
{
    uint32_t count = 0;
    while (count < EDDY_RIGID_EXTERNAL_MAX && eddy_rigid_external(e, set, count).id)
        count++;
    *external = count ? eddy_rigid_external(e, set, 0) : (eddy_buffer){ 0 };
    if (count < 2)
        return EDDY_OK;
    char label[160];
    if (!sum->id) {
        snprintf(label, sizeof label, "%s.external_sum", system);
        *sum = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 16ull * (n ? n : 1), .label = label });
    }
    if (!kernel->id)
        *kernel = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "rigid.external_sum", .spirv = external_sum_spv,
                                                             .spirv_size = sizeof external_sum_spv });
    if (!sum->id || !kernel->id)
        return EDDY_ERROR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t push[2] = { n, i == 0 };
        int rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "rigid.external_sum", .kernel = *kernel, .threads = n, .push = push, .push_size = sizeof push,
            .bindings = { { *sum, EDDY_READ_WRITE }, { eddy_rigid_external(e, set, i), EDDY_READ } } });
        if (rc < 0)
            return EDDY_ERROR_INVALID_ARGUMENT;
    }
    *external = *sum;
    return EDDY_OK;
}

/* Each body's added mass (w of `added`): the sum over its particles of the
 * "rigid.added_mass" the fluids that couple the set published when they
 * were created (modules/couple), which is before any step is declared.
 * Sums in double in particle order: the same bits every run. */
static eddy_result added_mass_once(rigid *s)
{
    eddy_buffer pm = eddy_particles_buffer(s->e, s->set, "rigid.added_mass");
    if (s->added_known || !pm.id || !s->bodies)
        return EDDY_OK;
    uint32_t B = s->bodies, n = s->n, *off = malloc(4ull * (B + 1));
    float *m = malloc(4ull * n), *a = calloc(4ull * B, sizeof *a); /* xyz: no substep yet */
    eddy_result r = off && m && a ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
    if (r == EDDY_OK)
        r = eddy_buffer_download(s->e, s->offsets, 0, 4ull * (B + 1), off);
    if (r == EDDY_OK)
        r = eddy_buffer_download(s->e, pm, 0, 4ull * n, m);
    for (uint32_t k = 0; r == EDDY_OK && k < B; k++) {
        double sum = 0;
        for (uint32_t i = off[k]; i < off[k + 1] && i < n; i++)
            sum += m[i];
        a[4 * k + 3] = (float)sum;
    }
    if (r == EDDY_OK)
        r = eddy_buffer_upload(s->e, s->added, 0, 16ull * B, a);
    free(off), free(m), free(a);
    s->added_known = r == EDDY_OK;
    return r;
}

/* The bodies: per-body force and torque as fixed-order segmented sums
 * (eqs. 14-15; over ranks of every particle's, gathered whole), the
 * bodies stepped, their particles placed. */
static eddy_result record_bodies(rigid *s, eddy_graph g, eddy_step_parts *parts)
{
    eddy_engine *e = s->e;
    eddy_buffer force = s->force, torque = s->torque, rest = s->rest, clamped = s->clamped;
    if (parts) {
        eddy_sync_desc sync = { EDDY_SIZED(eddy_sync_desc), .gather = { s->force, s->torque },
                                .full = { s->force_full, s->torque_full }, .gather_bytes = { 16, 16 },
                                .gather_count = 2 };
        if (parts->sync(parts, &sync) != EDDY_OK)
            return EDDY_ERROR_INVALID_ARGUMENT;
        g = parts->graph;
        force = s->force_full, torque = s->torque_full, rest = s->rest_full, clamped = s->clamped_full;
    }
    uint32_t all = parts ? s->total : s->n;
    eddy_result r = eddy_segmented_reduce_record(e, g, force, 4, 3, s->offsets, s->bodies, all, EDDY_REDUCE_SUM,
                                                 s->bforce);
    if (r == EDDY_OK)
        r = eddy_segmented_reduce_record(e, g, torque, 4, 3, s->offsets, s->bodies, all, EDDY_REDUCE_SUM,
                                         s->btorque);
    if (r != EDDY_OK)
        return r;
    int rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "rigid.integrate", .kernel = s->k[K_INTEGRATE], .threads = s->bodies,
        .bindings = { { s->params, EDDY_READ }, { s->body, EDDY_READ_WRITE }, { s->bforce, EDDY_READ },
                      { s->btorque, EDDY_READ }, { s->matrix, EDDY_WRITE }, { s->offsets, EDDY_READ },
                      { rest, EDDY_READ }, { clamped, EDDY_WRITE }, { s->added, EDDY_READ_WRITE } } });
    if (rc >= 0 && s->n)
        rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "rigid.particles", .kernel = s->k[K_PARTICLES], .threads = s->n,
            .bindings = { { s->params, EDDY_READ }, { s->body, EDDY_READ }, { s->rest, EDDY_READ },
                          { s->phase, EDDY_READ }, { s->position, EDDY_READ_WRITE },
                          { s->velocity, EDDY_WRITE } } });
    return rc < 0 ? EDDY_ERROR_INVALID_ARGUMENT : EDDY_OK;
}

/* Over MPI ranks, what the bodies' sums need: the whole set's forces and
 * torques (gathered by id), rest offsets and clamp flags. */
static eddy_result make_full(rigid *s)
{
    if (s->force_full.id)
        return EDDY_OK;
    uint64_t N = s->total ? s->total : 1;
    s->force_full = scratch(s, "force.whole", 16 * N, NULL);
    s->torque_full = scratch(s, "torque.whole", 16 * N, NULL);
    s->rest_full = scratch(s, "rest.whole", 16 * N, NULL);
    s->clamped_full = scratch(s, "clamped.whole", 4 * N, NULL);
    return s->force_full.id && s->torque_full.id && s->rest_full.id && s->clamped_full.id ? EDDY_OK
                                                                                          : EDDY_ERROR_OUT_OF_MEMORY;
}

/* The substep's passes; over MPI ranks (parts) a body's particles' forces
 * and torques are gathered whole between the contacts and the sums. */
static eddy_result declare(rigid *s, eddy_graph g, eddy_step_parts *parts)
{
    eddy_engine *e = s->e;
    /* Over ranks a rank without particles of the set still takes part in
     * the gather and steps every body. */
    if (s->n == 0)
        return parts ? record_bodies(s, g, parts) : EDDY_OK;
    eddy_buffer external;
    eddy_result ra = added_mass_once(s);
    if (ra != EDDY_OK)
        return ra;
    eddy_result rx = eddy_rigid_record_external(e, g, s->set, s->n, s->name, &s->k[K_EXTERNAL_SUM],
                                                &s->external_sum, &external);
    if (rx != EDDY_OK)
        return rx;
    eddy_kernel contact = external.id ? kernel_once(s, K_CONTACT_COUPLED, contact_coupled_spv, sizeof contact_coupled_spv,
                                                    "rigid.contact")
                                      : s->k[K_CONTACT];
    if (!contact.id)
        return EDDY_ERROR_VULKAN;
    eddy_grid_buffers gb = eddy_grid_get_buffers(s->grid);
    bool granular = s->p.dims[3] != 0;
    /* The set's ids where it has them (a set split over ranks), else the
     * particles' indices. */
    eddy_buffer ids = eddy_particles_buffer(e, s->set, "id");
    ids = ids.id ? ids : s->ids;
    eddy_result r = eddy_grid_record_build(e, s->grid, g, s->position, s->n);
    if (r == EDDY_OK)
        r = eddy_grid_record_gather(e, s->grid, g, s->position, s->sp, 4, s->n);
    if (r == EDDY_OK)
        r = eddy_grid_record_gather(e, s->grid, g, s->velocity, s->sv, 4, s->n);
    if (r == EDDY_OK)
        r = eddy_grid_record_gather(e, s->grid, g, s->phase, s->sbody, 1, s->n);

    if (r != EDDY_OK)
        return r;
    int rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "rigid.contact", .kernel = contact, .threads = s->n,
        .bindings = { { s->params, EDDY_READ }, { s->sp, EDDY_READ }, { s->sv, EDDY_READ },
                      { s->sbody, EDDY_READ }, { gb.cell_start, EDDY_READ }, { gb.cell_end, EDDY_READ },
                      { gb.sorted_index, EDDY_READ }, { s->body, EDDY_READ }, { s->force, EDDY_WRITE },
                      { s->torque, EDDY_WRITE }, { s->hid, EDDY_READ }, { s->hxi, EDDY_READ },
                      { s->hid_next, EDDY_WRITE }, { s->hxi_next, EDDY_WRITE }, { ids, EDDY_READ },
                      { external, EDDY_READ } } });
    if (rc >= 0 && s->p.coeffs[3] > 0)
        rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            /* 16 slots a particle: a grid-stride copy, within the device's
             * workgroup count at any size (64-thread groups, the default). */
            .label = "rigid.history", .kernel = s->k[K_HISTORY],
            .groups = { (uint32_t)fmin(ceil(16.0 * s->n / 64), eddy_engine_device(e)->max_workgroup_count[0]) },
            .bindings = { { s->params, EDDY_READ }, { s->hid_next, EDDY_READ }, { s->hxi_next, EDDY_READ },
                          { s->hid, EDDY_WRITE }, { s->hxi, EDDY_WRITE } } });
    if (rc < 0)
        return EDDY_ERROR_INVALID_ARGUMENT;
    if (granular) {
        rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "rigid.granular", .kernel = s->k[K_GRANULAR], .threads = s->n,
            .bindings = { { s->params, EDDY_READ }, { s->force, EDDY_READ }, { s->mass, EDDY_READ },
                          { s->position, EDDY_READ_WRITE }, { s->velocity, EDDY_READ_WRITE },
                          { s->clamped, EDDY_WRITE } } });
        return rc < 0 ? EDDY_ERROR_INVALID_ARGUMENT : EDDY_OK;
    }
    return record_bodies(s, g, parts);
}

static eddy_result declare_step(void *state, eddy_graph g)
{
    return declare(state, g, NULL);
}

static eddy_result declare_parts(void *state, eddy_step_parts *parts)
{
    rigid *s = state;
    return declare(s, parts->graph, s->p.dims[3] == 0 ? parts : NULL);
}

static void stats(void *state, eddy_stats *st)
{
    rigid *s = state;
    if (!s->bodies)
        return;
    struct eddy_rigid_body *b = malloc(sizeof *b * s->bodies);
    if (b && eddy_buffer_download(s->e, s->body, 0, sizeof *b * s->bodies, b) == EDDY_OK) {
        double lin = 0, rot = 0, P[3] = { 0, 0, 0 }, vmax = 0;
        for (uint32_t k = 0; k < s->bodies; k++) {
            double v2 = 0;
            for (int a = 0; a < 3; a++) {
                v2 += (double)b[k].v[a] * b[k].v[a];
                rot += 0.5 * (double)b[k].w[a] * b[k].l[a];
                P[a] += b[k].p[a];
            }
            lin += 0.5 * b[k].x[3] * v2;
            vmax = fmax(vmax, sqrt(v2));
        }
        eddy_stats_add(st, "bodies", s->bodies);
        eddy_stats_add(st, "body_linear_energy", lin);
        eddy_stats_add(st, "body_rotational_energy", rot);
        eddy_stats_add(st, "body_max_speed", vmax);
        eddy_stats_add(st, "body_momentum_x", P[0]);
        eddy_stats_add(st, "body_momentum_y", P[1]);
        eddy_stats_add(st, "body_momentum_z", P[2]);
    }
    free(b);
}

static double stable_dt(void *state)
{
    rigid *s = state;
    return bound_dt(&s->p, s->min_mass);
}

static eddy_result set_dt(void *state, double dt)
{
    rigid *s = state;
    s->p.box_max[3] = (float)dt;
    return eddy_buffer_upload(s->e, s->params, 0, sizeof s->p, &s->p);
}

static const eddy_slot_info slots[] = {
    { "bodies", "the bodies' particles (one body per phase value, or grains)", 1, 1 },
};

/* State: each body (centre, orientation, momenta), its last acceleration
 * (the added mass's memory), and the friction's contact memory; the
 * particles themselves are the set's. The rest is rebuilt every substep
 * or made by create from the scene (offsets, inertia, added mass). */
static eddy_result checkpoint(void *state, eddy_checkpoint *cp)
{
    rigid *s = state;
    const eddy_checkpoint_item items[] = {
        { "rigid.body", s->body, EDDY_STATE_F32, 32, "1" },
        { "rigid.added", s->added, EDDY_STATE_F32, 4, "1" },
        { "rigid.matrix", s->matrix, EDDY_STATE_F32, 16, "1" },
        { "contacts.id", s->hid, EDDY_STATE_U32, 1, "1" },
        { "contacts.id_next", s->hid_next, EDDY_STATE_U32, 1, "1" },
        { "contacts.shear", s->hxi, EDDY_STATE_F32, 4, "m" },
        { "contacts.shear_next", s->hxi_next, EDDY_STATE_F32, 4, "m" },
    };
    eddy_result r = eddy_checkpoint_buffers(cp, items, sizeof items / sizeof *items);
    /* The restored rigid.added holds the added mass and the last
     * acceleration: summing it again would clear the acceleration. */
    if (r == EDDY_OK && eddy_checkpoint_restoring(cp))
        s->added_known = true;
    return r;
}

/* The contact pass reads the particles closer than one diameter at the
 * substep's start; the contact memory travels with the particles (set
 * buffers, keyed by id), and a coupling's force on a particle is its own
 * (rigid.external.<k>). Bodies sum their particles' forces over the whole
 * body: over ranks every rank gathers them all (declare_parts) and steps
 * every body the same. */
static eddy_result reach(void *state, double *metres)
{
    rigid *s = state;
    return eddy_reach_answer(s->e, s->name, NULL, s->p.box_min[3], metres);
}

/* The first call comes before the first exchange has run: the set is still
 * whole in its order, which is when the bodies' added mass and the rest
 * offsets by index are taken. */
static eddy_result set_count(void *state)
{
    rigid *s = state;
    uint32_t n = eddy_particles_count(s->e, s->set);
    if (n > s->cap)
        return EDDY_ERROR_INVALID_ARGUMENT;
    eddy_result r = EDDY_OK;
    if (s->p.dims[3] == 0 && !s->force_full.id) {
        uint32_t keep = s->n;
        s->n = s->total;
        r = added_mass_once(s);
        s->n = keep;
        if (r == EDDY_OK)
            r = make_full(s);
        if (r == EDDY_OK && s->total)
            r = eddy_buffer_copy(s->e, s->rest, 0, s->rest_full, 0, 16ull * s->total);
    }
    s->n = n;
    s->p.counts[0] = n;
    return r == EDDY_OK ? eddy_buffer_upload(s->e, s->params, 0, sizeof s->p, &s->p) : r;
}

static const eddy_module_desc desc = {
    EDDY_MODULE_DESC_VERSION,
    .slots = slots,
    .slot_count = 1,
    .name = "rigid",
    .version = "0.1",
    .summary = "rigid bodies as particles with DEM contacts, and granular material (Harada 2007)",
    .params = params,
    .param_count = P_COUNT,
    .shared_buffers = shared,
    .shared_buffer_count = sizeof shared / sizeof shared[0],
    .create = create,
    .destroy = destroy,
    .declare_step = declare_step,
    .stats = stats,
    .stable_dt = stable_dt,
    .set_dt = set_dt,
    .checkpoint = checkpoint,
    .reach = reach,
    .set_count = set_count,
    .declare_parts = declare_parts,
};

const eddy_module_desc *eddy_rigid_module(void)
{
    return &desc;
}
