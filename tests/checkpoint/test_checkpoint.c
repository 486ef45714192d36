/* Checkpoint and restart through the C API, for every shipped scene family
 * in one process (one engine, validation and synchronization validation
 * on). Each scene is taken with a frame every 2 steps and run 4 steps with
 * its output (A); then again to step 2 (frames 0 and 2), one step more, a
 * checkpoint (eddy_scene_save), and the scene destroyed; a scene made from
 * the checkpoint (eddy_scene_desc.checkpoint) in the same folder runs to
 * step 4 (B). Every output file of B (frames, .pvd series, stats.jsonl,
 * port logs, surface meshes, images) must equal A's bitwise, and so must
 * every buffer of every set at the end. The command-line tests
 * (checkpoint_test.sh) run the same through `eddy run`, with signals and
 * kill -9. Also: the API's refusals. argv[1]: the source root. */
#include "../gpu/gpu_test.h"
#include "eddy/eddy_scene.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

enum { STEPS = 4, AT = 3, EVERY = 2 };

/* Every set buffer of every set, one after another. */
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

/* The scene file's text with a frame every EVERY steps. */
static char *scene_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    REQUIRE(f != NULL);
    char *text = calloc(1, 1 << 20);
    REQUIRE(text != NULL && fread(text, 1, (1 << 20) - 1, f) > 0);
    fclose(f);
    cJSON *root = cJSON_Parse(text);
    REQUIRE(root != NULL);
    double dt = cJSON_GetObjectItem(root, "dt")->valuedouble;
    cJSON *out = cJSON_GetObjectItem(root, "output");
    if (!out)
        cJSON_AddItemToObject(root, "output", out = cJSON_CreateObject());
    cJSON_DeleteItemFromObject(out, "frame_interval");
    cJSON_AddNumberToObject(out, "frame_interval", EVERY * dt);
    free(text);
    text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    REQUIRE(text != NULL);
    return text;
}

static unsigned char *file_bytes(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
    *size = b && n >= 0 && fread(b, 1, (size_t)n, f) == (size_t)n ? (size_t)n : (size_t)-1;
    fclose(f);
    return b;
}

/* Every file of a (but checkpoints) is in b with the same bytes, and b has
 * no other; the files compared are counted into *files. */
static void same_folder(const char *scene, const char *a, const char *b, uint32_t *files)
{
    DIR *d = opendir(a);
    REQUIRE(d != NULL);
    uint32_t n = 0;
    for (struct dirent *de; (de = readdir(d));) {
        if (de->d_name[0] == '.' || strstr(de->d_name, ".h5"))
            continue;
        char pa[512], pb[512];
        snprintf(pa, sizeof pa, "%s/%s", a, de->d_name);
        snprintf(pb, sizeof pb, "%s/%s", b, de->d_name);
        size_t na = 0, nb = 0;
        unsigned char *x = file_bytes(pa, &na), *y = file_bytes(pb, &nb);
        CHECKF(x && y && na == nb && !memcmp(x, y, na), "%s: %s differs from the uninterrupted run's", scene,
               de->d_name);
        free(x), free(y);
        n++;
    }
    closedir(d);
    d = opendir(b);
    REQUIRE(d != NULL);
    uint32_t m = 0;
    for (struct dirent *de; (de = readdir(d));)
        m += de->d_name[0] != '.' && !strstr(de->d_name, ".h5");
    closedir(d);
    CHECKF(m == n, "%s: the resumed folder has %u files, the uninterrupted one %u", scene, m, n);
    *files = n;
}

static void remove_folder(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    char path[512];
    for (struct dirent *de; (de = readdir(d));)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(dir);
}

static eddy_scene *load(eddy_engine *e, const char *path, const char *json, const char *out, const char *checkpoint)
{
    eddy_scene *s = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = path,
                                                           .json = json, .out_dir = out, .checkpoint = checkpoint });
    REQUIRE(s != NULL);
    return s;
}

/* Grains in contact from the first step (a lattice at their diameter on
 * the floor): friction's contact memory carries over every step. */
static const char *grains_resting =
    "{ \"name\": \"grains_resting\", \"dt\": 0.0001, \"duration\": 1,"
    "  \"box\": { \"min\": [0, 0, 0], \"max\": [0.3, 0.3, 0.3] },"
    "  \"particle_sets\": [ { \"name\": \"sand\", \"spacing\": 0.02, \"radius\": 0.01, \"mass\": 0.0108,"
    "      \"fill\": { \"shape\": \"box\", \"min\": [0.1, 0, 0.1], \"max\": [0.2, 0.1, 0.2] } } ],"
    "  \"systems\": [ { \"name\": \"sand\", \"module\": \"rigid\", \"set\": \"sand\","
    "      \"params\": { \"granular\": true, \"stiffness\": 10000, \"damping\": 2, \"shear\": 1,"
    "                  \"friction\": 0.5 } } ] }";

static void check_family(eddy_engine *e, const char *root, const char *scene, const char *tmp)
{
    char path[4096], dir_a[256], dir_b[256], file[300];
    snprintf(path, sizeof path, "%s/scenes/%s.json", root, scene);
    if (!strcmp(scene, "grains_resting")) {
        FILE *f = fopen(strcat(strcpy(path, tmp), "/grains_resting.json"), "w");
        REQUIRE(f && fputs(grains_resting, f) >= 0 && fclose(f) == 0);
    }
    snprintf(dir_a, sizeof dir_a, "%s/%s_a", tmp, scene);
    snprintf(dir_b, sizeof dir_b, "%s/%s_b", tmp, scene);
    snprintf(file, sizeof file, "%s/checkpoint.h5", dir_b);
    char *json = scene_text(path);
    eddy_scene *s = load(e, path, json, dir_a, NULL);
    CHECK(eddy_scene_run(s, STEPS, false) == EDDY_OK);
    size_t na, nb;
    unsigned char *a = state_of(e, s, &na);
    eddy_destroy_scene(s);

    s = load(e, path, json, dir_b, NULL);
    CHECK(eddy_scene_run(s, AT - 1, false) == EDDY_OK); /* frames 0 and 2 */
    CHECK(eddy_scene_step(s, 1) == EDDY_OK);            /* a step between frames */
    CHECK(eddy_scene_save(s, file) == EDDY_OK);
    eddy_destroy_scene(s);
    s = load(e, NULL, NULL, dir_b, file);
    CHECKF(eddy_scene_get_info(s).steps_done == AT, "%s: restored at step %llu", scene,
           (unsigned long long)eddy_scene_get_info(s).steps_done);
    CHECK(eddy_scene_run(s, STEPS - AT, false) == EDDY_OK);
    unsigned char *b = state_of(e, s, &nb);
    eddy_destroy_scene(s);
    size_t differ = 0;
    for (size_t i = 0; i < na && i < nb; i++)
        differ += a[i] != b[i];
    CHECKF(na == nb && differ == 0, "%s: %zu of %zu bytes of the state differ after the restore", scene, differ, na);
    uint32_t files = 0;
    same_folder(scene, dir_a, dir_b, &files);
    printf("%s: restored at step %d of %d: %zu bytes of state and %u output files bitwise equal\n", scene, AT,
           STEPS, na, files);
    free(a), free(b);
    cJSON_free(json);
    remove_folder(dir_a);
    remove_folder(dir_b);
    if (!strcmp(scene, "grains_resting"))
        unlink(path);
}

int main(int argc, char **argv)
{
    REQUIRE(argc >= 2);
    eddy_engine *e = test_engine();
    char dir[] = "/tmp/eddy_test_checkpoint.XXXXXX", file[64];
    REQUIRE(mkdtemp(dir) != NULL);
    snprintf(file, sizeof file, "%s/c.h5", dir);
    static const char *const families[] = {
        "sph_dam_break",          /* weakly compressible SPH, its surface meshes */
        "sph_martin_moyce_iisph", /* IISPH: its pressure is a warm start */
        "sph_martin_moyce_dfsph",
        "pbf_tool_5k",            /* PBF with the tool on its path, its port log */
        "rigid_drop",             /* rigid bodies */
        "granular_pile",          /* grains with friction, PNG frames */
        "grains_resting",         /* grains in contact: friction's contact memory */
        "couple_tank",            /* rigid bodies in a fluid */
        "deform_cloth_sphere",    /* implicit Euler, a cloth */
        "deform_cloth_water",     /* a cloth in a fluid */
        "deform_handle_drag",     /* a handle on its path */
        "volume_torus",           /* a tet mesh drawn by the volume renderer */
    };
    for (size_t i = 0; i < sizeof families / sizeof *families; i++)
        if (test_part(argc, argv, 2, families[i]))
            check_family(e, argv[1], families[i], dir);

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
