/* The pipeline cache on disk: written at the end of an
 * engine that compiled pipelines, read back by the next, and ignored with a
 * warning when it comes from another device or driver or is damaged; two
 * processes ending at once leave a whole file. */
#include "gpu_test.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const uint32_t ops_spv[] =
#include "ops.spv.inc"
    ;

static char warning[4096];
static int warnings;

static void cache_log(void *user, eddy_log_level level, const char *source, const char *id, const char *msg)
{
    test_log(user, level, source, id, msg);
    if (level == EDDY_LOG_WARN && !strncmp(id, "pipeline_cache.", 15)) {
        snprintf(warning, sizeof warning, "%s", id);
        warnings++;
    }
}

static char dir[256], file[1024];

/* An engine on the cache folder that compiles one kernel; returns the bytes
 * it loaded from the cache. */
static size_t engine_round(bool expect_warning, const char *id)
{
    warnings = 0;
    warning[0] = 0;
    eddy_engine *e = eddy_create_engine(&(eddy_engine_desc){ EDDY_SIZED(eddy_engine_desc), .validation = EDDY_VALIDATION_SYNC, .log = cache_log,
                                                             .pipeline_cache_dir = dir });
    REQUIRE(e);
    eddy_pipeline_cache_info info = eddy_engine_pipeline_cache(e);
    REQUIRE(info.path);
    snprintf(file, sizeof file, "%s", info.path);
    CHECK(strncmp(file, dir, strlen(dir)) == 0);
    eddy_kernel k = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "ops", EDDY_SPIRV(ops_spv) });
    CHECK(k.id);
    CHECKF(expect_warning ? warnings == 1 : warnings == 0, "%d warnings, last: %s", warnings, warning);
    if (id)
        CHECKF(!strcmp(warning, id), "warning: '%s', expected '%s'", warning, id);
    size_t loaded = info.loaded_bytes;
    test_finish(e);
    return loaded;
}

static long file_size(void)
{
    struct stat st;
    return stat(file, &st) == 0 ? (long)st.st_size : -1;
}

/* The file: a 56-byte eddy header, then the driver's data. Rewrites byte `at` (from the end when negative). */
static void poke(long at, unsigned char xor_with)
{
    FILE *f = fopen(file, "r+b");
    REQUIRE(f);
    REQUIRE(fseek(f, at, at < 0 ? SEEK_END : SEEK_SET) == 0);
    int c = fgetc(f);
    REQUIRE(c != EOF);
    REQUIRE(fseek(f, -1, SEEK_CUR) == 0);
    fputc(c ^ xor_with, f);
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "child")) {
        /* One of the processes started at once (exec'd: no Vulkan state
         * crosses a fork). */
        snprintf(dir, sizeof dir, "%s", argv[2]);
        engine_round(false, NULL);
        return test_failures ? 1 : 0;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/eddy-pc-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    REQUIRE(mkdtemp(dir));
    strcat(dir, "/nested/cache"); /* folders are made as needed */

    /* Cold: nothing to load; the end writes the file. */
    CHECK(engine_round(false, NULL) == 0);
    long size = file_size();
    CHECKF(size >= 56, "cache file '%s': %ld bytes", file, size);
    /* Warm: the driver's data comes back. */
    size_t loaded = engine_round(false, NULL);
    CHECKF((long)loaded == size - 56, "loaded %zu bytes of a %ld-byte file", loaded, size);
    printf("pipeline cache: %ld bytes on disk, %zu of them the driver's\n", size, loaded);

    /* Damaged data: checksum. */
    if (size > 56) {
        poke(-1, 0x5a);
        CHECK(engine_round(true, "pipeline_cache.corrupt") == 0);
    }
    /* Another driver version in the header. */
    poke(16, 0x01);
    CHECK(engine_round(true, "pipeline_cache.foreign") == 0);
    /* Truncated. */
    REQUIRE(truncate(file, size - 1) == 0);
    CHECK(engine_round(true, "pipeline_cache.corrupt") == 0);
    /* Not a cache at all. */
    FILE *f = fopen(file, "wb");
    REQUIRE(f);
    fputs("hello", f);
    fclose(f);
    CHECK(engine_round(true, "pipeline_cache.corrupt") == 0);
    /* Each damaged file was replaced at the engine's end: whole again. */
    CHECK(engine_round(false, NULL) == loaded);

    /* Four processes ending at once: the file stays whole. */
    remove(file);
    pid_t kids[4];
    for (int i = 0; i < 4; i++) {
        kids[i] = fork();
        REQUIRE(kids[i] >= 0);
        if (kids[i] == 0) {
            execl("/proc/self/exe", argv[0], "child", dir, (char *)NULL);
            _exit(127);
        }
    }
    for (int i = 0; i < 4; i++) {
        int st = 0;
        CHECK(waitpid(kids[i], &st, 0) == kids[i] && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    CHECK(engine_round(false, NULL) == loaded);

    /* "" : no cache on disk. */
    eddy_engine *e = eddy_create_engine(&(eddy_engine_desc){ EDDY_SIZED(eddy_engine_desc), .validation = EDDY_VALIDATION_SYNC, .log = test_log,
                                                             .pipeline_cache_dir = "" });
    REQUIRE(e);
    CHECK(eddy_engine_pipeline_cache(e).path == NULL);
    test_finish(e);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%.*s'", (int)(strstr(dir, "/nested") - dir), dir);
    CHECK(system(cmd) == 0);
    return test_report("pipeline_cache");
}
