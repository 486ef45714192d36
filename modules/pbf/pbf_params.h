/* The PBF module's parameter block: one layout (std430) for C and GLSL. */
#ifndef EDDY_PBF_PARAMS_H
#define EDDY_PBF_PARAMS_H

#include "shared_types.h"

struct eddy_pbf_params {
    EDDY_V4 grid EDDY_ARR4;     /* xyz grid origin (m), w 1 / cell (1/m) */
    EDDY_I4 dims EDDY_ARR4;     /* xyz cells, w solids */
    EDDY_V4 box_min EDDY_ARR4;  /* xyz (m), w support radius h (m) */
    EDDY_V4 box_max EDDY_ARR4;  /* xyz (m), w substep dt (s) */
    EDDY_V4 gravity EDDY_ARR4;  /* xyz (m/s^2), w rest density rho0 (kg/m^3) */
    EDDY_V4 solver EDDY_ARR4;   /* x relaxation epsilon (1/m^2, from `relaxation`), y tensile k_s, z tensile
                                   n, w tensile dq (m) */
    EDDY_V4 options EDDY_ARR4;  /* x XSPH c, y unused, z wall ghost spacing (m), w vorticity
                                   confinement epsilon (m/s) */
    EDDY_U4 misc EDDY_ARR4;     /* x particles */
};

#undef EDDY_ARR4
#endif
