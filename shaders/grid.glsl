// Uniform grid helpers shared by every particle module. The grid has
// dims cells of size `cell` starting at `origin`; a particle outside is
// clamped into the border cell (clamping moves points at most one cell closer,
// so two particles within one cell size stay in neighbouring cells and no
// neighbour is lost).
//
// The neighbour loop over the 27 cells around position p, with the tables
// built by eddy_grid (cell_start/cell_end indexed by linear cell, particles
// in sorted order):
//
//   ivec3 c = eddy_grid_cell(p, origin, inv_cell, dims);
//   for (int dz = -1; dz <= 1; dz++)
//   for (int dy = -1; dy <= 1; dy++)
//   for (int dx = -1; dx <= 1; dx++) {
//       ivec3 q = c + ivec3(dx, dy, dz);
//       if (any(lessThan(q, ivec3(0))) || any(greaterThanEqual(q, dims))) continue;
//       uint cell = eddy_grid_linear(q, dims);
//       uint s = cell_start[cell];
//       if (s == EDDY_GRID_EMPTY) continue;
//       for (uint j = s; j < cell_end[cell]; j++) { ... sorted_position[j] ... }
//   }
#ifndef EDDY_GRID_GLSL
#define EDDY_GRID_GLSL

#define EDDY_GRID_EMPTY 0xffffffffu

ivec3 eddy_grid_cell(vec3 p, vec3 origin, float inv_cell, ivec3 dims)
{
    ivec3 c = ivec3(floor((p - origin) * inv_cell));
    return clamp(c, ivec3(0), dims - 1);
}

bool eddy_grid_outside(vec3 p, vec3 origin, float inv_cell, ivec3 dims)
{
    ivec3 c = ivec3(floor((p - origin) * inv_cell));
    return any(lessThan(c, ivec3(0))) || any(greaterThanEqual(c, dims));
}

uint eddy_grid_linear(ivec3 c, ivec3 dims)
{
    return uint(c.x) + uint(dims.x) * (uint(c.y) + uint(dims.y) * uint(c.z));
}

#endif
