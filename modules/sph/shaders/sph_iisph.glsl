// IISPH (Ihmsen, Cornelis, Solenthaler, Horvath, Teschner 2014) in the
// form of Koschier et al.'s SPH tutorial (2019): the pressure p solves
//   dt^2 L [sum_j m_j (a_i - a_j) . grad W_ij + rho0 s^3 a_i . G_i] = rho0 - rho*_i
// wherever the fluid would be compressed, a_i being the pressure
// acceleration of sph.forces' symmetric (or Müller's) pair force with the
// wall ghosts' share, rho*_i the density the non-pressure velocities
// v* = v + dt a_other predict, G_i the ghosts' sum of grad W_spiky and L the
// normalise_density factor. The pressure acceleration takes the spiky
// gradient (sph.forces'), the continuity equation the poly6 one (the
// density sum's own, so the predicted density is the one the next substep
// measures). The iterations are relaxed Jacobi with p >= 0.
#ifndef SPH_IISPH_GLSL
#define SPH_IISPH_GLSL

// Indirect dispatch arguments: [0..2] the per-particle passes (256-thread
// groups), [3..5] the one-group check; a converged solve sets both to zero
// groups, so the iterations left in the recorded graph are empty.
struct SphIisphState {
    uint iterations; // done in this substep
    float error;     // the last iteration's mean compression density error / rho0
    uint converged;  // 1 once error <= tolerance (after 2 iterations at least)
    uint pad;
};

// The pressure acceleration of particle i (p_i, rho_i at x) from its
// neighbours' pressures and the wall ghosts (carrying p_i plus the
// hydrostatic difference, as in sph.forces).
#define SPH_IISPH_ACCEL_LOOP                                                                   \
    {                                                                                          \
        bool symmetric = P.model.x == EDDY_SPH_SYMMETRIC;                                      \
        float h = SPH_H;                                                                       \
        ivec3 c = sph_cell(x);                                                                 \
        for (int dz = -1; dz <= 1; dz++)                                                       \
        for (int dy = -1; dy <= 1; dy++)                                                       \
        for (int dx = -1; dx <= 1; dx++) {                                                     \
            ivec3 q = c + ivec3(dx, dy, dz);                                                   \
            if (any(lessThan(q, ivec3(0))) || any(greaterThanEqual(q, P.dims.xyz)))            \
                continue;                                                                      \
            uint cell = eddy_grid_linear(q, P.dims.xyz);                                       \
            uint s0 = cell_start[cell];                                                        \
            if (s0 == EDDY_GRID_EMPTY)                                                         \
                continue;                                                                      \
            for (uint j = s0; j < cell_end[cell]; j++) {                                       \
                vec4 pm = spm[j];                                                              \
                vec3 r = x - pm.xyz;                                                           \
                float r2 = dot(r, r);                                                          \
                if (r2 >= h * h || j == i)                                                     \
                    continue;                                                                  \
                f -= eddy_sph_pair(symmetric, pm.w, rho_i, p_i, svr[j].w, spress[j]) *         \
                     eddy_grad_spiky(r2, h) * r;                                               \
            }                                                                                  \
        }                                                                                      \
        float s = uintBitsToFloat(P.misc.w);                                                   \
        vec3 lever;                                                                            \
        vec4 gh = eddy_wall_ghosts_lever(x, h, s, P.box_min.xyz, P.box_max.xyz, P.gravity.xyz, \
                                         lever);                                               \
        f -= (s * s * s) * (p_i * eddy_sph_boundary(symmetric, rho_i, SPH_RHO0) * gh.xyz +    \
                            eddy_sph_boundary_lever(symmetric, rho_i, SPH_RHO0) * lever);      \
    }

#endif
