#version 450
// IISPH, once a substep after sph.forces (cell order): the source term
// rho0 - rho*_i, the diagonal a_ii of the pressure system, and the pressure
// the iterations start from (EDDY_SPH_IISPH_WARM of the last substep's).
// Thread 0 resets the solver's state and dispatch arguments.
#extension GL_GOOGLE_include_directive : require
#include "sph_common.glsl"
#include "sph_iisph.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer PosMass { vec4 spm[]; }; // xyz position, w mass
layout(std430, binding = 2) readonly buffer VelRho { vec4 svr[]; };  // xyz velocity, w density
layout(std430, binding = 3) readonly buffer Accel { vec4 saccel[]; }; // non-pressure acceleration
layout(std430, binding = 4) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 5) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 6) buffer Pressure { float spress[]; };
layout(std430, binding = 7) writeonly buffer System { vec4 siis[]; }; // x rho0 - rho*, y a_ii
layout(std430, binding = 8) writeonly buffer Args { uint args[]; };
layout(std430, binding = 9) writeonly buffer State { eddy_sph_iisph_state st; };
#ifdef EDDY_COUPLED
#define COUPLE_BINDING 10
#define COUPLE_VELOCITY_BINDING 14
#include "../../couple/shaders/couple_boundary.glsl"
#endif

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i == 0u) {
        uint g = (SPH_COUNT + 255u) / 256u;
        args[0] = g;
        args[1] = 1u;
        args[2] = 1u;
        args[3] = 1u;
        args[4] = 1u;
        args[5] = 1u;
        st.s = uvec4(0u);
    }
    if (i >= SPH_COUNT)
        return;
    bool symmetric = P.model.x == EDDY_SPH_SYMMETRIC;
    vec4 pmi = spm[i], vri = svr[i];
    vec3 x = pmi.xyz;
    float h = SPH_H, dt = SPH_DT, rho0 = SPH_RHO0, m_i = pmi.w, rho_i = vri.w;
    vec3 vs = vri.xyz + dt * saccel[i].xyz;
    float div = 0.0, D = 0.0;
    vec3 K = vec3(0.0), M = vec3(0.0);
    ivec3 c = sph_cell(x);
    for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) {
        ivec3 q = c + ivec3(dx, dy, dz);
        if (any(lessThan(q, ivec3(0))) || any(greaterThanEqual(q, P.dims.xyz)))
            continue;
        uint cell = eddy_grid_linear(q, P.dims.xyz);
        uint s0 = cell_start[cell];
        if (s0 == EDDY_GRID_EMPTY)
            continue;
        for (uint j = s0; j < cell_end[cell]; j++) {
            vec4 pm = spm[j];
            vec3 r = x - pm.xyz;
            float r2 = dot(r, r);
            if (r2 >= h * h || j == i)
                continue;
            vec4 vrj = svr[j];
            vec3 gw = eddy_grad_spiky(r2, h) * r, gd = eddy_grad_poly6(r2, h) * r;
            float m_j = pm.w, rho_j = vrj.w;
            div += m_j * dot(vs - (vrj.xyz + dt * saccel[j].xyz), gd);
            K += eddy_sph_pair(symmetric, m_j, rho_i, 1.0, rho_j, 0.0) * gw;
            M += m_j * gd;
            D += m_j / rho_j * eddy_sph_pair(symmetric, m_i, rho_j, 0.0, rho_i, 1.0) * dot(gw, gd);
        }
    }
    float s = uintBitsToFloat(P.misc.w), s3 = s * s * s, L = P.lattice.x;
    vec3 G = sph_ghosts(x).xyz, Gd = eddy_wall_ghosts_grad_poly6(x, h, s, P.box_min.xyz, P.box_max.xyz);
    div += rho0 * s3 * dot(vs, Gd);
    vec3 B = s3 * G, Md = M + rho0 * s3 * Gd;
    // A coupled set's particles: boundary like the ghosts, of volume V_b
    // each, moving with their bodies (the density they predict is relative).
#ifdef EDDY_COUPLED
    vec3 unused, Bd;
    B += couple_boundary(x, h, unused).xyz;
    div += rho0 * couple_boundary_iisph(x, h, vs, Bd);
    Md += rho0 * Bd;
#endif
    vec3 ci = -(K + eddy_sph_boundary(symmetric, rho_i, rho0) * B) / rho_i;
    float aii = dt * dt * L * (dot(ci, Md) - D);
    siis[i] = vec4(rho0 - (rho_i + dt * L * div), aii, 0.0, 0.0);
    spress[i] *= EDDY_SPH_IISPH_WARM;
}
