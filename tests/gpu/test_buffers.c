/* Many buffers: 10,000 buffers of 256 bytes are made,
 * used by one graph and freed, and the device memory allocations stay
 * within a few (buffers are sub-allocated from shared blocks, never one
 * allocation each: drivers allow as few as 4,096). Then a stress of the
 * sub-allocator: random sizes from 4 bytes to 40 MB (dedicated above half a
 * block), half freed at random and more made in the holes, every buffer's
 * contents checked against what was written. */
#include "gpu_test.h"

enum { MANY = 10000, PER_PASS = 8, WORDS = 64 };

static const char *add_glsl =
    "#version 450\n"
    "layout(local_size_x = 64) in;\n"
    "layout(std430, binding = 0) buffer B0 { uint b0[]; };\n"
    "layout(std430, binding = 1) buffer B1 { uint b1[]; };\n"
    "layout(std430, binding = 2) buffer B2 { uint b2[]; };\n"
    "layout(std430, binding = 3) buffer B3 { uint b3[]; };\n"
    "layout(std430, binding = 4) buffer B4 { uint b4[]; };\n"
    "layout(std430, binding = 5) buffer B5 { uint b5[]; };\n"
    "layout(std430, binding = 6) buffer B6 { uint b6[]; };\n"
    "layout(std430, binding = 7) buffer B7 { uint b7[]; };\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    b0[i] += 1u; b1[i] += 2u; b2[i] += 3u; b3[i] += 4u;\n"
    "    b4[i] += 5u; b5[i] += 6u; b6[i] += 7u; b7[i] += 8u;\n"
    "}\n";

static void many_small(void)
{
    eddy_engine *e = test_engine();
    uint32_t before = eddy_engine_get_counters(e).memory_allocations;
    eddy_kernel k = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "add", .glsl = add_glsl });
    REQUIRE(k.id);
    static eddy_buffer b[MANY];
    uint32_t data[WORDS];
    for (uint32_t n = 0; n < MANY; n++) {
        for (uint32_t i = 0; i < WORDS; i++)
            data[i] = n * 1000u + i;
        b[n] = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof data, .label = "small", .data = data });
        REQUIRE(b[n].id);
    }
    uint32_t during = eddy_engine_get_counters(e).memory_allocations - before;
    printf("buffers: %d buffers of %zu bytes in %u device memory allocation(s)\n", MANY, sizeof data, during);
    CHECKF(during <= 4, "%u allocations for %d small buffers", during, MANY);
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "all" });
    for (uint32_t n = 0; n < MANY; n += PER_PASS) {
        eddy_pass_desc pd = { EDDY_SIZED(eddy_pass_desc), .label = "add", .kernel = k, .groups = { 1 } };
        for (uint32_t j = 0; j < PER_PASS; j++)
            pd.bindings[j] = (eddy_binding){ b[n + j], EDDY_READ_WRITE };
        REQUIRE(eddy_graph_add_pass(e, g, &pd) >= 0);
    }
    CHECK(eddy_graph_run(e, g, 2) == EDDY_OK);
    int bad = 0;
    for (uint32_t n = 0; n < MANY; n++) {
        CHECK(eddy_buffer_download(e, b[n], 0, sizeof data, data) == EDDY_OK);
        for (uint32_t i = 0; i < WORDS; i++)
            bad += data[i] != n * 1000u + i + 2u * (n % PER_PASS + 1);
    }
    CHECKF(bad == 0, "%d words wrong after two runs", bad);
    eddy_destroy_graph(e, g);
    for (uint32_t n = 0; n < MANY; n++)
        eddy_destroy_buffer(e, b[n]);
    CHECK(eddy_wait_idle(e) == EDDY_OK);
    uint32_t after = eddy_engine_get_counters(e).memory_allocations - before;
    CHECKF(after <= 1, "%u allocations left after freeing everything (one empty block may stay)", after);
    eddy_destroy_kernel(e, k);
    test_finish(e);
}

static uint32_t pattern(uint32_t id, uint64_t i)
{
    return id * 2654435761u ^ (uint32_t)(i * 40503u);
}

static void random_sizes(void)
{
    eddy_engine *e = test_engine();
    enum { N = 300 };
    eddy_buffer b[N] = { { 0 } };
    uint64_t size[N];
    uint32_t tag[N];
    uint64_t seed = 11;
    uint32_t *buf = malloc(40u << 20);
    REQUIRE(buf);
    uint32_t next_tag = 1;
    for (int round = 0; round < 3; round++) {
        for (int n = 0; n < N; n++) {
            if (b[n].id)
                continue;
            uint64_t r = test_rand(&seed);
            /* Mostly small, some medium, a few over half a block (dedicated). */
            size[n] = r % 50 == 0 ? (24u << 20) + r % (16u << 20) : r % 5 == 0 ? 4096 + r % (1u << 20) : 4 + r % 2000;
            size[n] &= ~3ull;
            if (!size[n])
                size[n] = 4;
            tag[n] = next_tag++;
            for (uint64_t i = 0; i < size[n] / 4; i++)
                buf[i] = pattern(tag[n], i);
            b[n] = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = size[n], .label = "rand", .data = buf });
            REQUIRE(b[n].id);
        }
        int bad = 0;
        for (int n = 0; n < N; n++) {
            CHECK(eddy_buffer_download(e, b[n], 0, size[n], buf) == EDDY_OK);
            for (uint64_t i = 0; i < size[n] / 4; i++)
                bad += buf[i] != pattern(tag[n], i);
        }
        CHECKF(bad == 0, "round %d: %d words overwritten by a neighbour", round, bad);
        for (int n = 0; n < N; n++)
            if (test_rand(&seed) % 2) {
                eddy_destroy_buffer(e, b[n]);
                b[n] = (eddy_buffer){ 0 };
            }
    }
    eddy_engine_counters c = eddy_engine_get_counters(e);
    printf("buffers: %d random buffers in %u allocation(s)\n", N, c.memory_allocations);
    free(buf);
    test_finish(e);
}

int main(void)
{
    many_small();
    random_sizes();
    return test_report("buffers");
}
