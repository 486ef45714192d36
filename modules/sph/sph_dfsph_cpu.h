/* DFSPH's C twin (sph_dfsph_cpu.c), for eddy_sph_step_dfsph_cpu: the
 * shaders' equations (shaders/sph_dfsph.glsl) on the CPU grid. */
#ifndef EDDY_SPH_DFSPH_CPU_H
#define EDDY_SPH_DFSPH_CPU_H

#include "sph_params.h"
#include "common/cpu_grid.h"
#include "couple/couple_params.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct sph_dfsph_cpu {
    float *beta;  /* beta_i */
    float *ghost; /* G, H, lever: 9 floats a particle */
    float *v;     /* the solve's velocities, 3 a particle */
    float *k;     /* this iteration's k_i */
    float *K;     /* the constant-density phase's sum */
    float *moving; /* a coupled boundary's own density rate over rho0 s^3 (H.w) */
    float *applied; /* the sum of the k applied this substep, both phases */
} sph_dfsph_cpu;

/* A coupled fluid's boundary particles (couple.h) for the C twins (IISPH's
 * and DFSPH's): nb of them, nb 0: none. */
typedef struct sph_boundary_cpu {
    const struct eddy_couple_params *cp;
    uint32_t nb;
    const float *x, *v; /* vec4 each: position and volume; velocity (NULL: at rest) */
} sph_boundary_cpu;

/* The continuity sum the solves' density rates share, sum_j m_j (u_i - u_j)
 * . grad W_poly6(x_i - x_j) over i's neighbours within h, u 3 floats a
 * particle (velocities, or IISPH's pressure accelerations). */
float sph_cpu_divergence(const eddy_cpu_grid *g, const float *pos, const float *mass, float h, uint32_t i,
                         const float *u);

/* sph.dfsph_alpha: beta and the ghosts' sums (with the boundary's, folded
 * in as the coupled variant does), and the solve's velocities from vel
 * (vec4 a particle). false when out of memory. */
bool sph_dfsph_cpu_begin(sph_dfsph_cpu *d, const struct eddy_sph_params *p, const eddy_cpu_grid *g, uint32_t n,
                         const float *pos, const float *vel, const float *mass, const float *density,
                         const sph_boundary_cpu *b);
/* The divergence-free phase; vel gets its velocities. */
void sph_dfsph_cpu_divergence(sph_dfsph_cpu *d, const struct eddy_sph_params *p, const eddy_cpu_grid *g,
                              uint32_t n, const float *pos, float *vel, const float *mass, const float *density);
/* The constant-density phase from v* = vel + dt (acc - s^3 lever) with the
 * warm start of press (Pa, in: the last substep's, out: this one's); vel
 * gets its velocities, applied (NULL: not wanted) the pressure of every k
 * applied this substep (sph.dfsph_store's, what a coupling's bodies feel).
 * iterations and error as eddy_sph_step_iisph_cpu's. */
void sph_dfsph_cpu_density(sph_dfsph_cpu *d, const struct eddy_sph_params *p, const eddy_cpu_grid *g, uint32_t n,
                           const float *pos, float *vel, const float *mass, const float *density, const float *acc,
                           float *press, float *applied, uint32_t *iterations, float *error);
void sph_dfsph_cpu_end(sph_dfsph_cpu *d);

#endif
