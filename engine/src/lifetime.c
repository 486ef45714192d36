/* Deferred release: nothing is freed while the GPU, or a host command buffer
 * eddy recorded into, may still use it. Each resource carries its last use
 * (a value of the engine's timeline and a host epoch); destruction hands its
 * Vulkan objects here, and they go once that use has finished. Checked at
 * submits, waits and engine destruction, never by waiting on a whole queue:
 * an adopted queue carries the host's work too. */
#include "internal.h"

#include <inttypes.h>

uint64_t eddy_completed(eddy_engine *e)
{
    uint64_t v = 0;
    if (e->timeline && e->vk.vkGetSemaphoreCounterValue(e->device, e->timeline, &v) == VK_SUCCESS &&
        v > e->completed)
        e->completed = v;
    return e->completed;
}

/* Drops the host marks whose semaphore has reached its value. */
static void prune_marks(eddy_engine *e)
{
    for (uint32_t i = 0; i < e->mark_count;) {
        eddy_host_mark *m = &e->marks[i];
        uint64_t v = 0;
        if (m->semaphore && e->vk.vkGetSemaphoreCounterValue(e->device, m->semaphore, &v) == VK_SUCCESS &&
            v >= m->value)
            e->marks[i] = e->marks[--e->mark_count];
        else
            i++;
    }
}

static bool host_done(const eddy_engine *e, uint64_t epoch)
{
    for (uint32_t i = 0; i < e->mark_count; i++)
        if (e->marks[i].epoch <= epoch)
            return false;
    return true;
}

bool eddy_use_done(eddy_engine *e, eddy_use u)
{
    if (u.value > e->completed && u.value > eddy_completed(e))
        return false;
    if (u.host_epoch && !host_done(e, u.host_epoch)) {
        prune_marks(e);
        return host_done(e, u.host_epoch);
    }
    return true;
}

static void release(eddy_engine *e, const eddy_deferred *d)
{
    VkCommandBuffer cbs[3] = { d->cb, d->cb2, d->cb3 };
    for (int i = 0; i < 3; i++)
        if (cbs[i])
            e->vk.vkFreeCommandBuffers(e->device, e->command_pool, 1, &cbs[i]);
    if (d->pool)
        e->vk.vkDestroyDescriptorPool(e->device, d->pool, NULL);
    if (d->queries)
        e->vk.vkDestroyQueryPool(e->device, d->queries, NULL);
    if (d->pipeline)
        eddy_destroy_shared_pipeline(e, d->pipeline);
    for (int v = 0; v < EDDY_TEXEL_VIEWS; v++)
        if (d->buffer_views[v])
            e->vk.vkDestroyBufferView(e->device, d->buffer_views[v], NULL);
    if (d->buffer)
        e->vk.vkDestroyBuffer(e->device, d->buffer, NULL);
    if (d->sampler)
        e->vk.vkDestroySampler(e->device, d->sampler, NULL);
    if (d->view)
        e->vk.vkDestroyImageView(e->device, d->view, NULL);
    if (d->image)
        e->vk.vkDestroyImage(e->device, d->image, NULL);
    eddy_mem_free(e, &d->alloc);
}

void eddy_defer(eddy_engine *e, const eddy_deferred *d)
{
    if (eddy_use_done(e, d->use)) {
        release(e, d);
        return;
    }
    if (e->deferred_count == e->deferred_cap) {
        uint32_t cap = e->deferred_cap ? 2 * e->deferred_cap : 64;
        eddy_deferred *grown = realloc(e->deferred, cap * sizeof *grown);
        if (!grown) {
            /* No room to remember it: wait for its use instead, and keep it
             * (a leak, never a use after free) if a host mark may still hold it. */
            if (eddy_wait_use(e, d->use) == EDDY_OK && eddy_use_done(e, d->use))
                release(e, d);
            else
                eddy_log(e, EDDY_LOG_ERROR, "memory.host", "out of host memory deferring a release; "
                                            "the objects are kept until the process ends");
            return;
        }
        e->deferred = grown;
        e->deferred_cap = cap;
    }
    e->deferred[e->deferred_count++] = *d;
}

void eddy_collect(eddy_engine *e)
{
    eddy_staged_collect(e);
    if (!e->deferred_count)
        return;
    eddy_completed(e);
    prune_marks(e);
    for (uint32_t i = 0; i < e->deferred_count;) {
        if (eddy_use_done(e, e->deferred[i].use)) {
            eddy_deferred d = e->deferred[i];
            e->deferred[i] = e->deferred[--e->deferred_count];
            release(e, &d);
        } else {
            i++;
        }
    }
}

eddy_result eddy_wait_use(eddy_engine *e, eddy_use u)
{
    if (u.value > e->completed && u.value > eddy_completed(e)) {
        eddy_result r = eddy_wait(e, u.value, EDDY_WAIT_FOREVER);
        if (r != EDDY_OK)
            return r;
    }
    if (u.host_epoch) {
        prune_marks(e);
        for (uint32_t i = 0; i < e->mark_count; i++) {
            const eddy_host_mark *m = &e->marks[i];
            if (m->epoch > u.host_epoch || !m->semaphore)
                continue;
            VkSemaphoreWaitInfo wi = {
                .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                .semaphoreCount = 1,
                .pSemaphores = &m->semaphore,
                .pValues = &m->value,
            };
            VkResult r = e->vk.vkWaitSemaphores(e->device, &wi, UINT64_MAX);
            if (r != VK_SUCCESS)
                return eddy_vk_fail(e, r, "vkWaitSemaphores (a host recording's semaphore)");
        }
        prune_marks(e);
    }
    return EDDY_OK;
}

void eddy_release_deferred(eddy_engine *e)
{
    eddy_wait_use(e, (eddy_use){ e->timeline_value, e->host_epoch });
    for (uint32_t i = 0; i < e->deferred_count; i++)
        release(e, &e->deferred[i]);
    free(e->deferred);
    free(e->marks);
    e->deferred = NULL;
    e->marks = NULL;
    e->deferred_count = e->deferred_cap = e->mark_count = e->mark_cap = 0;
}

uint64_t eddy_host_mark_add(eddy_engine *e, VkSemaphore semaphore, uint64_t value)
{
    if (e->mark_count == e->mark_cap) {
        uint32_t cap = e->mark_cap ? 2 * e->mark_cap : 16;
        eddy_host_mark *grown = realloc(e->marks, cap * sizeof *grown);
        if (!grown)
            return 0;
        e->marks = grown;
        e->mark_cap = cap;
    }
    e->marks[e->mark_count++] = (eddy_host_mark){ ++e->host_epoch, semaphore, value };
    return e->host_epoch;
}

void eddy_recorded_work_done(eddy_engine *e)
{
    EDDY_ENGINE_GUARD(e, return);
    for (uint32_t i = 0; i < e->mark_count;)
        if (!e->marks[i].semaphore)
            e->marks[i] = e->marks[--e->mark_count];
        else
            i++;
    eddy_collect(e);
}

eddy_result eddy_poll_idle(eddy_engine *e)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    eddy_collect(e);
    return eddy_use_done(e, (eddy_use){ e->timeline_value, e->host_epoch }) ? EDDY_OK : EDDY_TIMEOUT;
}

eddy_result eddy_wait_recorded(eddy_engine *e)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    eddy_use all = { 0, e->host_epoch };
    eddy_result r = eddy_wait_use(e, all);
    if (r != EDDY_OK)
        return r;
    if (!eddy_use_done(e, all)) {
        eddy_log(e, EDDY_LOG_ERROR, "record.unfinished", "a host recording without a done_semaphore is not known to "
                 "have finished; call eddy_recorded_work_done once it has");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    eddy_collect(e);
    return EDDY_OK;
}

eddy_result eddy_wait_idle(eddy_engine *e)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    eddy_result r = eddy_wait_use(e, (eddy_use){ e->timeline_value, 0 });
    if (r == EDDY_OK)
        eddy_collect(e);
    return r;
}
