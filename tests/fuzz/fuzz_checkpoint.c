/* libFuzzer harness: hostile checkpoints. At start it runs a small scene
 * (a DFSPH fluid and a granular rigid set: both modules' declared state,
 * ports, statistics) a few steps on one engine (lavapipe, validation off,
 * messages dropped) and saves a checkpoint: the base. Each input edits a
 * copy of the base: its first 4 bytes (little-endian) cut the file to that
 * length modulo its size (0: whole), then each 4 bytes (a 3-byte offset and
 * a byte) xor the byte at that offset modulo the length. The edited file
 * is loaded as a scene (eddy_load_scene with .checkpoint, no output) and
 * destroyed. A crash, a sanitizer report, a leak or a hang is a finding,
 * and so is an edited file that loads: the seal (its CRC-32) must refuse
 * every change before HDF5 reads it. Each edited file also goes through
 * eddy's walk of its HDF5 structure (ck_walk) directly. With
 * EDDY_FUZZ_RESEAL=1 the harness seals each edited file again, so the
 * edits reach the walk, HDF5's parser and eddy's dataset checks (the deep
 * run of tools/fuzz.sh checkpoint_deep): a load may then succeed, never
 * crash. */
#include "eddy/eddy.h"
#include "eddy/eddy_builtin.h"
#include "eddy/eddy_scene.h"
#include "../../scene/src/checkpoint_h5.h"

#include <hdf5.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *scene_text =
    "{\"name\": \"fuzz_checkpoint\", \"dt\": 0.0002, \"duration\": 1,"
    " \"box\": {\"min\": [0, 0, 0], \"max\": [0.3, 0.3, 0.3]},"
    " \"particle_sets\": ["
    "  {\"name\": \"water\", \"spacing\": 0.02, \"fill\": {\"shape\": \"box\", \"min\": [0.02, 0.02, 0.02],"
    "   \"max\": [0.1, 0.1, 0.1]}},"
    "  {\"name\": \"sand\", \"spacing\": 0.03, \"radius\": 0.01, \"mass\": 0.0208,"
    "   \"fill\": {\"shape\": \"box\", \"min\": [0.18, 0.05, 0.18], \"max\": [0.27, 0.11, 0.27]}}],"
    " \"systems\": ["
    "  {\"name\": \"fluid\", \"module\": \"sph\", \"set\": \"water\", \"params\": {\"solver\": 2}},"
    "  {\"name\": \"grains\", \"module\": \"rigid\", \"set\": \"sand\","
    "   \"params\": {\"granular\": true, \"stiffness\": 10000, \"damping\": 2, \"shear\": 1, \"friction\": 0.5}}]}";

static eddy_engine *engine;
static unsigned char *base;
static size_t base_size;
static char dir[64], edited[96], base_path[160];
static bool reseal;

static void quiet(void *user, eddy_log_level level, const char *source, const char *id, const char *message)
{
    (void)user, (void)level, (void)source, (void)message;
    if (!id || !*id || !source)
        abort();
}

static unsigned char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    if (f && fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        buf = n > 0 ? malloc((size_t)n) : NULL;
        if (buf && (fseek(f, 0, SEEK_SET) != 0 || fread(buf, 1, (size_t)n, f) != (size_t)n)) {
            free(buf);
            buf = NULL;
        }
        *size = buf ? (size_t)n : 0;
    }
    if (f)
        fclose(f);
    return buf;
}

static void cleanup(void)
{
    unlink(edited);
    unlink(base_path);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    engine = eddy_create_engine(&(eddy_engine_desc){ EDDY_SIZED(eddy_engine_desc),
        .validation = EDDY_VALIDATION_OFF, .log = quiet, .kept_pipelines = 4096 });
    if (!engine) {
        eddy_device_info info[8];
        if (eddy_enumerate_devices(info, 8) > 0)
            abort();
        printf("skipped: no Vulkan device\n");
        fflush(stdout);
        exit(77);
    }
    if (eddy_register_builtin_modules(engine) != EDDY_OK)
        abort();
    snprintf(dir, sizeof dir, "/tmp/eddy_fuzz_checkpoint.XXXXXX");
    if (!mkdtemp(dir))
        abort();
    char path[160];
    eddy_scene *s = eddy_load_scene(engine, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc),
        .path = "fuzz_checkpoint.json", .json = scene_text, .no_output = true });
    if (!s || eddy_scene_run(s, 3, false) != EDDY_OK)
        abort();
    snprintf(path, sizeof path, "%s/base.h5", dir);
    if (eddy_scene_save(s, path) != EDDY_OK)
        abort();
    eddy_destroy_scene(s);
    if (!(base = read_all(path, &base_size)) || base_size < CK_USERBLOCK + 64)
        abort();
    snprintf(edited, sizeof edited, "%s/edited.h5", dir);
    snprintf(base_path, sizeof base_path, "%s", path);
    atexit(cleanup);
    const char *r = getenv("EDDY_FUZZ_RESEAL");
    reseal = r && *r == '1';
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t length = base_size;
    if (size >= 4) {
        uint32_t cut = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 | (uint32_t)data[3] << 24;
        if (cut)
            length = cut % base_size;
    }
    unsigned char *file = malloc(base_size);
    if (!file)
        return 0;
    memcpy(file, base, length);
    for (size_t k = 4; length && k + 4 <= size; k += 4) {
        size_t at = ((size_t)data[k] | (size_t)data[k + 1] << 8 | (size_t)data[k + 2] << 16) % length;
        file[at] ^= data[k + 3];
    }
    bool changed = length != base_size || memcmp(file, base, length) != 0;
    FILE *f = fopen(edited, "wb");
    if (!f || fwrite(file, 1, length, f) != length || fclose(f) != 0)
        abort();
    free(file);
    char err[256];
    /* eddy's own walk of the HDF5 structure, seal or not: it parses every
     * edit; the file eddy wrote passes it. */
    if (!ck_walk(edited, err, sizeof err) && !changed)
        abort();
    if (reseal && length > CK_USERBLOCK)
        ck_seal(edited, err, sizeof err);
    eddy_scene *s = eddy_load_scene(engine, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc),
        .checkpoint = edited, .no_output = true, .host_budget = 4u << 20 });
    /* Without resealing, a changed file that loads got past the seal. */
    if (s && changed && !reseal)
        abort();
    eddy_destroy_scene(s);
    /* Every HDF5 object eddy opened is closed again, whatever the file: a
     * leak LeakSanitizer then reports is libhdf5's own. */
    if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0)
        abort();
    return 0;
}
