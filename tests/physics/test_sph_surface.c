/* Surface tracking of the SPH module on a resting sphere of fluid (no
 * gravity): the particles flagged as surface (|grad c| > l) are the outer
 * layer, and the iso-surface mesh written for the frame is closed (every
 * edge shared by exactly two triangles, consistently wound) and encloses the
 * fluid's volume N m / rho0 within 5%. With surface_live the same
 * surface is extracted on the GPU every substep into the set
 * "water.surface": its draw record counts the frame's triangles and its
 * vertices enclose the same volume, and the fluid moves bitwise as without
 * it. */
#include "../gpu/gpu_test.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

static int cmp_edge(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static float *last_pos; /* the run before, to compare a live run with */

static void drop(eddy_engine *e, double R, bool live)
{
    char dir[] = "/tmp/eddy-surface-XXXXXX";
    REQUIRE(mkdtemp(dir) != NULL);
    const double s = 0.02;
    char json[2048];
    snprintf(json, sizeof json,
        "{ \"dt\": 0.0002, \"duration\": 1, \"box\": { \"min\": [0, 0, 0], \"max\": [0.4, 0.4, 0.4] },"
        "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": 0.02,"
        "      \"fill\": { \"shape\": \"sphere\", \"center\": [0.2, 0.2, 0.2], \"radius\": %g } } ],"
        "  \"systems\": [ { \"name\": \"drop\", \"module\": \"sph\", \"set\": \"water\","
        "      \"params\": { \"h\": 0.04, \"stiffness\": 100, \"gravity\": [0, 0, 0], \"surface_mesh\": true%s } } ],"
        "  \"output\": { \"vtk\": false } }", R, live ? ", \"surface_live\": true" : "");
    eddy_scene *sc = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "surface", .json = json, .out_dir = dir });
    REQUIRE(sc != NULL);
    CHECK(eddy_scene_step(sc, 1) == EDDY_OK);
    CHECK(eddy_scene_write_frame(sc) == EDDY_OK);

    /* Surface particles: the outer layer of the lattice sphere. */
    eddy_particles p = eddy_find_particles(e, "water");
    uint32_t n = eddy_particles_count(e, p);
    float *pos = malloc(16ull * n), *nrm = malloc(16ull * n);
    REQUIRE(pos && nrm);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, p, "position"), 0, 16ull * n, pos) == EDDY_OK);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, p, "normal"), 0, 16ull * n, nrm) == EDDY_OK);
    uint32_t surface = 0, outer = 0, deep = 0;
    for (uint32_t i = 0; i < n; i++) {
        double dx = pos[4 * i] - 0.2, dy = pos[4 * i + 1] - 0.2, dz = pos[4 * i + 2] - 0.2;
        double r = sqrt(dx * dx + dy * dy + dz * dz);
        bool is_surface = nrm[4 * i + 3] > 7.065f;
        surface += is_surface;
        outer += r > R - s;
        deep += is_surface && r < R - 2 * s; /* flagged but two layers in */
    }
    CHECKF(deep == 0, "%u surface particles lie deeper than two layers", deep);
    CHECKF(surface >= 0.8 * outer && surface <= 1.6 * outer,
           "%u surface particles; the outer layer has %u (band 0.8 .. 1.6 of it)", surface, outer);

    /* The mesh: read the binary PLY back. */
    char path[256];
    snprintf(path, sizeof path, "%s/drop_surface_000000.ply", dir);
    FILE *f = fopen(path, "rb");
    REQUIRE(f != NULL);
    char line[256];
    long nv = -1, nf = -1;
    while (fgets(line, sizeof line, f) && strcmp(line, "end_header\n")) {
        sscanf(line, "element vertex %ld", &nv);
        sscanf(line, "element face %ld", &nf);
    }
    REQUIRE(nv > 0 && nf > 0);
    float *v = malloc(12 * (size_t)nv);
    uint32_t *tri = malloc(12 * (size_t)nf);
    REQUIRE(v && tri && fread(v, 12, (size_t)nv, f) == (size_t)nv);
    for (long t = 0; t < nf; t++) {
        unsigned char three;
        REQUIRE(fread(&three, 1, 1, f) == 1 && three == 3 && fread(tri + 3 * t, 4, 3, f) == 3);
    }
    fclose(f);
    snprintf(path, sizeof path, "%s/drop_surface.pvd", dir);
    CHECKF(access(path, R_OK) == 0, "no surface series %s", path);
    /* Closed and consistently wound: each directed edge once, and its reverse once. */
    uint64_t *edges = malloc(8 * 3 * (size_t)nf), *rev = malloc(8 * 3 * (size_t)nf);
    REQUIRE(edges && rev);
    double volume = 0;
    for (long t = 0; t < nf; t++) {
        for (int k = 0; k < 3; k++) {
            uint32_t a = tri[3 * t + k], b = tri[3 * t + (k + 1) % 3];
            edges[3 * t + k] = (uint64_t)a << 32 | b;
            rev[3 * t + k] = (uint64_t)b << 32 | a;
        }
        const float *A = v + 3 * tri[3 * t], *B = v + 3 * tri[3 * t + 1], *C = v + 3 * tri[3 * t + 2];
        volume += (A[0] * ((double)B[1] * C[2] - (double)B[2] * C[1]) - A[1] * ((double)B[0] * C[2] - (double)B[2] * C[0]) +
                   A[2] * ((double)B[0] * C[1] - (double)B[1] * C[0])) / 6.0;
    }
    qsort(edges, 3 * (size_t)nf, 8, cmp_edge);
    qsort(rev, 3 * (size_t)nf, 8, cmp_edge);
    long dup = 0, unmatched = 0;
    for (long i = 0; i < 3 * nf; i++) {
        dup += i > 0 && edges[i] == edges[i - 1];
        unmatched += edges[i] != rev[i];
    }
    CHECKF(dup == 0 && unmatched == 0, "mesh not closed: %ld repeated directed edges, %ld without a twin", dup, unmatched);
    double fluid = n * s * s * s; /* N m / rho0 with m = rho0 s^3 */
    CHECKF(fabs(volume - fluid) <= 0.05 * fluid, "mesh encloses %g m^3, the fluid %g m^3 (5%%)", volume, fluid);
    printf("sphere of radius %g m, %u particles: %u surface particles (outer layer %u); mesh %ld vertices, %ld triangles, closed; "
           "volume %.4g m^3 vs fluid %.4g m^3 (%.2f%%)\n", R, n, surface, outer, nv, nf, volume, fluid, 100 * (volume - fluid) / fluid);
    if (live) {
        /* The live surface of the same step: the frame's triangles, as a soup. */
        eddy_particles ls = eddy_find_particles(e, "water.surface");
        uint32_t draw[5] = { 0 };
        REQUIRE(ls.id);
        CHECK(eddy_buffer_download(e, eddy_particles_elements_draw(e, ls, "triangles"), 0, sizeof draw, draw) ==
              EDDY_OK);
        uint32_t live_tris = draw[0] / 3;
        float *lv = malloc(48ull * (live_tris + 1));
        REQUIRE(lv);
        CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, ls, "position"), 0, 48ull * live_tris, lv) == EDDY_OK);
        double live_volume = 0;
        for (uint32_t t = 0; t < live_tris; t++) {
            const float *A = lv + 12 * t, *B = A + 4, *C = A + 8;
            live_volume += (A[0] * ((double)B[1] * C[2] - (double)B[2] * C[1]) -
                            A[1] * ((double)B[0] * C[2] - (double)B[2] * C[0]) +
                            A[2] * ((double)B[0] * C[1] - (double)B[1] * C[0])) / 6.0;
        }
        CHECKF(draw[0] % 3 == 0 && live_tris == (uint32_t)nf && draw[1] == 1 && draw[2] == 0,
               "live draw record { %u, %u, %u }: %u triangles, the frame has %ld", draw[0], draw[1], draw[2],
               live_tris, nf);
        CHECKF(fabs(live_volume - volume) <= 1e-9 * fabs(volume), "live surface encloses %.12g m^3, the frame's mesh "
               "%.12g m^3", live_volume, volume);
        CHECKF(last_pos && memcmp(last_pos, pos, 16ull * n) == 0, "the fluid with surface_live differs from without");
        printf("surface_live: draw record { %u, 1, 0, 0, 0 } = the frame's %ld triangles, volume %.6g m^3 as the "
               "frame's; the fluid bitwise as without\n", draw[0], nf, live_volume);
        free(lv);
    }
    free(last_pos);
    last_pos = pos;
    free(nrm), free(v), free(tri), free(edges), free(rev);
    eddy_destroy_scene(sc);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

int main(void)
{
    eddy_engine *e = test_engine();
    drop(e, 0.1, false);   /* R = 2.5 h, 552 particles */
    drop(e, 0.1, true);    /* the same with the live surface */
    drop(e, 0.17, false);  /* R = 4.25 h */
    free(last_pos);
    test_finish(e);
    return test_report("sph_surface");
}
