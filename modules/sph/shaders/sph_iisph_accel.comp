#version 450
// IISPH (cell order, 256-thread groups): each particle's pressure
// acceleration from the current pressures: sph.forces' pair force and the
// wall ghosts carrying p_i plus the hydrostatic difference. Indirect in the
// iterations, writing `acc`; FINAL (after them, always dispatched): added
// to the non-pressure acceleration the leap-frog reads, and the pressure
// written in the particles' own order (the set's "pressure" buffer, also
// the next substep's start).
#extension GL_GOOGLE_include_directive : require
#include "sph_common.glsl"
#include "sph_iisph.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 1) const bool FINAL = false;
layout(std430, binding = 1) readonly buffer PosMass { vec4 spm[]; }; // xyz position, w mass
layout(std430, binding = 2) readonly buffer VelRho { vec4 svr[]; };  // xyz velocity, w density
layout(std430, binding = 3) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 4) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 5) readonly buffer SPressure { float spress[]; };
layout(std430, binding = 6) buffer Acc { vec4 acc[]; };
layout(std430, binding = 7) readonly buffer Index { uint sorted_index[]; };
layout(std430, binding = 8) writeonly buffer Pressure { float pressure[]; }; // FINAL only
#ifdef EDDY_COUPLED
#define COUPLE_BINDING 9
#include "../../couple/shaders/couple_boundary.glsl"
#endif

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= SPH_COUNT)
        return;
    vec3 x = spm[i].xyz, f = vec3(0.0);
    float h = SPH_H, rho_i = svr[i].w, p_i = spress[i];
    bool symmetric = P.model.x == EDDY_SPH_SYMMETRIC;
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
            f -= eddy_sph_pair(symmetric, pm.w, rho_i, p_i, svr[j].w, spress[j]) * eddy_grad_spiky(r2, h) * r;
        }
    }
    float s = uintBitsToFloat(P.misc.w);
    vec3 lever;
    vec4 gh = eddy_wall_ghosts_lever(x, h, s, P.box_min.xyz, P.box_max.xyz, P.gravity.xyz, lever);
    f -= (s * s * s) * (p_i * eddy_sph_boundary(symmetric, rho_i, SPH_RHO0) * gh.xyz +
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
