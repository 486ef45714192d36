/* A restored scene's output folder: the run's own, continued. Its logs
 * are cut back to their length at the checkpoint (what a crash wrote after
 * it goes), its .pvd series rewritten to the checkpoint's frames; the
 * frame files of later numbers stay until the resumed run writes them
 * again, bitwise the same. */
#include "scene_internal.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

bool scene_restore_pvd(eddy_scene *s, const double *t, const uint32_t *set_frame, uint32_t count)
{
    for (uint32_t i = 0; i < s->pvd_count; i++)
        free((char *)s->pvd[i].file);
    s->pvd_count = 0;
    if (count > s->pvd_cap) {
        eddy_pvd_entry *grown = realloc(s->pvd, count * sizeof *grown);
        if (!grown)
            return false;
        s->pvd = grown, s->pvd_cap = count;
    }
    for (uint32_t k = 0; k < count; k++) {
        uint32_t set = set_frame[2 * k], frame = set_frame[2 * k + 1];
        if (set >= s->set_count || frame >= s->frames || !isfinite(t[k]))
            return false;
        char file[EDDY_NAME_MAX + 32];
        snprintf(file, sizeof file, "%s_%06u.vtp", s->sets[set].name, frame);
        char *name = strdup(file);
        if (!name)
            return false;
        s->pvd[s->pvd_count++] = (eddy_pvd_entry){ t[k], set, name };
    }
    return true;
}

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
    if (s->stats)
        r = cut_log(s, "stats.jsonl", s->resume_bytes[0]);
    for (uint32_t i = 0; i < s->system_count && r == EDDY_OK; i++) {
        if (!s->systems[i].log)
            continue;
        char file[EDDY_NAME_MAX + 16];
        snprintf(file, sizeof file, "ports_%s.csv", s->systems[i].name);
        r = cut_log(s, file, s->resume_bytes[1 + i]);
    }
    for (uint32_t i = 0; i < s->set_count && r == EDDY_OK && s->vtk; i++)
        r = scene_write_pvd(s, i);
    s->resume_out = false;
    return r;
}
