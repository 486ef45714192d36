/* The pipeline cache on disk: one VkPipelineCache per engine, loaded at
 * creation from <dir>/<pipelineCacheUUID>.cache and written back at
 * destruction when pipelines were compiled. The file carries its own header
 * (device, driver version, UUID, size, hash) so that a cache from another
 * device or driver, or a damaged one, is ignored with a warning instead of
 * being handed to the driver. Written to a temporary name and renamed: two
 * processes starting and ending at once each leave a whole file (the last
 * rename wins). */
#include "internal.h"
#include "cache_file.h"

#include <errno.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <unistd.h>

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

static eddy_cache_identity identity(const eddy_engine *e)
{
    eddy_cache_identity who = { e->cache_vendor, e->cache_device, e->cache_driver, { 0 } };
    memcpy(who.uuid, e->cache_uuid, VK_UUID_SIZE);
    return who;
}

/* The whole file, read into memory (*data: the driver's data inside it),
 * when it belongs to this device and driver and is whole; NULL (with a
 * warning where there was a file) otherwise. The caller frees the result. */
static void *load(eddy_engine *e, const void **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    FILE *f = fopen(e->cache_path, "rb");
    if (!f)
        return NULL; /* no cache yet: nothing to say */
    void *file = NULL;
    const char *why = NULL, *id = "pipeline_cache.corrupt";
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))
        why = "not a regular file";
    else if ((uint64_t)st.st_size > EDDY_CACHE_MAX_BYTES + EDDY_CACHE_HEADER_BYTES)
        why = "larger than a cache can be (corrupt)";
    else if (!(file = malloc(st.st_size ? (size_t)st.st_size : 1)))
        why = "too large for host memory", id = "memory.host";
    else if (fread(file, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
        why = "unreadable";
    else {
        eddy_cache_identity who = identity(e);
        why = eddy_cache_file_check(file, (size_t)st.st_size, &who, data, size, &id);
    }
    fclose(f);
    if (why) {
        eddy_log(e, EDDY_LOG_WARN, id, "pipeline cache '%s': %s; ignored (it is replaced when the engine ends)",
                 e->cache_path, why);
        free(file);
        *data = NULL;
        *size = 0;
        return NULL;
    }
    return file;
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
    const void *data = NULL;
    void *file = e->cache_path[0] ? load(e, &data, &size) : NULL;
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
    free(file);
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
        size > EDDY_CACHE_MAX_BYTES)
        return;
    e->cache_saved = size;
    void *data = malloc(size ? size : 1);
    if (!data)
        return;
    VkResult r = e->vk.vkGetPipelineCacheData(e->device, e->pipeline_cache, &size, data);
    eddy_cache_identity who = identity(e);
    unsigned char h[EDDY_CACHE_HEADER_BYTES];
    eddy_cache_file_header(&who, data, size, h);
    char tmp[sizeof e->cache_path + 32];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", e->cache_path, (long)getpid());
    bool ok = r == VK_SUCCESS && make_dirs(e->cache_dir);
    FILE *f = ok ? fopen(tmp, "wb") : NULL;
    ok = f && fwrite(h, sizeof h, 1, f) == 1 && fwrite(data, 1, size, f) == size;
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
    EDDY_ENGINE_GUARD(e, return (eddy_pipeline_cache_info){ 0 });
    return (eddy_pipeline_cache_info){ .path = e->cache_path[0] ? e->cache_path : NULL,
                                       .loaded_bytes = e->cache_loaded };
}
