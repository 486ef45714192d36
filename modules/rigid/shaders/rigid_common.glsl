// Shared by the rigid passes: parameters, quaternions, the contact force.
#extension GL_GOOGLE_include_directive : require
#include "../rigid_params.h"
#include "grid.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Params { eddy_rigid_params P; };

#define RIGID_D (P.box_min.w)
#define RIGID_DT (P.box_max.w)
#define RIGID_K (P.gravity.w)
#define RIGID_ETA (P.coeffs.x)
#define RIGID_KT (P.coeffs.y)
#define RIGID_N (P.counts.x)
#define RIGID_BODIES (P.counts.y)
#define RIGID_GRANULAR (P.dims.w != 0)

// v rotated by the unit quaternion q (x, y, z, w): q v q*.
vec3 rigid_rotate(vec4 q, vec3 v)
{
    vec3 t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

#define RIGID_SLOTS 16u
#define RIGID_NO_CONTACT 0xffffffffu
#define RIGID_WALL_ID 0xfffffff0u

// Harada eqs. 10-13: the force on i from j at r = x_j - x_i, v = v_j - v_i,
// when |r| < d: spring -k (d - |r|) n, dashpot eta v, shear k_t v_t. With
// friction mu > 0 (Cundall and Strack; not in the chapter), also a
// tangential spring k_s xi on the contact's shear displacement xi (carried
// from the last substep, turned into the tangent plane, plus v_t dt), xi
// cut back so that |k_s xi| <= mu f_n (sliding). xi is in/out; the pair's
// two sides compute opposite values bit for bit.
// The force of a contact along unit n (towards the other side) with the
// overlap `overlap` (m, > 0).
vec3 rigid_contact_n(vec3 n, float overlap, vec3 v, float k, inout vec3 xi)
{
    float vn = dot(v, n);
    vec3 vt = v - vn * n;
    vec3 f = -k * overlap * n + RIGID_ETA * v + RIGID_KT * vt;
    float mu = P.coeffs.w;
    if (mu > 0.0) {
        float ks = (2.0 / 7.0) * k, fn = max(k * overlap - RIGID_ETA * vn, 0.0);
        xi = xi - dot(xi, n) * n + vt * RIGID_DT;
        float xl = length(xi), lim = mu * fn / ks;
        if (xl > lim)
            xi *= lim / xl;
        f += ks * xi;
    }
    return f;
}

vec3 rigid_contact(vec3 r, vec3 v, float k, inout vec3 xi)
{
    float d = RIGID_D, r2 = dot(r, r);
    if (r2 >= d * d || r2 == 0.0) {
        xi = vec3(0.0);
        return vec3(0.0);
    }
    float len = sqrt(r2);
    return rigid_contact_n(r / len, d - len, v, k, xi);
}

// The shear displacement remembered for the contact with `id` (0 if new).
vec3 rigid_recall(uint slot0, uint id);

// The box walls: each as a particle mirrored behind it, at rest; contact
// ids RIGID_WALL_ID + 0..5. Calls rigid_remember(id, xi) for every contact.
// The overlap is the signed distance's, d - 2 (distance to the wall), along
// the wall's normal: a particle whose centre is past the wall is pushed back
// in, harder the further it is (a mirror particle would be on the far side
// then and push it out).
void rigid_remember(uint id, vec3 xi);

vec3 rigid_walls(vec3 x, vec3 v, uint slot0)
{
    vec3 f = vec3(0.0);
    float d = RIGID_D, kw = P.coeffs.z;
    for (int a = 0; a < 3; a++) {
        float lo = x[a] - P.box_min[a], hi = P.box_max[a] - x[a];
        if (lo < 0.5 * d) {
            vec3 n = vec3(0.0), xi = rigid_recall(slot0, RIGID_WALL_ID + uint(2 * a));
            n[a] = -1.0;
            f += rigid_contact_n(n, d - 2.0 * lo, -v, kw, xi);
            rigid_remember(RIGID_WALL_ID + uint(2 * a), xi);
        }
        if (hi < 0.5 * d) {
            vec3 n = vec3(0.0), xi = rigid_recall(slot0, RIGID_WALL_ID + uint(2 * a + 1));
            n[a] = 1.0;
            f += rigid_contact_n(n, d - 2.0 * hi, -v, kw, xi);
            rigid_remember(RIGID_WALL_ID + uint(2 * a + 1), xi);
        }
    }
    return f;
}
