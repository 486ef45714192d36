/* eddy_output.h: the scene layer's output files and statistics for modules
 * (libeddy-scene): a module's write_frame hook writes its meshes, cells and
 * images with these, and its stats hook adds numbers to the frame's line in
 * stats.jsonl. Every file is written whole to "<name>.tmp" and renamed, so
 * no reader sees half a file. Thread safety: as the engine passed (one
 * thread at a time); eddy_weld_triangles and eddy_write_pvd touch no engine
 * and are thread safe. None of them waits on the GPU. */
#ifndef EDDY_OUTPUT_FILES_H
#define EDDY_OUTPUT_FILES_H

#include "eddy/eddy.h"
#include "eddy/eddy_module.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes a triangle soup (9 floats per triangle: three xyz corners, wound
 * counter-clockwise seen from outside) as one indexed mesh, corners at equal
 * positions welded, to "<dir>/<name>.ply" (Blender, MeshLab) and
 * "<dir>/<name>.vtp" (ParaView), each through a temporary file. */
EDDY_API eddy_result eddy_write_mesh(eddy_engine *e, const char *dir, const char *name,
                            const float *triangles, uint32_t triangle_count, double time);

/* A mesh of cells over the vertices of a particle set, deformed: written to
 * "<dir>/<name>.vtu" (VTK XML UnstructuredGrid, raw appended data, for
 * ParaView) through a temporary file, with the vertices' velocity, speed
 * and (when given) scalar as point data. cells: cell_kind indices each
 * (2 lines, 3 triangles, 4 tetrahedra), all < point_count. */
typedef struct eddy_cells_desc {
    uint32_t struct_size; /* required: sizeof(eddy_cells_desc), EDDY_SIZED(eddy_cells_desc) */
    double time;              /* s, stored as the TimeValue field */
    uint32_t point_count;
    const float *position;    /* vec4 per vertex (xyz m, w ignored) */
    const float *velocity;    /* vec4 per vertex (m/s) */
    const float *scalar;      /* one per vertex, or NULL */
    uint32_t cell_kind;       /* 2, 3 or 4 */
    uint32_t cell_count;
    const uint32_t *cells;
} eddy_cells_desc;
EDDY_API eddy_result eddy_write_cells(eddy_engine *e, const char *dir, const char *name, const eddy_cells_desc *desc);

/* Welds a triangle soup into indexed form: *vertices (3 floats each) and
 * *indices (3 per triangle) are malloc'd; equal positions (bitwise) become one
 * vertex, in order of first appearance. Returns the vertex count, or -1. */
EDDY_API int64_t eddy_weld_triangles(const float *triangles, uint32_t triangle_count, float **vertices,
                            uint32_t **indices);

/* Writes rgba (width x height x 4 bytes, rows top to bottom, straight
 * alpha) as an 8-bit RGBA PNG to path through a temporary file (a frame of
 * a module's own renderer). */
EDDY_API eddy_result eddy_write_png(eddy_engine *e, const char *path, const uint8_t *rgba, uint32_t width,
                           uint32_t height);

/* A ParaView collection (.pvd) of files over time: written whole to
 * "<path>.tmp" and renamed to path. 0, or -1 with a message in err. */
typedef struct eddy_pvd_entry {
    double time;      /* s */
    uint32_t part;    /* the part number of the file in its time step */
    const char *file; /* relative to the .pvd */
} eddy_pvd_entry;
EDDY_API int eddy_write_pvd(const char *path, const eddy_pvd_entry *entries, uint32_t count, char *err,
                   size_t err_cap);

/* Adds `key` = value to the frame's statistics (the system's object in
 * stats.jsonl). */
EDDY_API void eddy_stats_add(eddy_stats *st, const char *key, double value);

#ifdef __cplusplus
}
#endif
#endif
