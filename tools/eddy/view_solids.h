/* The scene's static solids (eddy_solids.h) as triangles for eddy view:
 * pure host code, no device. */
#ifndef EDDY_VIEW_SOLIDS_H
#define EDDY_VIEW_SOLIDS_H

#include "eddy/eddy_solids.h"

#include <stdint.h>

/* Vertices (vec4: xyz m, w 1; three a triangle) of every solid into out,
 * at most max of them: a plane as a square as wide as the box's diagonal
 * about the box's centre projected onto it, a sphere and a capsule's ends
 * as latitude-longitude spheres, a capsule's and a glass's walls as
 * cylinders (the glass with its bottom and rim). Returns the count; stops
 * at the first solid that would not fit. */
uint32_t view_tessellate_solids(const eddy_solid *solids, uint32_t count, const double box_lo[3],
                                const double box_hi[3], float *out, uint32_t max);

#endif
