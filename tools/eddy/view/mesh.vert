#version 450
// A surface mesh (an element set of triangles) over eddy's position buffer.
layout(location = 0) in vec4 position;
layout(push_constant) uniform View {
    mat4 view;
    vec4 proj;
    vec4 colour;
    vec4 extra;
} v;
layout(location = 0) out vec3 at; // view space, m

vec4 clip(vec3 a) // the perspective projection (push constants hold its four terms)
{
    return vec4(a.x * v.proj.x, a.y * v.proj.y, a.z * v.proj.z + v.proj.w, -a.z);
}

void main()
{
    vec4 p = v.view * vec4(position.xyz, 1.0);
    at = p.xyz;
    gl_Position = clip(p.xyz);
}
