/* Vector types for structs declared once for C and GLSL (std430): in GLSL
 * EDDY_V4 x EDDY_ARR4 is a vec4, in C a float[4]. Undefine EDDY_ARR4 after
 * the struct. */
#if defined(VULKAN) || defined(GL_SPIRV)
#define EDDY_V4 vec4
#define EDDY_I4 ivec4
#define EDDY_U4 uvec4
#define EDDY_ARR4
#else
#include <stdint.h>
#define EDDY_V4 float
#define EDDY_I4 int32_t
#define EDDY_U4 uint32_t
#define EDDY_ARR4 [4]
#endif
