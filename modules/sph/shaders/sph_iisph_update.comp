#version 450
// IISPH iteration (cell order, 256-thread groups, indirect): the pressure
// system's left side (A p)_i from the pressure accelerations, the relaxed
// Jacobi update p_i += omega (rho0 - rho*_i - (A p)_i) / a_ii (p >= 0; 0
// where a_ii is 0, a particle with no neighbours), and this group's sum and
// largest of the density error (rho*_i + (A p)_i - rho0) / rho0 for
// sph.iisph_check (in fixed point, partials.glsl): its size where pressure
// acts, compression only where none does. Over MPI ranks (SPH_OWNED) only
// the particles this rank owns count. Like
// sph.iisph_accel it reads sph.density's lists and sph.iisph_diag's
// wall-ghost sums.
#extension GL_GOOGLE_include_directive : require
#include "sph_common.glsl"
#include "sph_iisph.glsl"
#define EDDY_FIXED_SUMS
#include "partials.glsl"
#include "neighbours.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 2) const uint SPH_NLIST = 0u;
layout(constant_id = 3) const uint SPH_OWNED = 0u;
layout(binding = 1, rgba32f) readonly uniform imageBuffer spm_tex;
#define spm_at(j) imageLoad(spm_tex, int(j)) // xyz position, w mass
layout(std430, binding = 2) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 3) readonly buffer End { uint cell_end[]; };
layout(binding = 4, rgba32f) readonly uniform imageBuffer acc_tex;
#define acc_at(j) imageLoad(acc_tex, int(j))
layout(std430, binding = 5) readonly buffer System { vec4 siis[]; };
layout(std430, binding = 6) buffer SPressure { float spress[]; };
layout(std430, binding = 7) writeonly buffer Partials { uvec4 partials[]; }; // one per group
layout(binding = 8, r32ui) readonly uniform uimageBuffer nlist_tex;
#define nlist_at(j) imageLoad(nlist_tex, int(j)).x
layout(std430, binding = 9) readonly buffer Count { uint ncount[]; };
layout(binding = 10, rgba32f) readonly uniform imageBuffer sghost_tex; // SPH_IISPH_GHOSTS a particle
layout(std430, binding = 11) readonly buffer Owned { uint sowned[]; }; // cell order; SPH_OWNED only
#ifdef EDDY_COUPLED
#define COUPLE_BINDING 12
#include "couple_boundary.glsl"
#endif

uint g_i;
vec3 g_x, g_ai;
float g_h, g_sum;

void visit(uint j)
{
    vec4 pm = spm_at(j);
    vec3 r = g_x - pm.xyz;
    float r2 = dot(r, r), h = g_h;
    if (r2 >= h * h || j == g_i)
        return;
    g_sum += pm.w * dot(g_ai - acc_at(j).xyz, eddy_grad_poly6(r2, h) * r);
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    float err = 0.0;
    if (i < SPH_COUNT) {
        vec3 x = spm_at(i).xyz, ai = acc_at(i).xyz;
        float h = SPH_H, dt = SPH_DT, rho0 = SPH_RHO0;
        g_i = i, g_x = x, g_ai = ai, g_h = h, g_sum = 0.0;
        ivec3 c = sph_cell(x), dims = P.dims.xyz;
        uint count = SPH_COUNT;
        EDDY_NEIGHBOURS(i, count, SPH_NLIST > 0u, SPH_NLIST, nlist_at, ncount, c, dims, cell_start, cell_end, visit)
        float sum = g_sum, s = uintBitsToFloat(P.misc.w);
        sum += rho0 * (s * s * s) * dot(ai, imageLoad(sghost_tex, int(SPH_IISPH_GHOSTS * i + SPH_IISPH_GHOST_POLY6)).xyz);
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
    bool counted = i < SPH_COUNT && (SPH_OWNED == 0u || sowned[i] != 0u);
    uvec4 g = eddy_workgroup_fixed(eddy_fixed_error(err, counted));
    if (gl_LocalInvocationIndex == 0u)
        partials[gl_WorkGroupID.x] = g;
}
