#version 450
// A system's own picture (a volume renderer's image, drawn from the
// viewer's camera at the viewer's size) over the scene: premultiplied
// colour, blended (one, one - alpha), at the depth of its first hit so the
// scene's nearer solids and particles hide it and farther ones show
// through it.
layout(set = 0, binding = 0, rgba32f) uniform readonly image2D picture;
layout(set = 0, binding = 1, r32f) uniform readonly image2D distance;
layout(push_constant) uniform View {
    mat4 view;
    vec4 proj;
    vec4 colour;
    vec4 extra; // y, z: the target's width and height (px)
} v;
layout(location = 0) out vec4 colour;

void main()
{
    ivec2 px = ivec2(gl_FragCoord.xy);
    vec4 c = imageLoad(picture, px);
    float t = imageLoad(distance, px).x;
    if (!(c.a > 0.0) || !(t < 1.0 / 0.0))
        discard;
    // the view-space ray through the pixel's centre (the inverse of the
    // projection in mesh.vert), unit length: the picture's t is along it
    vec2 ndc = gl_FragCoord.xy / v.extra.yz * 2.0 - 1.0;
    vec3 a = t * normalize(vec3(ndc.x / v.proj.x, ndc.y / v.proj.y, -1.0));
    float z = -a.z > 0.0 ? (a.z * v.proj.z + v.proj.w) / -a.z : 0.0;
    gl_FragDepth = clamp(z, 0.0, 1.0);
    colour = c;
}
