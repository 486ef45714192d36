/* sph: SPH fluid after Müller, Charypar and Gross (2003). See README.md. */
#ifndef EDDY_SPH_H
#define EDDY_SPH_H

#include "eddy/eddy_module.h"
#include "sph_params.h"

const eddy_module_desc *eddy_sph_module(void);

/* The parameter block, exactly as a system builds it from its parameter
 * values (one per descriptor parameter, in order, as in eddy_system_ctx). */
void eddy_sph_params_from_values(struct eddy_sph_params *p, const eddy_param_value *values,
                                 const float box_min[3], const float box_max[3], double dt,
                                 uint32_t count, uint32_t solid_count);

/* One substep on the CPU with the same equations and a grid of its own
 * (cell h, as p describes): the tests' reference and the benchmark's C step. pos/vel: vec4 per particle (xyz, radius / 0), updated in
 * place; density: out, one per particle; step: substeps done before this one
 * (time-dependent fields). */
void eddy_sph_step_cpu(const struct eddy_sph_params *p, const eddy_solid *solids, uint32_t n,
                       float *pos, float *vel, const float *mass, float *density, uint32_t step);

struct eddy_couple_params;
/* The same with boundary particles (modules/couple): nb of them, boundary
 * vec4 each (xyz where they are at the substep's start, w volume V in m^3);
 * force (vec4 per boundary particle, accumulated) the fluid's force on each
 * (N). cp gives h, k and rho0. */
void eddy_sph_step_coupled_cpu(const struct eddy_sph_params *p, const eddy_solid *solids, uint32_t n,
                               float *pos, float *vel, const float *mass, float *density, uint32_t step,
                               const struct eddy_couple_params *cp, uint32_t nb,
                               const float *boundary, float *force);

/* The same with p->solve.x = EDDY_SPH_IISPH: pressure (one per particle, Pa)
 * in, the last substep's (zeros at the start), out, this one's;
 * iterations and error (each may be NULL): the iterations done and the last
 * one's mean density error over rho0 (as sph_iisph_update.comp). */
void eddy_sph_step_iisph_cpu(const struct eddy_sph_params *p, const eddy_solid *solids, uint32_t n, float *pos,
                             float *vel, const float *mass, float *density, float *pressure, uint32_t step,
                             uint32_t *iterations, float *error);
/* The same with p->solve.x = EDDY_SPH_DFSPH: pressure (Pa) in, the last
 * substep's (the warm start; the fill's hydrostatic pressure at the
 * start, as the system sets it), out, this one's; iterations and error
 * those of the constant-density phase. */
void eddy_sph_step_dfsph_cpu(const struct eddy_sph_params *p, const eddy_solid *solids, uint32_t n, float *pos,
                             float *vel, const float *mass, float *density, float *pressure, uint32_t step,
                             uint32_t *iterations, float *error);
/* IISPH with boundary particles as eddy_sph_step_coupled_cpu's, bvel their
 * velocities (vec4 each, m/s; NULL: at rest): the density the solve
 * predicts is relative to them, and force gets the solved pressure's. With
 * p->solve.x = EDDY_SPH_DFSPH the same for DFSPH (force: the pressure of
 * every k applied in the substep, both phases). */
void eddy_sph_step_iisph_coupled_cpu(const struct eddy_sph_params *p, const eddy_solid *solids, uint32_t n,
                                     float *pos, float *vel, const float *mass, float *density, float *pressure,
                                     uint32_t step, const struct eddy_couple_params *cp, uint32_t nb,
                                     const float *boundary, const float *bvel, float *force,
                                     uint32_t *iterations, float *error);

struct eddy_bench_case;
struct eddy_bench_module;
/* Its `eddy bench` cases (*count gets their number) and its passes' costs
 * (sph_bench.c; eddy/eddy_bench.h). */
const struct eddy_bench_case *eddy_sph_bench_cases(uint32_t *count);
const struct eddy_bench_module *eddy_sph_bench_module(void);

#endif
