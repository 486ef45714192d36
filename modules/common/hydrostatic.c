/* The hydrostatic pressure of a fill at rest (hydrostatic.h). */
#include "hydrostatic.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct column_entry {
    uint64_t column;
    double height; /* along -g */
    uint32_t index;
} column_entry;

static int by_column_then_height(const void *a, const void *b)
{
    const column_entry *x = a, *y = b;
    if (x->column != y->column)
        return x->column < y->column ? -1 : 1;
    if (x->height != y->height)
        return x->height > y->height ? -1 : 1; /* the top first */
    return x->index < y->index ? -1 : x->index > y->index;
}

bool eddy_hydrostatic_pressure(const float *pos, uint32_t n, const float g[3], float rho0, float spacing,
                               float *pressure)
{
    double gn = sqrt((double)g[0] * g[0] + (double)g[1] * g[1] + (double)g[2] * g[2]);
    for (uint32_t i = 0; i < n; i++)
        pressure[i] = 0.0f;
    if (n == 0 || !(gn > 0) || !(spacing > 0))
        return true;
    column_entry *c = malloc((size_t)n * sizeof *c);
    if (!c)
        return false;
    /* Columns along the axis nearest to gravity, a spacing wide. */
    int a = 0;
    for (int k = 1; k < 3; k++)
        a = fabsf(g[k]) > fabsf(g[a]) ? k : a;
    int u = (a + 1) % 3, v = (a + 2) % 3;
    double up = g[a] < 0 ? 1.0 : -1.0;
    for (uint32_t i = 0; i < n; i++) {
        const float *x = pos + 4 * i;
        int64_t cu = (int64_t)floor(x[u] / spacing), cv = (int64_t)floor(x[v] / spacing);
        c[i].column = ((uint64_t)(cu & 0xffffffff) << 32) | (uint64_t)(cv & 0xffffffff);
        c[i].height = up * x[a];
        c[i].index = i;
    }
    qsort(c, n, sizeof *c, by_column_then_height);
    /* Down each column from its top: a gap of more than 1.5 spacings is a
     * new free surface (a drop above a pool weighs nothing on it). */
    double rho_g = (double)rho0 * fabs((double)g[a]);
    for (uint32_t i = 0; i < n;) {
        double top = c[i].height + 0.5 * spacing, last = c[i].height;
        uint32_t j = i;
        for (; j < n && c[j].column == c[i].column; j++) {
            if (last - c[j].height > 1.5 * spacing)
                top = c[j].height + 0.5 * spacing;
            last = c[j].height;
            pressure[c[j].index] = (float)(rho_g * (top - c[j].height));
        }
        i = j;
    }
    free(c);
    return true;
}
