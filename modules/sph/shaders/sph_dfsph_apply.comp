#version 450
// DFSPH iteration, second pass (cell order, indirect; switched off with
// the iterations once sph.iisph_check finds the phase converged): the
// velocity change of kappa (sph_dfsph.glsl), into the solve's velocities.
#extension GL_GOOGLE_include_directive : require
#include "sph_common.glsl"
#include "sph_dfsph.glsl"
#include "neighbours.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 2) const uint SPH_NLIST = 0u;
layout(binding = 1, rgba32f) readonly uniform imageBuffer spm_tex;
#define spm_at(j) imageLoad(spm_tex, int(j)) // xyz position, w mass
layout(std430, binding = 2) buffer Sdv { vec4 sdv[]; };
layout(std430, binding = 3) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 4) readonly buffer End { uint cell_end[]; };
layout(binding = 5, r32ui) readonly uniform uimageBuffer nlist_tex;
#define nlist_at(j) imageLoad(nlist_tex, int(j)).x
layout(std430, binding = 6) readonly buffer Count { uint ncount[]; };
layout(std430, binding = 7) readonly buffer Ghost { vec4 sghost[]; };
layout(std430, binding = 8) buffer Sdf { vec4 sdf[]; };

uint g_i;
vec3 g_x, g_dv;
float g_h, g_k;

void visit(uint j)
{
    vec4 pm = spm_at(j);
    vec3 r = g_x - pm.xyz;
    float r2 = dot(r, r), h = g_h;
    if (r2 >= h * h || j == g_i)
        return;
    g_dv += pm.w * (g_k + sdf[j].y) * eddy_grad_spiky(r2, h) * r;
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= SPH_COUNT)
        return;
    vec3 x = spm_at(i).xyz;
    float h = SPH_H, k = sdf[i].y;
    g_i = i, g_x = x, g_h = h, g_k = k, g_dv = vec3(0.0);
    ivec3 c = sph_cell(x), dims = P.dims.xyz;
    uint count = SPH_COUNT;
    EDDY_NEIGHBOURS(i, count, SPH_NLIST > 0u, SPH_NLIST, nlist_at, ncount, c, dims, cell_start, cell_end, visit)
    float s = uintBitsToFloat(P.misc.w);
    float B = eddy_dfsph_ghost_factor(sdv[i].w, SPH_RHO0);
    vec3 dv = g_dv + k * B * SPH_RHO0 * (s * s * s) * sghost[SPH_DFSPH_G(i)].xyz;
    sdv[i].xyz -= SPH_DT * dv;
    sdf[i].w += k;
}
