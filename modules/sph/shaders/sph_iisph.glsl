// IISPH (Ihmsen, Cornelis, Solenthaler, Horvath, Teschner 2014) in the
// form of Koschier et al.'s SPH tutorial (2019): the pressure p solves
//   dt^2 L [sum_j m_j (a_i - a_j) . grad W_ij + rho0 s^3 a_i . G_i] = rho0 - rho*_i
// wherever the fluid would be compressed, a_i being the pressure
// acceleration of sph.forces' symmetric (or Müller's) pair force with the
// wall ghosts' share, rho*_i the density the non-pressure velocities
// v* = v + dt a_other predict, G_i the ghosts' sum of grad W_poly6 and L the
// normalise_density factor. The pressure acceleration takes the spiky
// gradient (sph.forces'), the continuity equation the poly6 one (the
// density sum's own, so the predicted density is the one the next substep
// measures). The iterations are relaxed Jacobi with p >= 0.
#ifndef SPH_IISPH_GLSL
#define SPH_IISPH_GLSL

// The wall ghosts' sums depend on the position alone, which the solve does
// not change: sph.iisph_diag keeps them, SPH_IISPH_GHOSTS vec4 a particle
// (sorted order), for the passes that run every iteration. A texel-only
// buffer (48 bytes a particle, more than the other per-particle buffers:
// the texel limit, not the storage range, bounds it).
#define SPH_IISPH_GHOSTS 3u
#define SPH_IISPH_GHOST_SPIKY 0u // sum grad W_spiky (sph.iisph_accel)
#define SPH_IISPH_GHOST_LEVER 1u // the hydrostatic lever with gravity (sph.iisph_accel)
#define SPH_IISPH_GHOST_POLY6 2u // sum grad W_poly6 (sph.iisph_update)

// Indirect dispatch arguments: [0..2] the per-particle passes (256-thread
// groups), [3..5] the one-group check; a converged solve sets both to zero
// groups, so the iterations left in the recorded graph are empty. The
// solver's state is struct eddy_sph_iisph_state (sph_params.h).

#endif
