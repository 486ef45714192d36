// DFSPH (Bender and Koschier 2015, 2017): two velocity-level solves a
// substep. With k_i = kappa_i / rho_i (their kappa over the density; the
// pressure is p_i = k_i rho_i^2 summed over a substep's iterations), each
// iteration changes the velocities by the pressure force's pair form,
//   v_i -= dt [sum_j m_j (k_i + k_j) grad W_ij + k_i B_i rho0 s^3 G_i]
// (grad W the spiky gradient, sph.forces' and IISPH's; G_i the wall ghosts'
// sum of grad W). The ghosts are fluid at rest carrying the particle's
// pressure plus the hydrostatic difference, as in IISPH: k_g = p_i / rho0^2
// pairs with k_i to B_i = 1 + rho_i^2 / rho0^2, and the difference is a
// push of its own, -s^3 lever_i (eddy_wall_ghosts_lever), added with the
// other forces to v* (sph.dfsph_predict). With k_g = k_i alone (Akinci's
// boundary in SPlisHSPlasH) the floor held a column at rest with half the
// push it needs and the bottom layer sank into it at 0.2 m/s. The density
// changes at the rate the density sum itself shows,
//   D rho_i / Dt = L [sum_j m_j (v_i - v_j) . grad P_ij + rho0 s^3 v_i . H_i]
// (grad P the gradient of W_poly6, the sum's kernel, H_i the ghosts' sum
// of it, L the normalise_density factor), so a converged prediction is the
// next substep's density: with the spiky gradient there the solve never
// settled (40 iterations a substep on a column at rest, its top sinking
// 1.2 cm a second), and with poly6 in the force too close pairs barely
// repel (the column's top sank 3 cm a second). k_i's own part changes
// D rho_i / Dt by -dt k_i / beta_i,
//   beta_i = 1 / (L (S_i . T_i + sum_j m_j^2 grad W_ij . grad P_ij)),
// the parenthesis at least a quarter of its value were S and T aligned
// (eddy_sph_solve_denominator: the two sums weigh neighbours differently),
// S_i = sum_j m_j grad W_ij + B_i rho0 s^3 G_i and T_i = sum_j m_j grad
// P_ij + rho0 s^3 H_i
// (their alpha_i / rho_i for one kernel and equal masses), so each phase
// sets
//   - divergence-free, on the velocities at the substep's start, where the
//     fluid is compressing: k_i = beta_i max(D rho_i / Dt, 0) / dt;
//   - constant density, on v* = v + dt a (the other forces), where the
//     density v* predicts, rho*_i = rho_i + dt D rho_i / Dt, exceeds rho0:
//     k_i = beta_i (rho*_i - rho0) / dt^2, none elsewhere (a free surface
//     may expand); the sum K_i over the phase is the pressure over
//     rho_i^2. It starts (Bender and Koschier 2017's warm start) with half
//     of the last substep's K_i, scaled from 1 where rho_i >= rho0 down to
//     0 where rho_i <= 0.99 rho0 (eddy_dfsph_warm, sph_kernels.h).
#ifndef SPH_DFSPH_GLSL
#define SPH_DFSPH_GLSL

// The warm start's share of the last substep's K_i (see above). Tried:
// all of it everywhere (the phase's k are never negative, so nothing took
// back a push where the fluid had since expanded: a column at rest blew
// up within 0.1 s); half of it everywhere (a column at rest as still as
// with this, but the dam break's kinetic energy rose above 1.02 times the
// potential energy released); SPlisHSPlasH's half where rho* > rho0 (a
// switch that a fill at rest, which reads rho0 exactly, meets: the C twin
// and the GPU parted on rounding), and a ramp over rho* within the
// tolerance in its place (so steep that they parted within two
// substeps); letting k be negative down to -K (a projected Jacobi like
// IISPH's, which needs its relaxation here and then left a column at rest
// splashing at 1.4 m/s). The density at the substep's start is the same
// sum on both and changes little within the ramp's 1% (eddy_dfsph_warm).

// The divergence is not corrected where the density sum reads below 0.7
// rho0, fully from 0.9 rho0 on, linearly between: at a free surface the
// sum is cut short (the top layer of a lattice reads about 0.6) and a
// correction there would glue the surface particles to the bulk (Bender
// and Koschier's particle deficiency). A ramp, not a switch: a switch
// flipped on rounding (the C twin and the GPU parted at one particle):
// eddy_dfsph_sufficient (sph_kernels.h).

// The solve's phases (specialization constant MODE of sph.dfsph_kappa and
// sph.iisph_check): 0 is IISPH's.
#define SPH_DFSPH_DIVERGENCE 1u
#define SPH_DFSPH_DENSITY 2u

// The ghosts' sums, three vec4 a particle (sph.dfsph_alpha keeps them for
// the passes after it): G (spiky), H (poly6), the lever.
#define SPH_DFSPH_G(i) (3u * (i))
#define SPH_DFSPH_H(i) (3u * (i) + 1u)
#define SPH_DFSPH_LEVER(i) (3u * (i) + 2u)

#endif
