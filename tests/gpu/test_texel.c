/* Storage texel buffers (eddy.h, eddy_kernel_desc): a kernel reads buffers
 * as imageBuffer texels in the shader's format, and the engine views them.
 *  - gather: 4,099 rgba32f texels and r32ui, r32f indices read at a random
 *    permutation equal the C gather bit for bit (NaN and negative zero
 *    patterns included: texel loads do not convert 32-bit formats);
 *  - texel_only: a buffer over maxStorageBufferRange made texel_only is
 *    created, its last texel read back as a texel, and a pass that binds it
 *    as a storage buffer is refused with a message naming buffer and binding
 *    (on devices whose storage range is over 256 MiB the size is not tried);
 *  - formats: a kernel whose imageBuffer has a format eddy does not view
 *    buffers in (rgba8) is refused with kernel.unsupported. */
#include "gpu_test.h"

enum { N = 4099 };

static const char *gather_glsl =
    "#version 450\n"
    "layout(local_size_x = 64) in;\n"
    "layout(binding = 0, rgba32f) readonly uniform imageBuffer src;\n"
    "layout(binding = 1, r32ui) readonly uniform uimageBuffer idx;\n"
    "layout(binding = 2, r32f) readonly uniform imageBuffer scalar;\n"
    "layout(std430, binding = 3) writeonly buffer Out { vec4 o[]; };\n"
    "layout(std430, binding = 4) writeonly buffer OutS { float os[]; };\n"
    "layout(push_constant) uniform P { uint n; } pc;\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    if (i >= pc.n) return;\n"
    "    int j = int(imageLoad(idx, int(i)).x);\n"
    "    o[i] = imageLoad(src, j);\n"
    "    os[i] = imageLoad(scalar, j).x;\n"
    "}\n";

static const char *last_glsl =
    "#version 450\n"
    "layout(local_size_x = 1) in;\n"
    "layout(binding = 0, rgba32f) readonly uniform imageBuffer big;\n"
    "layout(std430, binding = 1) writeonly buffer Out { vec4 o[]; };\n"
    "void main() { o[0] = imageLoad(big, imageSize(big) - 1); }\n";

static const char *ssbo_glsl =
    "#version 450\n"
    "layout(local_size_x = 1) in;\n"
    "layout(std430, binding = 0) readonly buffer Big { vec4 big[]; };\n"
    "layout(std430, binding = 1) writeonly buffer Out { vec4 o[]; };\n"
    "void main() { o[0] = big[0]; }\n";

static const char *rgba8_glsl =
    "#version 450\n"
    "layout(local_size_x = 1) in;\n"
    "layout(binding = 0, rgba8) readonly uniform imageBuffer b;\n"
    "layout(std430, binding = 1) writeonly buffer Out { vec4 o[]; };\n"
    "void main() { o[0] = imageLoad(b, 0); }\n";

static void gather(eddy_engine *e)
{
    static float src[4 * N], scalar[N], out[4 * N], outs[N];
    static uint32_t idx[N];
    uint64_t seed = 7;
    for (uint32_t i = 0; i < 4 * N; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t bits = (uint32_t)(seed >> 32);
        memcpy(&src[i], &bits, 4);
        if (i % 97 == 0) /* a quiet NaN and a negative zero among them */
            bits = i % 2 ? 0x7fc00001u : 0x80000000u, memcpy(&src[i], &bits, 4);
    }
    for (uint32_t i = 0; i < N; i++)
        idx[i] = i, scalar[i] = src[4 * i + 1];
    for (uint32_t i = N - 1; i > 0; i--) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t j = (uint32_t)(seed >> 33) % (i + 1), t = idx[i];
        idx[i] = idx[j], idx[j] = t;
    }
    eddy_kernel k = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "texel.gather", .glsl = gather_glsl });
    REQUIRE(k.id);
    CHECK(eddy_kernel_binding_count(e, k) == 5);
    eddy_buffer bs = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof src, .label = "src", .data = src });
    eddy_buffer bi = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof idx, .label = "idx", .data = idx });
    eddy_buffer bc = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof scalar, .label = "scalar", .data = scalar });
    eddy_buffer bo = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof out, .label = "out" });
    eddy_buffer bos = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof outs, .label = "outs" });
    REQUIRE(bs.id && bi.id && bc.id && bo.id && bos.id);
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "texel" });
    uint32_t n = N;
    REQUIRE(eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "gather", .kernel = k, .threads = N, .push = &n, .push_size = 4,
        .bindings = { { bs, EDDY_READ }, { bi, EDDY_READ }, { bc, EDDY_READ }, { bo, EDDY_WRITE }, { bos, EDDY_WRITE } } }) >= 0);
    CHECK(eddy_graph_run(e, g, 1) == EDDY_OK);
    CHECK(eddy_buffer_download(e, bo, 0, sizeof out, out) == EDDY_OK);
    CHECK(eddy_buffer_download(e, bos, 0, sizeof outs, outs) == EDDY_OK);
    int bad = 0;
    for (uint32_t i = 0; i < N; i++)
        bad += memcmp(&out[4 * i], &src[4 * idx[i]], 16) != 0 || memcmp(&outs[i], &scalar[idx[i]], 4) != 0;
    CHECKF(bad == 0, "%d of %d gathered texels differ from the C gather", bad, N);
    printf("gather: %d rgba32f and r32f texels at a random permutation, bitwise as in C\n", N);
    eddy_destroy_graph(e, g);
    eddy_buffer all[] = { bs, bi, bc, bo, bos };
    for (int i = 0; i < 5; i++)
        eddy_destroy_buffer(e, all[i]);
    eddy_destroy_kernel(e, k);
}

static void texel_only(eddy_engine *e)
{
    const eddy_device_info *d = eddy_engine_device(e);
    if (d->max_storage_buffer_range > (256ull << 20) || 16ull * d->max_texel_buffer_elements <= d->max_storage_buffer_range) {
        printf("texel_only: not tried (storage range %llu bytes, %u texels)\n",
               (unsigned long long)d->max_storage_buffer_range, d->max_texel_buffer_elements);
        return;
    }
    uint64_t size = d->max_storage_buffer_range + 64;
    test_clear_error();
    eddy_buffer plain = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = size, .label = "plain.big" });
    CHECK(plain.id == 0 && !strcmp(test_last_id, "buffer.too_large"));
    eddy_buffer big = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = size, .label = "texel.big", .texel_only = true });
    REQUIRE(big.id);
    const float last[4] = { 1.5f, -2.25f, 3e-3f, 4e6f };
    CHECK(eddy_buffer_upload(e, big, size - 16, sizeof last, last) == EDDY_OK);
    eddy_buffer out = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 16, .label = "out" });
    eddy_kernel k = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "texel.last", .glsl = last_glsl });
    eddy_kernel ks = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "ssbo.first", .glsl = ssbo_glsl });
    REQUIRE(out.id && k.id && ks.id);
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "big" });
    REQUIRE(eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .label = "last", .kernel = k, .groups = { 1 },
        .bindings = { { big, EDDY_READ }, { out, EDDY_WRITE } } }) >= 0);
    CHECK(eddy_graph_run(e, g, 1) == EDDY_OK);
    float got[4];
    CHECK(eddy_buffer_download(e, out, 0, sizeof got, got) == EDDY_OK);
    CHECKF(!memcmp(got, last, sizeof got), "last texel of a %llu-byte texel_only buffer: %g %g %g %g",
           (unsigned long long)size, got[0], got[1], got[2], got[3]);
    test_clear_error();
    CHECK(eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .label = "as_ssbo", .kernel = ks, .groups = { 1 },
        .bindings = { { big, EDDY_READ }, { out, EDDY_WRITE } } }) < 0);
    CHECKF(!strcmp(test_last_id, "pass.binding") && strstr(test_last_error, "texel.big") &&
               strstr(test_last_error, "binding 0") && strstr(test_last_error, "texel_only"),
           "message was: [%s] %s", test_last_id, test_last_error);
    printf("texel_only: a %llu-byte buffer (storage range %llu) read as texels; as a storage buffer refused\n",
           (unsigned long long)size, (unsigned long long)d->max_storage_buffer_range);
    eddy_destroy_graph(e, g);
    eddy_destroy_kernel(e, k);
    eddy_destroy_kernel(e, ks);
    eddy_destroy_buffer(e, big);
    eddy_destroy_buffer(e, out);
}

static void formats(eddy_engine *e)
{
    test_clear_error();
    eddy_kernel k = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "texel.rgba8", .glsl = rgba8_glsl });
    CHECK(k.id == 0);
    CHECKF(!strcmp(test_last_id, "kernel.unsupported") && strstr(test_last_error, "texel.rgba8") &&
               strstr(test_last_error, "rgba32f"),
           "message was: [%s] %s", test_last_id, test_last_error);
}

int main(int argc, char **argv)
{
    eddy_engine *e = test_engine();
    if (test_part(argc, argv, 1, "gather"))
        gather(e);
    if (test_part(argc, argv, 1, "texel_only"))
        texel_only(e);
    if (test_part(argc, argv, 1, "formats"))
        formats(e);
    test_finish(e);
    return test_report("texel");
}
