/* Static solids shared by the particle modules: one layout for C and
 * GLSL (std430, 48 bytes). Scene files list them under "solids"; modules get
 * them in eddy_system_ctx and collide particles with shaders/solids.glsl.
 * Every solid is the region where its signed distance is negative. */
/* (engine/include/eddy: found by C as "eddy/eddy_solids.h", by glslc through -I.) */
#ifndef EDDY_SOLIDS_H
#define EDDY_SOLIDS_H

#define EDDY_SOLID_PLANE 1u   /* a.xyz a point, b.xyz unit normal pointing out of the solid */
#define EDDY_SOLID_SPHERE 2u  /* a.xyz centre, a.w radius */
#define EDDY_SOLID_CAPSULE 3u /* a.xyz end 0, a.w radius, b.xyz end 1 */
#define EDDY_SOLID_GLASS 4u   /* open cylinder with a bottom: a.xyz centre of the inner bottom,
                                 a.w inner radius, b.xyz unit axis (bottom to rim), b.w inner
                                 height; c.x wall and bottom thickness (all m) */

#if defined(VULKAN) || defined(GL_SPIRV)
struct EddySolid {
    vec4 a;
    vec4 b;
    vec4 c;      /* c.x thickness; c.w the type as float bits */
};
#else
#include <stdint.h>
typedef struct eddy_solid {
    float a[4];
    float b[4];
    float c[3];
    uint32_t type;
} eddy_solid;
#endif

#endif
