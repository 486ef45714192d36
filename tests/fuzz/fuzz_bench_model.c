/* libFuzzer harness: bytes -> bench_model_parse (eddy bench --model's
 * device file). The parser must refuse or accept every input without
 * reading outside it; what it accepts must be in the documented ranges and
 * carry a terminated name. tools/fuzz.sh runs it. */
#include "bench_device.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bench_device_model m;
    char err[512];
    if (bench_model_parse((const char *)data, size, "fuzz.json", &m, err, sizeof err) != 0) {
        if (!memchr(err, 0, sizeof err) || !err[0])
            abort();
        return 0;
    }
    if (!memchr(m.name, 0, sizeof m.name) || !m.name[0] || !(m.bandwidth_gbps > 0) || !(m.cache_gbps > 0) ||
        !(m.gflops > 0) || !(m.pass_overhead_us >= 0) || !(m.visit_latency_ns >= 0) || !(m.resident_threads >= 0) ||
        (m.simd_width != 0 && m.simd_width != 8 && m.simd_width != 32) ||
        !isfinite(m.gflops))
        abort();
    return 0;
}
