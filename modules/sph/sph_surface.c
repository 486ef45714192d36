/* sph: the fluid's iso-surface (surface_mesh, surface_live; README.md). */
#include "sph_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const uint32_t field_spv[] =
#include "sph_field.spv.inc"
    ;
static const uint32_t mt_count_spv[] =
#include "sph_mt_count.spv.inc"
    ;
static const uint32_t mt_emit_spv[] =
#include "sph_mt_emit.spv.inc"
    ;
static const uint32_t mt_draw_spv[] =
#include "sph_mt_draw.spv.inc"
    ;

/* The surface grid covers the box and one cell beyond it, where the colour
 * field is zero, so the iso-surface closes even where fluid touches a wall. */
eddy_result sph_create_surface(sph *s, const eddy_system_ctx *ctx, double h, double cell,
                                  double iso)
{
    eddy_engine *e = s->e;
    if (cell <= 0)
        cell = h / 2;
    uint64_t nv = 1;
    for (int a = 0; a < 3; a++) {
        double n = ceil((ctx->box_max[a] - ctx->box_min[a]) / cell) + 3;
        s->vgrid.origin_cell[a] = (float)(ctx->box_min[a] - cell);
        s->vgrid.dims[a] = (int32_t)n;
        nv *= (uint64_t)n;
    }
    s->vgrid.origin_cell[3] = (float)cell;
    s->vgrid.iso = (float)iso;
    if (nv * 4 > eddy_engine_device(e)->max_storage_buffer_range || nv > (1u << 26)) {
        eddy_log(e, EDDY_LOG_ERROR, "system.too_large", "system '%s': the surface grid of %llu vertices (spacing "
                 "%g m over the box) is too large; raise params.surface_cell", ctx->name,
                 (unsigned long long)nv, cell);
        return EDDY_ERROR_LIMIT;
    }
    s->cells = (uint32_t)((s->vgrid.dims[0] - 1) * (s->vgrid.dims[1] - 1) * (s->vgrid.dims[2] - 1));
    s->surface = true;
    s->field = sph_scratch(s, ctx->name, "surface.field", 4 * nv);
    s->counts = sph_scratch(s, ctx->name, "surface.counts", 4ull * s->cells);
    s->offsets = sph_scratch(s, ctx->name, "surface.offsets", 4ull * s->cells);
    s->scan = eddy_create_scan(e, &(eddy_scan_desc){ EDDY_SIZED(eddy_scan_desc), .label = "sph.surface", .max_count = s->cells });
    s->k_field = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "sph.surface.field", EDDY_SPIRV(field_spv) });
    s->k_count = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "sph.surface.count", EDDY_SPIRV(mt_count_spv) });
    s->k_emit = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "sph.surface.emit", EDDY_SPIRV(mt_emit_spv) });
    if (!s->field.id || !s->counts.id || !s->offsets.id || !s->scan || !s->k_field.id ||
        !s->k_count.id || !s->k_emit.id)
        return EDDY_ERROR_VULKAN;
    s->field_vertices = (uint32_t)nv;
    s->g_field = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "sph.surface" });
    return s->g_field.id ? sph_record_field(s, s->g_field) : EDDY_ERROR_VULKAN;
}

/* The colour field on the surface grid, its cubes' triangle counts and
 * their scan. It rebuilds the grid from the current positions, so the
 * surface belongs to the frame's particles, not to the last substep's start. */
eddy_result sph_record_field(sph *s, eddy_graph g)
{
    eddy_engine *e = s->e;
    eddy_grid_buffers gb = eddy_grid_get_buffers(s->grid);
    eddy_result r = sph_record_density(s, g);
    if (r != EDDY_OK)
        return r;
    int rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "sph.surface.field", .kernel = s->k_field, .threads = s->field_vertices,
            .bindings = { { s->params, EDDY_READ }, { s->spos, EDDY_READ }, { s->smass, EDDY_READ },
                          { s->sdensity, EDDY_READ }, { gb.cell_start, EDDY_READ },
                          { gb.cell_end, EDDY_READ }, { s->field, EDDY_WRITE } },
            .push = &s->vgrid, .push_size = sizeof s->vgrid });
    if (rc >= 0)
        rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "sph.surface.count", .kernel = s->k_count, .threads = s->cells,
            .bindings = { { s->field, EDDY_READ }, { s->counts, EDDY_WRITE } },
            .push = &s->vgrid, .push_size = sizeof s->vgrid });
    if (rc < 0)
        return (eddy_result)rc;
    return eddy_scan_record(e, s->scan, g, s->counts, 0, s->offsets, 0, s->cells, false);
}

/* surface_live: the particle set "<set>.surface" (three vertices a
 * triangle, at most live_max triangles), its element set "triangles"
 * (indices 0, 1, 2, ...) and the kernels that fill them every substep. */
eddy_result sph_create_live(sph *s, const eddy_system_ctx *ctx, double max_triangles)
{
    eddy_engine *e = s->e;
    uint64_t max = max_triangles > 0 ? (uint64_t)max_triangles : 8ull * s->n + 1024;
    const char *set = eddy_particles_name(e, ctx->particles);
    char name[96];
    int len = snprintf(name, sizeof name, "%s.surface", set);
    if (len < 0 || len > 63 || 3 * max > UINT32_MAX / 4) {
        eddy_log(e, EDDY_LOG_ERROR, "system.invalid", "system '%s': surface_live needs the set name '%s' at most 55 "
                 "characters and at most %u triangles (surface_max_triangles)", ctx->name, set, UINT32_MAX / 12);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    uint32_t vertices = (uint32_t)(3 * max);
    uint32_t *index = malloc(4ull * vertices);
    if (!index) {
        eddy_log(e, EDDY_LOG_ERROR, "memory.host", "system '%s': out of host memory for %u surface indices",
                 ctx->name, vertices);
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < vertices; i++)
        index[i] = i;
    s->live = true;
    s->live_max = (uint32_t)max;
    s->live_set = eddy_create_particles(e, &(eddy_particles_desc){ EDDY_SIZED(eddy_particles_desc), .name = name, .count = vertices });
    eddy_elements el = s->live_set.id ? eddy_particles_add_elements(e, s->live_set, &(eddy_elements_desc){ EDDY_SIZED(eddy_elements_desc),
        .name = "triangles", .kind = EDDY_TRIANGLES, .count = (uint32_t)max, .indices = index }) : (eddy_elements){ 0 };
    free(index);
    eddy_specialization live[2] = { { 1, 1 }, { 2, s->live_max } };
    s->k_emit_live = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "sph.surface.emit_live",
        EDDY_SPIRV(mt_emit_spv), .specialization = { live[0], live[1] }, .specialization_count = 2 });
    s->k_draw = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "sph.surface.draw", EDDY_SPIRV(mt_draw_spv),
        .specialization = { live[1] }, .specialization_count = 1 });
    if (!el.buffer.id)
        return EDDY_ERROR_OUT_OF_MEMORY;
    return s->k_emit_live.id && s->k_draw.id ? EDDY_OK : EDDY_ERROR_VULKAN;
}

/* surface_live, at the end of each substep: the field, the triangles into
 * the set's positions and the draw record. */
eddy_result sph_record_live(sph *s, eddy_graph g)
{
    eddy_engine *e = s->e;
    eddy_result r = sph_record_field(s, g);
    if (r != EDDY_OK)
        return r;
    int rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "sph.surface.emit_live", .kernel = s->k_emit_live, .threads = s->cells,
        .bindings = { { s->field, EDDY_READ }, { s->offsets, EDDY_READ },
                      { eddy_particles_buffer(e, s->live_set, "position"), EDDY_WRITE } },
        .push = &s->vgrid, .push_size = sizeof s->vgrid });
    uint32_t cells = s->cells;
    if (rc >= 0)
        rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "sph.surface.draw", .kernel = s->k_draw, .threads = 1,
            .bindings = { { s->offsets, EDDY_READ }, { s->counts, EDDY_READ },
                          { eddy_particles_elements_draw(e, s->live_set, "triangles"), EDDY_WRITE } },
            .push = &cells, .push_size = sizeof cells });
    return rc < 0 ? (eddy_result)rc : EDDY_OK;
}

