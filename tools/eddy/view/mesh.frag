#version 450
layout(location = 0) in vec3 at;
layout(location = 0) out vec4 colour;

void main()
{
    // Flat shading: the face normal from the screen-space derivatives,
    // turned towards the camera (both sides of cloth are seen).
    vec3 n = normalize(cross(dFdx(at), dFdy(at)));
    if (dot(n, -at) < 0.0)
        n = -n;
    const vec3 light = normalize(vec3(0.4, 0.7, 0.6));
    colour = vec4(vec3(0.85, 0.6, 0.45) * (0.3 + 0.7 * max(dot(n, light), 0.0)), 1.0);
}
