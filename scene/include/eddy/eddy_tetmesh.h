/* eddy_tetmesh.h: tetrahedral meshes for deformable bodies (modules/deform)
 * and volume rendering: loaders for TetGen .node/.ele, Gmsh .msh (ASCII 2.2
 * and 4.1, tetrahedra only) and VTK .vtu (ASCII, appended raw or base64;
 * the tetra cells), checks, placement, lumped masses, edges and boundary.
 * Pure host code: no engine needed; thread safe (no shared state). Errors go
 * to `err` ("FILE:LINE: what is wrong", or "FILE: tet N: ..."), never to
 * stderr. Input is hostile: file sizes and counts are checked against the
 * limits below before anything is allocated. */
#ifndef EDDY_TETMESH_H
#define EDDY_TETMESH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eddy/eddy_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A file is at most this many bytes (a regular file only: devices, pipes
 * and folders are refused), and a mesh has at most this many vertices and
 * this many tets. */
#define EDDY_TET_MAX_BYTES (1ull << 30)
#define EDDY_TET_MAX_ELEMENTS (16u << 20)
/* Per-vertex scalar attributes kept (TetGen's attributes, a .vtu's point
 * data arrays of one component, in file order). */
#define EDDY_TET_MAX_ATTRIBUTES 8

typedef struct eddy_tetmesh {
    float *vertices;          /* xyz per vertex (m after placement); malloc'd */
    uint32_t vertex_count;
    uint32_t *tets;           /* 4 per tet, from 0, positively oriented:
                                 (x1-x0) . ((x2-x0) x (x3-x0)) > 0; malloc'd */
    uint32_t tet_count;
    float *attributes;        /* attribute_count floats per vertex (vertex-major);
                                 NULL when attribute_count is 0 */
    uint32_t attribute_count; /* <= EDDY_TET_MAX_ATTRIBUTES */
    int32_t *markers;         /* per vertex boundary marker (TetGen), or NULL */
    uint32_t unreferenced;    /* vertices no tet uses (a warning, not an error) */
    uint32_t reoriented;      /* inverted tets turned around (desc.reorient) */
} eddy_tetmesh;

typedef struct eddy_tetmesh_desc {
    uint32_t struct_size; /* required: sizeof(eddy_tetmesh_desc), EDDY_SIZED(eddy_tetmesh_desc) */
    /* Inverted tets (negative volume) are turned around (two vertices
     * swapped) and counted in eddy_tetmesh.reoriented, instead of refused.
     * Zero-volume tets are refused either way. */
    bool reorient;
    /* Host memory budget in bytes: the file read whole and every array the
     * loader makes are taken from it before they are allocated (a file
     * over it is refused unread). 0: no budget beyond the limits above. */
    uint64_t max_bytes;
} eddy_tetmesh_desc;

/* Loads a tetrahedral mesh by the path's extension: ".node" or ".ele"
 * (TetGen: the other file of the pair beside it, same stem), ".msh" (Gmsh)
 * or ".vtu" (VTK XML unstructured grid). Then checks it: indices in range,
 * no tet naming a vertex twice, finite coordinates, every tet's volume
 * positive (reorient: negative ones turned), no duplicate tets (the same
 * four vertices in any order); unreferenced vertices are counted. Returns 0,
 * or -1 with the first problem in err (naming the file, the line or the
 * tet, as numbered in the file, and what was expected). desc may be NULL.
 *
 * TetGen: '#' comments and blank lines anywhere; the first point's index (0
 * or 1) is the base the .ele file's vertex indices use; indices run
 * consecutively; up to EDDY_TET_MAX_ATTRIBUTES attributes and the boundary
 * markers are kept; of 10-node tets the first four nodes. Gmsh: ASCII 2.2
 * and 4.1 (binary refused); the tetrahedra (types 4 and 11, of which the
 * first four nodes), other elements ignored; nodes become vertices in the
 * order of $Nodes, whatever their tags (tets are named by element tag).
 * VTU: one Piece; Points Float32 or Float64; Cells of any integer type, the
 * VTK_TETRA (10) cells kept (named by cell index, from 0); one-component
 * PointData arrays become the attributes in file order; format ascii,
 * binary (base64) or appended (raw or base64), UInt32 or UInt64 block
 * headers, LittleEndian; compressed data is refused. */
EDDY_API int eddy_load_tetmesh(const char *path, const eddy_tetmesh_desc *desc, eddy_tetmesh *out, char *err,
                      size_t err_size);
/* The TetGen pair given by both paths (for callers and fuzzers whose files
 * do not share a stem). */
EDDY_API int eddy_load_tetgen(const char *node_path, const char *ele_path, const eddy_tetmesh_desc *desc,
                     eddy_tetmesh *out, char *err, size_t err_size);
EDDY_API void eddy_free_tetmesh(eddy_tetmesh *m);

/* x' = scale * R x + translate (R from the unit quaternion [w, x, y, z];
 * NULL = identity) for every vertex; scale > 0 keeps the orientation. */
EDDY_API void eddy_tetmesh_transform(eddy_tetmesh *m, double scale, const double rotation[4],
                            const double translate[3]);

/* Signed volume of tet t (m^3): (x1-x0) . ((x2-x0) x (x3-x0)) / 6, in double. */
EDDY_API double eddy_tet_volume(const eddy_tetmesh *m, uint32_t t);

/* Lumped masses: each tet gives density * volume / 4 to each of its four
 * vertices (density kg/m^3); mass[vertex_count] is written (unreferenced
 * vertices get 0). Returns the total mass (kg). */
EDDY_API double eddy_tetmesh_masses(const eddy_tetmesh *m, double density, float *mass);

/* The unique edges of the tets (2 indices each, lower first, sorted by
 * (lower, upper)): *edges is malloc'd. Returns the edge count, or -1 when
 * out of memory. */
EDDY_API int64_t eddy_tetmesh_edges(const eddy_tetmesh *m, uint32_t **edges);

/* Face neighbours of tets (4 indices each, as eddy_tetmesh.tets): face f
 * of a tet is the one opposite its vertex f; neighbours[4 t + f] is the tet
 * across it as (tet << 2 | that tet's face), EDDY_TET_BOUNDARY (no tet:
 * the face is on the boundary) or EDDY_TET_SHARED (three tets or more have
 * the face: not a manifold mesh). neighbours holds 4 x tet_count entries;
 * the indices are not checked. Returns the boundary faces' count, or -1
 * when out of memory (or over 2^30 tets). */
#define EDDY_TET_BOUNDARY 0xffffffffu
#define EDDY_TET_SHARED 0xfffffffeu
EDDY_API int64_t eddy_tet_neighbours(const uint32_t *tets, uint32_t tet_count, uint32_t *neighbours);

/* The boundary: faces used by exactly one tet (eddy_tet_neighbours), 3 indices each, wound
 * counter-clockwise seen from outside (outward normal (x1-x0) x (x2-x0)),
 * in order of their tets: *triangles is malloc'd. Returns the triangle
 * count, or -1 when out of memory. */
EDDY_API int64_t eddy_tetmesh_boundary(const eddy_tetmesh *m, uint32_t **triangles);

#ifdef __cplusplus
}
#endif
#endif
