/* couple: see couple.h and README.md beside this file. */
#include "couple.h"
#include "eddy/eddy_checkpoint.h"

#include "eddy/eddy_prims.h"
#include "sph_kernels.h"
#include "rigid/rigid.h"
#include "common/cpu_grid.h"
#include "common/cpu_solids.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint32_t begin_spv[] =
#include "couple_begin.spv.inc"
    ;
static const uint32_t pbf_spv[] =
#include "couple_pbf.spv.inc"
    ;
static const uint32_t sph_spv[] =
#include "couple_sph.spv.inc"
    ;
static const uint32_t end_spv[] =
#include "set_slice.spv.inc"
    ;
static const uint32_t sheet_begin_spv[] =
#include "couple_sheet_begin.spv.inc"
    ;
static const uint32_t sheet_spv[] =
#include "couple_sheet.spv.inc"
    ;
static const uint32_t sheet_force_spv[] =
#include "couple_sheet_force.spv.inc"
    ;
static const uint32_t sheet_apply_spv[] =
#include "couple_sheet_apply.spv.inc"
    ;
enum { K_BEGIN, K_PBF, K_SPH, K_END, K_SHEET_BEGIN, K_SHEET, K_SHEET_FORCE, K_SHEET_APPLY, K_COUNT };

/* One boundary set: its particles at [offset, offset + count) of the
 * combined arrays; lead (s): where couple.begin puts them, x + lead v; a
 * sheet (a set with triangles) takes the fluid's force as an impulse on its
 * velocity (couple.sheet_apply), the others in their slice `external`. */
typedef struct couple_set {
    eddy_particles set;
    uint32_t offset, count;
    float lead;
    bool sheet;
    eddy_buffer position, velocity, inverse_mass, external;
} couple_set;

struct eddy_couple {
    char name[64];
    couple_set sets[EDDY_COUPLE_MAX_SETS];
    uint32_t set_count, nb;
    float added_mass; /* kg/m^3 (eddy_couple_desc.added_mass) */
    struct eddy_couple_params p;
    eddy_grid *grid;
    eddy_kernel k[K_COUNT];
    /* Combined order: predicted (volume in w), inverse mass, the force scattered
     * back (several sets, or a sheet); sorted order: the rest. */
    eddy_buffer params, predicted, weight, unsorted_force, sorted, sorted_w, force;
    uint32_t nb_cap; /* boundary particles the buffers hold: the sets' capacities */
    /* The velocities (combined; sorted only with desc.sph_iisph). */
    eddy_buffer bvel, sorted_v;
    /* Sheets (the sets' "triangles"): x where the fluid last left them
     * (combined; couple.sheet_apply), the triangles (a, b, c combined,
     * thickness bits), their centroids and grid, the sorted triangles, and
     * per fluid particle its contact. */
    uint32_t fluid_count, fluid_cap; /* the fluid's particles now, and at create */
    eddy_grid *tgrid;
    eddy_buffer start, tris, centroid, stris, contact_v, contact;
};

void eddy_couple_destroy(eddy_engine *e, eddy_couple *c)
{
    if (!c)
        return;
    eddy_destroy_grid(e, c->grid);
    eddy_destroy_grid(e, c->tgrid);
    for (int i = 0; i < K_COUNT; i++)
        eddy_destroy_kernel(e, c->k[i]);
    eddy_buffer own[] = { c->params, c->predicted, c->weight, c->unsorted_force, c->bvel, c->sorted_v,
                          c->sorted, c->sorted_w, c->force, c->start, c->tris, c->centroid, c->stris,
                          c->contact_v, c->contact };
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        eddy_destroy_buffer(e, own[i]);
    free(c);
}

static eddy_buffer scratch(eddy_engine *e, eddy_couple *c, const char *what, uint64_t bytes, const void *data)
{
    char label[160];
    snprintf(label, sizeof label, "%s.couple.%s", c->name, what);
    /* Padded to 16 bytes; the caller's data is only `bytes` long. */
    return eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = bytes < 16 ? 16 : bytes, .label = label,
                                                      .data = bytes ? data : NULL, .data_size = bytes });
}

/* The set's "rigid.added_mass" (kg a particle; the rigid module sums it per
 * body): added_mass V_b, or what another fluid published if larger (one
 * body in two fluids at once is not in both in full). */
static bool publish_added_mass(eddy_engine *e, eddy_couple *c, couple_set *cs, const float *vol)
{
    eddy_particles set = cs->set;
    uint64_t bytes = 4ull * eddy_particles_capacity(e, set);
    eddy_buffer b = eddy_particles_buffer(e, set, "rigid.added_mass");
    if (!b.id) {
        b = eddy_particles_add_buffer(e, set, "rigid.added_mass", 4);
        if (!b.id || eddy_buffer_fill(e, b, 0, bytes, 0) != EDDY_OK)
            return false;
    }
    float *m = malloc(4ull * cs->count + 4);
    bool ok = m && (!cs->count || eddy_buffer_download(e, b, 0, 4ull * cs->count, m) == EDDY_OK);
    for (uint32_t i = 0; ok && i < cs->count; i++)
        m[i] = fmaxf(m[i], c->added_mass * vol[cs->offset + i]);
    ok = ok && (!cs->count || eddy_buffer_upload(e, b, 0, 4ull * cs->count, m) == EDDY_OK);
    free(m);
    return ok;
}

/* The set's buffers, its slice of the forces, and its particles' volumes at
 * vol + offset. */
static bool add_set(eddy_engine *e, eddy_couple *c, couple_set *cs, float *vol)
{
    eddy_particles set = cs->set;
    cs->position = eddy_particles_buffer(e, set, "position");
    cs->velocity = eddy_particles_buffer(e, set, "velocity");
    /* Each particle's share of its body's inverse mass: the rigid module
     * fills it; zero (a fixed obstacle) until it does. */
    cs->inverse_mass = eddy_particles_buffer(e, set, "rigid.inverse_mass");
    if (!cs->inverse_mass.id) {
        cs->inverse_mass = eddy_particles_add_buffer(e, set, "rigid.inverse_mass", 4);
        if (!cs->inverse_mass.id ||
            eddy_buffer_fill(e, cs->inverse_mass, 0, 4ull * eddy_particles_capacity(e, set), 0) != EDDY_OK)
            return false;
    }
    if (!cs->sheet)
        cs->external = eddy_rigid_claim_external(e, set, c->name);
    float *x = malloc(16ull * cs->count);
    bool ok = x && cs->position.id && cs->velocity.id && (cs->sheet || cs->external.id) &&
              eddy_buffer_download(e, cs->position, 0, 16ull * cs->count, x) == EDDY_OK;
    for (uint32_t i = 0; ok && i < cs->count; i++) {
        vol[cs->offset + i] = eddy_couple_volume(x[4 * i + 3]);
        if (!(vol[cs->offset + i] > 0) || !isfinite(vol[cs->offset + i])) {
            eddy_log(e, EDDY_LOG_ERROR, "system.invalid", "system '%s': boundary particle %u of set '%s' has radius %g m; "
                     "expected a positive radius", c->name, i, eddy_particles_name(e, set), x[4 * i + 3]);
            ok = false;
        }
    }
    free(x);
    return ok && (c->added_mass <= 0 || publish_added_mass(e, c, cs, vol));
}

/* The boundary sets' "triangles" (a cloth) as sheets the fluid does not
 * pass (pbf): combined indices, each triangle's thickness (its vertices'
 * mean radius, from their volumes vol = (2 r)^3, combined order) in w; the reach of the searches
 * from the longest edge. */
static bool add_sheets(eddy_engine *e, eddy_couple *c, const eddy_couple_desc *d, const float *vol)
{
    uint64_t total = 0;
    for (uint32_t k = 0; k < c->set_count; k++) {
        eddy_elements el = eddy_particles_elements(e, c->sets[k].set, "triangles");
        if (el.buffer.id && el.kind == EDDY_TRIANGLES)
            total += el.count;
    }
    if (!total)
        return true;
    if (!d->sheets) {
        eddy_log(e, EDDY_LOG_ERROR, "system.invalid", "system '%s': a boundary set has triangles (a cloth) and this "
                 "fluid does not keep its particles off them; expected a pbf fluid", c->name);
        return false;
    }
    if (total > UINT32_MAX / 16 || !d->fluid_count) {
        eddy_log(e, EDDY_LOG_ERROR, "system.too_large", "system '%s': %llu sheet triangles; expected at most %u",
                 c->name, (unsigned long long)total, UINT32_MAX / 16);
        return false;
    }
    uint32_t T = (uint32_t)total, *tris = malloc(16ull * T), *idx = NULL;
    float *x = calloc(c->nb + 1ull, 16);
    bool ok = tris && x;
    uint32_t t = 0;
    double longest = 0, thickest = 0;
    for (uint32_t k = 0; ok && k < c->set_count; k++) {
        const couple_set *cs = &c->sets[k];
        eddy_elements el = eddy_particles_elements(e, cs->set, "triangles");
        if (!el.buffer.id || el.kind != EDDY_TRIANGLES || !el.count)
            continue;
        free(idx);
        idx = malloc(12ull * el.count);
        ok = idx && eddy_buffer_download(e, el.buffer, 0, 12ull * el.count, idx) == EDDY_OK &&
             eddy_buffer_download(e, cs->position, 0, 16ull * cs->count, x + 4ull * cs->offset) == EDDY_OK;
        for (uint32_t j = 0; ok && j < el.count; j++, t++) {
            double r = 0;
            for (int a = 0; a < 3; a++) {
                uint32_t v = cs->offset + idx[3 * j + a], w = cs->offset + idx[3 * j + (a + 1) % 3];
                tris[4 * t + a] = v;
                r += 0.5 * cbrt(vol[v]) / 3;
                double l2 = 0;
                for (int b = 0; b < 3; b++)
                    l2 += ((double)x[4 * w + b] - x[4 * v + b]) * ((double)x[4 * w + b] - x[4 * v + b]);
                longest = fmax(longest, sqrt(l2));
            }
            float tau = (float)r;
            memcpy(&tris[4 * t + 3], &tau, 4);
            thickest = fmax(thickest, r);
        }
    }
    /* A particle over a triangle is within the longest edge plus tau of its
     * centroid; a vertex finds the particles in contact with its triangles
     * within that plus the cell the iterations may have moved them. The
     * cloth may stretch: half as much again. */
    double cell = 1.0 / c->p.grid[3], reach = 1.5 * longest + thickest;
    uint32_t D = (uint32_t)ceil(reach / cell);
    if (ok && D > 3) {
        eddy_log(e, EDDY_LOG_ERROR, "system.invalid", "system '%s': a sheet triangle's edge is %g m long, more than "
                 "twice the fluid's cell (%g m): expected a finer cloth (its vertices are the fluid's boundary "
                 "particles and would let it through)", c->name, longest, cell);
        ok = false;
    }
    if (ok) {
        c->p.counts[1] = T;
        c->p.counts[2] = D ? D : 1;
        c->p.counts[3] = (D ? D : 1) + 1;
        c->fluid_count = c->fluid_cap = d->fluid_count;
        c->tris = scratch(e, c, "sheet.triangles", 16ull * T, tris);
        c->centroid = scratch(e, c, "sheet.centroid", 16ull * T, NULL);
        c->stris = scratch(e, c, "sheet.sorted_triangles", 16ull * T, NULL);
        c->contact_v = scratch(e, c, "sheet.contact_vertices", 16ull * d->fluid_count, NULL);
        c->contact = scratch(e, c, "sheet.contact", 32ull * d->fluid_count, NULL);
        c->start = scratch(e, c, "sheet.start", 16ull * c->nb, x);
        char gl[160];
        snprintf(gl, sizeof gl, "%s.couple.sheet_grid", c->name);
        c->tgrid = eddy_create_grid(e, &(eddy_grid_desc){ EDDY_SIZED(eddy_grid_desc),
            .label = gl, .origin = { d->origin[0], d->origin[1], d->origin[2] }, .cell = d->cell,
            .dims = { (uint32_t)d->dims[0], (uint32_t)d->dims[1], (uint32_t)d->dims[2] }, .max_count = T });
        ok = c->tris.id && c->centroid.id && c->stris.id && c->contact_v.id && c->contact.id && c->start.id &&
             c->tgrid &&
             eddy_buffer_upload(e, c->params, 0, sizeof c->p, &c->p) == EDDY_OK;
    }
    free(tris);
    free(idx);
    free(x);
    return ok;
}

eddy_couple *eddy_couple_create(eddy_engine *e, const eddy_couple_desc *d)
{
    if (!d->boundary_count || d->boundary_count > EDDY_COUPLE_MAX_SETS || !d->boundary) {
        eddy_log(e, EDDY_LOG_ERROR, "system.invalid", "system '%s': %u boundary sets; expected 1 to %u",
                 d->system ? d->system : "fluid", d->boundary_count, EDDY_COUPLE_MAX_SETS);
        return NULL;
    }
    eddy_couple *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    snprintf(c->name, sizeof c->name, "%s", d->system ? d->system : "fluid");
    uint64_t nb = 0;
    bool ok = true;
    for (uint32_t k = 0; k < d->boundary_count; k++) {
        eddy_elements el = eddy_particles_elements(e, d->boundary[k], "triangles");
        bool before = d->moved_before >> k & 1u;
        c->sets[k] = (couple_set){ .set = d->boundary[k], .offset = (uint32_t)nb,
                                   .count = eddy_particles_count(e, d->boundary[k]),
                                   .lead = before || d->at_start ? 0.0f : (float)d->dt,
                                   .sheet = d->sheets && el.buffer.id && el.kind == EDDY_TRIANGLES && el.count };
        nb += c->sets[k].count;
        /* The fluid keeps its particles off the sheet where the sheet ends
         * the substep: only known once the sheet's own system has stepped. */
        if (c->sets[k].sheet && (d->moved_after >> k & 1u)) {
            eddy_log(e, EDDY_LOG_ERROR, "system.invalid", "system '%s': the cloth '%s' in its boundary slot is moved "
                     "by a system listed after it; expected that system before '%s' in \"systems\" (a sheet steps "
                     "first, then the fluid is kept off where it ends the substep)", c->name,
                     eddy_particles_name(e, d->boundary[k]), c->name);
            ok = false;
        }
    }
    c->set_count = d->boundary_count;
    c->added_mass = d->added_mass;
    ok = ok && nb <= UINT32_MAX / 16;
    if (nb > UINT32_MAX / 16)
        eddy_log(e, EDDY_LOG_ERROR, "system.too_large", "system '%s': %llu boundary particles; expected at most %u",
                 c->name, (unsigned long long)nb, UINT32_MAX / 16);
    c->nb = ok ? (uint32_t)nb : 0;
    struct eddy_couple_params *p = &c->p;
    for (int a = 0; a < 3; a++) {
        p->grid[a] = d->origin[a];
        p->dims[a] = d->dims[a];
    }
    p->grid[3] = 1.0f / d->cell;
    p->dims[3] = (int32_t)c->nb;
    p->misc[0] = d->h;
    p->misc[1] = (float)d->dt;
    p->misc[2] = eddy_couple_mass_weight(d->iterations ? d->iterations : 4);
    p->misc[3] = d->at_start ? 0.0f : (float)d->dt;
    p->fluid[0] = d->stiffness;
    p->fluid[1] = d->rest_density;
    p->fluid[2] = d->sph_muller ? 1.0f : 0.0f;
    p->fluid[3] = (d->sph_clamp_negative ? 1.0f : 0.0f) + (d->sph_tait ? 2.0f : 0.0f) +
                  (d->sph_iisph ? 4.0f : 0.0f);
    for (int a = 0; a < 3; a++)
        p->gravity[a] = d->gravity[a];
    p->counts[0] = c->nb;
    float *vol = ok ? malloc(4ull * c->nb + 4) : NULL;
    ok = ok && vol;
    for (uint32_t k = 0; ok && k < c->set_count; k++)
        ok = add_set(e, c, &c->sets[k], vol);
    /* Sized for the sets' capacities: over MPI ranks their counts change
     * (eddy_couple_set_counts). */
    uint64_t cap = 0;
    for (uint32_t k = 0; k < c->set_count; k++)
        cap += eddy_particles_capacity(e, c->sets[k].set);
    ok = ok && cap <= UINT32_MAX / 16;
    c->nb_cap = ok ? (uint32_t)cap : 0;
    if (ok) {
        uint64_t n = c->nb_cap;
        c->params = scratch(e, c, "params", sizeof *p, p);
        c->predicted = scratch(e, c, "predicted", 16 * n, NULL);
        c->weight = scratch(e, c, "inverse_mass", 4 * n, NULL);
        c->sorted = scratch(e, c, "sorted", 16 * n, NULL);
        c->sorted_w = scratch(e, c, "sorted.inverse_mass", 4 * n, NULL);
        c->bvel = scratch(e, c, "velocity", 16 * n, NULL);
        if (d->sph_iisph)
            c->sorted_v = scratch(e, c, "sorted.velocity", 16 * n, NULL);
        c->force = scratch(e, c, "sorted.force", 16 * n, NULL);
        /* One plain set takes the scatter into its slice directly. */
        bool combined = c->set_count > 1 || c->sets[0].sheet;
        if (combined)
            c->unsorted_force = scratch(e, c, "force", 16 * n, NULL);
        ok = c->params.id && c->predicted.id && c->weight.id && c->sorted.id && c->sorted_w.id &&
             c->bvel.id && (!d->sph_iisph || c->sorted_v.id) &&
             c->force.id && (!combined || c->unsorted_force.id);
    }
    ok = ok && add_sheets(e, c, d, vol);
    free(vol);
    if (ok) {
        char gl[160];
        snprintf(gl, sizeof gl, "%s.couple.grid", c->name);
        c->grid = eddy_create_grid(e, &(eddy_grid_desc){ EDDY_SIZED(eddy_grid_desc),
            .label = gl, .origin = { d->origin[0], d->origin[1], d->origin[2] }, .cell = d->cell,
            .dims = { (uint32_t)d->dims[0], (uint32_t)d->dims[1], (uint32_t)d->dims[2] },
            .max_count = c->nb_cap ? c->nb_cap : 1 });
        ok = c->grid != NULL;
    }
    const struct { const uint32_t *spv; size_t size; const char *label; } ks[K_COUNT] = {
        { begin_spv, sizeof begin_spv, "couple.begin" }, { pbf_spv, sizeof pbf_spv, "couple.pbf" },
        { sph_spv, sizeof sph_spv, "couple.sph" }, { end_spv, sizeof end_spv, "couple.end" },
        { sheet_begin_spv, sizeof sheet_begin_spv, "couple.sheet_begin" },
        { sheet_spv, sizeof sheet_spv, "couple.sheet" },
        { sheet_force_spv, sizeof sheet_force_spv, "couple.sheet_force" },
        { sheet_apply_spv, sizeof sheet_apply_spv, "couple.sheet_apply" },
    };
    for (int i = 0; ok && i < K_COUNT; i++) {
        if ((i == K_END && !c->unsorted_force.id) || (i >= K_SHEET_BEGIN && !c->p.counts[1]))
            continue;
        c->k[i] = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = ks[i].label, .spirv = ks[i].spv, .spirv_size = ks[i].size });
        ok = c->k[i].id != 0;
    }
    if (!ok) {
        eddy_couple_destroy(e, c);
        return NULL;
    }
    return c;
}

eddy_result eddy_couple_set_counts(eddy_engine *e, eddy_couple *c, uint32_t fluid_count)
{
    if (c->p.counts[1] && fluid_count > c->fluid_cap)
        return EDDY_ERROR_INVALID_ARGUMENT;
    if (c->p.counts[1])
        c->fluid_count = fluid_count;
    uint32_t nb = 0;
    for (uint32_t k = 0; k < c->set_count; k++) {
        c->sets[k].offset = nb;
        c->sets[k].count = eddy_particles_count(e, c->sets[k].set);
        nb += c->sets[k].count;
    }
    if (nb > c->nb_cap)
        return EDDY_ERROR_INVALID_ARGUMENT;
    c->nb = nb;
    c->p.dims[3] = (int32_t)nb;
    c->p.counts[0] = nb;
    return eddy_buffer_upload(e, c->params, 0, sizeof c->p, &c->p);
}

uint64_t eddy_couple_slot_particles(eddy_engine *e, const eddy_slot_sets *slot)
{
    uint64_t n = 0;
    for (uint32_t k = 0; k < slot->count; k++)
        n += eddy_particles_count(e, slot->sets[k]);
    return n;
}

eddy_couple_bindings eddy_couple_get_bindings(const eddy_couple *c)
{
    eddy_grid_buffers gb = eddy_grid_get_buffers(c->grid);
    return (eddy_couple_bindings){ c->params, c->sorted, gb.cell_start, gb.cell_end, c->sorted_w, c->sorted_v };
}

/* A pass over one set's particles: its slice (offset, count) and, for
 * couple.begin (lead), its lead as the push constants; nothing for an
 * empty set. */
static eddy_result set_pass(eddy_engine *e, eddy_graph g, const couple_set *cs, bool lead, eddy_pass_desc desc)
{
    if (!cs->count)
        return EDDY_OK;
    uint32_t push[3] = { cs->offset, cs->count, 0 };
    memcpy(&push[2], &cs->lead, 4);
    desc.threads = cs->count;
    desc.push = push;
    desc.push_size = lead ? 12 : 8;
    return eddy_graph_add_pass(e, g, &desc) < 0 ? EDDY_ERROR_INVALID_ARGUMENT : EDDY_OK;
}

eddy_result eddy_couple_record_begin(eddy_engine *e, eddy_couple *c, eddy_graph g)
{
    for (uint32_t k = 0; k < c->set_count; k++) {
        const couple_set *cs = &c->sets[k];
        eddy_result r = set_pass(e, g, cs, true, (eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "couple.begin", .kernel = c->k[K_BEGIN],
            .bindings = { { c->params, EDDY_READ }, { cs->position, EDDY_READ }, { cs->velocity, EDDY_READ },
                          { cs->inverse_mass, EDDY_READ }, { c->predicted, EDDY_WRITE }, { c->weight, EDDY_WRITE },
                          { c->force, EDDY_WRITE }, { c->bvel, EDDY_WRITE } } });
        if (r != EDDY_OK)
            return r;
    }
    if (!c->nb)
        return EDDY_OK;
    eddy_result r = eddy_grid_record_build(e, c->grid, g, c->predicted, c->nb);
    if (r == EDDY_OK)
        r = eddy_grid_record_gather(e, c->grid, g, c->predicted, c->sorted, 4, c->nb);
    if (r == EDDY_OK)
        r = eddy_grid_record_gather(e, c->grid, g, c->weight, c->sorted_w, 1, c->nb);
    if (r == EDDY_OK && c->sorted_v.id)
        r = eddy_grid_record_gather(e, c->grid, g, c->bvel, c->sorted_v, 4, c->nb);
    uint32_t T = c->p.counts[1];
    if (r != EDDY_OK || !T)
        return r;
    int rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "couple.sheet_begin", .kernel = c->k[K_SHEET_BEGIN], .threads = T,
        .bindings = { { c->params, EDDY_READ }, { c->tris, EDDY_READ }, { c->predicted, EDDY_READ },
                      { c->centroid, EDDY_WRITE } } });
    r = rc < 0 ? EDDY_ERROR_INVALID_ARGUMENT : eddy_grid_record_build(e, c->tgrid, g, c->centroid, T);
    if (r == EDDY_OK)
        r = eddy_grid_record_gather(e, c->tgrid, g, c->tris, c->stris, 4, T);
    return r;
}

eddy_result eddy_couple_record_sheet(eddy_engine *e, eddy_couple *c, eddy_graph g, eddy_buffer sp,
                                     eddy_buffer sold, eddy_buffer smass, eddy_buffer cell_start,
                                     eddy_buffer cell_end)
{
    if (!c->p.counts[1] || !c->fluid_count)
        return EDDY_OK;
    eddy_grid_buffers tg = eddy_grid_get_buffers(c->tgrid), bg = eddy_grid_get_buffers(c->grid);
    uint32_t push = c->fluid_count;
    int rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "couple.sheet", .kernel = c->k[K_SHEET], .threads = c->fluid_count, .push = &push,
        .push_size = sizeof push,
        .bindings = { { c->params, EDDY_READ }, { sp, EDDY_READ_WRITE }, { sold, EDDY_READ }, { smass, EDDY_READ },
                      { c->stris, EDDY_READ }, { tg.cell_start, EDDY_READ }, { tg.cell_end, EDDY_READ },
                      { c->start, EDDY_READ }, { c->predicted, EDDY_READ }, { c->contact_v, EDDY_WRITE },
                      { c->contact, EDDY_WRITE }, { c->weight, EDDY_READ } } });
    if (rc >= 0)
        rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "couple.sheet_force", .kernel = c->k[K_SHEET_FORCE], .threads = c->nb,
            .bindings = { { c->params, EDDY_READ }, { c->sorted, EDDY_READ }, { bg.sorted_index, EDDY_READ },
                          { cell_start, EDDY_READ }, { cell_end, EDDY_READ }, { c->contact_v, EDDY_READ },
                          { c->contact, EDDY_READ }, { c->force, EDDY_READ_WRITE } } });
    return rc < 0 ? EDDY_ERROR_INVALID_ARGUMENT : EDDY_OK;
}

int eddy_couple_record_pbf(eddy_engine *e, eddy_couple *c, eddy_graph g, eddy_buffer sp,
                           eddy_buffer smass, eddy_buffer lambda, eddy_buffer cell_start,
                           eddy_buffer cell_end)
{
    return eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "couple.pbf", .kernel = c->k[K_PBF], .threads = c->nb,
        .bindings = { { c->params, EDDY_READ }, { c->sorted, EDDY_READ }, { sp, EDDY_READ },
                      { smass, EDDY_READ }, { lambda, EDDY_READ }, { cell_start, EDDY_READ },
                      { cell_end, EDDY_READ }, { c->force, EDDY_READ_WRITE } } });
}

int eddy_couple_record_sph(eddy_engine *e, eddy_couple *c, eddy_graph g, eddy_buffer spm,
                           eddy_buffer svr, eddy_buffer cell_start, eddy_buffer cell_end,
                           eddy_buffer pressure)
{
    /* Without IISPH the shader reads no pressure buffer: its binding takes
     * the density buffer, read anyway. */
    if (!((uint32_t)c->p.fluid[3] & 4u))
        pressure = svr;
    return eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "couple.sph", .kernel = c->k[K_SPH], .threads = c->nb,
        .bindings = { { c->params, EDDY_READ }, { c->sorted, EDDY_READ }, { spm, EDDY_READ },
                      { svr, EDDY_READ }, { cell_start, EDDY_READ }, { cell_end, EDDY_READ },
                      { c->force, EDDY_READ_WRITE }, { pressure, EDDY_READ } } });
}

/* The combined force back in the sets' order (w is 0: couple.pbf writes
 * xyz only), and each plain set's slice from it; one plain set's straight
 * into its slice. The sheets' impulses are applied after (sheet_applies). */
static eddy_result record_scatter(eddy_engine *e, eddy_couple *c, eddy_graph g)
{
    if (!c->unsorted_force.id)
        return eddy_grid_record_scatter(e, c->grid, g, c->force, c->sets[0].external, 4, c->nb);
    eddy_result r = eddy_grid_record_scatter(e, c->grid, g, c->force, c->unsorted_force, 4, c->nb);
    for (uint32_t k = 0; r == EDDY_OK && k < c->set_count; k++) {
        const couple_set *cs = &c->sets[k];
        if (!cs->sheet)
            r = set_pass(e, g, cs, false, (eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
                .label = "couple.end", .kernel = c->k[K_END],
                .bindings = { { c->unsorted_force, EDDY_READ }, { cs->external, EDDY_WRITE } } });
    }
    return r;
}

static eddy_result sheet_applies(eddy_engine *e, eddy_couple *c, eddy_graph g)
{
    eddy_result r = EDDY_OK;
    for (uint32_t k = 0; r == EDDY_OK && k < c->set_count; k++) {
        const couple_set *cs = &c->sets[k];
        if (cs->sheet)
            r = set_pass(e, g, cs, false, (eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
                .label = "couple.sheet_apply", .kernel = c->k[K_SHEET_APPLY],
                .bindings = { { c->params, EDDY_READ }, { c->unsorted_force, EDDY_READ },
                              { cs->inverse_mass, EDDY_READ }, { cs->position, EDDY_READ },
                              { cs->velocity, EDDY_READ_WRITE }, { c->start, EDDY_WRITE } } });
    }
    return r;
}

/* Over MPI ranks a sheet set is whole on every rank, and the force on a
 * vertex is right only on the rank owning its cell (there the fluid holds
 * every particle near it): its rows of the combined force are gathered
 * from there, in place, before the impulses, so every rank moves the
 * cloth alike. The next part's graph is parts->graph. */
static eddy_result gather_sheets(eddy_couple *c, eddy_step_parts *parts)
{
    eddy_result r = EDDY_OK;
    for (uint32_t k = 0; r == EDDY_OK && k < c->set_count; k++) {
        const couple_set *cs = &c->sets[k];
        if (cs->sheet)
            r = parts->sync(parts, &(eddy_sync_desc){ EDDY_SIZED(eddy_sync_desc), .gather = { c->unsorted_force },
                                                      .full = { c->unsorted_force }, .gather_bytes = { 16 },
                                                      .gather_count = 1, .gather_set = cs->set,
                                                      .gather_first = cs->offset });
    }
    return r;
}

eddy_result eddy_couple_record_end(eddy_engine *e, eddy_couple *c, eddy_graph g, eddy_step_parts *parts)
{
    if (!c->nb)
        return EDDY_OK;
    eddy_result r = record_scatter(e, c, g);
    if (r == EDDY_OK && parts && c->p.counts[1] && (r = gather_sheets(c, parts)) == EDDY_OK)
        g = parts->graph;
    return r == EDDY_OK ? sheet_applies(e, c, g) : r;
}

eddy_result eddy_couple_record_idle(eddy_engine *e, eddy_couple *c, eddy_graph g, eddy_step_parts *parts)
{
    for (uint32_t k = 0; k < c->set_count; k++) {
        const couple_set *cs = &c->sets[k];
        if (!cs->sheet && cs->count &&
            (cs->count > UINT32_MAX / 4 || eddy_fill_record(e, g, cs->external, 0, 4 * cs->count, 0) != EDDY_OK))
            return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (!c->p.counts[1] || !c->nb)
        return EDDY_OK;
    /* The sheets' vertices feel nothing from here, and every rank moves
     * them alike: the same gathers and impulses as with fluid. */
    if (c->nb > UINT32_MAX / 4 || eddy_fill_record(e, g, c->unsorted_force, 0, 4 * c->nb, 0) != EDDY_OK)
        return EDDY_ERROR_INVALID_ARGUMENT;
    eddy_result r = parts ? gather_sheets(c, parts) : EDDY_OK;
    return r == EDDY_OK ? sheet_applies(e, c, parts ? parts->graph : g) : r;
}

const char *eddy_couple_dist_refusal(eddy_engine *e, const eddy_couple *c)
{
    /* The triangles name their vertices by place in the combined arrays:
     * that place must not move as the split sets before it change their
     * counts on a rank. */
    bool split = false;
    for (uint32_t k = 0; k < c->set_count; k++) {
        if (c->sets[k].sheet && split)
            return "a cloth (sheet) after a boundary set without elements; list the cloths first in its "
                   "\"boundary\" slot";
        split = split || !eddy_particles_elements_name(e, c->sets[k].set, 0);
    }
    return NULL;
}

/* ------------------------------------------------------------ C twins */

void eddy_couple_boundary_cpu(const struct eddy_couple_params *p, uint32_t nb,
                              const float *boundary, const float *inverse_mass, const float *x,
                              float *w, float g[3], float gw[3], const float accel[3], float lever[3])
{
    float h = p->misc[0];
    *w = 0;
    g[0] = g[1] = g[2] = 0;
    if (gw)
        gw[0] = gw[1] = gw[2] = 0;
    if (lever)
        lever[0] = lever[1] = lever[2] = 0;
    for (uint32_t b = 0; b < nb; b++) {
        const float *xb = boundary + 4 * b;
        float r[3] = { x[0] - xb[0], x[1] - xb[1], x[2] - xb[2] };
        float r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
        if (r2 >= h * h)
            continue;
        *w += xb[3] * eddy_w_poly6(r2, h);
        float gs = xb[3] * eddy_grad_spiky(r2, h);
        for (int a = 0; a < 3; a++)
            g[a] += gs * r[a];
        if (gw && inverse_mass)
            for (int a = 0; a < 3; a++)
                gw[a] += sqrtf(p->misc[2] * inverse_mass[b]) * (gs * r[a]);
        if (lever)
            for (int k = 0; k < 3; k++)
                lever[k] -= eddy_cpu_dot3(accel, r) * (gs * r[k]);
    }
}

void eddy_couple_boundary_iisph_cpu(const struct eddy_couple_params *p, uint32_t nb, const float *boundary,
                                    const float *velocity, const float *x, const float vs[3], float gd[3],
                                    float *div)
{
    float h = p->misc[0];
    gd[0] = gd[1] = gd[2] = 0;
    *div = 0;
    for (uint32_t b = 0; b < nb; b++) {
        const float *xb = boundary + 4 * b;
        float r[3] = { x[0] - xb[0], x[1] - xb[1], x[2] - xb[2] };
        float r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
        if (r2 >= h * h)
            continue;
        float gp = xb[3] * eddy_grad_poly6(r2, h), dv[3];
        for (int a = 0; a < 3; a++) {
            gd[a] += gp * r[a];
            dv[a] = vs[a] - (velocity ? velocity[4 * b + a] : 0.0f);
        }
        *div += gp * eddy_cpu_dot3(dv, r);
    }
}

/* force_b += scale V_b sum_i c_i grad W_spiky(x_i - x_b) over the fluid
 * particles within h: both fluids' reaction, c_i per fluid particle. */
static void gather_cpu(float h, uint32_t nb, const float *boundary, uint32_t nf, const float *x,
                       const double *c, double scale, float *force)
{
    for (uint32_t b = 0; b < nb; b++) {
        const float *xb = boundary + 4 * b;
        double f[3] = { 0, 0, 0 };
        for (uint32_t i = 0; i < nf; i++) {
            float r[3] = { x[4 * i] - xb[0], x[4 * i + 1] - xb[1], x[4 * i + 2] - xb[2] };
            float r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
            if (r2 >= h * h)
                continue;
            double s = c[i] * eddy_grad_spiky(r2, h);
            for (int a = 0; a < 3; a++)
                f[a] += s * r[a];
        }
        for (int a = 0; a < 3; a++)
            force[4 * b + a] += (float)(scale * xb[3] * f[a]);
    }
}

void eddy_couple_pbf_cpu(const struct eddy_couple_params *p, uint32_t nb, const float *boundary,
                         uint32_t nf, const float *x, const float *mass, const float *lambda,
                         float *force)
{
    double dt = p->misc[1], *c = malloc(8ull * nf + 8);
    if (!c)
        return;
    for (uint32_t i = 0; i < nf; i++)
        c[i] = (double)mass[i] * lambda[2 * i];
    gather_cpu(p->misc[0], nb, boundary, nf, x, c, -1.0 / (dt * dt), force);
    free(c);
}

void eddy_couple_sph_cpu(const struct eddy_couple_params *p, uint32_t nb, const float *boundary,
                         uint32_t nf, const float *x, const float *mass, const float *density,
                         const float *pressure, float *force)
{
    float k = p->fluid[0], rho0 = p->fluid[1], h = p->misc[0];
    bool symmetric = p->fluid[2] == 0.0f;
    for (uint32_t b = 0; b < nb; b++) {
        const float *xb = boundary + 4 * b;
        float f[3] = { 0, 0, 0 };
        for (uint32_t i = 0; i < nf; i++) {
            float r[3] = { x[4 * i] - xb[0], x[4 * i + 1] - xb[1], x[4 * i + 2] - xb[2] };
            float r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
            if (r2 >= h * h)
                continue;
            float rho = density[i];
            float pi = pressure ? pressure[i]
                                : eddy_sph_pressure(((uint32_t)p->fluid[3] & 2u) != 0, k, rho, rho0,
                                                    ((uint32_t)p->fluid[3] & 1u) != 0);
            float pb = pi * eddy_sph_boundary(symmetric, rho, rho0) -
                       eddy_sph_boundary_lever(symmetric, rho, rho0) * eddy_cpu_dot3(p->gravity, r);
            float s = mass[i] * pb / rho * eddy_grad_spiky(r2, h);
            for (int a = 0; a < 3; a++)
                f[a] += s * r[a];
        }
        for (int a = 0; a < 3; a++)
            force[4 * b + a] += xb[3] * f[a];
    }
}

/* Barycentric weights of p (in the triangle's plane) in a, b, c, as
 * couple_sheet.comp computes them. */
static void barycentric_cpu(const float p[3], const float a[3], const float b[3], const float c[3], float w[3])
{
    float v0[3], v1[3], v2[3];
    for (int k = 0; k < 3; k++)
        v0[k] = b[k] - a[k], v1[k] = c[k] - a[k], v2[k] = p[k] - a[k];
    float d00 = eddy_cpu_dot3(v0, v0), d01 = eddy_cpu_dot3(v0, v1), d11 = eddy_cpu_dot3(v1, v1), d20 = eddy_cpu_dot3(v2, v0), d21 = eddy_cpu_dot3(v2, v1);
    float den = d00 * d11 - d01 * d01;
    float v = (d11 * d20 - d01 * d21) / den, u = (d00 * d21 - d01 * d20) / den;
    w[0] = 1.0f - v - u, w[1] = v, w[2] = u;
}

static void normal_cpu(const float *a, const float *b, const float *c, float n[3], float *len)
{
    float e1[3] = { b[0] - a[0], b[1] - a[1], b[2] - a[2] }, e2[3] = { c[0] - a[0], c[1] - a[1], c[2] - a[2] };
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    *len = sqrtf(eddy_cpu_dot3(n, n));
}

/* couple_sheet.comp push_off: the particle (mass m, at xi) off triangle t
 * by its share towards tau, at least back to the plane; the triangle that
 * moved it most is its contact (best, bw). */
static void push_off_cpu(const eddy_couple_sheets_cpu *s, const uint32_t *t, float m, const float w[3], float side,
                         float s1, const float n1[3], float *xi, float moved[3], float *most, const uint32_t **best,
                         float bw[3])
{
    float tau, wt = 0, wp = 1.0f / m;
    memcpy(&tau, &t[3], 4);
    for (int a = 0; a < 3; a++) {
        float wc = fminf(fmaxf(w[a], 0.0f), 1.0f);
        wt += wc * wc * s->weight[t[a]];
    }
    float move = fmaxf((wp / (wp + wt)) * (tau - side * s1), -side * s1 * (1.0f + 1e-3f));
    float d[3] = { side * move * n1[0], side * move * n1[1], side * move * n1[2] };
    for (int a = 0; a < 3; a++)
        xi[a] += d[a], moved[a] += d[a];
    float ld = sqrtf(eddy_cpu_dot3(d, d));
    if (ld > *most) {
        *most = ld;
        *best = t;
        memcpy(bw, w, 12);
    }
}

/* couple_sheet.comp nearest: the point of triangle (a, b, c) nearest to p. */
static void nearest_cpu(const float p[3], const float *a, const float *b, const float *c, float q[3])
{
    float ab[3], ac[3], ap[3], bp[3], cp[3];
    for (int k = 0; k < 3; k++)
        ab[k] = b[k] - a[k], ac[k] = c[k] - a[k], ap[k] = p[k] - a[k], bp[k] = p[k] - b[k], cp[k] = p[k] - c[k];
    float d1 = eddy_cpu_dot3(ab, ap), d2 = eddy_cpu_dot3(ac, ap), d3 = eddy_cpu_dot3(ab, bp), d4 = eddy_cpu_dot3(ac, bp);
    float d5 = eddy_cpu_dot3(ab, cp), d6 = eddy_cpu_dot3(ac, cp);
    float vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
    float u = 0, v = 0; /* q = a + u ab + v ac, or on bc */
    if (d1 <= 0 && d2 <= 0)
        u = 0, v = 0;
    else if (d3 >= 0 && d4 <= d3)
        u = 1, v = 0;
    else if (vc <= 0 && d1 >= 0 && d3 <= 0)
        u = d1 / (d1 - d3), v = 0;
    else if (d6 >= 0 && d5 <= d6)
        u = 0, v = 1;
    else if (vb <= 0 && d2 >= 0 && d6 <= 0)
        u = 0, v = d2 / (d2 - d6);
    else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
        float w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; k++)
            q[k] = b[k] + w * (c[k] - b[k]);
        return;
    } else {
        float den = 1.0f / (va + vb + vc);
        u = vb * den, v = vc * den;
    }
    for (int k = 0; k < 3; k++)
        q[k] = a[k] + ab[k] * u + ac[k] * v;
}

/* couple_sheet.comp nearest_triangle: the sorted position of the triangle
 * in reach nearest to p (from pos: the start or the end positions), or
 * UINT32_MAX; its side (+1, -1, 0 beside the rim) and nearest point. */
static uint32_t nearest_triangle_cpu(const eddy_cpu_grid *g, int D, const eddy_couple_sheets_cpu *s, const float *pos,
                                     const float p[3], float *side, float q_out[3])
{
    int c[3];
    eddy_cpu_grid_cell(g, p, c);
    float best = INFINITY;
    uint32_t found = UINT32_MAX;
    *side = 0;
    memcpy(q_out, p, 12);
    for (int dz = -D; dz <= D; dz++)
        for (int dy = -D; dy <= D; dy++)
            for (int dx = -D; dx <= D; dx++) {
                int q[3] = { c[0] + dx, c[1] + dy, c[2] + dz };
                if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= g->dims[0] || q[1] >= g->dims[1] || q[2] >= g->dims[2])
                    continue;
                uint32_t cell = (uint32_t)q[0] + (uint32_t)g->dims[0] * ((uint32_t)q[1] + (uint32_t)g->dims[1] * (uint32_t)q[2]);
                for (uint32_t k = g->start[cell]; k < g->start[cell + 1]; k++) {
                    const uint32_t *t = s->tris + 4 * g->order[k];
                    const float *a = pos + 4 * t[0], *b = pos + 4 * t[1], *cc = pos + 4 * t[2];
                    float n[3], ln, qq[3], r[3];
                    normal_cpu(a, b, cc, n, &ln);
                    nearest_cpu(p, a, b, cc, qq);
                    for (int k2 = 0; k2 < 3; k2++)
                        r[k2] = p[k2] - qq[k2];
                    float d = eddy_cpu_dot3(r, r);
                    if (!(d < best) || !(ln > 0))
                        continue;
                    best = d;
                    found = k;
                    memcpy(q_out, qq, 12);
                    float along = eddy_cpu_dot3(r, n) / ln;
                    *side = fabsf(along) >= 0.5f * sqrtf(d) ? (along >= 0 ? 1.0f : -1.0f) : 0.0f;
                }
            }
    return found;
}

void eddy_couple_sheet_cpu(const struct eddy_couple_params *p, const eddy_couple_sheets_cpu *s,
                           const float *predicted, uint32_t nf, float *x, const float *x0, const float *mass,
                           float *force)
{
    /* The triangles binned by centroid (where they end the substep) into
     * the fluid's grid, in index order within a cell: the GPU's stable
     * sort. */
    uint32_t T = s->count;
    float *centre = malloc(16ull * T + 16);
    eddy_cpu_grid g = { { p->grid[0], p->grid[1], p->grid[2] }, p->grid[3],
                        { p->dims[0], p->dims[1], p->dims[2] }, 0, NULL, NULL, NULL };
    if (!centre)
        return;
    for (uint32_t t = 0; t < T; t++) {
        const uint32_t *v = s->tris + 4 * t;
        for (int a = 0; a < 3; a++)
            centre[4 * t + a] = (predicted[4 * v[0] + a] + predicted[4 * v[1] + a] + predicted[4 * v[2] + a]) / 3.0f;
        centre[4 * t + 3] = 0;
    }
    if (!eddy_cpu_grid_build(&g, centre, T)) {
        free(centre);
        eddy_cpu_grid_free(&g);
        return;
    }
    int D0 = p->counts[2] ? (int)p->counts[2] : (int)fmax(g.dims[0], fmax(g.dims[1], g.dims[2]));
    float dt = p->misc[1];
    for (uint32_t i = 0; i < nf; i++) {
        float *xi = x + 4 * i, moved[3] = { 0, 0, 0 }, bw[3] = { 0, 0, 0 }, most = -1.0f;
        const uint32_t *best = NULL;
        int c[3];
        /* the reach and the cells the particle moved (couple_sheet.comp) */
        const float *p0i = x0 + 4 * i;
        float mv[3] = { xi[0] - p0i[0], xi[1] - p0i[1], xi[2] - p0i[2] };
        int extra = (int)ceilf(sqrtf(eddy_cpu_dot3(mv, mv)) * p->grid[3]);
        int D = D0 + (extra < 8 ? extra : 8);
        eddy_cpu_grid_cell(&g, xi, c);
        for (int dz = -D; dz <= D; dz++)
            for (int dy = -D; dy <= D; dy++)
                for (int dx = -D; dx <= D; dx++) {
                    int q[3] = { c[0] + dx, c[1] + dy, c[2] + dz };
                    if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= g.dims[0] || q[1] >= g.dims[1] ||
                        q[2] >= g.dims[2])
                        continue;
                    uint32_t cell = (uint32_t)q[0] + (uint32_t)g.dims[0] * ((uint32_t)q[1] + (uint32_t)g.dims[1] *
                                                                                             (uint32_t)q[2]);
                    for (uint32_t k = g.start[cell]; k < g.start[cell + 1]; k++) {
                        const uint32_t *t = s->tris + 4 * g.order[k];
                        float tau, n0[3], n1[3], l0, l1;
                        memcpy(&tau, &t[3], 4);
                        const float *a0 = s->start + 4 * t[0], *b0 = s->start + 4 * t[1], *c0 = s->start + 4 * t[2];
                        const float *a1 = predicted + 4 * t[0], *b1 = predicted + 4 * t[1],
                                    *c1 = predicted + 4 * t[2];
                        normal_cpu(a0, b0, c0, n0, &l0);
                        normal_cpu(a1, b1, c1, n1, &l1);
                        if (!(l0 > 0) || !(l1 > 0))
                            continue;
                        for (int a = 0; a < 3; a++)
                            n0[a] /= l0, n1[a] /= l1;
                        const float *p0 = x0 + 4 * i;
                        float r0[3] = { p0[0] - a0[0], p0[1] - a0[1], p0[2] - a0[2] };
                        float r1[3] = { xi[0] - a1[0], xi[1] - a1[1], xi[2] - a1[2] };
                        float side = eddy_cpu_dot3(r0, n0) >= 0 ? 1.0f : -1.0f, s1 = eddy_cpu_dot3(r1, n1);
                        if (side * s1 >= tau)
                            continue;
                        float foot[3] = { xi[0] - s1 * n1[0], xi[1] - s1 * n1[1], xi[2] - s1 * n1[2] }, w[3];
                        barycentric_cpu(foot, a1, b1, c1, w);
                        if (fminf(w[0], fminf(w[1], w[2])) < -1e-4f)
                            continue;
                        push_off_cpu(s, t, mass[i], w, side, s1, n1, xi, moved, &most, &best, bw);
                    }
                }
        /* The guard (couple_sheet.comp): the nearest point of the sheet's
         * end sees the particle on the side its start's saw it. */
        float side0, side1, q0[3], q1[3];
        uint32_t k0 = nearest_triangle_cpu(&g, D, s, s->start, x0 + 4 * i, &side0, q0);
        for (int pass = 0; pass < 2; pass++) {
            uint32_t k1 = nearest_triangle_cpu(&g, D, s, predicted, xi, &side1, q1);
            if (k0 == UINT32_MAX || k1 == UINT32_MAX || side0 == 0 || side1 != -side0)
                break;
            const uint32_t *t = s->tris + 4 * g.order[k1];
            float n1[3], l1, w[3];
            const float *a1 = predicted + 4 * t[0], *b1 = predicted + 4 * t[1], *c1 = predicted + 4 * t[2];
            normal_cpu(a1, b1, c1, n1, &l1);
            for (int a = 0; a < 3; a++)
                n1[a] /= l1;
            barycentric_cpu(q1, a1, b1, c1, w);
            float r1[3] = { xi[0] - q1[0], xi[1] - q1[1], xi[2] - q1[2] };
            for (int a = 0; a < 3; a++)
                w[a] = fminf(fmaxf(w[a], 0.0f), 1.0f);
            push_off_cpu(s, t, mass[i], w, side0, eddy_cpu_dot3(r1, n1), n1, xi, moved, &most, &best, bw);
        }
        /* couple.sheet_force: the opposite impulse, by barycentric weight. */
        for (int k = 0; best && k < 3; k++)
            for (int a = 0; a < 3; a++)
                force[4 * best[k] + a] -= bw[k] * mass[i] * moved[a] / (dt * dt);
    }
    eddy_cpu_grid_free(&g);
    free(centre);
}

eddy_result eddy_couple_checkpoint(eddy_couple *c, eddy_checkpoint *cp)
{
    if (!c || !c->start.id)
        return EDDY_OK;
    return eddy_checkpoint_buffer(cp, "couple.sheet.start", c->start, EDDY_STATE_F32, 4, "m");
}
