#version 450
// IISPH (cell order, 256-thread groups): each particle's pressure
// acceleration from the current pressures: sph.forces' pair force and the
// wall ghosts carrying p_i plus the hydrostatic difference. Indirect in the
// iterations, writing `acc`; FINAL (after them, always dispatched): added
// to the non-pressure acceleration the leap-frog reads, and the pressure
// written in the particles' own order (the set's "pressure" buffer, also
// the next substep's start). Positions are fixed during the solve, so the
// neighbours are sph.density's lists and the wall ghosts' sums the ones
// sph.iisph_diag kept (sph_iisph.glsl).
#extension GL_GOOGLE_include_directive : require
#include "sph_common.glsl"
#include "sph_iisph.glsl"
#include "neighbours.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 1) const bool FINAL = false;
layout(constant_id = 2) const uint SPH_NLIST = 0u;
layout(binding = 1, rgba32f) readonly uniform imageBuffer spm_tex;
#define spm_at(j) imageLoad(spm_tex, int(j)) // xyz position, w mass
layout(binding = 2, rgba32f) readonly uniform imageBuffer svr_tex;
#define svr_at(j) imageLoad(svr_tex, int(j)) // xyz velocity, w density
layout(std430, binding = 3) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 4) readonly buffer End { uint cell_end[]; };
layout(binding = 5, r32f) readonly uniform imageBuffer spress_tex;
#define spress_at(j) imageLoad(spress_tex, int(j)).x
layout(std430, binding = 6) buffer Acc { vec4 acc[]; };
layout(std430, binding = 7) readonly buffer Index { uint sorted_index[]; };
layout(std430, binding = 8) writeonly buffer Pressure { float pressure[]; }; // FINAL only
layout(binding = 9, r32ui) readonly uniform uimageBuffer nlist_tex;
#define nlist_at(j) imageLoad(nlist_tex, int(j)).x
layout(std430, binding = 10) readonly buffer Count { uint ncount[]; };
layout(binding = 11, rgba32f) readonly uniform imageBuffer sghost_tex; // SPH_IISPH_GHOSTS a particle
#ifdef EDDY_COUPLED
#define COUPLE_BINDING 12
#include "couple_boundary.glsl"
#endif

uint g_i;
vec3 g_x, g_f;
float g_h, g_rho_i, g_p_i;
bool g_symmetric;

void visit(uint j)
{
    vec4 pm = spm_at(j);
    vec3 r = g_x - pm.xyz;
    float r2 = dot(r, r), h = g_h;
    if (r2 >= h * h || j == g_i)
        return;
    g_f -= eddy_sph_pair(g_symmetric, pm.w, g_rho_i, g_p_i, svr_at(j).w, spress_at(j)) * eddy_grad_spiky(r2, h) * r;
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= SPH_COUNT)
        return;
    vec3 x = spm_at(i).xyz;
    float h = SPH_H, rho_i = svr_at(i).w, p_i = spress_at(i);
    bool symmetric = P.model.x == EDDY_SPH_SYMMETRIC;
    g_i = i, g_x = x, g_f = vec3(0.0), g_h = h, g_rho_i = rho_i, g_p_i = p_i, g_symmetric = symmetric;
    ivec3 c = sph_cell(x), dims = P.dims.xyz;
    uint count = SPH_COUNT;
    EDDY_NEIGHBOURS(i, count, SPH_NLIST > 0u, SPH_NLIST, nlist_at, ncount, c, dims, cell_start, cell_end, visit)
    vec3 f = g_f;
    float s = uintBitsToFloat(P.misc.w);
    vec3 gh = imageLoad(sghost_tex, int(SPH_IISPH_GHOSTS * i + SPH_IISPH_GHOST_SPIKY)).xyz,
         lever = imageLoad(sghost_tex, int(SPH_IISPH_GHOSTS * i + SPH_IISPH_GHOST_LEVER)).xyz;
    f -= (s * s * s) * (p_i * eddy_sph_boundary(symmetric, rho_i, SPH_RHO0) * gh +
                        eddy_sph_boundary_lever(symmetric, rho_i, SPH_RHO0) * lever);
    // A coupled set's particles likewise (sph.forces'; couple.sph gives the
    // opposite force to the bodies once the solve is done).
#ifdef EDDY_COUPLED
    vec3 unused, blever;
    f -= p_i * eddy_sph_boundary(symmetric, rho_i, SPH_RHO0) *
             couple_boundary_lever(x, h, CP.gravity.xyz, unused, blever).xyz +
         eddy_sph_boundary_lever(symmetric, rho_i, SPH_RHO0) * blever;
#endif
    vec3 a = f / rho_i;
    if (FINAL) {
        acc[i].xyz += a;
        pressure[sorted_index[i]] = p_i;
    } else {
        acc[i] = vec4(a, 0.0);
    }
}
