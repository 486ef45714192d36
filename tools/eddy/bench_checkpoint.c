/* eddy bench checkpoint.pbf50k: what a checkpoint costs on the PBF case of
 * pbf.dam50k (a 37^3 cube, 3 iterations, dt 1 ms) run as a scene: the
 * file's bytes per particle, the time to save one (downloads, HDF5 with
 * checksums, the seal, fsync and rename) and to restore it (a scene made
 * from the checkpoint, less a plain load of the same scene), against the
 * native reference: the same number of bytes written with write() and
 * fsync'ed. The restored particles must equal the saved ones bitwise
 * ("match"). */
#include "bench_checkpoint.h"

#include "eddy/eddy_scene.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *scene_json =
    "{ \"name\": \"checkpoint_pbf50k\", \"dt\": 0.001, \"duration\": 1,"
    "  \"box\": { \"min\": [0, 0, 0], \"max\": [1.48, 0.74, 0.37] },"
    "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": 0.01,"
    "      \"fill\": { \"shape\": \"box\", \"min\": [0, 0, 0], \"max\": [0.37, 0.37, 0.37] } } ],"
    "  \"systems\": [ { \"name\": \"fluid\", \"module\": \"pbf\", \"set\": \"water\","
    "      \"params\": { \"h\": 0.02, \"iterations\": 3 } } ] }";

/* write() + fsync of size bytes: what any format pays at least. */
static double raw_write_ms(const char *path, const void *data, size_t size)
{
    double t0 = eddy_bench_now_ms();
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return -1;
    bool ok = write(fd, data, size) == (ssize_t)size && fsync(fd) == 0;
    close(fd);
    unlink(path);
    return ok ? eddy_bench_now_ms() - t0 : -1;
}

static bool positions(eddy_engine *e, const char *set, float *out, uint32_t n)
{
    eddy_buffer b = eddy_particles_buffer(e, eddy_find_particles(e, set), "position");
    return eddy_buffer_download(e, b, 0, 16ull * n, out) == EDDY_OK;
}

int eddy_bench_checkpoint_run(eddy_engine *e, const eddy_bench_case *c, const eddy_bench_options *o,
                              eddy_bench_result *r)
{
    char dir[] = "/tmp/eddy_bench_checkpoint.XXXXXX", path[128], out[96];
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, sizeof path, "%s/checkpoint.h5", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    eddy_scene *s = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = c->name,
                                                           .json = scene_json, .out_dir = out });
    double t0, load_ms, save_ms = 0, restore_ms = 0, raw_ms = 0;
    uint32_t n = s ? eddy_scene_get_info(s).particle_count : 0;
    float *a = malloc(16ull * n + 16), *b = malloc(16ull * n + 16);
    int rc = s && a && b && eddy_scene_step(s, 2) == EDDY_OK && positions(e, "water", a, n) ? 0 : -1;
    for (uint32_t k = 0; rc == 0 && k < o->iterations; k++) {
        t0 = eddy_bench_now_ms();
        rc = eddy_scene_save(s, path) == EDDY_OK ? 0 : -1;
        save_ms += eddy_bench_now_ms() - t0;
    }
    eddy_destroy_scene(s);
    struct stat st;
    if (rc == 0 && stat(path, &st) != 0)
        rc = -1;
    void *bytes = rc == 0 ? calloc(1, (size_t)st.st_size) : NULL;
    char raw[128];
    snprintf(raw, sizeof raw, "%s/raw.bin", dir);
    for (uint32_t k = 0; rc == 0 && k < o->iterations; k++) {
        double ms = bytes ? raw_write_ms(raw, bytes, (size_t)st.st_size) : -1;
        rc = ms >= 0 ? 0 : -1;
        raw_ms += ms;
    }
    bool match = false;
    for (uint32_t k = 0; rc == 0 && k < o->iterations; k++) {
        /* The plain load as warm as the restore's (pipelines made once). */
        t0 = eddy_bench_now_ms();
        eddy_destroy_scene(eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = c->name,
                                                                  .json = scene_json, .no_output = true }));
        load_ms = eddy_bench_now_ms() - t0;
        t0 = eddy_bench_now_ms();
        eddy_scene *back = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc),
                                                                  .checkpoint = path, .no_output = true });
        restore_ms += eddy_bench_now_ms() - t0 - load_ms;
        match = back && positions(e, "water", b, n) && !memcmp(a, b, 16ull * n);
        eddy_destroy_scene(back);
        rc = back ? 0 : -1;
    }
    if (rc == 0) {
        double it = o->iterations;
        printf("{\"case\":\"%s\",\"device\":\"%s\",\"particles\":%u,\"iterations\":%u,\"file_bytes\":%lld,"
               "\"bytes_per_particle\":%.1f,\"save_ms\":%.3f,\"restore_ms\":%.3f,\"raw_write_ms\":%.3f,"
               "\"ratio_save_to_raw\":%.3f,\"save_mb_per_s\":%.1f,\"match\":%s}\n",
               c->name, eddy_engine_device(e)->name, n, o->iterations, (long long)st.st_size,
               (double)st.st_size / n, save_ms / it, restore_ms / it, raw_ms / it, save_ms / raw_ms,
               (double)st.st_size / (save_ms / it * 1e3), match ? "true" : "false");
        fflush(stdout);
        r->printed = true;
    }
    free(a), free(b), free(bytes);
    unlink(path);
    unlink(raw);
    char marker[128];
    snprintf(marker, sizeof marker, "%s/.eddy_output", out);
    unlink(marker);
    rmdir(out);
    rmdir(dir);
    return rc != 0 ? -1 : match ? 0 : 1;
}
