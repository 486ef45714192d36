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

/* Every desc struct a host or module passes to eddy begins with
 * `uint32_t struct_size`, the sizeof of the struct as the caller was
 * compiled with it: eddy reads that many bytes, so a struct grown at its
 * end in a later minor version stays compatible (the fields an older
 * caller lacks take their zero defaults), and a wrong or missing size is
 * refused with a message (desc.size) instead of misread. Start each
 * initializer with it:
 *     eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 64 });
 * Structs in arrays (eddy_binding, eddy_host_use, eddy_semaphore_wait, ...)
 * and the structs eddy returns carry no size: they never change within a
 * major version. */
#define EDDY_SIZED(type) .struct_size = (uint32_t)sizeof(type)

#endif
