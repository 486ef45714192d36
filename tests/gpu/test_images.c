/* Images: storage and sampled 1D/2D/3D images beside
 * buffers, under synchronization validation (any message fails).
 *  - round trips: every format in every dimensionality, uploaded and
 *    downloaded bitwise equal (rgba16f through a float -> half conversion in
 *    C and back); a fresh image reads zero; a region upload lands only in
 *    its box;
 *  - filtering: linear sampling in a compute kernel at non-integer
 *    coordinates against a C linear (1D), bilinear (2D) and trilinear (3D) interpolation
 *    of the same data; coordinates lie on sixteenths of a texel with power of
 *    two sizes, which every device resolves exactly (subTexelPrecisionBits
 *    >= 4), so the tolerance is float rounding only (1e-5);
 *  - a pass that adds to a storage image and a second pass that samples it,
 *    run twice back to back in one submission (loop transitions GENERAL ->
 *    SHADER_READ_ONLY -> GENERAL), then once more, then recorded twice into
 *    a host's command buffer (eddy_graph_record) and run once more, checked
 *    against C;
 *  - wrongly declared accesses refused (EDDY_READ of an image the shader may
 *    write, EDDY_WRITE of one it may read, EDDY_SAMPLE on a storage binding,
 *    a storage access on a sampler binding, an image given as a buffer, a 2D
 *    image on a 3D binding, one image sampled and stored in one pass);
 *  - sizes over maxImageDimension and unknown formats refused with their
 *    message; any format feature the device lacks refused naming it;
 *  - a host's VkImage adopted (round trip and a graph), eddy's VkImage and
 *    view handed out. */
#undef VK_NO_PROTOTYPES
#include "gpu_test.h"

#include <math.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

static uint32_t rng_state = 12345u;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

/* IEEE half from a float that is exactly representable (k / 64, |k| <= 2048). */
static uint16_t f2h(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    int32_t exp = (int32_t)((x >> 23) & 0xff) - 127 + 15;
    uint32_t mant = x & 0x7fffffu;
    if ((x & 0x7fffffffu) == 0)
        return (uint16_t)sign;
    if (exp <= 0) /* subnormal half */
        return (uint16_t)(sign | ((mant | 0x800000u) >> (14 - exp)));
    return (uint16_t)(sign | (uint32_t)exp << 10 | mant >> 13);
}

static float h2f(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ffu;
    float v;
    if (exp == 0)
        v = ldexpf((float)mant, -24);
    else
        v = ldexpf((float)(mant | 0x400u), (int)exp - 25);
    uint32_t bits;
    memcpy(&bits, &v, 4);
    bits |= sign;
    memcpy(&v, &bits, 4);
    return v;
}

/* Texel data of a format: finite floats, exact halves, any bytes. */
static void fill_texels(eddy_format f, void *data, size_t texels)
{
    size_t bytes = texels * eddy_format_texel_bytes(f);
    if (f == EDDY_FORMAT_RGBA8 || f == EDDY_FORMAT_R32UI) {
        for (size_t i = 0; i < bytes; i++)
            ((uint8_t *)data)[i] = (uint8_t)rnd();
    } else if (f == EDDY_FORMAT_RGBA16F) {
        for (size_t i = 0; i < bytes / 2; i++)
            ((uint16_t *)data)[i] = f2h((float)((int32_t)(rnd() % 4097) - 2048) / 64.0f);
    } else {
        for (size_t i = 0; i < bytes / 4; i++)
            ((float *)data)[i] = (float)((int32_t)(rnd() % 2000001) - 1000000) * 1.2345e-3f;
    }
}

static const char *format_names[] = { "", "r32f", "rg32f", "rgba32f", "rgba16f", "rgba8", "r32ui" };

static void round_trips(eddy_engine *e)
{
    static const uint32_t ext[3][3] = { { 37, 1, 1 }, { 13, 7, 1 }, { 5, 4, 3 } };
    for (int f = EDDY_FORMAT_R32F; f <= EDDY_FORMAT_R32UI; f++)
        for (int d = 0; d < 3; d++) {
            size_t texels = (size_t)ext[d][0] * ext[d][1] * ext[d][2];
            size_t bytes = texels * eddy_format_texel_bytes((eddy_format)f);
            unsigned char *in = malloc(bytes), *out = malloc(bytes);
            REQUIRE(in && out);
            /* Fresh: zero. */
            eddy_image im = eddy_create_image(e, &(eddy_image_desc){ EDDY_SIZED(eddy_image_desc),
                .width = ext[d][0], .height = ext[d][1], .depth = ext[d][2], .format = (eddy_format)f,
                .label = "roundtrip" });
            CHECKF(im.id, "%s %dD not created", format_names[f], d + 1);
            if (!im.id) {
                free(in);
                free(out);
                continue;
            }
            memset(out, 0xab, bytes);
            CHECK(eddy_image_download(e, im, NULL, out) == EDDY_OK);
            size_t nonzero = 0;
            for (size_t i = 0; i < bytes; i++)
                nonzero += out[i] != 0;
            CHECKF(nonzero == 0, "%s %dD: fresh image has %zu non-zero bytes", format_names[f], d + 1, nonzero);
            fill_texels((eddy_format)f, in, texels);
            CHECK(eddy_image_upload(e, im, NULL, in) == EDDY_OK);
            memset(out, 0, bytes);
            CHECK(eddy_image_download(e, im, NULL, out) == EDDY_OK);
            CHECKF(memcmp(in, out, bytes) == 0, "%s %dD: round trip differs", format_names[f], d + 1);
            if (f == EDDY_FORMAT_RGBA16F) {
                int bad = 0;
                for (size_t i = 0; i < bytes / 2; i++) {
                    float back = h2f(((uint16_t *)out)[i]);
                    bad += f2h(back) != ((uint16_t *)in)[i] || fabsf(back * 64.0f - roundf(back * 64.0f)) != 0.0f;
                }
                CHECKF(bad == 0, "rgba16f %dD: %d halves do not convert back", d + 1, bad);
            }
            /* A region: only its box changes. */
            eddy_image_region r = { 1, d >= 1 ? 1 : 0, d >= 2 ? 1 : 0, 2, d >= 1 ? 2 : 1, d >= 2 ? 2 : 1 };
            size_t tb = eddy_format_texel_bytes((eddy_format)f);
            size_t rbytes = (size_t)r.width * r.height * r.depth * tb;
            unsigned char *patch = malloc(rbytes), *got = malloc(rbytes);
            REQUIRE(patch && got);
            fill_texels((eddy_format)f, patch, rbytes / tb);
            CHECK(eddy_image_upload(e, im, &r, patch) == EDDY_OK);
            CHECK(eddy_image_download(e, im, &r, got) == EDDY_OK);
            CHECKF(memcmp(patch, got, rbytes) == 0, "%s %dD: region round trip differs", format_names[f], d + 1);
            CHECK(eddy_image_download(e, im, NULL, out) == EDDY_OK);
            int wrong = 0;
            for (uint32_t z = 0; z < ext[d][2]; z++)
                for (uint32_t y = 0; y < ext[d][1]; y++)
                    for (uint32_t x = 0; x < ext[d][0]; x++) {
                        size_t at = ((size_t)(z * ext[d][1] + y) * ext[d][0] + x) * tb;
                        bool inside = x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height &&
                                      z >= r.z && z < r.z + r.depth;
                        const unsigned char *want = in + at;
                        if (inside)
                            want = patch + (((size_t)(z - r.z) * r.height + (y - r.y)) * r.width + (x - r.x)) * tb;
                        wrong += memcmp(out + at, want, tb) != 0;
                    }
            CHECKF(wrong == 0, "%s %dD: %d texels wrong after a region upload", format_names[f], d + 1, wrong);
            /* A region outside the image is refused. */
            eddy_image_region outside = { ext[d][0], 0, 0, 1, 1, 1 };
            CHECK(eddy_image_upload(e, im, &outside, patch) == EDDY_ERROR_INVALID_ARGUMENT);
            free(patch);
            free(got);
            eddy_destroy_image(e, im);
            free(in);
            free(out);
        }
    printf("images: round trips of 5 formats x 1D/2D/3D bitwise equal\n");
}

/* Larger than one chunk of the transfer ring (half of 8 MiB): a 3D r32f
 * image of 100 x 60 x 200 texels (4.8 MB) goes in two chunks whose border
 * falls inside a slice; the round trip, and a sub-box read back, are exact. */
static void large(eddy_engine *e)
{
    enum { W = 100, H = 60, D = 200 };
    float *in = malloc(sizeof(float) * W * H * D), *out = malloc(sizeof(float) * W * H * D);
    REQUIRE(in && out);
    for (size_t i = 0; i < (size_t)W * H * D; i++)
        in[i] = (float)i * 0.25f;
    eddy_image im = eddy_create_image(e, &(eddy_image_desc){ EDDY_SIZED(eddy_image_desc), .width = W, .height = H, .depth = D,
                                                             .format = EDDY_FORMAT_R32F, .label = "large" });
    REQUIRE(im.id);
    CHECK(eddy_image_upload(e, im, NULL, in) == EDDY_OK);
    CHECK(eddy_image_download(e, im, NULL, out) == EDDY_OK);
    CHECK(memcmp(in, out, sizeof(float) * W * H * D) == 0);
    eddy_image_region box = { 3, 5, 170, 90, 50, 30 };
    CHECK(eddy_image_download(e, im, &box, out) == EDDY_OK);
    int bad = 0;
    for (uint32_t z = 0; z < box.depth; z++)
        for (uint32_t y = 0; y < box.height; y++)
            for (uint32_t x = 0; x < box.width; x++)
                bad += out[(z * box.height + y) * box.width + x] !=
                       in[((size_t)(box.z + z) * H + box.y + y) * W + box.x + x];
    CHECKF(bad == 0, "%d texels of the sub-box differ", bad);
    printf("large image: %d x %d x %d r32f round trip and a %u x %u x %u box through the ring: exact\n", W, H, D,
           box.width, box.height, box.depth);
    eddy_destroy_image(e, im);
    free(in);
    free(out);
}

static const char *sample2d_glsl =
    "#version 450\n"
    "layout(local_size_x = 64) in;\n"
    "layout(binding = 0) uniform sampler2D tex;\n"
    "layout(std430, binding = 1) readonly buffer C { vec4 coords[]; };\n"
    "layout(std430, binding = 2) writeonly buffer O { vec4 outv[]; };\n"
    "layout(push_constant) uniform P { uint n; };\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    if (i < n) outv[i] = textureLod(tex, coords[i].xy, 0.0);\n"
    "}\n";

static const char *sample1d_glsl =
    "#version 450\n"
    "layout(local_size_x = 64) in;\n"
    "layout(binding = 0) uniform sampler1D tex;\n"
    "layout(std430, binding = 1) readonly buffer C { vec4 coords[]; };\n"
    "layout(std430, binding = 2) writeonly buffer O { vec4 outv[]; };\n"
    "layout(push_constant) uniform P { uint n; };\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    if (i < n) outv[i] = textureLod(tex, coords[i].x, 0.0);\n"
    "}\n";

static const char *sample3d_glsl =
    "#version 450\n"
    "layout(local_size_x = 64) in;\n"
    "layout(binding = 0) uniform sampler3D tex;\n"
    "layout(std430, binding = 1) readonly buffer C { vec4 coords[]; };\n"
    "layout(std430, binding = 2) writeonly buffer O { vec4 outv[]; };\n"
    "layout(push_constant) uniform P { uint n; };\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    if (i < n) outv[i] = textureLod(tex, coords[i].xyz, 0.0);\n"
    "}\n";

static int clampi(int v, int n)
{
    return v < 0 ? 0 : v >= n ? n - 1 : v;
}

/* Linear filtering with clamp to edge, as the Vulkan spec defines it:
 * u = coord * size - 0.5, i0 = floor(u), weight = frac(u), per axis. */
static float c_linear(const float *data, const int size[3], int channels, int c, const float coord[3], int dims)
{
    int i0[3] = { 0, 0, 0 };
    float w[3] = { 0, 0, 0 };
    for (int a = 0; a < dims; a++) {
        float u = coord[a] * (float)size[a] - 0.5f;
        float fl = floorf(u);
        i0[a] = (int)fl;
        w[a] = u - fl;
    }
    float sum = 0.0f;
    for (int corner = 0; corner < (1 << dims); corner++) {
        float weight = 1.0f;
        int at[3] = { 0, 0, 0 };
        for (int a = 0; a < dims; a++) {
            int hi = corner >> a & 1;
            weight *= hi ? w[a] : 1.0f - w[a];
            at[a] = clampi(i0[a] + hi, size[a]);
        }
        sum += weight * data[(((size_t)at[2] * size[1] + at[1]) * size[0] + at[0]) * channels + c];
    }
    return sum;
}

static void filtering(eddy_engine *e, int dims)
{
    const int size[3] = { 8, dims >= 2 ? 4 : 1, dims == 3 ? 4 : 1 };
    const int channels = dims == 3 ? 4 : 1;
    eddy_format format = dims == 3 ? EDDY_FORMAT_RGBA32F : EDDY_FORMAT_R32F;
    size_t texels = (size_t)size[0] * size[1] * size[2];
    float *data = malloc(texels * channels * sizeof *data);
    REQUIRE(data);
    for (size_t i = 0; i < texels * channels; i++)
        data[i] = (float)(rnd() % 1024) / 1024.0f;
    eddy_image im = eddy_create_image(e, &(eddy_image_desc){ EDDY_SIZED(eddy_image_desc),
        .width = size[0], .height = size[1], .depth = size[2], .dimensions = (uint32_t)dims, .format = format,
        .usage = EDDY_IMAGE_SAMPLED, .filter = EDDY_FILTER_LINEAR, .label = "filtered", .data = data });
    REQUIRE(im.id);
    enum { N = 500 };
    static float coords[N][4];
    for (int i = 0; i < N; i++)
        for (int a = 0; a < 4; a++) {
            /* Sixteenths of a texel, some beyond the edges (clamped). */
            int sixteenths = (int)(rnd() % (uint32_t)((size[a < 3 ? a : 0] + 2) * 16)) - 16;
            coords[i][a] = a < dims ? (float)sixteenths / 16.0f / (float)size[a] : 0.0f;
        }
    eddy_buffer cb = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof coords, .data = coords,
                                                                .label = "coords" });
    eddy_buffer ob = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = N * 16, .label = "samples" });
    const char *glsl[] = { sample1d_glsl, sample2d_glsl, sample3d_glsl };
    eddy_kernel k = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "sample", .glsl = glsl[dims - 1] });
    REQUIRE(k.id && cb.id && ob.id);
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "filter" });
    uint32_t n = N;
    eddy_pass_desc pd = { EDDY_SIZED(eddy_pass_desc), .label = "sample", .kernel = k, .threads = N, .push = &n, .push_size = 4 };
    pd.images[0] = (eddy_image_binding){ im, EDDY_SAMPLE };
    pd.bindings[1] = (eddy_binding){ cb, EDDY_READ };
    pd.bindings[2] = (eddy_binding){ ob, EDDY_WRITE };
    REQUIRE(eddy_graph_add_pass(e, g, &pd) >= 0);
    CHECK(eddy_graph_run(e, g, 1) == EDDY_OK);
    static float got[N][4];
    CHECK(eddy_buffer_download(e, ob, 0, sizeof got, got) == EDDY_OK);
    double worst = 0.0;
    for (int i = 0; i < N; i++)
        for (int c = 0; c < channels; c++) {
            float want = c_linear(data, size, channels, c, coords[i], dims);
            double err = fabs((double)got[i][c] - want);
            if (err > worst)
                worst = err;
        }
    printf("images: %s filtering of %d samples at sixteenths of a texel: largest error %.3g (tolerance 1e-5)\n",
           dims == 3 ? "trilinear (3D rgba32f)" : dims == 2 ? "bilinear (2D r32f)" : "linear (1D r32f)", N, worst);
    CHECKF(worst <= 1e-5, "%dD linear filtering off by %g", dims, worst);
    eddy_destroy_graph(e, g);
    eddy_destroy_kernel(e, k);
    eddy_destroy_buffer(e, cb);
    eddy_destroy_buffer(e, ob);
    eddy_destroy_image(e, im);
    free(data);
}

static const char *add_glsl =
    "#version 450\n"
    "layout(local_size_x = 8, local_size_y = 8) in;\n"
    "layout(binding = 0, rgba32f) uniform image2D img;\n"
    "void main() {\n"
    "    ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
    "    if (any(greaterThanEqual(p, imageSize(img)))) return;\n"
    "    imageStore(img, p, imageLoad(img, p) + vec4(1.0, 2.0, 3.0, 4.0));\n"
    "}\n";

static const char *read_glsl =
    "#version 450\n"
    "layout(local_size_x = 8, local_size_y = 8) in;\n"
    "layout(binding = 0) uniform sampler2D tex;\n"
    "layout(std430, binding = 1) buffer O { vec4 outv[]; };\n"
    "void main() {\n"
    "    ivec2 p = ivec2(gl_GlobalInvocationID.xy), n = textureSize(tex, 0);\n"
    "    if (any(greaterThanEqual(p, n))) return;\n"
    "    outv[p.y * n.x + p.x] += texture(tex, (vec2(p) + 0.5) / vec2(n));\n"
    "}\n";

/* Storage write then sampled read, replayed back to back. */
static void write_then_sample(eddy_engine *e)
{
    enum { W = 19, H = 11 };
    static float init[W * H][4], got[W * H][4], img[W * H][4];
    for (int i = 0; i < W * H; i++)
        for (int c = 0; c < 4; c++)
            init[i][c] = (float)(i * 4 + c);
    eddy_image im = eddy_create_image(e, &(eddy_image_desc){ EDDY_SIZED(eddy_image_desc), .width = W, .height = H, .format = EDDY_FORMAT_RGBA32F,
                                                             .label = "field", /* nearest: exact at texel centres */
                                                             .data = init });
    eddy_buffer ob = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof got, .label = "seen" });
    eddy_kernel ka = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "add", .glsl = add_glsl });
    eddy_kernel kr = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "read", .glsl = read_glsl });
    REQUIRE(im.id && ob.id && ka.id && kr.id);
    CHECK(eddy_kernel_binding_count(e, kr) == 2);
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "write-sample" });
    eddy_pass_desc a = { EDDY_SIZED(eddy_pass_desc), .label = "add", .kernel = ka, .groups = { (W + 7) / 8, (H + 7) / 8 } };
    a.images[0] = (eddy_image_binding){ im, EDDY_READ_WRITE };
    eddy_pass_desc r = { EDDY_SIZED(eddy_pass_desc), .label = "read", .kernel = kr, .groups = { (W + 7) / 8, (H + 7) / 8 } };
    r.images[0] = (eddy_image_binding){ im, EDDY_SAMPLE };
    r.bindings[1] = (eddy_binding){ ob, EDDY_READ_WRITE };
    REQUIRE(eddy_graph_add_pass(e, g, &a) >= 0);
    REQUIRE(eddy_graph_add_pass(e, g, &r) >= 0);
    CHECK(eddy_graph_run(e, g, 2) == EDDY_OK);
    CHECK(eddy_graph_run(e, g, 1) == EDDY_OK);
    /* A host recording, twice in one command buffer: it takes the image in
     * GENERAL and gives it back in GENERAL (runs 4 and 5). */
    eddy_vk_objects vk = eddy_engine_vk(e);
    VkCommandPool pool;
    VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .queueFamilyIndex = vk.queue_family };
    REQUIRE(vkCreateCommandPool(vk.device, &pci, NULL, &pool) == VK_SUCCESS);
    VkCommandBuffer cmd;
    VkCommandBufferAllocateInfo cai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
                                        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1 };
    REQUIRE(vkAllocateCommandBuffers(vk.device, &cai, &cmd) == VK_SUCCESS);
    VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
    REQUIRE(vkBeginCommandBuffer(cmd, &bi) == VK_SUCCESS);
    /* The image named in the host's uses: the first recording leaves the
     * ordering of the image to the second (after = nothing for it), whose
     * entry says what came before (the first one's compute passes); buffers
     * keep the default ("anything"). Results and synchronization validation
     * as before. (The buffers' exit barriers order all compute work here,
     * so a wrong image entry would not show as a hazard in this graph: the
     * planner's unit tests check the groups themselves.) A use naming a
     * buffer and an image is refused. */
    eddy_host_use before[] = { { .image = im, .stages = EDDY_STAGE_COMPUTE,
                                 .access = EDDY_ACCESS_SHADER_READ | EDDY_ACCESS_SHADER_WRITE } };
    eddy_host_use after[] = { { .image = im, .stages = 0, .access = 0 } };
    CHECK(eddy_graph_record(e, g, &(eddy_record_desc){ EDDY_SIZED(eddy_record_desc), .command_buffer = cmd, .after = after, .after_count = 1 }) ==
          EDDY_OK);
    eddy_host_use both[] = { { .buffer = ob, .image = im, .stages = EDDY_STAGE_COMPUTE } };
    test_clear_error();
    CHECK(eddy_graph_record(e, g, &(eddy_record_desc){ EDDY_SIZED(eddy_record_desc), .command_buffer = cmd, .before = both, .before_count = 1 }) ==
          EDDY_ERROR_INVALID_ARGUMENT);
    CHECK(test_saw("graph.host_use") && strstr(test_last_error, "before[0]"));
    CHECK(eddy_graph_record(e, g, &(eddy_record_desc){ EDDY_SIZED(eddy_record_desc), .command_buffer = cmd, .before = before, .before_count = 1,
                                                       .after = after, .after_count = 1 }) == EDDY_OK);
    REQUIRE(vkEndCommandBuffer(cmd) == VK_SUCCESS);
    VkFence fence;
    VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
    REQUIRE(vkCreateFence(vk.device, &fci, NULL, &fence) == VK_SUCCESS);
    VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd };
    CHECK(vkQueueSubmit(vk.queue, 1, &si, fence) == VK_SUCCESS);
    CHECK(vkWaitForFences(vk.device, 1, &fence, VK_TRUE, UINT64_MAX) == VK_SUCCESS);
    eddy_recorded_work_done(e);
    vkDestroyFence(vk.device, fence, NULL);
    vkDestroyCommandPool(vk.device, pool, NULL);
    /* And eddy's own runs again after it. */
    CHECK(eddy_graph_run(e, g, 1) == EDDY_OK);
    CHECK(eddy_buffer_download(e, ob, 0, sizeof got, got) == EDDY_OK);
    CHECK(eddy_image_download(e, im, NULL, img) == EDDY_OK);
    int bad_seen = 0, bad_img = 0;
    for (int i = 0; i < W * H; i++)
        for (int c = 0; c < 4; c++) {
            float add = (float)(c + 1);
            /* Runs 1 to 6 each saw init + k * add. */
            float seen = 6.0f * init[i][c] + 21.0f * add;
            bad_seen += got[i][c] != seen;
            bad_img += img[i][c] != init[i][c] + 6.0f * add;
        }
    CHECKF(bad_seen == 0, "%d sampled values wrong after 2 + 1 runs, 2 recorded, 1 more", bad_seen);
    CHECKF(bad_img == 0, "%d image texels wrong after 2 + 1 runs, 2 recorded, 1 more", bad_img);
    printf("images: storage pass then sampling pass, run twice back to back, once more, recorded twice into a "
           "host command buffer and run once more: %s\n",
           bad_seen || bad_img ? "WRONG" : "as in C");
    eddy_destroy_graph(e, g);
    eddy_destroy_kernel(e, ka);
    eddy_destroy_kernel(e, kr);
    eddy_destroy_buffer(e, ob);
    eddy_destroy_image(e, im);
}

static const char *plain_glsl = /* neither readonly nor writeonly */
    "#version 450\n"
    "layout(local_size_x = 8, local_size_y = 8) in;\n"
    "layout(binding = 0, r32f) uniform image2D img;\n"
    "void main() { ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
    "    imageStore(img, p, imageLoad(img, p) * 2.0); }\n";

static const char *wo_glsl =
    "#version 450\n"
    "layout(local_size_x = 8, local_size_y = 8) in;\n"
    "layout(binding = 0, r32f) writeonly uniform image2D img;\n"
    "layout(binding = 1) uniform sampler2D tex;\n"
    "void main() { ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
    "    imageStore(img, p, texelFetch(tex, p, 0)); }\n";

static const char *ro3d_glsl =
    "#version 450\n"
    "layout(local_size_x = 4, local_size_y = 4, local_size_z = 4) in;\n"
    "layout(binding = 0, r32f) readonly uniform image3D img;\n"
    "layout(std430, binding = 1) writeonly buffer O { float o[]; };\n"
    "void main() { ivec3 p = ivec3(gl_GlobalInvocationID);\n"
    "    o[p.x] = imageLoad(img, p).x; }\n";

/* The pass is refused with the identifier `id`, and the message names `what`. */
static bool refused(eddy_engine *e, eddy_graph g, const eddy_pass_desc *pd, const char *id, const char *what)
{
    int before = test_errors_seen;
    test_clear_error();
    int r = eddy_graph_add_pass(e, g, pd);
    bool ok = r < 0 && test_errors_seen > before && !strcmp(test_last_id, id) && strstr(test_last_error, what);
    CHECKF(ok, "pass '%s' not refused as expected (got %d, last message: [%s] %s; wanted [%s] naming '%s')", pd->label,
           r, test_last_id, test_last_error, id, what);
    return ok;
}

static void wrong_access(eddy_engine *e)
{
    eddy_image i2 = eddy_create_image(e, &(eddy_image_desc){ EDDY_SIZED(eddy_image_desc), .width = 8, .height = 8, .format = EDDY_FORMAT_R32F,
                                                             .label = "i2" });
    eddy_image i3 = eddy_create_image(e, &(eddy_image_desc){ EDDY_SIZED(eddy_image_desc), .width = 4, .height = 4, .depth = 4,
                                                             .format = EDDY_FORMAT_R32F, .label = "i3" });
    eddy_image only_sampled = eddy_create_image(e, &(eddy_image_desc){ EDDY_SIZED(eddy_image_desc),
        .width = 8, .height = 8, .format = EDDY_FORMAT_R32F, .usage = EDDY_IMAGE_SAMPLED, .label = "sampled only" });
    eddy_buffer buf = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 256, .label = "buf" });
    eddy_kernel kp = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "plain", .glsl = plain_glsl });
    eddy_kernel kw = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "wo", .glsl = wo_glsl });
    eddy_kernel k3 = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "ro3d", .glsl = ro3d_glsl });
    REQUIRE(i2.id && i3.id && only_sampled.id && buf.id && kp.id && kw.id && k3.id);
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "wrong" });
    eddy_pass_desc pd = { EDDY_SIZED(eddy_pass_desc), .label = "read of a written image", .kernel = kp, .groups = { 1, 1 } };
    pd.images[0] = (eddy_image_binding){ i2, EDDY_READ };
    refused(e, g, &pd, "pass.access", "EDDY_READ");
    pd.label = "write of a read image";
    pd.images[0].access = EDDY_WRITE;
    refused(e, g, &pd, "pass.access", "EDDY_WRITE");
    pd.label = "sample of a storage binding";
    pd.images[0].access = EDDY_SAMPLE;
    refused(e, g, &pd, "pass.access", "'plain'");
    pd.label = "image as a buffer";
    pd.images[0] = (eddy_image_binding){ { 0 }, 0 };
    pd.bindings[0] = (eddy_binding){ { i2.id }, EDDY_READ_WRITE };
    refused(e, g, &pd, "pass.binding", "images[]");
    pd.bindings[0] = (eddy_binding){ { 0 }, 0 };
    pd.label = "storage use of a sampled-only image";
    pd.images[0] = (eddy_image_binding){ only_sampled, EDDY_READ_WRITE };
    refused(e, g, &pd, "pass.binding", "EDDY_IMAGE_STORAGE");
    pd.label = "2D image on a 3D binding";
    pd.kernel = k3;
    pd.images[0] = (eddy_image_binding){ i2, EDDY_READ };
    pd.bindings[1] = (eddy_binding){ buf, EDDY_WRITE };
    refused(e, g, &pd, "pass.binding", "'i2'");
    pd.label = "read of a readonly 3D image";
    pd.images[0] = (eddy_image_binding){ i3, EDDY_READ };
    CHECK(eddy_graph_add_pass(e, g, &pd) >= 0);
    pd = (eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .label = "write of a writeonly image", .kernel = kw, .groups = { 1, 1 } };
    pd.images[0] = (eddy_image_binding){ i2, EDDY_WRITE };
    pd.images[1] = (eddy_image_binding){ only_sampled, EDDY_READ };
    refused(e, g, &pd, "pass.access", "EDDY_SAMPLE");
    pd.label = "sampled and stored at once";
    pd.images[1] = (eddy_image_binding){ i2, EDDY_SAMPLE };
    refused(e, g, &pd, "pass.binding", "'i2'");
    pd.label = "write then sample";
    pd.images[1] = (eddy_image_binding){ only_sampled, EDDY_SAMPLE };
    CHECK(eddy_graph_add_pass(e, g, &pd) >= 0);
    CHECK(eddy_graph_run(e, g, 2) == EDDY_OK);
    printf("images: wrongly declared image accesses refused\n");
    eddy_destroy_graph(e, g);
    eddy_destroy_kernel(e, kp);
    eddy_destroy_kernel(e, kw);
    eddy_destroy_kernel(e, k3);
    eddy_destroy_buffer(e, buf);
    eddy_destroy_image(e, i2);
    eddy_destroy_image(e, i3);
    eddy_destroy_image(e, only_sampled);
}

static void refusals(eddy_engine *e)
{
    VkPhysicalDeviceProperties props;
    eddy_vk_objects vk = eddy_engine_vk(e);
    vkGetPhysicalDeviceProperties(vk.physical_device, &props);
    int before = test_errors_seen;
    test_clear_error();
    eddy_image im = eddy_create_image(e, &(eddy_image_desc){ EDDY_SIZED(eddy_image_desc),
        .width = props.limits.maxImageDimension2D + 1, .height = 2, .format = EDDY_FORMAT_R32F, .label = "huge" });
    CHECK(!im.id && test_errors_seen > before && !strcmp(test_last_id, "image.too_large") &&
          strstr(test_last_error, "maxImageDimension2D"));
    im = eddy_create_image(e, &(eddy_image_desc){ EDDY_SIZED(eddy_image_desc), .width = props.limits.maxImageDimension3D + 1, .height = 2,
                                                  .depth = 2, .format = EDDY_FORMAT_R32F, .label = "huge3d" });
    CHECK(!im.id && !strcmp(test_last_id, "image.too_large") && strstr(test_last_error, "maxImageDimension3D"));
    im = eddy_create_image(e, &(eddy_image_desc){ EDDY_SIZED(eddy_image_desc), .width = 4, .format = (eddy_format)42, .label = "odd" });
    CHECK(!im.id && !strcmp(test_last_id, "image.invalid") && strstr(test_last_error, "(got 42)"));
    /* Every format and usage the device lacks is refused naming the format
     * and the feature; the rest are made. */
    static const VkFormat vkf[] = { 0, VK_FORMAT_R32_SFLOAT, VK_FORMAT_R32G32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT,
                                    VK_FORMAT_R16G16B16A16_SFLOAT, VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R32_UINT };
    int lacking = 0;
    for (int f = EDDY_FORMAT_R32F; f <= EDDY_FORMAT_R32UI; f++) {
        VkFormatProperties fp;
        vkGetPhysicalDeviceFormatProperties(vk.physical_device, vkf[f], &fp);
        struct {
            uint32_t usage;
            eddy_filter filter;
            VkFormatFeatureFlags need;
            const char *name;
        } c[] = {
            { EDDY_IMAGE_STORAGE, EDDY_FILTER_NEAREST, VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT, "STORAGE_IMAGE" },
            { EDDY_IMAGE_SAMPLED, EDDY_FILTER_NEAREST, VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT, "SAMPLED_IMAGE" },
            { EDDY_IMAGE_SAMPLED, EDDY_FILTER_LINEAR, VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT,
              "SAMPLED_IMAGE_FILTER_LINEAR" },
        };
        for (int i = 0; i < 3; i++) {
            bool has = (fp.optimalTilingFeatures & c[i].need) != 0;
            im = eddy_create_image(e, &(eddy_image_desc){ EDDY_SIZED(eddy_image_desc), .width = 4, .height = 4, .format = (eddy_format)f,
                                                          .usage = c[i].usage, .filter = c[i].filter,
                                                          .label = "feature" });
            if (has) {
                CHECKF(im.id != 0, "%s with %s not created", format_names[f], c[i].name);
            } else {
                lacking++;
                CHECKF(!im.id && !strcmp(test_last_id, "image.unsupported") && strstr(test_last_error, format_names[f]) &&
                           strstr(test_last_error, c[i].name),
                       "%s without %s: [%s] %s", format_names[f], c[i].name, test_last_id, test_last_error);
            }
            eddy_destroy_image(e, im);
        }
    }
    printf("images: sizes over the limits and unknown formats refused; %d format feature(s) the device lacks "
           "refused by name\n", lacking);
}

static void adoption(eddy_engine *e)
{
    eddy_vk_objects vk = eddy_engine_vk(e);
    enum { W = 16, H = 8 };
    VkImageCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
        .imageType = VK_IMAGE_TYPE_2D,
        .format = VK_FORMAT_R32_SFLOAT,
        .extent = { W, H, 1 },
        .mipLevels = 1,
        .arrayLayers = 1,
        .samples = VK_SAMPLE_COUNT_1_BIT,
        .tiling = VK_IMAGE_TILING_OPTIMAL,
        .usage = VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                 VK_IMAGE_USAGE_TRANSFER_DST_BIT,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
    };
    VkImage host = VK_NULL_HANDLE;
    REQUIRE(vkCreateImage(vk.device, &ci, NULL, &host) == VK_SUCCESS);
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(vk.device, host, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(vk.physical_device, &mp);
    uint32_t type = 0;
    while (type < mp.memoryTypeCount && !(req.memoryTypeBits >> type & 1))
        type++;
    REQUIRE(type < mp.memoryTypeCount);
    VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                                .memoryTypeIndex = type };
    VkDeviceMemory mem = VK_NULL_HANDLE;
    REQUIRE(vkAllocateMemory(vk.device, &ai, NULL, &mem) == VK_SUCCESS);
    REQUIRE(vkBindImageMemory(vk.device, host, mem, 0) == VK_SUCCESS);
    float in[W * H], out[W * H];
    for (int i = 0; i < W * H; i++)
        in[i] = (float)i * 0.5f;
    eddy_image im = eddy_create_image(e, &(eddy_image_desc){ EDDY_SIZED(eddy_image_desc), .width = W, .height = H, .format = EDDY_FORMAT_R32F,
                                                             .label = "adopted", .adopt_image = host,
                                                             .adopt_layout = VK_IMAGE_LAYOUT_UNDEFINED,
                                                             .data = in });
    REQUIRE(im.id);
    eddy_vk_image v;
    CHECK(eddy_image_vk(e, im, &v) == EDDY_OK && v.image == host && v.view && v.sampler &&
          v.layout == VK_IMAGE_LAYOUT_GENERAL && v.extent.width == W);
    eddy_kernel k = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "double", .glsl = plain_glsl });
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "adopted" });
    eddy_pass_desc pd = { EDDY_SIZED(eddy_pass_desc), .label = "double", .kernel = k, .groups = { W / 8, H / 8 } };
    pd.images[0] = (eddy_image_binding){ im, EDDY_READ_WRITE };
    REQUIRE(k.id && eddy_graph_add_pass(e, g, &pd) >= 0);
    CHECK(eddy_graph_run(e, g, 2) == EDDY_OK);
    CHECK(eddy_image_download(e, im, NULL, out) == EDDY_OK);
    int bad = 0;
    for (int i = 0; i < W * H; i++)
        bad += out[i] != in[i] * 4.0f;
    CHECKF(bad == 0, "%d texels of the adopted image wrong", bad);
    uint32_t live = eddy_engine_get_counters(e).images_live;
    eddy_destroy_graph(e, g);
    eddy_destroy_kernel(e, k);
    eddy_destroy_image(e, im);
    CHECK(eddy_engine_get_counters(e).images_live == live - 1);
    CHECK(eddy_wait_idle(e) == EDDY_OK);
    /* eddy never destroys the host's image: still usable here. */
    vkDestroyImage(vk.device, host, NULL);
    vkFreeMemory(vk.device, mem, NULL);
    printf("images: a host's VkImage adopted, used in a graph and left to the host\n");
}

int main(void)
{
    eddy_engine *e = test_engine();
    round_trips(e);
    large(e);
    filtering(e, 1);
    filtering(e, 2);
    filtering(e, 3);
    write_then_sample(e);
    wrong_access(e);
    refusals(e);
    adoption(e);
    test_finish(e);
    return test_report("images");
}
