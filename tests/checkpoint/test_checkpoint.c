/* Checkpoint and restart through the C API, for every shipped scene family
 * in one process (one engine, validation and synchronization validation
 * on): a scene runs K steps, is saved (eddy_scene_save), runs to N; a scene
 * made from the checkpoint (eddy_scene_desc.checkpoint) runs the last N - K
 * steps; every buffer of every set must then equal the uninterrupted run's
 * bitwise. The command-line tests
 * (checkpoint_test.sh) check the output files and the signals. Also: the
 * API's refusals (a NULL path, checkpoints without output). argv[1]: the
 * source root. */
#include "../gpu/gpu_test.h"
#include "eddy/eddy_scene.h"

#include <stdlib.h>
#include <unistd.h>

typedef struct family {
    const char *scene;
    uint64_t steps, at; /* N and K */
} family;

/* Every set buffer of every set, one after another (the ports' logs are
 * compared by checkpoint_test.sh). */
static unsigned char *state_of(eddy_engine *e, eddy_scene *s, size_t *size)
{
    unsigned char *all = NULL;
    size_t n = 0;
    eddy_particles p;
    for (uint32_t i = 0; (p = eddy_scene_set(s, i)).id; i++) {
        const char *name;
        for (uint32_t k = 0; (name = eddy_particles_buffer_name(e, p, k)); k++) {
            eddy_buffer b = eddy_particles_buffer(e, p, name);
            uint64_t bytes = eddy_buffer_size(e, b);
            unsigned char *grown = realloc(all, n + bytes);
            REQUIRE(grown != NULL);
            all = grown;
            REQUIRE(eddy_buffer_download(e, b, 0, bytes, all + n) == EDDY_OK);
            n += bytes;
        }
    }
    *size = n;
    return all;
}

static void check_family(eddy_engine *e, const char *root, const family *f, const char *file)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/scenes/%s.json", root, f->scene);
    eddy_scene *s = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = path,
                                                           .no_output = true });
    REQUIRE(s != NULL);
    CHECK(eddy_scene_step(s, f->at) == EDDY_OK);
    CHECK(eddy_scene_save(s, file) == EDDY_OK);
    CHECK(eddy_scene_step(s, f->steps - f->at) == EDDY_OK);
    size_t na, nb;
    unsigned char *a = state_of(e, s, &na);
    eddy_destroy_scene(s);
    eddy_scene *r = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .checkpoint = file,
                                                           .no_output = true });
    REQUIRE(r != NULL);
    CHECKF(eddy_scene_get_info(r).steps_done == f->at, "%s: restored at step %llu, saved at %llu", f->scene,
           (unsigned long long)eddy_scene_get_info(r).steps_done, (unsigned long long)f->at);
    CHECK(eddy_scene_step(r, f->steps - f->at) == EDDY_OK);
    unsigned char *b = state_of(e, r, &nb);
    eddy_destroy_scene(r);
    size_t differ = 0;
    for (size_t i = 0; i < na && i < nb; i++)
        differ += a[i] != b[i];
    CHECKF(na == nb && differ == 0, "%s: %zu of %zu bytes of the state differ after the restore", f->scene, differ,
           na);
    printf("%s: %llu steps, restored at %llu: %zu bytes of state bitwise equal\n", f->scene,
           (unsigned long long)f->steps, (unsigned long long)f->at, na);
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    REQUIRE(argc >= 2);
    eddy_engine *e = test_engine();
    char dir[] = "/tmp/eddy_test_checkpoint.XXXXXX", file[64];
    REQUIRE(mkdtemp(dir) != NULL);
    snprintf(file, sizeof file, "%s/c.h5", dir);
    static const family families[] = {
        { "sph_dam_break", 6, 3 },          /* weakly compressible SPH */
        { "sph_martin_moyce_iisph", 6, 3 }, /* IISPH: its pressure is a warm start */
        { "sph_martin_moyce_dfsph", 6, 3 },
        { "pbf_tool_5k", 6, 3 },            /* PBF with the tool on its path */
        { "rigid_drop", 8, 4 },             /* rigid bodies */
        { "granular_pile", 8, 4 },          /* grains with friction: contact memory */
        { "couple_tank", 4, 2 },            /* rigid bodies in a fluid */
        { "deform_cloth_sphere", 6, 3 },    /* implicit Euler, a cloth */
        { "deform_cloth_water", 4, 2 },     /* a cloth in a fluid */
        { "deform_handle_drag", 6, 3 },     /* a handle on its path */
        { "volume_torus", 4, 2 },           /* a tet mesh drawn by the volume renderer */
    };
    for (size_t i = 0; i < sizeof families / sizeof *families; i++)
        if (test_part(argc, argv, 2, families[i].scene))
            check_family(e, argv[1], &families[i], file);

    if (test_part(argc, argv, 2, "api")) {
        char path[4096];
        snprintf(path, sizeof path, "%s/scenes/bounce.json", argv[1]);
        eddy_scene *s = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = path,
                                                               .no_output = true });
        REQUIRE(s != NULL);
        test_clear_error();
        CHECK(eddy_scene_save(s, NULL) == EDDY_ERROR_INVALID_ARGUMENT && !strcmp(test_last_id, "api.null"));
        test_clear_error();
        CHECK(eddy_scene_run_with(s, &(eddy_run_desc){ EDDY_SIZED(eddy_run_desc), .checkpoint_every = 0.1 }) ==
                  EDDY_ERROR_INVALID_ARGUMENT &&
              !strcmp(test_last_id, "run.invalid"));
        test_clear_error();
        CHECK(eddy_scene_run_with(s, &(eddy_run_desc){ EDDY_SIZED(eddy_run_desc), .checkpoint_keep = 65 }) ==
                  EDDY_ERROR_INVALID_ARGUMENT &&
              !strcmp(test_last_id, "run.invalid"));
        /* A run restored with no step count goes to the scene's end, not a
         * whole duration more. */
        CHECK(eddy_scene_step(s, 5) == EDDY_OK && eddy_scene_save(s, file) == EDDY_OK);
        eddy_destroy_scene(s);
        s = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .checkpoint = file,
                                                   .no_output = true });
        REQUIRE(s != NULL);
        CHECK(eddy_scene_run(s, 0, false) == EDDY_OK);
        eddy_scene_info info = eddy_scene_get_info(s);
        CHECKF(info.steps_done == info.steps, "ran to step %llu of %llu", (unsigned long long)info.steps_done,
               (unsigned long long)info.steps);
        eddy_destroy_scene(s);
        char missing[96];
        snprintf(missing, sizeof missing, "%s/none.h5", dir);
        test_clear_error();
        CHECK(eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .checkpoint = missing }) == NULL &&
              !strcmp(test_last_id, "checkpoint.invalid"));
    }
    unlink(file);
    rmdir(dir);
    test_finish(e);
    return test_report("checkpoint");
}
