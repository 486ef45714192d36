/* Device-local storage buffers and host transfers. */
#include "internal.h"

#include <stdlib.h>

#include <inttypes.h>


eddy_buffer_obj *eddy_buffer_get(eddy_engine *e, eddy_buffer b)
{
    return eddy_pool_get(&e->buffers, b.id);
}

/* Every recorded sequence starts and ends with these, so work recorded
 * separately (transfers, graph runs, a host's commands) never races. */
void eddy_cmd_barrier_in(eddy_engine *e, VkCommandBuffer cb)
{
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
    };
    e->vk.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                               VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
}

void eddy_cmd_barrier_out(eddy_engine *e, VkCommandBuffer cb)
{
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT |
                         VK_ACCESS_HOST_READ_BIT,
    };
    e->vk.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                               VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                               0, 1, &mb, 0, NULL, 0, NULL);
}

eddy_result eddy_begin_transfer(eddy_engine *e, VkCommandBuffer *cb)
{
    VkCommandBufferBeginInfo bi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    VkResult r = e->vk.vkBeginCommandBuffer(e->transfer_cb, &bi);
    if (r != VK_SUCCESS)
        return eddy_vk_fail(e, r, "vkBeginCommandBuffer");
    eddy_cmd_barrier_in(e, e->transfer_cb);
    *cb = e->transfer_cb;
    return EDDY_OK;
}

eddy_result eddy_end_transfer_value(eddy_engine *e, uint64_t *value)
{
    eddy_cmd_barrier_out(e, e->transfer_cb);
    VkResult r = e->vk.vkEndCommandBuffer(e->transfer_cb);
    if (r != VK_SUCCESS)
        return eddy_vk_fail(e, r, "vkEndCommandBuffer");
    /* On the timeline like every submission, so that last uses are values
     * of it; waited for at once (the one-shot buffer is reused). */
    uint64_t v;
    eddy_result res = eddy_submit(e, &e->transfer_cb, 1, &v);
    if (res != EDDY_OK)
        return res;
    if (value)
        *value = v;
    return eddy_wait(e, v, EDDY_WAIT_FOREVER);
}

eddy_result eddy_end_transfer(eddy_engine *e)
{
    return eddy_end_transfer_value(e, NULL);
}

typedef struct raw_buffer {
    VkBuffer buffer;
    eddy_alloc alloc;
    void *mapped; /* alloc.mapped where the host may use it */
} raw_buffer;

static eddy_result create_raw(eddy_engine *e, uint64_t size, VkBufferUsageFlags usage,
                              eddy_mem_purpose purpose, const char *label, raw_buffer *out)
{
    memset(out, 0, sizeof *out);
    VkBufferCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = size,
        .usage = usage,
        .sharingMode = e->share_count > 1 ? VK_SHARING_MODE_CONCURRENT : VK_SHARING_MODE_EXCLUSIVE,
        .queueFamilyIndexCount = e->share_count > 1 ? e->share_count : 0,
        .pQueueFamilyIndices = e->share_families,
    };
    VkResult r = e->vk.vkCreateBuffer(e->device, &ci, NULL, &out->buffer);
    if (r != VK_SUCCESS)
        return eddy_vk_fail(e, r, "vkCreateBuffer");
    VkMemoryRequirements req;
    e->vk.vkGetBufferMemoryRequirements(e->device, out->buffer, &req);
    eddy_result res = eddy_mem_alloc(e, &req, purpose, false, label, &out->alloc);
    if (res == EDDY_OK) {
        r = e->vk.vkBindBufferMemory(e->device, out->buffer, out->alloc.memory, out->alloc.offset);
        if (r != VK_SUCCESS) {
            eddy_mem_free(e, &out->alloc);
            res = eddy_vk_fail(e, r, "vkBindBufferMemory");
        }
    }
    if (res != EDDY_OK) {
        e->vk.vkDestroyBuffer(e->device, out->buffer, NULL);
        memset(out, 0, sizeof *out);
        return res;
    }
    /* EDDY_FORCE_STAGING: device buffers as if the host could not see them. */
    if (eddy_mem_host_coherent_visible(e, &out->alloc) && (purpose != EDDY_MEM_DEVICE || !e->force_staging))
        out->mapped = out->alloc.mapped;
    return EDDY_OK;
}

static void destroy_raw(eddy_engine *e, raw_buffer *b)
{
    if (b->buffer)
        e->vk.vkDestroyBuffer(e->device, b->buffer, NULL);
    eddy_mem_free(e, &b->alloc);
    memset(b, 0, sizeof *b);
}

eddy_buffer eddy_create_buffer(eddy_engine *e, const eddy_buffer_desc *desc)
{
    EDDY_ENGINE_GUARD(e, return (eddy_buffer){ 0 });
    EDDY_TAKE_DESC(e, eddy_buffer_desc, desc, return (eddy_buffer){ 0 });
    eddy_buffer none = { 0 };
    const char *label = desc && desc->label && *desc->label ? desc->label : "(unnamed)";
    if (!desc || desc->size == 0) {
        eddy_log(e, EDDY_LOG_ERROR, "buffer.invalid", "buffer '%s': size must be > 0 bytes", label);
        return none;
    }
    uint64_t range = desc->texel_only ? 16ull * e->info.max_texel_buffer_elements : e->info.max_storage_buffer_range;
    if (desc->size > range) {
        eddy_log(e, EDDY_LOG_ERROR,
                 "buffer.too_large", "buffer '%s': %" PRIu64 " bytes exceeds the device's %s of %"
                 PRIu64 " bytes (device '%s')",
                 label, desc->size, desc->texel_only ? "maxTexelBufferElements (16-byte texels)" : "maxStorageBufferRange",
                 range, e->info.name);
        return none;
    }
    if (e->max_allocation && desc->size > e->max_allocation) {
        eddy_log(e, EDDY_LOG_ERROR,
                 "buffer.too_large", "buffer '%s': %" PRIu64 " bytes exceeds the device's maxMemoryAllocationSize of %"
                 PRIu64 " bytes (device '%s')",
                 label, desc->size, e->max_allocation, e->info.name);
        return none;
    }
    if (desc->data_size > desc->size) {
        eddy_log(e, EDDY_LOG_ERROR, "buffer.invalid", "buffer '%s': data_size %" PRIu64 " bytes is larger than the buffer's %"
                 PRIu64 " bytes", label, desc->data_size, desc->size);
        return none;
    }
    raw_buffer raw;
    /* Rounded to 4 bytes so that whole-buffer fills and copies are legal. */
    uint64_t size = (desc->size + 3) & ~3ull;
    if (create_raw(e, size,
                   VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT |
                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                       VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                       VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT,
                   EDDY_MEM_DEVICE, label, &raw) != EDDY_OK)
        return none;
    uint32_t id;
    eddy_buffer_obj *b = eddy_pool_alloc(&e->buffers, &id);
    if (!b) {
        destroy_raw(e, &raw);
        eddy_log(e, EDDY_LOG_ERROR, "memory.host", "buffer '%s': out of host memory", label);
        return none;
    }
    b->buffer = raw.buffer;
    b->alloc = raw.alloc;
    b->mapped = raw.mapped;
    b->size = desc->size;
    b->texel_only = desc->texel_only;
    eddy_copy_label(b->label, sizeof b->label, desc->label, "(unnamed)");
    eddy_set_name(e, VK_OBJECT_TYPE_BUFFER, (uint64_t)raw.buffer, b->label);
    eddy_buffer h = { id };
    /* Data shorter than the buffer: only its bytes are read, the rest is zero. */
    uint64_t data = desc->data ? (desc->data_size ? desc->data_size : desc->size) : 0;
    eddy_result r = data < size ? eddy_buffer_fill(e, h, 0, size, 0) : EDDY_OK;
    if (r == EDDY_OK && data)
        r = eddy_buffer_upload(e, h, 0, data, desc->data);
    if (r != EDDY_OK) {
        eddy_destroy_buffer(e, h);
        return none;
    }
    return h;
}

void eddy_destroy_buffer(eddy_engine *e, eddy_buffer h)
{
    EDDY_ENGINE_GUARD(e, return);
    eddy_buffer_obj *b = eddy_buffer_get(e, h);
    if (!b)
        return;
    eddy_staged_forget(e, h.id);
    eddy_deferred d = { .use = b->use, .buffer = b->buffer, .alloc = b->alloc };
    memcpy(d.buffer_views, b->views, sizeof d.buffer_views);
    eddy_defer(e, &d);
    eddy_pool_free(&e->buffers, h.id);
    e->destroys++;
}

/* At engine destruction, after eddy_release_deferred: nothing runs. */
void eddy_destroy_all_buffers(eddy_engine *e)
{
    for (uint32_t i = 0; i < e->buffers.count; i++) {
        eddy_buffer_obj *b = (eddy_buffer_obj *)(e->buffers.items + (size_t)i * e->buffers.elem_size);
        if (b->slot.live) {
            for (int v = 0; v < EDDY_TEXEL_VIEWS; v++)
                if (b->views[v])
                    e->vk.vkDestroyBufferView(e->device, b->views[v], NULL);
            raw_buffer raw = { b->buffer, b->alloc, b->mapped };
            destroy_raw(e, &raw);
            b->slot.live = false;
        }
    }
}

uint32_t eddy_texel_size(int32_t format)
{
    switch (format) {
    case VK_FORMAT_R32_SFLOAT:
    case VK_FORMAT_R32_SINT:
    case VK_FORMAT_R32_UINT: return 4;
    case VK_FORMAT_R32G32_SFLOAT: return 8;
    default: return 16;
    }
}

eddy_result eddy_buffer_texel_check(eddy_engine *e, const eddy_buffer_obj *b, int32_t format, const char *what)
{
    uint32_t ts = eddy_texel_size(format);
    VkFormatProperties fp;
    e->vki.vkGetPhysicalDeviceFormatProperties(e->physical_device, (VkFormat)format, &fp);
    if (!(fp.bufferFeatures & VK_FORMAT_FEATURE_STORAGE_TEXEL_BUFFER_BIT)) {
        eddy_log(e, EDDY_LOG_ERROR, "pass.binding", "%s: buffer '%s' is read as a storage texel buffer of VkFormat %d, "
                 "which device '%s' cannot view buffers in", what, b->label, (int)format, e->info.name);
        return EDDY_ERROR_UNSUPPORTED;
    }
    if (b->size < ts) {
        eddy_log(e, EDDY_LOG_ERROR, "pass.binding", "%s: buffer '%s' (%" PRIu64 " bytes) is read as a storage texel "
                 "buffer of %u-byte texels; expected at least one texel", what, b->label, b->size, ts);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (b->size / ts > e->info.max_texel_buffer_elements) {
        eddy_log(e, EDDY_LOG_ERROR, "pass.binding", "%s: buffer '%s' holds %" PRIu64 " texels of %u bytes, over the "
                 "device's maxTexelBufferElements of %u ('%s')", what, b->label, b->size / ts, ts,
                 e->info.max_texel_buffer_elements, e->info.name);
        return EDDY_ERROR_LIMIT;
    }
    return EDDY_OK;
}

VkBufferView eddy_buffer_texel_view(eddy_engine *e, eddy_buffer_obj *b, int32_t format)
{
    int free_slot = -1;
    for (int v = 0; v < EDDY_TEXEL_VIEWS; v++) {
        if (b->views[v] && b->view_formats[v] == format)
            return b->views[v];
        if (!b->views[v] && free_slot < 0)
            free_slot = v;
    }
    if (free_slot < 0) {
        eddy_log(e, EDDY_LOG_ERROR, "pass.binding", "buffer '%s' is read as texels of more than %d formats",
                 b->label, EDDY_TEXEL_VIEWS);
        return VK_NULL_HANDLE;
    }
    uint32_t ts = eddy_texel_size(format);
    VkBufferViewCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO,
        .buffer = b->buffer,
        .format = (VkFormat)format,
        .offset = 0,
        .range = b->size / ts * ts,
    };
    VkBufferView view;
    VkResult r = e->vk.vkCreateBufferView(e->device, &ci, NULL, &view);
    if (r != VK_SUCCESS) {
        eddy_vk_fail(e, r, "vkCreateBufferView");
        return VK_NULL_HANDLE;
    }
    b->views[free_slot] = view;
    b->view_formats[free_slot] = format;
    return view;
}

uint64_t eddy_buffer_size(eddy_engine *e, eddy_buffer h)
{
    EDDY_ENGINE_GUARD(e, return 0);
    eddy_buffer_obj *b = eddy_buffer_query(e, h, __func__);
    return b ? b->size : 0;
}

const char *eddy_buffer_label(eddy_engine *e, eddy_buffer h)
{
    EDDY_ENGINE_GUARD(e, return NULL);
    eddy_buffer_obj *b = eddy_buffer_query(e, h, __func__);
    return b ? b->label : "(none)";
}

static eddy_buffer_obj *checked(eddy_engine *e, eddy_buffer h, uint64_t offset, uint64_t size,
                                const char *what)
{
    eddy_buffer_obj *b = eddy_buffer_get(e, h);
    if (!b) {
        eddy_log(e, EDDY_LOG_ERROR, "handle.invalid", "%s: not a live buffer handle (id %u)", what, h.id);
        return NULL;
    }
    if (offset > b->size || size > b->size - offset) {
        eddy_log(e, EDDY_LOG_ERROR,
                 "buffer.range", "%s: bytes [%" PRIu64 ", %" PRIu64 ") lie outside buffer '%s' of %" PRIu64 " bytes",
                 what, offset, offset + size, b->label, b->size);
        return NULL;
    }
    return b;
}

/* Moves bytes between host memory and a buffer: a memcpy where the buffer is
 * mapped, else through a staging buffer in chunks of at most STAGING_CHUNK. */
static eddy_result transfer(eddy_engine *e, eddy_buffer h, uint64_t offset, uint64_t size,
                            char *host, bool upload)
{
    eddy_buffer_obj *b = checked(e, h, offset, size, upload ? "upload" : "download");
    if (!b)
        return EDDY_ERROR_INVALID_ARGUMENT;
    if (size == 0)
        return EDDY_OK;
    if (!host) {
        eddy_log(e, EDDY_LOG_ERROR, "buffer.invalid", "%s of '%s': no host memory given for %" PRIu64 " bytes",
                 upload ? "upload" : "download", b->label, size);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (b->mapped) {
        /* Only the buffer's own last use: the GPU may still read what an
         * upload overwrites or write what a download reads. */
        eddy_result r = eddy_wait_use(e, b->use);
        if (r != EDDY_OK)
            return r;
        char *dev = (char *)b->mapped + offset;
        memcpy(upload ? dev : host, upload ? host : dev, size);
        return EDDY_OK;
    }
    /* Through the persistent ring: no allocation per transfer. */
    return eddy_ring_transfer(e, b->buffer, offset, size, host, upload);
}

eddy_result eddy_buffer_upload(eddy_engine *e, eddy_buffer h, uint64_t offset, uint64_t size,
                               const void *data)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    /* transfer() only reads the host side when uploading. */
    return transfer(e, h, offset, size, (char *)(uintptr_t)data, true);
}

eddy_result eddy_buffer_download(eddy_engine *e, eddy_buffer h, uint64_t offset, uint64_t size,
                                 void *data)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    return transfer(e, h, offset, size, data, false);
}

eddy_result eddy_buffer_fill(eddy_engine *e, eddy_buffer h, uint64_t offset, uint64_t size,
                             uint32_t value)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    eddy_buffer_obj *b = eddy_buffer_get(e, h);
    /* The allocation is rounded up to 4 bytes; a fill may cover that tail. */
    uint64_t cap = b ? (b->size + 3) & ~3ull : 0;
    if (!b || offset % 4 || size % 4 || offset > cap || size > cap - offset) {
        eddy_log(e, EDDY_LOG_ERROR,
                 "buffer.invalid", "fill: bytes [%" PRIu64 ", %" PRIu64 ") must be 4-byte aligned and inside "
                 "buffer '%s' (%" PRIu64 " bytes)",
                 offset, offset + size, b ? b->label : "(none)", b ? b->size : 0);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (size == 0)
        return EDDY_OK;
    VkCommandBuffer cb;
    eddy_result res = eddy_begin_transfer(e, &cb);
    if (res != EDDY_OK)
        return res;
    e->vk.vkCmdFillBuffer(cb, b->buffer, offset, size, value);
    return eddy_end_transfer(e);
}

eddy_result eddy_buffer_copy(eddy_engine *e, eddy_buffer src, uint64_t src_offset,
                             eddy_buffer dst, uint64_t dst_offset, uint64_t size)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    eddy_buffer_obj *s = checked(e, src, src_offset, size, "copy source");
    eddy_buffer_obj *d = checked(e, dst, dst_offset, size, "copy destination");
    if (!s || !d)
        return EDDY_ERROR_INVALID_ARGUMENT;
    if (s == d && src_offset < dst_offset + size && dst_offset < src_offset + size) {
        eddy_log(e, EDDY_LOG_ERROR, "buffer.invalid", "copy: source and destination ranges of '%s' overlap",
                 s->label);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (size == 0)
        return EDDY_OK;
    VkCommandBuffer cb;
    eddy_result res = eddy_begin_transfer(e, &cb);
    if (res != EDDY_OK)
        return res;
    VkBufferCopy region = { src_offset, dst_offset, size };
    e->vk.vkCmdCopyBuffer(cb, s->buffer, d->buffer, 1, &region);
    return eddy_end_transfer(e);
}

eddy_result eddy_buffer_vk(eddy_engine *e, eddy_buffer h, eddy_vk_buffer *out)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    eddy_buffer_obj *b = eddy_buffer_get(e, h);
    if (!b) {
        eddy_log(e, EDDY_LOG_ERROR, "handle.invalid", "buffer_vk: not a live buffer handle (id %u)", h.id);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    *out = (eddy_vk_buffer){ b->buffer, 0, b->size };
    return EDDY_OK;
}

eddy_result eddy_submit(eddy_engine *e, const VkCommandBuffer *cbs, uint32_t count,
                        uint64_t *value)
{
    /* The value is taken only when the submit succeeds: a failed one must
     * not leave a value that never signals (eddy_wait would block). */
    uint64_t signal = e->timeline_value + 1;
    /* The host's semaphores (eddy_graph_submit_after) gate every command. */
    VkPipelineStageFlags stages[EDDY_SUBMIT_WAITS_MAX];
    for (uint32_t i = 0; i < e->submit_wait_count; i++)
        stages[i] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    VkTimelineSemaphoreSubmitInfo ti = {
        .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
        .waitSemaphoreValueCount = e->submit_wait_count,
        .pWaitSemaphoreValues = e->submit_wait_value,
        .signalSemaphoreValueCount = 1,
        .pSignalSemaphoreValues = &signal,
    };
    VkSubmitInfo si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .pNext = &ti,
        .waitSemaphoreCount = e->submit_wait_count,
        .pWaitSemaphores = e->submit_wait_sem,
        .pWaitDstStageMask = stages,
        .commandBufferCount = count,
        .pCommandBuffers = cbs,
        .signalSemaphoreCount = 1,
        .pSignalSemaphores = &e->timeline,
    };
    /* eddy's own tests make a submit fail as on a lost device through the
     * environment, so that no test hook is exported from the library. */
    VkResult r = getenv("EDDY_TESTING_FAIL_SUBMIT") ? VK_ERROR_DEVICE_LOST
                                                    : e->vk.vkQueueSubmit(e->queue, 1, &si, VK_NULL_HANDLE);
    e->submit_wait_count = 0;
    if (r != VK_SUCCESS)
        return eddy_vk_fail(e, r, "vkQueueSubmit");
    e->timeline_value = signal;
    e->submits++;
    if (value)
        *value = signal;
    eddy_collect(e);
    return EDDY_OK;
}

eddy_result eddy_wait(eddy_engine *e, uint64_t value, uint64_t timeout_ns)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    if (value > e->timeline_value) {
        eddy_log(e, EDDY_LOG_ERROR, "wait.unsubmitted", "wait: timeline value %" PRIu64 " was never submitted (the last is %" PRIu64
                 "); nothing would signal it", value, e->timeline_value);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    VkSemaphoreWaitInfo wi = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
        .semaphoreCount = 1,
        .pSemaphores = &e->timeline,
        .pValues = &value,
    };
    e->waits++;
    VkResult r = e->vk.vkWaitSemaphores(e->device, &wi, timeout_ns);
    if (r == VK_TIMEOUT)
        return EDDY_TIMEOUT;
    if (r != VK_SUCCESS)
        return eddy_vk_fail(e, r, "vkWaitSemaphores");
    if (value > e->completed)
        e->completed = value;
    eddy_collect(e); /* staged reads land here */
    return EDDY_OK;
}
