/* Graphs, the recording side: the declared accesses of a graph's passes
 * turned into the barrier planner's terms (graph_sync.h) and its barriers into
 * Vulkan ones, descriptor pools and sets, eddy's own command buffers (body,
 * entry, exit, timestamps) built once per change, the checks for destroyed
 * kernels, buffers and images before a run, and eddy_graph_run, _submit and
 * _record with the checks of the host's uses around a host recording.
 * graph.c builds the graphs. */
#include "internal.h"

#include "graph_sync.h"

/* The public EDDY_STAGE_* / EDDY_ACCESS_* bits are the planner's. */
_Static_assert((uint32_t)EDDY_STAGE_COMPUTE == (uint32_t)EDDY_SYNC_STAGE_COMPUTE && (uint32_t)EDDY_STAGE_INDIRECT == (uint32_t)EDDY_SYNC_STAGE_INDIRECT &&
                   (uint32_t)EDDY_STAGE_TRANSFER == (uint32_t)EDDY_SYNC_STAGE_TRANSFER &&
                   (uint32_t)EDDY_STAGE_VERTEX_INPUT == (uint32_t)EDDY_SYNC_STAGE_VERTEX_INPUT &&
                   (uint32_t)EDDY_STAGE_VERTEX_SHADER == (uint32_t)EDDY_SYNC_STAGE_VERTEX_SHADER &&
                   (uint32_t)EDDY_STAGE_FRAGMENT_SHADER == (uint32_t)EDDY_SYNC_STAGE_FRAGMENT_SHADER &&
                   (uint32_t)EDDY_STAGE_HOST == (uint32_t)EDDY_SYNC_STAGE_HOST && (uint32_t)EDDY_STAGE_ALL == (uint32_t)EDDY_SYNC_STAGE_ALL,
               "stage bits");
_Static_assert((uint32_t)EDDY_ACCESS_SHADER_READ == (uint32_t)EDDY_SYNC_ACCESS_SHADER_READ &&
                   (uint32_t)EDDY_ACCESS_SHADER_WRITE == (uint32_t)EDDY_SYNC_ACCESS_SHADER_WRITE &&
                   (uint32_t)EDDY_ACCESS_INDIRECT_READ == (uint32_t)EDDY_SYNC_ACCESS_INDIRECT_READ &&
                   (uint32_t)EDDY_ACCESS_TRANSFER_READ == (uint32_t)EDDY_SYNC_ACCESS_TRANSFER_READ &&
                   (uint32_t)EDDY_ACCESS_TRANSFER_WRITE == (uint32_t)EDDY_SYNC_ACCESS_TRANSFER_WRITE &&
                   (uint32_t)EDDY_ACCESS_VERTEX_READ == (uint32_t)EDDY_SYNC_ACCESS_VERTEX_READ &&
                   (uint32_t)EDDY_ACCESS_HOST_READ == (uint32_t)EDDY_SYNC_ACCESS_HOST_READ &&
                   (uint32_t)EDDY_ACCESS_HOST_WRITE == (uint32_t)EDDY_SYNC_ACCESS_HOST_WRITE && (uint32_t)EDDY_ACCESS_ALL == (uint32_t)EDDY_SYNC_ACCESS_ALL,
               "access bits");

enum { GRAPHICS_STAGES = EDDY_SYNC_STAGE_VERTEX_INPUT | EDDY_SYNC_STAGE_VERTEX_SHADER |
                         EDDY_SYNC_STAGE_FRAGMENT_SHADER };

/* Bit i of the planner's mask becomes map[i]. */
static uint32_t map_bits(uint32_t bits, const uint32_t *map, uint32_t n)
{
    uint32_t f = 0;
    for (uint32_t i = 0; i < n; i++)
        if (bits >> i & 1)
            f |= map[i];
    return f;
}

static VkPipelineStageFlags vk_stages(uint32_t s)
{
    static const uint32_t map[] = {
        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
        VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT,
        VK_PIPELINE_STAGE_VERTEX_SHADER_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
        VK_PIPELINE_STAGE_HOST_BIT,
    };
    return map_bits(s, map, sizeof map / sizeof *map);
}

static VkAccessFlags vk_access(uint32_t a)
{
    static const uint32_t map[] = {
        VK_ACCESS_SHADER_READ_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_INDIRECT_COMMAND_READ_BIT,
        VK_ACCESS_TRANSFER_READ_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT,
        VK_ACCESS_HOST_READ_BIT, VK_ACCESS_HOST_WRITE_BIT,
    };
    return map_bits(a, map, sizeof map / sizeof *map);
}

/* Accesses the stages of a mask can make (the planner's stage table). */
static uint32_t stage_accesses(uint32_t stages)
{
    uint32_t a = 0;
    if (stages & (EDDY_SYNC_STAGE_COMPUTE | EDDY_SYNC_STAGE_VERTEX_SHADER | EDDY_SYNC_STAGE_FRAGMENT_SHADER))
        a |= EDDY_SYNC_ACCESS_SHADER_READ | EDDY_SYNC_ACCESS_SHADER_WRITE;
    if (stages & EDDY_SYNC_STAGE_INDIRECT)
        a |= EDDY_SYNC_ACCESS_INDIRECT_READ;
    if (stages & EDDY_SYNC_STAGE_TRANSFER)
        a |= EDDY_SYNC_ACCESS_TRANSFER_READ | EDDY_SYNC_ACCESS_TRANSFER_WRITE;
    if (stages & EDDY_SYNC_STAGE_VERTEX_INPUT)
        a |= EDDY_SYNC_ACCESS_VERTEX_READ;
    if (stages & EDDY_SYNC_STAGE_HOST)
        a |= EDDY_SYNC_ACCESS_HOST_READ | EDDY_SYNC_ACCESS_HOST_WRITE;
    return a;
}

/* A barrier's masks as this queue can take them: without graphics, the
 * graphics stages (and the accesses only they make) go; nothing on this
 * queue runs them. False when nothing is left to order. */
static bool fit_queue(const eddy_engine *e, eddy_sync_masks *m)
{
    if (!e->queue_graphics) {
        m->src_stages &= ~(uint32_t)GRAPHICS_STAGES;
        m->dst_stages &= ~(uint32_t)GRAPHICS_STAGES;
        m->src_access &= stage_accesses(m->src_stages);
        m->dst_access &= stage_accesses(m->dst_stages);
    }
    return m->src_stages && m->dst_stages;
}

/* A plan's barriers from `first` (none at all: NULL, never NULL + 0). */
static const eddy_sync_barrier *barriers_at(const eddy_sync_plan *plan, uint32_t first)
{
    return plan->barriers ? plan->barriers + first : NULL;
}

/* The planner's resources of one graph: index = the planner's resource id. */
typedef eddy_res_ref res_ref;

/* What recording a plan needs: the resources and room for the largest group. */
typedef struct rec_ctx {
    const res_ref *refs;
    VkBufferMemoryBarrier *buffers;
    VkImageMemoryBarrier *images;
} rec_ctx;

static VkImageLayout vk_layout(uint32_t layout)
{
    return layout == EDDY_SYNC_LAYOUT_READ_ONLY ? VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL : VK_IMAGE_LAYOUT_GENERAL;
}

/* Records one barrier group as one barrier command: image entries as image
 * barriers (with their layouts), buffer entries as one global VkMemoryBarrier
 * when they order compute against compute, else one buffer barrier each. */
static void record_group(eddy_engine *e, VkCommandBuffer cb, const eddy_sync_barrier *b, uint32_t count,
                         const rec_ctx *ctx)
{
    if (!count)
        return;
    eddy_sync_masks bufs = { 0 };
    for (uint32_t i = 0; i < count; i++)
        if (!ctx->refs[b[i].resource].image) {
            bufs.src_stages |= b[i].src_stages;
            bufs.src_access |= b[i].src_access;
            bufs.dst_stages |= b[i].dst_stages;
            bufs.dst_access |= b[i].dst_access;
        }
    bool global = eddy_sync_masks_compute_only(bufs);
    VkPipelineStageFlags src = 0, dst = 0;
    uint32_t nb = 0, ni = 0;
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = vk_access(bufs.src_access),
        .dstAccessMask = vk_access(bufs.dst_access),
    };
    if (global) {
        src |= vk_stages(bufs.src_stages);
        dst |= vk_stages(bufs.dst_stages);
    }
    for (uint32_t i = 0; i < count; i++) {
        const res_ref *ref = &ctx->refs[b[i].resource];
        eddy_sync_masks m = { b[i].src_stages, b[i].src_access, b[i].dst_stages, b[i].dst_access };
        if (ref->image) {
            const eddy_image_obj *im = eddy_pool_get(&e->images, ref->id);
            if (!im)
                continue;
            /* A transition happens even with nothing to wait for (source
             * TOP_OF_PIPE) or nothing on this queue after it (BOTTOM_OF_PIPE). */
            fit_queue(e, &m);
            src |= m.src_stages ? vk_stages(m.src_stages) : VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT;
            dst |= m.dst_stages ? vk_stages(m.dst_stages) : VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
            ctx->images[ni++] = (VkImageMemoryBarrier){
                .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
                .srcAccessMask = vk_access(m.src_access),
                .dstAccessMask = vk_access(m.dst_access),
                .oldLayout = vk_layout(b[i].old_layout),
                .newLayout = vk_layout(b[i].new_layout),
                .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                .image = im->image,
                .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
            };
            continue;
        }
        if (global)
            continue;
        const eddy_buffer_obj *bo = eddy_pool_get(&e->buffers, ref->id);
        if (!bo || !fit_queue(e, &m))
            continue;
        src |= vk_stages(m.src_stages);
        dst |= vk_stages(m.dst_stages);
        ctx->buffers[nb++] = (VkBufferMemoryBarrier){
            .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
            .srcAccessMask = vk_access(m.src_access),
            .dstAccessMask = vk_access(m.dst_access),
            .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
            .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
            .buffer = bo->buffer,
            .offset = 0,
            .size = VK_WHOLE_SIZE,
        };
    }
    if (global || nb || ni)
        e->vk.vkCmdPipelineBarrier(cb, src, dst, 0, global ? 1 : 0, &mb, nb, nb ? ctx->buffers : NULL, ni,
                                   ni ? ctx->images : NULL);
}

/* The planner's id of a resource, added when new; UINT32_MAX when the table
 * is full. */
static uint32_t res_index(res_ref *refs, uint32_t *count, uint32_t cap, uint32_t id, bool image, bool add)
{
    for (uint32_t i = 0; i < *count; i++)
        if (refs[i].id == id && refs[i].image == image)
            return i;
    if (!add || *count == cap)
        return UINT32_MAX;
    refs[*count] = (res_ref){ id, image };
    return (*count)++;
}

/* The host's uses before or after a recording, in the planner's terms. */
static eddy_result host_of(eddy_engine *e, const eddy_graph_obj *g, const eddy_host_use *uses, uint32_t count,
                           const char *which, res_ref *refs, uint32_t *ref_count, eddy_sync_host_use *out,
                           eddy_sync_host *host)
{
    *host = (eddy_sync_host){ out, 0, EDDY_SYNC_STAGE_ALL, EDDY_SYNC_ACCESS_ALL };
    if (count && !uses) {
        eddy_log(e, EDDY_LOG_ERROR, "graph.invalid", "graph_record '%s': %s_count %u with no %s array", g->label, which, count,
                 which);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    for (uint32_t i = 0; i < count; i++) {
        const eddy_host_use *u = &uses[i];
        if ((u->stages & ~(uint32_t)EDDY_STAGE_ALL) || (u->access & ~(uint32_t)EDDY_ACCESS_ALL) ||
            (u->access & ~stage_accesses(u->stages))) {
            eddy_log(e, EDDY_LOG_ERROR, "graph.host_use", "graph_record '%s': %s[%u]: access bits 0x%x are not made by stages 0x%x "
                     "(EDDY_STAGE_* / EDDY_ACCESS_*: see eddy_host_use)", g->label, which, i, u->access,
                     u->stages);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        if (u->buffer.id && u->image.id) {
            eddy_log(e, EDDY_LOG_ERROR, "graph.host_use", "graph_record '%s': %s[%u] names a buffer and an image; one use names "
                     "one resource (or none: the default)", g->label, which, i);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        if (!u->buffer.id && !u->image.id) {
            host->default_stages = u->stages;
            host->default_access = u->access;
        } else {
            /* A resource the graph does not use: nothing of the graph to order against. */
            uint32_t r = res_index(refs, ref_count, 0, u->image.id ? u->image.id : u->buffer.id, u->image.id != 0,
                                   false);
            if (r != UINT32_MAX)
                out[host->use_count++] = (eddy_sync_host_use){ r, u->stages, u->access };
        }
    }
    return EDDY_OK;
}

/* own: eddy's own replayed recording (loop barriers, entry and exit against
 * anything); else a host recording with its before/after. */
static eddy_result plan_graph(eddy_engine *e, eddy_graph_obj *g, bool own, const eddy_record_desc *rec,
                              eddy_sync_plan *plan, res_ref **refs_out)
{
    size_t most = (size_t)g->pass_count * (EDDY_MAX_BINDINGS + 1) + 1;
    res_ref *refs = calloc(most, sizeof *refs);
    uint32_t ref_count = 0;
    *refs_out = refs;
    eddy_sync_use *uses = calloc(most, sizeof *uses);
    eddy_sync_pass *passes = calloc(g->pass_count + 1, sizeof *passes);
    eddy_sync_range *ranges = calloc(g->range_count + 1, sizeof *ranges);
    uint32_t host_n = rec ? rec->before_count + rec->after_count : 0;
    eddy_sync_host_use *host_uses = calloc(host_n + 1, sizeof *host_uses);
    if (!refs || !uses || !passes || !ranges || !host_uses) {
        free(uses);
        free(passes);
        free(ranges);
        free(host_uses);
        eddy_log(e, EDDY_LOG_ERROR, "memory.host", "graph '%s': out of host memory planning barriers", g->label);
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < g->pass_count; i++) {
        const eddy_pass *p = &g->passes[i];
        eddy_sync_use *u = uses + (size_t)i * (EDDY_MAX_BINDINGS + 1);
        uint32_t n = 0;
        const eddy_kernel_obj *k = eddy_kernel_get(e, p->kernel);
        for (uint32_t b = 0; b < p->binding_count; b++) {
            const eddy_binding *bd = &p->bindings[b];
            uint8_t kind = k ? k->shared->kinds[b] : EDDY_BIND_BUFFER;
            if (kind == EDDY_BIND_BUFFER)
                u[n++] = (eddy_sync_use){ res_index(refs, &ref_count, (uint32_t)most, bd->buffer.id, false, true),
                                          (eddy_sync_access)bd->access, EDDY_SYNC_LAYOUT_NONE };
            else /* sampling reads in the read-only layout; storage access in GENERAL */
                u[n++] = (eddy_sync_use){ res_index(refs, &ref_count, (uint32_t)most, p->images[b].id, true, true),
                                          bd->access == EDDY_SAMPLE ? EDDY_SYNC_READ : (eddy_sync_access)bd->access,
                                          bd->access == EDDY_SAMPLE ? EDDY_SYNC_LAYOUT_READ_ONLY
                                                                    : EDDY_SYNC_LAYOUT_GENERAL };
        }
        if (p->indirect.id)
            u[n++] = (eddy_sync_use){ res_index(refs, &ref_count, (uint32_t)most, p->indirect.id, false, true),
                                      EDDY_SYNC_INDIRECT, EDDY_SYNC_LAYOUT_NONE };
        passes[i] = (eddy_sync_pass){ u, n };
    }
    for (uint32_t i = 0; i < g->range_count; i++)
        ranges[i] = (eddy_sync_range){ g->ranges[i].first, g->ranges[i].count, g->ranges[i].times };
    eddy_sync_host anything = { NULL, 0, EDDY_SYNC_STAGE_ALL, EDDY_SYNC_ACCESS_ALL }, before = anything,
                   after = anything;
    eddy_result r = EDDY_OK;
    if (rec) {
        r = host_of(e, g, rec->before, rec->before_count, "before", refs, &ref_count, host_uses, &before);
        if (r == EDDY_OK)
            r = host_of(e, g, rec->after, rec->after_count, "after", refs, &ref_count, host_uses + rec->before_count,
                        &after);
    }
    eddy_sync_build_info info = {
        .passes = passes, .pass_count = g->pass_count, .ranges = ranges, .range_count = g->range_count,
        .graph_times = g->times, .loop = own, .entry = &before, .exit = &after,
    };
    int rc = r == EDDY_OK ? eddy_sync_plan_build_ex(&info, plan) : 0;
    free(uses);
    free(passes);
    free(ranges);
    free(host_uses);
    if (r != EDDY_OK)
        return r;
    if (rc != 0) {
        eddy_log(e, EDDY_LOG_ERROR, "graph.invalid", "graph '%s': the barrier planner refused its passes", g->label);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    return EDDY_OK;
}

eddy_result eddy_graph_plan(eddy_engine *e, eddy_graph_obj *g, eddy_sync_plan *plan, eddy_res_ref **refs)
{
    return plan_graph(e, g, true, NULL, plan, refs);
}

static eddy_result make_sets(eddy_engine *e, eddy_graph_obj *g)
{
    /* Each descriptor type counted apart (buffers, storage images, combined
     * image samplers, in eddy_binding_kind order; then storage texel buffers). */
    VkDescriptorPoolSize sizes[4] = { { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 0 },
                                      { VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 0 },
                                      { VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 0 },
                                      { VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, 0 } };
    for (uint32_t i = 0; i < g->pass_count; i++) {
        const eddy_kernel_obj *k = eddy_kernel_get(e, g->passes[i].kernel);
        for (uint32_t b = 0; k && b < g->passes[i].binding_count; b++)
            sizes[k->shared->texel_formats[b] ? 3 : k->shared->kinds[b]].descriptorCount++;
    }
    VkDescriptorPoolSize used[4];
    uint32_t used_count = 0;
    for (int t = 0; t < 4; t++)
        if (sizes[t].descriptorCount || (t == 0 && !sizes[1].descriptorCount && !sizes[2].descriptorCount &&
                                         !sizes[3].descriptorCount))
            used[used_count++] = (VkDescriptorPoolSize){ sizes[t].type,
                                                         sizes[t].descriptorCount ? sizes[t].descriptorCount : 1 };
    VkDescriptorPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = g->pass_count ? g->pass_count : 1,
        .poolSizeCount = used_count,
        .pPoolSizes = used,
    };
    VkResult r = e->vk.vkCreateDescriptorPool(e->device, &pci, NULL, &g->pool);
    if (r != VK_SUCCESS)
        return eddy_vk_fail(e, r, "vkCreateDescriptorPool");
    for (uint32_t i = 0; i < g->pass_count; i++) {
        eddy_pass *p = &g->passes[i];
        eddy_kernel_obj *k = eddy_kernel_get(e, p->kernel);
        if (!k) {
            eddy_log(e, EDDY_LOG_ERROR, "graph.destroyed_resource", "graph '%s': the kernel of pass '%s' was destroyed",
                     g->label, p->label);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        VkDescriptorSetAllocateInfo ai = {
            .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
            .descriptorPool = g->pool,
            .descriptorSetCount = 1,
            .pSetLayouts = &k->shared->set_layout,
        };
        r = e->vk.vkAllocateDescriptorSets(e->device, &ai, &p->set);
        if (r != VK_SUCCESS)
            return eddy_vk_fail(e, r, "vkAllocateDescriptorSets");
        VkDescriptorBufferInfo infos[EDDY_MAX_BINDINGS];
        VkDescriptorImageInfo image_infos[EDDY_MAX_BINDINGS];
        VkBufferView texel_views[EDDY_MAX_BINDINGS];
        VkWriteDescriptorSet writes[EDDY_MAX_BINDINGS];
        for (uint32_t b = 0; b < p->binding_count; b++) {
            if (k->shared->kinds[b] != EDDY_BIND_BUFFER) {
                eddy_image_obj *im = eddy_image_get(e, p->images[b]);
                if (!im) {
                    eddy_log(e, EDDY_LOG_ERROR, "graph.destroyed_resource", "graph '%s': image %u of pass '%s' was destroyed", g->label, b,
                             p->label);
                    return EDDY_ERROR_INVALID_ARGUMENT;
                }
                bool sampled = k->shared->kinds[b] == EDDY_BIND_SAMPLED_IMAGE;
                /* The layout the planner puts the image in for this pass. */
                image_infos[b] = (VkDescriptorImageInfo){
                    sampled ? im->sampler : VK_NULL_HANDLE, im->view,
                    sampled ? VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL : VK_IMAGE_LAYOUT_GENERAL };
                writes[b] = (VkWriteDescriptorSet){
                    .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                    .dstSet = p->set,
                    .dstBinding = b,
                    .descriptorCount = 1,
                    .descriptorType = sampled ? VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER
                                              : VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
                    .pImageInfo = &image_infos[b],
                };
                continue;
            }
            eddy_buffer_obj *bo = eddy_buffer_get(e, p->bindings[b].buffer);
            if (!bo) {
                eddy_log(e, EDDY_LOG_ERROR, "graph.destroyed_resource", "graph '%s': buffer %u of pass '%s' was destroyed",
                         g->label, b, p->label);
                return EDDY_ERROR_INVALID_ARGUMENT;
            }
            infos[b] = (VkDescriptorBufferInfo){ bo->buffer, 0, VK_WHOLE_SIZE };
            int32_t tf = k->shared->texel_formats[b];
            if (tf && !(texel_views[b] = eddy_buffer_texel_view(e, bo, tf)))
                return EDDY_ERROR_VULKAN;
            writes[b] = (VkWriteDescriptorSet){
                .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                .dstSet = p->set,
                .dstBinding = b,
                .descriptorCount = 1,
                .descriptorType = tf ? VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                .pBufferInfo = tf ? NULL : &infos[b],
                .pTexelBufferView = tf ? &texel_views[b] : NULL,
            };
        }
        if (p->binding_count)
            e->vk.vkUpdateDescriptorSets(e->device, p->binding_count, writes, 0, NULL);
        if (p->indirect.id && !eddy_buffer_get(e, p->indirect)) {
            eddy_log(e, EDDY_LOG_ERROR, "graph.destroyed_resource", "graph '%s': the indirect buffer of pass '%s' was "
                     "destroyed", g->label, p->label);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
    }
    return EDDY_OK;
}

/* Records the planned steps (with the loop group first when `loop`), into
 * eddy's replayed buffer or a host's. Timestamps only into eddy's own. */
static eddy_result record_steps(eddy_engine *e, eddy_graph_obj *g, const eddy_sync_plan *plan,
                                VkCommandBuffer cb, bool loop, bool timestamps, const rec_ctx *scratch)
{
    if (timestamps)
        e->vk.vkCmdResetQueryPool(cb, g->queries, 0, g->query_count);
    if (loop)
        record_group(e, cb, barriers_at(plan, plan->loop.first_barrier), plan->loop.barrier_count, scratch);
    VkPipeline bound = VK_NULL_HANDLE;
    for (uint32_t s = 0; s < plan->step_count; s++) {
        const eddy_sync_step *st = &plan->steps[s];
        const eddy_pass *p = &g->passes[st->pass];
        record_group(e, cb, barriers_at(plan, st->first_barrier), st->barrier_count, scratch);
        eddy_kernel_obj *k = eddy_kernel_get(e, p->kernel);
        if (k->shared->pipeline != bound) {
            e->vk.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k->shared->pipeline);
            bound = k->shared->pipeline;
        }
        if (p->binding_count)
            e->vk.vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k->shared->layout, 0, 1,
                                          &p->set, 0, NULL);
        if (p->push_size)
            e->vk.vkCmdPushConstants(cb, k->shared->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, p->push_size,
                                     p->push);
        if (timestamps)
            e->vk.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, g->queries, 2 * s);
        if (p->indirect.id)
            e->vk.vkCmdDispatchIndirect(cb, eddy_buffer_get(e, p->indirect)->buffer,
                                        p->indirect_offset);
        else if (p->groups[0] && p->groups[1] && p->groups[2])
            e->vk.vkCmdDispatch(cb, p->groups[0], p->groups[1], p->groups[2]);
        if (timestamps)
            e->vk.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, g->queries,
                                      2 * s + 1);
    }
    return EDDY_OK;
}

/* Room for the largest barrier group of a plan; takes refs (freed with it). */
static bool barrier_scratch(eddy_engine *e, const eddy_graph_obj *g, const eddy_sync_plan *plan, res_ref *refs,
                            rec_ctx *ctx)
{
    uint32_t most = plan->barrier_count ? plan->barrier_count : 1;
    ctx->refs = refs;
    ctx->buffers = malloc(most * sizeof *ctx->buffers);
    ctx->images = malloc(most * sizeof *ctx->images);
    if (!refs || !ctx->buffers || !ctx->images) {
        eddy_log(e, EDDY_LOG_ERROR, "memory.host", "graph '%s': out of host memory recording", g->label);
        return false;
    }
    return true;
}

static void scratch_free(rec_ctx *ctx)
{
    free((void *)ctx->refs);
    free(ctx->buffers);
    free(ctx->images);
    *ctx = (rec_ctx){ 0 };
}

/* A graph never runs with a destroyed kernel or buffer: its recording (and
 * descriptors) would name freed objects. Checked again only after a
 * destroy somewhere in the engine. */
static eddy_result check_live(eddy_engine *e, eddy_graph_obj *g)
{
    if (g->checked_destroys == e->destroys)
        return EDDY_OK;
    for (uint32_t i = 0; i < g->pass_count; i++) {
        const eddy_pass *p = &g->passes[i];
        if (!eddy_kernel_get(e, p->kernel)) {
            eddy_log(e, EDDY_LOG_ERROR, "graph.destroyed_resource", "graph '%s': pass '%s' uses kernel '%s', which was destroyed; "
                     "the graph cannot run (destroy it and build it again)", g->label, p->label,
                     p->kernel_label);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        const eddy_kernel_obj *k = eddy_kernel_get(e, p->kernel);
        for (uint32_t b = 0; b <= EDDY_MAX_BINDINGS; b++) {
            if (b < p->binding_count && k->shared->kinds[b] != EDDY_BIND_BUFFER) {
                if (!eddy_image_get(e, p->images[b])) {
                    eddy_log(e, EDDY_LOG_ERROR, "graph.destroyed_resource", "graph '%s': pass '%s' binds image '%s' (binding %u), which was "
                             "destroyed; the graph cannot run (destroy it and build it again)", g->label, p->label,
                             p->binding_labels[b], b);
                    return EDDY_ERROR_INVALID_ARGUMENT;
                }
                continue;
            }
            eddy_buffer h = b < EDDY_MAX_BINDINGS ? p->bindings[b].buffer : p->indirect;
            if (h.id && !eddy_buffer_get(e, h)) {
                char which[32];
                if (b < EDDY_MAX_BINDINGS)
                    snprintf(which, sizeof which, "binding %u", b);
                else
                    snprintf(which, sizeof which, "indirect arguments");
                eddy_log(e, EDDY_LOG_ERROR, "graph.destroyed_resource", "graph '%s': pass '%s' binds buffer '%s' (%s), which was "
                         "destroyed; the graph cannot run (destroy it and build it again)", g->label,
                         p->label, p->binding_labels[b], which);
                return EDDY_ERROR_INVALID_ARGUMENT;
            }
        }
    }
    g->checked_destroys = e->destroys;
    return EDDY_OK;
}

/* Every object the graph's recording uses now also lives until `use`. */
static void mark_use(eddy_engine *e, eddy_graph_obj *g, eddy_use use)
{
    eddy_use_merge(&g->use, use);
    for (uint32_t i = 0; i < g->pass_count; i++) {
        const eddy_pass *p = &g->passes[i];
        eddy_kernel_obj *k = eddy_kernel_get(e, p->kernel);
        if (k)
            eddy_use_merge(&k->shared->use, use);
        for (uint32_t b = 0; b < p->binding_count; b++) {
            if (k && k->shared->kinds[b] != EDDY_BIND_BUFFER) {
                eddy_image_obj *im = eddy_image_get(e, p->images[b]);
                if (im)
                    eddy_use_merge(&im->use, use);
                continue;
            }
            eddy_buffer_obj *bo = eddy_buffer_get(e, p->bindings[b].buffer);
            if (bo)
                eddy_use_merge(&bo->use, use);
        }
        eddy_buffer_obj *ib = p->indirect.id ? eddy_buffer_get(e, p->indirect) : NULL;
        if (ib)
            eddy_use_merge(&ib->use, use);
    }
}

/* Builds eddy's own command buffers, once per change of the graph: the body
 * replayed back to back, [loop barriers] passes, and two small ones around
 * each submission of replays, [entry] and [exit] against anything before
 * and after (transfers, other graphs, the host): in place of full barriers
 * at both ends of every replay. */
static eddy_result build(eddy_engine *e, eddy_graph_obj *g)
{
    if (!g->dirty)
        return EDDY_OK;
    eddy_graph_release_recording(e, g);
    eddy_result res = make_sets(e, g);
    eddy_sync_plan plan = { 0 };
    res_ref *refs = NULL;
    if (res == EDDY_OK)
        res = plan_graph(e, g, true, NULL, &plan, &refs);
    if (res != EDDY_OK) {
        free(refs);
        eddy_graph_release_recording(e, g);
        return res;
    }
    rec_ctx ctx = { 0 }, *scratch = &ctx;
    VkResult r = barrier_scratch(e, g, &plan, refs, &ctx) ? VK_SUCCESS : VK_ERROR_OUT_OF_HOST_MEMORY;
    if (r == VK_SUCCESS && g->timestamps && plan.step_count) {
        g->query_count = 2 * plan.step_count;
        g->query_pass = malloc(plan.step_count * sizeof *g->query_pass);
        VkQueryPoolCreateInfo qci = {
            .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
            .queryType = VK_QUERY_TYPE_TIMESTAMP,
            .queryCount = g->query_count,
        };
        r = g->query_pass ? e->vk.vkCreateQueryPool(e->device, &qci, NULL, &g->queries)
                          : VK_ERROR_OUT_OF_HOST_MEMORY;
        for (uint32_t s = 0; g->query_pass && s < plan.step_count; s++)
            g->query_pass[s] = plan.steps[s].pass;
    }
    VkCommandBufferAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = e->command_pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    /* Simultaneous use: one submission holds each buffer many times. */
    VkCommandBufferBeginInfo bi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT,
    };
    const eddy_sync_group *groups[3] = { &plan.entry, NULL, &plan.exit };
    VkCommandBuffer *cbs[3] = { &g->entry_cb, &g->cb, &g->exit_cb };
    for (int i = 0; i < 3 && r == VK_SUCCESS; i++) {
        if (groups[i] && !groups[i]->barrier_count)
            continue; /* no entry or exit barrier: no command buffer */
        r = e->vk.vkAllocateCommandBuffers(e->device, &ai, cbs[i]);
        if (r == VK_SUCCESS)
            r = e->vk.vkBeginCommandBuffer(*cbs[i], &bi);
        if (r != VK_SUCCESS)
            break;
        if (groups[i])
            record_group(e, *cbs[i], barriers_at(&plan, groups[i]->first_barrier), groups[i]->barrier_count, scratch);
        else
            record_steps(e, g, &plan, *cbs[i], true, g->queries != VK_NULL_HANDLE, scratch);
        r = e->vk.vkEndCommandBuffer(*cbs[i]);
    }
    scratch_free(&ctx);
    eddy_sync_plan_free(&plan);
    if (r != VK_SUCCESS) {
        eddy_graph_release_recording(e, g);
        return eddy_vk_fail(e, r, "recording the graph's command buffers");
    }
    eddy_set_name(e, VK_OBJECT_TYPE_COMMAND_BUFFER, (uint64_t)(uintptr_t)g->cb, g->label);
    g->dirty = false;
    return EDDY_OK;
}

static void read_timestamps(eddy_engine *e, eddy_graph_obj *g)
{
    uint64_t *t = malloc(g->query_count * sizeof *t);
    if (!t)
        return;
    VkResult r = e->vk.vkGetQueryPoolResults(e->device, g->queries, 0, g->query_count,
                                             g->query_count * sizeof *t, t, sizeof *t,
                                             VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (r == VK_SUCCESS) {
        uint64_t mask = e->timestamp_bits >= 64 ? ~0ull : (1ull << e->timestamp_bits) - 1;
        for (uint32_t s = 0; s < g->query_count / 2; s++) {
            eddy_pass *p = &g->passes[g->query_pass[s]];
            uint64_t ticks = (t[2 * s + 1] - t[2 * s]) & mask;
            p->calls++;
            p->total_ms += (double)ticks * e->info.timestamp_period_ns * 1e-6;
        }
    }
    free(t);
}

/* [staged writes] [entry] body x n [exit] [staged reads] as one submission. */
static eddy_result submit_batch(eddy_engine *e, eddy_graph_obj *g, uint32_t n, uint64_t *v)
{
    enum { BATCH = 256 };
    VkCommandBuffer cbs[BATCH + 2];
    uint32_t count = 0;
    if (g->entry_cb)
        cbs[count++] = g->entry_cb;
    for (uint32_t i = 0; i < n && i < BATCH; i++)
        cbs[count++] = g->cb;
    if (g->exit_cb)
        cbs[count++] = g->exit_cb;
    eddy_result r = eddy_submit_staged(e, cbs, count, v);
    if (r == EDDY_OK)
        mark_use(e, g, (eddy_use){ *v, 0 });
    return r;
}

static eddy_result submit_times(eddy_engine *e, eddy_graph_obj *g, uint32_t times,
                                uint64_t *value, bool wait)
{
    eddy_result r = check_live(e, g);
    if (r == EDDY_OK)
        r = build(e, g);
    if (r != EDDY_OK)
        return r;
    if (times == 0 || g->pass_count == 0) {
        if (value)
            *value = e->timeline_value;
        return EDDY_OK;
    }
    uint64_t v = e->timeline_value;
    if (g->queries) {
        /* Each replay overwrites the queries: read them after every run. */
        for (uint32_t i = 0; i < times; i++) {
            r = submit_batch(e, g, 1, &v);
            if (r == EDDY_OK)
                r = eddy_wait(e, v, EDDY_WAIT_FOREVER);
            if (r != EDDY_OK)
                return r;
            read_timestamps(e, g);
        }
        if (value)
            *value = v;
        return EDDY_OK;
    }
    for (uint32_t done = 0; done < times;) {
        uint32_t n = times - done < 256 ? times - done : 256;
        r = submit_batch(e, g, n, &v);
        if (r != EDDY_OK)
            return r;
        done += n;
    }
    if (value)
        *value = v;
    return wait ? eddy_wait(e, v, EDDY_WAIT_FOREVER) : EDDY_OK;
}

eddy_result eddy_graph_run(eddy_engine *e, eddy_graph h, uint32_t times)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    eddy_graph_obj *g = eddy_graph_get(e, h);
    if (!g) {
        eddy_log(e, EDDY_LOG_ERROR, "handle.invalid", "graph_run: not a live graph handle");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    return submit_times(e, g, times, NULL, true);
}

eddy_result eddy_graph_submit(eddy_engine *e, eddy_graph h, uint32_t times, uint64_t *value)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    eddy_graph_obj *g = eddy_graph_get(e, h);
    if (!g) {
        eddy_log(e, EDDY_LOG_ERROR, "handle.invalid", "graph_submit: not a live graph handle");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    return submit_times(e, g, times, value, false);
}

eddy_result eddy_graph_submit_after(eddy_engine *e, eddy_graph h, const eddy_submit_desc *desc, uint64_t *value)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    EDDY_TAKE_DESC(e, eddy_submit_desc, desc, return EDDY_ERROR_ABI);
    eddy_graph_obj *g = eddy_graph_get(e, h);
    if (!g) {
        eddy_log(e, EDDY_LOG_ERROR, "handle.invalid", "graph_submit_after: not a live graph handle");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (!desc || desc->wait_count > EDDY_SUBMIT_WAITS_MAX || (desc->wait_count && !desc->waits)) {
        eddy_log(e, EDDY_LOG_ERROR, "submit.invalid", "graph_submit_after '%s': %s", g->label,
                 !desc ? "no desc" : desc->wait_count > EDDY_SUBMIT_WAITS_MAX
                     ? "more than EDDY_SUBMIT_WAITS_MAX (8) waits" : "wait_count without waits");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    for (uint32_t i = 0; i < desc->wait_count; i++) {
        if (!desc->waits[i].semaphore) {
            eddy_log(e, EDDY_LOG_ERROR, "submit.invalid", "graph_submit_after '%s': waits[%u].semaphore is "
                     "VK_NULL_HANDLE; expected the host's semaphore", g->label, i);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        e->submit_wait_sem[i] = desc->waits[i].semaphore;
        e->submit_wait_value[i] = desc->waits[i].value;
    }
    e->submit_wait_count = desc->wait_count;
    eddy_result r = submit_times(e, g, desc->times ? desc->times : 1, value, false);
    e->submit_wait_count = 0; /* nothing submitted (an empty graph, an error): nothing waits */
    return r;
}

eddy_result eddy_graph_record(eddy_engine *e, eddy_graph h, const eddy_record_desc *desc)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    EDDY_TAKE_DESC(e, eddy_record_desc, desc, return EDDY_ERROR_ABI);
    eddy_graph_obj *g = eddy_graph_get(e, h);
    if (!g || !desc || !desc->command_buffer) {
        eddy_log(e, EDDY_LOG_ERROR, "handle.invalid", "graph_record: needs a live graph and a command buffer");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    eddy_result r = check_live(e, g);
    if (r == EDDY_OK)
        r = build(e, g); /* descriptor sets; eddy's own buffers are recorded too */
    if (r != EDDY_OK)
        return r;
    eddy_sync_plan plan = { 0 };
    res_ref *refs = NULL;
    r = plan_graph(e, g, false, desc, &plan, &refs);
    if (r != EDDY_OK) {
        free(refs);
        return r;
    }
    rec_ctx ctx = { 0 }, *scratch = &ctx;
    uint64_t epoch = barrier_scratch(e, g, &plan, refs, &ctx)
        ? eddy_host_mark_add(e, desc->done_semaphore, desc->done_value) : 0;
    if (!epoch) {
        scratch_free(&ctx);
        eddy_sync_plan_free(&plan);
        eddy_log(e, EDDY_LOG_ERROR, "memory.host", "graph_record: out of host memory");
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    VkCommandBuffer cb = desc->command_buffer;
    /* Staged I/O rides on the recording as on a submission: writes before
     * the graph, reads after it, held until the host's command buffer has
     * finished. */
    eddy_staged_record_writes(e, cb);
    record_group(e, cb, barriers_at(&plan, plan.entry.first_barrier), plan.entry.barrier_count, scratch);
    r = record_steps(e, g, &plan, cb, false, false, scratch);
    record_group(e, cb, barriers_at(&plan, plan.exit.first_barrier), plan.exit.barrier_count, scratch);
    eddy_staged_record_reads(e, cb);
    eddy_staged_recorded(e, epoch);
    scratch_free(&ctx);
    eddy_sync_plan_free(&plan);
    /* Until the host's command buffer has finished, nothing it names goes:
     * not the recording's descriptor sets, buffers or pipelines. */
    mark_use(e, g, (eddy_use){ 0, epoch });
    return r;
}
