/* Element sets: a particle set's edges, triangles and
 * tetrahedra as shared index buffers.
 *  - round trip: the buffers hold the indices bitwise, with the documented
 *    layout (kind indices an element, tightly packed);
 *  - a kernel reads a tetrahedral mesh through its element set and the set's
 *    positions: per-tet signed volumes against a C reference (relative
 *    1e-5), and the whole mesh's volume against the box it fills (the
 *    interior points are jittered, the boundary is not: the tets tile the
 *    box exactly);
 *  - a renderer binds the triangles as an index buffer and the positions as
 *    a vertex buffer (validation checks the buffers' usage);
 *  - bad indices, a degenerate element, a taken name, a bad kind and counts
 *    over capacity are refused with their identifiers; element sets go with
 *    their particle set. */
/* Plain Vulkan calls below (through the loader), so prototypes. */
#undef VK_NO_PROTOTYPES
#include "gpu_test.h"

#include <math.h>
#include <stdlib.h>
#include <vulkan/vulkan.h>

enum { N = 5, VERTS = (N + 1) * (N + 1) * (N + 1), TETS = 6 * N * N * N };

static const char *volume_glsl =
    "#version 450\n"
    "layout(local_size_x = 64) in;\n"
    "layout(std430, binding = 0) readonly buffer P { vec4 pos[]; };\n"
    "layout(std430, binding = 1) readonly buffer T { uint tet[]; };\n"
    "layout(std430, binding = 2) writeonly buffer V { float vol[]; };\n"
    "layout(push_constant) uniform C { uint count; };\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    if (i >= count) return;\n"
    "    vec3 x0 = pos[tet[4 * i]].xyz, x1 = pos[tet[4 * i + 1]].xyz;\n"
    "    vec3 x2 = pos[tet[4 * i + 2]].xyz, x3 = pos[tet[4 * i + 3]].xyz;\n"
    "    vol[i] = dot(x1 - x0, cross(x2 - x0, x3 - x0)) / 6.0;\n"
    "}\n";

static uint32_t vid(int x, int y, int z)
{
    return (uint32_t)((z * (N + 1) + y) * (N + 1) + x);
}

static double signed_volume(const float *p, const uint32_t *t)
{
    double a[3], b[3], c[3];
    for (int k = 0; k < 3; k++) {
        a[k] = (double)p[4 * t[1] + k] - p[4 * t[0] + k];
        b[k] = (double)p[4 * t[2] + k] - p[4 * t[0] + k];
        c[k] = (double)p[4 * t[3] + k] - p[4 * t[0] + k];
    }
    return (a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) +
            a[2] * (b[0] * c[1] - b[1] * c[0])) / 6.0;
}

/* A unit box of N^3 cubes, each cut into the 6 tetrahedra around its main
 * diagonal (Kuhn), all positively oriented; interior vertices jittered by up
 * to 0.15 of a cube so that the volumes differ. */
static void make_mesh(float *pos, uint32_t *tets)
{
    uint64_t rng = 42;
    for (int z = 0; z <= N; z++)
        for (int y = 0; y <= N; y++)
            for (int x = 0; x <= N; x++) {
                int c[3] = { x, y, z };
                float *p = pos + 4 * vid(x, y, z);
                for (int k = 0; k < 3; k++) {
                    bool inside = c[k] > 0 && c[k] < N;
                    float j = inside ? 0.3f * ((float)test_rand(&rng) / 4294967296.0f - 0.5f) : 0.0f;
                    p[k] = ((float)c[k] + j) / N;
                }
                p[3] = 0.5f / N;
            }
    static const int perms[6][3] = { { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 } };
    static const bool odd[6] = { false, true, true, false, false, true };
    uint32_t t = 0;
    for (int z = 0; z < N; z++)
        for (int y = 0; y < N; y++)
            for (int x = 0; x < N; x++)
                for (int q = 0; q < 6; q++) {
                    int c[3] = { x, y, z };
                    uint32_t v[4];
                    v[0] = vid(c[0], c[1], c[2]);
                    for (int s = 0; s < 3; s++) {
                        c[perms[q][s]]++;
                        v[s + 1] = vid(c[0], c[1], c[2]);
                    }
                    if (odd[q]) { /* odd permutations come out negative: swap two */
                        uint32_t w = v[1];
                        v[1] = v[2], v[2] = w;
                    }
                    memcpy(tets + 4 * t++, v, sizeof v);
                }
}

int main(void)
{
    eddy_engine *e = test_engine();
    static float pos[4 * VERTS];
    static uint32_t tets[4 * TETS];
    make_mesh(pos, tets);
    for (uint32_t i = 0; i < TETS; i++)
        REQUIRE(signed_volume(pos, tets + 4 * i) > 0);

    eddy_particles body = eddy_create_particles(e, &(eddy_particles_desc){ EDDY_SIZED(eddy_particles_desc), .name = "body", .count = VERTS });
    REQUIRE(body.id);
    CHECK(eddy_buffer_upload(e, eddy_particles_buffer(e, body, "position"), 0, sizeof pos, pos) == EDDY_OK);
    eddy_elements te = eddy_particles_add_elements(e, body, &(eddy_elements_desc){ EDDY_SIZED(eddy_elements_desc),
        .name = "tets", .kind = EDDY_TETRAHEDRA, .count = TETS, .indices = tets });
    REQUIRE(te.buffer.id);
    CHECK(te.kind == EDDY_TETRAHEDRA && te.count == TETS && te.capacity == TETS);
    /* The four faces of the first cube's first tet as triangles, and its six edges. */
    const uint32_t *t0 = tets;
    uint32_t tris[12] = { t0[0], t0[2], t0[1], t0[0], t0[1], t0[3], t0[0], t0[3], t0[2], t0[1], t0[2], t0[3] };
    uint32_t edges[12] = { t0[0], t0[1], t0[0], t0[2], t0[0], t0[3], t0[1], t0[2], t0[1], t0[3], t0[2], t0[3] };
    eddy_elements tr = eddy_particles_add_elements(e, body, &(eddy_elements_desc){ EDDY_SIZED(eddy_elements_desc),
        .name = "surface", .kind = EDDY_TRIANGLES, .count = 4, .capacity = 10, .indices = tris });
    eddy_elements ed = eddy_particles_add_elements(e, body, &(eddy_elements_desc){ EDDY_SIZED(eddy_elements_desc),
        .name = "edges", .kind = EDDY_EDGES, .count = 6, .indices = edges });
    REQUIRE(tr.buffer.id && ed.buffer.id);
    CHECK(tr.count == 4 && tr.capacity == 10 && ed.capacity == 6);

    /* Round trips: the documented layout, bitwise. */
    static uint32_t back[4 * TETS];
    CHECK(eddy_buffer_download(e, te.buffer, 0, sizeof tets, back) == EDDY_OK);
    CHECK(!memcmp(back, tets, sizeof tets));
    CHECK(eddy_buffer_download(e, tr.buffer, 0, sizeof tris, back) == EDDY_OK);
    CHECK(!memcmp(back, tris, sizeof tris));
    CHECK(eddy_buffer_download(e, ed.buffer, 0, sizeof edges, back) == EDDY_OK);
    CHECK(!memcmp(back, edges, sizeof edges));
    CHECK(!strcmp(eddy_particles_elements_name(e, body, 0), "tets") &&
          !strcmp(eddy_particles_elements_name(e, body, 2), "edges") && !eddy_particles_elements_name(e, body, 3));
    eddy_elements found = eddy_particles_elements(e, body, "surface");
    CHECK(found.buffer.id == tr.buffer.id && found.kind == EDDY_TRIANGLES);
    CHECK(!eddy_particles_elements(e, body, "nothing").buffer.id);

    /* A kernel reads the mesh through the element set. */
    eddy_kernel k = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "tet.volume", .glsl = volume_glsl });
    eddy_buffer vol = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 4 * TETS, .label = "volumes" });
    REQUIRE(k.id && vol.id);
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "volumes" });
    uint32_t count = TETS;
    CHECK(eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .label = "tet.volume", .kernel = k, .threads = TETS,
        .bindings = { { eddy_particles_buffer(e, body, "position"), EDDY_READ }, { te.buffer, EDDY_READ },
                      { vol, EDDY_WRITE } },
        .push = &count, .push_size = sizeof count }) >= 0);
    CHECK(eddy_graph_run(e, g, 1) == EDDY_OK);
    static float got[TETS];
    CHECK(eddy_buffer_download(e, vol, 0, sizeof got, got) == EDDY_OK);
    double worst = 0, total = 0;
    for (uint32_t i = 0; i < TETS; i++) {
        double want = signed_volume(pos, tets + 4 * i);
        worst = fmax(worst, fabs(got[i] - want) / want);
        total += got[i];
    }
    printf("%d tets: largest relative volume error %.2e; total %.7f m^3 (box 1)\n", TETS, worst, total);
    CHECK(worst < 1e-5);
    CHECK(fabs(total - 1.0) < 1e-5);

    /* A renderer binds the triangles as an index buffer and the positions as
     * a vertex buffer: the usage flags are there (validation checks them). */
    eddy_vk_objects vo = eddy_engine_vk(e);
    uint32_t families = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(vo.physical_device, &families, NULL);
    VkQueueFamilyProperties props[16];
    families = families > 16 ? 16 : families;
    vkGetPhysicalDeviceQueueFamilyProperties(vo.physical_device, &families, props);
    if (props[vo.queue_family].queueFlags & VK_QUEUE_GRAPHICS_BIT) {
        VkCommandPool pool;
        REQUIRE(vkCreateCommandPool(vo.device, &(VkCommandPoolCreateInfo){
            .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = vo.queue_family }, NULL,
            &pool) == VK_SUCCESS);
        VkCommandBuffer cb;
        REQUIRE(vkAllocateCommandBuffers(vo.device, &(VkCommandBufferAllocateInfo){
            .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
            .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1 }, &cb) == VK_SUCCESS);
        eddy_vk_buffer ib, vb;
        REQUIRE(eddy_buffer_vk(e, tr.buffer, &ib) == EDDY_OK);
        REQUIRE(eddy_buffer_vk(e, eddy_particles_buffer(e, body, "position"), &vb) == EDDY_OK);
        CHECK(vkBeginCommandBuffer(cb, &(VkCommandBufferBeginInfo){
            .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO }) == VK_SUCCESS);
        vkCmdBindIndexBuffer(cb, ib.buffer, ib.offset, VK_INDEX_TYPE_UINT32);
        vkCmdBindVertexBuffers(cb, 0, 1, &vb.buffer, &vb.offset);
        CHECK(vkEndCommandBuffer(cb) == VK_SUCCESS);
        vkDestroyCommandPool(vo.device, pool, NULL);
    } else {
        printf("queue family %u has no graphics: index and vertex binding not tried\n", vo.queue_family);
    }

    /* Refusals, each with its identifier and naming what is wrong. */
    uint32_t bad[4] = { 0, 1, 2, VERTS };
    test_clear_error();
    CHECK(!eddy_particles_add_elements(e, body, &(eddy_elements_desc){ EDDY_SIZED(eddy_elements_desc),
        .name = "bad", .kind = EDDY_TETRAHEDRA, .count = 1, .indices = bad }).buffer.id);
    CHECKF(!strcmp(test_last_id, "particles.invalid") && strstr(test_last_error, "'bad'") &&
               strstr(test_last_error, "tetrahedron 0") && strstr(test_last_error, "216"),
           "[%s] %s", test_last_id, test_last_error);
    uint32_t flat[3] = { 4, 7, 4 };
    test_clear_error();
    CHECK(!eddy_particles_add_elements(e, body, &(eddy_elements_desc){ EDDY_SIZED(eddy_elements_desc),
        .name = "flat", .kind = EDDY_TRIANGLES, .count = 1, .indices = flat }).buffer.id);
    CHECKF(!strcmp(test_last_id, "particles.invalid") && strstr(test_last_error, "triangle 0") &&
               strstr(test_last_error, "particle 4"),
           "[%s] %s", test_last_id, test_last_error);
    test_clear_error();
    CHECK(!eddy_particles_add_elements(e, body, &(eddy_elements_desc){ EDDY_SIZED(eddy_elements_desc),
        .name = "tets", .kind = EDDY_EDGES, .count = 6, .indices = edges }).buffer.id);
    CHECK(!strcmp(test_last_id, "particles.name_taken"));
    const eddy_elements_desc wrong[] = {
        { EDDY_SIZED(eddy_elements_desc), .name = "k", .kind = (eddy_element_kind)5, .count = 1, .indices = edges },
        { EDDY_SIZED(eddy_elements_desc), .name = "c", .kind = EDDY_EDGES, .count = 6, .capacity = 5, .indices = edges },
        { EDDY_SIZED(eddy_elements_desc), .name = "n", .kind = EDDY_EDGES, .count = 6 },
        { EDDY_SIZED(eddy_elements_desc), .name = "", .kind = EDDY_EDGES, .count = 6, .indices = edges },
    };
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        test_clear_error();
        CHECK(!eddy_particles_add_elements(e, body, &wrong[i]).buffer.id);
        CHECKF(!strcmp(test_last_id, "particles.invalid"), "case %zu: [%s] %s", i, test_last_id, test_last_error);
    }
    /* Empty, filled on the device later: count 0, capacity given. */
    eddy_elements later = eddy_particles_add_elements(e, body, &(eddy_elements_desc){ EDDY_SIZED(eddy_elements_desc),
        .name = "later", .kind = EDDY_TRIANGLES, .capacity = 100 });
    CHECK(later.buffer.id && later.count == 0 && later.capacity == 100);
    /* The draw records: the particles' two, each element set's one, which
     * follows set_element_count with eddy's next submission. */
    uint32_t pd_rec[8], ed_rec[5];
    CHECK(eddy_buffer_download(e, eddy_particles_draw(e, body), 0, sizeof pd_rec, pd_rec) == EDDY_OK);
    CHECKF(pd_rec[0] == VERTS && pd_rec[1] == 1 && pd_rec[4] == 6 && pd_rec[5] == VERTS,
           "particle draw record { %u, %u, .. } { %u, %u, .. }", pd_rec[0], pd_rec[1], pd_rec[4], pd_rec[5]);
    CHECK(eddy_buffer_download(e, eddy_particles_elements_draw(e, body, "later"), 0, sizeof ed_rec, ed_rec) ==
          EDDY_OK);
    CHECK(ed_rec[0] == 0 && ed_rec[1] == 1);
    CHECK(eddy_particles_set_element_count(e, body, "later", 100) == EDDY_OK);
    CHECK(eddy_particles_elements(e, body, "later").count == 100);
    CHECK(eddy_flush_staged(e) == EDDY_OK);
    CHECK(eddy_buffer_download(e, eddy_particles_elements_draw(e, body, "later"), 0, sizeof ed_rec, ed_rec) ==
          EDDY_OK);
    CHECKF(ed_rec[0] == 300 && ed_rec[1] == 1 && ed_rec[2] == 0, "element draw record after 100 triangles: "
           "{ %u, %u, %u }", ed_rec[0], ed_rec[1], ed_rec[2]);
    CHECK(eddy_buffer_download(e, eddy_particles_elements_draw(e, body, "tets"), 0, sizeof ed_rec, ed_rec) ==
          EDDY_OK);
    CHECK(ed_rec[0] == 4 * TETS);
    test_clear_error();
    CHECK(!eddy_particles_elements_draw(e, body, "none").id && !strcmp(test_last_id, "particles.invalid"));
    printf("draw records: points { %u, 1 }, impostors { 6, %u }, 100 triangles { 300, 1 } after set_element_count\n",
           pd_rec[0], pd_rec[5]);
    test_clear_error();
    CHECK(eddy_particles_set_element_count(e, body, "later", 101) == EDDY_ERROR_INVALID_ARGUMENT);
    CHECK(!strcmp(test_last_id, "particles.invalid"));

    /* Element sets go with their particle set. */
    eddy_buffer tb = te.buffer;
    eddy_destroy_graph(e, g);
    eddy_destroy_particles(e, body);
    eddy_vk_buffer gone;
    test_clear_error();
    CHECK(eddy_buffer_vk(e, tb, &gone) != EDDY_OK);
    CHECK(!strcmp(test_last_id, "handle.invalid"));
    test_clear_error();
    eddy_destroy_buffer(e, vol);
    eddy_destroy_kernel(e, k);
    test_finish(e);
    return test_report("elements");
}
