/* Scan, sort and reductions against CPU references on lengths 0, 1, 2, 255,
 * 256, 257, 65,537 and 1,000,003: integers exactly, float sums within
 * 1e-6 x the sum of magnitudes (float rounding of a tree sum), min and max
 * exactly; sort keys random, all equal, sorted, reverse sorted and with many
 * duplicates (stability: equal keys keep their input order). */
#include "gpu_test.h"
#include "eddy/eddy_prims.h"

#include <math.h>

static const uint32_t lengths[] = { 0, 1, 2, 255, 256, 257, 65537, 1000003 };
enum { NLEN = sizeof lengths / sizeof lengths[0], MAXN = 1000003 };

static eddy_buffer make(eddy_engine *e, const char *label, uint64_t bytes, const void *data)
{
    eddy_buffer b = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = bytes ? bytes : 4, .label = label, .data = data });
    REQUIRE(b.id);
    return b;
}

static void run_graph(eddy_engine *e, eddy_graph g)
{
    CHECK(eddy_graph_run(e, g, 1) == EDDY_OK);
    eddy_destroy_graph(e, g);
}

static void test_scan(eddy_engine *e, uint32_t *in, uint32_t *out, uint32_t *ref)
{
    eddy_scan *scan = eddy_create_scan(e, &(eddy_scan_desc){ EDDY_SIZED(eddy_scan_desc), .max_count = MAXN });
    REQUIRE(scan);
    uint64_t seed = 1;
    for (int li = 0; li < NLEN; li++) {
        uint32_t n = lengths[li];
        for (uint32_t i = 0; i < n; i++)
            in[i] = test_rand(&seed) >> (i % 3 == 0 ? 0 : 20); /* wraps modulo 2^32 too */
        for (int inclusive = 0; inclusive < 2; inclusive++) {
            eddy_buffer bi = make(e, "scan.in", n * 4ull, n ? in : NULL);
            eddy_buffer bo = make(e, "scan.out", n * 4ull + 8, NULL);
            eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "scan" });
            /* Out of place at an offset of 2 elements, then in place. */
            CHECK(eddy_scan_record(e, scan, g, bi, 0, bo, 2, n, inclusive) == EDDY_OK);
            CHECK(eddy_scan_record(e, scan, g, bi, 0, bi, 0, n, inclusive) == EDDY_OK);
            run_graph(e, g);
            uint32_t run = 0;
            for (uint32_t i = 0; i < n; i++) {
                ref[i] = inclusive ? run + in[i] : run;
                run += in[i];
            }
            if (n) {
                CHECK(eddy_buffer_download(e, bo, 8, n * 4ull, out) == EDDY_OK);
                CHECKF(!memcmp(out, ref, n * 4ull), "%s scan of %u differs (out of place)", inclusive ? "inclusive" : "exclusive", n);
                CHECK(eddy_buffer_download(e, bi, 0, n * 4ull, out) == EDDY_OK);
                CHECKF(!memcmp(out, ref, n * 4ull), "%s scan of %u differs (in place)", inclusive ? "inclusive" : "exclusive", n);
            }
            eddy_destroy_buffer(e, bi);
            eddy_destroy_buffer(e, bo);
        }
    }
    /* Over max_count: refused. */
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "scan.bad" });
    eddy_buffer b = make(e, "scan.small", 16, NULL);
    CHECK(eddy_scan_record(e, scan, g, b, 0, b, 0, MAXN + 1, false) == EDDY_ERROR_INVALID_ARGUMENT);
    CHECK(eddy_scan_record(e, scan, g, b, 0, b, 0, 5, false) == EDDY_ERROR_INVALID_ARGUMENT); /* 20 bytes > 16 */
    eddy_destroy_graph(e, g);
    eddy_destroy_buffer(e, b);
    eddy_destroy_scan(e, scan);
    printf("scan: exclusive and inclusive, in and out of place, all lengths exact\n");
}

/* Stable LSD radix sort on the CPU: the reference. */
static void cpu_sort(uint32_t *k, uint32_t *v, uint32_t n, uint32_t *tk, uint32_t *tv)
{
    for (uint32_t shift = 0; shift < 32; shift += 8) {
        uint32_t count[257] = { 0 };
        for (uint32_t i = 0; i < n; i++)
            count[((k[i] >> shift) & 255) + 1]++;
        for (int d = 0; d < 256; d++)
            count[d + 1] += count[d];
        for (uint32_t i = 0; i < n; i++) {
            uint32_t dst = count[(k[i] >> shift) & 255]++;
            tk[dst] = k[i];
            tv[dst] = v[i];
        }
        memcpy(k, tk, n * 4ull);
        memcpy(v, tv, n * 4ull);
    }
}

static void test_sort(eddy_engine *e, uint32_t *k, uint32_t *v, uint32_t *gk, uint32_t *gv, uint32_t *tk, uint32_t *tv)
{
    eddy_sort *sort = eddy_create_sort(e, &(eddy_sort_desc){ EDDY_SIZED(eddy_sort_desc), .max_count = MAXN });
    REQUIRE(sort);
    const char *kinds[] = { "random", "all equal", "sorted", "reverse sorted", "few distinct (stability)" };
    uint64_t seed = 2;
    for (int li = 0; li < NLEN; li++) {
        uint32_t n = lengths[li];
        for (int kind = 0; kind < 5; kind++) {
            for (uint32_t i = 0; i < n; i++) {
                k[i] = kind == 0 ? test_rand(&seed) : kind == 1 ? 0xabcdef12u : kind == 2 ? i * 3u
                     : kind == 3 ? 0xffffffffu - i : test_rand(&seed) % 7u;
                v[i] = i;
            }
            eddy_buffer bk = make(e, "sort.keys", n * 4ull, n ? k : NULL);
            eddy_buffer bv = make(e, "sort.values", n * 4ull, n ? v : NULL);
            eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "sort" });
            CHECK(eddy_sort_record(e, sort, g, bk, bv, n, kind == 4 ? 3 : 0) == EDDY_OK);
            run_graph(e, g);
            cpu_sort(k, v, n, tk, tv);
            if (n) {
                CHECK(eddy_buffer_download(e, bk, 0, n * 4ull, gk) == EDDY_OK);
                CHECK(eddy_buffer_download(e, bv, 0, n * 4ull, gv) == EDDY_OK);
                CHECKF(!memcmp(gk, k, n * 4ull) && !memcmp(gv, v, n * 4ull), "sort of %u %s keys differs", n, kinds[kind]);
            }
            eddy_destroy_buffer(e, bk);
            eddy_destroy_buffer(e, bv);
        }
    }
    eddy_destroy_sort(e, sort);
    printf("sort: random, equal, sorted, reverse and duplicate keys, all lengths exact and stable\n");
}

static void test_reduce(eddy_engine *e, float *x)
{
    eddy_reduce *red = eddy_create_reduce(e, &(eddy_reduce_desc){ EDDY_SIZED(eddy_reduce_desc), .max_count = MAXN });
    REQUIRE(red);
    uint64_t seed = 3;
    eddy_buffer out = make(e, "reduce.out", 16 * 8, NULL);
    for (int li = 0; li < NLEN; li++) {
        uint32_t n = lengths[li];
        for (uint32_t i = 0; i < 4 * n; i++)
            x[i] = ((float)test_rand(&seed) / 4294967296.0f - 0.3f) * 100.0f;
        eddy_buffer bx = make(e, "reduce.in", 16ull * n, n ? x : NULL);
        eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "reduce" });
        /* float (stride 1), packed vec3 (stride 3), vec4 (stride 4); sum, min, max. */
        struct { uint32_t stride, comps, op; } cases[] = {
            { 1, 1, EDDY_REDUCE_SUM }, { 3, 3, EDDY_REDUCE_SUM }, { 4, 4, EDDY_REDUCE_SUM },
            { 4, 3, EDDY_REDUCE_MIN }, { 4, 4, EDDY_REDUCE_MAX }, { 1, 1, EDDY_REDUCE_MIN },
        };
        enum { NC = sizeof cases / sizeof cases[0] };
        for (int c = 0; c < NC; c++)
            CHECK(eddy_reduce_record(e, red, g, bx, n, cases[c].stride, cases[c].comps, cases[c].op, out, (uint32_t)c) == EDDY_OK);
        CHECK(eddy_graph_run(e, g, 1) == EDDY_OK);
        float got[NC * 4], again[NC * 4];
        CHECK(eddy_buffer_download(e, out, 0, sizeof got, got) == EDDY_OK);
        CHECK(eddy_graph_run(e, g, 1) == EDDY_OK);
        CHECK(eddy_buffer_download(e, out, 0, sizeof again, again) == EDDY_OK);
        CHECKF(!memcmp(got, again, sizeof got), "reduce of %u: two runs differ", n);
        eddy_destroy_graph(e, g);
        for (int c = 0; c < NC; c++) {
            for (uint32_t a = 0; a < 4; a++) {
                double want = cases[c].op == EDDY_REDUCE_SUM ? 0 : cases[c].op == EDDY_REDUCE_MIN ? INFINITY : -INFINITY, mag = 0;
                if (a >= cases[c].comps)
                    want = 0;
                else
                    for (uint32_t i = 0; i < n; i++) {
                        double v = x[i * cases[c].stride + a];
                        mag += fabs(v);
                        want = cases[c].op == EDDY_REDUCE_SUM ? want + v : cases[c].op == EDDY_REDUCE_MIN ? fmin(want, v) : fmax(want, v);
                    }
                double g1 = got[4 * c + a];
                bool ok = cases[c].op == EDDY_REDUCE_SUM ? fabs(g1 - want) <= 1e-6 * mag + 1e-30 : g1 == want;
                CHECKF(ok, "reduce n = %u case %d component %u: %.9g, want %.9g", n, c, a, g1, want);
            }
        }
        eddy_destroy_buffer(e, bx);
    }

    /* Segmented sums: segments of 0 .. 3000 elements (the particles of bodies). */
    uint32_t nseg = 40, offsets[41], total = 0;
    offsets[0] = 0;
    for (uint32_t s = 0; s < nseg; s++) {
        total += s == 3 ? 0 : s == 7 ? 3000 : test_rand(&seed) % 700;
        offsets[s + 1] = total;
    }
    for (uint32_t i = 0; i < 4 * total; i++)
        x[i] = (float)test_rand(&seed) / 4294967296.0f - 0.5f;
    eddy_buffer bx = make(e, "seg.in", 16ull * total, x);
    eddy_buffer bo = make(e, "seg.offsets", sizeof offsets, offsets);
    eddy_buffer br = make(e, "seg.out", 16ull * nseg, NULL);
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "segments" });
    /* Both methods: `elements` as given (a workgroup a segment), and as if
     * the segments were short (a thread a segment). */
    for (int method = 0; method < 2; method++) {
        eddy_buffer_fill(e, br, 0, 16ull * nseg, 0);
        CHECK(eddy_segmented_reduce_record(e, g, bx, 4, 4, bo, nseg, method ? 0 : total, EDDY_REDUCE_SUM, br) == EDDY_OK);
        run_graph(e, g);
        float res[40 * 4];
        CHECK(eddy_buffer_download(e, br, 0, sizeof res, res) == EDDY_OK);
        for (uint32_t s = 0; s < nseg; s++)
            for (int a = 0; a < 4; a++) {
                double want = 0, mag = 0;
                for (uint32_t i = offsets[s]; i < offsets[s + 1]; i++)
                    want += x[4 * i + a], mag += fabs(x[4 * i + a]);
                /* A workgroup sums as a tree (error ~ log n); a thread sums in
                 * order, whose bound is (n - 1) u sum|x| (Higham 2002, 4.2). */
                double len = offsets[s + 1] - offsets[s];
                double tol = method ? (len + 1) * 0x1p-24 * mag : 1e-6 * mag;
                CHECKF(fabs(res[4 * s + a] - want) <= tol + 1e-30, "method %d segment %u component %d: %g, want %g",
                       method, s, a, res[4 * s + a], want);
            }
        eddy_destroy_graph(e, g);
        g = method ? (eddy_graph){ 0 } : eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "segments" });
    }
    eddy_destroy_buffer(e, bx);
    eddy_destroy_buffer(e, bo);
    eddy_destroy_buffer(e, br);
    eddy_destroy_buffer(e, out);
    eddy_destroy_reduce(e, red);
    printf("reduce: sum/min/max of float, vec3, vec4 for all lengths, segmented sums, repeatable bitwise\n");
}

/* eddy_fill_record: the uints [offset, offset + count) and nothing else;
 * a range past the buffer's end refused. */
static void test_fill(eddy_engine *e)
{
    enum { N = 1000 };
    uint32_t init[N], out[N];
    for (uint32_t i = 0; i < N; i++)
        init[i] = 7u * i + 1u;
    eddy_buffer b = make(e, "fill.buf", 4 * N, init);
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "fill" });
    REQUIRE(eddy_fill_record(e, g, b, 123, 700, 0xdeadbeefu) == EDDY_OK);
    run_graph(e, g);
    REQUIRE(eddy_buffer_download(e, b, 0, 4 * N, out) == EDDY_OK);
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < N; i++)
        wrong += out[i] != (i >= 123 && i < 823 ? 0xdeadbeefu : init[i]);
    CHECKF(wrong == 0, "fill: %u uints wrong", wrong);
    eddy_graph bad = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "fill.bad" });
    CHECK(eddy_fill_record(e, bad, b, 0, N + 1, 0) == EDDY_ERROR_INVALID_ARGUMENT);
    CHECK(eddy_fill_record(e, bad, b, N - 1, 2, 0) == EDDY_ERROR_INVALID_ARGUMENT);
    CHECK(eddy_fill_record(e, bad, b, UINT32_MAX, 2, 0) == EDDY_ERROR_INVALID_ARGUMENT);
    eddy_destroy_graph(e, bad);
    eddy_destroy_buffer(e, b);
    printf("fill: a range filled and nothing beside it; ranges past the end refused\n");
}

int main(void)
{
    eddy_engine *e = test_engine();
    printf("device: %s (subgroup arithmetic: %s)\n", eddy_engine_device(e)->name,
           eddy_engine_device(e)->subgroup_arithmetic ? "yes" : "no");
    uint32_t *a = malloc(MAXN * 4ull), *b = malloc(MAXN * 4ull), *c = malloc(MAXN * 4ull);
    uint32_t *d = malloc(MAXN * 4ull), *t1 = malloc(MAXN * 4ull), *t2 = malloc(MAXN * 4ull);
    float *x = malloc(MAXN * 16ull);
    REQUIRE(a && b && c && d && t1 && t2 && x);
    test_scan(e, a, b, c);
    test_sort(e, a, b, c, d, t1, t2);
    test_reduce(e, x);
    test_fill(e);
    free(a), free(b), free(c), free(d), free(t1), free(t2), free(x);
    test_finish(e);
    return test_report("prims");
}
