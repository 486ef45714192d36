#version 450
// Integer operations for the graph tests; the CPU reference is ops_cpu() in
// tests/gpu/test_graph.c. op 0: a = a * 3 + 1; op 1: b = b + a; op 2: a = a ^ (b >> 3).
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) buffer A { uint a[]; };
layout(std430, binding = 1) buffer B { uint b[]; };
layout(push_constant) uniform P { uint count; uint op; } pc;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count)
        return;
    if (pc.op == 0u)
        a[i] = a[i] * 3u + 1u;
    else if (pc.op == 1u)
        b[i] = b[i] + a[i];
    else
        a[i] = a[i] ^ (b[i] >> 3);
}
