/* The contact module's parameter block: one layout (std430) for C and GLSL. */
#ifndef EDDY_CONTACT_PARAMS_H
#define EDDY_CONTACT_PARAMS_H

#include "shared_types.h"

struct eddy_contact_params {
    EDDY_V4 grid EDDY_ARR4;   /* xyz origin of both sides' grids (m), w 1 / cell (1/m) */
    EDDY_I4 dims EDDY_ARR4;   /* xyz cells; w unused */
    EDDY_V4 coeffs EDDY_ARR4; /* x spring k (N/m), y dashpot eta (N s/m), z shear k_t (N s/m); w unused */
    EDDY_U4 counts EDDY_ARR4; /* x particles of side a (all its sets), y of side b; zw unused */
};

#undef EDDY_ARR4
#endif
