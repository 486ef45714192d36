#version 450
// SPH pass 1 (particles in cell order): rho_i = sum_j m_j W_poly6(x_i - x_j),
// j = i included (Müller et al. 2003, eq. 3), plus the wall ghosts' share.
#extension GL_GOOGLE_include_directive : require
#include "sph_common.glsl"
#include "neighbours.glsl"

layout(local_size_x_id = 0) in;
layout(binding = 1, rgba32f) readonly uniform imageBuffer spos_tex;
#define spos_at(j) imageLoad(spos_tex, int(j))
layout(binding = 2, r32f) readonly uniform imageBuffer smass_tex;
#define smass_at(j) imageLoad(smass_tex, int(j)).x
layout(std430, binding = 3) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 4) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 5) writeonly buffer Density { float sdensity[]; };
layout(std430, binding = 6) readonly buffer Vel { vec4 svel[]; };
// Packed for the forces pass, which reads every neighbour's state: two
// 16-byte loads instead of four scattered ones.
layout(std430, binding = 7) writeonly buffer PosMass { vec4 spm[]; }; // xyz position, w mass
layout(std430, binding = 8) writeonly buffer VelRho { vec4 svr[]; };  // xyz velocity, w density
// The neighbours within h, for sph.forces (shaders/neighbours.glsl): at
// most SPH_NLIST a particle (0: no lists).
layout(constant_id = 1) const uint SPH_NLIST = 0u;
layout(binding = 9, r32ui) writeonly uniform uimageBuffer nlist_tex;
layout(std430, binding = 10) writeonly buffer Count { uint ncount[]; };
#ifdef EDDY_COUPLED
#define COUPLE_BINDING 11
#include "couple_boundary.glsl"
#endif

uint g_i, g_count, g_n;
vec3 g_p;
float g_h2, g_c6, g_rho;

void visit(uint j)
{
    vec3 d = g_p - spos_at(j).xyz;
    float r2 = dot(d, d), q = max(g_h2 - r2, 0.0);
    g_rho += smass_at(j) * (g_c6 * (q * q * q));
    if (SPH_NLIST > 0u && r2 < g_h2) {
        if (g_count < SPH_NLIST)
            imageStore(nlist_tex, int(g_count * g_n + g_i), uvec4(j));
        g_count++;
    }
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= SPH_COUNT)
        return;
    vec3 p = spos_at(i).xyz;
    // Parameters into registers once: the loop below runs ~30 times a particle.
    ivec3 dims = P.dims.xyz;
    ivec3 c = eddy_grid_cell(p, P.grid.xyz, P.grid.w, dims);
    float h = SPH_H, h2 = h * h;
    // W_poly6 with its constant hoisted: the same value as eddy_w_poly6.
    g_i = i, g_n = SPH_COUNT, g_count = 0u, g_p = p, g_h2 = h2, g_rho = 0.0;
    g_c6 = eddy_w_poly6(0.0, h) / (h2 * h2 * h2);
    EDDY_GRID_SCAN(c, dims, cell_start, cell_end, visit)
    float rho = g_rho;
    if (SPH_NLIST > 0u)
        ncount[i] = g_count;
    float s3 = uintBitsToFloat(P.misc.w);
    s3 = s3 * s3 * s3;
    rho += SPH_RHO0 * s3 * sph_ghosts(p).w; // ghost mass rho0 s^3
    // A coupled rigid set's particles: fluid at rest of volume V_b each.
#ifdef EDDY_COUPLED
    vec3 unused;
    rho += SPH_RHO0 * couple_boundary(p, h, unused).w;
#endif
    rho *= P.lattice.x; // normalise_density: the rest lattice reads rho0
    sdensity[i] = rho;
    spm[i] = vec4(p, smass_at(i));
    svr[i] = vec4(svel[i].xyz, rho);
}
