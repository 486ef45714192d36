#version 450
// SPH pass 2 (cell order): pressure (spiky gradient; symmetric or Müller's
// pair form, eddy_sph_pair; linear or Tait equation of state) and Monaghan's
// artificial viscosity with it,
// viscosity (viscosity-kernel Laplacian), surface tension from the colour
// field, gravity and the vortex field, as an acceleration a_i = f_i / rho_i.
// Also the colour-field gradient n (surface normal = -n) and |n|. With
// IISPH (P.solve.x) everything but the pressure: the iterations that follow
// find that (sph_iisph_*.comp).
#extension GL_GOOGLE_include_directive : require
#include "sph_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer PosMass { vec4 spm[]; }; // xyz position, w mass
layout(std430, binding = 2) readonly buffer VelRho { vec4 svr[]; };  // xyz velocity, w density
layout(std430, binding = 3) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 4) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 5) writeonly buffer Accel { vec4 saccel[]; };
layout(std430, binding = 6) writeonly buffer Normal { vec4 snormal[]; };
layout(std430, binding = 7) readonly buffer Clock { float clock[]; }; // simulated time (s)
#ifdef EDDY_COUPLED
#define COUPLE_BINDING 8
#include "../../couple/shaders/couple_boundary.glsl"
#endif

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= SPH_COUNT)
        return;
    vec4 vr = svr[i];
    vec3 p = spm[i].xyz, v = vr.xyz;
    float h = SPH_H, k = P.material.x, mu = P.material.y, sigma = P.material.z, l = P.material.w;
    bool symmetric = P.model.x == EDDY_SPH_SYMMETRIC, clamp_p = P.model.y != 0u, tait = P.model.z == EDDY_SPH_TAIT;
    float alpha = uintBitsToFloat(P.model.w), c0 = sqrt(k);
    bool weak = P.solve.x == EDDY_SPH_WEAK;
    float rho_i = vr.w, p_i = weak ? eddy_sph_pressure(tait, k, rho_i, SPH_RHO0, clamp_p) : 0.0;
    vec3 f_p = vec3(0.0), f_v = vec3(0.0), n = vec3(0.0);
    float lap_c = 0.0;
    ivec3 c = sph_cell(p);
    for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) {
        ivec3 q = c + ivec3(dx, dy, dz);
        if (any(lessThan(q, ivec3(0))) || any(greaterThanEqual(q, P.dims.xyz)))
            continue;
        uint cell = eddy_grid_linear(q, P.dims.xyz);
        uint s = cell_start[cell];
        if (s == EDDY_GRID_EMPTY)
            continue;
        for (uint j = s; j < cell_end[cell]; j++) {
            vec4 pm = spm[j];
            vec3 r = p - pm.xyz;
            float r2 = dot(r, r);
            if (r2 >= h * h)
                continue;
            vec4 vrj = svr[j];
            float m_j = pm.w, rho_j = vrj.w, vol = m_j / rho_j;
            lap_c += vol * eddy_lap_poly6(r2, h); // j = i too: c includes the particle itself
            if (j == i)
                continue;
            float p_j = weak ? eddy_sph_pressure(tait, k, rho_j, SPH_RHO0, clamp_p) : 0.0, gs = eddy_grad_spiky(r2, h);
            f_p -= (eddy_sph_pair(symmetric, m_j, rho_i, p_i, rho_j, p_j) +
                    eddy_sph_artificial(alpha, c0, h, dot(v - vrj.xyz, r), r2, rho_i, rho_j, m_j)) * gs * r;
            f_v += mu * vol * (vrj.xyz - v) * eddy_lap_visc(r2, h);
            n += vol * eddy_grad_poly6(r2, h) * r;
        }
    }
    // Wall ghosts: fluid of volume s^3 at rest density whose pressure is the
    // particle's plus the hydrostatic difference rho0 g . (x_g - x_i), so a
    // column at rest needs no extra compression at the floor
    // (eddy_sph_boundary, eddy_sph_boundary_lever).
    float s = uintBitsToFloat(P.misc.w), fb = p_i * eddy_sph_boundary(symmetric, rho_i, SPH_RHO0);
    vec3 lever;
    vec4 gh = eddy_wall_ghosts_lever(p, h, s, P.box_min.xyz, P.box_max.xyz, P.gravity.xyz, lever);
    if (weak)
        f_p -= (s * s * s) * (fb * gh.xyz + eddy_sph_boundary_lever(symmetric, rho_i, SPH_RHO0) * lever);
    // A coupled rigid set's particles likewise, each of its volume V_b; the
    // opposite force goes to them (couple.sph).
#ifdef EDDY_COUPLED
    vec3 unused, blever;
    f_p -= fb * couple_boundary_lever(p, h, CP.gravity.xyz, unused, blever).xyz;
    if (weak)
        f_p -= eddy_sph_boundary_lever(symmetric, rho_i, SPH_RHO0) * blever;
#endif
    float nl = length(n);
    vec3 f_s = nl > l ? -sigma * lap_c * n / nl : vec3(0.0);
    vec3 a = (f_p + f_v + f_s) / rho_i + P.gravity.xyz;
    // Stirring: within the vortex radius the tangential velocity relaxes
    // towards that of a rotation at omega about the axis, at `rate`.
    vec3 rc = p - P.vortex.xyz;
    vec3 radial = rc - dot(rc, P.vortex_axis.xyz) * P.vortex_axis.xyz;
    float rr = length(radial), rate = uintBitsToFloat(P.misc.z);
    if (P.vortex.w != 0.0 && rr < P.vortex_axis.w && rr > 0.0) {
        vec3 t = cross(P.vortex_axis.xyz, radial) / rr;
        a += rate * (P.vortex.w * rr - dot(v, t)) * t;
    }
    a += sph_push(p, clock[0]);
    saccel[i] = vec4(a, 0.0);
    snormal[i] = vec4(n, nl);
}
