/* libFuzzer harness: scene JSON text -> a loaded (or refused) scene, through
 * the public eddy_load_scene on one engine made once (lavapipe, validation
 * off, messages dropped, pipelines kept across loads). Nothing may be
 * written: no_output; a scene's plugins are refused (no allow_plugins). Each input is
 * loaded and destroyed; a crash, a sanitizer report, a leak of eddy's or a
 * hang (libFuzzer's -timeout) is a finding. tools/fuzz.sh runs it. */
#include "eddy/eddy.h"
#include "eddy/eddy_scene.h"
#include "eddy/eddy_builtin.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static eddy_engine *engine;
static bool step;

static void quiet(void *user, eddy_log_level level, const char *source, const char *id, const char *message)
{
    (void)user, (void)level, (void)source, (void)message;
    /* Every message of eddy's carries an identifier, whatever the input. */
    if (!id || !*id || !source)
        abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    /* Every pipeline kept: after the first load of each module's scene, a
     * variant's kernels reuse them instead of compiling (two thirds of an
     * execution's time before). */
    engine = eddy_create_engine(&(eddy_engine_desc){ EDDY_SIZED(eddy_engine_desc), .validation = EDDY_VALIDATION_OFF, .log = quiet,
                                                     .kept_pipelines = 4096 });
    if (!engine) {
        /* No Vulkan device (or no Vulkan): nothing to fuzz; exit 77, which
         * the suite's smoke run (smoke.sh) reports as a skip. A device but
         * no engine on it is a failure. (Devices are listed only here: a
         * temporary instance before the engine's unloads the driver, and
         * LeakSanitizer then reports the driver's allocations as leaks of
         * an unknown module.) */
        eddy_device_info info[8];
        int devices = eddy_enumerate_devices(info, 8);
        if (devices > 0)
            abort();
        printf("skipped: no Vulkan device (%s)\n", devices < 0 ? "Vulkan cannot be loaded or has no driver"
                                                                : "eddy_enumerate_devices found none");
        fflush(stdout);
        exit(77);
    }
    if (eddy_register_builtin_modules(engine) != EDDY_OK)
        abort();
    const char *s = getenv("EDDY_FUZZ_STEP");
    step = s && *s == '1';
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    /* A small host budget (100,000 particles a set) keeps valid-but-large
     * scenes, refused by the budget and not a finding, fast and inside
     * libFuzzer's memory limit. */
    eddy_scene *s = eddy_load_scene(engine, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc),
        .path = "fuzz.json", .json = text, .no_output = true, .host_budget = 4u << 20 });
    if (s) {
        /* EDDY_FUZZ_STEP=1 (the suite's smoke run): one step and one frame
         * of what loaded too, the modules' steps and the statistics path.
         * Only small scenes: a step's time grows with particles and
         * substeps, and a mutation to a slow but valid scene is no finding.
         * Long runs leave it off: stepping the shipped scenes makes a run
         * about a hundred times slower. */
        eddy_scene_info info = eddy_scene_get_info(s);
        if (step && info.particle_count <= 20000 && info.substeps <= 20 &&
            eddy_scene_step(s, 1) == EDDY_OK)
            eddy_scene_write_frame(s);
        eddy_destroy_scene(s);
    }
    free(text);
    return 0;
}
