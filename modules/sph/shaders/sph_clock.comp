#version 450
// The end of a substep: the substep counter the time-dependent fields read.
// One thread: the same count on every run.
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Clock { uint clock[]; };

void main()
{
    clock[0] += 1u;
}
