/* A restored scene's output folder: the run's own, continued. Its logs
 * are cut back to their length at the checkpoint (what a crash wrote after
 * it goes), its .pvd series rewritten to the checkpoint's frames; the
 * frame files of later numbers stay until the resumed run writes them
 * again, bitwise the same. */
#include "scene_internal.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <unistd.h>

/* Log `file` of the run back to `bytes`: as its growing .tmp (a clean
 * stop renamed it into place: it goes back). */
static eddy_result cut_log(eddy_scene *s, const char *file, uint64_t bytes)
{
    char path[EDDY_OUT_DIR_MAX + 160], tmp[EDDY_OUT_DIR_MAX + 170], tname[EDDY_NAME_MAX + 24];
    snprintf(tname, sizeof tname, "%s.tmp", file);
    if (!scene_out_path(s, path, sizeof path, file) || !scene_out_path(s, tmp, sizeof tmp, tname))
        return EDDY_ERROR_IO;
    struct stat st;
    if (stat(tmp, &st) != 0 && stat(path, &st) == 0 && rename(path, tmp) != 0) {
        eddy_log(s->e, EDDY_LOG_ERROR, "output.write", "output: cannot rename '%s' to '%s': %s", path, tmp,
                 strerror(errno));
        return EDDY_ERROR_IO;
    }
    if (stat(tmp, &st) != 0 || (uint64_t)st.st_size < bytes) {
        eddy_log(s->e, EDDY_LOG_ERROR, "output.resume", "output: '%s' of the checkpoint's run is %s (expected at "
                 "least %" PRIu64 " bytes): resume into the run's own output folder", tmp,
                 stat(tmp, &st) != 0 ? "missing" : "shorter", bytes);
        return EDDY_ERROR_IO;
    }
    if (truncate(tmp, (off_t)bytes) != 0) {
        eddy_log(s->e, EDDY_LOG_ERROR, "output.write", "output: cannot cut '%s' back to %" PRIu64 " bytes: %s", tmp,
                 bytes, strerror(errno));
        return EDDY_ERROR_IO;
    }
    return EDDY_OK;
}

/* What a killed run left half written (a frame's or a checkpoint's .tmp)
 * goes; the logs' .tmp files are the logs themselves and stay. */
static void remove_partial_files(eddy_scene *s)
{
    DIR *d = opendir(s->out_dir);
    if (!d)
        return;
    char path[EDDY_OUT_DIR_MAX + 300];
    for (struct dirent *de; (de = readdir(d));) {
        const char *n = de->d_name;
        size_t len = strlen(n);
        if (len < 5 || strcmp(n + len - 4, ".tmp") || !strcmp(n, "stats.jsonl.tmp") ||
            (!strncmp(n, "ports_", 6) && len > 14 && !strcmp(n + len - 8, ".csv.tmp")))
            continue;
        struct stat st;
        if (scene_out_path(s, path, sizeof path, n) && lstat(path, &st) == 0 && S_ISREG(st.st_mode))
            unlink(path);
    }
    closedir(d);
}

eddy_result scene_resume_out(eddy_scene *s)
{
    char marker[EDDY_OUT_DIR_MAX + 64];
    struct stat st;
    if (!scene_out_path(s, marker, sizeof marker, EDDY_OUT_MARKER) || stat(marker, &st) != 0) {
        eddy_log(s->e, EDDY_LOG_ERROR, "output.resume", "output: '%s' is not the output folder of the checkpoint's "
                 "run (no %s file): resume with the run's own folder", s->out_dir, EDDY_OUT_MARKER);
        return EDDY_ERROR_IO;
    }
    remove_partial_files(s);
    eddy_result r = EDDY_OK;
    for (uint32_t k = 0; k <= s->system_count && r == EDDY_OK; k++) {
        char file[EDDY_NAME_MAX + 16];
        if (scene_log_name(s, k, file, sizeof file))
            r = cut_log(s, file, s->resume_bytes[k]);
    }
    for (uint32_t i = 0; i < s->set_count && r == EDDY_OK && s->vtk; i++)
        r = scene_write_pvd(s, i);
    s->resume_out = false;
    s->out_ready = r == EDDY_OK;
    return r;
}
