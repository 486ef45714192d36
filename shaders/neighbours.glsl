// Neighbour loops of the particle modules: the scan of the 27 grid cells
// around a particle, and the neighbour list that a scan can leave for the
// passes after it.
//
// The scan visits the 3 x 3 rows of cells around cell c. A row's three cells
// are consecutive linear indices (eddy_grid_linear: x fastest) and the grid
// sorts particles by that index, so their particles are one contiguous range:
// one loop a row instead of three, visiting the same particles in the same
// order as three loops over the cells would.
//
//   EDDY_GRID_SCAN(c, dims, cell_start, cell_end, visit)
//
// calls visit(j) for every sorted index j in those cells (visit is a
// function of the shader; it reads and updates the shader's own globals).
//
// A neighbour list holds the j that a scan found within a radius (the
// support radius h plus a skin; i itself included), in scan order,
// neighbour-major:
// list[k * n + i] for k < count_i, so consecutive particles' k-th neighbours
// are adjacent (coalesced on a GPU). count_i is the number found even when it
// exceeds the list's capacity; then only `capacity` were kept and the passes
// that read the list scan the cells again for that particle. A list built at
// positions b holds every pair within h at positions x while no particle
// has moved more than skin / 2 from b (|b_i - b_j| <= |x_i - x_j| + |x_i - b_i|
// + |x_j - b_j|); past that a module scans again. Passes test |x_i - x_j| < h
// (or use kernels that vanish beyond h) on what they visit, so visiting the
// list or the cells gives bitwise the same sums: the same j in the same order.
#ifndef EDDY_NEIGHBOURS_GLSL
#define EDDY_NEIGHBOURS_GLSL

#include "grid.glsl"

#define EDDY_GRID_SCAN(c, dims, cell_start, cell_end, visit)                   \
    for (int dz_ = -1; dz_ <= 1; dz_++)                                        \
    for (int dy_ = -1; dy_ <= 1; dy_++) {                                      \
        ivec3 q_ = (c) + ivec3(0, dy_, dz_);                                   \
        if (q_.y < 0 || q_.z < 0 || q_.y >= (dims).y || q_.z >= (dims).z)     \
            continue;                                                          \
        uint row_ = eddy_grid_linear(ivec3(0, q_.y, q_.z), (dims));            \
        uint x0_ = uint(max(q_.x - 1, 0)), x1_ = uint(min(q_.x + 1, (dims).x - 1)); \
        uint s_ = EDDY_GRID_EMPTY, e_ = 0u;                                    \
        for (uint x_ = x0_; x_ <= x1_; x_++) {                                 \
            uint cs_ = cell_start[row_ + x_];                                  \
            if (cs_ != EDDY_GRID_EMPTY) {                                      \
                s_ = min(s_, cs_);                                             \
                e_ = cell_end[row_ + x_];                                      \
            }                                                                  \
        }                                                                      \
        for (uint j_ = s_; j_ < e_; j_++)                                      \
            visit(j_);                                                         \
    }

// Visits particle i's neighbours: from its list when `use_list` holds and
// the list holds them all (count_i <= capacity), else by the scan.
#define EDDY_NEIGHBOURS(i, n, use_list, capacity, nlist, ncount, c, dims, cell_start, cell_end, visit) \
    {                                                                          \
        uint cnt_ = (use_list) ? ncount[i] : 0xffffffffu;                      \
        if (cnt_ <= (capacity)) {                                              \
            for (uint k_ = 0u; k_ < cnt_; k_++)                                \
                visit(nlist(k_ * (n) + (i)));                                  \
        } else {                                                               \
            EDDY_GRID_SCAN(c, dims, cell_start, cell_end, visit)               \
        }                                                                      \
    }

#endif
