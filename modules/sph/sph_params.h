/* The SPH module's parameter block: one layout (std430) for C and GLSL,
 * uploaded once to a storage buffer when the system is created. */
#ifndef EDDY_SPH_PARAMS_H
#define EDDY_SPH_PARAMS_H

#include "shared_types.h"

struct eddy_sph_params {
    EDDY_V4 grid EDDY_ARR4;      /* xyz grid origin (m), w 1 / cell (1/m) */
    EDDY_I4 dims EDDY_ARR4;      /* xyz cells, w solids */
    EDDY_V4 box_min EDDY_ARR4;   /* xyz (m), w support radius h (m) */
    EDDY_V4 box_max EDDY_ARR4;   /* xyz (m), w substep dt (s) */
    EDDY_V4 gravity EDDY_ARR4;   /* xyz (m/s^2), w rest density rho0 (kg/m^3) */
    EDDY_V4 material EDDY_ARR4;  /* x stiffness k (m^2/s^2), y viscosity mu (Pa s),
                                    z surface tension sigma (N/m), w threshold l (1/m) */
    EDDY_V4 vortex EDDY_ARR4;    /* xyz centre (m), w target angular speed omega (rad/s) */
    EDDY_V4 vortex_axis EDDY_ARR4; /* xyz unit axis, w radius (m) */
    EDDY_V4 push EDDY_ARR4;      /* moving push field: xyz centre at t = 0 (m), w radius (m; 0 = off) */
    EDDY_V4 push_velocity EDDY_ARR4; /* xyz velocity of its centre (m/s), w strength (m/s^2) */
    EDDY_U4 misc EDDY_ARR4;      /* x particles, y restitution (float bits), z stirring rate
                                    (1/s, float bits), w wall ghost spacing (m, float bits) */
    EDDY_U4 model EDDY_ARR4;     /* x pressure force: EDDY_SPH_SYMMETRIC or EDDY_SPH_MULLER, y 1: negative
                                    pressure clamped to 0 (eddy_sph_pressure), z equation of state:
                                    EDDY_SPH_LINEAR or EDDY_SPH_TAIT, w artificial viscosity alpha
                                    (float bits; eddy_sph_artificial) */
    EDDY_V4 lattice EDDY_ARR4;   /* x factor on the density sum: 1 / (s^3 sum_k W_poly6(s k)) over the
                                    rest lattice of spacing s (the wall spacing), so that lattice
                                    reads rho0 (normalise_density; 1 without); yzw unused */
    EDDY_U4 solve EDDY_ARR4;     /* x solver: EDDY_SPH_WEAK or EDDY_SPH_IISPH, y IISPH iterations at most
                                    per substep, z IISPH tolerance: mean density error
                                    over rho0 (float bits), w IISPH relaxation omega (float bits) */
    EDDY_V4 solve2 EDDY_ARR4;    /* x IISPH and DFSPH bound on the largest density error at a particle
                                    over rho0 (max_error), y DFSPH divergence tolerance (mean of
                                    dt max(D rho / Dt, 0) / rho0), z DFSPH divergence iterations at
                                    most (a float holding an integer), w unused */
};

/* IISPH's solver state on the GPU (sph.iisph_diag resets it each substep,
 * sph.iisph_check updates it after each iteration; stats reads it); DFSPH
 * keeps one for each phase (reset by sph.dfsph_alpha and
 * sph.dfsph_predict). */
struct eddy_sph_iisph_state {
    EDDY_U4 s EDDY_ARR4; /* this substep: x iterations done, y the last one's mean density error over
                            rho0 (float bits; sph_iisph_update.comp), z 1 once converged, w the last
                            one's largest error at a particle over rho0 (float bits) */
    EDDY_U4 f EDDY_ARR4; /* since stats last read it (it zeroes it): x substeps solved, y of them
                            stopped at max_iterations, z the most iterations one took, w the
                            largest final error at a particle (float bits) */
    EDDY_U4 g EDDY_ARR4; /* x: the same span's largest final mean error (float bits); y: this substep's
                            solve stopped (converged or at its limit: sph_iisph_check.comp); zw unused */
};

/* The pressure force (model.x). SYMMETRIC: a_i = -sum_j m_j (p_i / rho_i^2 +
 * p_j / rho_j^2) grad W, whose interior limit is -grad p / rho. MULLER: the
 * paper's -sum_j m_j (p_i + p_j) / (2 rho_j) grad W / rho_i, whose interior
 * limit is -grad p / (2 rho) (the p_i half cancels). */
#define EDDY_SPH_SYMMETRIC 0u
#define EDDY_SPH_MULLER 1u

/* The equation of state (model.z; eddy_sph_pressure), material.x being
 * k = c0^2 for both. */
#define EDDY_SPH_LINEAR 0u
#define EDDY_SPH_TAIT 1u

/* The solver (solve.x). WEAK: weakly compressible, the pressure from the
 * equation of state. IISPH: implicit incompressible SPH (Ihmsen et al.
 * 2014): the pressure that makes the predicted density rho0 wherever the
 * fluid would be compressed, by relaxed Jacobi iterations that stop on the
 * GPU at the tolerance. DFSPH: divergence-free SPH (Bender and Koschier
 * 2015, 2017), a divergence-free and a constant-density solve on the
 * velocities each substep (shaders/sph_dfsph.glsl). */
#define EDDY_SPH_WEAK 0u
#define EDDY_SPH_IISPH 1u
#define EDDY_SPH_DFSPH 2u

/* IISPH: the share of the last substep's pressure the iterations start
 * from. Ihmsen et al. (2014) take half; all of it gave Martin and Moyce's
 * column (dt 2 ms, alpha 0.1, tolerance 5e-4, the box then colliding at
 * the particle radius) 2.26% in 6.2 s on lavapipe against 2.45% in 9.0 s
 * with half: fewer iterations for the same front. */
#define EDDY_SPH_IISPH_WARM 1.0f

#undef EDDY_ARR4
#endif
