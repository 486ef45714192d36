#version 450
// A particle as a sphere impostor: a camera-facing quad (6 vertices, one
// instance per particle) straight from eddy's particle buffers.
layout(location = 0) in vec4 position; // xyz m, w radius m (per instance)
layout(location = 1) in vec4 velocity; // m/s (per instance)
layout(location = 2) in uint phase;    // body / material (per instance)
layout(location = 3) in float scalar;  // density kg/m^3 (per instance), when the set has one
layout(location = 4) in vec4 rest;     // rigid bodies: the particle in its body's rest frame (m)

// Rigid bodies: each particle placed by its body's transform, matrix[phase] x rest
// (the rigid module's "rigid.matrix" and "rigid.rest"), not read from "position".
layout(constant_id = 0) const bool BODIES = false;
layout(std430, set = 0, binding = 0) readonly buffer Bodies { mat4 matrix[]; };

layout(push_constant) uniform View {
    mat4 view;       // world to view (m)
    vec4 proj;       // view to clip: x = f / aspect, y = -f, z, w: depth a z + b (Vulkan, 0..1)
    vec4 colour;     // x mode (0 speed, 1 density, 2 set, 3 phase), y range min, z range max, w set index
    vec4 extra;      // x radius when position.w is 0 (m)
} v;

layout(location = 0) out vec2 corner;
layout(location = 1) out vec3 centre;
layout(location = 2) out float radius;
layout(location = 3) out vec3 albedo;

const vec2 corners[6] = vec2[](vec2(-1, -1), vec2(1, -1), vec2(1, 1), vec2(-1, -1), vec2(1, 1), vec2(-1, 1));

vec3 ramp(float t) // blue, cyan, green, yellow, red
{
    t = clamp(t, 0.0, 1.0);
    return clamp(vec3(1.5 - abs(4.0 * t - 3.0), 1.5 - abs(4.0 * t - 2.0), 1.5 - abs(4.0 * t - 1.0)), 0.0, 1.0);
}

vec3 palette(uint k)
{
    uint h = k * 2654435761u;
    return 0.35 + 0.6 * vec3(float(h & 255u), float((h >> 8) & 255u), float((h >> 16) & 255u)) / 255.0;
}

vec4 clip(vec3 a) // the perspective projection (push constants hold its four terms)
{
    return vec4(a.x * v.proj.x, a.y * v.proj.y, a.z * v.proj.z + v.proj.w, -a.z);
}

void main()
{
    radius = position.w > 0.0 ? position.w : v.extra.x;
    corner = corners[gl_VertexIndex];
    vec3 world = BODIES ? (matrix[phase] * vec4(rest.xyz, 1.0)).xyz : position.xyz;
    centre = (v.view * vec4(world, 1.0)).xyz;
    // The quad in front of the sphere, large enough for its silhouette.
    vec3 at = centre + vec3(corner * radius, 0.0);
    gl_Position = clip(at);
    int mode = int(v.colour.x);
    float span = max(v.colour.z - v.colour.y, 1e-9);
    if (mode == 0)
        albedo = ramp((length(velocity.xyz) - v.colour.y) / span);
    else if (mode == 1)
        albedo = ramp((scalar - v.colour.y) / span);
    else if (mode == 2)
        albedo = palette(uint(v.colour.w) + 1u);
    else
        albedo = palette(phase + 7u);
}
