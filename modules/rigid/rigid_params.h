/* The rigid module's parameter block and body state: one layout (std430)
 * for C and GLSL. */
#ifndef EDDY_RIGID_PARAMS_H
#define EDDY_RIGID_PARAMS_H

#include "shared_types.h"

struct eddy_rigid_params {
    EDDY_V4 grid EDDY_ARR4;    /* xyz grid origin (m), w 1 / cell (1/m) */
    EDDY_I4 dims EDDY_ARR4;    /* xyz cells, w 1 = granular (every particle free) */
    EDDY_V4 box_min EDDY_ARR4; /* xyz (m), w particle diameter d (m) */
    EDDY_V4 box_max EDDY_ARR4; /* xyz (m), w substep dt (s) */
    EDDY_V4 gravity EDDY_ARR4; /* xyz (m/s^2), w spring stiffness k (N/m) */
    EDDY_V4 coeffs EDDY_ARR4;  /* x dashpot eta (N s/m), y shear k_t (N s/m), z wall stiffness (N/m),
                                  w Coulomb friction mu (0 = off) */
    EDDY_U4 counts EDDY_ARR4;  /* x particles, y bodies */
};

/* Fixed-point passes of the implicit rotation step (rigid_rotate). */
#define RIGID_ROTATE_ITERATIONS 6

/* One body (Harada eqs. 1-8); 8 vec4 = 128 bytes. A renderer binds the
 * array (x: centre, q: orientation) or the matrices (rigid.matrix). */
struct eddy_rigid_body {
    EDDY_V4 x EDDY_ARR4;       /* xyz centre of mass X (m), w mass M (kg) */
    EDDY_V4 q EDDY_ARR4;       /* orientation, unit quaternion (x, y, z, w = s) */
    EDDY_V4 p EDDY_ARR4;       /* xyz linear momentum P (kg m/s) */
    EDDY_V4 l EDDY_ARR4;       /* xyz angular momentum L (kg m^2/s) */
    EDDY_V4 v EDDY_ARR4;       /* xyz velocity V = P / M (m/s) */
    EDDY_V4 w EDDY_ARR4;       /* xyz angular velocity W = I(t)^-1 L (rad/s) */
    EDDY_V4 iinv EDDY_ARR4;    /* body-space inverse inertia I0^-1, xx yy zz (1/(kg m^2)) */
    EDDY_V4 iinv2 EDDY_ARR4;   /* its xy xz yz (symmetric) */
};

#undef EDDY_ARR4
#endif
