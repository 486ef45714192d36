#version 450
// SPH pass 1 (particles in cell order): rho_i = sum_j m_j W_poly6(x_i - x_j),
// j = i included (Müller et al. 2003, eq. 3), plus the wall ghosts' share.
#extension GL_GOOGLE_include_directive : require
#include "sph_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer Pos { vec4 spos[]; };
layout(std430, binding = 2) readonly buffer Mass { float smass[]; };
layout(std430, binding = 3) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 4) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 5) writeonly buffer Density { float sdensity[]; };
layout(std430, binding = 6) readonly buffer Vel { vec4 svel[]; };
// Packed for the forces pass, which reads every neighbour's state: two
// 16-byte loads instead of four scattered ones.
layout(std430, binding = 7) writeonly buffer PosMass { vec4 spm[]; }; // xyz position, w mass
layout(std430, binding = 8) writeonly buffer VelRho { vec4 svr[]; };  // xyz velocity, w density
#ifdef EDDY_COUPLED
#define COUPLE_BINDING 9
#include "../../couple/shaders/couple_boundary.glsl"
#endif

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= SPH_COUNT)
        return;
    vec3 p = spos[i].xyz;
    // Parameters into registers once: the loop below runs ~30 times a particle.
    ivec3 dims = P.dims.xyz;
    ivec3 c = eddy_grid_cell(p, P.grid.xyz, P.grid.w, dims);
    float h = SPH_H, h2 = h * h, rho = 0.0;
    // W_poly6 with its constant hoisted: the same value as eddy_w_poly6.
    float c6 = eddy_w_poly6(0.0, h) / (h2 * h2 * h2);
    for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) {
        ivec3 q = c + ivec3(dx, dy, dz);
        if (any(lessThan(q, ivec3(0))) || any(greaterThanEqual(q, dims)))
            continue;
        uint cell = eddy_grid_linear(q, dims);
        uint s = cell_start[cell];
        if (s == EDDY_GRID_EMPTY)
            continue;
        uint e = cell_end[cell];
        for (uint j = s; j < e; j++) {
            vec3 d = p - spos[j].xyz;
            float q = max(h2 - dot(d, d), 0.0);
            rho += smass[j] * (c6 * (q * q * q));
        }
    }
    float s3 = uintBitsToFloat(P.misc.w);
    s3 = s3 * s3 * s3;
    rho += SPH_RHO0 * s3 * sph_ghosts(p).w; // ghost mass rho0 s^3
    // A coupled rigid set's particles: fluid at rest of volume V_b each.
#ifdef EDDY_COUPLED
    vec3 unused;
    rho += SPH_RHO0 * couple_boundary(p, h, unused).w;
#endif
    rho *= P.lattice.x; // normalise_density: the rest lattice reads rho0
    sdensity[i] = rho;
    spm[i] = vec4(p, smass[i]);
    svr[i] = vec4(svel[i].xyz, rho);
}
