#version 450
// Rigid step 3 (per body; eqs. 1-8): P += (F + M g) dt, L += T dt,
// X += P / M dt, q = dq(W dt) q renormalised with W = I(t)^-1 L,
// I(t)^-1 = R I0^-1 R^T; then V, W at the new orientation and the body's
// 4x4 matrix (column major, for renderers).
#extension GL_GOOGLE_include_directive : require
#include "rigid_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) buffer Bodies { eddy_rigid_body bodies[]; };
layout(std430, binding = 2) readonly buffer Force { vec4 bforce[]; };
layout(std430, binding = 3) readonly buffer Torque { vec4 btorque[]; };
layout(std430, binding = 4) writeonly buffer Matrix { mat4 matrix[]; };

mat3 rigid_matrix(vec4 q)
{
    float x = q.x, y = q.y, z = q.z, s = q.w;
    // Columns of the rotation matrix of PHYSICS.md.
    return mat3(vec3(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + s * z), 2.0 * (x * z - s * y)),
                vec3(2.0 * (x * y - s * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + s * x)),
                vec3(2.0 * (x * z + s * y), 2.0 * (y * z - s * x), 1.0 - 2.0 * (x * x + y * y)));
}

vec3 rigid_omega(eddy_rigid_body b, mat3 R)
{
    mat3 I0 = mat3(vec3(b.iinv.x, b.iinv2.x, b.iinv2.y), vec3(b.iinv2.x, b.iinv.y, b.iinv2.z),
                   vec3(b.iinv2.y, b.iinv2.z, b.iinv.z));
    return R * (I0 * (transpose(R) * b.l.xyz));
}

void main()
{
    uint k = gl_GlobalInvocationID.x;
    if (k >= RIGID_BODIES)
        return;
    eddy_rigid_body b = bodies[k];
    float dt = RIGID_DT, M = b.x.w;
    b.p.xyz += (bforce[k].xyz + M * P.gravity.xyz) * dt;
    b.l.xyz += btorque[k].xyz * dt;
    b.x.xyz += b.p.xyz / M * dt;
    vec3 W = rigid_omega(b, rigid_matrix(b.q));
    float wl = length(W), th = wl * dt;
    if (wl > 0.0) {
        vec4 dq = vec4(W / wl * sin(0.5 * th), cos(0.5 * th));
        // dq x q (PHYSICS.md: [s0 s1 - v0.v1, s0 v1 + s1 v0 + v0 x v1]).
        b.q = vec4(dq.w * b.q.xyz + b.q.w * dq.xyz + cross(dq.xyz, b.q.xyz), dq.w * b.q.w - dot(dq.xyz, b.q.xyz));
        b.q /= length(b.q);
    }
    mat3 R = rigid_matrix(b.q);
    b.v = vec4(b.p.xyz / M, 0.0);
    b.w = vec4(rigid_omega(b, R), 0.0);
    bodies[k] = b;
    matrix[k] = mat4(vec4(R[0], 0.0), vec4(R[1], 0.0), vec4(R[2], 0.0), vec4(b.x.xyz, 1.0));
}
