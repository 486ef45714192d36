#version 450
// Rigid step 2 (cell order): the contact force on each particle from the
// particles of other bodies (every other particle when granular) and from
// the box walls (eqs. 10-13), and its torque about the body's centre
// (eq. 15), written in particle order for the per-body sums. With friction,
// each particle keeps up to RIGID_SLOTS contacts' shear displacements, by the
// other particle's id (walls: RIGID_WALL_ID + k), from substep to substep: its
// index in the whole set, which it keeps when the set is reordered (over MPI
// ranks a rank holds a part of the set, in another order).
// A coupling module's force on the particle (the sum of the set's
// rigid.external.<k> slices) is added in the EDDY_COUPLED variant.
#extension GL_GOOGLE_include_directive : require
#include "rigid_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer Pos { vec4 sp[]; };
layout(std430, binding = 2) readonly buffer Vel { vec4 sv[]; };
layout(std430, binding = 3) readonly buffer Body { uint sbody[]; };
layout(std430, binding = 4) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 5) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 6) readonly buffer Index { uint sorted_index[]; };
layout(std430, binding = 7) readonly buffer Bodies { eddy_rigid_body bodies[]; };
layout(std430, binding = 8) writeonly buffer Force { vec4 force[]; };
layout(std430, binding = 9) writeonly buffer Torque { vec4 torque[]; };
layout(std430, binding = 10) readonly buffer HistIdIn { uint hid_in[]; };     // RIGID_SLOTS per particle (particle order)
layout(std430, binding = 11) readonly buffer HistXiIn { vec4 hxi_in[]; };
layout(std430, binding = 12) writeonly buffer HistIdOut { uint hid_out[]; };
layout(std430, binding = 13) writeonly buffer HistXiOut { vec4 hxi_out[]; };
layout(std430, binding = 14) readonly buffer Ids { uint ids[]; };             // particle order
#ifdef EDDY_COUPLED
layout(std430, binding = 15) readonly buffer External { vec4 ext_force[]; }; // N per particle (particle order)
#endif

uint g_out, g_used;

vec3 rigid_recall(uint slot0, uint id)
{
    for (uint s = 0u; s < RIGID_SLOTS; s++) {
        uint h = hid_in[slot0 + s];
        if (h == RIGID_NO_CONTACT)
            break;
        if (h == id)
            return hxi_in[slot0 + s].xyz;
    }
    return vec3(0.0);
}

void rigid_remember(uint id, vec3 xi)
{
    if (g_used < RIGID_SLOTS && P.coeffs.w > 0.0) {
        hid_out[g_out + g_used] = id;
        hxi_out[g_out + g_used] = vec4(xi, 0.0);
        g_used++;
    }
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= RIGID_N)
        return;
    vec3 x = sp[i].xyz, v = sv[i].xyz, f = vec3(0.0);
    uint o = sorted_index[i];
    bool friction = P.coeffs.w > 0.0;
    uint slot0 = friction ? o * RIGID_SLOTS : 0u;
    g_out = slot0;
    g_used = 0u;
    uint me = sbody[i];
    bool granular = RIGID_GRANULAR;
    ivec3 dims = P.dims.xyz;
    ivec3 c = eddy_grid_cell(x, P.grid.xyz, P.grid.w, dims);
    for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) {
        ivec3 q = c + ivec3(dx, dy, dz);
        if (any(lessThan(q, ivec3(0))) || any(greaterThanEqual(q, dims)))
            continue;
        uint cell = eddy_grid_linear(q, dims);
        uint s = cell_start[cell];
        if (s == EDDY_GRID_EMPTY)
            continue;
        uint e = cell_end[cell];
        for (uint j = s; j < e; j++) {
            if (granular ? j == i : sbody[j] == me)
                continue;
            vec3 r = sp[j].xyz - x;
            if (dot(r, r) >= RIGID_D * RIGID_D)
                continue;
            uint key = friction ? ids[sorted_index[j]] : 0u;
            vec3 xi = friction ? rigid_recall(slot0, key) : vec3(0.0);
            f += rigid_contact(r, sv[j].xyz - v, RIGID_K, xi);
            rigid_remember(key, xi);
        }
    }
    f += rigid_walls(x, v, slot0);
    // The rest of this particle's slots: empty.
    if (friction && g_used < RIGID_SLOTS)
        hid_out[slot0 + g_used] = RIGID_NO_CONTACT;
#ifdef EDDY_COUPLED
    f += ext_force[o].xyz;
#endif
    force[o] = vec4(f, 0.0);
    torque[o] = granular ? vec4(0.0) : vec4(cross(x - bodies[me].x.xyz, f), 0.0);
}
