/* Transfers through two persistent rings, allocated once an engine: uploads
 * through host-visible coherent memory, downloads through host-cached
 * memory. No allocation per transfer.
 *
 * Staged I/O: small per-step inputs (a tool's position, a changed parameter)
 * and results (a tool's force) ride on the next graph submission instead of
 * transfers of their own: writes are copied into their buffers at the start
 * of the submission's command buffers, reads are copied out at its end and
 * land in the caller's memory when that submission is waited for. A step is
 * then one submit and one wait. A host's recording (eddy_graph_record)
 * carries them the same way into the host's command buffer; its ring space
 * and reads are then held by the recording's host mark instead of a timeline
 * value. */
#include "internal.h"

#include <inttypes.h>

#define RING_BYTES (8ull << 20)
#define PENDING UINT64_MAX

typedef struct ring_span {
    uint64_t end;   /* head after this reservation */
    eddy_use use;   /* what frees it; use.value PENDING until submitted or recorded */
} ring_span;

struct eddy_ring {
    VkBuffer buffer;
    eddy_alloc alloc;
    unsigned char *mapped;
    uint64_t size;
    uint64_t head, tail; /* bytes reserved and released so far (monotonic) */
    ring_span *spans;    /* in order */
    uint32_t span_count, span_cap;
};

typedef struct staged_write {
    uint32_t buffer; /* id */
    uint64_t offset, size, ring_offset;
} staged_write;

typedef struct staged_read {
    uint32_t buffer;
    uint64_t offset, size, ring_offset;
    void *out;
    eddy_use use; /* use.value PENDING until submitted or recorded */
} staged_read;

/* A command buffer of staged copies, reused once its submission is done. */
typedef struct spare_cb {
    VkCommandBuffer cb;
    uint64_t value;
} spare_cb;

struct eddy_staged {
    staged_write *writes;
    uint32_t write_count, write_cap;
    staged_read *reads;
    uint32_t read_count, read_cap;
    spare_cb *spare; /* recycled: no command buffer allocation a step */
    uint32_t spare_count, spare_cap;
};

static bool grow(void **items, uint32_t *cap, uint32_t count, size_t size)
{
    if (count < *cap)
        return true;
    uint32_t n = *cap ? 2 * *cap : 16;
    void *grown = realloc(*items, n * size);
    if (!grown)
        return false;
    *items = grown;
    *cap = n;
    return true;
}

static eddy_result ring_create(eddy_engine *e, bool upload, struct eddy_ring **out)
{
    struct eddy_ring *r = calloc(1, sizeof *r);
    if (!r)
        return EDDY_ERROR_OUT_OF_MEMORY;
    VkBufferCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = RING_BYTES,
        .usage = upload ? VK_BUFFER_USAGE_TRANSFER_SRC_BIT : VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    VkResult vr = e->vk.vkCreateBuffer(e->device, &ci, NULL, &r->buffer);
    if (vr != VK_SUCCESS) {
        free(r);
        return eddy_vk_fail(e, vr, "vkCreateBuffer (transfer ring)");
    }
    VkMemoryRequirements req;
    e->vk.vkGetBufferMemoryRequirements(e->device, r->buffer, &req);
    const char *label = upload ? "eddy.upload_ring" : "eddy.download_ring";
    eddy_result res = eddy_mem_alloc(e, &req, upload ? EDDY_MEM_UPLOAD : EDDY_MEM_READBACK, false, label, &r->alloc);
    if (res == EDDY_OK && (!r->alloc.mapped || !eddy_mem_host_coherent_visible(e, &r->alloc))) {
        eddy_log(e, EDDY_LOG_ERROR, "device.unsupported", "%s: no host-visible coherent memory for transfers", label);
        res = EDDY_ERROR_UNSUPPORTED;
    }
    if (res == EDDY_OK) {
        vr = e->vk.vkBindBufferMemory(e->device, r->buffer, r->alloc.memory, r->alloc.offset);
        if (vr != VK_SUCCESS)
            res = eddy_vk_fail(e, vr, "vkBindBufferMemory (transfer ring)");
    }
    if (res != EDDY_OK) {
        eddy_mem_free(e, &r->alloc);
        e->vk.vkDestroyBuffer(e->device, r->buffer, NULL);
        free(r);
        return res;
    }
    eddy_set_name(e, VK_OBJECT_TYPE_BUFFER, (uint64_t)r->buffer, label);
    r->mapped = r->alloc.mapped;
    r->size = RING_BYTES;
    *out = r;
    return EDDY_OK;
}

static void ring_destroy(eddy_engine *e, struct eddy_ring *r)
{
    if (!r)
        return;
    e->vk.vkDestroyBuffer(e->device, r->buffer, NULL);
    eddy_mem_free(e, &r->alloc);
    free(r->spans);
    free(r);
}

void eddy_staged_collect(eddy_engine *e);

/* Frees the spans whose submissions or host recordings have finished;
 * staged reads up to them are copied out first, so a freed download span
 * holds nothing still to be read. */
static void ring_reclaim(eddy_engine *e, struct eddy_ring *r)
{
    eddy_completed(e); /* the timeline's value, read once for the spans below */
    eddy_staged_collect(e);
    uint32_t done = 0;
    while (done < r->span_count && r->spans[done].use.value != PENDING && eddy_use_done(e, r->spans[done].use))
        r->tail = r->spans[done++].end;
    if (done) {
        memmove(r->spans, r->spans + done, (r->span_count - done) * sizeof *r->spans);
        r->span_count -= done;
    }
    if (!r->span_count)
        r->tail = r->head;
}

/* size bytes (<= half the ring) at a 16-byte aligned offset; waits for the
 * oldest submitted span when the ring is full. */
static eddy_result ring_reserve(eddy_engine *e, struct eddy_ring *r, uint64_t size, uint64_t *offset)
{
    size = (size + 15) & ~15ull;
    for (;;) {
        ring_reclaim(e, r);
        uint64_t at = r->head % r->size;
        uint64_t pad = at + size > r->size ? r->size - at : 0; /* no span wraps */
        if (r->head + pad + size - r->tail <= r->size) {
            if (!grow((void **)&r->spans, &r->span_cap, r->span_count, sizeof *r->spans))
                return EDDY_ERROR_OUT_OF_MEMORY;
            r->head += pad;
            *offset = r->head % r->size;
            r->head += size;
            r->spans[r->span_count++] = (ring_span){ r->head, { PENDING, 0 } };
            return EDDY_OK;
        }
        if (!r->span_count || r->spans[0].use.value == PENDING) {
            /* Everything held is still waiting for a submission: staged I/O
             * larger than the ring. */
            eddy_log(e, EDDY_LOG_ERROR, "transfer.too_large", "staged transfers: more than %" PRIu64 " bytes queued for one "
                     "submission; use eddy_buffer_upload/download for large data", r->size / 2);
            return EDDY_ERROR_LIMIT;
        }
        eddy_result res = eddy_wait_use(e, r->spans[0].use);
        if (res != EDDY_OK)
            return res;
        if (!eddy_use_done(e, r->spans[0].use)) {
            /* Held by a host recording without a done_semaphore: only the
             * host can say it has finished. */
            eddy_log(e, EDDY_LOG_ERROR, "record.unfinished", "staged transfers: the %" PRIu64 "-byte ring is held "
                     "by host recordings not known to have finished; call eddy_recorded_work_done once they have, "
                     "or give eddy_record_desc.done_semaphore", r->size);
            return EDDY_ERROR_LIMIT;
        }
    }
}

/* Gives every pending span of the ring the use of the submission or host
 * recording that carries it. */
static void ring_submitted(struct eddy_ring *r, eddy_use use)
{
    /* Every pending span, not only the trailing ones: a direct transfer
     * between a staged one and its submission holds a span of its own
     * after it, and a staged span left pending would never be reclaimed
     * (the ring would fill and refuse with transfer.too_large). */
    for (uint32_t i = 0; i < r->span_count; i++)
        if (r->spans[i].use.value == PENDING)
            r->spans[i].use = use;
}

eddy_result eddy_rings_create(eddy_engine *e)
{
    e->staged = calloc(1, sizeof *e->staged);
    if (!e->staged)
        return EDDY_ERROR_OUT_OF_MEMORY;
    eddy_result r = ring_create(e, true, &e->upload_ring);
    if (r == EDDY_OK)
        r = ring_create(e, false, &e->download_ring);
    return r;
}

void eddy_rings_destroy(eddy_engine *e)
{
    ring_destroy(e, e->upload_ring);
    ring_destroy(e, e->download_ring);
    e->upload_ring = e->download_ring = NULL;
    if (e->staged) {
        /* The engine waited for all its work before this. */
        for (uint32_t i = 0; i < e->staged->spare_count; i++)
            e->vk.vkFreeCommandBuffers(e->device, e->command_pool, 1, &e->staged->spare[i].cb);
        free(e->staged->spare);
        free(e->staged->writes);
        free(e->staged->reads);
        free(e->staged);
        e->staged = NULL;
    }
}

eddy_result eddy_ring_chunks(eddy_engine *e, bool upload, char *host, uint64_t unit_bytes, uint64_t units,
                             eddy_ring_record_fn record, void *user)
{
    struct eddy_ring *r = upload ? e->upload_ring : e->download_ring;
    uint64_t per = r->size / 2 / unit_bytes; /* units a chunk */
    if (!per) {
        eddy_log(e, EDDY_LOG_ERROR, "transfer.too_large", "transfer: a unit of %" PRIu64 " bytes is larger than half the %" PRIu64
                 "-byte transfer ring", unit_bytes, r->size);
        return EDDY_ERROR_LIMIT;
    }
    for (uint64_t done = 0; done < units;) {
        uint64_t n = units - done < per ? units - done : per, bytes = n * unit_bytes, at;
        eddy_result res = ring_reserve(e, r, bytes, &at);
        if (res != EDDY_OK)
            return res;
        if (upload)
            memcpy(r->mapped + at, host + done * unit_bytes, bytes);
        VkCommandBuffer cb;
        res = eddy_begin_transfer(e, &cb);
        if (res == EDDY_OK)
            res = record(e, cb, r->buffer, at, done, n, user);
        if (res == EDDY_OK)
            res = eddy_end_transfer_value(e, &r->spans[r->span_count - 1].use.value);
        if (res != EDDY_OK) {
            /* Never submitted: the span goes at once. */
            if (r->span_count && r->spans[r->span_count - 1].use.value == PENDING)
                r->spans[r->span_count - 1].use.value = 0;
            return res;
        }
        if (!upload)
            memcpy(host + done * unit_bytes, r->mapped + at, bytes);
        done += n;
    }
    return EDDY_OK;
}

typedef struct buffer_copy {
    VkBuffer buffer;
    uint64_t offset;
    bool upload;
} buffer_copy;

static eddy_result record_buffer_copy(eddy_engine *e, VkCommandBuffer cb, VkBuffer ring, uint64_t ring_offset,
                                      uint64_t first, uint64_t count, void *user)
{
    const buffer_copy *c = user;
    VkBufferCopy region = { c->upload ? ring_offset : c->offset + first, c->upload ? c->offset + first : ring_offset,
                            count };
    e->vk.vkCmdCopyBuffer(cb, c->upload ? ring : c->buffer, c->upload ? c->buffer : ring, 1, &region);
    return EDDY_OK;
}

/* A synchronous transfer through a ring (eddy_buffer_upload / download
 * where the buffer is not mapped), in chunks of at most half the ring. */
eddy_result eddy_ring_transfer(eddy_engine *e, VkBuffer buffer, uint64_t offset, uint64_t size, char *host,
                               bool upload)
{
    buffer_copy c = { buffer, offset, upload };
    return eddy_ring_chunks(e, upload, host, 1, size, record_buffer_copy, &c);
}

/* Checks a staged transfer and reserves its ring space; *at = 0 bytes: a
 * zero-size request, nothing to queue. */
static eddy_result stage(eddy_engine *e, eddy_buffer h, uint64_t offset, uint64_t size, const void *host,
                         bool write, uint64_t *at, bool *none)
{
    const char *what = write ? "stage_write" : "stage_read";
    struct eddy_ring *ring = write ? e->upload_ring : e->download_ring;
    eddy_buffer_obj *b = eddy_buffer_get(e, h);
    *none = false;
    if (!b || offset > b->size || size > b->size - offset || (size && !host)) {
        eddy_log(e, EDDY_LOG_ERROR, "buffer.range", "%s: bytes [%" PRIu64 ", %" PRIu64 ") lie outside buffer '%s' "
                 "(%" PRIu64 " bytes), or no host memory given", what, offset, offset + size,
                 b ? b->label : "(none)", b ? b->size : 0);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (!size) {
        *none = true;
        return EDDY_OK;
    }
    if (size > ring->size / 2) {
        eddy_log(e, EDDY_LOG_ERROR, "transfer.too_large", "%s: %" PRIu64 " bytes of '%s' exceed the staged limit of %" PRIu64
                 "; use eddy_buffer_%s", what, size, b->label, ring->size / 2, write ? "upload" : "download");
        return EDDY_ERROR_LIMIT;
    }
    struct eddy_staged *st = e->staged;
    bool room = write ? grow((void **)&st->writes, &st->write_cap, st->write_count, sizeof *st->writes)
                      : grow((void **)&st->reads, &st->read_cap, st->read_count, sizeof *st->reads);
    return room ? ring_reserve(e, ring, size, at) : EDDY_ERROR_OUT_OF_MEMORY;
}

eddy_result eddy_buffer_stage_write(eddy_engine *e, eddy_buffer h, uint64_t offset, uint64_t size,
                                    const void *data)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    uint64_t at = 0;
    bool none;
    eddy_result r = stage(e, h, offset, size, data, true, &at, &none);
    if (r != EDDY_OK || none)
        return r;
    memcpy(e->upload_ring->mapped + at, data, size);
    e->staged->writes[e->staged->write_count++] = (staged_write){ h.id, offset, size, at };
    return EDDY_OK;
}

eddy_result eddy_buffer_stage_read(eddy_engine *e, eddy_buffer h, uint64_t offset, uint64_t size, void *out)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    uint64_t at = 0;
    bool none;
    eddy_result r = stage(e, h, offset, size, out, false, &at, &none);
    if (r != EDDY_OK || none)
        return r;
    e->staged->reads[e->staged->read_count++] = (staged_read){ h.id, offset, size, at, out, { PENDING, 0 } };
    return EDDY_OK;
}

bool eddy_staged_pending(const eddy_engine *e)
{
    const struct eddy_staged *st = e->staged;
    if (st->write_count)
        return true;
    for (uint32_t i = 0; i < st->read_count; i++)
        if (st->reads[i].use.value == PENDING)
            return true;
    return false;
}

/* Keeps a staged-copies command buffer for reuse once `value` has
 * signalled (0: never submitted, reusable now). */
static void give_back(eddy_engine *e, VkCommandBuffer cb, uint64_t value)
{
    struct eddy_staged *st = e->staged;
    if (!cb)
        return;
    if (grow((void **)&st->spare, &st->spare_cap, st->spare_count, sizeof *st->spare))
        st->spare[st->spare_count++] = (spare_cb){ cb, value };
    else
        eddy_defer(e, &(eddy_deferred){ .use = { value, 0 }, .cb = cb });
}

/* A command buffer in the recording state: a finished spare, reset, or a
 * new one while all spares are still in flight. */
static eddy_result one_time_cb(eddy_engine *e, VkCommandBuffer *cb)
{
    struct eddy_staged *st = e->staged;
    *cb = VK_NULL_HANDLE;
    VkResult r = VK_SUCCESS;
    for (uint32_t i = 0; i < st->spare_count && !*cb; i++)
        if (eddy_use_done(e, (eddy_use){ st->spare[i].value, 0 })) {
            *cb = st->spare[i].cb;
            st->spare[i] = st->spare[--st->spare_count];
            r = e->vk.vkResetCommandBuffer(*cb, 0);
        }
    if (!*cb) {
        VkCommandBufferAllocateInfo ai = {
            .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
            .commandPool = e->command_pool,
            .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
            .commandBufferCount = 1,
        };
        r = e->vk.vkAllocateCommandBuffers(e->device, &ai, cb);
    }
    VkCommandBufferBeginInfo bi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    if (r == VK_SUCCESS)
        r = e->vk.vkBeginCommandBuffer(*cb, &bi);
    if (r != VK_SUCCESS) {
        if (*cb)
            e->vk.vkFreeCommandBuffers(e->device, e->command_pool, 1, cb);
        *cb = VK_NULL_HANDLE;
        return eddy_vk_fail(e, r, "staged transfers' command buffer");
    }
    return EDDY_OK;
}

/* The queued staged writes as copies into cb, between full barriers.
 * Writes land in call order: one that overlaps an earlier write of this
 * batch waits for it (a transfer barrier), so the later value wins (a system
 * set twice before a step, a tool placed then moved). */
static void record_writes(eddy_engine *e, VkCommandBuffer cb)
{
    struct eddy_staged *st = e->staged;
    eddy_cmd_barrier_in(e, cb);
    uint32_t window = 0;
    for (uint32_t i = 0; i < st->write_count; i++) {
        const staged_write *w = &st->writes[i];
        eddy_buffer_obj *b = eddy_pool_get(&e->buffers, w->buffer);
        if (!b)
            continue; /* destroyed since: nothing to write */
        bool overlaps = false;
        for (uint32_t j = window; j < i && !overlaps; j++) {
            const staged_write *o = &st->writes[j];
            overlaps = o->buffer == w->buffer && o->offset < w->offset + w->size && w->offset < o->offset + o->size;
        }
        if (overlaps) {
            VkMemoryBarrier mb = {
                .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                .dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
            };
            e->vk.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1,
                                       &mb, 0, NULL, 0, NULL);
            window = i;
        }
        VkBufferCopy region = { w->ring_offset, w->offset, w->size };
        e->vk.vkCmdCopyBuffer(cb, e->upload_ring->buffer, b->buffer, 1, &region);
    }
    eddy_cmd_barrier_out(e, cb);
}

static bool reads_queued(const struct eddy_staged *st)
{
    for (uint32_t i = 0; i < st->read_count; i++)
        if (st->reads[i].use.value == PENDING)
            return true;
    return false;
}

/* The queued staged reads as copies into the download ring, between full
 * barriers (the last one makes them visible to the host). */
static void record_reads(eddy_engine *e, VkCommandBuffer cb)
{
    struct eddy_staged *st = e->staged;
    eddy_cmd_barrier_in(e, cb);
    for (uint32_t i = 0; i < st->read_count; i++) {
        const staged_read *rd = &st->reads[i];
        eddy_buffer_obj *b = eddy_pool_get(&e->buffers, rd->buffer);
        if (rd->use.value != PENDING || !b)
            continue;
        VkBufferCopy region = { rd->offset, rd->ring_offset, rd->size };
        e->vk.vkCmdCopyBuffer(cb, b->buffer, e->download_ring->buffer, 1, &region);
    }
    eddy_cmd_barrier_out(e, cb);
}

static eddy_result staged_record(eddy_engine *e, VkCommandBuffer *pre, VkCommandBuffer *post)
{
    struct eddy_staged *st = e->staged;
    *pre = *post = VK_NULL_HANDLE;
    eddy_result r = EDDY_OK;
    if (st->write_count) {
        r = one_time_cb(e, pre);
        if (r != EDDY_OK)
            return r;
        record_writes(e, *pre);
        VkResult vr = e->vk.vkEndCommandBuffer(*pre);
        if (vr != VK_SUCCESS)
            r = eddy_vk_fail(e, vr, "vkEndCommandBuffer (staged writes)");
    }
    if (r == EDDY_OK && reads_queued(st)) {
        r = one_time_cb(e, post);
        if (r == EDDY_OK) {
            record_reads(e, *post);
            VkResult vr = e->vk.vkEndCommandBuffer(*post);
            if (vr != VK_SUCCESS)
                r = eddy_vk_fail(e, vr, "vkEndCommandBuffer (staged reads)");
        }
    }
    if (r != EDDY_OK) {
        give_back(e, *pre, 0);
        give_back(e, *post, 0);
        *pre = *post = VK_NULL_HANDLE;
    }
    return r;
}

/* The queued staged I/O now rides on `use` (a submission's timeline value
 * or a host recording's mark). */
static void staged_carried(eddy_engine *e, eddy_use use)
{
    struct eddy_staged *st = e->staged;
    for (uint32_t i = 0; i < st->write_count; i++) {
        eddy_buffer_obj *b = eddy_pool_get(&e->buffers, st->writes[i].buffer);
        if (b)
            eddy_use_merge(&b->use, use);
    }
    st->write_count = 0;
    for (uint32_t i = 0; i < st->read_count; i++)
        if (st->reads[i].use.value == PENDING) {
            st->reads[i].use = use;
            eddy_buffer_obj *b = eddy_pool_get(&e->buffers, st->reads[i].buffer);
            if (b)
                eddy_use_merge(&b->use, use);
        }
    ring_submitted(e->upload_ring, use);
    ring_submitted(e->download_ring, use);
}

static void staged_submitted(eddy_engine *e, uint64_t value, VkCommandBuffer pre, VkCommandBuffer post)
{
    staged_carried(e, (eddy_use){ value, 0 });
    give_back(e, pre, value);
    give_back(e, post, value);
}

void eddy_staged_record_writes(eddy_engine *e, VkCommandBuffer cb)
{
    if (e->staged->write_count)
        record_writes(e, cb);
}

void eddy_staged_record_reads(eddy_engine *e, VkCommandBuffer cb)
{
    if (reads_queued(e->staged))
        record_reads(e, cb);
}

void eddy_staged_recorded(eddy_engine *e, uint64_t epoch)
{
    if (eddy_staged_pending(e))
        staged_carried(e, (eddy_use){ 0, epoch });
}

/* A destroyed buffer's staged reads never land and its queued writes are
 * dropped: their owner is going (its `out` with it, perhaps), and the id
 * may name a new buffer later. */
void eddy_staged_forget(eddy_engine *e, uint32_t buffer)
{
    struct eddy_staged *st = e->staged;
    uint32_t kept = 0;
    for (uint32_t i = 0; st && i < st->read_count; i++)
        if (st->reads[i].buffer != buffer)
            st->reads[kept++] = st->reads[i];
    if (st)
        st->read_count = kept;
    kept = 0;
    for (uint32_t i = 0; st && i < st->write_count; i++)
        if (st->writes[i].buffer != buffer)
            st->writes[kept++] = st->writes[i];
    if (st)
        st->write_count = kept;
}

/* Staged reads whose submission or recording has finished land in their
 * destinations, in call order (several steps recorded into one command
 * buffer read into the same place: the last step's bytes stay). */
void eddy_staged_collect(eddy_engine *e)
{
    struct eddy_staged *st = e->staged;
    if (!st)
        return;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < st->read_count; i++) {
        staged_read *rd = &st->reads[i];
        if (rd->use.value != PENDING && eddy_use_done(e, rd->use))
            memcpy(rd->out, e->download_ring->mapped + rd->ring_offset, rd->size);
        else
            st->reads[kept++] = *rd;
    }
    st->read_count = kept;
}

eddy_result eddy_submit_staged(eddy_engine *e, const VkCommandBuffer *cbs, uint32_t count, uint64_t *value)
{
    VkCommandBuffer all[EDDY_SUBMIT_MAX + 2], pre = VK_NULL_HANDLE, post = VK_NULL_HANDLE;
    if (count > EDDY_SUBMIT_MAX)
        return EDDY_ERROR_INVALID_ARGUMENT;
    if (eddy_staged_pending(e)) {
        eddy_result r = staged_record(e, &pre, &post);
        if (r != EDDY_OK)
            return r;
    }
    uint32_t n = 0;
    if (pre)
        all[n++] = pre;
    for (uint32_t i = 0; i < count; i++)
        all[n++] = cbs[i];
    if (post)
        all[n++] = post;
    if (!n) {
        *value = e->timeline_value;
        return EDDY_OK;
    }
    eddy_result r = eddy_submit(e, all, n, value);
    if (r == EDDY_OK && (pre || post)) {
        staged_submitted(e, *value, pre, post);
    } else if (r != EDDY_OK) {
        /* Never submitted: the staged I/O waits for the next submission. */
        give_back(e, pre, 0);
        give_back(e, post, 0);
    }
    return r;
}

eddy_result eddy_flush_staged(eddy_engine *e)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    if (eddy_staged_pending(e)) {
        uint64_t v;
        eddy_result r = eddy_submit_staged(e, NULL, 0, &v);
        if (r != EDDY_OK)
            return r;
    }
    /* Reads in flight (a submission not waited for yet, a host recording
     * not finished yet): wait for the last. */
    eddy_staged_collect(e);
    eddy_use last = { 0, 0 };
    for (uint32_t i = 0; i < e->staged->read_count; i++)
        eddy_use_merge(&last, e->staged->reads[i].use);
    if (!last.value && !last.host_epoch)
        return EDDY_OK;
    eddy_result r = eddy_wait_use(e, last);
    if (r != EDDY_OK)
        return r;
    eddy_staged_collect(e);
    if (e->staged->read_count) {
        eddy_log(e, EDDY_LOG_ERROR, "record.unfinished", "staged reads wait for a host recording not known to "
                 "have finished; call eddy_recorded_work_done once it has, or give eddy_record_desc.done_semaphore");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    return EDDY_OK;
}
