/* The pipeline cache's file format (cache_file.h): built and checked in
 * memory, byte by byte, with no assumption about what the file holds. */
#include "cache_file.h"

#include <string.h>

#define MAGIC "EDDYPC01"
/* The header's fields, at fixed offsets (little-endian, as written). */
enum { AT_MAGIC = 0, AT_VENDOR = 8, AT_DEVICE = 12, AT_DRIVER = 16, AT_RESERVED = 20, AT_UUID = 24, AT_SIZE = 40,
       AT_HASH = 48 };

static uint64_t hash64(const void *data, size_t size)
{
    const unsigned char *b = data;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < size; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h ^ (h >> 29);
}

static uint32_t get32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

const char *eddy_cache_file_check(const void *file, size_t file_size, const eddy_cache_identity *who,
                                  const void **data, size_t *data_size, const char **id)
{
    const unsigned char *f = file;
    *data = NULL;
    *data_size = 0;
    *id = "pipeline_cache.corrupt";
    /* The reserved word is 0 as written: any other header is not eddy's
     * (found by fuzz_cache: a file the writer never makes was accepted). */
    if (file_size < EDDY_CACHE_HEADER_BYTES || memcmp(f + AT_MAGIC, MAGIC, 8) != 0 || get32(f + AT_RESERVED) != 0)
        return "not an eddy pipeline cache (corrupt)";
    if (get32(f + AT_VENDOR) != who->vendor || get32(f + AT_DEVICE) != who->device ||
        get32(f + AT_DRIVER) != who->driver || memcmp(f + AT_UUID, who->uuid, EDDY_CACHE_UUID_BYTES) != 0) {
        *id = "pipeline_cache.foreign";
        return "written by another device or driver";
    }
    uint64_t size = get64(f + AT_SIZE);
    if (size > EDDY_CACHE_MAX_BYTES || size != file_size - EDDY_CACHE_HEADER_BYTES)
        return "truncated or corrupt (its size does not match its header)";
    const unsigned char *d = f + EDDY_CACHE_HEADER_BYTES;
    if (hash64(d, (size_t)size) != get64(f + AT_HASH))
        return "corrupt (its checksum does not match)";
    /* Vulkan's own header inside (length, version one, vendor, device,
     * UUID): the same device, or the driver never sees the data. */
    if (size >= 32 && (get32(d + 4) != 1 /* VK_PIPELINE_CACHE_HEADER_VERSION_ONE */ || get32(d + 8) != who->vendor ||
                       get32(d + 12) != who->device || memcmp(d + 16, who->uuid, EDDY_CACHE_UUID_BYTES) != 0))
        return "corrupt (its Vulkan header names another device)";
    *data = d;
    *data_size = (size_t)size;
    return NULL;
}

void eddy_cache_file_header(const eddy_cache_identity *who, const void *data, size_t size,
                            unsigned char header[EDDY_CACHE_HEADER_BYTES])
{
    memset(header, 0, EDDY_CACHE_HEADER_BYTES);
    memcpy(header + AT_MAGIC, MAGIC, 8);
    memcpy(header + AT_VENDOR, &who->vendor, 4);
    memcpy(header + AT_DEVICE, &who->device, 4);
    memcpy(header + AT_DRIVER, &who->driver, 4);
    memcpy(header + AT_UUID, who->uuid, EDDY_CACHE_UUID_BYTES);
    uint64_t s = size, h = hash64(data, size);
    memcpy(header + AT_SIZE, &s, 8);
    memcpy(header + AT_HASH, &h, 8);
}
