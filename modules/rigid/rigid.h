/* rigid: rigid bodies as particle sets with DEM contacts, and granular
 * material (Harada, GPU Gems 3 ch. 29; seed 002). See README.md. */
#ifndef EDDY_RIGID_H
#define EDDY_RIGID_H

#include "eddy/eddy_couple.h"
#include "eddy/eddy_module.h"
#include "rigid_params.h"

const eddy_module_desc *eddy_rigid_module(void);

/* The bodies of a particle set as a system builds them: body k is the run of
 * particles whose phase is k (phases 0, 1, ... in order). Fills
 * bodies[B] (centre of mass, mass, inverse inertia from the particles, each
 * a voxel of side d; momenta from their velocities; identity orientation),
 * rest[4 n] (offsets from the centre) and offsets[B + 1]. Returns B, or -1
 * with a message in err. */
int64_t eddy_rigid_build_bodies(uint32_t n, const float *pos, const float *vel, const float *mass,
                                const uint32_t *phase, double d, struct eddy_rigid_body **bodies,
                                float **rest, uint32_t **offsets, char *err, size_t err_size);

/* What a fluid coupled to the set (modules/couple) takes each particle's
 * inertia to be: the inverse of its body's mass shared among the body's
 * surface particles, N_surface / M (1/kg), for every particle of the body
 * (1 / m per particle when granular is true: each particle its own body).
 * A surface particle is one with a lattice site (pos +- d along x, y, z)
 * not taken by its own body; pos are the particles as filled (a rotated
 * fill's lattice is not axis-aligned and counts more particles as surface:
 * a larger inverse mass, the fluid yielding less, the stable side).
 * out: n floats. */
void eddy_rigid_fluid_inverse_mass(uint32_t n, const float *pos, const float *mass,
                                   const uint32_t *offsets, uint32_t bodies, double d, bool granular,
                                   float *out);

/* The rigid.external slices (claim, find, sum): eddy/eddy_couple.h. */

/* Friction's contact memory per particle (as on the GPU). */
#define EDDY_RIGID_SLOTS 16u

/* One substep on the CPU with the same equations and its own grid (the
 * tests' reference, the benchmark's C step): contacts from pos/vel, per-body
 * sums, integration, then particles from their bodies (rigid) or moved
 * directly (granular, bodies ignored). pos/vel: vec4 per particle. With
 * friction (p->coeffs[3] > 0): hist_id (EDDY_RIGID_SLOTS uints a particle,
 * 0xffffffff = empty, all empty at the start) and hist_xi (as many vec4),
 * updated in place; else both may be NULL. external: a force (N, vec4)
 * per particle added to its contact force (the sum of the rigid.external
 * slices: what coupling modules wrote), or NULL. added: vec4 per body
 * (xyz the last substep's acceleration, updated; w the added mass, kg:
 * rigid_integrate.comp's rigid_translate), or NULL (none). */
void eddy_rigid_step_cpu(const struct eddy_rigid_params *p, uint32_t n, float *pos, float *vel,
                         const float *mass, const uint32_t *phase, const float *rest,
                         struct eddy_rigid_body *bodies, const uint32_t *offsets,
                         uint32_t *hist_id, float *hist_xi, const float *external, float *added);

struct eddy_bench_case;
struct eddy_bench_module;
/* Its `eddy bench` cases (*count gets their number) and its passes' costs
 * (rigid_bench.c; eddy/eddy_bench.h). */
const struct eddy_bench_case *eddy_rigid_bench_cases(uint32_t *count);
const struct eddy_bench_module *eddy_rigid_bench_module(void);

#endif
