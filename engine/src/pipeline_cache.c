/* The pipeline cache on disk: one VkPipelineCache per engine, loaded at
 * creation from <dir>/<pipelineCacheUUID>.cache and written back at
 * destruction when pipelines were compiled. The file carries its own header
 * (device, driver version, UUID, size, hash) so that a cache from another
 * device or driver, or a damaged one, is ignored with a warning instead of
 * being handed to the driver. Written to a temporary name and renamed: two
 * processes starting and ending at once each leave a whole file (the last
 * rename wins). */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_MAGIC "EDDYPC01"
#define CACHE_MAX_BYTES (256ull << 20)

typedef struct cache_header {
    char magic[8];
    uint32_t vendor_id, device_id, driver_version, reserved;
    uint8_t uuid[VK_UUID_SIZE];
    uint64_t data_size;
    uint64_t data_hash;
} cache_header;

static uint64_t hash64(const void *data, size_t size)
{
    const unsigned char *b = data;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < size; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h ^ (h >> 29);
}

/* <dir>: the desc's, else EDDY_PIPELINE_CACHE_DIR, else $XDG_CACHE_HOME/eddy,
 * else $HOME/.cache/eddy; "" (anywhere) = no cache on disk. */
static bool cache_dir(const char *given, char *out, size_t cap)
{
    const char *env = getenv("EDDY_PIPELINE_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (given)
        n = snprintf(out, cap, "%s", given);
    else if (env)
        n = snprintf(out, cap, "%s", env);
    else if (xdg && *xdg)
        n = snprintf(out, cap, "%s/eddy", xdg);
    else if (home && *home)
        n = snprintf(out, cap, "%s/.cache/eddy", home);
    else
        return false;
    return n > 0 && (size_t)n < cap;
}

/* Creates the folder and its parents (0700, as XDG asks for caches). */
static bool make_dirs(const char *dir)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return false;
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(path, 0700) != 0 && errno != EEXIST)
            return false;
        *p = '/';
    }
    return mkdir(path, 0700) == 0 || errno == EEXIST;
}

/* The file's data when it belongs to this device and driver and is whole;
 * NULL (with a warning where there was a file) otherwise. */
static void *load(eddy_engine *e, size_t *size)
{
    *size = 0;
    FILE *f = fopen(e->cache_path, "rb");
    if (!f)
        return NULL; /* no cache yet: nothing to say */
    cache_header h;
    void *data = NULL;
    const char *why = NULL, *id = "pipeline_cache.corrupt";
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))
        why = "not a regular file";
    else if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, CACHE_MAGIC, 8) != 0)
        why = "not an eddy pipeline cache (corrupt)";
    else if (h.vendor_id != e->cache_vendor || h.device_id != e->cache_device ||
             h.driver_version != e->cache_driver || memcmp(h.uuid, e->cache_uuid, VK_UUID_SIZE) != 0)
        why = "written by another device or driver", id = "pipeline_cache.foreign";
    else if (h.data_size > CACHE_MAX_BYTES || (uint64_t)st.st_size != sizeof h + h.data_size)
        why = "truncated or corrupt (its size does not match its header)";
    else if (!(data = malloc(h.data_size ? h.data_size : 1)))
        why = "too large for host memory", id = "memory.host";
    else if (fread(data, 1, h.data_size, f) != h.data_size || hash64(data, h.data_size) != h.data_hash)
        why = "corrupt (its checksum does not match)";
    /* Vulkan's own header inside: the same device, or the driver gets it not. */
    else if (h.data_size >= 32) {
        uint32_t vk_header[4];
        memcpy(vk_header, data, sizeof vk_header);
        if (vk_header[1] != VK_PIPELINE_CACHE_HEADER_VERSION_ONE || vk_header[2] != e->cache_vendor ||
            vk_header[3] != e->cache_device || memcmp((char *)data + 16, e->cache_uuid, VK_UUID_SIZE) != 0)
            why = "corrupt (its Vulkan header names another device)";
    }
    fclose(f);
    if (why) {
        eddy_log(e, EDDY_LOG_WARN, id, "pipeline cache '%s': %s; ignored (it is replaced when the engine ends)",
                 e->cache_path, why);
        free(data);
        return NULL;
    }
    *size = h.data_size;
    return data;
}

eddy_result eddy_pipeline_cache_open(eddy_engine *e, const char *dir_opt)
{
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(e->physical_device, &p);
    memcpy(e->cache_uuid, p.pipelineCacheUUID, VK_UUID_SIZE);
    e->cache_vendor = p.vendorID;
    e->cache_device = p.deviceID;
    e->cache_driver = p.driverVersion;
    char dir[3800];
    e->cache_path[0] = 0;
    if (cache_dir(dir_opt, dir, sizeof dir) && *dir) {
        char uuid[2 * VK_UUID_SIZE + 1];
        for (uint32_t i = 0; i < VK_UUID_SIZE; i++)
            snprintf(uuid + 2 * i, 3, "%02x", p.pipelineCacheUUID[i]);
        snprintf(e->cache_path, sizeof e->cache_path, "%s/%s-%08x-%08x.cache", dir, uuid, p.vendorID,
                 p.deviceID);
        snprintf(e->cache_dir, sizeof e->cache_dir, "%s", dir);
    }
    size_t size = 0;
    void *data = e->cache_path[0] ? load(e, &size) : NULL;
    VkPipelineCacheCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
        .initialDataSize = size,
        .pInitialData = data,
    };
    VkResult r = e->vk.vkCreatePipelineCache(e->device, &ci, NULL, &e->pipeline_cache);
    if (r != VK_SUCCESS && data) {
        eddy_log(e, EDDY_LOG_WARN, "pipeline_cache.corrupt", "pipeline cache '%s': the driver refused its data (%s); ignored",
                 e->cache_path, eddy_vk_result_string(r));
        ci.initialDataSize = 0;
        ci.pInitialData = NULL;
        size = 0;
        r = e->vk.vkCreatePipelineCache(e->device, &ci, NULL, &e->pipeline_cache);
    }
    free(data);
    if (r != VK_SUCCESS)
        return eddy_vk_fail(e, r, "vkCreatePipelineCache");
    e->cache_loaded = size;
    if (size)
        eddy_log(e, EDDY_LOG_DEBUG, "pipeline_cache.loaded", "pipeline cache '%s': %zu bytes loaded", e->cache_path, size);
    return EDDY_OK;
}

/* Writes the cache back when this engine compiled pipelines and the driver
 * has data; failures only warn (a cache is never needed). */
static void save(eddy_engine *e)
{
    if (!e->cache_path[0] || !e->pipelines_created)
        return;
    size_t size = 0;
    if (e->vk.vkGetPipelineCacheData(e->device, e->pipeline_cache, &size, NULL) != VK_SUCCESS ||
        size > CACHE_MAX_BYTES)
        return;
    e->cache_saved = size;
    void *data = malloc(size ? size : 1);
    if (!data)
        return;
    VkResult r = e->vk.vkGetPipelineCacheData(e->device, e->pipeline_cache, &size, data);
    cache_header h = { .vendor_id = e->cache_vendor, .device_id = e->cache_device,
                       .driver_version = e->cache_driver, .data_size = size, .data_hash = hash64(data, size) };
    memcpy(h.magic, CACHE_MAGIC, 8);
    memcpy(h.uuid, e->cache_uuid, VK_UUID_SIZE);
    char tmp[sizeof e->cache_path + 32];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", e->cache_path, (long)getpid());
    bool ok = r == VK_SUCCESS && make_dirs(e->cache_dir);
    FILE *f = ok ? fopen(tmp, "wb") : NULL;
    ok = f && fwrite(&h, sizeof h, 1, f) == 1 && fwrite(data, 1, size, f) == size;
    if (f && fclose(f) != 0)
        ok = false;
    if (ok && rename(tmp, e->cache_path) != 0)
        ok = false;
    if (!ok) {
        if (f)
            remove(tmp);
        eddy_log(e, EDDY_LOG_WARN, "pipeline_cache.unwritable", "pipeline cache '%s' could not be written: %s", e->cache_path,
                 strerror(errno));
    }
    free(data);
}

void eddy_pipeline_cache_close(eddy_engine *e)
{
    if (!e->pipeline_cache)
        return;
    save(e);
    e->vk.vkDestroyPipelineCache(e->device, e->pipeline_cache, NULL);
    e->pipeline_cache = VK_NULL_HANDLE;
}

eddy_pipeline_cache_info eddy_engine_pipeline_cache(const eddy_engine *e)
{
    return (eddy_pipeline_cache_info){ .path = e->cache_path[0] ? e->cache_path : NULL,
                                       .loaded_bytes = e->cache_loaded };
}
