/* File outputs (no Vulkan): VTK particles, .pvd series, atomic file writes. */
#ifndef EDDY_OUTPUT_H
#define EDDY_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Creates path and its parents. 0 or -1 with a message in err. */
int eddy_mkdirs(const char *path, char *err, size_t err_cap);
/* Opens "<path>.tmp" for writing; eddy_atomic_close renames it to path. */
FILE *eddy_atomic_open(const char *path, char *tmp, size_t tmp_cap);
int eddy_atomic_close(FILE *f, const char *tmp, const char *path, char *err, size_t err_cap);

typedef struct eddy_vtp_particles {
    double time;           /* s, stored as the TimeValue field */
    uint32_t count;
    const float *position; /* vec4 per particle: xyz, radius */
    const float *velocity; /* vec4 per particle */
    const float *mass;     /* one per particle */
    const uint32_t *phase; /* one per particle */
} eddy_vtp_particles;

/* VTK XML PolyData with one vertex cell per particle and raw appended data. */
int eddy_write_vtp(const char *path, const eddy_vtp_particles *p, char *err, size_t err_cap);

typedef struct eddy_pvd_entry {
    double time;
    uint32_t part;
    const char *file; /* relative to the .pvd */
} eddy_pvd_entry;
int eddy_write_pvd(const char *path, const eddy_pvd_entry *entries, uint32_t count, char *err,
                   size_t err_cap);

#endif
