/* Shared by the GPU tests: an engine with validation and synchronization
 * validation on (any message fails the test), a log that keeps the last
 * error so tests can check what a refusal said, and the skip (exit 77) of a
 * machine without a Vulkan device (test_require_device). */
#ifndef EDDY_GPU_TEST_H
#define EDDY_GPU_TEST_H

#include "../test.h"
#include "eddy/eddy.h"
#include <vulkan/vulkan_core.h> /* the tests use Vulkan's names; eddy.h declares only its handles */
#include "eddy/eddy_module.h"
#include "eddy/eddy_scene.h"
#include "eddy/eddy_builtin.h"

#include <string.h>

static char test_last_error[4096];
static char test_last_id[128];
static char test_ids_seen[4096]; /* " id id ... " of eddy's warnings and errors since test_clear_error */
static int test_errors_seen;

static void test_log(void *user, eddy_log_level level, const char *source, const char *id, const char *msg)
{
    (void)user;
    fprintf(stderr, "[%s %s %s] %s\n", level == EDDY_LOG_ERROR ? "error" : level == EDDY_LOG_WARN ? "warn" : "info",
            source ? source : "(no source)", id ? id : "(no id)", msg);
    /* Every message names its source and an identifier: a NULL fails the test. */
    CHECKF(source && id && *id, "a message without a source or identifier: %s", msg);
    bool ours = source && !strcmp(source, "eddy");
    if (ours && level >= EDDY_LOG_WARN && id) {
        size_t n = strlen(test_ids_seen);
        snprintf(test_ids_seen + n, sizeof test_ids_seen - n, "%s%s ", n ? "" : " ", id);
    }
    if (level == EDDY_LOG_ERROR && ours) {
        snprintf(test_last_error, sizeof test_last_error, "%s", msg);
        snprintf(test_last_id, sizeof test_last_id, "%s", id ? id : "");
        test_errors_seen++;
    }
}

/* Whether eddy logged a warning or error with this identifier since
 * test_clear_error: tests act on identifiers, not on the English text. */
static inline bool test_saw(const char *id)
{
    char key[160];
    snprintf(key, sizeof key, " %s ", id);
    return strstr(test_ids_seen, key) != NULL;
}

/* Exit status 77: meson counts the test as skipped. */
#define TEST_SKIP 77

/* No device, no test: when Vulkan cannot be loaded (no loader, no driver:
 * eddy_enumerate_devices returns -1) or lists no device, the program prints
 * one "skipped: no Vulkan device (...)" line and exits 77, which meson
 * counts as SKIP. Where a device exists, nothing is skipped: an engine that
 * then fails to come up fails the test (test_engine's REQUIRE). A skip never
 * hides the suite: tools/test.sh refuses to run without lavapipe, and CI
 * (.ci/run) fails on any skipped test. */
static inline void test_require_device(void)
{
    static int checked;
    if (checked++)
        return;
    eddy_device_info info[8];
    int n = eddy_enumerate_devices(info, 8);
    if (n > 0)
        return;
    printf("skipped: no Vulkan device (%s)\n",
           n < 0 ? "Vulkan cannot be loaded or has no driver: eddy_enumerate_devices returned -1"
                 : "eddy_enumerate_devices found none");
    fflush(stdout);
    exit(TEST_SKIP);
}

/* Runs before main in every program that includes this header, so tests
 * that make their own instance or engine (test_adopt's plain Vulkan
 * instance, test_pipeline_cache's and test_graph's engines with their own
 * descriptions) skip the same way without a line of their own. */
__attribute__((constructor)) static void test_require_device_at_start(void)
{
    test_require_device();
}

static inline eddy_engine *test_engine(void)
{
    test_require_device();
    eddy_engine *e = eddy_create_engine(&(eddy_engine_desc){ EDDY_SIZED(eddy_engine_desc),
        .validation = EDDY_VALIDATION_SYNC, .log = test_log });
    REQUIRE(e != NULL);
    REQUIRE(eddy_register_builtin_modules(e) == EDDY_OK);
    return e;
}

/* Checks that validation said nothing, then destroys the engine. */
/* The parts asked for on the command line (test_part) and which of them a
 * test_part call matched: a part no call knows fails in test_finish (a
 * part meson runs that the program dropped would otherwise pass empty). */
static int test_parts_asked;
static char **test_parts_argv;
static uint64_t test_parts_seen;

static inline void test_finish(eddy_engine *e)
{
    uint32_t n = eddy_validation_message_count(e);
    CHECKF(n == 0, "%u validation message(s)", n);
    for (int i = 0; i < test_parts_asked && i < 64; i++)
        CHECKF(test_parts_seen >> i & 1, "no part '%s' in this test program", test_parts_argv[i]);
    eddy_destroy_engine(e);
}

/* Parts: a long test registers one meson test per part (each under a minute
 * on an idle two-core machine, and run in parallel) and gets the part's name
 * as an argument from argv[first] on; with none, every part runs. */
static inline bool test_part(int argc, char **argv, int first, const char *part)
{
    if (argc <= first)
        return true;
    test_parts_asked = argc - first;
    test_parts_argv = argv + first;
    for (int i = first; i < argc; i++)
        if (!strcmp(argv[i], part)) {
            test_parts_seen |= i - first < 64 ? 1ull << (i - first) : 0;
            return true;
        }
    return false;
}

static inline void test_clear_error(void)
{
    test_last_error[0] = 0;
    test_last_id[0] = 0;
    test_ids_seen[0] = 0;
}

static inline uint32_t test_rand(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*state >> 33);
}

#endif
