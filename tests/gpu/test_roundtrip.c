/* Upload, kernel, download on the device against a CPU reference: bit for bit
 * for integers, within 1 ulp for floats (the device may fuse the multiply-add).
 * Also fill, copy, partial transfers, and refusal of a buffer over the limit. */
#include "gpu_test.h"

#include <math.h>
#include <stdint.h>

static const uint32_t roundtrip_spv[] =
#include "roundtrip.spv.inc"
    ;

static int32_t ulp_distance(float a, float b)
{
    int32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    if (ia < 0)
        ia = INT32_MIN - ia;
    if (ib < 0)
        ib = INT32_MIN - ib;
    int64_t d = (int64_t)ia - ib;
    return (int32_t)(d < 0 ? -d : d);
}

static void roundtrip(eddy_engine *e, eddy_kernel k, uint32_t n)
{
    uint64_t seed = 12345 + n;
    uint32_t *in_u = malloc(n * 4ull), *out_u = malloc(n * 4ull);
    float *in_f = malloc(n * 4ull), *out_f = malloc(n * 4ull);
    REQUIRE(in_u && out_u && in_f && out_f);
    for (uint32_t i = 0; i < n; i++) {
        in_u[i] = test_rand(&seed);
        /* Spread over many magnitudes and both signs. */
        in_f[i] = ((float)test_rand(&seed) / 4294967296.0f - 0.5f) *
                  powf(10.0f, (float)(test_rand(&seed) % 12) - 6.0f);
    }
    char label[64];
    snprintf(label, sizeof label, "in_u.%u", n);
    eddy_buffer bu = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = n * 4ull, .label = label, .data = in_u });
    eddy_buffer bf = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = n * 4ull, .label = "in_f", .data = in_f });
    eddy_buffer ou = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = n * 4ull, .label = "out_u" });
    eddy_buffer of = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = n * 4ull, .label = "out_f" });
    REQUIRE(bu.id && bf.id && ou.id && of.id);
    struct { uint32_t count; float a, b; } push = { n, 1.75f, -0.375f };
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "roundtrip" });
    int p = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "roundtrip", .kernel = k, .threads = n, .push = &push, .push_size = sizeof push,
        .bindings = { { bu, EDDY_READ }, { bf, EDDY_READ }, { ou, EDDY_WRITE }, { of, EDDY_WRITE } } });
    CHECK(p == 0);
    CHECK(eddy_graph_run(e, g, 1) == EDDY_OK);
    CHECK(eddy_buffer_download(e, ou, 0, n * 4ull, out_u) == EDDY_OK);
    CHECK(eddy_buffer_download(e, of, 0, n * 4ull, out_f) == EDDY_OK);
    uint32_t bad_u = 0, bad_f = 0;
    int32_t worst = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = in_u[i];
        uint32_t want = (x * 2654435761u) ^ (x >> 7) ^ i;
        bad_u += out_u[i] != want;
        float fw = in_f[i] * push.a + push.b;
        int32_t d = ulp_distance(out_f[i], fw);
        worst = d > worst ? d : worst;
        bad_f += d > 1;
    }
    CHECKF(bad_u == 0, "n = %u: %u integer results differ", n, bad_u);
    CHECKF(bad_f == 0, "n = %u: %u float results more than 1 ulp off (worst %d)", n, bad_f, worst);
    printf("roundtrip n = %u: integers exact, floats within %d ulp\n", n, worst);

    /* Partial upload/download at an offset, fill and copy. */
    if (n >= 1000) {
        uint32_t patch[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }, back[10];
        CHECK(eddy_buffer_upload(e, ou, 400, sizeof patch, patch) == EDDY_OK);
        CHECK(eddy_buffer_download(e, ou, 400, sizeof back, back) == EDDY_OK);
        CHECK(!memcmp(patch, back, sizeof back));
        CHECK(eddy_buffer_fill(e, ou, 8, 16, 0xdeadbeefu) == EDDY_OK);
        CHECK(eddy_buffer_download(e, ou, 0, 32, back) == EDDY_OK);
        CHECK(back[2] == 0xdeadbeefu && back[5] == 0xdeadbeefu && back[6] == out_u[6] && back[1] == out_u[1]);
        CHECK(eddy_buffer_copy(e, bu, 0, of, 0, n * 4ull) == EDDY_OK);
        CHECK(eddy_buffer_download(e, of, 0, n * 4ull, out_u) == EDDY_OK);
        CHECK(!memcmp(out_u, in_u, n * 4ull));
        /* Out-of-range transfers are refused, not clamped. */
        test_clear_error();
        CHECK(eddy_buffer_download(e, of, n * 4ull - 4, 8, back) == EDDY_ERROR_INVALID_ARGUMENT);
        CHECK(!strcmp(test_last_id, "buffer.range"));
    }
    eddy_vk_buffer vb;
    CHECK(eddy_buffer_vk(e, bu, &vb) == EDDY_OK && vb.buffer != VK_NULL_HANDLE && vb.size == n * 4ull);
    eddy_destroy_graph(e, g);
    eddy_destroy_buffer(e, bu);
    eddy_destroy_buffer(e, bf);
    eddy_destroy_buffer(e, ou);
    eddy_destroy_buffer(e, of);
    /* A destroyed handle is stale: ignored, and refused where work was asked. */
    eddy_destroy_buffer(e, bu);
    CHECK(eddy_buffer_size(e, bu) == 0);
    free(in_u), free(out_u), free(in_f), free(out_f);
}

int main(void)
{
    eddy_engine *e = test_engine();
    printf("device: %s\n", eddy_engine_device(e)->name);
    eddy_kernel k = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "roundtrip", EDDY_SPIRV(roundtrip_spv) });
    REQUIRE(k.id);
    CHECK(eddy_kernel_binding_count(e, k) == 4);
    CHECK(eddy_kernel_workgroup_size(e, k) == 64);
    uint32_t sizes[] = { 1, 1000, 1000003 };
    for (int i = 0; i < 3; i++)
        roundtrip(e, k, sizes[i]);

    /* Over the device limit: refused with the size and the limit in the message. */
    uint64_t limit = eddy_engine_device(e)->max_storage_buffer_range;
    test_clear_error();
    eddy_buffer big = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = limit + 4, .label = "too.big" });
    CHECK(big.id == 0);
    char want[64];
    snprintf(want, sizeof want, "%llu bytes", (unsigned long long)(limit + 4));
    CHECKF(!strcmp(test_last_id, "buffer.too_large") && strstr(test_last_error, want) &&
               strstr(test_last_error, "maxStorageBufferRange") && strstr(test_last_error, "too.big"),
           "message was: [%s] %s", test_last_id, test_last_error);
    test_clear_error();
    CHECK(eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 0, .label = "empty" }).id == 0);
    CHECK(!strcmp(test_last_id, "buffer.invalid") && strstr(test_last_error, "'empty'"));

    /* Staged writes land in call order, overlapping ones too (a later write
     * of a batch waits for an earlier one it overlaps: synchronization
     * validation would report the write-after-write otherwise), and a staged
     * read in the same batch sees the last. */
    eddy_buffer sb = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 64, .label = "staged" });
    REQUIRE(sb.id);
    uint32_t ones[8] = { 1, 1, 1, 1, 1, 1, 1, 1 }, twos[4] = { 2, 2, 2, 2 }, three = 3, seen[16] = { 0 };
    CHECK(eddy_buffer_stage_write(e, sb, 0, sizeof ones, ones) == EDDY_OK);
    CHECK(eddy_buffer_stage_write(e, sb, 8, sizeof twos, twos) == EDDY_OK);
    CHECK(eddy_buffer_stage_write(e, sb, 12, sizeof three, &three) == EDDY_OK);
    CHECK(eddy_buffer_stage_write(e, sb, 48, sizeof twos, twos) == EDDY_OK);
    CHECK(eddy_buffer_stage_read(e, sb, 0, sizeof seen, seen) == EDDY_OK);
    CHECK(eddy_flush_staged(e) == EDDY_OK);
    const uint32_t landed[16] = { 1, 1, 2, 3, 2, 2, 1, 1, 0, 0, 0, 0, 2, 2, 2, 2 };
    CHECK(!memcmp(seen, landed, sizeof landed));
    /* A direct transfer between a staged one and the submission that
     * carries it: the staged bytes land, and their ring space comes back
     * (more rounds than the rings hold: 64 x 256 KiB through each). */
    eddy_buffer big_a = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 1u << 18,
                                                                   .label = "staged.a" });
    eddy_buffer big_b = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 1u << 18,
                                                                   .label = "direct.b" });
    uint32_t *in = malloc(1u << 18), *out = malloc(1u << 18), *direct = malloc(1u << 18);
    REQUIRE(big_a.id && big_b.id && in && out && direct);
    bool same = true;
    for (uint32_t round = 0; round < 64 && same; round++) {
        for (uint32_t j = 0; j < (1u << 16); j++)
            in[j] = round * 65536u + j, direct[j] = ~in[j];
        CHECK(eddy_buffer_stage_write(e, big_a, 0, 1u << 18, in) == EDDY_OK);
        CHECK(eddy_buffer_upload(e, big_b, 0, 1u << 18, direct) == EDDY_OK);
        CHECK(eddy_buffer_stage_read(e, big_a, 0, 1u << 18, out) == EDDY_OK);
        CHECK(eddy_buffer_download(e, big_b, 0, 1u << 18, direct) == EDDY_OK);
        CHECK(eddy_flush_staged(e) == EDDY_OK);
        same = !memcmp(in, out, 1u << 18) && direct[7] == ~in[7];
    }
    CHECKF(same, "staged bytes between direct transfers did not land");
    free(in), free(out), free(direct);
    eddy_destroy_buffer(e, big_a);
    eddy_destroy_buffer(e, big_b);
    /* Quiet: eddy's warnings are dropped, its errors still come. */
    test_clear_error();
    CHECK(!eddy_log_quiet(e, true));
    eddy_log(e, EDDY_LOG_WARN, "adaptive.limited", "dropped while quiet");
    eddy_log(e, EDDY_LOG_ERROR, "buffer.invalid", "said while quiet");
    CHECK(eddy_log_quiet(e, false));
    CHECK(!test_saw("adaptive.limited") && test_saw("buffer.invalid"));
    eddy_log(e, EDDY_LOG_WARN, "adaptive.limited", "said again");
    CHECK(test_saw("adaptive.limited"));
    test_clear_error();
    eddy_destroy_buffer(e, sb);
    eddy_destroy_kernel(e, k);
    test_finish(e);
    return test_report("roundtrip");
}
