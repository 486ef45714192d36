#version 450
// SPH pass 3: leap-frog (v_{n+1/2} = v_{n-1/2} + a dt, x += v_{n+1/2} dt),
// collision with the box and the solids, and the results written back in the
// particles' own order (density and colour normal too, for output).
#extension GL_GOOGLE_include_directive : require
#include "sph_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer Index { uint sorted_index[]; };
layout(std430, binding = 2) readonly buffer Pos { vec4 spos[]; };
layout(std430, binding = 3) readonly buffer Vel { vec4 svel[]; };
layout(std430, binding = 4) readonly buffer Accel { vec4 saccel[]; };
layout(std430, binding = 5) readonly buffer SDensity { float sdensity[]; };
layout(std430, binding = 6) readonly buffer SNormal { vec4 snormal[]; };
layout(std430, binding = 7) readonly buffer Solids { EddySolid solids[]; };
layout(std430, binding = 8) writeonly buffer Position { vec4 position[]; };
layout(std430, binding = 9) writeonly buffer Velocity { vec4 velocity[]; };
layout(std430, binding = 10) writeonly buffer Density { float density[]; };
layout(std430, binding = 11) writeonly buffer Normal { vec4 normal[]; };
layout(std430, binding = 12) buffer Pushes { uint pushes[]; };
layout(std430, binding = 13) writeonly buffer Clamped { uint clamped[]; };

#include "solids.glsl"

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= SPH_COUNT)
        return;
    float dt = SPH_DT, radius = spos[i].w;
    // DFSPH: svel is the solve's velocity (sph.dfsph_*), the forces in it.
    bool dfsph = P.solve.x == EDDY_SPH_DFSPH;
    vec3 v = dfsph ? svel[i].xyz : svel[i].xyz + saccel[i].xyz * dt;
    vec3 x = spos[i].xyz + v * dt;
    // IISPH, DFSPH: the walls are the ghosts' pressure, and the box keeps only the
    // centres in (its planes widened by the radius). A collision at the
    // radius pins wall particles where the solve means to move them: their
    // density error persists, the warm-started pressure grows, and a column
    // at rest blows up at tolerance 1e-5. The solids (no ghosts) keep it.
    float wide = P.solve.x != EDDY_SPH_WEAK ? radius : 0.0;
    uint o = sorted_index[i];
    if (eddy_past_box(x, P.box_min.xyz, P.box_max.xyz))
        clamped[o] = 1u;
    uint n = eddy_collide(x, v, radius, uintBitsToFloat(P.misc.y), P.box_min.xyz - wide, P.box_max.xyz + wide,
                          uint(P.dims.w));
    x = clamp(x, P.box_min.xyz, P.box_max.xyz); // (hi + r) - r may round past hi
    if (n != 0u)
        atomicAdd(pushes[0], n); // an integer count: the same total in any order
    position[o] = vec4(x, radius);
    velocity[o] = vec4(v, 0.0);
    density[o] = sdensity[i];
    normal[o] = snormal[i];
}
