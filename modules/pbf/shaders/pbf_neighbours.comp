#version 450
// PBF neighbour list (cell order): the j within h + skin of particle i at
// the current positions, i included, in the 27 cells around its bin. Built
// at the start of a substep (pc.always) and again after an iteration whose
// pbf.apply moved a particle more than 0.45 skin from where the list was
// built (ncount[n] set), so every neighbour loop can read it.
// shaders/neighbours.glsl has the layout and the argument.
#extension GL_GOOGLE_include_directive : require
#include "pbf_common.glsl"
#include "neighbours.glsl"

layout(local_size_x_id = 0) in;
layout(binding = 1, rgba32f) readonly uniform imageBuffer sp_tex;
#define sp_at(j) imageLoad(sp_tex, int(j))
layout(std430, binding = 2) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 3) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 4) readonly buffer Bin { vec4 sbin[]; };
layout(binding = 5, r32ui) writeonly uniform uimageBuffer nlist_tex;
layout(std430, binding = 6) buffer Count { uint ncount[]; }; // [n]: the flag
layout(std430, binding = 7) writeonly buffer Built { vec4 lpos[]; }; // where each list was built
layout(push_constant) uniform Push { uint always; } pc;

uint g_i, g_n, g_cap, g_count;
vec3 g_p;
float g_h2;

void visit(uint j)
{
    vec3 r = g_p - sp_at(j).xyz;
    if (dot(r, r) >= g_h2)
        return;
    if (g_count < g_cap)
        imageStore(nlist_tex, int(g_count * g_n + g_i), uvec4(j));
    g_count++;
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= PBF_COUNT || (pc.always == 0u && ncount[PBF_COUNT] == 0u))
        return;
    g_i = i;
    g_n = PBF_COUNT;
    g_cap = PBF_NLIST;
    g_count = 0u;
    g_p = sp_at(i).xyz;
    g_h2 = PBF_LIST_R * PBF_LIST_R;
    ivec3 dims = P.dims.xyz;
    ivec3 c = eddy_grid_cell(sbin[i].xyz, P.grid.xyz, P.grid.w, dims); // see pbf_common.glsl
    EDDY_GRID_SCAN(c, dims, cell_start, cell_end, visit)
    ncount[i] = g_count;
    lpos[i] = vec4(g_p, 0.0);
}
