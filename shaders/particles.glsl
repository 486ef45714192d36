// Standard particle-set buffers, declared once for every module's shaders
// (the C side is eddy.h, "particle sets"). Include with
//   #extension GL_GOOGLE_include_directive : require
//   #include "particles.glsl"
// and declare a buffer at a binding: EDDY_POSITION_BUFFER(0).
#ifndef EDDY_PARTICLES_GLSL
#define EDDY_PARTICLES_GLSL

// xyz position (m), w radius (m)
#define EDDY_POSITION_BUFFER(b) \
    layout(std430, set = 0, binding = b) buffer EddyPosition { vec4 position[]; };
// xyz velocity (m/s), w unused (0)
#define EDDY_VELOCITY_BUFFER(b) \
    layout(std430, set = 0, binding = b) buffer EddyVelocity { vec4 velocity[]; };
// mass (kg)
#define EDDY_MASS_BUFFER(b) \
    layout(std430, set = 0, binding = b) buffer EddyMass { float mass[]; };
// free for modules: body id, material, ...
#define EDDY_PHASE_BUFFER(b) \
    layout(std430, set = 0, binding = b) buffer EddyPhase { uint phase[]; };

// Read-only forms, for passes that bind the buffer EDDY_READ: the engine
// checks a declared read against the shader, and EDDY_READ needs a
// `readonly` block.
#define EDDY_POSITION_BUFFER_RO(b) \
    layout(std430, set = 0, binding = b) readonly buffer EddyPosition { vec4 position[]; };
#define EDDY_VELOCITY_BUFFER_RO(b) \
    layout(std430, set = 0, binding = b) readonly buffer EddyVelocity { vec4 velocity[]; };
#define EDDY_MASS_BUFFER_RO(b) \
    layout(std430, set = 0, binding = b) readonly buffer EddyMass { float mass[]; };
#define EDDY_PHASE_BUFFER_RO(b) \
    layout(std430, set = 0, binding = b) readonly buffer EddyPhase { uint phase[]; };

// One thread per particle along x; `count` threads do work, the rest return.
#define EDDY_PARTICLE_INDEX(count) \
    uint i = gl_GlobalInvocationID.x; \
    if (i >= (count)) return;

#endif
