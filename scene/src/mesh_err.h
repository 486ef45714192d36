/* The mesh loaders' error message (mesh.c, the tetmesh*.c readers): pure host code,
 * no engine; header-only so the unit tests and fuzz harnesses that build
 * one loader alone need nothing else. */
#ifndef EDDY_MESH_ERR_H
#define EDDY_MESH_ERR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Writes the message into err (when there is room) and returns -1, so a
 * loader can `return failf(...)`. */
static inline int failf(char *err, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static inline int failf(char *err, size_t n, const char *fmt, ...)
{
    if (err && n) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* A caller's sized desc (EDDY_SIZED) into `out` (this build's layout of
 * `size` bytes), or -1 with desc.size's message in err: the loaders take no
 * engine, so they check as eddy_desc_read does. NULL is the defaults (out
 * zeroed). */
static inline int mesh_desc_read(const void *desc, uint32_t size, const char *type, void *out, char *err, size_t n)
{
    memset(out, 0, size);
    if (!desc) {
        memcpy(out, &size, sizeof size); /* a sized struct of defaults */
        return 0;
    }
    uint32_t got = *(const uint32_t *)desc;
    if (got == size) {
        memcpy(out, desc, size);
        return 0;
    }
    return failf(err, n, "[desc.size] %s has struct_size %u: expected sizeof(%s) = %u (EDDY_SIZED(%s))", type, got,
                 type, size, type);
}

#endif
