#version 450
// Integer and float work whose CPU reference is in tests/gpu/test_roundtrip.c.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer InU { uint in_u[]; };
layout(std430, binding = 1) readonly buffer InF { float in_f[]; };
layout(std430, binding = 2) writeonly buffer OutU { uint out_u[]; };
layout(std430, binding = 3) writeonly buffer OutF { float out_f[]; };
layout(push_constant) uniform P { uint count; float a; float b; } pc;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count)
        return;
    uint x = in_u[i];
    out_u[i] = (x * 2654435761u) ^ (x >> 7) ^ i;
    out_f[i] = in_f[i] * pc.a + pc.b;
}
