#version 450
// Rigid step 3 (per body; eqs. 1-8): P += (F + M g) dt, L += T dt,
// (with an added mass m_a > 0, P += M a dt, a = (F + M g + m_a a_last) /
// (M + m_a): rigid_translate),
// X += P / M dt; then the rotation at constant L over dt (rigid_free_rotation); V,
// W = I(t)^-1 L (I(t)^-1 = R I0^-1 R^T) at the new orientation and the
// body's 4x4 matrix (column major, for renderers).
#extension GL_GOOGLE_include_directive : require
#include "rigid_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) buffer Bodies { eddy_rigid_body bodies[]; };
layout(std430, binding = 2) readonly buffer Force { vec4 bforce[]; };
layout(std430, binding = 3) readonly buffer Torque { vec4 btorque[]; };
layout(std430, binding = 4) writeonly buffer Matrix { mat4 matrix[]; };
layout(std430, binding = 5) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = 6) readonly buffer Rest { vec4 rest[]; };
layout(std430, binding = 7) writeonly buffer Clamped { uint clamped[]; };
layout(std430, binding = 8) buffer Added { vec4 added[]; }; // xyz last acceleration, w added mass

// The momentum change over dt under force F (with gravity). A body in a
// fluid (added mass m_a > 0, the fluids' estimate of the fluid it sets
// moving) takes a = (F + m_a a_last) / (M + m_a): the fluid's force was
// taken with the body where it stood, and a light body answered in full
// overshoots (its velocity flipped sign every step in an IISPH tank); the
// added-mass term lags the change of acceleration by a step instead, so the
// momentum it holds back, m_a (a - a_last) dt, comes back as the
// acceleration settles (README.md, Added mass).
vec3 rigid_translate(uint k, float M, vec3 F, float dt)
{
    vec4 ad = added[k];
    if (!(ad.w > 0.0))
        return F * dt;
    vec3 a = (F + ad.w * ad.xyz) / (M + ad.w);
    added[k].xyz = a;
    return M * a * dt;
}

mat3 rigid_matrix(vec4 q)
{
    float x = q.x, y = q.y, z = q.z, s = q.w;
    // Columns of the rotation matrix of PHYSICS.md.
    return mat3(vec3(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + s * z), 2.0 * (x * z - s * y)),
                vec3(2.0 * (x * y - s * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + s * x)),
                vec3(2.0 * (x * z + s * y), 2.0 * (y * z - s * x), 1.0 - 2.0 * (x * x + y * y)));
}

mat3 rigid_i0inv(eddy_rigid_body b)
{
    return mat3(vec3(b.iinv.x, b.iinv2.x, b.iinv2.y), vec3(b.iinv2.x, b.iinv.y, b.iinv2.z),
                vec3(b.iinv2.y, b.iinv2.z, b.iinv.z));
}

vec3 rigid_omega(eddy_rigid_body b, mat3 R)
{
    return R * (rigid_i0inv(b) * (transpose(R) * b.l.xyz));
}

// The free rotation over dt at constant world L: Euler's equations in the
// body frame, dL_b/dt = L_b x I0^-1 L_b, by the implicit midpoint rule,
// whose step is the Cayley rotation L_b' = (1 + A)^-1 (1 - A) L_b with
// A = [a x], a = dt/2 I0^-1 (L_b + L_b')/2 (RIGID_ROTATE_ITERATIONS fixed-
// point passes). It keeps |L| and the kinetic energy L_b . I0^-1 L_b / 2
// exactly (both quadratic), and the body turns by the same Cayley rotation,
// about a by 2 atan|a| (quaternion (a, 1) / sqrt(1 + |a|^2)), so R' L_b' = L.
// The explicit update it replaces (q turned by W dt with W at the step's
// start) let the energy drift 6e-4 per intermediate-axis flip.
vec4 rigid_free_rotation(eddy_rigid_body b, float dt)
{
    mat3 I0 = rigid_i0inv(b);
    vec3 lb = transpose(rigid_matrix(b.q)) * b.l.xyz, ln = lb, a = vec3(0.0);
    for (int it = 0; it < RIGID_ROTATE_ITERATIONS; it++) {
        a = 0.25 * dt * (I0 * (lb + ln));
        vec3 y = lb - cross(a, lb);
        ln = (y - cross(a, y) + a * dot(a, y)) / (1.0 + dot(a, a));
    }
    vec4 r = vec4(a, 1.0) / sqrt(1.0 + dot(a, a));
    // q x r (PHYSICS.md: [s0 s1 - v0.v1, s0 v1 + s1 v0 + v0 x v1])
    vec4 q = vec4(b.q.w * r.xyz + r.w * b.q.xyz + cross(b.q.xyz, r.xyz), b.q.w * r.w - dot(b.q.xyz, r.xyz));
    return q / length(q);
}

// The box as a hard limit at the end of the step: a body with a particle
// centre past a wall plane is moved back along that axis until the centre
// is on the plane (plus a margin of 1e-5 d and the rounding of the sums, so
// that rigid.particles does not find it a hair outside), and loses its
// momentum into the wall. The walls' springs should never let this happen
// (create refuses a wall stiffness too soft to hold a body at rest); a drop
// too fast for them ends here instead of past the floor, and every particle
// found outside is flagged in the set's "clamped" buffer for the stats.
// The particles are the ones rigid.particles will place (same rotation).
void rigid_box_limit(inout eddy_rigid_body b, uint k)
{
    vec3 below = vec3(0.0), above = vec3(0.0);
    for (uint i = offsets[k]; i < offsets[k + 1u]; i++) {
        vec3 x = b.x.xyz + rigid_rotate(b.q, rest[i].xyz);
        vec3 lo = P.box_min.xyz - x, hi = x - P.box_max.xyz;
        if (any(greaterThan(max(lo, hi), vec3(0.0))))
            clamped[i] = 1u;
        below = max(below, lo);
        above = max(above, hi);
    }
    for (int a = 0; a < 3; a++) {
        float margin = 1e-5 * RIGID_D + 4e-7 * (abs(b.x[a]) + abs(P.box_min[a]) + abs(P.box_max[a]));
        if (below[a] > 0.0 && above[a] > 0.0) {
            b.x[a] += 0.5 * (below[a] - above[a]); // wider than the box: centred
            b.p[a] = 0.0;
        } else if (below[a] > 0.0) {
            b.x[a] += below[a] + margin;
            b.p[a] = max(b.p[a], 0.0);
        } else if (above[a] > 0.0) {
            b.x[a] -= above[a] + margin;
            b.p[a] = min(b.p[a], 0.0);
        }
    }
}

void main()
{
    uint k = gl_GlobalInvocationID.x;
    if (k >= RIGID_BODIES)
        return;
    eddy_rigid_body b = bodies[k];
    float dt = RIGID_DT, M = b.x.w;
    b.p.xyz += rigid_translate(k, M, bforce[k].xyz + M * P.gravity.xyz, dt);
    b.l.xyz += btorque[k].xyz * dt;
    b.x.xyz += b.p.xyz / M * dt;
    b.q = rigid_free_rotation(b, dt);
    rigid_box_limit(b, k);
    mat3 R = rigid_matrix(b.q);
    b.v = vec4(b.p.xyz / M, 0.0);
    b.w = vec4(rigid_omega(b, R), 0.0);
    bodies[k] = b;
    matrix[k] = mat4(vec4(R[0], 0.0), vec4(R[1], 0.0), vec4(R[2], 0.0), vec4(b.x.xyz, 1.0));
}
