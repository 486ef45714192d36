#version 450
// DFSPH iteration, first pass (cell order, indirect): D rho_i / Dt from the
// solve's current velocities, the phase's error and kappa_i / rho_i
// (sph_dfsph.glsl), and this group's sum and largest of the error for
// sph.iisph_check: MODE SPH_DFSPH_DIVERGENCE dt max(D rho / Dt, 0) / rho0
// (0 at a deficient particle), SPH_DFSPH_DENSITY |rho* - rho0| / rho0 where
// the phase's sum K_i (sdf.z) is positive after this k_i, the compression
// alone where it is 0.
// The solve's buffer holds each particle's velocity (xyz) and density (w).
#extension GL_GOOGLE_include_directive : require
#include "sph_common.glsl"
#include "sph_dfsph.glsl"
#define EDDY_FIXED_SUMS
#include "partials.glsl"
#include "neighbours.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 1) const uint MODE = SPH_DFSPH_DIVERGENCE;
layout(constant_id = 2) const uint SPH_NLIST = 0u;
layout(constant_id = 3) const uint SPH_OWNED = 0u; // over MPI ranks: only the owned particles count
layout(binding = 1, rgba32f) readonly uniform imageBuffer spm_tex;
#define spm_at(j) imageLoad(spm_tex, int(j)) // xyz position, w mass
layout(std430, binding = 2) readonly buffer Sdv { vec4 sdv[]; };
layout(std430, binding = 3) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 4) readonly buffer End { uint cell_end[]; };
layout(binding = 5, r32ui) readonly uniform uimageBuffer nlist_tex;
#define nlist_at(j) imageLoad(nlist_tex, int(j)).x
layout(std430, binding = 6) readonly buffer Count { uint ncount[]; };
layout(std430, binding = 7) readonly buffer Ghost { vec4 sghost[]; };
layout(std430, binding = 8) buffer Sdf { vec4 sdf[]; };
layout(std430, binding = 9) writeonly buffer Partials { uvec4 partials[]; }; // one per group (partials.glsl's fixed point)
layout(std430, binding = 10) readonly buffer Owned { uint sowned[]; }; // cell order; SPH_OWNED only

uint g_i;
vec3 g_x, g_v;
float g_h, g_div;

void visit(uint j)
{
    vec4 pm = spm_at(j);
    vec3 r = g_x - pm.xyz;
    float r2 = dot(r, r), h = g_h;
    if (r2 >= h * h || j == g_i)
        return;
    g_div += pm.w * dot(g_v - sdv[j].xyz, eddy_grad_poly6(r2, h) * r);
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    float err = 0.0;
    if (i < SPH_COUNT) {
        vec3 x = spm_at(i).xyz;
        vec4 vr = sdv[i];
        float h = SPH_H, dt = SPH_DT, rho0 = SPH_RHO0, rho_i = vr.w;
        g_i = i, g_x = x, g_v = vr.xyz, g_h = h, g_div = 0.0;
        ivec3 c = sph_cell(x), dims = P.dims.xyz;
        uint count = SPH_COUNT;
        EDDY_NEIGHBOURS(i, count, SPH_NLIST > 0u, SPH_NLIST, nlist_at, ncount, c, dims, cell_start, cell_end, visit)
        float s = uintBitsToFloat(P.misc.w);
        // H.w: a coupled boundary's own motion (sph.dfsph_alpha), 0 without.
        vec4 H = sghost[SPH_DFSPH_H(i)];
        float div = P.lattice.x * (g_div + rho0 * (s * s * s) * (dot(vr.xyz, H.xyz) + H.w)), beta = sdf[i].x, k;
        if (MODE == SPH_DFSPH_DIVERGENCE) {
            float e = eddy_dfsph_sufficient(rho_i, rho0) * max(div, 0.0);
            err = dt * e / rho0;
            sdf[i].y = e * beta / dt;
        } else {
            float e = max(rho_i + dt * div - rho0, 0.0), k = e * beta / (dt * dt);
            err = e / rho0;
            sdf[i].yz = vec2(k, sdf[i].z + k); // z: the phase's sum, its pressure (sph.dfsph_store)
        }
    }
    bool counted = i < SPH_COUNT && (SPH_OWNED == 0u || sowned[i] != 0u);
    uvec4 g = eddy_workgroup_fixed(eddy_fixed_error(err, counted));
    if (gl_LocalInvocationIndex == 0u)
        partials[gl_WorkGroupID.x] = g;
}
