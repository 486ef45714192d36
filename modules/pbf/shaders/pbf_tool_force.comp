#version 450
// PBF tool forces per particle (cell order), summed by the reductions after:
// - contact push: the particle's moves out of the tool this substep (ghost
//   corrections and projections), as a force on the tool: -m dx / dt^2;
// - adhesion (seed 004 eqs. 12-13): K (m/rho) W_adh(r) towards the particle,
//   W_adh = C_d (x^2 - x^3), x = (r - R) / Q in [0, 1], C_d = 27/4 so that
//   the peak is 1 (the seed's x^3 - x^2 with the sign taken as attraction);
// - damping (eq. 14): k (v_j - v_tool) over the particles in contact
//   (r < R + s), the sign making it resist relative motion.
#extension GL_GOOGLE_include_directive : require
#include "pbf_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer Tool { eddy_pbf_tool T; };
layout(std430, binding = 2) readonly buffer Pos { vec4 sp[]; };
layout(std430, binding = 3) readonly buffer Vel { vec4 sv[]; };
layout(std430, binding = 4) readonly buffer Mass { float smass[]; };
layout(std430, binding = 5) readonly buffer Lambda { vec4 lambda[]; };
layout(std430, binding = 6) buffer ToolPush { vec4 tpush[]; };
layout(std430, binding = 7) writeonly buffer ToolAdh { vec4 tadh[]; };
layout(std430, binding = 8) writeonly buffer ToolDamp { vec4 tdamp[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= PBF_COUNT)
        return;
    float m = smass[i], dt = PBF_DT, R = PBF_TOOL_R, Q = P.tool.z;
    tpush[i] = vec4(-m * tpush[i].xyz / (dt * dt), 0.0);
    vec3 d = sp[i].xyz - T.centre.xyz;
    float r = length(d), rho = lambda[i].z;
    vec3 adh = vec3(0.0), damp = vec3(0.0);
    float x = (r - R) / Q;
    if (r > 0.0 && x >= 0.0 && x <= 1.0 && rho > 0.0)
        adh = P.tool.y * (m / rho) * 6.75 * (x * x - x * x * x) * (d / r);
    if (r < R + PBF_WALL_S)
        damp = P.tool.w * (sv[i].xyz - T.velocity.xyz);
    tadh[i] = vec4(adh, 0.0);
    tdamp[i] = vec4(damp, 0.0);
}
