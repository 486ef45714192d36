#version 450
// smooth: pairwise velocity smoothing over each particle's neighbours within
// the radius h,
//
//   v_i <- v_i + c sum_{j != i, r_ij < h} 2 m_j / (m_i + m_j) w(r_ij / h) (v_j - v_i),
//   w(q) = (1 - q^2)^3,  c = rate dt,
//
// one thread per particle in cell order. The pair weight is symmetric in i
// and j and carries m_j / (m_i + m_j), so m_i dv_i = -m_j dv_j pair by pair:
// the total momentum is conserved for any masses. CPU reference:
// smooth_step_cpu in smooth.c (a brute-force loop over every pair).
#extension GL_GOOGLE_include_directive : require
// Installed with eddy (pkg-config: glsl_includedir): the standard particle
// buffers and the 27-cell neighbour scan over eddy_grid's tables.
#include "particles.glsl"
#include "neighbours.glsl"

layout(local_size_x_id = 0) in;
// What the loop reads, gathered into cell order by eddy_grid_record_gather:
// a snapshot, so no thread reads a velocity another has already updated.
layout(std430, binding = 0) readonly buffer SortedPosition { vec4 spos[]; };
layout(std430, binding = 1) readonly buffer SortedVelocity { vec4 svel[]; };
layout(std430, binding = 2) readonly buffer SortedMass { float smass[]; };
// eddy_grid_buffers: first and one-past-last sorted index of each cell, and
// the original index of each sorted particle.
layout(std430, binding = 3) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 4) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 5) readonly buffer SortedIndex { uint sorted_index[]; };
// The set's velocity, written back in the set's own order and never read.
layout(std430, binding = 6) writeonly buffer EddyVelocity { vec4 velocity[]; };

layout(push_constant) uniform Params {
    vec4 origin;  // xyz the grid's corner (m), w 1 / cell (1/m)
    ivec4 dims;   // xyz cells along each axis
    vec4 h_c;     // x h (m), y c = rate dt (1)
    uint count;   // particles
} pc;

// The particle being updated and its running sum, read by visit().
uint g_i;
vec3 g_p, g_v, g_sum;
float g_m;

void visit(uint j)
{
    if (j == g_i)
        return;
    vec3 r = spos[j].xyz - g_p;
    float h2 = pc.h_c.x * pc.h_c.x, r2 = dot(r, r);
    if (r2 >= h2)
        return;
    float s = 1.0 - r2 / h2, m_j = smass[j];
    float a = 2.0 * m_j / (g_m + m_j);
    g_sum += (a * s * s * s) * (svel[j].xyz - g_v);
}

void main()
{
    EDDY_PARTICLE_INDEX(pc.count)
    g_i = i;
    g_p = spos[i].xyz;
    g_v = svel[i].xyz;
    g_m = smass[i];
    g_sum = vec3(0.0);
    ivec3 dims = pc.dims.xyz;
    ivec3 c = eddy_grid_cell(g_p, pc.origin.xyz, pc.origin.w, dims);
    EDDY_GRID_SCAN(c, dims, cell_start, cell_end, visit)
    velocity[sorted_index[i]] = vec4(g_v + pc.h_c.y * g_sum, 0.0);
}
