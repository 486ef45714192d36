#version 450
// rigid_push: the force of a uniform acceleration field a and of a harmonic
// trap of angular frequency omega about the anchor p on every particle,
//
//   f_i = m_i (a - omega^2 (x_i - p)),
//
// written into the system's slice of the set's rigid.external forces, which
// the rigid (or deform) system adds to each particle's force. Both parts
// are proportional to the particle's mass, so on a rigid body their sum
// acts through the centre of mass: F = M (a - omega^2 (X - p)), no torque.
// CPU reference: rigid_push_force_cpu in rigid_push.c.
#extension GL_GOOGLE_include_directive : require
// Installed with eddy (pkg-config: glsl_includedir). The read-only forms
// match the pass's EDDY_READ bindings, which the engine checks against the
// shader.
#include "particles.glsl"

layout(local_size_x_id = 0) in;
EDDY_POSITION_BUFFER_RO(0)
EDDY_MASS_BUFFER_RO(1)
// The slice: every particle overwritten each substep (EDDY_WRITE).
layout(std430, binding = 2) writeonly buffer Force { vec4 force[]; };

layout(push_constant) uniform Params {
    vec4 accel;  // xyz a (m/s^2)
    vec4 anchor; // xyz p (m), w omega^2 (1/s^2)
    uint count;  // particles
} pc;

void main()
{
    EDDY_PARTICLE_INDEX(pc.count)
    vec3 x = position[i].xyz;
    force[i] = vec4(mass[i] * (pc.accel.xyz - pc.anchor.w * (x - pc.anchor.xyz)), 0.0);
}
