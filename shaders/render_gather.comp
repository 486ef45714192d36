#version 450
// Renderer pass 0, once per particle set: the set's particles straight from
// its device buffers into the renderer's sphere list (at id_base) with their
// colour scalar, so a frame uploads nothing. mode 0: speed, 1: density (both
// mapped to [0, 1] by (x - lo) / span), 2: a constant (the set's colour),
// 3: phase (a golden-ratio hash, as the C colouring did). CPU reference:
// tests/gpu/test_render.c.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Position { vec4 position[]; };
layout(std430, binding = 1) readonly buffer Velocity { vec4 velocity[]; };
layout(std430, binding = 2) readonly buffer Density { float density[]; };
layout(std430, binding = 3) readonly buffer Phase { uint phase[]; };
layout(std430, binding = 4) writeonly buffer Sphere { vec4 sphere[]; };
layout(std430, binding = 5) writeonly buffer Scalar { float scalar[]; };
layout(push_constant) uniform P {
    uint count, id_base, mode, pad;
    float lo, span, value, pad2;
} pc;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count)
        return;
    sphere[pc.id_base + i] = position[i];
    float s;
    if (pc.mode == 0u)
        s = (length(velocity[i].xyz) - pc.lo) / pc.span;
    else if (pc.mode == 1u)
        s = (density[i] - pc.lo) / pc.span;
    else if (pc.mode == 2u)
        s = pc.value;
    else
        s = 0.05 + 0.9 * fract(float(phase[i]) * 0.6180339887498949);
    scalar[pc.id_base + i] = s;
}
