/* Graphs: passes with declared accesses, recorded once, replayed. This file
 * holds a graph's life (creation, destruction, dropping its recording when it
 * changes), eddy_graph_add_pass with its checks of bindings, accesses,
 * images, dispatch sizes and push constants, repeated ranges, and the
 * per-pass profile; graph_record.c plans the barriers, makes the descriptor
 * sets and records, checks and submits the command buffers. */
#include "internal.h"

#include <inttypes.h>

eddy_graph_obj *eddy_graph_get(eddy_engine *e, eddy_graph g)
{
    return eddy_pool_get(&e->graphs, g.id);
}

/* The recording goes once its last use has finished (a graph changed right
 * after eddy_graph_submit may still be running it). */
void eddy_graph_release_recording(eddy_engine *e, eddy_graph_obj *g)
{
    if (g->cb || g->entry_cb || g->exit_cb || g->pool || g->queries)
        eddy_defer(e, &(eddy_deferred){ .use = g->use, .cb = g->cb, .cb2 = g->entry_cb, .cb3 = g->exit_cb,
                                        .pool = g->pool, .queries = g->queries });
    free(g->query_pass);
    g->cb = g->entry_cb = g->exit_cb = VK_NULL_HANDLE;
    g->pool = VK_NULL_HANDLE;
    g->queries = VK_NULL_HANDLE;
    g->query_pass = NULL;
    g->query_count = 0;
    for (uint32_t i = 0; i < g->pass_count; i++)
        g->passes[i].set = VK_NULL_HANDLE;
    g->dirty = true;
}

eddy_graph eddy_create_graph(eddy_engine *e, const eddy_graph_desc *desc)
{
    EDDY_ENGINE_GUARD(e, return (eddy_graph){ 0 });
    /* NULL: the defaults. */
    eddy_graph_desc d = { EDDY_SIZED(eddy_graph_desc) };
    if (desc && eddy_desc_read(e, "eddy_graph_desc", desc, sizeof d, sizeof d, &d) != EDDY_OK)
        return (eddy_graph){ 0 };
    uint32_t id;
    eddy_graph_obj *g = eddy_pool_alloc(&e->graphs, &id);
    if (!g) {
        eddy_log(e, EDDY_LOG_ERROR, "memory.host", "graph: out of host memory");
        return (eddy_graph){ 0 };
    }
    eddy_copy_label(g->label, sizeof g->label, d.label, "graph");
    g->times = d.times ? d.times : 1;
    g->timestamps = d.timestamps && e->timestamp_bits > 0;
    if (d.timestamps && !g->timestamps)
        eddy_log(e, EDDY_LOG_WARN, "profile.unavailable", "graph '%s': the device's compute queue has no timestamps; "
                                   "no profile", g->label);
    g->dirty = true;
    return (eddy_graph){ id };
}

static void free_graph(eddy_engine *e, eddy_graph_obj *g)
{
    eddy_graph_release_recording(e, g);
    free(g->passes);
    free(g->ranges);
    g->slot.live = false;
}

void eddy_destroy_graph(eddy_engine *e, eddy_graph h)
{
    EDDY_ENGINE_GUARD(e, return);
    eddy_graph_obj *g = eddy_graph_get(e, h);
    if (!g)
        return;
    free_graph(e, g);
}

void eddy_destroy_all_graphs(eddy_engine *e)
{
    for (uint32_t i = 0; i < e->graphs.count; i++) {
        eddy_graph_obj *g = (eddy_graph_obj *)(e->graphs.items + (size_t)i * e->graphs.elem_size);
        if (g->slot.live)
            free_graph(e, g);
    }
}

uint32_t eddy_graph_pass_count(eddy_engine *e, eddy_graph h)
{
    EDDY_ENGINE_GUARD(e, return 0);
    eddy_graph_obj *g = eddy_graph_query(e, h, __func__);
    return g ? g->pass_count : 0;
}

/* An image binding i of kernel k: a live image made for that use, of the
 * shader's dimensionality, with an access the shader allows; one image is
 * never sampled and used as storage in one pass (two layouts at once). */
static eddy_result check_image_binding(eddy_engine *e, const eddy_kernel_obj *k, const char *label,
                                       const eddy_image *earlier, uint32_t i, const eddy_image_binding *b)
{
    bool sampled = k->shared->kinds[i] == EDDY_BIND_SAMPLED_IMAGE;
    const char *kind = sampled ? "a combined image sampler" : "a storage image";
    eddy_image_obj *im = eddy_image_get(e, b->image);
    if (!im) {
        eddy_log(e, EDDY_LOG_ERROR, "pass.binding", "pass '%s': binding %u of kernel '%s' is %s but not a live image", label, i,
                 k->label, kind);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (!(im->usage & (sampled ? EDDY_IMAGE_SAMPLED : EDDY_IMAGE_STORAGE))) {
        eddy_log(e, EDDY_LOG_ERROR, "pass.binding", "pass '%s': binding %u of kernel '%s' is %s, but image '%s' was created "
                 "without %s", label, i, k->label, kind, im->label, sampled ? "EDDY_IMAGE_SAMPLED" : "EDDY_IMAGE_STORAGE");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (k->shared->dims[i] != im->dimensions) {
        eddy_log(e, EDDY_LOG_ERROR, "pass.binding", "pass '%s': binding %u of kernel '%s' is %uD but image '%s' is %uD", label, i,
                 k->label, k->shared->dims[i], im->label, im->dimensions);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (sampled ? b->access != EDDY_SAMPLE : (b->access < EDDY_READ || b->access > EDDY_READ_WRITE)) {
        eddy_log(e, EDDY_LOG_ERROR, "pass.access", "pass '%s': binding %u of kernel '%s' is %s: declare %s", label, i, k->label,
                 kind, sampled ? "EDDY_SAMPLE" : "EDDY_READ, EDDY_WRITE or EDDY_READ_WRITE");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    bool nw = k->shared->no_write >> i & 1, nr = k->shared->no_read >> i & 1;
    if (!sampled && ((b->access == EDDY_READ && !nw) || (b->access == EDDY_WRITE && !nr))) {
        eddy_log(e, EDDY_LOG_ERROR, "pass.access", "pass '%s': binding %u of kernel '%s' (image '%s') is declared %s", label, i,
                 k->label, im->label,
                 b->access == EDDY_READ
                     ? "EDDY_READ, but the shader may write it (the image is not `readonly`: no NonWritable in "
                       "the SPIR-V); declare EDDY_READ_WRITE, or make the image readonly"
                     : "EDDY_WRITE, but the shader may read it (the image is not `writeonly`: no NonReadable in "
                       "the SPIR-V); declare EDDY_READ_WRITE, or make the image writeonly");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    for (uint32_t j = 0; j < i; j++)
        if (k->shared->kinds[j] != EDDY_BIND_BUFFER && earlier[j].id == b->image.id &&
            (k->shared->kinds[j] == EDDY_BIND_SAMPLED_IMAGE) != sampled) {
            eddy_log(e, EDDY_LOG_ERROR, "pass.binding", "pass '%s': image '%s' is bound both sampled (a layout for reading) and "
                     "as storage (bindings %u and %u); split the pass", label, im->label, j, i);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
    return EDDY_OK;
}

int eddy_graph_add_pass(eddy_engine *e, eddy_graph h, const eddy_pass_desc *d)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    EDDY_TAKE_DESC(e, eddy_pass_desc, d, return EDDY_ERROR_ABI);
    eddy_graph_obj *g = eddy_graph_get(e, h);
    const char *label = d && d->label && *d->label ? d->label : "(unnamed pass)";
    if (!g) {
        eddy_log(e, EDDY_LOG_ERROR, "handle.invalid", "pass '%s': not a live graph handle", label);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    eddy_kernel_obj *k = d ? eddy_kernel_get(e, d->kernel) : NULL;
    if (!k) {
        eddy_log(e, EDDY_LOG_ERROR, "pass.binding", "pass '%s' of graph '%s': no live kernel", label, g->label);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    eddy_pass p = { 0 };
    eddy_copy_label(p.label, sizeof p.label, d->label, k->label);
    eddy_copy_label(p.kernel_label, sizeof p.kernel_label, k->label, "(unnamed)");
    p.kernel = d->kernel;
    p.binding_count = k->shared->binding_count;
    for (uint32_t i = 0; i < EDDY_MAX_BINDINGS; i++) {
        const eddy_binding *b = &d->bindings[i];
        const eddy_image_binding *ib = &d->images[i];
        bool image = i < k->shared->binding_count && k->shared->kinds[i] != EDDY_BIND_BUFFER;
        if ((image && (b->buffer.id || b->access)) ||
            (!image && i < k->shared->binding_count && (ib->image.id || ib->access))) {
            eddy_log(e, EDDY_LOG_ERROR, "pass.binding", "pass '%s': binding %u of kernel '%s' is %s; give it in %s (and leave "
                     "%s[%u] zero)", label, i, k->label, image ? "an image" : "a storage buffer",
                     image ? "images[]" : "bindings[]", image ? "bindings" : "images", i);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        bool given = image ? ib->image.id != 0 : b->buffer.id != 0 || (i >= k->shared->binding_count && ib->image.id);
        if (i < k->shared->binding_count && !given) {
            eddy_log(e, EDDY_LOG_ERROR, "pass.binding", "pass '%s': kernel '%s' has %u bindings but binding %u "
                     "has no %s", label, k->label, k->shared->binding_count, i, image ? "image" : "buffer");
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        if (i >= k->shared->binding_count && given) {
            eddy_log(e, EDDY_LOG_ERROR, "pass.binding", "pass '%s': binding %u given but kernel '%s' has only %u",
                     label, i, k->label, k->shared->binding_count);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        if (!given)
            continue;
        if (image) {
            eddy_result r = check_image_binding(e, k, label, p.images, i, ib);
            if (r != EDDY_OK)
                return r;
            p.images[i] = ib->image;
            p.bindings[i].access = ib->access;
            eddy_copy_label(p.binding_labels[i], sizeof p.binding_labels[i], eddy_image_get(e, ib->image)->label,
                            "(unnamed)");
            continue;
        }
        if (!eddy_buffer_get(e, b->buffer)) {
            eddy_log(e, EDDY_LOG_ERROR, "pass.binding", "pass '%s': binding %u is not a live buffer", label, i);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        if (b->access < EDDY_READ || b->access > EDDY_ATOMIC) {
            eddy_log(e, EDDY_LOG_ERROR, "pass.access", "pass '%s': binding %u has no access (EDDY_READ, "
                     "EDDY_WRITE, EDDY_READ_WRITE or EDDY_ATOMIC; EDDY_SAMPLE is for images)", label, i);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        /* The planner trusts the declaration; on lavapipe, which runs one
         * dispatch after another, a wrong one would pass every test. */
        bool nw = k->shared->no_write >> i & 1, nr = k->shared->no_read >> i & 1;
        if ((b->access == EDDY_READ && !nw) || (b->access == EDDY_WRITE && !nr) ||
            (b->access == EDDY_ATOMIC && nw)) {
            const char *why = b->access == EDDY_READ
                ? "EDDY_READ, but the shader may write it (its block is not `readonly`: no NonWritable "
                  "in the SPIR-V); declare EDDY_READ_WRITE, or make the block readonly"
                : b->access == EDDY_WRITE
                ? "EDDY_WRITE, but the shader may read it (its block is not `writeonly`: no NonReadable "
                  "in the SPIR-V); declare EDDY_READ_WRITE, or make the block writeonly"
                : "EDDY_ATOMIC, but the shader never writes it (`readonly`); declare EDDY_READ";
            eddy_log(e, EDDY_LOG_ERROR, "pass.access", "pass '%s': binding %u of kernel '%s' is declared %s", label, i,
                     k->label, why);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        const eddy_buffer_obj *bo = eddy_buffer_get(e, b->buffer);
        if (!k->shared->texel_formats[i] && bo->texel_only && i < k->shared->binding_count) {
            eddy_log(e, EDDY_LOG_ERROR, "pass.binding", "pass '%s': binding %u of kernel '%s' is a storage buffer, "
                     "but buffer '%s' was made texel_only (%" PRIu64 " bytes); bind it as a storage texel buffer "
                     "(imageBuffer)", label, i, k->label, bo->label, bo->size);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        if (k->shared->texel_formats[i]) {
            char what[160];
            snprintf(what, sizeof what, "pass '%s', binding %u of kernel '%s'", label, i, k->label);
            eddy_result r = eddy_buffer_texel_check(e, eddy_buffer_get(e, b->buffer), k->shared->texel_formats[i], what);
            if (r != EDDY_OK)
                return r;
        }
        p.bindings[i] = *b;
        eddy_copy_label(p.binding_labels[i], sizeof p.binding_labels[i], eddy_buffer_label(e, b->buffer),
                        "(unnamed)");
    }
    if (d->indirect.id) {
        eddy_buffer_obj *ib = eddy_buffer_get(e, d->indirect);
        if (!ib || d->indirect_offset % 4 || d->indirect_offset + 12 > ib->size) {
            eddy_log(e, EDDY_LOG_ERROR, "pass.invalid", "pass '%s': indirect arguments need 12 bytes at a "
                     "4-byte aligned offset inside a live buffer", label);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        p.indirect = d->indirect;
        p.indirect_offset = d->indirect_offset;
        eddy_copy_label(p.binding_labels[EDDY_MAX_BINDINGS], sizeof p.binding_labels[0], ib->label,
                        "(unnamed)");
    } else {
        uint32_t gx = d->groups[0];
        if (d->threads)
            gx = (d->threads + k->shared->workgroup_size - 1) / k->shared->workgroup_size;
        p.groups[0] = gx;
        p.groups[1] = d->groups[1] ? d->groups[1] : 1;
        p.groups[2] = d->groups[2] ? d->groups[2] : 1;
        /* A pass with nothing to do (an empty particle set) is legal: it records no dispatch. */
        for (int a = 0; a < 3; a++)
            if (p.groups[a] > e->info.max_workgroup_count[a]) {
                eddy_log(e, EDDY_LOG_ERROR, "dispatch.too_large", "pass '%s': %u workgroups along %c (%u threads of "
                         "%u) exceed the device's maxComputeWorkGroupCount of %u",
                         label, p.groups[a], "xyz"[a], d->threads, k->shared->workgroup_size,
                         e->info.max_workgroup_count[a]);
                return EDDY_ERROR_LIMIT;
            }
    }
    if (d->push_size > EDDY_PUSH_CONSTANT_BYTES || d->push_size % 4 ||
        (d->push_size && !d->push)) {
        eddy_log(e, EDDY_LOG_ERROR, "pass.invalid", "pass '%s': push constants must be a multiple of 4 bytes "
                 "and at most %d bytes (got %u)", label, EDDY_PUSH_CONSTANT_BYTES, d->push_size);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (d->push_size)
        memcpy(p.push, d->push, d->push_size);
    p.push_size = d->push_size;
    if (g->pass_count == g->pass_cap) {
        uint32_t cap = g->pass_cap ? g->pass_cap * 2 : 8;
        eddy_pass *passes = realloc(g->passes, cap * sizeof *passes);
        if (!passes)
            return EDDY_ERROR_OUT_OF_MEMORY;
        g->passes = passes;
        g->pass_cap = cap;
    }
    eddy_graph_release_recording(e, g);
    g->passes[g->pass_count] = p;
    return (int)g->pass_count++;
}

eddy_result eddy_graph_repeat(eddy_engine *e, eddy_graph h, uint32_t first, uint32_t count,
                              uint32_t times)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    eddy_graph_obj *g = eddy_graph_get(e, h);
    if (!g)
        return EDDY_ERROR_INVALID_ARGUMENT;
    if (count == 0 || times == 0 || first > g->pass_count || count > g->pass_count - first) {
        eddy_log(e, EDDY_LOG_ERROR, "graph.invalid", "graph '%s': repeat of passes [%u, %u) x %u is not a "
                 "non-empty range of its %u passes repeated at least once",
                 g->label, first, first + count, times, g->pass_count);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    for (uint32_t i = 0; i < g->range_count; i++) {
        const eddy_graph_range *r = &g->ranges[i];
        if (first < r->first + r->count && r->first < first + count) {
            eddy_log(e, EDDY_LOG_ERROR, "graph.invalid", "graph '%s': repeat [%u, %u) overlaps [%u, %u)",
                     g->label, first, first + count, r->first, r->first + r->count);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
    }
    eddy_graph_range *ranges = realloc(g->ranges, (g->range_count + 1) * sizeof *ranges);
    if (!ranges)
        return EDDY_ERROR_OUT_OF_MEMORY;
    g->ranges = ranges;
    g->ranges[g->range_count++] = (eddy_graph_range){ first, count, times };
    eddy_graph_release_recording(e, g);
    return EDDY_OK;
}

int eddy_graph_profile(eddy_engine *e, eddy_graph h, eddy_pass_time *out, int max)
{
    EDDY_ENGINE_GUARD(e, return 0);
    eddy_graph_obj *g = eddy_graph_query(e, h, __func__);
    if (!g)
        return 0;
    for (uint32_t i = 0; i < g->pass_count && (int)i < max; i++)
        out[i] = (eddy_pass_time){ g->passes[i].label, g->passes[i].calls, g->passes[i].total_ms };
    return (int)g->pass_count;
}
