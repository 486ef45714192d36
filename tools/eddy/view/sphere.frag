#version 450
layout(location = 0) in vec2 corner;
layout(location = 1) in vec3 centre;
layout(location = 2) in float radius;
layout(location = 3) in vec3 albedo;
layout(push_constant) uniform View {
    mat4 view;
    vec4 proj;
    vec4 colour;
    vec4 extra;
} v;
layout(location = 0) out vec4 colour;

vec4 clip(vec3 a) // the perspective projection (push constants hold its four terms)
{
    return vec4(a.x * v.proj.x, a.y * v.proj.y, a.z * v.proj.z + v.proj.w, -a.z);
}

void main()
{
    float d2 = dot(corner, corner);
    if (d2 > 1.0)
        discard;
    vec3 n = vec3(corner, sqrt(1.0 - d2)); // view space: the camera looks down -z
    vec4 clip = clip(centre + n * radius);
    gl_FragDepth = clip.z / clip.w;
    const vec3 light = normalize(vec3(0.4, 0.7, 0.6));
    float lambert = max(dot(n, light), 0.0);
    colour = vec4(albedo * (0.3 + 0.7 * lambert), 1.0);
}
