/* A device file (JSON, bench_model_parse) describes a GPU for eddy bench's
 * time model (bench_model.h):
 *
 *   { "name": "NVIDIA H100 SXM", "bandwidth_GBps": 3350, "cache_GBps": 10000,
 *     "gflops": 67000, "pass_overhead_us": 4, "visit_latency_ns": 60,
 *     "resident_threads": 270336, "simd_width": 32 }
 *
 * bandwidth_GBps: device memory bandwidth (streamed bytes); cache_GBps: the
 * rate neighbour gathers run at (spatially sorted neighbours hit the cache);
 * gflops: FP32 peak (an FMA is 2 flops); pass_overhead_us: dispatch plus
 * barrier per pass; visit_latency_ns: the serial cost of one neighbour visit
 * in one thread when too few threads run to hide memory latency;
 * resident_threads (optional, 0 or absent: no limit): the threads the
 * device holds at once, so a pass of more elements runs in waves, each
 * paying the latency chain; simd_width (optional, 0 or absent: none): the
 * lanes that run in lockstep, so a loop whose trip count differs across
 * lanes (a ray cast's) runs as long as its longest lane in each group (8: a
 * 256-bit CPU SIMD; 32: a warp). Host code on cJSON alone (no engine), so
 * the fuzz harness builds it by itself. */
#ifndef EDDY_TOOL_BENCH_DEVICE_H
#define EDDY_TOOL_BENCH_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct bench_device_model {
    char name[128];
    double bandwidth_gbps;   /* > 0 */
    double cache_gbps;       /* > 0 */
    double gflops;           /* > 0 */
    double pass_overhead_us; /* >= 0 */
    double visit_latency_ns; /* >= 0 */
    double resident_threads; /* >= 0; 0: no limit */
    double simd_width;       /* 0 (none), 8 or 32 */
} bench_device_model;

/* Parses a device file's text (len bytes, not necessarily terminated).
 * Returns 0, or -1 with a message naming `source`, the field and the expected
 * value in err. */
int bench_model_parse(const char *text, size_t len, const char *source, bench_device_model *out, char *err,
                      size_t errlen);

/* Reads and parses a file (at most 64 KiB). */
int bench_model_load(const char *path, bench_device_model *out, char *err, size_t errlen);

#endif
