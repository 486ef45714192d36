#version 450
// volume.cast with point sampling: each segment (cut into pieces no longer
// than the table's longest) takes the transfer function at its middle,
// 1 - exp(-tau d), instead of the pre-integrated table; for comparison
// (the volume system's point_sampling).
#extension GL_GOOGLE_include_directive : require
#define VOLUME_POINT_SAMPLING
#include "volume_cast.glsl"
