/* Device memory is finite: buffers are created until the heap is full, and
 * the one that does not fit is refused with a message giving the size and
 * what is free, not a crash or a driver error. Runs where the device-local
 * heap is at most 4 GiB (lavapipe reports 2 GiB); skipped (exit 77) elsewhere. */
#include "gpu_test.h"

int main(void)
{
    eddy_engine *e = test_engine();
    const eddy_device_info *d = eddy_engine_device(e);
    if (d->device_local_bytes > (4ull << 30)) {
        printf("memory: device-local heap of %llu bytes is too large to fill in a test; skipped\n",
               (unsigned long long)d->device_local_bytes);
        eddy_destroy_engine(e);
        return 77;
    }
    uint64_t size = d->max_storage_buffer_range < (128ull << 20) ? d->max_storage_buffer_range : (128ull << 20);
    eddy_buffer bufs[256];
    int n = 0;
    test_clear_error();
    while (n < 256) {
        char label[32];
        snprintf(label, sizeof label, "fill.%d", n);
        bufs[n] = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = size, .label = label });
        if (!bufs[n].id)
            break;
        n++;
    }
    CHECKF(n < 256 && (uint64_t)n * size <= d->device_local_bytes,
           "%d buffers of %llu bytes in a heap of %llu bytes", n, (unsigned long long)size,
           (unsigned long long)d->device_local_bytes);
    CHECKF(!strcmp(test_last_id, "memory.device"), "message was: [%s] %s", test_last_id, test_last_error);
    printf("memory: %d buffers of %llu MiB fit; then: %s\n", n, (unsigned long long)(size >> 20), test_last_error);
    /* Freed memory is usable again. */
    for (int i = 0; i < n; i++)
        eddy_destroy_buffer(e, bufs[i]);
    eddy_buffer again = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = size, .label = "again" });
    CHECK(again.id != 0);
    eddy_destroy_buffer(e, again);
    test_finish(e);
    return test_report("memory");
}
