// The boundary particles of a coupled fluid (modules/couple): the coupled
// variant of a fluid shader (-DEDDY_COUPLED; the plain one binds none of
// this) defines COUPLE_BINDING (the first of four bindings; COUPLE_MASS_BINDING
// too for the bodies' inverse masses, COUPLE_VELOCITY_BINDING for the
// boundary's velocities) before including this and calls
// couple_boundary(p, h, gw) for sum V_b grad W_spiky(p - x_b) (xyz) and
// sum V_b W_poly6 (w) over the boundary particles within h of p, and
// gw = sum sqrt(weight w_b) V_b grad W_spiky (w_b: the particle's share of
// its body's inverse mass, weight: CP.misc.z; 0 without COUPLE_MASS_BINDING). A boundary particle
// is fluid at rest of volume V_b (ghost-like: its lambda is 0); the C twin is
// eddy_couple_boundary_cpu.
#ifndef COUPLE_BOUNDARY_GLSL
#define COUPLE_BOUNDARY_GLSL
#include "../couple_params.h"

layout(std430, binding = COUPLE_BINDING) readonly buffer CoupleParams { eddy_couple_params CP; };
layout(std430, binding = COUPLE_BINDING + 1) readonly buffer CoupleB { vec4 couple_b[]; };
layout(std430, binding = COUPLE_BINDING + 2) readonly buffer CoupleStart { uint couple_start[]; };
layout(std430, binding = COUPLE_BINDING + 3) readonly buffer CoupleEnd { uint couple_end[]; };

#ifdef COUPLE_VELOCITY_BINDING
layout(std430, binding = COUPLE_VELOCITY_BINDING) readonly buffer CoupleV { vec4 couple_v[]; };
#define COUPLE_V(j) couple_v[j].xyz
#else
#define COUPLE_V(j) vec3(0.0)
#endif

#ifdef COUPLE_MASS_BINDING
layout(std430, binding = COUPLE_MASS_BINDING) readonly buffer CoupleW { float couple_w[]; };
#define COUPLE_SQRT_W(j) sqrt(CP.misc.z * couple_w[j])
#else
#define COUPLE_SQRT_W(j) 0.0
#endif

// couple_boundary_lever also sums lever = sum V_b (a . (x_b - p)) grad
// W_spiky(p - x_b): the hydrostatic part of the boundary's pressure (sph,
// a = gravity; eddy_couple_boundary_cpu's lever).
vec4 couple_boundary_lever(vec3 p, float h, vec3 a, out vec3 gw, out vec3 lever)
{
    vec4 acc = vec4(0.0);
    gw = vec3(0.0);
    lever = vec3(0.0);
    ivec3 dims = CP.dims.xyz;
    ivec3 c = eddy_grid_cell(p, CP.grid.xyz, CP.grid.w, dims);
    for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) {
        ivec3 q = c + ivec3(dx, dy, dz);
        if (any(lessThan(q, ivec3(0))) || any(greaterThanEqual(q, dims)))
            continue;
        uint cell = eddy_grid_linear(q, dims);
        uint s = couple_start[cell];
        if (s == EDDY_GRID_EMPTY)
            continue;
        uint e = couple_end[cell];
        for (uint j = s; j < e; j++) {
            vec3 r = p - couple_b[j].xyz;
            float r2 = dot(r, r);
            if (r2 >= h * h)
                continue;
            float V = couple_b[j].w;
            acc.w += V * eddy_w_poly6(r2, h);
            vec3 g = V * eddy_grad_spiky(r2, h) * r;
            acc.xyz += g;
            gw += COUPLE_SQRT_W(j) * g;
            lever -= dot(a, r) * g;
        }
    }
    return acc;
}

// IISPH's pressure system (sph): gd = sum V_b grad W_poly6(p - x_b), and
// returned, sum V_b (vs - v_b) . grad W_poly6(p - x_b) (the boundary's share
// of the density the velocities vs predict; v_b = 0 without
// COUPLE_VELOCITY_BINDING). C twin: eddy_couple_boundary_iisph_cpu.
float couple_boundary_iisph(vec3 p, float h, vec3 vs, out vec3 gd)
{
    float div = 0.0;
    gd = vec3(0.0);
    ivec3 dims = CP.dims.xyz;
    ivec3 c = eddy_grid_cell(p, CP.grid.xyz, CP.grid.w, dims);
    for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) {
        ivec3 q = c + ivec3(dx, dy, dz);
        if (any(lessThan(q, ivec3(0))) || any(greaterThanEqual(q, dims)))
            continue;
        uint cell = eddy_grid_linear(q, dims);
        uint s = couple_start[cell];
        if (s == EDDY_GRID_EMPTY)
            continue;
        uint e = couple_end[cell];
        for (uint j = s; j < e; j++) {
            vec3 r = p - couple_b[j].xyz;
            float r2 = dot(r, r);
            if (r2 >= h * h)
                continue;
            vec3 g = couple_b[j].w * eddy_grad_poly6(r2, h) * r;
            gd += g;
            div += dot(vs - COUPLE_V(j), g);
        }
    }
    return div;
}

vec4 couple_boundary(vec3 p, float h, out vec3 gw)
{
    vec3 unused;
    return couple_boundary_lever(p, h, vec3(0.0), gw, unused);
}

#endif
