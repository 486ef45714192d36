/* The uniform grid of the GPU passes, on the CPU, for the modules' C
 * reference steps (tests, `eddy bench`): counting sort of particles by cell
 * (cells clamped at the border, as on the GPU) and the 27-cell neighbour loop. */
#ifndef EDDY_CPU_GRID_H
#define EDDY_CPU_GRID_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct eddy_cpu_grid {
    float origin[3], inv_cell; /* m, 1/m */
    int dims[3];
    uint32_t cells;
    uint32_t *start, *count, *order;
} eddy_cpu_grid;

static inline uint32_t eddy_cpu_grid_cell(const eddy_cpu_grid *g, const float *x, int c[3])
{
    for (int a = 0; a < 3; a++) {
        int v = (int)floorf((x[a] - g->origin[a]) * g->inv_cell);
        c[a] = v < 0 ? 0 : v >= g->dims[a] ? g->dims[a] - 1 : v;
    }
    return (uint32_t)c[0] + (uint32_t)g->dims[0] * ((uint32_t)c[1] + (uint32_t)g->dims[1] * (uint32_t)c[2]);
}

/* pos: vec4 per particle. The grid's origin, inv_cell and dims must be set. */
static inline bool eddy_cpu_grid_build(eddy_cpu_grid *g, const float *pos, uint32_t n)
{
    g->cells = (uint32_t)(g->dims[0] * g->dims[1] * g->dims[2]);
    g->start = calloc(g->cells + 1, 4);
    g->count = calloc(g->cells + 1, 4);
    g->order = malloc(4ull * n + 4);
    uint32_t *key = malloc(4ull * n + 4);
    if (!g->start || !g->count || !g->order || !key) {
        free(key);
        return false;
    }
    int c[3];
    for (uint32_t i = 0; i < n; i++)
        g->count[key[i] = eddy_cpu_grid_cell(g, pos + 4 * i, c)]++;
    for (uint32_t k = 1; k <= g->cells; k++)
        g->start[k] = g->start[k - 1] + g->count[k - 1];
    memset(g->count, 0, 4ull * g->cells);
    for (uint32_t i = 0; i < n; i++)
        g->order[g->start[key[i]] + g->count[key[i]]++] = i;
    free(key);
    return true;
}

static inline void eddy_cpu_grid_free(eddy_cpu_grid *g)
{
    free(g->start), free(g->count), free(g->order);
    g->start = g->count = g->order = NULL;
}

/* for (each neighbour j of position x) statement; in the GPU's cell order. */
#define EDDY_CPU_NEIGHBOURS(g, x, j)                                                        \
    int c_[3];                                                                             \
    eddy_cpu_grid_cell(g, x, c_);                                                          \
    for (int dz_ = -1; dz_ <= 1; dz_++)                                                    \
        for (int dy_ = -1; dy_ <= 1; dy_++)                                                \
            for (int dx_ = -1; dx_ <= 1; dx_++)                                            \
                if (c_[0] + dx_ >= 0 && c_[1] + dy_ >= 0 && c_[2] + dz_ >= 0 &&            \
                    c_[0] + dx_ < (g)->dims[0] && c_[1] + dy_ < (g)->dims[1] &&            \
                    c_[2] + dz_ < (g)->dims[2])                                            \
                    for (uint32_t cell_ = (uint32_t)(c_[0] + dx_) +                        \
                                          (uint32_t)(g)->dims[0] *                         \
                                              ((uint32_t)(c_[1] + dy_) +                   \
                                               (uint32_t)(g)->dims[1] * (uint32_t)(c_[2] + dz_)), \
                                  q_ = (g)->start[cell_], e_ = q_ + (g)->count[cell_], j = 0; \
                         q_ < e_ && ((j = (g)->order[q_]), 1); q_++)

#endif
