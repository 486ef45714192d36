/* Per-frame statistics shared by the fluid modules. */
#ifndef EDDY_FLUID_STATS_H
#define EDDY_FLUID_STATS_H

#include "eddy/eddy_module.h"
#include "eddy/eddy_output.h"

#include <math.h>
#include <stdbool.h>

/* mean_density_error and max_density_error: |rho - rho0| / rho0 over n
 * particles; null (NaN) before the first step, when no density exists yet. */
static inline void eddy_stats_density_error(eddy_stats *st, const float *rho, uint32_t n,
                                            double rho0)
{
    double sum = 0, worst = 0;
    bool computed = false;
    for (uint32_t i = 0; i < n; i++) {
        double err = fabs(rho[i] - rho0) / rho0;
        sum += err;
        worst = err > worst ? err : worst;
        computed |= rho[i] != 0.0f;
    }
    eddy_stats_add(st, "mean_density_error", computed && n ? sum / n : NAN);
    eddy_stats_add(st, "max_density_error", computed ? worst : NAN);
}

#endif
