// The camera of eddy's renderers (the particle renderer's render.glsl and
// the volume module's ray caster): four vec4, eye (xyz m, w tan(fov_y / 2)),
// forward (xyz unit view direction, w aspect width / height), right (xyz
// unit, w width px) and up (xyz unit, w height px), rows top to bottom.
#ifndef EDDY_VIEW_GLSL
#define EDDY_VIEW_GLSL

// The unit view ray through pixel centre (px, py).
vec3 eddy_view_ray(vec4 eye, vec4 forward, vec4 right, vec4 up, float px, float py)
{
    float x = ((px + 0.5) / right.w * 2.0 - 1.0) * eye.w * forward.w;
    float y = (1.0 - (py + 0.5) / up.w * 2.0) * eye.w;
    return normalize(forward.xyz + x * right.xyz + y * up.xyz);
}

#endif
