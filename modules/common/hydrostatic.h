/* The pressure of fluid at rest under gravity, for solvers that start from
 * a pressure (IISPH's warm start): a fill then starts in equilibrium
 * instead of falling onto its floor while the pressure builds up. */
#ifndef EDDY_HYDROSTATIC_H
#define EDDY_HYDROSTATIC_H

#include <stdbool.h>
#include <stdint.h>

/* pressure[i] = rho0 |g_a| d_i (Pa): d_i the depth of particle i below the
 * free surface of its column (columns `spacing` wide along the axis a
 * nearest to gravity; the surface half a spacing above the column's top
 * particle, a gap over 1.5 spacings starting a new surface). pos: vec4 a
 * particle (m). false when out of host memory (pressure then all 0). */
bool eddy_hydrostatic_pressure(const float *pos, uint32_t n, const float g[3], float rho0, float spacing,
                               float *pressure);

#endif
