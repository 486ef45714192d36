/* The voxeliser and mass properties (engine/src/mesh.c), no device:
 *  - a sphere (icosphere, 1,280 faces) and a torus (R 1, r 0.4, 4,096 faces)
 *    at several diameters: the particle volume n d^3 approaches the analytic
 *    volume, within 3% at the finest;
 *  - a voxelised box (1 x 0.6 x 0.4, d 0.05): centre of mass and inertia
 *    within 2% of M (b^2 + c^2) / 12 ...;
 *  - surface-only particles are a shell of the solid ones;
 *  - an open mesh, an inside-out mesh, a non-finite vertex and d <= 0 are
 *    refused with a message naming the problem. */
#include "test.h"

#include "eddy/eddy_mesh.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static char err[512];

static eddy_mesh load(const char *root, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/data/meshes/%s", root, name);
    eddy_mesh m;
    int rc = eddy_load_obj(path, &m, err, sizeof err);
    CHECKF(rc == 0, "%s", err);
    return m;
}

static void volume_case(const char *root, const char *name, double exact, const double *ds, int nd)
{
    eddy_mesh m = load(root, name);
    double mv;
    CHECKF(eddy_mesh_check(&m, &mv, err, sizeof err) == 0, "%s", err);
    double rel = 0;
    for (int i = 0; i < nd; i++) {
        float *p;
        int64_t n = eddy_voxelize(&m, &(eddy_voxel_desc){ EDDY_SIZED(eddy_voxel_desc), .diameter = ds[i] }, &p, err, sizeof err);
        CHECKF(n > 0, "%s", err);
        double v = (double)n * ds[i] * ds[i] * ds[i];
        rel = (v - exact) / exact;
        printf("%s: d %.4g: %lld particles, volume %.5f, analytic %.5f (%+.2f%%), mesh %.5f\n", name, ds[i],
               (long long)n, v, exact, 100 * rel, mv);
        free(p);
    }
    CHECKF(fabs(rel) < 0.03, "%s: %.2f%% off the analytic volume at the finest", name, 100 * rel);
    eddy_free_mesh(&m);
}

/* An axis-aligned box mesh of half sizes e, centred at c. */
static eddy_mesh box(const double e[3], const double c[3])
{
    static const int quads[6][4] = { { 0, 2, 3, 1 }, { 4, 5, 7, 6 }, { 0, 1, 5, 4 }, { 2, 6, 7, 3 }, { 0, 4, 6, 2 }, { 1, 3, 7, 5 } };
    eddy_mesh m = { malloc(24 * sizeof(float)), 8, malloc(36 * sizeof(uint32_t)), 12 };
    for (int v = 0; v < 8; v++)
        for (int a = 0; a < 3; a++)
            m.vertices[3 * v + a] = (float)(c[a] + ((v >> a) & 1 ? e[a] : -e[a]));
    for (int q = 0; q < 6; q++) {
        const int *k = quads[q];
        uint32_t t[6] = { k[0], k[1], k[2], k[0], k[2], k[3] };
        memcpy(m.indices + 6 * q, t, sizeof t);
    }
    return m;
}

int main(int argc, char **argv)
{
    REQUIRE(argc > 1);
    const char *root = argv[1];
    const double dsph[] = { 0.2, 0.1, 0.05, 0.025 }, dtor[] = { 0.1, 0.05, 0.025 };
    volume_case(root, "sphere_ico3.obj", 4.0 / 3.0 * M_PI, dsph, 4);
    volume_case(root, "torus.obj", 2 * M_PI * M_PI * 1.0 * 0.4 * 0.4, dtor, 3);

    /* The box: inertia about the centre of mass. */
    const double e[3] = { 0.5, 0.3, 0.2 }, c[3] = { 0.3, -0.2, 1.1 };
    eddy_mesh b = box(e, c);
    double bv;
    CHECKF(eddy_mesh_check(&b, &bv, err, sizeof err) == 0, "box: %s", err);
    CHECKF(fabs(bv - 8 * e[0] * e[1] * e[2]) < 1e-6, "box volume %g", bv);
    float *p;
    double d = 0.05;
    int64_t n = eddy_voxelize(&b, &(eddy_voxel_desc){ EDDY_SIZED(eddy_voxel_desc), .diameter = d }, &p, err, sizeof err);
    CHECKF(n > 0, "%s", err);
    double pm = 1000 * d * d * d, M, com[3], I[9];
    eddy_point_mass_properties(p, (uint32_t)n, pm, d, &M, com, I);
    double Mx = 1000 * 8 * e[0] * e[1] * e[2];
    double Ia[3] = { Mx * (4 * e[1] * e[1] + 4 * e[2] * e[2]) / 12, Mx * (4 * e[0] * e[0] + 4 * e[2] * e[2]) / 12,
                     Mx * (4 * e[0] * e[0] + 4 * e[1] * e[1]) / 12 };
    printf("box: %lld particles, mass %.4f (analytic %.4f), centre (%.5f, %.5f, %.5f), inertia diag %.5f %.5f %.5f "
           "(analytic %.5f %.5f %.5f), off-diagonal max %.3g\n", (long long)n, M, Mx, com[0], com[1], com[2],
           I[0], I[4], I[8], Ia[0], Ia[1], Ia[2], fmax(fabs(I[1]), fmax(fabs(I[2]), fabs(I[5]))));
    CHECKF(fabs(M - Mx) < 0.02 * Mx, "mass %g vs %g", M, Mx);
    for (int a = 0; a < 3; a++) {
        CHECKF(fabs(com[a] - c[a]) < 0.02 * e[a], "centre %d: %g vs %g", a, com[a], c[a]);
        CHECKF(fabs(I[4 * a] - Ia[a]) < 0.02 * Ia[a], "inertia %d: %g vs %g", a, I[4 * a], Ia[a]);
    }
    CHECKF(fabs(I[1]) + fabs(I[2]) + fabs(I[5]) < 1e-6 * Ia[0], "off-diagonal %g %g %g", I[1], I[2], I[5]);
    free(p);

    /* Surface only: a shell one voxel thick. */
    float *ps;
    int64_t ns = eddy_voxelize(&b, &(eddy_voxel_desc){ EDDY_SIZED(eddy_voxel_desc), .diameter = d, .surface_only = true }, &ps, err, sizeof err);
    int64_t inner = (int64_t)(20 - 2) * (12 - 2) * (8 - 2);
    CHECKF(ns == n - inner, "surface only: %lld particles, expected %lld - %lld", (long long)ns, (long long)n, (long long)inner);
    free(ps);

    /* Refusals. */
    float *q = NULL;
    CHECK(eddy_voxelize(&b, &(eddy_voxel_desc){ EDDY_SIZED(eddy_voxel_desc), .diameter = 0 }, &q, err, sizeof err) < 0);
    CHECKF(strstr(err, "diameter 0: expected a number > 0"), "%s", err);
    CHECK(eddy_voxelize(&b, &(eddy_voxel_desc){ EDDY_SIZED(eddy_voxel_desc), .diameter = -1 }, &q, err, sizeof err) < 0);
    eddy_mesh open = b;
    open.triangle_count = 11;
    CHECK(eddy_voxelize(&open, &(eddy_voxel_desc){ EDDY_SIZED(eddy_voxel_desc), .diameter = d }, &q, err, sizeof err) < 0);
    CHECKF(strstr(err, "the mesh is open: edge"), "%s", err);
    printf("open: %s\n", err);
    for (uint32_t t = 0; t < 12; t++) {
        uint32_t s = b.indices[3 * t + 1];
        b.indices[3 * t + 1] = b.indices[3 * t + 2];
        b.indices[3 * t + 2] = s;
    }
    CHECK(eddy_voxelize(&b, &(eddy_voxel_desc){ EDDY_SIZED(eddy_voxel_desc), .diameter = d }, &q, err, sizeof err) < 0);
    CHECKF(strstr(err, "inside out"), "%s", err);
    printf("inverted: %s\n", err);
    b.indices[1] ^= b.indices[2], b.indices[2] ^= b.indices[1], b.indices[1] ^= b.indices[2];
    CHECK(eddy_mesh_check(&b, NULL, err, sizeof err) < 0);
    CHECKF(strstr(err, "not consistently wound"), "%s", err);
    b.vertices[4] = NAN;
    CHECK(eddy_mesh_check(&b, NULL, err, sizeof err) < 0);
    CHECKF(strstr(err, "vertex 2 is not finite"), "%s", err);
    eddy_free_mesh(&b);
    eddy_mesh none;
    CHECK(eddy_load_obj("/nonexistent/x.obj", &none, err, sizeof err) < 0 && strstr(err, "cannot open"));
    return test_report("voxel");
}
