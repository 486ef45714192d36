/* File outputs (no Vulkan): VTK particles, .pvd series, atomic file writes. */
#ifndef EDDY_OUTPUT_H
#define EDDY_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "eddy/eddy_module.h"
#include "eddy/eddy_output.h"

/* Longest names that become parts of file names, in bytes (refused, never
 * cut): scenes (the default output folder out/<scene>), particle sets and
 * systems (<set>_NNNNNN.vtp, ports_<system>.csv, ...). */
#define EDDY_SCENE_NAME_MAX 127
#define EDDY_NAME_MAX 63
/* Longest output folder path, in bytes. */
#define EDDY_OUT_DIR_MAX 2047

/* Why `name` cannot be part of a file name, or NULL when it can: it must be
 * non-empty, at most max_bytes long, valid UTF-8, one path component (no '/'
 * or '\\', not "." and no ".."), without control characters. */
const char *eddy_name_problem(const char *name, size_t max_bytes);

/* Untrusted text as a message may show it: printable ASCII as is, other
 * bytes as \xNN, cut with "..." to fit cap. */
void eddy_printable(const char *text, size_t len, char *out, size_t cap);

/* Makes `dir` ready for a run: creates it (and its parents) when missing;
 * an existing folder must be empty or carry the marker file EDDY_OUT_MARKER
 * of an earlier run, whose output files (.vtp .pvd .png .ply .csv .jsonl
 * .tmp .h5 at its top level) are then removed, so that no file of that run stays
 * beside the new one's. Writes the marker. 0; or -2 with a message in err
 * when the folder holds files of something else; -1 for other failures. */
#define EDDY_OUT_MARKER ".eddy_output"
int eddy_prepare_out_dir(const char *dir, char *err, size_t err_cap);

/* Creates path and its parents. 0 or -1 with a message in err. */
int eddy_mkdirs(const char *path, char *err, size_t err_cap);
/* Opens "<path>.tmp" for writing (NULL, errno ENAMETOOLONG, when that does
 * not fit tmp_cap); eddy_atomic_close renames it to path. */
FILE *eddy_atomic_open(const char *path, char *tmp, size_t tmp_cap);
int eddy_atomic_close(FILE *f, const char *tmp, const char *path, char *err, size_t err_cap);

typedef struct eddy_vtp_particles {
    double time;           /* s, stored as the TimeValue field */
    uint32_t count;
    const float *position; /* vec4 per particle: xyz, radius */
    const float *velocity; /* vec4 per particle */
    const float *mass;     /* one per particle */
    const uint32_t *phase; /* one per particle */
    const uint32_t *id;    /* one per particle: its index in the whole set; NULL = its index here */
} eddy_vtp_particles;

/* VTK XML PolyData with one vertex cell per particle and raw appended data. */
int eddy_write_vtp(const char *path, const eddy_vtp_particles *p, char *err, size_t err_cap);
/* A parallel PolyData file (.pvtp) naming the pieces (.vtp files beside
 * it, each written by eddy_write_vtp) that make one frame. */
int eddy_write_pvtp(const char *path, double time, const char *const *pieces, uint32_t count, char *err,
                    size_t err_cap);

/* eddy_pvd_entry and eddy_write_pvd: eddy_module.h (modules write series too). */

#endif
