/* The coupling's parameter block: one layout (std430) for C and GLSL. */
#ifndef EDDY_COUPLE_PARAMS_H
#define EDDY_COUPLE_PARAMS_H

#include "shared_types.h"

struct eddy_couple_params {
    EDDY_V4 grid EDDY_ARR4;  /* xyz origin of the fluid's grid (m), w 1 / cell (1/m) */
    EDDY_I4 dims EDDY_ARR4;  /* xyz cells, w boundary particles, all sets */
    EDDY_V4 misc EDDY_ARR4;  /* x support radius h (m), y substep dt (s), z the weight of the
                                bodies' inverse mass in the fluid's projection (1, pbf),
                                w lead (s): boundary particles sit at x + lead v */
    EDDY_V4 fluid EDDY_ARR4; /* sph: x k = c0^2 (m^2/s^2), y rest density rho0 (kg/m^3), z 1 when
                                the fluid's pressure force is Müller's (else symmetric), w flags:
                                1 its negative pressure is clamped to 0, 2 Tait's equation of state */
    EDDY_V4 gravity EDDY_ARR4; /* sph: xyz the fluid's gravity (m/s^2): a boundary particle carries the
                                  fluid particle's pressure plus rho0 g . (x_b - x_i), w unused */
    EDDY_U4 counts EDDY_ARR4; /* x boundary particles, all sets; y sheet triangles, all sets;
                                 z cells a fluid particle looks for triangles around its own,
                                 w cells a sheet vertex looks for fluid contacts around its own */
};

#undef EDDY_ARR4
#endif
