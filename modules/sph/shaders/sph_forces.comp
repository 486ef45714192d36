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
#include "neighbours.glsl"

layout(local_size_x_id = 0) in;
layout(binding = 1, rgba32f) readonly uniform imageBuffer spm_tex;
#define spm_at(j) imageLoad(spm_tex, int(j)) // xyz position, w mass
layout(binding = 2, rgba32f) readonly uniform imageBuffer svr_tex;
#define svr_at(j) imageLoad(svr_tex, int(j))  // xyz velocity, w density
layout(std430, binding = 3) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 4) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 5) writeonly buffer Accel { vec4 saccel[]; };
layout(std430, binding = 6) writeonly buffer Normal { vec4 snormal[]; };
layout(std430, binding = 7) readonly buffer Clock { float clock[]; }; // simulated time (s)
// sph.density's neighbour lists (shaders/neighbours.glsl).
layout(constant_id = 1) const uint SPH_NLIST = 0u;
layout(binding = 8, r32ui) readonly uniform uimageBuffer nlist_tex;
#define nlist_at(j) imageLoad(nlist_tex, int(j)).x
layout(std430, binding = 9) readonly buffer Count { uint ncount[]; };
#ifdef EDDY_COUPLED
#define COUPLE_BINDING 10
#include "couple_boundary.glsl"
#endif

uint g_i;
vec3 g_p, g_v, g_fp, g_fv, g_n;
float g_rho0, g_h, g_k, g_mu, g_alpha, g_c0, g_rho_i, g_p_i, g_lap_c;
bool g_symmetric, g_clamp_p, g_tait, g_weak;

void visit(uint j)
{
    vec4 pm = spm_at(j);
    vec3 r = g_p - pm.xyz;
    float r2 = dot(r, r), h = g_h;
    if (r2 >= h * h)
        return;
    vec4 vrj = svr_at(j);
    float m_j = pm.w, rho_j = vrj.w, vol = m_j / rho_j;
    g_lap_c += vol * eddy_lap_poly6(r2, h); // j = i too: c includes the particle itself
    if (j == g_i)
        return;
    float p_j = g_weak ? eddy_sph_pressure(g_tait, g_k, rho_j, g_rho0, g_clamp_p) : 0.0, gs = eddy_grad_spiky(r2, h);
    g_fp -= (eddy_sph_pair(g_symmetric, m_j, g_rho_i, g_p_i, rho_j, p_j) +
             eddy_sph_artificial(g_alpha, g_c0, h, dot(g_v - vrj.xyz, r), r2, g_rho_i, rho_j, m_j)) * gs * r;
    g_fv += g_mu * vol * (vrj.xyz - g_v) * eddy_lap_visc(r2, h);
    g_n += vol * eddy_grad_poly6(r2, h) * r;
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= SPH_COUNT)
        return;
    vec4 vr = svr_at(i);
    vec3 p = spm_at(i).xyz, v = vr.xyz;
    float h = SPH_H, k = P.material.x, mu = P.material.y, sigma = P.material.z, l = P.material.w;
    bool symmetric = P.model.x == EDDY_SPH_SYMMETRIC, clamp_p = P.model.y != 0u, tait = P.model.z == EDDY_SPH_TAIT;
    float alpha = uintBitsToFloat(P.model.w), c0 = sqrt(k);
    bool weak = P.solve.x == EDDY_SPH_WEAK;
    float rho_i = vr.w, p_i = weak ? eddy_sph_pressure(tait, k, rho_i, SPH_RHO0, clamp_p) : 0.0;
    g_i = i, g_p = p, g_v = v, g_fp = vec3(0.0), g_fv = vec3(0.0), g_n = vec3(0.0);
    g_rho0 = SPH_RHO0, g_h = h, g_k = k, g_mu = mu, g_alpha = alpha, g_c0 = c0, g_rho_i = rho_i, g_p_i = p_i, g_lap_c = 0.0;
    g_symmetric = symmetric, g_clamp_p = clamp_p, g_tait = tait, g_weak = weak;
    ivec3 c = sph_cell(p);
    ivec3 dims = P.dims.xyz;
    uint count = SPH_COUNT; // into a register: the list loop indexes with it
    EDDY_NEIGHBOURS(i, count, SPH_NLIST > 0u, SPH_NLIST, nlist_at, ncount, c, dims, cell_start, cell_end, visit)
    vec3 f_p = g_fp, f_v = g_fv, n = g_n;
    float lap_c = g_lap_c;
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
