/* The density sum of a fluid filled on a cubic lattice, for the fluid
 * modules' normalise_density (sph, pbf). */
#ifndef EDDY_LATTICE_H
#define EDDY_LATTICE_H

#include "sph_kernels.h"

#include <math.h>

/* s^3 sum_k W_poly6(|s k|, h) over the integer points k of a cubic lattice:
 * what the density sum of a lattice of spacing s (m) and mass rho0 s^3
 * reads, over rho0 (1.0098 at h = 2 s; 1 only as s / h -> 0). */
static inline double eddy_lattice_sum_poly6(double h, double s)
{
    int n = (int)floor(h / s);
    double sum = 0;
    for (int z = -n; z <= n; z++)
        for (int y = -n; y <= n; y++)
            for (int x = -n; x <= n; x++)
                sum += eddy_w_poly6((float)(s * s * ((double)x * x + (double)y * y + (double)z * z)), (float)h);
    return sum * s * s * s;
}

#endif
