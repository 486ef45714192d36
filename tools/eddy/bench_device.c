/* eddy bench --model's device files: see bench_device.h. */
#include "bench_device.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int field(const cJSON *root, const char *name, double lo, double hi, bool required, double *out,
                 const char *source, char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, name);
    if (!v) {
        if (!required)
            return 0;
        snprintf(err, errlen, "%s: field \"%s\" is missing; expected a number in [%g, %g]", source, name, lo, hi);
        return -1;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < lo || v->valuedouble > hi) {
        snprintf(err, errlen, "%s: field \"%s\": expected a number in [%g, %g]", source, name, lo, hi);
        return -1;
    }
    *out = v->valuedouble;
    return 0;
}

int bench_model_parse(const char *text, size_t len, const char *source, bench_device_model *out, char *err,
                      size_t errlen)
{
    memset(out, 0, sizeof *out);
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root || !cJSON_IsObject(root)) {
        snprintf(err, errlen, "%s: not a JSON object (expected { \"name\": ..., \"bandwidth_GBps\": ..., ... })",
                 source);
        cJSON_Delete(root);
        return -1;
    }
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "name");
    int rc = 0;
    if (!cJSON_IsString(name) || !name->valuestring[0] || strlen(name->valuestring) >= sizeof out->name) {
        snprintf(err, errlen, "%s: field \"name\": expected a string of 1 to %zu characters", source,
                 sizeof out->name - 1);
        rc = -1;
    } else {
        snprintf(out->name, sizeof out->name, "%s", name->valuestring);
    }
    if (rc == 0)
        rc = field(root, "bandwidth_GBps", 1e-3, 1e6, true, &out->bandwidth_gbps, source, err, errlen);
    if (rc == 0)
        rc = field(root, "cache_GBps", 1e-3, 1e7, true, &out->cache_gbps, source, err, errlen);
    if (rc == 0)
        rc = field(root, "gflops", 1e-3, 1e8, true, &out->gflops, source, err, errlen);
    if (rc == 0)
        rc = field(root, "pass_overhead_us", 0, 1e6, true, &out->pass_overhead_us, source, err, errlen);
    if (rc == 0)
        rc = field(root, "visit_latency_ns", 0, 1e6, false, &out->visit_latency_ns, source, err, errlen);
    if (rc == 0)
        rc = field(root, "resident_threads", 0, 1e9, false, &out->resident_threads, source, err, errlen);
    if (rc == 0)
        rc = field(root, "simd_width", 0, 64, false, &out->simd_width, source, err, errlen);
    if (rc == 0 && out->simd_width != 0 && out->simd_width != 8 && out->simd_width != 32) {
        snprintf(err, errlen, "%s: field \"simd_width\": expected 8 or 32 (or 0: lanes not in lockstep)", source);
        rc = -1;
    }
    cJSON_Delete(root);
    return rc;
}

int bench_model_load(const char *path, bench_device_model *out, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open the device file", path);
        return -1;
    }
    enum { MAX = 64 * 1024 };
    char *buf = malloc(MAX + 1);
    size_t n = buf ? fread(buf, 1, MAX + 1, f) : 0;
    bool bad = ferror(f) != 0;
    fclose(f);
    if (!buf || bad || n > MAX) {
        snprintf(err, errlen, "%s: %s", path, !buf ? "out of memory" : bad ? "read error" : "over 64 KiB; expected a "
                 "small JSON object");
        free(buf);
        return -1;
    }
    int rc = bench_model_parse(buf, n, path, out, err, errlen);
    free(buf);
    return rc;
}

