#version 450
// volume.cast, one thread per pixel: the view ray enters the mesh at the
// nearest boundary face facing it (the BVH), steps from tet to tet through
// the exit face of the smallest positive lambda (seed 003 section 5.1),
// composites each segment front to back from the table (scalars at entry
// and exit from the tet's gradient), and after leaving through a boundary
// face looks for the next boundary face along the ray, as often as the
// mesh needs. Guards: at most P.table.z tets a ray, and EDDY_VOLUME_STALL
// zero-length segments in a row end it (rays along edges of degenerate
// tets); NaN never reaches a pixel (comparisons are written so NaN fails).
// Writes premultiplied colour and opacity, and the distance along the ray
// to the first hit (+inf: none).
#extension GL_GOOGLE_include_directive : require
#define VOLUME_TF
layout(std430, binding = 9) readonly buffer Tf { vec4 tf[]; };
#include "volume.glsl"

layout(local_size_x = 64) in;
layout(std430, binding = 1) readonly buffer Pos { vec4 position[]; };
layout(std430, binding = 2) readonly buffer Tets { uint tets[]; };
layout(std430, binding = 3) readonly buffer Neighbours { uint neighbours[]; };
layout(std430, binding = 4) readonly buffer Boundary { uint boundary[]; };
layout(std430, binding = 5) readonly buffer Planes { vec4 planes[]; };
layout(std430, binding = 6) readonly buffer Grad { vec4 gradient[]; };
layout(std430, binding = 7) readonly buffer LeafFace { uint leaf_face[]; };
layout(std430, binding = 8) readonly buffer Nodes { vec4 nodes[]; };
layout(std430, binding = 10) buffer Guards { uint guards[]; }; // steps hit, stalled
layout(binding = 11) uniform sampler3D table;
layout(binding = 12, rgba32f) uniform writeonly image2D color_out;
layout(binding = 13, r32f) uniform writeonly image2D depth_out;

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

void face_corners(uint id, out vec3 c0, out vec3 c1, out vec3 c2)
{
    uint t = id >> 2;
    uvec3 fv = FACE_VERTEX[id & 3u];
    c0 = position[tets[4u * t + fv.x]].xyz;
    c1 = position[tets[4u * t + fv.y]].xyz;
    c2 = position[tets[4u * t + fv.z]].xyz;
}

// The watertight ray-triangle test of Woop, Benthin and Wald (2013): the
// corners in a frame sheared so the ray is the z axis, three edge functions
// that two triangles sharing an edge compute from the same two corners
// (exactly opposite: `precise` keeps the compiler from fusing them
// differently), edges and corners inside, so a ray through a shared edge or
// vertex never slips between triangles. Any sign of t.
bool tri_hit(vec3 dir, vec3 eye, vec3 c0, vec3 c1, vec3 c2, out float t)
{
    t = 0.0;
    vec3 ad = abs(dir);
    uint kz = ad.x > ad.y ? (ad.x > ad.z ? 0u : 2u) : (ad.y > ad.z ? 1u : 2u);
    uint kx = (kz + 1u) % 3u, ky = (kx + 1u) % 3u;
    if (dir[kz] < 0.0) {
        uint s = kx;
        kx = ky;
        ky = s;
    }
    precise float sx = dir[kx] / dir[kz], sy = dir[ky] / dir[kz], sz = 1.0 / dir[kz];
    precise vec3 a0 = c0 - eye, a1 = c1 - eye, a2 = c2 - eye;
    precise vec3 px = vec3(a0[kx] - sx * a0[kz], a1[kx] - sx * a1[kz], a2[kx] - sx * a2[kz]);
    precise vec3 py = vec3(a0[ky] - sy * a0[kz], a1[ky] - sy * a1[kz], a2[ky] - sy * a2[kz]);
    precise vec3 pz = sz * vec3(a0[kz], a1[kz], a2[kz]);
    precise float u = px.z * py.y - py.z * px.y;
    precise float v = px.x * py.z - py.x * px.z;
    precise float w = px.y * py.x - py.y * px.x;
    if ((u < 0.0 || v < 0.0 || w < 0.0) && (u > 0.0 || v > 0.0 || w > 0.0))
        return false;
    precise float det = u + v + w;
    if (det == 0.0)
        return false;
    t = (u * pz.x + v * pz.y + w * pz.z) / det;
    return t == t;
}

// The first boundary face the ray enters after (tmin, lo): the smallest
// (t, face) with t > tmin, or t == tmin and face >= lo, among the faces
// whose outward normal is against the ray.
uint enter(vec3 eye, vec3 dir, float tmin, uint lo, out float t_out)
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
            vec4 pl = planes[id];
            vec3 c0, c1, c2;
            float t;
            face_corners(id, c0, c1, c2);
            if (dot(dir, pl.xyz) < 0.0 && tri_hit(dir, eye, c0, c1, c2, t) && (t > tmin || (t == tmin && f >= lo)) &&
                (t < best_t || (t == best_t && f < best))) {
                best_t = t;
                best = f;
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

vec4 piece(float sf, float sb, float d)
{
    if (sf == sb || (P.table.w & EDDY_VOLUME_POINT_SAMPLING) != 0u) {
        vec3 col;
        float tau;
        tf_eval(0.5 * (sf + sb), col, tau);
        float a = 1.0 - exp(-tau * d);
        return vec4(col * a, a);
    }
    float span = P.range.y - P.range.x, ns = float(P.table.x), nd = float(P.table.y);
    float u = (0.5 + clamp((sf - P.range.x) / span, 0.0, 1.0) * (ns - 1.0)) / ns;
    float v = (0.5 + clamp((sb - P.range.x) / span, 0.0, 1.0) * (ns - 1.0)) / ns;
    float w = (0.5 + clamp(d / P.range.z, 0.0, 1.0) * (nd - 1.0)) / nd;
    vec4 t = textureLod(table, vec3(u, v, w), 0.0);
    float a = 1.0 - exp(-t.w);
    return vec4(t.xyz * a, a);
}

void composite(float sf, float sb, float d, inout vec4 acc)
{
    float pieces = d > P.range.z ? ceil(d / P.range.z) : 1.0;
    pieces = pieces < 1024.0 ? pieces : 1024.0;
    for (float q = 0.0; q < pieces; q += 1.0) {
        float s0 = sf + (sb - sf) * (q / pieces), s1 = sf + (sb - sf) * ((q + 1.0) / pieces);
        vec4 c = piece(s0, s1, d / pieces);
        acc += (1.0 - acc.w) * c;
    }
}

void main()
{
    uint w = uint(P.right.w), h = uint(P.up.w), pix = gl_GlobalInvocationID.x;
    if (pix >= w * h)
        return;
    uint px = pix % w, py = pix / w;
    vec3 eye = P.eye.xyz, dir = view_ray(float(px), float(py));
    vec4 acc = vec4(0.0);
    float first = 1.0 / 0.0, t;
    uint steps = 0u, stall = 0u;
    uint f = enter(eye, dir, 0.0, EDDY_VOLUME_NONE, t);
    bool done = false;
    while (f != EDDY_VOLUME_NONE && !done) {
        first = first < t ? first : t;
        uint id = boundary[f], tet = id >> 2, fin = id & 3u;
        float tc = t, tx = t;
        for (;;) {
            if (++steps > P.table.z) {
                atomicAdd(guards[0], 1u);
                done = true;
                break;
            }
            float best = BIG;
            uint ex = 4u;
            for (uint i = 0u; i < 4u; i++) {
                vec4 pl = planes[4u * tet + i];
                float dn = dot(dir, pl.xyz);
                if (i == fin || !(dn > 0.0))
                    continue;
                float lam = (pl.w - dot(pl.xyz, eye)) / dn;
                if (lam < best) {
                    best = lam;
                    ex = i;
                }
            }
            tx = ex < 4u && best > tc ? best : tc;
            vec4 g = gradient[tet];
            float sf = dot(g.xyz, eye + tc * dir) + g.w, sb = dot(g.xyz, eye + tx * dir) + g.w;
            if (tx > tc) {
                composite(sf, sb, tx - tc, acc);
                stall = 0u;
            } else if (++stall > EDDY_VOLUME_STALL) {
                atomicAdd(guards[1], 1u);
                done = true;
                break;
            }
            if (acc.w >= P.bounds_min.w) {
                done = true;
                break;
            }
            uint nb = ex < 4u ? neighbours[4u * tet + ex] : EDDY_VOLUME_BOUNDARY;
            if (nb == EDDY_VOLUME_BOUNDARY)
                break;
            tet = nb >> 2;
            fin = nb & 3u;
            tc = tx;
        }
        if (!done)
            f = enter(eye, dir, tx, tx == t ? f + 1u : 0u, t);
    }
    imageStore(color_out, ivec2(px, py), acc);
    imageStore(depth_out, ivec2(px, py), vec4(first));
}
