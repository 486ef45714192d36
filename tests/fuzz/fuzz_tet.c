/* libFuzzer harness: bytes -> eddy_load_tetmesh / eddy_load_tetgen ->
 * masses, edges and boundary. The first byte picks the format (bits 0-1)
 * and reorient (bit 7):
 *   0  a TetGen pair through eddy_load_tetgen: the rest up to the first
 *      0xff byte is the .node file, what follows it the .ele file
 *   1  a .vtu file
 *   2  a .msh file
 *   3  a TetGen pair as 0, through eddy_load_tetmesh (the .node path)
 * The files are memory files (memfd) reached through symbolic links with
 * the right extensions in a temporary folder, as the loader takes paths. A
 * mesh that loads must hold what the loader promises (indices in range,
 * every tet positively oriented), or the harness aborts. tools/fuzz.sh runs
 * it; tests/fuzz/corpus.sh tet gathers its seeds. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "eddy/eddy_tetmesh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int fd[2] = { -1, -1 };
static char dir[64], node[96], ele[96], vtu[96], msh[96];

static void cleanup(void)
{
    unlink(node);
    unlink(ele);
    unlink(vtu);
    unlink(msh);
    rmdir(dir);
}

static void setup(void)
{
    for (int i = 0; i < 2; i++)
        if ((fd[i] = memfd_create(i ? "fuzz.ele" : "fuzz.node", 0)) < 0)
            abort();
    snprintf(dir, sizeof dir, "/tmp/fuzz_tet_XXXXXX");
    if (!mkdtemp(dir))
        abort();
    snprintf(node, sizeof node, "%s/t.node", dir);
    snprintf(ele, sizeof ele, "%s/t.ele", dir);
    snprintf(vtu, sizeof vtu, "%s/t.vtu", dir);
    snprintf(msh, sizeof msh, "%s/t.msh", dir);
    char target[64];
    const char *links[4] = { node, ele, vtu, msh };
    for (int i = 0; i < 4; i++) {
        snprintf(target, sizeof target, "/proc/self/fd/%d", fd[i == 1]);
        if (symlink(target, links[i]) != 0)
            abort();
    }
    atexit(cleanup);
}

static void put(int f, const uint8_t *data, size_t size)
{
    if (ftruncate(f, 0) != 0 || (size && pwrite(f, data, size, 0) != (ssize_t)size))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fd[0] < 0)
        setup();
    if (size == 0)
        return 0;
    uint8_t mode = data[0];
    data++;
    size--;
    int format = mode & 3;
    eddy_tetmesh_desc desc = { EDDY_SIZED(eddy_tetmesh_desc), .reorient = (mode & 0x80) != 0 };
    char err[1024];
    eddy_tetmesh m;
    int rc;
    if (format == 0 || format == 3) {
        const uint8_t *sep = memchr(data, 0xff, size);
        size_t first = sep ? (size_t)(sep - data) : size;
        put(fd[0], data, first);
        put(fd[1], sep ? sep + 1 : data, sep ? size - first - 1 : 0);
        rc = format == 0 ? eddy_load_tetgen(node, ele, &desc, &m, err, sizeof err)
                         : eddy_load_tetmesh(node, &desc, &m, err, sizeof err);
    } else {
        put(fd[0], data, size);
        rc = eddy_load_tetmesh(format == 1 ? vtu : msh, &desc, &m, err, sizeof err);
    }
    if (rc != 0) {
        /* Refused: nothing kept, and a message. */
        if (m.vertices || m.tets || m.attributes || m.markers || m.vertex_count || m.tet_count || !err[0])
            abort();
        return 0;
    }
    if (!m.tet_count || m.attribute_count > EDDY_TET_MAX_ATTRIBUTES || m.unreferenced >= m.vertex_count)
        abort();
    for (uint64_t i = 0; i < 4ull * m.tet_count; i++)
        if (m.tets[i] >= m.vertex_count)
            abort();
    for (uint32_t t = 0; t < m.tet_count; t++)
        if (!(eddy_tet_volume(&m, t) > 0))
            abort();
    float *mass = malloc((size_t)m.vertex_count * sizeof *mass);
    if (!mass)
        abort();
    double total = eddy_tetmesh_masses(&m, 1000.0, mass);
    if (!(total > 0))
        abort();
    free(mass);
    uint32_t *edges = NULL, *tris = NULL;
    int64_t ne = eddy_tetmesh_edges(&m, &edges);
    int64_t nb = eddy_tetmesh_boundary(&m, &tris);
    /* At least the six edges and four faces of one tet, at most 6 and 4 per tet. */
    if (ne < 6 || ne > 6ll * m.tet_count || nb < 0 || nb > 4ll * m.tet_count)
        abort();
    for (int64_t i = 0; i < ne; i++)
        if (edges[2 * i] >= edges[2 * i + 1] || edges[2 * i + 1] >= m.vertex_count)
            abort();
    for (int64_t i = 0; i < 3 * nb; i++)
        if (tris[i] >= m.vertex_count)
            abort();
    free(edges);
    free(tris);
    double q[4] = { 0.5, 0.5, 0.5, 0.5 }, t[3] = { 1, 2, 3 };
    eddy_tetmesh_transform(&m, 0.5, q, t);
    eddy_free_tetmesh(&m);
    return 0;
}
