/* libFuzzer harness of the pipeline cache's file format (cache_file.c): any
 * bytes as a cache file, checked against a fixed device identity. Never a
 * crash or a read outside the file (AddressSanitizer); an accepted file's
 * data lies inside it and its header matches what eddy would write for that
 * data (written again and compared). Needs no device. */
#include "cache_file.h"

#include <stdlib.h>
#include <string.h>

/* The identity the seeds (tests/fuzz/corpus.sh cache) are written for. */
static const eddy_cache_identity who = { 0x10005, 0x0, 0x5803003,
                                         { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 } };

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    /* A copy of exactly `size` bytes: ASan sees any read past the file. */
    uint8_t *file = malloc(size ? size : 1);
    if (!file)
        return 0;
    memcpy(file, bytes, size);
    const void *data;
    size_t n;
    const char *id;
    const char *why = eddy_cache_file_check(file, size, &who, &data, &n, &id);
    if (!why) {
        const uint8_t *d = data;
        if (d < file || d + n != file + size || n + EDDY_CACHE_HEADER_BYTES != size)
            abort();
        unsigned char header[EDDY_CACHE_HEADER_BYTES];
        eddy_cache_file_header(&who, d, n, header);
        if (memcmp(header, file, EDDY_CACHE_HEADER_BYTES) != 0)
            abort();
    } else if (data || n || !id || (strcmp(id, "pipeline_cache.corrupt") && strcmp(id, "pipeline_cache.foreign"))) {
        abort();
    }
    free(file);
    return 0;
}
