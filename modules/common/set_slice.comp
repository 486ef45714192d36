#version 450
// One set's part of a combined array (the sets' particles one after
// another) into the set's own buffer: the force a coupling gathered for all
// its sets into each set's slice rigid.external.<k> (couple.end,
// contact.end). One thread a particle of the set.
layout(local_size_x_id = 0) in;
layout(push_constant) uniform Slice {
    uint offset; // the set's first particle in the combined array
    uint count;  // the set's particles
} S;
layout(std430, binding = 0) readonly buffer Combined { vec4 combined[]; };
layout(std430, binding = 1) writeonly buffer Out { vec4 slice[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= S.count)
        return;
    slice[i] = combined[S.offset + i];
}
