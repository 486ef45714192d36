/* eddy_mesh.h: triangle meshes and the voxeliser that turns a closed mesh
 * into particles (rigid bodies as particle sets, Harada 2007; PHYSICS.md).
 * Pure host code: no engine needed; thread safe (no shared state).
 * Errors go to `err` (a message naming what is wrong), never to stderr. */
#ifndef EDDY_MESH_H
#define EDDY_MESH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eddy/eddy_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct eddy_mesh {
    float *vertices;         /* xyz per vertex; malloc'd, freed by eddy_free_mesh */
    uint32_t vertex_count;
    uint32_t *indices;       /* three per triangle, from 0, counter-clockwise seen from outside */
    uint32_t triangle_count;
} eddy_mesh;

/* Limits of what eddy_load_obj accepts, so that hostile input cannot make it
 * read forever or allocate without bound: the file's size in bytes (a regular
 * file only: devices, pipes and folders are refused), and the vertices and
 * the triangles after fan splitting (each at most 192 MiB of host memory;
 * eddy_mesh_check refuses more triangles too). */
#define EDDY_OBJ_MAX_BYTES (256ull << 20)
#define EDDY_OBJ_MAX_ELEMENTS (16u << 20)
/* The voxeliser's host memory budget when eddy_voxel_desc.max_bytes is 0:
 * one byte per voxel of the grid, 16 per crossing of a grid row with the
 * mesh, 12 per particle. */
#define EDDY_VOXEL_DEFAULT_BYTES (1ull << 30)

/* Reads a Wavefront OBJ: `v x y z` and `f a b c ...` lines (polygons are
 * split into fans; `a/t/n` forms and negative indices allowed; everything
 * else ignored). Returns 0, or -1 with a message ("FILE:LINE: ..."). */
EDDY_API int eddy_load_obj(const char *path, eddy_mesh *out, char *err, size_t err_size);
EDDY_API void eddy_free_mesh(eddy_mesh *m);

/* Checks that the mesh bounds a solid: finite vertices, every edge shared by
 * exactly two triangles that use it in opposite directions (closed, manifold,
 * consistently wound) and a positive enclosed volume (not inside out).
 * *volume (may be NULL) gets the enclosed volume. Returns 0 or -1 with the
 * first problem (an open edge names its two vertices, from 1 as in OBJ). */
EDDY_API int eddy_mesh_check(const eddy_mesh *m, double *volume, char *err, size_t err_size);

/* Applies x' = scale * R x + translate (R from the unit quaternion
 * rotation = [w, x, y, z]; NULL = identity) to every vertex. */
EDDY_API void eddy_mesh_transform(eddy_mesh *m, double scale, const double rotation[4], const double translate[3]);

typedef struct eddy_voxel_desc {
    uint32_t struct_size; /* required: sizeof(eddy_voxel_desc), EDDY_SIZED(eddy_voxel_desc) */
    double diameter;     /* m, particle diameter d = voxel side; required > 0 */
    bool surface_only;   /* keep only inside voxels with an outside face neighbour */
    uint32_t max_points; /* refuse meshes that would give more; 0 = 16M */
    uint64_t max_bytes;  /* host memory budget in bytes, checked before each
                            allocation; 0 = EDDY_VOXEL_DEFAULT_BYTES (1 GiB) */
} eddy_voxel_desc;

/* Voxelises a mesh that passes eddy_mesh_check on the grid of side d
 * aligned with the mesh's bounding box: a voxel centre is inside when a ray
 * along +x from it crosses the mesh an odd number of times (rows are
 * nudged by a fixed 1e-4 d so that no ray runs through an edge). *points
 * gets xyz per particle (malloc'd), in x-fastest order. Returns the count
 * (>= 1), or -1 with a message (check failures, nothing inside, too many,
 * over the memory budget). */
EDDY_API int64_t eddy_voxelize(const eddy_mesh *m, const eddy_voxel_desc *desc, float **points, char *err,
                      size_t err_size);

/* Mass properties of n equal masses m at xyz points: total mass, the centre
 * of mass and the inertia tensor about it (row major), each particle counted
 * as the voxel of side d it stands for (m d^2 / 6 on the diagonal, which
 * makes a voxelised box exact; d = 0: point masses). */
EDDY_API void eddy_point_mass_properties(const float *points, uint32_t n, double m, double d, double *mass,
                                double com[3], double inertia[9]);

#ifdef __cplusplus
}
#endif
#endif
