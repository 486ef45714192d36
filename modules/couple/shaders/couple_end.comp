#version 450
// Coupling, last step, once per boundary set of a fluid with several: the
// force on the set's particles (the combined array, in the sets' order after
// the grid's scatter) into the set's own slice, rigid.external.<k>. With one
// set the scatter writes the slice itself.
layout(local_size_x_id = 0) in;
layout(push_constant) uniform Slice {
    uint offset; // the set's first particle in the combined array
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
