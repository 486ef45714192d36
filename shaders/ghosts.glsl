// Wall ghosts for particle fluids (SPH, PBF): a lattice of spacing s
// continues the fluid's lattice behind the walls of the box [lo, hi]
// (points lo + s (k + 1/2) per axis, outside along at least one axis), so a
// particle near a wall, edge or corner sees the neighbourhood of a particle
// inside. Returns sum grad W_spiky (xyz) and sum W_poly6 (w) over the ghosts
// within h of p; the caller gives each ghost its mass (rho0 s^3) and role.
// eddy_wall_ghosts_lever also sums lever = sum (a . (q - p)) grad W_spiky:
// a ghost whose pressure is the particle's plus rho0 a . (q - p), fluid at
// rest under the acceleration a beyond the wall (gravity for fixed walls;
// Adami, Hu and Adams 2012), pushes with it. The C twin for the reference
// steps is modules/common/ghosts.h.
#ifndef EDDY_GHOSTS_GLSL
#define EDDY_GHOSTS_GLSL
#include "sph_kernels.h"

// poly6: the gradients (xyz and lever) of W_poly6 instead of W_spiky, the
// density sum's own (IISPH's continuity equation).
vec4 eddy_wall_ghosts_kernel(vec3 p, float h, float s, vec3 lo, vec3 hi, vec3 a, bool poly6, out vec3 lever)
{
    lever = vec3(0.0);
    if (all(greaterThanEqual(p - lo, vec3(h))) && all(greaterThanEqual(hi - p, vec3(h))))
        return vec4(0.0);
    ivec3 k0 = ivec3(floor((p - h - lo) / s - 0.5)), k1 = ivec3(ceil((p + h - lo) / s - 0.5));
    float w = 0.0;
    vec3 g = vec3(0.0);
    // The lattice columns [ax, bx] inside the box along x: a row inside along
    // y and z jumps over them (a lane pays for every point any lane visits,
    // and most of the block around a particle near one wall is inside). The
    // points visited, and their order, are those of the plain triple loop.
    int ax = k1.x + 1, bx = k0.x - 1;
    for (int kx = k0.x; kx <= k1.x; kx++) {
        float qx = (lo + s * (vec3(kx, k0.y, k0.z) + 0.5)).x;
        if (qx > lo.x && qx < hi.x) {
            ax = min(ax, kx);
            bx = max(bx, kx);
        }
    }
    for (int kz = k0.z; kz <= k1.z; kz++)
    for (int ky = k0.y; ky <= k1.y; ky++) {
        vec3 qr = lo + s * (vec3(k0.x, ky, kz) + 0.5);
        bool row_in = qr.y > lo.y && qr.y < hi.y && qr.z > lo.z && qr.z < hi.z;
    for (int kx = k0.x; kx <= k1.x; kx++) {
        if (row_in && kx >= ax && kx <= bx) {
            kx = bx;
            continue;
        }
        vec3 q = lo + s * (vec3(kx, ky, kz) + 0.5);
        if (all(greaterThan(q, lo)) && all(lessThan(q, hi)))
            continue; // inside: real particles are there
        vec3 r = p - q;
        float r2 = dot(r, r);
        if (r2 >= h * h)
            continue;
        w += eddy_w_poly6(r2, h);
        vec3 gw = (poly6 ? eddy_grad_poly6(r2, h) : eddy_grad_spiky(r2, h)) * r;
        g += gw;
        lever -= dot(a, r) * gw;
    }
    }
    return vec4(g, w);
}

vec4 eddy_wall_ghosts_lever(vec3 p, float h, float s, vec3 lo, vec3 hi, vec3 a, out vec3 lever)
{
    return eddy_wall_ghosts_kernel(p, h, s, lo, hi, a, false, lever);
}

// Sum grad W_poly6 over the ghosts near p.
vec3 eddy_wall_ghosts_grad_poly6(vec3 p, float h, float s, vec3 lo, vec3 hi)
{
    vec3 unused;
    return eddy_wall_ghosts_kernel(p, h, s, lo, hi, vec3(0.0), true, unused).xyz;
}

vec4 eddy_wall_ghosts(vec3 p, float h, float s, vec3 lo, vec3 hi)
{
    vec3 unused;
    return eddy_wall_ghosts_lever(p, h, s, lo, hi, vec3(0.0), unused);
}

#endif
