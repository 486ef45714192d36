/* eddy_scene_run: the loop of steps, frames and checkpoints with its
 * progress line. Frames fall on multiples of the frame interval (and the
 * run's last step), checkpoints on multiples of their interval counted
 * from the scene's start, so a run resumed from a checkpoint meets the
 * same frames and checkpoints as one that never stopped. */
#include "scene_internal.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

eddy_result eddy_scene_run(eddy_scene *s, uint64_t max_steps, bool progress)
{
    return eddy_scene_run_with(s, &(eddy_run_desc){ EDDY_SIZED(eddy_run_desc), .max_steps = max_steps,
                                                    .progress = progress });
}

/* "checkpoint_<step, 12 digits>.h5", the name a run gives its checkpoints
 * and the only one it lists. */
static void checkpoint_name(uint64_t step, char out[40])
{
    snprintf(out, 40, "checkpoint_%012" PRIu64 ".h5", step);
}

/* The step of checkpoint file name "checkpoint_<step>.h5" (false for any
 * other name). */
static bool checkpoint_step(const char *name, uint64_t *step)
{
    size_t len = strlen(name);
    if (len != strlen("checkpoint_") + 12 + 3 || strncmp(name, "checkpoint_", 11) || strcmp(name + len - 3, ".h5"))
        return false;
    uint64_t v = 0;
    for (size_t i = 11; i < 23; i++) {
        if (name[i] < '0' || name[i] > '9')
            return false;
        v = v * 10 + (uint64_t)(name[i] - '0');
    }
    *step = v;
    return true;
}

static int newest_first(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x < y) - (x > y);
}

/* The steps of dir's checkpoints, newest first (the newest cap). */
static uint32_t list_checkpoints(const char *dir, uint64_t *steps, uint32_t cap)
{
    DIR *d = opendir(dir);
    uint64_t all[4 * EDDY_CHECKPOINT_LIST_MAX];
    uint32_t n = 0, all_cap = 4 * EDDY_CHECKPOINT_LIST_MAX;
    if (!d)
        return 0;
    for (struct dirent *de; (de = readdir(d));) {
        uint64_t st;
        if (!checkpoint_step(de->d_name, &st))
            continue;
        if (n == all_cap) { /* keep the newest: drop the oldest seen */
            qsort(all, n, sizeof *all, newest_first);
            n = cap;
        }
        all[n++] = st;
    }
    closedir(d);
    qsort(all, n, sizeof *all, newest_first);
    n = n < cap ? n : cap;
    memcpy(steps, all, n * sizeof *steps);
    return n;
}

eddy_result eddy_checkpoint_path(const char *dir, uint32_t index, char *path, size_t cap)
{
    if (!dir || !path || !cap || index >= EDDY_CHECKPOINT_LIST_MAX)
        return EDDY_ERROR_INVALID_ARGUMENT;
    uint64_t steps[EDDY_CHECKPOINT_LIST_MAX];
    uint32_t n = list_checkpoints(dir, steps, EDDY_CHECKPOINT_LIST_MAX);
    if (index >= n)
        return EDDY_ERROR_NOT_FOUND;
    char name[40];
    checkpoint_name(steps[index], name);
    int len = snprintf(path, cap, "%s/%s", dir, name);
    return len > 0 && (size_t)len < cap ? EDDY_OK : EDDY_ERROR_INVALID_ARGUMENT;
}

/* A checkpoint of the current step in the output folder; the oldest
 * beyond `keep` are removed once it is in place. */
static eddy_result checkpoint_now(eddy_scene *s, uint32_t keep)
{
    char path[EDDY_OUT_DIR_MAX + 64], name[40];
    checkpoint_name(s->steps_done, name);
    if (!scene_out_path(s, path, sizeof path, name))
        return EDDY_ERROR_IO;
    eddy_result r = eddy_scene_save(s, path);
    if (r != EDDY_OK || !scene_dist_root(s)) /* over ranks, rank 0 keeps the files */
        return r;
    uint64_t steps[EDDY_CHECKPOINT_LIST_MAX];
    uint32_t n = list_checkpoints(s->out_dir, steps, EDDY_CHECKPOINT_LIST_MAX);
    for (uint32_t k = keep; k < n; k++) {
        checkpoint_name(steps[k], name);
        if (scene_out_path(s, path, sizeof path, name))
            unlink(path);
    }
    return EDDY_OK;
}

typedef struct run_state {
    const eddy_run_desc *d;
    uint64_t end, total, every; /* every: steps between checkpoints, 0 for none */
    double start, last_report, last_checkpoint;
    uint64_t last_decile;
    bool tty;
} run_state;

/* A terminal gets one line rewritten in place, a log file a line every 10%. */
static void report(const eddy_scene *s, run_state *rs)
{
    double t = now_s();
    uint64_t done = rs->total - (rs->end - s->steps_done), total = rs->total ? rs->total : 1;
    bool due = rs->tty ? t - rs->last_report > 0.5 || s->steps_done == rs->end : done * 10 / total != rs->last_decile;
    if (!rs->d->progress || !due)
        return;
    double rate = (double)done / (t - rs->start > 1e-9 ? t - rs->start : 1e-9);
    fprintf(stderr, "%s%s: step %" PRIu64 "/%" PRIu64 " (%3.0f%%)  t = %.4g s  %.3g steps/s  frame %u   %s",
            rs->tty ? "\r" : "", s->name, done, rs->total, 100.0 * (double)done / (double)total,
            (double)s->steps_done * s->dt, rate, s->frames, rs->tty ? "" : "\n");
    rs->last_report = t;
    rs->last_decile = done * 10 / total;
}

/* Steps to the next frame, checkpoint or end; with a stop flag or a
 * wall-clock interval, also at most `chunk` (so a stop is seen soon). */
static uint64_t next_steps(const eddy_scene *s, const run_state *rs, uint64_t chunk)
{
    uint64_t n = rs->end - s->steps_done, to_frame = s->frame_every - s->steps_done % s->frame_every;
    n = n < to_frame ? n : to_frame;
    if (rs->every) {
        uint64_t to_ck = rs->every - s->steps_done % rs->every;
        n = n < to_ck ? n : to_ck;
    }
    if ((rs->d->stop || rs->d->checkpoint_wall > 0) && n > chunk)
        n = chunk;
    return n;
}

eddy_result eddy_scene_run_with(eddy_scene *s, const eddy_run_desc *desc)
{
    SCENE_GUARD(s, return EDDY_ERROR_INVALID_ARGUMENT);
    EDDY_TAKE_DESC(s->e, eddy_run_desc, desc, return EDDY_ERROR_INVALID_ARGUMENT);
    bool checkpoints = desc->checkpoint_every > 0 || desc->checkpoint_wall > 0;
    if (!(desc->checkpoint_every >= 0 && desc->checkpoint_every <= 1e12 && desc->checkpoint_wall >= 0 &&
          desc->checkpoint_wall <= 1e9) || desc->checkpoint_keep > EDDY_CHECKPOINT_LIST_MAX ||
        (checkpoints && s->no_output)) {
        eddy_log(s->e, EDDY_LOG_ERROR, "run.invalid", "eddy_scene_run_with: expected checkpoint_every in [0, 1e12] "
                 "s, checkpoint_wall in [0, 1e9] s, checkpoint_keep at most %d, and checkpoints only with output "
                 "on; got %g, %g, %u%s", EDDY_CHECKPOINT_LIST_MAX, desc->checkpoint_every, desc->checkpoint_wall,
                 desc->checkpoint_keep, checkpoints && s->no_output ? ", output off" : "");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    /* Refused before the first frame: a run that cannot keep its
     * checkpoints writes nothing. */
    if (checkpoints && !scene_checkpointable(s, s->out_dir))
        return EDDY_ERROR_UNSUPPORTED;
    run_state rs = { .d = desc, .start = now_s(), .tty = isatty(2) != 0 };
    /* Without a step count the run goes to the scene's end: the rest of it
     * for a scene restored from a checkpoint. */
    rs.end = desc->max_steps ? s->steps_done + desc->max_steps : s->steps > s->steps_done ? s->steps : s->steps_done;
    rs.total = rs.end - s->steps_done;
    rs.last_report = rs.last_checkpoint = rs.start;
    rs.every = desc->checkpoint_every > 0 ? (uint64_t)fmax(1.0, llround(desc->checkpoint_every / s->dt)) : 0;
    uint32_t keep = desc->checkpoint_keep ? desc->checkpoint_keep : 2;
    uint64_t chunk = 1;
    /* The first frame shows the start; a run continued (a second call, a
     * restored scene) has it already. */
    eddy_result r = s->frames == 0 ? eddy_scene_write_frame(s) : EDDY_OK;
    /* Over ranks every rank stops, and checkpoints, at the same step. */
    bool stop = scene_dist_any(s, desc->stop && *desc->stop);
    while (r == EDDY_OK && s->steps_done < rs.end && !stop) {
        uint64_t n = next_steps(s, &rs, chunk);
        double t0 = now_s();
        r = eddy_scene_step(s, n);
        /* Over ranks every rank steps alike (each chunk ends in an
         * agreement): the chunk may not follow a rank's own clock. */
        if (now_s() - t0 < 0.1 && chunk < (1ull << 20) && !s->dist)
            chunk *= 2;
        if (r == EDDY_OK && (s->steps_done % s->frame_every == 0 || s->steps_done == rs.end)) {
            r = eddy_scene_write_frame(s);
            if (r == EDDY_OK && s->adaptive)
                r = scene_adapt(s);
        }
        bool wall = scene_dist_any(s, desc->checkpoint_wall > 0 && now_s() - rs.last_checkpoint >= desc->checkpoint_wall);
        if (r == EDDY_OK && ((rs.every && s->steps_done % rs.every == 0) || wall)) {
            r = checkpoint_now(s, keep);
            rs.last_checkpoint = now_s();
        }
        report(s, &rs);
        stop = scene_dist_any(s, desc->stop && *desc->stop);
    }
    /* Stopped from outside (a signal): the state of this step boundary is
     * kept, whether or not checkpoints were asked for, when there is an
     * output folder to keep it in. */
    if (r == EDDY_OK && stop && !s->no_output && s->steps_done < rs.end)
        r = checkpoint_now(s, keep);
    if (desc->progress && rs.tty)
        fputc('\n', stderr);
    return r;
}
