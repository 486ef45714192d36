/* Modules from shared libraries: one built for this eddy loads and runs in a
 * scene beside the built-in ballistic module (both on one particle set); one
 * built for another ABI version is refused with both versions named.
 * argv[1]: the good library, argv[2]: the ABI-2 library. */
#include "gpu_test.h"
#include "eddy/eddy_module.h"

#include <math.h>

int main(int argc, char **argv)
{
    REQUIRE(argc == 6);
    eddy_engine *e = test_engine();
    uint32_t builtin = eddy_module_count(e);
    CHECK(eddy_find_module(e, "ballistic") != NULL);

    /* Another major, older or newer, and a newer minor: refused naming both
     * versions, nothing registered. */
    char ours[32];
    snprintf(ours, sizeof ours, "ABI %d.%d", EDDY_MODULE_ABI_MAJOR, EDDY_MODULE_ABI_MINOR);
    const char *theirs[] = { "ABI 1.0", "ABI 5.0", "ABI 4.99" };
    for (int i = 0; i < 3; i++) {
        test_clear_error();
        CHECK(eddy_load_module(e, argv[2 + i]) == EDDY_ERROR_ABI);
        CHECKF(!strcmp(test_last_id, "module.abi") && strstr(test_last_error, ours) &&
                   strstr(test_last_error, theirs[i]),
               "message was: [%s] %s", test_last_id, test_last_error);
    }
    CHECK(eddy_module_count(e) == builtin);
    CHECK(eddy_find_module(e, "test_damping") == NULL);

    test_clear_error();
    CHECK(eddy_load_module(e, "/nonexistent/libnothing.so") == EDDY_ERROR_NOT_FOUND);
    CHECK(!strcmp(test_last_id, "module.load") && strstr(test_last_error, "/nonexistent/libnothing.so"));

    CHECK(eddy_load_module(e, argv[1]) == EDDY_OK);
    CHECK(eddy_module_count(e) == builtin + 1);
    const eddy_module_desc *m = eddy_find_module(e, "test_damping");
    REQUIRE(m != NULL);
    CHECK(m->abi_major == EDDY_MODULE_ABI_MAJOR && m->abi_minor == EDDY_MODULE_ABI_MINOR);
    /* Loading it twice is refused: names are unique. */
    test_clear_error();
    CHECK(eddy_load_module(e, argv[1]) == EDDY_ERROR_INVALID_ARGUMENT);

    /* A module built against the previous minor (4.0, before the ports)
     * loads: its descriptor is copied and the fields it lacks read as
     * absent (no ports), and it runs like the current build. */
    test_clear_error();
    CHECK(eddy_load_module(e, argv[5]) == EDDY_OK);
    const eddy_module_desc *old = eddy_find_module(e, "test_damping_4_0");
    REQUIRE(old != NULL);
    CHECK(old->abi_major == 4 && old->abi_minor == 0 && old->struct_size == sizeof(eddy_module_desc));
    CHECK(old->inputs == NULL && old->input_count == 0 && old->outputs == NULL && old->output_count == 0 &&
          old->set_input == NULL && old->read_outputs == NULL);
    CHECK(old->create && old->declare_step && old->param_count == 1);

    for (int build = 0; build < 2; build++) {
    /* Zero gravity, particles far from the walls: only the damping acts. */
    char scene[1024];
    snprintf(scene, sizeof scene,
        "{ \"name\": \"damp\", \"dt\": 0.01, \"duration\": 0.1,"
        "  \"box\": { \"min\": [-10, -10, -10], \"max\": [10, 10, 10] },"
        "  \"particle_sets\": [ { \"name\": \"p\", \"radius\": 0.01, \"velocity\": [1, 2, -3],"
        "      \"points\": [[0, 0, 0], [0.5, 0, 0], [0, 0.5, 0]] } ],"
        "  \"systems\": ["
        "    { \"module\": \"%s\", \"set\": \"p\", \"params\": { \"rate\": 2.0 } },"
        "    { \"module\": \"ballistic\", \"set\": \"p\", \"params\": { \"gravity\": [0, 0, 0] } } ] }",
        build ? "test_damping_4_0" : "test_damping");
    eddy_scene *s = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .json = scene, .no_output = true });
    REQUIRE(s != NULL);
    CHECK(eddy_scene_run(s, 0, false) == EDDY_OK);
    eddy_scene_info info = eddy_scene_get_info(s);
    CHECK(info.steps_done == 10);
    float vel[12];
    eddy_particles p = eddy_find_particles(e, "p");
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, p, "velocity"), 0, sizeof vel, vel) == EDDY_OK);
    float f = expf(-2.0f * 0.01f), want = 1.0f;
    for (int i = 0; i < 10; i++)
        want *= f;
    for (int i = 0; i < 3; i++)
        CHECKF(fabsf(vel[4 * i] - want) < 1e-6f && fabsf(vel[4 * i + 1] - 2 * want) < 2e-6f &&
                   fabsf(vel[4 * i + 2] + 3 * want) < 3e-6f,
               "particle %d velocity %g %g %g, want %g %g %g", i, vel[4 * i], vel[4 * i + 1],
               vel[4 * i + 2], want, 2 * want, -3 * want);
    eddy_destroy_scene(s);
    }
    test_finish(e);
    return test_report("module_load");
}
