/* The pipeline cache's file format, apart from any device so that it can be
 * fuzzed on its own (tests/fuzz/fuzz_cache.c): a 56-byte header of eddy's
 * (magic "EDDYPC01", vendor, device and driver version, pipelineCacheUUID,
 * data size, a 64-bit hash of the data) and the driver's data after it. */
#ifndef EDDY_CACHE_FILE_H
#define EDDY_CACHE_FILE_H

#include <stddef.h>
#include <stdint.h>

#define EDDY_CACHE_UUID_BYTES 16
#define EDDY_CACHE_HEADER_BYTES 56
/* Larger files are refused before they are read. */
#define EDDY_CACHE_MAX_BYTES (256ull << 20)

/* Whose cache: what vkGetPhysicalDeviceProperties says of the device. */
typedef struct eddy_cache_identity {
    uint32_t vendor, device, driver;
    uint8_t uuid[EDDY_CACHE_UUID_BYTES];
} eddy_cache_identity;

/* Checks a whole cache file (file_size bytes) against `who`. Returns NULL
 * when it is usable, with *data and *data_size the driver's data inside the
 * file (inside `file`, not copied); else why not, in words, with *id the
 * message identifier (pipeline_cache.foreign or pipeline_cache.corrupt).
 * Reads nothing outside [file, file + file_size). */
const char *eddy_cache_file_check(const void *file, size_t file_size, const eddy_cache_identity *who,
                                  const void **data, size_t *data_size, const char **id);

/* Writes the header of a cache file holding `data` (size bytes) into
 * header (EDDY_CACHE_HEADER_BYTES). */
void eddy_cache_file_header(const eddy_cache_identity *who, const void *data, size_t size,
                            unsigned char header[EDDY_CACHE_HEADER_BYTES]);

#endif
