// The body of volume.cast (volume_cast.comp) and of its point-sampling
// variant (volume_cast_point.comp).
layout(local_size_x = 64) in;
layout(std430, binding = 1) readonly buffer Pos { vec4 position[]; };
layout(std430, binding = 2) readonly buffer Tets { uint tets[]; };
layout(binding = 3, r32ui) uniform readonly uimage2D neighbours;
layout(std430, binding = 4) readonly buffer Boundary { uint boundary[]; };
layout(binding = 5, rgba32f) uniform readonly image2D planes;
layout(binding = 6, rgba32f) uniform readonly image2D gradient;
layout(std430, binding = 7) readonly buffer LeafFace { uint leaf_face[]; };
layout(std430, binding = 8) readonly buffer Nodes { vec4 nodes[]; };
layout(std430, binding = 9) readonly buffer Tf { vec4 tf[]; };
layout(std430, binding = 10) buffer Guards { uint guards[]; }; // steps hit, stalled, pixels past the slots, ~(the eye's tet)
layout(binding = 11) uniform sampler3D table;
layout(binding = 12, rgba32f) uniform writeonly image2D color_out;
layout(binding = 13, r32f) uniform writeonly image2D depth_out;
layout(std430, binding = 14) readonly buffer Hits { uint hits[]; };
layout(std430, binding = 15) readonly buffer Entries { uvec2 entries[]; };
#ifdef VOLUME_POINT_SAMPLING
#define VOLUME_TF
#endif
#define VOLUME_FACES
#define VOLUME_PRIVATE_PARAMS
#include "volume.glsl"

const float BIG = 3.402823466e38;

uint depth_of_tree()
{
    return uint(findMSB(P.counts.z));
}

// Whether node's leftmost leaf holds a face (padding subtrees hold none).
bool node_used(uint node)
{
    uint level = uint(findMSB(node));
    return (node << (depth_of_tree() - level)) - P.counts.z < P.counts.y;
}

bool box_hit(vec3 eye, vec3 inv, uint node, float tmin, float tmax)
{
    vec3 t0 = (nodes[2u * node].xyz - eye) * inv, t1 = (nodes[2u * node + 1u].xyz - eye) * inv;
    float tn = -BIG, tf_ = BIG;
    for (uint a = 0u; a < 3u; a++) {
        float lo = t0[a] < t1[a] ? t0[a] : t1[a], hi = t0[a] < t1[a] ? t1[a] : t0[a];
        tn = lo > tn ? lo : tn;
        tf_ = hi < tf_ ? hi : tf_;
    }
    return tn <= tf_ && tf_ >= tmin && tn <= tmax;
}

// The first boundary face the ray enters after (tmin, lo): the smallest
// (t, id) with t > tmin, or t == tmin and id >= lo, among the faces whose
// outward normal is against the ray (id: tet << 2 | face, unique).
uint enter_bvh(vec3 eye, vec3 dir, float tmin, uint lo, out float t_out)
{
    vec3 inv;
    for (uint a = 0u; a < 3u; a++)
        inv[a] = 1.0 / (abs(dir[a]) > 1e-20 ? dir[a] : (dir[a] >= 0.0 ? 1e-20 : -1e-20));
    uint stack[EDDY_VOLUME_STACK];
    uint sp = 0u, best = EDDY_VOLUME_NONE;
    float best_t = BIG;
    stack[sp++] = 1u;
    while (sp > 0u) {
        uint node = stack[--sp];
        if (node >= P.counts.z) {
            uint f = leaf_face[node - P.counts.z], id = boundary[f];
            vec4 pl = imageLoad(planes, texel_of(id));
            vec3 c0, c1, c2;
            float t;
            face_corners(id, c0, c1, c2);
            if (dot(dir, pl.xyz) < 0.0 && tri_hit(dir, eye, c0, c1, c2, t) && (t > tmin || (t == tmin && id >= lo)) &&
                (t < best_t || (t == best_t && id < best))) {
                best_t = t;
                best = id;
            }
            continue;
        }
        for (uint c = 2u * node + 2u; c-- > 2u * node;)
            if (node_used(c) && box_hit(eye, inv, c, tmin, best_t))
                stack[sp++] = c;
    }
    t_out = best_t;
    return best;
}

// The same from the pixel's list of entries (volume.raster), when it holds
// all n of them; else (and with no lists at all) from the BVH.
uint enter(uint pix, uint n, vec3 eye, vec3 dir, float tmin, uint lo, out float t_out)
{
    uint slots = P.lists.x;
    if (n > slots || slots == 0u)
        return enter_bvh(eye, dir, tmin, lo, t_out);
    uint best = EDDY_VOLUME_NONE;
    float best_t = BIG;
    for (uint k = 0u; k < n; k++) {
        uvec2 e = entries[pix * slots + k];
        float t = uintBitsToFloat(e.x);
        if ((t > tmin || (t == tmin && e.y >= lo)) && (t < best_t || (t == best_t && e.y < best))) {
            best_t = t;
            best = e.y;
        }
    }
    t_out = best_t;
    return best;
}

// The table's coordinates of (s_f, s_b, d): texel centres from lo, span
// apart at the ends of the range and of the longest segment (main sets them).
vec3 table_inv, table_lo, table_span;

// One piece of a segment, premultiplied. Lavapipe runs every branch's code
// whether or not a lane takes it, so the two ways are two kernels, and a
// segment with equal front and back scalars reads the table too (its
// diagonal texels are that scalar's transfer function, integrated exactly).
vec4 piece(float sf, float sb, float d)
{
#ifdef VOLUME_POINT_SAMPLING
    vec3 col;
    float tau;
    tf_eval(0.5 * (sf + sb), col, tau);
    float a = 1.0 - exp(-tau * d);
    return vec4(col * a, a);
#else
    vec3 x = clamp((vec3(sf, sb, d) - vec3(P.range.xx, 0.0)) * table_inv, 0.0, 1.0);
    vec4 t = textureLod(table, table_lo + x * table_span, 0.0);
    float a = 1.0 - exp(-t.w);
    return vec4(t.xyz * a, a);
#endif
}

void composite(float sf, float sb, float d, inout vec4 acc)
{
    float pieces = d > P.range.z ? ceil(d * table_inv.z) : 1.0;
    pieces = pieces < float(EDDY_VOLUME_MAX_PIECES) ? pieces : float(EDDY_VOLUME_MAX_PIECES);
    float inv = 1.0 / pieces;
    for (float q = 0.0; q < pieces; q += 1.0) {
        float s0 = sf + (sb - sf) * (q * inv), s1 = sf + (sb - sf) * ((q + 1.0) * inv);
        vec4 c = piece(s0, s1, d * inv);
        acc += (1.0 - acc.w) * c;
    }
}

void main()
{
    P = P_buffer;
    vec3 texels = vec3(P.table.xxy);
    table_inv = vec3(1.0 / (P.range.y - P.range.x), 1.0 / (P.range.y - P.range.x), 1.0 / P.range.z);
    table_lo = 0.5 / texels;
    table_span = (texels - 1.0) / texels;
    uint w = uint(P.right.w), h = uint(P.up.w), g = gl_GlobalInvocationID.x;
    uint tile = g >> 6, l = g & 63u, tw = (w + 7u) >> 3;
    uint px = (tile % tw) * 8u + ((l >> 3) & 1u) * 4u + (l & 3u);
    uint py = (tile / tw) * 8u + (l >> 4) * 2u + ((l >> 2) & 1u);
    if (px >= w || py >= h)
        return;
    uint pix = py * w + px;
    vec3 eye = P.eye.xyz, dir = view_ray(float(px), float(py));
    vec4 acc = vec4(0.0);
    float first = 1.0 / 0.0, t;
    uint steps = 0u, stall = 0u, guard = 0u;
    // A ray from an eye inside the mesh starts at t = 0 in the tet that
    // holds it (volume.geometry), with no entry face; later entries are
    // boundary faces as from outside.
    uint n = hits[pix], inside = ~guards[3], f;
    if (inside != EDDY_VOLUME_NONE) {
        f = inside << 2;
        t = 0.0;
    } else
        f = enter(pix, n, eye, dir, 0.0, EDDY_VOLUME_NONE, t);
    bool done = false;
    while (f != EDDY_VOLUME_NONE && !done) {
        first = first < t ? first : t;
        uint tet = f >> 2, fin = inside != EDDY_VOLUME_NONE ? 4u : f & 3u;
        float tc = t, tx = t;
        for (;;) {
            if (++steps > P.table.z) {
                guard = 1u;
                done = true;
                break;
            }
            float best = BIG;
            uint ex = 4u;
            // the faces but the entry's (a tie goes to the lowest face)
            for (uint i = 0u; i < 4u; i++) {
                if (i == fin)
                    continue;
                vec4 pl = imageLoad(planes, texel_of(4u * tet + i));
                float dn = dot(dir, pl.xyz);
                if (!(dn > 0.0))
                    continue;
                float lam = (pl.w - dot(pl.xyz, eye)) / dn;
                if (lam < best || (lam == best && i < ex)) {
                    best = lam;
                    ex = i;
                }
            }
            tx = ex < 4u && best > tc ? best : tc;
            vec4 g = imageLoad(gradient, texel_of(tet));
            float sf = dot(g.xyz, eye + tc * dir) + g.w, sb = dot(g.xyz, eye + tx * dir) + g.w;
            if (tx > tc) {
                composite(sf, sb, tx - tc, acc);
                stall = 0u;
            } else if (++stall > EDDY_VOLUME_STALL) {
                guard = 2u;
                done = true;
                break;
            }
            if (acc.w >= P.bounds_min.w) {
                done = true;
                break;
            }
            uint nb = ex < 4u ? imageLoad(neighbours, texel_of(4u * tet + ex)).x : EDDY_VOLUME_BOUNDARY;
            if (nb == EDDY_VOLUME_BOUNDARY)
                break;
            tet = nb >> 2;
            fin = nb & 3u;
            tc = tx;
        }
        if (!done)
            f = enter(pix, n, eye, dir, tx, tx == t && inside == EDDY_VOLUME_NONE ? f + 1u : 0u, t);
        inside = EDDY_VOLUME_NONE;
    }
    // counted here, not in the loop: lavapipe runs a branch's code whether
    // or not a lane takes it
    if (guard != 0u)
        atomicAdd(guards[guard - 1u], 1u);
    if (n > P.lists.x || P.lists.x == 0u)
        atomicAdd(guards[2], 1u);
#ifdef VOLUME_POINT_SAMPLING
    // never taken (the table has 2 texels a side or more): it keeps the
    // table in this kernel's bindings, so both kernels take one pass layout
    if (P.table.x == 0u)
        acc += textureLod(table, vec3(0.0), 0.0);
#endif
    imageStore(color_out, ivec2(px, py), acc);
    imageStore(depth_out, ivec2(px, py), vec4(first));
}
