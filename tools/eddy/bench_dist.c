/* `eddy bench dist.sph dist.pbf`: the distributed step as bench cases (see
 * bench_dist.h). */
#include "bench_dist.h"

#include "eddy/eddy_scene.h"
#include "run_mpi.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* tools/bench_dist.sh's dam break: a 0.3 x 0.4 x 0.3 m column at 1 cm
 * (36,000 particles), h = 2 cm, in a 1 x 0.6 x 0.3 m tank; weakly
 * compressible SPH at 0.4 ms or PBF (4 iterations) at 2 ms. One frame
 * lasts the whole run: the frames are written by the case itself. */
static void scene_text(char *buf, size_t cap, bool pbf)
{
    snprintf(buf, cap,
             "{ \"name\": \"bench_dist_%s\", \"dt\": %s, \"duration\": 100,"
             "  \"box\": { \"min\": [0, 0, 0], \"max\": [1.0, 0.6, 0.3] },"
             "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": 0.01,"
             "    \"fill\": { \"shape\": \"box\", \"min\": [0, 0, 0], \"max\": [0.3, 0.4, 0.3] } } ],"
             "  \"systems\": [ { \"name\": \"fluid\", \"module\": \"%s\", \"set\": \"water\", \"params\": %s } ],"
             "  \"output\": { \"frame_interval\": 100 } }",
             pbf ? "pbf" : "sph", pbf ? "0.002" : "0.0004", pbf ? "pbf" : "sph",
             pbf ? "{ \"h\": 0.02, \"iterations\": 4, \"xsph\": 0.05 }"
                 : "{ \"h\": 0.02, \"stiffness\": 400, \"viscosity\": 10, \"restitution\": 0.1 }");
}

typedef struct dist_figures {
    double ms, split[4], ghosts, halo, submits;
    double particles;
    int ranks;
} dist_figures;

/* The last statistics line's figures: the set's count, and over ranks a
 * substep's split (the slowest rank's), ghosts and submissions (the mean
 * over the ranks) and halo bytes (all ranks'). */
static int read_figures(const char *dir, dist_figures *f)
{
    char path[4200], line[1 << 16] = "", last[1 << 16] = "";
    snprintf(path, sizeof path, "%s/stats.jsonl", dir);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 1;
    while (fgets(line, sizeof line, fp))
        memcpy(last, line, sizeof line);
    fclose(fp);
    cJSON *j = cJSON_Parse(last);
    const cJSON *count = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "sets"), "water"), "count");
    const cJSON *ranks = cJSON_GetObjectItem(j, "ranks");
    int rc = cJSON_IsNumber(count) ? 0 : 1;
    f->particles = rc ? 0 : count->valuedouble;
    static const char *const key[4] = { "compute_s", "pack_s", "exchange_s", "wait_s" };
    const cJSON *subs = cJSON_GetObjectItem(ranks, "substeps");
    double most_subs = 0;
    for (int r = 0; r < cJSON_GetArraySize(subs); r++)
        most_subs = fmax(most_subs, cJSON_GetArrayItem(subs, r)->valuedouble);
    for (int k = 0; k < 4 && ranks; k++) {
        const cJSON *a = cJSON_GetObjectItem(ranks, key[k]);
        for (int r = 0; r < cJSON_GetArraySize(a); r++)
            f->split[k] = fmax(f->split[k], 1e3 * cJSON_GetArrayItem(a, r)->valuedouble / fmax(most_subs, 1));
    }
    const cJSON *g = cJSON_GetObjectItem(ranks, "ghosts"), *h = cJSON_GetObjectItem(ranks, "halo_bytes"),
                *sub = cJSON_GetObjectItem(ranks, "submits");
    int n = cJSON_GetArraySize(g);
    for (int r = 0; r < n; r++) {
        f->ghosts += cJSON_GetArrayItem(g, r)->valuedouble / n;
        f->halo += cJSON_GetArrayItem(h, r) ? cJSON_GetArrayItem(h, r)->valuedouble : 0;
        f->submits += cJSON_GetArrayItem(sub, r) ? cJSON_GetArrayItem(sub, r)->valuedouble / n : 0;
    }
    cJSON_Delete(j);
    return rc;
}

/* The case's own temporary folder, flat: its files, then itself. */
static void remove_flat(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *ent;
    char path[4400];
    while (d && (ent = readdir(d)))
        if (strcmp(ent->d_name, ".") && strcmp(ent->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
            remove(path);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* One run: 3 steps to warm up, a frame (which starts the ranks' figures
 * afresh), `steps` steps timed, a frame with their figures. Collective
 * when over ranks. */
static int run_once(eddy_engine *e, const char *json, const char *out, bool over_ranks, uint32_t steps,
                    dist_figures *f)
{
    eddy_scene *s = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "bench_dist",
                                                             .json = json, .out_dir = out,
                                                             .mpi_comm = over_ranks ? run_mpi_comm() : NULL });
    if (!s)
        return 1;
    eddy_result r = eddy_scene_write_frame(s);
    if (r == EDDY_OK)
        r = eddy_scene_step(s, 3);
    if (r == EDDY_OK)
        r = eddy_scene_write_frame(s);
    double t0 = now_s();
    if (r == EDDY_OK)
        r = eddy_scene_step(s, steps);
    f->ms = 1e3 * (now_s() - t0) / steps;
    if (r == EDDY_OK)
        r = eddy_scene_write_frame(s);
    eddy_destroy_scene(s);
    f->ranks = over_ranks ? run_mpi_size() : 1;
    return r != EDDY_OK || (run_mpi_rank() == 0 && read_figures(out, f) != 0);
}

static void print_line(const eddy_device_info *dev, const char *name, uint32_t steps, const dist_figures *one,
                       const dist_figures *all)
{
    printf("{\"case\":\"%s\",\"device\":\"%s\",\"ranks\":%d,\"particles\":%.0f,\"steps\":%u,"
           "\"ms_per_step\":%.4g,\"particle_steps_per_s\":%.4g,\"one_rank_ms_per_step\":%.4g,"
           "\"one_rank_particle_steps_per_s\":%.4g,\"ratio_to_one_rank\":%.4g",
           name, dev->name, all->ranks, all->particles, steps, all->ms, all->particles / (all->ms / 1e3), one->ms,
           one->particles / (one->ms / 1e3), one->ms / all->ms);
    if (all->ranks > 1)
        printf(",\"per_substep_ms\":{\"compute\":%.4g,\"pack\":%.4g,\"exchange\":%.4g,\"wait\":%.4g},"
               "\"ghosts_per_rank\":%.0f,\"halo_bytes_per_substep\":%.0f,\"submits_per_substep\":%.3g",
               all->split[0], all->split[1], all->split[2], all->split[3], all->ghosts, all->halo, all->submits);
    printf("}\n");
    fflush(stdout);
}

bool eddy_bench_dist_case(const char *name)
{
    return !strcmp(name, "dist") || !strcmp(name, "dist.sph") || !strcmp(name, "dist.pbf");
}

int eddy_bench_dist(eddy_engine *e, const char *name, uint32_t steps)
{
    steps = steps ? steps : 20;
    int failed = 0;
    for (int k = 0; k < 2; k++) {
        const char *c = k ? "dist.pbf" : "dist.sph";
        if (strcmp(name, "dist") && strcmp(name, c))
            continue;
        char json[2048], dir[4096] = "", out[4200];
        scene_text(json, sizeof json, k == 1);
        if (run_mpi_rank() == 0) {
            const char *tmp = getenv("TMPDIR");
            snprintf(dir, sizeof dir, "%s/eddy-bench-dist.XXXXXX", tmp && *tmp ? tmp : "/tmp");
            if (!mkdtemp(dir))
                dir[0] = 0;
        }
        run_mpi_share(dir, (int)sizeof dir);
        if (!dir[0]) {
            fprintf(stderr, "eddy error [output.write]: bench %s: no temporary folder for the run's statistics "
                            "(TMPDIR or /tmp)\n", c);
            return 1;
        }
        /* The one-rank reference first, on rank 0 alone, then every rank. */
        dist_figures one = { 0 }, all = { 0 };
        snprintf(out, sizeof out, "%s/one", dir);
        int rc = run_mpi_rank() == 0 ? run_once(e, json, out, false, steps, &one) : 0;
        char said[2] = { rc ? '1' : '0', 0 };
        run_mpi_share(said, 2); /* rank 0's result: every rank goes on, or none */
        rc = said[0] == '1';
        snprintf(out, sizeof out, "%s/all", dir);
        if (rc == 0 && run_mpi_size() > 1)
            rc = run_once(e, json, out, true, steps, &all);
        else
            all = one;
        if (run_mpi_rank() == 0) {
            if (rc == 0)
                print_line(eddy_engine_device(e), c, steps, &one, &all);
            snprintf(out, sizeof out, "%s/one", dir);
            remove_flat(out);
            snprintf(out, sizeof out, "%s/all", dir);
            remove_flat(out);
            rmdir(dir);
        }
        failed += rc != 0;
    }
    return failed ? 1 : 0;
}
