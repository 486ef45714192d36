/* Graphs: passes with declared accesses, recorded once, replayed. */
#include "internal.h"

#include "graph_sync.h"

static eddy_graph_obj *graph_get(eddy_engine *e, eddy_graph g)
{
    return eddy_pool_get(&e->graphs, g.id);
}

/* The recording goes once its last use has finished (a graph changed right
 * after eddy_graph_submit may still be running it). */
static void release_recording(eddy_engine *e, eddy_graph_obj *g)
{
    if (g->cb || g->pool || g->queries)
        eddy_defer(e, &(eddy_deferred){ .use = g->use, .cb = g->cb, .pool = g->pool, .queries = g->queries });
    free(g->query_pass);
    g->cb = VK_NULL_HANDLE;
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
    eddy_graph_desc d = desc ? *desc : (eddy_graph_desc){ 0 };
    uint32_t id;
    eddy_graph_obj *g = eddy_pool_alloc(&e->graphs, &id);
    if (!g) {
        eddy_log(e, EDDY_LOG_ERROR, "graph: out of host memory");
        return (eddy_graph){ 0 };
    }
    eddy_copy_label(g->label, sizeof g->label, d.label, "graph");
    g->times = d.times ? d.times : 1;
    g->timestamps = d.timestamps && e->timestamp_bits > 0;
    if (d.timestamps && !g->timestamps)
        eddy_log(e, EDDY_LOG_WARN, "graph '%s': the device's compute queue has no timestamps; "
                                   "no profile", g->label);
    g->dirty = true;
    return (eddy_graph){ id };
}

static void free_graph(eddy_engine *e, eddy_graph_obj *g)
{
    release_recording(e, g);
    free(g->passes);
    free(g->ranges);
    g->slot.live = false;
}

void eddy_destroy_graph(eddy_engine *e, eddy_graph h)
{
    eddy_graph_obj *g = graph_get(e, h);
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
    eddy_graph_obj *g = graph_get(e, h);
    return g ? g->pass_count : 0;
}

int eddy_graph_add_pass(eddy_engine *e, eddy_graph h, const eddy_pass_desc *d)
{
    eddy_graph_obj *g = graph_get(e, h);
    const char *label = d && d->label && *d->label ? d->label : "(unnamed pass)";
    if (!g) {
        eddy_log(e, EDDY_LOG_ERROR, "pass '%s': not a live graph handle", label);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    eddy_kernel_obj *k = d ? eddy_kernel_get(e, d->kernel) : NULL;
    if (!k) {
        eddy_log(e, EDDY_LOG_ERROR, "pass '%s' of graph '%s': no live kernel", label, g->label);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    eddy_pass p = { 0 };
    eddy_copy_label(p.label, sizeof p.label, d->label, k->label);
    eddy_copy_label(p.kernel_label, sizeof p.kernel_label, k->label, "(unnamed)");
    p.kernel = d->kernel;
    p.binding_count = k->binding_count;
    for (uint32_t i = 0; i < EDDY_MAX_BINDINGS; i++) {
        const eddy_binding *b = &d->bindings[i];
        bool given = b->buffer.id != 0;
        if (i < k->binding_count && !given) {
            eddy_log(e, EDDY_LOG_ERROR, "pass '%s': kernel '%s' has %u bindings but binding %u "
                     "has no buffer", label, k->label, k->binding_count, i);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        if (i >= k->binding_count && given) {
            eddy_log(e, EDDY_LOG_ERROR, "pass '%s': binding %u given but kernel '%s' has only %u",
                     label, i, k->label, k->binding_count);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        if (!given)
            continue;
        if (!eddy_buffer_get(e, b->buffer)) {
            eddy_log(e, EDDY_LOG_ERROR, "pass '%s': binding %u is not a live buffer", label, i);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        if (b->access < EDDY_READ || b->access > EDDY_ATOMIC) {
            eddy_log(e, EDDY_LOG_ERROR, "pass '%s': binding %u has no access (EDDY_READ, "
                     "EDDY_WRITE, EDDY_READ_WRITE or EDDY_ATOMIC)", label, i);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        /* The planner trusts the declaration; on lavapipe, which runs one
         * dispatch after another, a wrong one would pass every test. */
        bool nw = k->no_write >> i & 1, nr = k->no_read >> i & 1;
        if ((b->access == EDDY_READ && !nw) || (b->access == EDDY_WRITE && !nr) ||
            (b->access == EDDY_ATOMIC && nw)) {
            const char *why = b->access == EDDY_READ
                ? "EDDY_READ, but the shader may write it (its block is not `readonly`: no NonWritable "
                  "in the SPIR-V); declare EDDY_READ_WRITE, or make the block readonly"
                : b->access == EDDY_WRITE
                ? "EDDY_WRITE, but the shader may read it (its block is not `writeonly`: no NonReadable "
                  "in the SPIR-V); declare EDDY_READ_WRITE, or make the block writeonly"
                : "EDDY_ATOMIC, but the shader never writes it (`readonly`); declare EDDY_READ";
            eddy_log(e, EDDY_LOG_ERROR, "pass '%s': binding %u of kernel '%s' is declared %s", label, i,
                     k->label, why);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        p.bindings[i] = *b;
        eddy_copy_label(p.binding_labels[i], sizeof p.binding_labels[i], eddy_buffer_label(e, b->buffer),
                        "(unnamed)");
    }
    if (d->indirect.id) {
        eddy_buffer_obj *ib = eddy_buffer_get(e, d->indirect);
        if (!ib || d->indirect_offset % 4 || d->indirect_offset + 12 > ib->size) {
            eddy_log(e, EDDY_LOG_ERROR, "pass '%s': indirect arguments need 12 bytes at a "
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
            gx = (d->threads + k->workgroup_size - 1) / k->workgroup_size;
        p.groups[0] = gx;
        p.groups[1] = d->groups[1] ? d->groups[1] : 1;
        p.groups[2] = d->groups[2] ? d->groups[2] : 1;
        /* A pass with nothing to do (an empty particle set) is legal: it records no dispatch. */
        for (int a = 0; a < 3; a++)
            if (p.groups[a] > e->info.max_workgroup_count[a]) {
                eddy_log(e, EDDY_LOG_ERROR, "pass '%s': %u workgroups along %c (%u threads of "
                         "%u) exceed the device's maxComputeWorkGroupCount of %u",
                         label, p.groups[a], "xyz"[a], d->threads, k->workgroup_size,
                         e->info.max_workgroup_count[a]);
                return EDDY_ERROR_LIMIT;
            }
    }
    if (d->push_size > EDDY_PUSH_CONSTANT_BYTES || d->push_size % 4 ||
        (d->push_size && !d->push)) {
        eddy_log(e, EDDY_LOG_ERROR, "pass '%s': push constants must be a multiple of 4 bytes "
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
    release_recording(e, g);
    g->passes[g->pass_count] = p;
    return (int)g->pass_count++;
}

eddy_result eddy_graph_repeat(eddy_engine *e, eddy_graph h, uint32_t first, uint32_t count,
                              uint32_t times)
{
    eddy_graph_obj *g = graph_get(e, h);
    if (!g)
        return EDDY_ERROR_INVALID_ARGUMENT;
    if (count == 0 || times == 0 || first > g->pass_count || count > g->pass_count - first) {
        eddy_log(e, EDDY_LOG_ERROR, "graph '%s': repeat of passes [%u, %u) x %u is not a "
                 "non-empty range of its %u passes repeated at least once",
                 g->label, first, first + count, times, g->pass_count);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    for (uint32_t i = 0; i < g->range_count; i++) {
        const eddy_graph_range *r = &g->ranges[i];
        if (first < r->first + r->count && r->first < first + count) {
            eddy_log(e, EDDY_LOG_ERROR, "graph '%s': repeat [%u, %u) overlaps [%u, %u)",
                     g->label, first, first + count, r->first, r->first + r->count);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
    }
    eddy_graph_range *ranges = realloc(g->ranges, (g->range_count + 1) * sizeof *ranges);
    if (!ranges)
        return EDDY_ERROR_OUT_OF_MEMORY;
    g->ranges = ranges;
    g->ranges[g->range_count++] = (eddy_graph_range){ first, count, times };
    release_recording(e, g);
    return EDDY_OK;
}

static VkPipelineStageFlags vk_stages(uint32_t s)
{
    VkPipelineStageFlags f = 0;
    if (s & EDDY_SYNC_STAGE_COMPUTE)
        f |= VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    if (s & EDDY_SYNC_STAGE_INDIRECT)
        f |= VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT;
    return f;
}

static VkAccessFlags vk_access(uint32_t a)
{
    VkAccessFlags f = 0;
    if (a & EDDY_SYNC_ACCESS_SHADER_READ)
        f |= VK_ACCESS_SHADER_READ_BIT;
    if (a & EDDY_SYNC_ACCESS_SHADER_WRITE)
        f |= VK_ACCESS_SHADER_WRITE_BIT;
    if (a & EDDY_SYNC_ACCESS_INDIRECT_READ)
        f |= VK_ACCESS_INDIRECT_COMMAND_READ_BIT;
    return f;
}

static eddy_result plan_graph(eddy_engine *e, eddy_graph_obj *g, eddy_sync_plan *plan)
{
    eddy_sync_use *uses = calloc((size_t)g->pass_count * (EDDY_MAX_BINDINGS + 1) + 1, sizeof *uses);
    eddy_sync_pass *passes = calloc(g->pass_count + 1, sizeof *passes);
    eddy_sync_range *ranges = calloc(g->range_count + 1, sizeof *ranges);
    if (!uses || !passes || !ranges) {
        free(uses);
        free(passes);
        free(ranges);
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < g->pass_count; i++) {
        const eddy_pass *p = &g->passes[i];
        eddy_sync_use *u = uses + (size_t)i * (EDDY_MAX_BINDINGS + 1);
        uint32_t n = 0;
        for (uint32_t b = 0; b < p->binding_count; b++)
            u[n++] = (eddy_sync_use){ p->bindings[b].buffer.id, (eddy_sync_access)p->bindings[b].access };
        if (p->indirect.id)
            u[n++] = (eddy_sync_use){ p->indirect.id, EDDY_SYNC_INDIRECT };
        passes[i] = (eddy_sync_pass){ u, n };
    }
    for (uint32_t i = 0; i < g->range_count; i++)
        ranges[i] = (eddy_sync_range){ g->ranges[i].first, g->ranges[i].count, g->ranges[i].times };
    int rc = eddy_sync_plan_build(passes, g->pass_count, ranges, g->range_count, g->times, plan);
    free(uses);
    free(passes);
    free(ranges);
    if (rc != 0) {
        eddy_log(e, EDDY_LOG_ERROR, "graph '%s': the barrier planner refused its passes", g->label);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    return EDDY_OK;
}

static eddy_result make_sets(eddy_engine *e, eddy_graph_obj *g)
{
    uint32_t descriptors = 0;
    for (uint32_t i = 0; i < g->pass_count; i++)
        descriptors += g->passes[i].binding_count;
    VkDescriptorPoolSize size = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptors ? descriptors : 1 };
    VkDescriptorPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = g->pass_count ? g->pass_count : 1,
        .poolSizeCount = 1,
        .pPoolSizes = &size,
    };
    VkResult r = e->vk.vkCreateDescriptorPool(e->device, &pci, NULL, &g->pool);
    if (r != VK_SUCCESS)
        return eddy_vk_fail(e, r, "vkCreateDescriptorPool");
    for (uint32_t i = 0; i < g->pass_count; i++) {
        eddy_pass *p = &g->passes[i];
        eddy_kernel_obj *k = eddy_kernel_get(e, p->kernel);
        if (!k) {
            eddy_log(e, EDDY_LOG_ERROR, "graph '%s': the kernel of pass '%s' was destroyed",
                     g->label, p->label);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        VkDescriptorSetAllocateInfo ai = {
            .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
            .descriptorPool = g->pool,
            .descriptorSetCount = 1,
            .pSetLayouts = &k->set_layout,
        };
        r = e->vk.vkAllocateDescriptorSets(e->device, &ai, &p->set);
        if (r != VK_SUCCESS)
            return eddy_vk_fail(e, r, "vkAllocateDescriptorSets");
        VkDescriptorBufferInfo infos[EDDY_MAX_BINDINGS];
        VkWriteDescriptorSet writes[EDDY_MAX_BINDINGS];
        for (uint32_t b = 0; b < p->binding_count; b++) {
            eddy_buffer_obj *bo = eddy_buffer_get(e, p->bindings[b].buffer);
            if (!bo) {
                eddy_log(e, EDDY_LOG_ERROR, "graph '%s': buffer %u of pass '%s' was destroyed",
                         g->label, b, p->label);
                return EDDY_ERROR_INVALID_ARGUMENT;
            }
            infos[b] = (VkDescriptorBufferInfo){ bo->buffer, 0, VK_WHOLE_SIZE };
            writes[b] = (VkWriteDescriptorSet){
                .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                .dstSet = p->set,
                .dstBinding = b,
                .descriptorCount = 1,
                .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                .pBufferInfo = &infos[b],
            };
        }
        if (p->binding_count)
            e->vk.vkUpdateDescriptorSets(e->device, p->binding_count, writes, 0, NULL);
        if (p->indirect.id && !eddy_buffer_get(e, p->indirect)) {
            eddy_log(e, EDDY_LOG_ERROR, "graph '%s': the indirect buffer of pass '%s' was "
                     "destroyed", g->label, p->label);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
    }
    return EDDY_OK;
}

/* Records the planned schedule. Timestamps only into eddy's own buffer. */
static eddy_result record(eddy_engine *e, eddy_graph_obj *g, const eddy_sync_plan *plan,
                          VkCommandBuffer cb, bool timestamps)
{
    uint32_t most = 1;
    for (uint32_t s = 0; s < plan->step_count; s++)
        if (plan->steps[s].barrier_count > most)
            most = plan->steps[s].barrier_count;
    VkBufferMemoryBarrier *bmb = malloc(most * sizeof *bmb);
    if (!bmb) {
        eddy_log(e, EDDY_LOG_ERROR, "graph '%s': out of host memory recording", g->label);
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    eddy_cmd_barrier_in(e, cb);
    if (timestamps)
        e->vk.vkCmdResetQueryPool(cb, g->queries, 0, g->query_count);
    VkPipeline bound = VK_NULL_HANDLE;
    for (uint32_t s = 0; s < plan->step_count; s++) {
        const eddy_sync_step *st = &plan->steps[s];
        const eddy_pass *p = &g->passes[st->pass];
        if (st->barrier_count) {
            VkPipelineStageFlags src = 0, dst = 0;
            for (uint32_t i = 0; i < st->barrier_count; i++) {
                const eddy_sync_barrier *b = &plan->barriers[st->first_barrier + i];
                const eddy_buffer_obj *bo = eddy_pool_get(&e->buffers, b->resource);
                src |= vk_stages(b->src_stages);
                dst |= vk_stages(b->dst_stages);
                bmb[i] = (VkBufferMemoryBarrier){
                    .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
                    .srcAccessMask = vk_access(b->src_access),
                    .dstAccessMask = vk_access(b->dst_access),
                    .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                    .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                    .buffer = bo ? bo->buffer : VK_NULL_HANDLE,
                    .offset = 0,
                    .size = VK_WHOLE_SIZE,
                };
            }
            e->vk.vkCmdPipelineBarrier(cb, src, dst, 0, 0, NULL, st->barrier_count, bmb, 0, NULL);
        }
        eddy_kernel_obj *k = eddy_kernel_get(e, p->kernel);
        if (k->pipeline != bound) {
            e->vk.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k->pipeline);
            bound = k->pipeline;
        }
        if (p->binding_count)
            e->vk.vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k->layout, 0, 1,
                                          &p->set, 0, NULL);
        if (p->push_size)
            e->vk.vkCmdPushConstants(cb, k->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, p->push_size,
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
    free(bmb);
    eddy_cmd_barrier_out(e, cb);
    return EDDY_OK;
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
            eddy_log(e, EDDY_LOG_ERROR, "graph '%s': pass '%s' uses kernel '%s', which was destroyed; "
                     "the graph cannot run (destroy it and build it again)", g->label, p->label,
                     p->kernel_label);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        for (uint32_t b = 0; b <= EDDY_MAX_BINDINGS; b++) {
            eddy_buffer h = b < EDDY_MAX_BINDINGS ? p->bindings[b].buffer : p->indirect;
            if (h.id && !eddy_buffer_get(e, h)) {
                char which[32];
                if (b < EDDY_MAX_BINDINGS)
                    snprintf(which, sizeof which, "binding %u", b);
                else
                    snprintf(which, sizeof which, "indirect arguments");
                eddy_log(e, EDDY_LOG_ERROR, "graph '%s': pass '%s' binds buffer '%s' (%s), which was "
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
            eddy_buffer_obj *bo = eddy_buffer_get(e, p->bindings[b].buffer);
            if (bo)
                eddy_use_merge(&bo->use, use);
        }
        eddy_buffer_obj *ib = p->indirect.id ? eddy_buffer_get(e, p->indirect) : NULL;
        if (ib)
            eddy_use_merge(&ib->use, use);
    }
}

static eddy_result prepare(eddy_engine *e, eddy_graph_obj *g, eddy_sync_plan *plan)
{
    if (g->dirty) {
        release_recording(e, g);
        eddy_result r = make_sets(e, g);
        if (r != EDDY_OK) {
            release_recording(e, g);
            return r;
        }
    }
    return plan_graph(e, g, plan);
}

/* Builds eddy's own command buffer, once per change of the graph. */
static eddy_result build(eddy_engine *e, eddy_graph_obj *g)
{
    if (!g->dirty)
        return EDDY_OK;
    eddy_sync_plan plan = { 0 };
    eddy_result res = prepare(e, g, &plan);
    if (res != EDDY_OK)
        return res;
    VkResult r = VK_SUCCESS;
    if (g->timestamps && plan.step_count) {
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
    if (r == VK_SUCCESS)
        r = e->vk.vkAllocateCommandBuffers(e->device, &ai, &g->cb);
    /* Simultaneous use: one submission may hold the buffer many times (steps). */
    VkCommandBufferBeginInfo bi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT,
    };
    if (r == VK_SUCCESS)
        r = e->vk.vkBeginCommandBuffer(g->cb, &bi);
    eddy_result rec = EDDY_OK;
    if (r == VK_SUCCESS) {
        rec = record(e, g, &plan, g->cb, g->queries != VK_NULL_HANDLE);
        r = e->vk.vkEndCommandBuffer(g->cb);
    }
    eddy_sync_plan_free(&plan);
    if (rec != EDDY_OK || r != VK_SUCCESS) {
        release_recording(e, g);
        return rec != EDDY_OK ? rec : eddy_vk_fail(e, r, "recording the graph's command buffer");
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
    if (g->queries) {
        /* Each replay overwrites the queries: read them after every run. */
        for (uint32_t i = 0; i < times; i++) {
            uint64_t v;
            r = eddy_submit(e, &g->cb, 1, &v);
            if (r == EDDY_OK)
                mark_use(e, g, (eddy_use){ v, 0 });
            if (r == EDDY_OK)
                r = eddy_wait(e, v, 0);
            if (r != EDDY_OK)
                return r;
            read_timestamps(e, g);
        }
        if (value)
            *value = e->timeline_value;
        return EDDY_OK;
    }
    enum { BATCH = 256 };
    VkCommandBuffer cbs[BATCH];
    for (uint32_t i = 0; i < BATCH; i++)
        cbs[i] = g->cb;
    uint64_t v = e->timeline_value;
    for (uint32_t done = 0; done < times;) {
        uint32_t n = times - done < BATCH ? times - done : BATCH;
        r = eddy_submit(e, cbs, n, &v);
        if (r != EDDY_OK)
            return r;
        mark_use(e, g, (eddy_use){ v, 0 });
        done += n;
    }
    if (value)
        *value = v;
    return wait ? eddy_wait(e, v, 0) : EDDY_OK;
}

eddy_result eddy_graph_run(eddy_engine *e, eddy_graph h, uint32_t times)
{
    eddy_graph_obj *g = graph_get(e, h);
    if (!g) {
        eddy_log(e, EDDY_LOG_ERROR, "graph_run: not a live graph handle");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    return submit_times(e, g, times, NULL, true);
}

eddy_result eddy_graph_submit(eddy_engine *e, eddy_graph h, uint32_t times, uint64_t *value)
{
    eddy_graph_obj *g = graph_get(e, h);
    if (!g) {
        eddy_log(e, EDDY_LOG_ERROR, "graph_submit: not a live graph handle");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    return submit_times(e, g, times, value, false);
}

eddy_result eddy_graph_record(eddy_engine *e, eddy_graph h, const eddy_record_desc *desc)
{
    eddy_graph_obj *g = graph_get(e, h);
    if (!g || !desc || !desc->command_buffer) {
        eddy_log(e, EDDY_LOG_ERROR, "graph_record: needs a live graph and a command buffer");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    eddy_result r = check_live(e, g);
    if (r == EDDY_OK)
        r = build(e, g); /* descriptor sets; eddy's own buffer is recorded too */
    if (r != EDDY_OK)
        return r;
    eddy_sync_plan plan = { 0 };
    r = plan_graph(e, g, &plan);
    if (r != EDDY_OK)
        return r;
    uint64_t epoch = eddy_host_mark_add(e, desc->done_semaphore, desc->done_value);
    if (!epoch) {
        eddy_sync_plan_free(&plan);
        eddy_log(e, EDDY_LOG_ERROR, "graph_record: out of host memory");
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    r = record(e, g, &plan, desc->command_buffer, false);
    eddy_sync_plan_free(&plan);
    /* Until the host's command buffer has finished, nothing it names goes:
     * not the recording's descriptor sets, buffers or pipelines. */
    mark_use(e, g, (eddy_use){ 0, epoch });
    return r;
}

int eddy_graph_profile(eddy_engine *e, eddy_graph h, eddy_pass_time *out, int max)
{
    eddy_graph_obj *g = graph_get(e, h);
    if (!g)
        return 0;
    for (uint32_t i = 0; i < g->pass_count && (int)i < max; i++)
        out[i] = (eddy_pass_time){ g->passes[i].label, g->passes[i].calls, g->passes[i].total_ms };
    return (int)g->pass_count;
}
