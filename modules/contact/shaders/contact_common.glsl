// Shared by the contact passes: the pair force (Harada, GPU Gems 3 ch. 29,
// eqs. 10-13, with the contact distance the sum of the two radii).
#extension GL_GOOGLE_include_directive : require
#include "../contact_params.h"
#include "grid.glsl"

// The force on i from j at r = x_j - x_i, v = v_j - v_i, when |r| < d =
// r_i + r_j: spring -k (d - |r|) n, dashpot eta v, shear k_t v_t. The other
// side computes r, v negated and so the opposite force bit for bit.
vec3 contact_pair(vec3 r, vec3 v, float d, vec4 k)
{
    float r2 = dot(r, r);
    if (r2 >= d * d || r2 == 0.0)
        return vec3(0.0);
    float len = sqrt(r2);
    vec3 n = r / len;
    vec3 vt = v - dot(v, n) * n;
    return -k.x * (d - len) * n + k.y * v + k.z * vt;
}
