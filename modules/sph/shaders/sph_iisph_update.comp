#version 450
// IISPH iteration (cell order, 256-thread groups, indirect): the pressure
// system's left side (A p)_i from the pressure accelerations, the relaxed
// Jacobi update p_i += omega (rho0 - rho*_i - (A p)_i) / a_ii (p >= 0; 0
// where a_ii is 0, a particle with no neighbours), and this group's sum of
// the density error (rho*_i + (A p)_i - rho0) / rho0 for sph.iisph_check:
// its size where pressure acts, compression only where none does.
#extension GL_GOOGLE_include_directive : require
#include "sph_common.glsl"
#include "sph_iisph.glsl"
#include "partials.glsl"

layout(local_size_x = 256) in;
layout(std430, binding = 1) readonly buffer PosMass { vec4 spm[]; }; // xyz position, w mass
layout(std430, binding = 2) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 3) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 4) readonly buffer Acc { vec4 acc[]; };
layout(std430, binding = 5) readonly buffer System { vec4 siis[]; };
layout(std430, binding = 6) buffer SPressure { float spress[]; };
layout(std430, binding = 7) writeonly buffer Partials { vec4 partials[]; }; // one per group
#ifdef EDDY_COUPLED
#define COUPLE_BINDING 8
#include "../../couple/shaders/couple_boundary.glsl"
#endif

void main()
{
    uint i = gl_GlobalInvocationID.x;
    float err = 0.0;
    if (i < SPH_COUNT) {
        vec3 x = spm[i].xyz, ai = acc[i].xyz;
        float h = SPH_H, dt = SPH_DT, rho0 = SPH_RHO0, sum = 0.0;
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
                sum += pm.w * dot(ai - acc[j].xyz, eddy_grad_poly6(r2, h) * r);
            }
        }
        float s = uintBitsToFloat(P.misc.w);
        sum += rho0 * (s * s * s) * dot(ai, eddy_wall_ghosts_grad_poly6(x, h, s, P.box_min.xyz, P.box_max.xyz));
#ifdef EDDY_COUPLED
        vec3 Bd;
        couple_boundary_iisph(x, h, vec3(0.0), Bd);
        sum += rho0 * dot(ai, Bd);
#endif
        float Ap = dt * dt * P.lattice.x * sum;
        vec4 sys = siis[i];
        float p = sys.y < 0.0 ? max(spress[i] + uintBitsToFloat(P.solve.w) * (sys.x - Ap) / sys.y, 0.0) : 0.0;
        // The complementarity residual: where pressure acts the predicted
        // density must be rho0 both ways; where none does, only
        // compression is an error (a free surface may expand).
        err = (p > 0.0 ? abs(Ap - sys.x) : max(Ap - sys.x, 0.0)) / rho0;
        spress[i] = p;
    }
    vec4 g = eddy_workgroup_sum(vec4(err, 0.0, 0.0, 0.0));
    if (gl_LocalInvocationIndex == 0u)
        partials[gl_WorkGroupID.x] = g;
}
