#version 450
// Coupling with sheets, once per substep after the PBF solver iterations
// (one thread a fluid particle, sorted order): no fluid particle passes
// through a triangle (as a position-based contact: the particle takes its
// share of the correction by the inverse masses). The sheet's own system
// has stepped already this substep (couple.c refuses the other order), so
// the triangles are where they end it. The side a particle is on is the
// side of its position at the substep's start against the triangle where
// the fluid last left it (couple.sheet_apply's `start`); where the particle
// ends, against the triangle where it ends the substep, it must be on that
// side and at least the sheet's thickness tau away, or else, if it lies
// over the triangle, it is moved along the normal towards tau on its side,
// by its share, and always at least back to the plane: the side holds
// whatever the sheet does next. The sheet moves the rest in its next step,
// from the impulse it takes now. The triangles within reach are taken in a
// fixed order (cells, then cell order) and each correction counts for the
// next. The move dx is an impulse m dx / dt on the particle (pbf.velocity
// makes v from the positions); the particle's contact (the triangle that
// moved it most, its barycentric weights, dx and m) is kept for
// couple.sheet_force, which gives the triangle's vertices the opposite.
// C twin: eddy_couple_sheet_cpu (couple.h).
#extension GL_GOOGLE_include_directive : require
#include "../couple_params.h"
#include "grid.glsl"

layout(local_size_x_id = 0) in;
layout(push_constant) uniform Count { uint count; } S; // fluid particles
layout(std430, binding = 0) readonly buffer Params { eddy_couple_params CP; };
layout(std430, binding = 1) buffer Pos { vec4 sp[]; };
layout(std430, binding = 2) readonly buffer Old { vec4 sold[]; };
layout(std430, binding = 3) readonly buffer Mass { float smass[]; };
layout(std430, binding = 4) readonly buffer Tris { uvec4 stri[]; }; // sorted by centroid cell
layout(std430, binding = 5) readonly buffer TStart { uint tcell_start[]; };
layout(std430, binding = 6) readonly buffer TEnd { uint tcell_end[]; };
layout(std430, binding = 7) readonly buffer Start { vec4 start[]; };         // combined: where the fluid left them
layout(std430, binding = 8) readonly buffer Predicted { vec4 predicted[]; }; // combined: where they end the substep
layout(std430, binding = 9) writeonly buffer ContactV { uvec4 contact_v[]; };
layout(std430, binding = 10) writeonly buffer Contact { vec4 contact[]; }; // 2 per particle
layout(std430, binding = 11) readonly buffer Weight { float weight[]; };      // combined: 1/m (0 pinned)

// Barycentric weights of p (in the triangle's plane) in a, b, c.
vec3 barycentric(vec3 p, vec3 a, vec3 b, vec3 c)
{
    vec3 v0 = b - a, v1 = c - a, v2 = p - a;
    float d00 = dot(v0, v0), d01 = dot(v0, v1), d11 = dot(v1, v1), d20 = dot(v2, v0), d21 = dot(v2, v1);
    float den = d00 * d11 - d01 * d01;
    float v = (d11 * d20 - d01 * d21) / den, w = (d00 * d21 - d01 * d20) / den;
    return vec3(1.0 - v - w, v, w);
}

// The point of triangle (a, b, c) nearest to p (Ericson, Real-Time
// Collision Detection 5.1.5); as couple.c's nearest_cpu.
vec3 nearest(vec3 p, vec3 a, vec3 b, vec3 c)
{
    vec3 ab = b - a, ac = c - a, ap = p - a;
    float d1 = dot(ab, ap), d2 = dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0)
        return a;
    vec3 bp = p - b;
    float d3 = dot(ab, bp), d4 = dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3)
        return b;
    float vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0)
        return a + (d1 / (d1 - d3)) * ab;
    vec3 cp = p - c;
    float d5 = dot(ab, cp), d6 = dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6)
        return c;
    float vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0)
        return a + (d2 / (d2 - d6)) * ac;
    float va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0)
        return b + ((d4 - d3) / ((d4 - d3) + (d5 - d6))) * (c - b);
    float den = 1.0 / (va + vb + vc);
    return a + ab * (vb * den) + ac * (vc * den);
}

// The triangle in reach whose nearest point to p is nearest (the first of
// equals in the fixed order), from the start (where the fluid left the
// sheet) or the end positions; its index in the sorted list, or
// EDDY_GRID_EMPTY, and the side of p against it: +1 or -1 where p - q is
// within 60 degrees of the triangle's normal, 0 where it is not (beside the
// sheet's rim) or no triangle is in reach.
uint nearest_triangle(vec3 p, int D, bool at_end, out float side, out vec3 q_out)
{
    ivec3 dims = CP.dims.xyz, c = eddy_grid_cell(p, CP.grid.xyz, CP.grid.w, dims);
    float best = 1.0 / 0.0;
    uint found = EDDY_GRID_EMPTY;
    side = 0.0;
    q_out = p;
    for (int dz = -D; dz <= D; dz++)
    for (int dy = -D; dy <= D; dy++)
    for (int dx = -D; dx <= D; dx++) {
        ivec3 q = c + ivec3(dx, dy, dz);
        if (any(lessThan(q, ivec3(0))) || any(greaterThanEqual(q, dims)))
            continue;
        uint cell = eddy_grid_linear(q, dims), s = tcell_start[cell];
        if (s == EDDY_GRID_EMPTY)
            continue;
        for (uint k = s; k < tcell_end[cell]; k++) {
            uvec4 t = stri[k];
            vec3 a = at_end ? predicted[t.x].xyz : start[t.x].xyz, b = at_end ? predicted[t.y].xyz : start[t.y].xyz,
                 cc = at_end ? predicted[t.z].xyz : start[t.z].xyz, n = cross(b - a, cc - a), r = p - nearest(p, a, b, cc);
            float d = dot(r, r), ln = length(n);
            if (!(d < best) || !(ln > 0.0))
                continue;
            best = d;
            found = k;
            q_out = p - r;
            float along = dot(r, n) / ln;
            side = abs(along) >= 0.5 * sqrt(d) ? (along >= 0.0 ? 1.0 : -1.0) : 0.0;
        }
    }
    return found;
}

// Moves particle i off triangle t (thickness in t.w, normal n1, the
// particle s1 from its plane, w the contact point's weights) towards tau on
// its side: by its share of the correction, against the triangle's inverse
// mass at the contact point (sum w_k^2 / m_k): what moves the two towards
// each other also moves them apart (a light sheet is not thrown by a heavy
// particle); and at least back to the plane: the side must hold whatever
// the sheet does. The triangle that moved it most is its contact.
void push_off(uint i, uvec4 t, vec3 w, float side, float s1, vec3 n1, inout vec3 x, inout vec3 moved,
              inout float most, inout uvec4 best, inout vec3 bw)
{
    vec3 wc = clamp(w, 0.0, 1.0);
    float wt = dot(wc * wc, vec3(weight[t.x], weight[t.y], weight[t.z])), wp = 1.0 / smass[i];
    float move = max((wp / (wp + wt)) * (uintBitsToFloat(t.w) - side * s1), -side * s1 * (1.0 + 1e-3));
    vec3 d = (side * move) * n1;
    x += d;
    moved += d;
    float ld = length(d);
    if (ld > most) {
        most = ld;
        best = uvec4(t.xyz, 1u);
        bw = w;
    }
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= S.count)
        return;
    vec3 x = sp[i].xyz, x0 = sold[i].xyz, moved = vec3(0.0), bw = vec3(0.0);
    uvec4 best = uvec4(0u);
    float most = -1.0;
    // The reach, and as many cells again as the particle moved this
    // substep: a fast particle's path is searched whole.
    int D = int(CP.counts.z) + min(int(ceil(length(x - x0) * CP.grid.w)), 8);
    ivec3 dims = CP.dims.xyz;
    ivec3 c = eddy_grid_cell(x, CP.grid.xyz, CP.grid.w, dims);
    for (int dz = -D; dz <= D; dz++)
    for (int dy = -D; dy <= D; dy++)
    for (int dx = -D; dx <= D; dx++) {
        ivec3 q = c + ivec3(dx, dy, dz);
        if (any(lessThan(q, ivec3(0))) || any(greaterThanEqual(q, dims)))
            continue;
        uint cell = eddy_grid_linear(q, dims);
        uint s = tcell_start[cell];
        if (s == EDDY_GRID_EMPTY)
            continue;
        uint e = tcell_end[cell];
        for (uint k = s; k < e; k++) {
            uvec4 t = stri[k];
            float tau = uintBitsToFloat(t.w);
            vec3 a0 = start[t.x].xyz, b0 = start[t.y].xyz, c0 = start[t.z].xyz;
            vec3 a1 = predicted[t.x].xyz, b1 = predicted[t.y].xyz, c1 = predicted[t.z].xyz;
            vec3 n0 = cross(b0 - a0, c0 - a0), n1 = cross(b1 - a1, c1 - a1);
            float l0 = length(n0), l1 = length(n1);
            if (!(l0 > 0.0) || !(l1 > 0.0))
                continue;
            n0 /= l0;
            n1 /= l1;
            float side = dot(x0 - a0, n0) >= 0.0 ? 1.0 : -1.0, s1 = dot(x - a1, n1);
            if (side * s1 >= tau)
                continue;
            vec3 w = barycentric(x - s1 * n1, a1, b1, c1);
            if (min(w.x, min(w.y, w.z)) < -1e-4)
                continue;
            push_off(i, t, w, side, s1, n1, x, moved, most, best, bw);
        }
    }
    // The guard: the nearest point of the sheet where it ends sees the
    // particle on the side the nearest point of the start saw it. A path
    // through a fold or an edge between two triangles (their planes differ
    // a little) may lie over neither within their tests above; the nearest
    // point has no gap. Not beside the rim (no side there).
    // Twice: a push off one triangle's plane may leave the particle behind
    // its neighbour in a fold.
    float side0, side1;
    vec3 q0, q1;
    uint k0 = nearest_triangle(x0, D, false, side0, q0);
    for (int pass = 0; pass < 2; pass++) {
        uint k1 = nearest_triangle(x, D, true, side1, q1);
        if (k0 == EDDY_GRID_EMPTY || k1 == EDDY_GRID_EMPTY || side0 == 0.0 || side1 != -side0)
            break;
        uvec4 t = stri[k1];
        vec3 a1 = predicted[t.x].xyz, b1 = predicted[t.y].xyz, c1 = predicted[t.z].xyz, n1 = normalize(cross(b1 - a1, c1 - a1));
        push_off(i, t, clamp(barycentric(q1, a1, b1, c1), 0.0, 1.0), side0, dot(x - q1, n1), n1, x, moved, most, best,
                 bw);
    }
    sp[i].xyz = x;
    contact_v[i] = best;
    contact[2u * i] = vec4(moved, 0.0);
    contact[2u * i + 1u] = vec4(bw, smass[i]);
}
