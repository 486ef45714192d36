/* libFuzzer harness: bytes -> eddy_load_obj -> eddy_mesh_check ->
 * eddy_voxelize. The input goes to a memory file (memfd) named by path, as
 * the loader only takes paths; the first byte picks the voxel diameter as a
 * fraction of the mesh's extent and surface-only mode, with small limits so
 * every run stays fast. tools/fuzz.sh runs it. */
#include "eddy/eddy_mesh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static int fd = -1;
static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fd < 0) {
        fd = memfd_create("fuzz.obj", 0);
        if (fd < 0)
            abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    uint8_t mode = size ? data[0] : 0;
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        abort();
    char err[1024];
    eddy_mesh m;
    if (eddy_load_obj(path, &m, err, sizeof err) != 0)
        return 0;
    double volume;
    if (eddy_mesh_check(&m, &volume, err, sizeof err) == 0) {
        float lo = INFINITY, hi = -INFINITY;
        for (uint32_t i = 0; i < 3 * m.vertex_count; i++) {
            lo = fminf(lo, m.vertices[i]);
            hi = fmaxf(hi, m.vertices[i]);
        }
        double d = ((double)hi - lo) / (1 + (mode & 63)); /* 1 to 64 voxels across */
        float *pts = NULL;
        int64_t n = eddy_voxelize(&m, &(eddy_voxel_desc){ EDDY_SIZED(eddy_voxel_desc), .diameter = d, .surface_only = mode & 64,
                                                           .max_points = 1u << 16, .max_bytes = 32u << 20 },
                                  &pts, err, sizeof err);
        if (n > 0) {
            double mass, com[3], inertia[9];
            eddy_point_mass_properties(pts, (uint32_t)n, 1.0, d, &mass, com, inertia);
        }
        free(pts);
    }
    eddy_free_mesh(&m);
    return 0;
}
