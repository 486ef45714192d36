#version 450
// deform.explicit, one thread per vertex, a = f / m (deform.forces):
//   stage 1 explicit Euler      x += h v,             v += h a
//   stage 2 symplectic Euler    v += h a,             x += h v
//   stage 3 Verlet              x' = 2x - x_prev + h^2 a, v = (x' - x) / h, x_prev = x
//   stage 4 velocity Verlet, first half: x += h v + h^2 a / 2, keeps a, and
//           v = v + h a (the predicted velocity the second force evaluation's
//           damping sees)
//   stage 5 second half: v = v_pred + h (a_new - a) / 2  (= v + h (a + a_new) / 2)
// Pinned vertices hold still; handle vertices move on by h v (once, in the
// first stage of a substep). After each position update the box and the
// solids push x out (solids.glsl).
#extension GL_GOOGLE_include_directive : require
#include "deform.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) buffer Position { vec4 position[]; };
layout(std430, binding = 2) buffer Velocity { vec4 velocity[]; };
layout(std430, binding = 3) readonly buffer Mass { float mass[]; };
layout(std430, binding = 4) readonly buffer Flags { uint flags[]; };
layout(std430, binding = 5) readonly buffer Force { vec4 force[]; };
layout(std430, binding = 6) buffer Prev { vec4 prev[]; };   // Verlet: x_prev; velocity Verlet: a
layout(std430, binding = 7) readonly buffer Solids { EddySolid solids[]; };
layout(std430, binding = 8) writeonly buffer Clamped { uint clamped[]; };
#include "solids.glsl"

layout(push_constant) uniform Stage { uint stage; } pc;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= D_COUNT)
        return;
    if ((flags[i] & EDDY_DEFORM_HANDLE) != 0u) {
        if (pc.stage != 5u)
            position[i].xyz += D_H * velocity[i].xyz;
        return;
    }
    if ((flags[i] & EDDY_DEFORM_FREE) == 0u) {
        velocity[i] = vec4(0.0);
        return;
    }
    float h = D_H;
    vec4 p = position[i];
    vec3 x = p.xyz, v = velocity[i].xyz, a = force[i].xyz / mass[i];
    uint s = pc.stage;
    if (s == 5u) {
        velocity[i] = vec4(v + 0.5 * h * (a - prev[i].xyz), 0.0);
        return;
    }
    if (s == 1u) {
        x += h * v;
        v += h * a;
    } else if (s == 2u) {
        v += h * a;
        x += h * v;
    } else if (s == 3u) {
        vec3 xn = 2.0 * x - prev[i].xyz + h * h * a;
        prev[i] = vec4(x, 0.0);
        v = (xn - x) / h;
        x = xn;
    } else {
        x += h * v + 0.5 * h * h * a;
        prev[i] = vec4(a, 0.0);
        v += h * a;
    }
    if (eddy_past_box(x, P.box_min.xyz, P.box_max.xyz))
        clamped[i] = 1u;
    eddy_collide(x, v, p.w, P.solver.y, P.box_min.xyz, P.box_max.xyz, P.counts.z);
    position[i] = vec4(x, p.w);
    velocity[i] = vec4(v, 0.0);
}
