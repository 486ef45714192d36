/* eddy voxelize: a closed OBJ mesh to particles of diameter d (the rigid
 * module's bodies), with the particle set's mass properties. Host only. */
#include "voxelize.h"

#include "eddy/eddy_mesh.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *usage =
    "usage: eddy voxelize MESH.obj --diameter D [--scale S] [--density RHO] [--surface-only]\n"
    "                     [--max-bytes N] [--out FILE.csv|FILE.vtk]\n";

static int number(const char *opt, const char *s, double lo, double *out)
{
    char *end;
    errno = 0;
    double v = s ? strtod(s, &end) : NAN;
    if (!s || *end || errno || !isfinite(v) || !(v > lo)) {
        fprintf(stderr, "eddy error [cli.usage]: voxelize: %s: expected a finite number > %g, got '%s'\n", opt, lo,
                s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && !strcmp(s + a - b, tail);
}

/* Written to FILE.tmp and renamed, so a failed run leaves no half file. */
static int write_points(const char *path, const float *pts, uint32_t n, double d, double m)
{
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
        fprintf(stderr, "eddy error [cli.usage]: voxelize: --out: the path is longer than %zu bytes\n", sizeof tmp - 5);
        return -1;
    }
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "eddy error [output.write]: voxelize: cannot create '%s': %s\n", tmp, strerror(errno));
        return -1;
    }
    if (ends_with(path, ".vtk")) {
        /* Legacy VTK polydata: ParaView opens it directly. */
        fprintf(f, "# vtk DataFile Version 3.0\neddy voxelize d = %.9g m\nASCII\nDATASET POLYDATA\n"
                   "POINTS %u float\n", d, n);
        for (uint32_t i = 0; i < n; i++)
            fprintf(f, "%.9g %.9g %.9g\n", pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]);
        fprintf(f, "VERTICES %u %u\n", n, 2 * n);
        for (uint32_t i = 0; i < n; i++)
            fprintf(f, "1 %u\n", i);
        fprintf(f, "POINT_DATA %u\nSCALARS radius float 1\nLOOKUP_TABLE default\n", n);
        for (uint32_t i = 0; i < n; i++)
            fprintf(f, "%.9g\n", d / 2);
    } else {
        fprintf(f, "x,y,z,radius,mass\n");
        for (uint32_t i = 0; i < n; i++)
            fprintf(f, "%.9g,%.9g,%.9g,%.9g,%.9g\n", pts[3 * i], pts[3 * i + 1], pts[3 * i + 2], d / 2, m);
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        fprintf(stderr, "eddy error [output.write]: voxelize: cannot write '%s': %s\n", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

int eddy_voxelize_main(int argc, char **argv)
{
    const char *mesh_path = NULL, *out = NULL;
    double d = 0, scale = 1, density = 1000, max_bytes = 0;
    bool surface = false;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--diameter")) {
            if (number(a, next, 0, &d) != 0)
                return 2;
            i++;
        } else if (!strcmp(a, "--scale")) {
            if (number(a, next, 0, &scale) != 0)
                return 2;
            i++;
        } else if (!strcmp(a, "--density")) {
            if (number(a, next, 0, &density) != 0)
                return 2;
            i++;
        } else if (!strcmp(a, "--max-bytes")) {
            /* The voxeliser's host memory budget (default 1 GiB). */
            if (number(a, next, 0, &max_bytes) != 0)
                return 2;
            if (max_bytes > 1e18 || max_bytes != floor(max_bytes)) {
                fprintf(stderr, "eddy error [cli.usage]: voxelize: --max-bytes: expected a whole number of bytes up to 1e18, got '%s'\n", next);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--out") && next) {
            out = argv[++i];
        } else if (!strcmp(a, "--surface-only")) {
            surface = true;
        } else if (a[0] == '-' || mesh_path) {
            fprintf(stderr, "eddy error [cli.usage]: voxelize: unexpected argument '%s'\n%s", a, usage);
            return 2;
        } else {
            mesh_path = a;
        }
    }
    if (!mesh_path || d == 0) {
        fprintf(stderr, "eddy error [cli.usage]: voxelize: %s\n%s", !mesh_path ? "no mesh file given" : "--diameter is required (m, > 0)",
                usage);
        return 2;
    }
    if (out && !ends_with(out, ".csv") && !ends_with(out, ".vtk")) {
        fprintf(stderr, "eddy error [cli.usage]: voxelize: --out: expected a name ending in .csv or .vtk, got '%s'\n", out);
        return 2;
    }
    char err[512];
    eddy_mesh m;
    if (eddy_load_obj(mesh_path, &m, err, sizeof err) != 0) {
        fprintf(stderr, "eddy error [mesh.file]: voxelize: %s\n", err);
        return 1;
    }
    eddy_mesh_transform(&m, scale, NULL, NULL);
    double volume;
    float *pts = NULL;
    int64_t n = -1;
    if (eddy_mesh_check(&m, &volume, err, sizeof err) == 0)
        n = eddy_voxelize(&m, &(eddy_voxel_desc){ EDDY_SIZED(eddy_voxel_desc), .diameter = d, .surface_only = surface,
                                                  .max_bytes = (uint64_t)max_bytes }, &pts, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "eddy error [mesh.invalid]: voxelize: %s: %s\n", mesh_path, err);
        eddy_free_mesh(&m);
        return 1;
    }
    double pm = density * d * d * d, mass, com[3], I[9];
    eddy_point_mass_properties(pts, (uint32_t)n, pm, d, &mass, com, I);
    printf("%s: %u triangles, enclosed volume %.6g m^3 (scale %g)\n", mesh_path, m.triangle_count, volume, scale);
    printf("particles: %lld of diameter %g m%s; their volume %.6g m^3 (%+.2f%% of the mesh's)\n", (long long)n, d,
           surface ? " (surface only)" : "", (double)n * d * d * d, 100 * ((double)n * d * d * d / volume - 1));
    printf("mass %.6g kg at %g kg/m^3 (%.6g kg a particle)\n", mass, density, pm);
    printf("centre of mass [%.6g, %.6g, %.6g] m\n", com[0], com[1], com[2]);
    printf("inertia about it (kg m^2): [[%.6g, %.6g, %.6g], [%.6g, %.6g, %.6g], [%.6g, %.6g, %.6g]]\n", I[0], I[1],
           I[2], I[3], I[4], I[5], I[6], I[7], I[8]);
    int rc = out && write_points(out, pts, (uint32_t)n, d, pm) != 0 ? 1 : 0;
    if (out && !rc)
        printf("wrote %s\n", out);
    free(pts);
    eddy_free_mesh(&m);
    return rc;
}
