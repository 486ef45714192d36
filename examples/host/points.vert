#version 450
// A particle as a point, straight from eddy's "position" buffer (vec4 a
// particle: xyz in m; the vertex input reads xyz).
layout(location = 0) in vec3 position;
layout(push_constant) uniform View {
    mat4 clip;   // world (m) to clip space
    float size;  // point size, pixels
} view;
layout(location = 0) out float height;

void main()
{
    gl_Position = view.clip * vec4(position, 1.0);
    gl_PointSize = view.size;
    height = clamp(position.y / 0.3, 0.0, 1.0);
}
