/* eddy_api.h: EDDY_API marks the functions eddy's libraries export. They
 * are built with hidden visibility, so everything else in them (internals,
 * glslang, SPIRV-Tools, volk) stays private and cannot clash with a host's
 * own copies. Included by every public header. */
#ifndef EDDY_API_H
#define EDDY_API_H

#if defined(__GNUC__) || defined(__clang__)
#define EDDY_API __attribute__((visibility("default")))
#else
#define EDDY_API
#endif

#endif
