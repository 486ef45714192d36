// Collision of particles with the scene's box and static solids (see
// solids.h): a particle of radius r closer than r to a solid's surface is
// pushed out along the surface normal and its normal velocity, if it points
// into the solid, is reflected and scaled by the restitution e.
#ifndef EDDY_SOLIDS_GLSL
#define EDDY_SOLIDS_GLSL
#include "eddy_solids.h"

float eddy_box2_sdf(vec2 p, vec2 c, vec2 e)
{
    vec2 d = abs(p - c) - e;
    return length(max(d, vec2(0.0))) + min(max(d.x, d.y), 0.0);
}

float eddy_solid_sdf(EddySolid s, vec3 x)
{
    uint type = floatBitsToUint(s.c.w);
    if (type == EDDY_SOLID_PLANE)
        return dot(x - s.a.xyz, s.b.xyz);
    if (type == EDDY_SOLID_SPHERE)
        return length(x - s.a.xyz) - s.a.w;
    if (type == EDDY_SOLID_CAPSULE) {
        vec3 ab = s.b.xyz - s.a.xyz;
        float t = clamp(dot(x - s.a.xyz, ab) / max(dot(ab, ab), 1e-30), 0.0, 1.0);
        return length(x - (s.a.xyz + t * ab)) - s.a.w;
    }
    if (type == EDDY_SOLID_GLASS) {
        vec3 q = x - s.a.xyz;
        float z = dot(q, s.b.xyz);
        float rho = length(q - z * s.b.xyz);
        float R = s.a.w, H = s.b.w, t = s.c.x;
        vec2 p = vec2(rho, z);
        float wall = eddy_box2_sdf(p, vec2(R + 0.5 * t, 0.5 * (H - t)), vec2(0.5 * t, 0.5 * (H + t)));
        float bottom = eddy_box2_sdf(p, vec2(0.0, -0.5 * t), vec2(R + t, 0.5 * t));
        return min(wall, bottom);
    }
    return 1e30;
}

// The outward unit normal of solid s near x (zero where it has none):
// central differences of the distance, one rule for every shape, exact
// enough a tenth of a radius r away from edges.
vec3 eddy_solid_normal(EddySolid s, vec3 x, float r)
{
    float h = max(1e-3 * r, 1e-7);
    vec3 n = vec3(eddy_solid_sdf(s, x + vec3(h, 0, 0)) - eddy_solid_sdf(s, x - vec3(h, 0, 0)),
                  eddy_solid_sdf(s, x + vec3(0, h, 0)) - eddy_solid_sdf(s, x - vec3(0, h, 0)),
                  eddy_solid_sdf(s, x + vec3(0, 0, h)) - eddy_solid_sdf(s, x - vec3(0, 0, h)));
    float len = length(n);
    return len > 0.0 ? n / len : vec3(0.0);
}

// Whether the centre x is past a wall plane of the box [lo, hi]: what the
// box limit (eddy_collide) then puts back is flagged in the set's "clamped"
// buffer (eddy.h) by the module, for the stats.
bool eddy_past_box(vec3 x, vec3 lo, vec3 hi)
{
    return any(lessThan(x, lo)) || any(greaterThan(x, hi));
}

// Pushes x out of the box [lo, hi] (shrunk by r) and every solid; returns
// the number of contacts resolved.
uint eddy_collide(inout vec3 x, inout vec3 v, float r, float e, vec3 lo, vec3 hi,
                  uint solid_count)
{
    uint pushes = 0u;
    for (uint k = 0u; k < solid_count; k++) {
        EddySolid s = solids[k];
        float d = eddy_solid_sdf(s, x);
        if (d >= r)
            continue;
        vec3 n = eddy_solid_normal(s, x, r);
        if (n == vec3(0.0))
            continue;
        x += (r - d) * n;
        float vn = dot(v, n);
        if (vn < 0.0)
            v -= (1.0 + e) * vn * n;
        pushes++;
    }
    for (int a = 0; a < 3; a++) {
        if (x[a] < lo[a] + r) {
            x[a] = lo[a] + r;
            if (v[a] < 0.0)
                v[a] = -e * v[a];
            pushes++;
        } else if (x[a] > hi[a] - r) {
            x[a] = hi[a] - r;
            if (v[a] > 0.0)
                v[a] = -e * v[a];
            pushes++;
        }
    }
    return pushes;
}

#endif
