/* The few HDF5 operations a checkpoint needs (checkpoint_h5.c), so that
 * the rest of the scene never includes hdf5.h: two-dimensional datasets
 * (rows x columns of one numeric type, with a "unit" attribute, chunked with
 * HDF5's Fletcher32 checksum), scalar attributes on groups, and groups.
 * Reads are exact: a dataset whose type, rank or extent differs from what
 * the caller expects is refused before a byte is read, so a hostile file
 * never sizes an allocation. HDF5's own error printing is off while a file
 * is open (and restored after): every failure becomes one message in
 * h->err. */
#ifndef EDDY_CHECKPOINT_H5_H
#define EDDY_CHECKPOINT_H5_H

#include "eddy/eddy_module.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ck_h5 {
    int64_t file;     /* hid_t; 0 when closed */
    bool writing;
    char err[512];    /* the first failure */
    /* HDF5's error printer while the file is open (restored on close). */
    void *saved_fn, *saved_data;
} ck_h5;

/* A chunk of a checksummed dataset holds at most this many bytes (a row
 * never more): big enough to write fast, small enough that a
 * reader's chunk cache stays small. */
#define CK_CHUNK_BYTES (1u << 20)

/* The user block at the file's start that holds eddy's seal (bytes). */
#define CK_USERBLOCK 512

/* After a file is closed: its seal, the CRC-32 of the whole file (the
 * seal's CRC field read as zeros) and its length, written into the user
 * block. ck_open checks it
 * before HDF5 reads a byte (ck_check_seal): a truncated, extended or
 * damaged file is refused by eddy, not parsed by libhdf5. false with the
 * reason in err. */
bool ck_seal(const char *path, char *err, size_t cap);
bool ck_check_seal(const char *path, char *err, size_t cap);

/* The unsigned little-endian integer of `bytes` (1..8) bytes at p: how the
 * seal and HDF5's file format store numbers. */
uint64_t ck_le(const unsigned char *p, int bytes);

/* The file's HDF5 structure, walked by eddy before libhdf5 parses it
 * (checkpoint_walk.c): the superblock, object headers, groups and chunk
 * indexes eddy writes, every address and length inside the file, each
 * object reached once. false with the reason in err for anything else. */
bool ck_walk(const char *path, char *err, size_t cap);

/* Bytes of one value of t (0 for an unknown type). */
size_t ck_type_size(eddy_state_type t);
const char *ck_type_name(eddy_state_type t);

/* Creates (truncates) path for writing, or opens it read-only. */
bool ck_create(ck_h5 *h, const char *path);
bool ck_open(ck_h5 *h, const char *path);
/* Closes; for a file being written, flushes it first. false after a failure
 * (h->err says which). */
bool ck_close(ck_h5 *h);

/* Creates the group at path (its parents first when missing). */
bool ck_group(ck_h5 *h, const char *path);
bool ck_exists(ck_h5 *h, const char *path);
/* rows x cols values of type t (cols >= 1); rows may be 0. */
bool ck_write(ck_h5 *h, const char *path, eddy_state_type t, uint64_t rows, uint32_t cols, const void *data,
              const char *unit);
/* Reads exactly rows x cols values of type t into data; refused (with the
 * reason in h->err) when the dataset is missing or has another type or
 * extent. */
bool ck_read(ck_h5 *h, const char *path, eddy_state_type t, uint64_t rows, uint32_t cols, void *data);
/* The extent of a two-dimensional dataset (false when missing, not 2-D, or
 * larger than the storage the file holds for it). */
bool ck_extent(ck_h5 *h, const char *path, uint64_t *rows, uint64_t *cols);

/* Attributes of the object at obj ("/" for the file). */
bool ck_attr_u64(ck_h5 *h, const char *obj, const char *name, uint64_t v);
bool ck_attr_f64(ck_h5 *h, const char *obj, const char *name, double v);
bool ck_attr_str(ck_h5 *h, const char *obj, const char *name, const char *v);
bool ck_get_u64(ck_h5 *h, const char *obj, const char *name, uint64_t *v);
bool ck_get_f64(ck_h5 *h, const char *obj, const char *name, double *v);
/* At most cap - 1 bytes; a longer string is refused. */
bool ck_get_str(ck_h5 *h, const char *obj, const char *name, char *out, size_t cap);

#endif
