#version 450
// PBF vorticity (cell order), Macklin & Müller 2013 eq. 15:
// omega_i = sum_j (m_j / rho0) (v_j - v_i) x grad W_spiky(x_i - x_j).
#extension GL_GOOGLE_include_directive : require
#include "pbf_common.glsl"
#include "neighbours.glsl"

layout(local_size_x_id = 0) in;
layout(binding = 1, rgba32f) readonly uniform imageBuffer sp_tex;
#define sp_at(j) imageLoad(sp_tex, int(j))
layout(binding = 2, rgba32f) readonly uniform imageBuffer sv_tex;
#define sv_at(j) imageLoad(sv_tex, int(j))
layout(binding = 3, r32f) readonly uniform imageBuffer smass_tex;
#define smass_at(j) imageLoad(smass_tex, int(j)).x
layout(std430, binding = 4) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 5) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 6) writeonly buffer Vort { vec4 svort[]; }; // xyz omega, w |omega|
layout(std430, binding = 7) readonly buffer Bin { vec4 sbin[]; };

layout(binding = 8, r32ui) readonly uniform uimageBuffer nlist_tex;
#define nlist_at(j) imageLoad(nlist_tex, int(j)).x
layout(std430, binding = 9) readonly buffer Count { uint ncount[]; };

vec3 g_p, g_v, g_w;
float g_h, g_rho0;

// Beyond h the gradient is zero: the cells' other particles add nothing.
void visit(uint j)
{
    vec4 xj = sp_at(j); // w: the mass
    vec3 r = g_p - xj.xyz;
    g_w += (xj.w / g_rho0) * cross(sv_at(j).xyz - g_v, eddy_grad_spiky(dot(r, r), g_h) * r);
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= PBF_COUNT)
        return;
    g_p = sp_at(i).xyz, g_v = sv_at(i).xyz, g_w = vec3(0.0), g_h = PBF_H, g_rho0 = PBF_RHO0;
    ivec3 dims = P.dims.xyz;
    ivec3 c = eddy_grid_cell(sbin[i].xyz, P.grid.xyz, P.grid.w, dims); // see pbf_common.glsl
    uint n = PBF_COUNT; // into a register: the list loop indexes with it
    EDDY_NEIGHBOURS(i, n, PBF_USE_LIST, PBF_NLIST, nlist_at, ncount, c, dims, cell_start, cell_end, visit)
    svort[i] = vec4(g_w, length(g_w));
}
