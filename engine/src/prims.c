/* Scan, radix sort, uniform grid and reductions: passes added to graphs.
 * The algorithms and their layouts are described in the shaders (shaders/). */
#include "internal.h"

#include "eddy/eddy_prims.h"

static const uint32_t scan_block_spv[] =
#include "scan_block.spv.inc"
    ;
static const uint32_t scan_block_sg_spv[] =
#include "scan_block_sg.spv.inc"
    ;
static const uint32_t scan_add_spv[] =
#include "scan_add.spv.inc"
    ;
static const uint32_t fill_spv[] =
#include "fill.spv.inc"
    ;
static const uint32_t radix_hist_spv[] =
#include "radix_hist.spv.inc"
    ;
static const uint32_t radix_scatter_spv[] =
#include "radix_scatter.spv.inc"
    ;
static const uint32_t radix_hist_sg_spv[] =
#include "radix_hist_sg.spv.inc"
    ;
static const uint32_t radix_scatter_sg_spv[] =
#include "radix_scatter_sg.spv.inc"
    ;
static const uint32_t grid_cell_spv[] =
#include "grid_cell.spv.inc"
    ;
static const uint32_t grid_range_spv[] =
#include "grid_range.spv.inc"
    ;
static const uint32_t permute_spv[] =
#include "permute.spv.inc"
    ;
static const uint32_t permute4_spv[] =
#include "permute4.spv.inc"
    ;
static const uint32_t reduce_spv[] =
#include "reduce.spv.inc"
    ;
static const uint32_t segreduce_spv[] =
#include "segreduce.spv.inc"
    ;
static const uint32_t segreduce_short_spv[] =
#include "segreduce_short.spv.inc"
    ;

#define BLOCK 1024u       /* elements per workgroup of the scan and reduce kernels */
#define SORT_BLOCK 4096u  /* keys per workgroup of the radix sort kernels */

struct eddy_prims_kernels {
    eddy_kernel scan_block, scan_add, fill, radix_hist, radix_scatter, grid_cell, grid_range,
        permute, permute4, reduce, segreduce, segreduce_short;
};

static struct eddy_prims_kernels *kernels(eddy_engine *e)
{
    if (e->prims)
        return e->prims;
    struct eddy_prims_kernels *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    /* EDDY_NO_SUBGROUP=1 tests the shared-memory variant on devices that have subgroups. */
    const char *no_sg = getenv("EDDY_NO_SUBGROUP");
    bool sg = e->info.subgroup_arithmetic && !(no_sg && *no_sg && strcmp(no_sg, "0"));
#define K(field, arr, wg) \
    k->field = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "eddy." #field, EDDY_SPIRV(arr), .workgroup_size = wg })
    if (sg)
        K(scan_block, scan_block_sg_spv, 0);
    else
        K(scan_block, scan_block_spv, 0);
    K(scan_add, scan_add_spv, 0);
    K(fill, fill_spv, 256);
    if (sg) {
        K(radix_hist, radix_hist_sg_spv, 0);
        K(radix_scatter, radix_scatter_sg_spv, 0);
    } else {
        K(radix_hist, radix_hist_spv, 0);
        K(radix_scatter, radix_scatter_spv, 0);
    }
    K(grid_cell, grid_cell_spv, 256);
    K(grid_range, grid_range_spv, 256);
    K(permute, permute_spv, 256);
    K(permute4, permute4_spv, 256);
    K(reduce, reduce_spv, 0);
    K(segreduce, segreduce_spv, 0);
    K(segreduce_short, segreduce_short_spv, 0);
#undef K
    eddy_kernel *all = (eddy_kernel *)k;
    for (size_t i = 0; i < sizeof *k / sizeof(eddy_kernel); i++)
        if (!all[i].id) {
            for (size_t j = 0; j < sizeof *k / sizeof(eddy_kernel); j++)
                eddy_destroy_kernel(e, all[j]);
            free(k);
            return NULL;
        }
    e->prims = k;
    return k;
}

void eddy_release_prims(eddy_engine *e)
{
    free(e->prims); /* the kernels themselves go with the engine's kernel pool */
    e->prims = NULL;
}

static uint32_t div_up(uint64_t a, uint64_t b)
{
    return (uint32_t)((a + b - 1) / b);
}

/* Workgroups for a grid-stride kernel: enough for one element a thread, at
 * most what the device dispatches in x. */
static uint32_t stride_groups(eddy_engine *e, uint32_t n, uint32_t wg)
{
    uint32_t g = div_up(n, wg);
    uint32_t max = e->info.max_workgroup_count[0];
    return g < 1 ? 1 : g > max ? max : g;
}

static eddy_result add(eddy_engine *e, eddy_graph g, const eddy_pass_desc *d)
{
    int r = eddy_graph_add_pass(e, g, d);
    return r < 0 ? (eddy_result)r : EDDY_OK;
}

static bool check_blocks(eddy_engine *e, const char *what, uint64_t count)
{
    uint64_t max = (uint64_t)BLOCK * e->info.max_workgroup_count[0];
    if (count > max || count > UINT32_MAX) {
        eddy_log(e, EDDY_LOG_ERROR, "dispatch.too_large", "%s: %llu elements exceed the %llu that one dispatch of "
                 "1024-element blocks covers on device '%s' (maxComputeWorkGroupCount %u)",
                 what, (unsigned long long)count, (unsigned long long)max, e->info.name,
                 e->info.max_workgroup_count[0]);
        return false;
    }
    return true;
}

static eddy_buffer scratch_buffer(eddy_engine *e, const char *label, const char *suffix,
                                  uint64_t bytes)
{
    char name[160];
    snprintf(name, sizeof name, "%s.%s", label && *label ? label : "prims", suffix);
    return eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = bytes < 16 ? 16 : bytes, .label = name });
}

eddy_result eddy_fill_record(eddy_engine *e, eddy_graph g, eddy_buffer buf, uint32_t offset,
                             uint32_t count, uint32_t value)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    struct eddy_prims_kernels *k = kernels(e);
    if (!k)
        return EDDY_ERROR_VULKAN;
    if (count == 0)
        return EDDY_OK;
    uint64_t words = eddy_buffer_size(e, buf) / 4;
    if ((uint64_t)offset + count > words) {
        eddy_log(e, EDDY_LOG_ERROR, "prims.invalid", "fill: uints %u .. %llu of a buffer of %llu uints", offset,
                 (unsigned long long)offset + count - 1, (unsigned long long)words);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    struct { uint32_t count, offset, value; } push = { count, offset, value };
    return add(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "eddy.fill", .kernel = k->fill, .groups = { stride_groups(e, count, 256) },
        .bindings = { { buf, EDDY_WRITE } }, .push = &push, .push_size = sizeof push });
}

/* ------------------------------------------------------------------ scan */

struct eddy_scan {
    uint32_t max_count;
    eddy_buffer scratch; /* block totals of every level, one after another */
};

/* Block totals needed below level 0 for n elements. */
static uint64_t scan_scratch(uint64_t n)
{
    uint64_t total = 0;
    while (n > BLOCK) {
        n = div_up(n, BLOCK);
        total += n;
    }
    return total;
}

eddy_scan *eddy_create_scan(eddy_engine *e, const eddy_scan_desc *d)
{
    EDDY_ENGINE_GUARD(e, return NULL);
    EDDY_TAKE_DESC(e, eddy_scan_desc, d, return NULL);
    if (!d || d->max_count == 0) {
        eddy_log(e, EDDY_LOG_ERROR, "prims.invalid", "scan: max_count must be > 0");
        return NULL;
    }
    if (!check_blocks(e, "scan", d->max_count) || !kernels(e))
        return NULL;
    eddy_scan *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->max_count = d->max_count;
    s->scratch = scratch_buffer(e, d->label ? d->label : "scan", "block_sums",
                                scan_scratch(d->max_count) * 4);
    if (!s->scratch.id) {
        free(s);
        return NULL;
    }
    return s;
}

void eddy_destroy_scan(eddy_engine *e, eddy_scan *s)
{
    EDDY_ENGINE_GUARD(e, return);
    if (!s)
        return;
    eddy_destroy_buffer(e, s->scratch);
    free(s);
}

static eddy_result scan_level(eddy_engine *e, eddy_scan *s, eddy_graph g, eddy_buffer in,
                              uint32_t in_off, eddy_buffer out, uint32_t out_off, uint32_t n,
                              bool inclusive, uint32_t scratch_off)
{
    struct eddy_prims_kernels *k = e->prims;
    uint32_t blocks = div_up(n, BLOCK);
    struct { uint32_t count, inclusive, in_offset, out_offset, sums_offset, write_sums; } push = {
        n, inclusive, in_off, out_off, scratch_off, blocks > 1
    };
    eddy_result r = add(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "eddy.scan.block", .kernel = k->scan_block, .groups = { blocks },
        .bindings = { { in, EDDY_READ }, { out, in.id == out.id ? EDDY_READ_WRITE : EDDY_WRITE },
                      /* writeonly in the shader; unwritten with one block */
                      { s->scratch, EDDY_WRITE } },
        .push = &push, .push_size = sizeof push });
    if (r != EDDY_OK || blocks == 1)
        return r;
    /* The block totals, scanned exclusively in place, become each block's offset. */
    r = scan_level(e, s, g, s->scratch, scratch_off, s->scratch, scratch_off, blocks, false,
                   scratch_off + blocks);
    if (r != EDDY_OK)
        return r;
    struct { uint32_t count, offset, sums_offset; } p2 = { n, out_off, scratch_off };
    return add(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "eddy.scan.add", .kernel = k->scan_add, .groups = { blocks },
        .bindings = { { out, EDDY_READ_WRITE }, { s->scratch, EDDY_READ } },
        .push = &p2, .push_size = sizeof p2 });
}

eddy_result eddy_scan_record(eddy_engine *e, eddy_scan *s, eddy_graph g, eddy_buffer in,
                             uint32_t in_offset, eddy_buffer out, uint32_t out_offset,
                             uint32_t count, bool inclusive)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    if (!s || count > s->max_count) {
        eddy_log(e, EDDY_LOG_ERROR, "prims.invalid", "scan: count %u exceeds the scan's max_count %u", count,
                 s ? s->max_count : 0);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (((uint64_t)in_offset + count) * 4 > eddy_buffer_size(e, in) ||
        ((uint64_t)out_offset + count) * 4 > eddy_buffer_size(e, out)) {
        eddy_log(e, EDDY_LOG_ERROR, "prims.invalid", "scan: %u elements from offsets %u / %u do not fit buffers "
                 "'%s' / '%s'", count, in_offset, out_offset, eddy_buffer_label(e, in),
                 eddy_buffer_label(e, out));
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (count == 0)
        return EDDY_OK;
    return scan_level(e, s, g, in, in_offset, out, out_offset, count, inclusive, 0);
}

/* ------------------------------------------------------------------ sort */

struct eddy_sort {
    uint32_t max_count;
    eddy_buffer keys_tmp, values_tmp, hist;
    eddy_scan *scan;
};

eddy_sort *eddy_create_sort(eddy_engine *e, const eddy_sort_desc *d)
{
    EDDY_ENGINE_GUARD(e, return NULL);
    EDDY_TAKE_DESC(e, eddy_sort_desc, d, return NULL);
    if (!d || d->max_count == 0) {
        eddy_log(e, EDDY_LOG_ERROR, "prims.invalid", "sort: max_count must be > 0");
        return NULL;
    }
    if (!check_blocks(e, "sort", d->max_count) || !kernels(e))
        return NULL;
    const char *label = d->label ? d->label : "sort";
    eddy_sort *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->max_count = d->max_count;
    uint32_t hist = 16 * div_up(d->max_count, SORT_BLOCK);
    char sl[128];
    snprintf(sl, sizeof sl, "%s.hist_scan", label);
    s->keys_tmp = scratch_buffer(e, label, "keys_tmp", (uint64_t)d->max_count * 4);
    s->values_tmp = scratch_buffer(e, label, "values_tmp", (uint64_t)d->max_count * 4);
    s->hist = scratch_buffer(e, label, "hist", (uint64_t)hist * 4);
    s->scan = s->hist.id ? eddy_create_scan(e, &(eddy_scan_desc){ EDDY_SIZED(eddy_scan_desc), .label = sl, .max_count = hist })
                         : NULL;
    if (!s->keys_tmp.id || !s->values_tmp.id || !s->scan) {
        eddy_destroy_sort(e, s);
        return NULL;
    }
    return s;
}

void eddy_destroy_sort(eddy_engine *e, eddy_sort *s)
{
    EDDY_ENGINE_GUARD(e, return);
    if (!s)
        return;
    eddy_destroy_buffer(e, s->keys_tmp);
    eddy_destroy_buffer(e, s->values_tmp);
    eddy_destroy_buffer(e, s->hist);
    eddy_destroy_scan(e, s->scan);
    free(s);
}

eddy_result eddy_sort_record(eddy_engine *e, eddy_sort *s, eddy_graph g, eddy_buffer keys,
                             eddy_buffer values, uint32_t count, uint32_t key_bits)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    if (!s || count > s->max_count || key_bits > 32 || keys.id == values.id ||
        (uint64_t)count * 4 > eddy_buffer_size(e, keys) ||
        (uint64_t)count * 4 > eddy_buffer_size(e, values)) {
        eddy_log(e, EDDY_LOG_ERROR, "prims.invalid", "sort: needs count <= max_count (%u > %u?), key_bits <= 32, "
                 "and two different buffers of count uints for keys and values",
                 count, s ? s->max_count : 0);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (count <= 1)
        return EDDY_OK;
    struct eddy_prims_kernels *k = e->prims;
    uint32_t bits = key_bits ? key_bits : 32;
    /* An even number of passes brings the data back into keys/values. */
    uint32_t passes = div_up(bits, 4);
    passes += passes & 1;
    uint32_t blocks = div_up(count, SORT_BLOCK);
    eddy_buffer src_k = keys, src_v = values, dst_k = s->keys_tmp, dst_v = s->values_tmp;
    for (uint32_t p = 0; p < passes; p++) {
        struct { uint32_t count, shift, blocks; } push = { count, 4 * p, blocks };
        eddy_result r = add(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "eddy.sort.histogram", .kernel = k->radix_hist, .groups = { blocks },
            .bindings = { { src_k, EDDY_READ }, { s->hist, EDDY_WRITE } },
            .push = &push, .push_size = sizeof push });
        if (r == EDDY_OK)
            r = eddy_scan_record(e, s->scan, g, s->hist, 0, s->hist, 0, 16 * blocks, false);
        if (r == EDDY_OK)
            r = add(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
                .label = "eddy.sort.scatter", .kernel = k->radix_scatter, .groups = { blocks },
                .bindings = { { src_k, EDDY_READ }, { src_v, EDDY_READ }, { s->hist, EDDY_READ },
                              { dst_k, EDDY_WRITE }, { dst_v, EDDY_WRITE } },
                .push = &push, .push_size = sizeof push });
        if (r != EDDY_OK)
            return r;
        eddy_buffer tk = src_k, tv = src_v;
        src_k = dst_k, src_v = dst_v, dst_k = tk, dst_v = tv;
    }
    return EDDY_OK;
}

/* ------------------------------------------------------------------ grid */

struct eddy_grid {
    eddy_grid_desc desc;
    uint64_t cells;
    uint32_t key_bits;
    eddy_grid_buffers b;
    eddy_sort *sort;
};

eddy_grid *eddy_create_grid(eddy_engine *e, const eddy_grid_desc *d)
{
    EDDY_ENGINE_GUARD(e, return NULL);
    EDDY_TAKE_DESC(e, eddy_grid_desc, d, return NULL);
    const char *label = d && d->label ? d->label : "grid";
    if (!d || !(d->cell > 0) || d->max_count == 0 || !d->dims[0] || !d->dims[1] || !d->dims[2]) {
        eddy_log(e, EDDY_LOG_ERROR, "prims.invalid", "grid '%s': needs cell > 0 (m), dims >= 1 along each axis "
                 "and max_count > 0", label);
        return NULL;
    }
    uint64_t cells = (uint64_t)d->dims[0] * d->dims[1] * d->dims[2];
    if (cells * 4 > e->info.max_storage_buffer_range || cells >= UINT32_MAX) {
        eddy_log(e, EDDY_LOG_ERROR, "grid.too_large", "grid '%s': %u x %u x %u = %llu cells need %llu bytes per "
                 "cell table, over the device's maxStorageBufferRange of %llu bytes (at most "
                 "%llu cells)", label, d->dims[0], d->dims[1], d->dims[2],
                 (unsigned long long)cells, (unsigned long long)cells * 4,
                 (unsigned long long)e->info.max_storage_buffer_range,
                 (unsigned long long)(e->info.max_storage_buffer_range / 4));
        return NULL;
    }
    for (int a = 0; a < 3; a++)
        if ((uint64_t)d->dims[a] > (uint64_t)INT32_MAX) {
            eddy_log(e, EDDY_LOG_ERROR, "prims.invalid", "grid '%s': dims[%d] = %u is too large", label, a,
                     d->dims[a]);
            return NULL;
        }
    if (!kernels(e))
        return NULL;
    eddy_grid *grid = calloc(1, sizeof *grid);
    if (!grid)
        return NULL;
    grid->desc = *d;
    grid->desc.label = NULL;
    grid->cells = cells;
    grid->key_bits = 1;
    while (grid->key_bits < 32 && (1ull << grid->key_bits) < cells)
        grid->key_bits++;
    grid->b.cell_start = scratch_buffer(e, label, "cell_start", cells * 4);
    grid->b.cell_end = scratch_buffer(e, label, "cell_end", cells * 4);
    grid->b.cell_key = scratch_buffer(e, label, "cell_key", (uint64_t)d->max_count * 4);
    grid->b.sorted_index = scratch_buffer(e, label, "sorted_index", (uint64_t)d->max_count * 4);
    grid->b.outside = scratch_buffer(e, label, "outside", 4);
    char sl[128];
    snprintf(sl, sizeof sl, "%s.sort", label);
    grid->sort = eddy_create_sort(e, &(eddy_sort_desc){ EDDY_SIZED(eddy_sort_desc), .label = sl, .max_count = d->max_count });
    if (!grid->b.cell_start.id || !grid->b.cell_end.id || !grid->b.cell_key.id ||
        !grid->b.sorted_index.id || !grid->b.outside.id || !grid->sort) {
        eddy_destroy_grid(e, grid);
        return NULL;
    }
    return grid;
}

void eddy_destroy_grid(eddy_engine *e, eddy_grid *grid)
{
    EDDY_ENGINE_GUARD(e, return);
    if (!grid)
        return;
    eddy_destroy_buffer(e, grid->b.cell_start);
    eddy_destroy_buffer(e, grid->b.cell_end);
    eddy_destroy_buffer(e, grid->b.cell_key);
    eddy_destroy_buffer(e, grid->b.sorted_index);
    eddy_destroy_buffer(e, grid->b.outside);
    eddy_destroy_sort(e, grid->sort);
    free(grid);
}

eddy_grid_buffers eddy_grid_get_buffers(const eddy_grid *grid)
{
    return grid->b;
}

uint64_t eddy_grid_cell_count(const eddy_grid *grid)
{
    return grid->cells;
}

eddy_result eddy_grid_record_build(eddy_engine *e, eddy_grid *grid, eddy_graph g,
                                   eddy_buffer position, uint32_t count)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    if (!grid || count > grid->desc.max_count ||
        (uint64_t)count * 16 > eddy_buffer_size(e, position)) {
        eddy_log(e, EDDY_LOG_ERROR, "prims.invalid", "grid build: %u particles need count <= max_count (%u) and "
                 "a position buffer of 16 bytes each", count, grid ? grid->desc.max_count : 0);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    struct eddy_prims_kernels *k = e->prims;
    const eddy_grid_desc *d = &grid->desc;
    eddy_result r = eddy_fill_record(e, g, grid->b.outside, 0, 1, 0);
    struct {
        float origin_inv_cell[4];
        int32_t dims[4];
        uint32_t count;
    } push = { { d->origin[0], d->origin[1], d->origin[2], 1.0f / d->cell },
               { (int32_t)d->dims[0], (int32_t)d->dims[1], (int32_t)d->dims[2], 0 }, count };
    if (r == EDDY_OK && count)
        r = add(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "eddy.grid.cell", .kernel = k->grid_cell, .groups = { stride_groups(e, count, 256) },
            .bindings = { { position, EDDY_READ }, { grid->b.cell_key, EDDY_WRITE },
                          { grid->b.sorted_index, EDDY_WRITE }, { grid->b.outside, EDDY_ATOMIC } },
            .push = &push, .push_size = sizeof push });
    if (r == EDDY_OK)
        r = eddy_sort_record(e, grid->sort, g, grid->b.cell_key, grid->b.sorted_index, count,
                             grid->key_bits);
    if (r == EDDY_OK)
        r = eddy_fill_record(e, g, grid->b.cell_start, 0, (uint32_t)grid->cells, 0xffffffffu);
    struct { uint32_t count; } p2 = { count };
    if (r == EDDY_OK && count)
        r = add(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "eddy.grid.range", .kernel = k->grid_range, .groups = { stride_groups(e, count, 256) },
            .bindings = { { grid->b.cell_key, EDDY_READ }, { grid->b.cell_start, EDDY_WRITE },
                          { grid->b.cell_end, EDDY_WRITE } },
            .push = &p2, .push_size = sizeof p2 });
    return r;
}

static eddy_result permute(eddy_engine *e, eddy_grid *grid, eddy_graph g, eddy_buffer src,
                           eddy_buffer dst, uint32_t words, uint32_t count, bool scatter)
{
    uint64_t bytes = (uint64_t)count * words * 4;
    if (!grid || count > grid->desc.max_count || words == 0 || src.id == dst.id ||
        bytes > eddy_buffer_size(e, src) || bytes > eddy_buffer_size(e, dst)) {
        eddy_log(e, EDDY_LOG_ERROR, "prims.invalid", "grid %s: needs count <= max_count, words >= 1 and two "
                 "different buffers of count x words uints", scatter ? "scatter" : "gather");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (count == 0)
        return EDDY_OK;
    bool vec4 = words % 4 == 0;
    struct { uint32_t count, words, scatter; } push = { count, vec4 ? words / 4 : words, scatter };
    return add(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = scatter ? "eddy.grid.scatter" : "eddy.grid.gather",
        .kernel = vec4 ? e->prims->permute4 : e->prims->permute,
        .groups = { stride_groups(e, count, 256) },
        .bindings = { { grid->b.sorted_index, EDDY_READ }, { src, EDDY_READ }, { dst, EDDY_WRITE } },
        .push = &push, .push_size = sizeof push });
}

eddy_result eddy_grid_record_gather(eddy_engine *e, eddy_grid *grid, eddy_graph g,
                                    eddy_buffer src, eddy_buffer dst, uint32_t words,
                                    uint32_t count)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    return permute(e, grid, g, src, dst, words, count, false);
}

eddy_result eddy_grid_record_scatter(eddy_engine *e, eddy_grid *grid, eddy_graph g,
                                     eddy_buffer src, eddy_buffer dst, uint32_t words,
                                     uint32_t count)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    return permute(e, grid, g, src, dst, words, count, true);
}

/* ------------------------------------------------------------------ reductions */

struct eddy_reduce {
    uint32_t max_count;
    eddy_buffer partials; /* vec4 per block of every level */
};

eddy_reduce *eddy_create_reduce(eddy_engine *e, const eddy_reduce_desc *d)
{
    EDDY_ENGINE_GUARD(e, return NULL);
    EDDY_TAKE_DESC(e, eddy_reduce_desc, d, return NULL);
    if (!d || d->max_count == 0) {
        eddy_log(e, EDDY_LOG_ERROR, "prims.invalid", "reduce: max_count must be > 0");
        return NULL;
    }
    if (!check_blocks(e, "reduce", d->max_count) || !kernels(e))
        return NULL;
    eddy_reduce *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->max_count = d->max_count;
    r->partials = scratch_buffer(e, d->label ? d->label : "reduce", "partials",
                                 (scan_scratch(d->max_count) + 1) * 16);
    if (!r->partials.id) {
        free(r);
        return NULL;
    }
    return r;
}

void eddy_destroy_reduce(eddy_engine *e, eddy_reduce *r)
{
    EDDY_ENGINE_GUARD(e, return);
    if (!r)
        return;
    eddy_destroy_buffer(e, r->partials);
    free(r);
}

eddy_result eddy_reduce_record(eddy_engine *e, eddy_reduce *red, eddy_graph g, eddy_buffer in,
                               uint32_t count, uint32_t stride, uint32_t comps,
                               eddy_reduce_op op, eddy_buffer out, uint32_t out_index)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    if (!red || count > red->max_count || comps < 1 || comps > 4 || stride < comps ||
        op > EDDY_REDUCE_MAX || ((uint64_t)out_index + 1) * 16 > eddy_buffer_size(e, out) ||
        (count && ((uint64_t)(count - 1) * stride + comps) * 4 > eddy_buffer_size(e, in))) {
        eddy_log(e, EDDY_LOG_ERROR, "prims.invalid", "reduce: needs count <= max_count, 1 <= comps <= 4, "
                 "stride >= comps, an input of count x stride floats and room for a vec4 at "
                 "out[%u]", out_index);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    struct eddy_prims_kernels *k = e->prims;
    eddy_buffer src = in;
    uint32_t n = count, src_off = 0, level_off = 0, st = stride, cp = comps;
    for (;;) {
        uint32_t blocks = n ? div_up(n, BLOCK) : 1;
        bool last = blocks == 1;
        struct { uint32_t count, stride, comps, op, in_offset, out_offset; } push = {
            n, st, cp, (uint32_t)op, src_off, last ? out_index : level_off
        };
        eddy_buffer dst = last ? out : red->partials;
        eddy_result r = add(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "eddy.reduce", .kernel = k->reduce, .groups = { blocks },
            .bindings = { { src, src.id == dst.id ? EDDY_READ_WRITE : EDDY_READ },
                          { dst, src.id == dst.id ? EDDY_READ_WRITE : EDDY_WRITE } },
            .push = &push, .push_size = sizeof push });
        if (r != EDDY_OK || last)
            return r;
        src = red->partials;
        src_off = level_off * 4;
        level_off += blocks;
        n = blocks;
        st = cp = 4;
    }
}

eddy_result eddy_segmented_reduce_record(eddy_engine *e, eddy_graph g, eddy_buffer in,
                                         uint32_t stride, uint32_t comps, eddy_buffer offsets,
                                         uint32_t segments, uint32_t elements, eddy_reduce_op op,
                                         eddy_buffer out)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    struct eddy_prims_kernels *k = kernels(e);
    if (!k)
        return EDDY_ERROR_VULKAN;
    if (comps < 1 || comps > 4 || stride < comps || op > EDDY_REDUCE_MAX ||
        ((uint64_t)segments + 1) * 4 > eddy_buffer_size(e, offsets) ||
        (uint64_t)segments * 16 > eddy_buffer_size(e, out)) {
        eddy_log(e, EDDY_LOG_ERROR, "prims.invalid", "segmented reduce: needs 1 <= comps <= 4, stride >= comps, "
                 "segments + 1 offsets and room for segments vec4 results");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (segments == 0)
        return EDDY_OK;
    struct { uint32_t segments, stride, comps, op; } push = { segments, stride, comps, (uint32_t)op };
    /* Short segments on average: a thread each, in order; else a workgroup
     * each, in its tree order. Both fixed: the same bits every run. */
    if (elements < 32ull * segments)
        return add(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "eddy.segmented_reduce", .kernel = k->segreduce_short,
            .groups = { (segments + 63) / 64, 1, 1 },
            .bindings = { { in, EDDY_READ }, { offsets, EDDY_READ }, { out, EDDY_WRITE } },
            .push = &push, .push_size = sizeof push });
    return add(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "eddy.segmented_reduce", .kernel = k->segreduce,
        .groups = { stride_groups(e, segments, 1) },
        .bindings = { { in, EDDY_READ }, { offsets, EDDY_READ }, { out, EDDY_WRITE } },
        .push = &push, .push_size = sizeof push });
}
