/* pbf: position based fluids (Macklin & Müller 2013; seed 004). See README.md. */
#ifndef EDDY_PBF_H
#define EDDY_PBF_H

#include "eddy/eddy_module.h"
#include "pbf_params.h"

const eddy_module_desc *eddy_pbf_module(void);

/* The parameter block as a system builds it from its parameter values (one
 * per descriptor parameter, in order). */
void eddy_pbf_params_from_values(struct eddy_pbf_params *p, const eddy_param_value *values,
                                 const float box_min[3], const float box_max[3], double dt,
                                 uint32_t count, uint32_t solid_count);
/* Iterations of the constraint solve, from the values. */
uint32_t eddy_pbf_iterations(const eddy_param_value *values);

/* One substep on the CPU with the same equations and its own grid: the tests'
 * reference and the benchmark's C step. pos/vel: vec4 per particle, updated
 * in place; density: out. tool: the tool's state as on the GPU (NULL when
 * p->tool[0] is 0), advanced and given the substep's force like the
 * pbf.tool_* passes do. */
void eddy_pbf_step_cpu(const struct eddy_pbf_params *p, const eddy_solid *solids,
                       uint32_t iterations, uint32_t n, float *pos, float *vel, const float *mass,
                       float *density, struct eddy_pbf_tool *tool);

struct eddy_couple_params;
struct eddy_couple_sheets_cpu;
/* The same with boundary particles (modules/couple): nb of them, boundary
 * vec4 each (xyz at the substep's end, w volume V in m^3),
 * boundary_inverse_mass (nb floats, 1/kg, NULL: all fixed) each one's share
 * of its body's inverse mass; force (vec4 per boundary particle, out) the
 * force the fluid put on each (N). cp gives h and dt. sheets (or NULL): the
 * boundary's triangles the fluid is kept off after the solver iterations
 * (eddy_couple_sheet_cpu, with cp's grid: the fluid's), their reaction
 * added to force. */
void eddy_pbf_step_coupled_cpu(const struct eddy_pbf_params *p, const eddy_solid *solids,
                               uint32_t iterations, uint32_t n, float *pos, float *vel,
                               const float *mass, float *density, struct eddy_pbf_tool *tool,
                               const struct eddy_couple_params *cp, uint32_t nb,
                               const float *boundary, const float *boundary_inverse_mass,
                               float *force, const struct eddy_couple_sheets_cpu *sheets);

struct eddy_bench_case;
struct eddy_bench_module;
/* Its `eddy bench` cases (*count gets their number) and its passes' costs
 * (pbf_bench.c; eddy/eddy_bench.h). */
const struct eddy_bench_case *eddy_pbf_bench_cases(uint32_t *count);
const struct eddy_bench_module *eddy_pbf_bench_module(void);
/* The haptic loop's case (the tool's force thread on a PBF tank), which
 * `eddy bench` runs after every other. */
const struct eddy_bench_case *eddy_pbf_haptic_bench_cases(uint32_t *count);

#endif
