/* The C API used wrongly, as a program in a hurry would: a NULL engine or
 * scene, a NULL pointer for the values, a destroyed handle queried or
 * destroyed again, a scene destroyed after its engine. Each is refused with
 * a message carrying its identifier, and nothing crashes (this test runs
 * under ASan in the sanitized suite); a mesh placed with nothing asked of
 * it keeps its file's coordinates bitwise. */
#include "gpu_test.h"

#include "eddy/eddy_tetmesh.h"

#include <math.h>
#include <stdlib.h>

static const char bar_json[] =
    "{ \"dt\": 0.01, \"duration\": 0.02, \"box\": { \"min\": [-1, -4, -3], \"max\": [6, 2, 3] },"
    "  \"particle_sets\": [ { \"name\": \"bar\", \"radius\": 0.02,"
    "      \"tetmesh\": { \"file\": \"%s/data/tets/bar_80.node\", \"density\": 100 } } ],"
    "  \"systems\": [ { \"name\": \"bar\", \"module\": \"ballistic\", \"set\": \"bar\","
    "      \"params\": { \"gravity\": [0, 0, 0] } } ], \"output\": { \"frame_interval\": 0.01 } }";

static eddy_scene *bar_scene(eddy_engine *e, const char *root)
{
    static char json[2048];
    snprintf(json, sizeof json, bar_json, root);
    return eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "bar", .json = json,
                                                  .no_output = true });
}

static void null_pointers(eddy_engine *e, const char *root)
{
    /* No engine: refused on stderr (nothing to log through), no crash. */
    CHECK(!eddy_create_buffer(NULL, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 16 }).id);
    CHECK(!eddy_load_scene(NULL, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .json = "{}" }));
    CHECK(eddy_wait_idle(NULL) == EDDY_ERROR_INVALID_ARGUMENT);
    CHECK(eddy_buffer_size(NULL, (eddy_buffer){ 1 }) == 0);
    CHECK(eddy_scene_step(NULL, 1) == EDDY_ERROR_INVALID_ARGUMENT);
    CHECK(eddy_scene_get_info(NULL).steps == 0);
    eddy_scene *s = bar_scene(e, root);
    REQUIRE(s);
    test_clear_error();
    CHECK(eddy_scene_system_param(s, "bar", "gravity", NULL) == EDDY_ERROR_INVALID_ARGUMENT);
    CHECK(!strcmp(test_last_id, "api.null"));
    test_clear_error();
    CHECK(eddy_scene_output(s, "bar", "x", NULL) == EDDY_ERROR_INVALID_ARGUMENT);
    CHECK(!strcmp(test_last_id, "api.null"));
    eddy_destroy_scene(s);
}

static void stale_handles(eddy_engine *e)
{
    eddy_buffer b = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 64 });
    REQUIRE(b.id);
    eddy_destroy_buffer(e, b);
    test_clear_error();
    eddy_destroy_buffer(e, b); /* a documented no-op: the handle's generation is gone */
    CHECK(test_last_id[0] == 0);
    CHECK(eddy_buffer_size(e, b) == 0);
    CHECKF(!strcmp(test_last_id, "handle.invalid") && strstr(test_last_error, "eddy_buffer_size"), "[%s] %s",
           test_last_id, test_last_error);
    test_clear_error();
    uint32_t word = 0;
    CHECK(eddy_buffer_download(e, b, 0, 4, &word) != EDDY_OK);
    CHECK(!strcmp(test_last_id, "handle.invalid"));
    eddy_particles p = eddy_create_particles(e, &(eddy_particles_desc){ EDDY_SIZED(eddy_particles_desc),
                                                                       .name = "gone", .count = 4 });
    REQUIRE(p.id);
    eddy_destroy_particles(e, p);
    test_clear_error();
    CHECK(eddy_particles_count(e, p) == 0);
    CHECK(!strcmp(test_last_id, "handle.invalid"));
    test_clear_error();
    CHECK(eddy_particles_count(e, (eddy_particles){ 0 }) == 0); /* zero is "none", no message */
    CHECK(test_last_id[0] == 0);
}

/* Placed with nothing asked (no scale, rotation or centre): the set holds
 * the file's coordinates, bitwise. */
static void placement_as_loaded(eddy_engine *e, const char *root)
{
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/data/tets/bar_80.node", root);
    eddy_tetmesh m;
    REQUIRE(eddy_load_tetmesh(path, NULL, &m, err, sizeof err) == 0);
    eddy_scene *s = bar_scene(e, root);
    REQUIRE(s);
    eddy_particles set = eddy_scene_set(s, 0);
    uint32_t n = eddy_particles_count(e, set);
    float *pos = malloc(16ull * n);
    REQUIRE(pos);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set, "position"), 0, 16ull * n, pos) == EDDY_OK);
    uint32_t moved = 0;
    for (uint32_t i = 0; i < n && n == m.vertex_count; i++)
        for (int a = 0; a < 3; a++)
            moved += memcmp(&pos[4 * i + a], &m.vertices[3 * i + a], sizeof(float)) != 0;
    CHECKF(n == m.vertex_count && moved == 0, "%u of %u coordinates moved by the placement", moved, 3 * n);
    free(pos);
    eddy_free_tetmesh(&m);
    eddy_destroy_scene(s);
}

/* A system's own picture for a host's camera (eddy_scene_system_view):
 * refused for a module without one and for a camera or size out of its
 * rules, each with its identifier; a good one gives a graph and images of
 * the view's size, made again when the size changes. */
static void views(eddy_engine *e, const char *root)
{
    static char json[2048];
    char inner[1600];
    snprintf(inner, sizeof inner, bar_json, root);
    /* the bar scene with a volume system on the bar */
    char *systems = strstr(inner, "\"systems\": [");
    REQUIRE(systems);
    systems += strlen("\"systems\": [");
    snprintf(json, sizeof json, "%.*s { \"name\": \"look\", \"module\": \"volume\", \"set\": \"bar\", "
             "\"params\": { \"width\": 16, \"height\": 8 } },%s", (int)(systems - inner), inner, systems);
    eddy_scene *s = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "bar_view",
                                                           .json = json, .no_output = true });
    REQUIRE(s);
    eddy_system_view_desc d = { EDDY_SIZED(eddy_system_view_desc), .eye = { 2, 1, 8 }, .target = { 2, 0, 0 },
                                .up = { 0, 1, 0 }, .fov_deg = 40, .width = 24, .height = 12 };
    eddy_system_view out = { EDDY_SIZED(eddy_system_view) };
    test_clear_error();
    CHECK(eddy_scene_system_view(s, "bar", &d, &out) == EDDY_ERROR_UNSUPPORTED && !strcmp(test_last_id, "scene.no_view"));
    test_clear_error();
    CHECK(eddy_scene_system_view(s, "look", &d, NULL) == EDDY_ERROR_INVALID_ARGUMENT && !strcmp(test_last_id, "api.null"));
    eddy_system_view_desc bad[5] = { d, d, d, d, d };
    bad[0].target[0] = 2, bad[0].target[1] = 1, bad[0].target[2] = 8; /* on the eye */
    bad[1].eye[1] = NAN;
    bad[2].target[1] = 1, bad[2].up[1] = 0, bad[2].up[2] = 2; /* along the view */
    bad[3].fov_deg = 180;
    bad[4].width = 0;
    for (int k = 0; k < 5; k++) {
        test_clear_error();
        CHECKF(eddy_scene_system_view(s, "look", &bad[k], &out) == EDDY_ERROR_INVALID_ARGUMENT &&
               !strcmp(test_last_id, "render.invalid"), "bad view %d: [%s] %s", k, test_last_id, test_last_error);
    }
    eddy_system_view_desc unsized = d;
    unsized.struct_size = 0;
    test_clear_error();
    CHECK(eddy_scene_system_view(s, "look", &unsized, &out) == EDDY_ERROR_ABI && !strcmp(test_last_id, "desc.size"));
    for (uint32_t w = 24; w <= 32; w += 8) {
        d.width = w;
        eddy_vk_image c;
        REQUIRE(eddy_scene_system_view(s, "look", &d, &out) == EDDY_OK);
        REQUIRE(eddy_image_vk(e, out.color, &c) == EDDY_OK && out.depth.id && out.graph.id);
        CHECKF(c.extent.width == w && c.extent.height == 12, "the view's image is %ux%u, asked %ux12",
               c.extent.width, c.extent.height, w);
        CHECK(eddy_graph_run(e, out.graph, 1) == EDDY_OK);
    }
    eddy_destroy_scene(s);
}

/* The engine goes first: the scene lets go of it, refuses calls, and its
 * destroy frees what is left (ASan: no use after free). */
static void engine_first(const char *root)
{
    eddy_engine *e = test_engine();
    eddy_scene *s = bar_scene(e, root);
    REQUIRE(s);
    CHECK(eddy_scene_step(s, 1) == EDDY_OK);
    eddy_destroy_engine(e);
    CHECK(eddy_scene_step(s, 1) == EDDY_ERROR_INVALID_ARGUMENT);
    CHECK(eddy_scene_get_info(s).steps == 0);
    eddy_destroy_scene(s);
}

int main(int argc, char **argv)
{
    REQUIRE(argc > 1);
    test_require_device();
    eddy_engine *e = test_engine();
    null_pointers(e, argv[1]);
    stale_handles(e);
    placement_as_loaded(e, argv[1]);
    views(e, argv[1]);
    test_finish(e);
    engine_first(argv[1]);
    printf("api_misuse: NULL engine, scene and value pointers refused (handle.invalid, api.null), stale handles "
           "logged, double destroy a no-op, a scene outliving its engine an empty shell, an untransformed mesh "
           "bitwise as in its file, system views checked\n");
    return test_report("api_misuse");
}
