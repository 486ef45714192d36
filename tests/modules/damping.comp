#version 450
// v *= factor: the test module's one pass.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) buffer Velocity { vec4 velocity[]; };
layout(push_constant) uniform P { uint count; float factor; } pc;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.count)
        velocity[i].xyz *= pc.factor;
}
