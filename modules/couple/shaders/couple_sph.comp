#version 450
// Coupling with sph, once per substep (sorted boundary order): the forces
// pass pushed each fluid particle i with a_i = -(p_i B + L g . (x_b - x_i))
// V_b grad W_spiky(x_i - x_b) / rho_i for every boundary particle b within h
// (the wall ghosts' form: the boundary carries the particle's pressure plus
// the hydrostatic difference to b; B = eddy_sph_boundary, L =
// eddy_sph_boundary_lever, the fluid's pressure force); b receives the
// opposite force, sum_i m_i (p_i B + L g . (x_b - x_i)) V_b grad W / rho_i,
// pair by pair; p_i from the equation of state, or with IISPH (flag 4)
// the solved pressure. Positions are those
// the fluid was sorted by, so one ring of cells finds every pair. The C twin
// is eddy_couple_sph_cpu.
#extension GL_GOOGLE_include_directive : require
#include "../couple_params.h"
#include "sph_kernels.h"
#include "grid.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Params { eddy_couple_params CP; };
layout(std430, binding = 1) readonly buffer Boundary { vec4 couple_b[]; };
layout(std430, binding = 2) readonly buffer PosMass { vec4 spm[]; };  // xyz position, w mass
layout(std430, binding = 3) readonly buffer VelRho { vec4 svr[]; };   // xyz velocity, w density
layout(std430, binding = 4) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 5) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 6) buffer Force { vec4 force[]; };
layout(std430, binding = 7) readonly buffer SPressure { float spress[]; }; // flag 4 only

void main()
{
    uint b = gl_GlobalInvocationID.x;
    if (b >= CP.counts.x)
        return;
    vec3 xb = couple_b[b].xyz;
    float h = CP.misc.x, k = CP.fluid.x, rho0 = CP.fluid.y;
    uint flags = uint(CP.fluid.w);
    bool symmetric = CP.fluid.z == 0.0, clamp_p = (flags & 1u) != 0u, tait = (flags & 2u) != 0u,
         solved = (flags & 4u) != 0u;
    ivec3 dims = CP.dims.xyz;
    ivec3 c = eddy_grid_cell(xb, CP.grid.xyz, CP.grid.w, dims);
    vec3 f = vec3(0.0);
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
        for (uint i = s; i < e; i++) {
            vec3 r = spm[i].xyz - xb;
            float r2 = dot(r, r);
            if (r2 >= h * h)
                continue;
            float rho = svr[i].w;
            float pi = solved ? spress[i] : eddy_sph_pressure(tait, k, rho, rho0, clamp_p);
            float pb = pi * eddy_sph_boundary(symmetric, rho, rho0) -
                       eddy_sph_boundary_lever(symmetric, rho, rho0) * dot(CP.gravity.xyz, r);
            f += (spm[i].w * pb / rho * eddy_grad_spiky(r2, h)) * r;
        }
    }
    force[b].xyz += couple_b[b].w * f;
}
