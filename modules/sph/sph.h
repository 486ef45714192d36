/* sph: SPH fluid after Müller, Charypar and Gross (2003). See README.md. */
#ifndef EDDY_SPH_H
#define EDDY_SPH_H

#include "eddy/eddy_module.h"
#include "sph_params.h"

const eddy_module_desc *eddy_sph_module(void);

/* One substep on the CPU with the same equations (all pairs, no grid): the
 * tests' reference. pos/vel: vec4 per particle (xyz, radius / 0), updated in
 * place; density: out, one per particle. */
void eddy_sph_step_cpu(const struct eddy_sph_params *p, const eddy_solid *solids, uint32_t n,
                       float *pos, float *vel, const float *mass, float *density);

#endif
