/* The mesh loaders' error message (mesh.c, the tetmesh*.c readers): pure host code,
 * no engine; header-only so the unit tests and fuzz harnesses that build
 * one loader alone need nothing else. */
#ifndef EDDY_MESH_ERR_H
#define EDDY_MESH_ERR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

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

#endif
