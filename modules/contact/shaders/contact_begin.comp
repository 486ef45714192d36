#version 450
// Contact step 1, once per set (the set's particle order): its particles'
// positions (w the radius) and velocities at the substep's start into its
// side's combined arrays, at the set's offset.
layout(local_size_x_id = 0) in;
layout(push_constant) uniform Slice {
    uint offset; // the set's first particle in its side's combined arrays
    uint count;  // the set's particles
} S;
layout(std430, binding = 0) readonly buffer Position { vec4 position[]; };
layout(std430, binding = 1) readonly buffer Velocity { vec4 velocity[]; };
layout(std430, binding = 2) writeonly buffer CPos { vec4 cpos[]; };
layout(std430, binding = 3) writeonly buffer CVel { vec4 cvel[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= S.count)
        return;
    cpos[S.offset + i] = position[i];
    cvel[S.offset + i] = vec4(velocity[i].xyz, 0.0);
}
