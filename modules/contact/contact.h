/* contact: DEM contacts between the particles of two groups of sets (a
 * deformable body or cloth and rigid bodies, both ways). See README.md. */
#ifndef EDDY_CONTACT_H
#define EDDY_CONTACT_H

#include "eddy/eddy_module.h"
#include "contact_params.h"

const eddy_module_desc *eddy_contact_module(void);

/* The CPU twin of the force pass (the tests' reference): force_a (vec4 per
 * particle of side a, N) = the sum over the na x nb pairs closer than the
 * sum of their radii of the pair force of contact_common.glsl (spring
 * -k (d - |r|) n, dashpot eta v, shear k_t v_t; r = x_b - x_a,
 * v = v_b - v_a) with p's coefficients; pos (xyz m, w radius m) and vel
 * (vec4) per particle. Sums in double, brute force. */
void eddy_contact_force_cpu(const struct eddy_contact_params *p, uint32_t na, const float *pos_a,
                            const float *vel_a, uint32_t nb, const float *pos_b, const float *vel_b,
                            float *force_a);

#endif
