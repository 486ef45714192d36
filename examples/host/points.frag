#version 450
layout(location = 0) in float height;
layout(location = 0) out vec4 colour;

void main()
{
    // Deep water dark blue, the surface light.
    colour = vec4(mix(vec3(0.05, 0.2, 0.6), vec3(0.6, 0.85, 1.0), height), 1.0);
}
