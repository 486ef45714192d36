/* The volume module's parameter block: one layout (std430) for C and GLSL,
 * uploaded when the camera or the view changes (binding 0 of every pass). */
#ifndef EDDY_VOLUME_PARAMS_H
#define EDDY_VOLUME_PARAMS_H

#include "shared_types.h"

/* flags (table.w) */
#define EDDY_VOLUME_POINT_SAMPLING 1u /* a segment takes the transfer function at its middle
                                         instead of the pre-integrated table */

/* neighbours[4 t + i]: the tet across face i of tet t as (tet << 2 | its
 * face), or EDDY_VOLUME_BOUNDARY (eddy_tet_neighbours' EDDY_TET_BOUNDARY) */
#define EDDY_VOLUME_BOUNDARY 0xffffffffu
#define EDDY_VOLUME_NONE 0xffffffffu
#define EDDY_VOLUME_STACK 32u       /* the BVH traversal's stack (the tree is complete: 
                                       depth log2(leaves) <= 26) */
#define EDDY_VOLUME_MAX_TF 64u      /* transfer function points */
#define EDDY_VOLUME_MAX_PIECES 1024 /* pieces a segment is cut into at most (max_segment is checked) */
#define EDDY_VOLUME_STALL 64u       /* zero-length segments in a row that end a ray */
#define EDDY_VOLUME_ROW_SHIFT 12u   /* the per-tet images are 2D, 1 << 12 texels a row: texel
                                       k at (k & 4095, k >> 12) */

struct eddy_volume_params {
    EDDY_V4 eye EDDY_ARR4;        /* xyz (m), w tan(fov / 2) */
    EDDY_V4 forward EDDY_ARR4;    /* xyz unit view direction, w aspect (width / height) */
    EDDY_V4 right EDDY_ARR4;      /* xyz unit, w width (px) */
    EDDY_V4 up EDDY_ARR4;         /* xyz unit, w height (px) */
    EDDY_V4 range EDDY_ARR4;      /* x lowest scalar of the table, y its highest, z the
                                     table's longest segment (m), w opacity unit distance (m) */
    EDDY_V4 bounds_min EDDY_ARR4; /* xyz the Morton codes' box (m), w opacity cutoff */
    EDDY_V4 bounds_max EDDY_ARR4; /* xyz (m), w unused */
    EDDY_U4 counts EDDY_ARR4;     /* x tets, y boundary faces, z BVH leaves (a power of two),
                                     w transfer function points */
    EDDY_U4 table EDDY_ARR4;      /* x scalar texels a side, y length texels, z steps a ray
                                     at most, w flags */
    EDDY_U4 lists EDDY_ARR4;      /* x entries a pixel's list keeps (volume.raster), yzw unused */
};

#undef EDDY_ARR4
#endif
