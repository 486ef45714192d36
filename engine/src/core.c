/* Handle pools, logging, result strings. */
#include "internal.h"

#include <ctype.h>

void *eddy_pool_get(eddy_pool *p, uint32_t id)
{
    uint32_t index = (id & ((1u << EDDY_ID_INDEX_BITS) - 1)) - 1;
    if (id == 0 || index >= p->count)
        return NULL;
    eddy_slot *s = (eddy_slot *)(p->items + (size_t)index * p->elem_size);
    if (!s->live || s->generation != (id >> EDDY_ID_INDEX_BITS))
        return NULL;
    return s;
}

void *eddy_pool_query(eddy_engine *e, eddy_pool *p, uint32_t id, const char *fn, const char *kind)
{
    void *obj = eddy_pool_get(p, id);
    if (!obj && id)
        eddy_log(e, EDDY_LOG_ERROR, "handle.invalid", "%s: the %s handle 0x%08x is not live (destroyed, or "
                 "another engine's)", fn, kind, id);
    return obj;
}

void eddy_null_engine(const char *fn)
{
    fprintf(stderr, "eddy error [handle.invalid]: %s: the engine is NULL\n", fn);
}

void *eddy_pool_alloc(eddy_pool *p, uint32_t *id)
{
    uint32_t index = 0;
    while (index < p->count && ((eddy_slot *)(p->items + (size_t)index * p->elem_size))->live)
        index++;
    if (index == p->count) {
        if (p->count + 1 >= (1u << EDDY_ID_INDEX_BITS))
            return NULL;
        if (p->count == p->cap) {
            uint32_t cap = p->cap ? p->cap * 2 : 16;
            unsigned char *items = realloc(p->items, (size_t)cap * p->elem_size);
            if (!items)
                return NULL;
            p->items = items;
            p->cap = cap;
        }
        memset(p->items + (size_t)index * p->elem_size, 0, p->elem_size);
        p->count++;
    }
    eddy_slot *s = (eddy_slot *)(p->items + (size_t)index * p->elem_size);
    /* Generation 0 is never handed out, so that a zeroed handle never matches. */
    uint32_t generation = (s->generation + 1) & ((1u << (32 - EDDY_ID_INDEX_BITS)) - 1);
    if (generation == 0)
        generation = 1;
    memset(s, 0, p->elem_size);
    s->generation = generation;
    s->live = true;
    *id = (generation << EDDY_ID_INDEX_BITS) | (index + 1);
    return s;
}

void eddy_pool_free(eddy_pool *p, uint32_t id)
{
    eddy_slot *s = eddy_pool_get(p, id);
    if (s)
        s->live = false;
}

void eddy_pool_release(eddy_pool *p)
{
    free(p->items);
    p->items = NULL;
    p->count = p->cap = 0;
}

const char *eddy_result_string(eddy_result r)
{
    switch (r) {
    case EDDY_TIMEOUT: return "timed out";
    case EDDY_OK: return "ok";
    case EDDY_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case EDDY_ERROR_VULKAN: return "Vulkan error";
    case EDDY_ERROR_OUT_OF_MEMORY: return "out of memory";
    case EDDY_ERROR_LIMIT: return "over a device limit";
    case EDDY_ERROR_IO: return "input/output error";
    case EDDY_ERROR_PARSE: return "parse error";
    case EDDY_ERROR_NOT_FOUND: return "not found";
    case EDDY_ERROR_ABI: return "module ABI mismatch";
    case EDDY_ERROR_UNSUPPORTED: return "unsupported";
    }
    return "unknown error";
}

eddy_result eddy_desc_read(eddy_engine *e, const char *type, const void *desc, uint32_t min_size, uint32_t size,
                           void *out)
{
    uint32_t got = desc ? *(const uint32_t *)desc : 0;
    if (got && got >= min_size && got <= size) {
        memcpy(out, desc, got);
        memset((char *)out + got, 0, size - got);
        return EDDY_OK;
    }
    const char *why = !desc ? "is NULL" : !got ? "has struct_size 0" : got < min_size ? "is smaller" : "is larger";
    if (e)
        eddy_log(e, EDDY_LOG_ERROR, "desc.size", "%s %s (%u bytes): expected struct_size = sizeof(%s) = %u "
                 "(EDDY_SIZED(%s)); a larger one comes from a newer eddy than this %d.%d.%d", type ? type : "desc",
                 why, got, type ? type : "desc", size, type ? type : "desc", EDDY_VERSION_MAJOR, EDDY_VERSION_MINOR,
                 EDDY_VERSION_PATCH);
    else
        fprintf(stderr, "eddy error [desc.size]: %s %s (%u bytes): expected struct_size = sizeof(%s) = %u\n",
                type ? type : "desc", why, got, type ? type : "desc", size);
    return EDDY_ERROR_ABI;
}

const char *eddy_vk_result_string(VkResult r)
{
    switch (r) {
#define C(x) case x: return #x;
        C(VK_SUCCESS) C(VK_NOT_READY) C(VK_TIMEOUT) C(VK_INCOMPLETE)
        C(VK_ERROR_OUT_OF_HOST_MEMORY) C(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        C(VK_ERROR_INITIALIZATION_FAILED) C(VK_ERROR_DEVICE_LOST)
        C(VK_ERROR_MEMORY_MAP_FAILED) C(VK_ERROR_LAYER_NOT_PRESENT)
        C(VK_ERROR_EXTENSION_NOT_PRESENT) C(VK_ERROR_FEATURE_NOT_PRESENT)
        C(VK_ERROR_INCOMPATIBLE_DRIVER) C(VK_ERROR_TOO_MANY_OBJECTS)
        C(VK_ERROR_FORMAT_NOT_SUPPORTED) C(VK_ERROR_FRAGMENTED_POOL)
        C(VK_ERROR_OUT_OF_POOL_MEMORY) C(VK_ERROR_INVALID_SHADER_NV)
        C(VK_ERROR_UNKNOWN)
#undef C
    default: return "VkResult(other)";
    }
}

static const char *level_name(eddy_log_level level)
{
    switch (level) {
    case EDDY_LOG_DEBUG: return "debug";
    case EDDY_LOG_INFO: return "info";
    case EDDY_LOG_WARN: return "warning";
    case EDDY_LOG_ERROR: return "error";
    }
    return "?";
}

void eddy_logv(eddy_engine *e, eddy_log_level level, const char *source, const char *id,
               const char *fmt, va_list ap)
{
    if (!source)
        source = "eddy";
    if (!id || !*id)
        id = "message.unidentified";
    /* Only eddy's own: a validation message may arrive on a driver thread. */
    bool own_error = e && level == EDDY_LOG_ERROR && !strcmp(source, "eddy");
    if (own_error)
        snprintf(e->last_error, sizeof e->last_error, "%s", id);
    if (level == EDDY_LOG_DEBUG && !(e && e->verbose))
        return;
    if (e && e->quiet && level < EDDY_LOG_ERROR && !strcmp(source, "eddy"))
        return;
    char msg[2048];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (own_error)
        snprintf(e->last_error_text, sizeof e->last_error_text, "%.511s", msg);
    if (e && e->log) {
        e->log(e->log_user, level, source, id, msg);
        return;
    }
    if (!strcmp(source, "eddy"))
        fprintf(stderr, "eddy %s [%s]: %s\n", level_name(level), id, msg);
    else
        fprintf(stderr, "eddy %s %s [%s]: %s\n", level_name(level), source, id, msg);
}

void eddy_log(eddy_engine *e, eddy_log_level level, const char *id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    eddy_logv(e, level, NULL, id, fmt, ap);
    va_end(ap);
}

bool eddy_log_quiet(eddy_engine *e, bool quiet)
{
    if (!e)
        return false;
    bool was = e->quiet;
    e->quiet = quiet;
    return was;
}

const char *eddy_last_error(const eddy_engine *e)
{
    return e ? e->last_error : "";
}

const char *eddy_last_error_text(const eddy_engine *e)
{
    return e ? e->last_error_text : "";
}

eddy_result eddy_vk_fail(eddy_engine *e, VkResult r, const char *what)
{
    bool oom = r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY;
    eddy_log(e, EDDY_LOG_ERROR,
             r == VK_ERROR_OUT_OF_DEVICE_MEMORY ? "memory.device"
             : r == VK_ERROR_OUT_OF_HOST_MEMORY ? "memory.host"
                                                : "vulkan.call",
             "%s failed: %s", what, eddy_vk_result_string(r));
    if (oom)
        return EDDY_ERROR_OUT_OF_MEMORY;
    return EDDY_ERROR_VULKAN;
}

void eddy_copy_label(char *dst, size_t cap, const char *src, const char *fallback)
{
    snprintf(dst, cap, "%s", src && *src ? src : fallback);
}

void eddy_set_name(eddy_engine *e, VkObjectType type, uint64_t handle, const char *name)
{
    if (!e->debug_utils || !e->vki.vkSetDebugUtilsObjectNameEXT || !name)
        return;
    /* The prefix marks eddy's objects in the layer's messages: on a host's
     * instance it is how eddy's messenger (and the host's) tells them apart
     * (device.c, debug_callback). */
    char full[160];
    snprintf(full, sizeof full, "%s%s", EDDY_OBJECT_NAME_PREFIX, name);
    VkDebugUtilsObjectNameInfoEXT info = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
        .objectType = type,
        .objectHandle = handle,
        .pObjectName = full,
    };
    e->vki.vkSetDebugUtilsObjectNameEXT(e->device, &info);
}

uint32_t eddy_validation_message_count(const eddy_engine *e)
{
    return e ? __atomic_load_n(&e->validation_messages, __ATOMIC_SEQ_CST) : 0;
}
