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
    EDDY_V4 options EDDY_ARR4;  /* x XSPH c, y 1: unilateral density constraint, C = max(rho / rho0 -
                                   1, 0) (0: the paper's C), z wall ghost spacing (m), w vorticity
                                   confinement epsilon (m/s) */
    EDDY_U4 misc EDDY_ARR4;     /* x particles, y neighbour list capacity, z the lists' reach (m, float
                                   bits), w factor on the density sum (float bits): 1 / (s^3 sum_k
                                   W_poly6(s k)) over the rest lattice of the wall spacing s, so that
                                   lattice reads rho0 (normalise_density; 1 without) */
    EDDY_V4 tool EDDY_ARR4;     /* x tool radius R (m, 0 = no tool), y adhesion K (N/m^3), z adhesion
                                   range Q = B - A (m), w damping k (N s/m) */
};

/* The tool's state on the GPU: the host writes from/to/clock before a step,
 * the pbf.tool_begin pass moves the centre each substep and pbf.tool_end
 * averages the force over the step's substeps. */
struct eddy_pbf_tool {
    EDDY_V4 from EDDY_ARR4;     /* xyz centre at the start of the step (m) */
    EDDY_V4 to EDDY_ARR4;       /* xyz centre at the end of the step (m) */
    EDDY_V4 centre EDDY_ARR4;   /* xyz this substep's centre (m) */
    EDDY_V4 velocity EDDY_ARR4; /* xyz this substep's velocity (m/s) */
    EDDY_U4 clock EDDY_ARR4;    /* x substeps done in this step, y substeps per step */
    EDDY_V4 push EDDY_ARR4;     /* xyz contact push on the tool (N), mean over the step */
    EDDY_V4 adhesion EDDY_ARR4; /* xyz adhesion (N), mean over the step */
    EDDY_V4 damping EDDY_ARR4;  /* xyz damping (N), mean over the step */
};

#undef EDDY_ARR4
#endif
