#version 450
// Contact step 3, once per set (the set's particle order): the force on its
// particles (its side's combined array) into the set's own slice,
// rigid.external.<k>, which the set's system (rigid, deform) adds in.
layout(local_size_x_id = 0) in;
layout(push_constant) uniform Slice {
    uint offset; // the set's first particle in its side's combined array
    uint count;  // the set's particles
} S;
layout(std430, binding = 0) readonly buffer Combined { vec4 combined[]; };
layout(std430, binding = 1) writeonly buffer External { vec4 slice[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= S.count)
        return;
    slice[i] = combined[S.offset + i];
}
