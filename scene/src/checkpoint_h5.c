/* HDF5 for checkpoints: see checkpoint_h5.h. */
#include "checkpoint_h5.h"

#include <hdf5.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

static bool fail(ck_h5 *h, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static bool fail(ck_h5 *h, const char *fmt, ...)
{
    if (h->err[0])
        return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->err, sizeof h->err, fmt, ap);
    va_end(ap);
    return false;
}

size_t ck_type_size(eddy_state_type t)
{
    switch (t) {
    case EDDY_STATE_F32: case EDDY_STATE_U32: case EDDY_STATE_I32: return 4;
    case EDDY_STATE_F64: case EDDY_STATE_U64: return 8;
    case EDDY_STATE_U8: return 1;
    }
    return 0;
}

const char *ck_type_name(eddy_state_type t)
{
    switch (t) {
    case EDDY_STATE_F32: return "float32";
    case EDDY_STATE_U32: return "uint32";
    case EDDY_STATE_I32: return "int32";
    case EDDY_STATE_F64: return "float64";
    case EDDY_STATE_U64: return "uint64";
    case EDDY_STATE_U8: return "uint8";
    }
    return "unknown";
}

static hid_t native(eddy_state_type t)
{
    switch (t) {
    case EDDY_STATE_F32: return H5T_NATIVE_FLOAT;
    case EDDY_STATE_U32: return H5T_NATIVE_UINT32;
    case EDDY_STATE_I32: return H5T_NATIVE_INT32;
    case EDDY_STATE_F64: return H5T_NATIVE_DOUBLE;
    case EDDY_STATE_U64: return H5T_NATIVE_UINT64;
    case EDDY_STATE_U8: return H5T_NATIVE_UINT8;
    }
    return H5I_INVALID_HID;
}

/* Files carry little-endian IEEE types whatever the host: a checkpoint
 * moves between machines. */
static hid_t stored(eddy_state_type t)
{
    switch (t) {
    case EDDY_STATE_F32: return H5T_IEEE_F32LE;
    case EDDY_STATE_U32: return H5T_STD_U32LE;
    case EDDY_STATE_I32: return H5T_STD_I32LE;
    case EDDY_STATE_F64: return H5T_IEEE_F64LE;
    case EDDY_STATE_U64: return H5T_STD_U64LE;
    case EDDY_STATE_U8: return H5T_STD_U8LE;
    }
    return H5I_INVALID_HID;
}

static void quiet(ck_h5 *h)
{
    H5E_auto2_t fn = NULL;
    void *data = NULL;
    H5Eget_auto2(H5E_DEFAULT, &fn, &data);
    h->saved_fn = (void *)fn;
    h->saved_data = data;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static void unquiet(ck_h5 *h)
{
    H5Eset_auto2(H5E_DEFAULT, (H5E_auto2_t)h->saved_fn, h->saved_data);
}

/* The seal in the file's user block (HDF5 leaves its first CK_USERBLOCK
 * bytes to the application; h5py and h5dump skip them): "EDDYCKPT", the
 * seal's version, the CRC-32 (zlib) of the whole file read with these four
 * bytes as zeros, then the file's length, little-endian. */
#define CK_MAGIC "EDDYCKPT"
#define CK_SEAL_VERSION 1u
#define CK_CRC_AT 12

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

uint64_t ck_le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* The CRC-32 of all of f, its CRC field read as zeros, and its length
 * (false on a read error). */
static bool crc_of(FILE *f, uint64_t *crc, uint64_t *length)
{
    unsigned char buf[1 << 16];
    uLong c = crc32(0L, Z_NULL, 0);
    uint64_t n = 0;
    if (fseek(f, 0, SEEK_SET) != 0)
        return false;
    for (size_t got; (got = fread(buf, 1, sizeof buf, f)) > 0;) {
        for (uint64_t i = n; i < n + got && i < CK_CRC_AT + 4; i++)
            if (i >= CK_CRC_AT)
                buf[i - n] = 0;
        c = crc32(c, buf, (uInt)got);
        n += got;
    }
    *crc = c;
    *length = n;
    return !ferror(f);
}

bool ck_seal(const char *path, char *err, size_t cap)
{
    FILE *f = fopen(path, "r+b");
    uint64_t crc = 0, length = 0;
    struct stat st;
    unsigned char head[32] = { 0 };
    memcpy(head, CK_MAGIC, 8);
    put_le(head + 8, CK_SEAL_VERSION, 4);
    /* The length and version first: the CRC covers them. */
    bool ok = f && fstat(fileno(f), &st) == 0;
    put_le(head + 16, ok ? (uint64_t)st.st_size : 0, 8);
    ok = ok && fwrite(head, 1, sizeof head, f) == sizeof head && fflush(f) == 0 && crc_of(f, &crc, &length);
    put_le(head + CK_CRC_AT, crc, 4);
    ok = ok && fseek(f, CK_CRC_AT, SEEK_SET) == 0 && fwrite(head + CK_CRC_AT, 1, 4, f) == 4;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok)
        snprintf(err, cap, "cannot seal %s", path);
    return ok;
}

bool ck_check_seal(const char *path, char *err, size_t cap)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, cap, "not a regular file that can be read");
        return false;
    }
    FILE *f = fopen(path, "rb");
    unsigned char head[32];
    bool ok = f && fread(head, 1, sizeof head, f) == sizeof head && !memcmp(head, CK_MAGIC, 8);
    if (!ok) {
        if (f)
            fclose(f);
        snprintf(err, cap, "not an eddy checkpoint (no %s seal at its start)", CK_MAGIC);
        return false;
    }
    uint64_t crc = 0, length = 0;
    if (ck_le(head + 8, 4) > CK_SEAL_VERSION) {
        fclose(f);
        snprintf(err, cap, "sealed by a newer eddy (seal version %llu)", (unsigned long long)ck_le(head + 8, 4));
        return false;
    }
    /* The length first: a truncated file is named as such, and a length
     * that differs saves reading the rest. */
    if (ck_le(head + 16, 8) != (uint64_t)st.st_size) {
        fclose(f);
        snprintf(err, cap, "truncated or extended: %llu bytes, sealed at %llu", (unsigned long long)st.st_size,
                 (unsigned long long)ck_le(head + 16, 8));
        return false;
    }
    ok = crc_of(f, &crc, &length);
    fclose(f);
    if (!ok || crc != ck_le(head + CK_CRC_AT, 4) || length != (uint64_t)st.st_size) {
        snprintf(err, cap, "damaged: its CRC-32 does not match its seal");
        return false;
    }
    return true;
}

/* HDF5 started, its error printer off while the file is open. */
static bool begin(ck_h5 *h)
{
    if (H5open() < 0)
        return fail(h, "the HDF5 library could not start");
    quiet(h);
    return true;
}

/* The file HDF5 gave (or its failure, `what` it could not do). */
static bool opened(ck_h5 *h, hid_t file, const char *what)
{
    if (file < 0) {
        unquiet(h);
        return fail(h, "cannot %s the HDF5 file", what);
    }
    h->file = file;
    return true;
}

bool ck_create(ck_h5 *h, const char *path)
{
    memset(h, 0, sizeof *h);
    if (!begin(h))
        return false;
    h->writing = true;
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_userblock(fcpl, CK_USERBLOCK);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    H5Pclose(fcpl);
    return opened(h, file, "create");
}

bool ck_open(ck_h5 *h, const char *path)
{
    memset(h, 0, sizeof *h);
    /* A damaged file never reaches HDF5's parser, whose decoding of
     * malformed metadata is not hardened, and neither does a sealed one
     * whose structure is not what eddy writes (ck_walk). */
    if (!ck_check_seal(path, h->err, sizeof h->err) || !ck_walk(path, h->err, sizeof h->err) || !begin(h))
        return false;
#if H5_VERSION_GE(1, 12, 0)
    htri_t is = H5Fis_accessible(path, H5P_DEFAULT);
#else
    htri_t is = H5Fis_hdf5(path);
#endif
    if (is <= 0) {
        unquiet(h);
        return fail(h, "not an HDF5 file (or truncated)");
    }
    /* Closing the file closes whatever HDF5 left open inside it after a
     * failure, so no object of a refused file outlives the load. */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    return opened(h, file, "open");
}

bool ck_close(ck_h5 *h)
{
    if (!h->file)
        return !h->err[0];
    bool ok = true;
    if (h->writing && H5Fflush(h->file, H5F_SCOPE_LOCAL) < 0)
        ok = fail(h, "cannot flush the HDF5 file");
    if (H5Fclose(h->file) < 0)
        ok = fail(h, "cannot close the HDF5 file");
    h->file = 0;
    unquiet(h);
    return ok && !h->err[0];
}

bool ck_group(ck_h5 *h, const char *path)
{
    if (ck_exists(h, path))
        return true;
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t g = H5Gcreate2(h->file, path, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    H5Pclose(lcpl);
    if (g < 0)
        return fail(h, "cannot create group %s", path);
    H5Gclose(g);
    return true;
}

bool ck_exists(ck_h5 *h, const char *path)
{
    if (!strcmp(path, "/"))
        return true;
    /* Each link on the way must exist before the next is asked for. */
    char part[1024];
    size_t n = strlen(path);
    if (n >= sizeof part)
        return false;
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != 0)
            continue;
        memcpy(part, path, i);
        part[i] = 0;
        if (H5Lexists(h->file, part, H5P_DEFAULT) <= 0)
            return false;
    }
    return H5Oexists_by_name(h->file, path, H5P_DEFAULT) > 0;
}

/* The chunks of a dataset with rows x cols values of es bytes, as
 * ck_write makes them. */
static void chunk_of(uint64_t rows, uint32_t cols, size_t es, hsize_t chunk[2])
{
    uint64_t per = CK_CHUNK_BYTES / (es * cols);
    chunk[0] = per < 1 ? 1 : per > rows ? rows : per;
    chunk[1] = cols;
}

bool ck_write(ck_h5 *h, const char *path, eddy_state_type t, uint64_t rows, uint32_t cols, const void *data,
              const char *unit)
{
    size_t es = ck_type_size(t);
    if (!es || !cols || cols > CK_CHUNK_BYTES / es)
        return fail(h, "%s: bad type or shape", path);
    hsize_t dims[2] = { rows, cols };
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (rows > 0) {
        hsize_t chunk[2];
        chunk_of(rows, cols, es, chunk);
        H5Pset_chunk(dcpl, 2, chunk);
        H5Pset_fletcher32(dcpl);
    }
    /* Its groups are made on the way. */
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t d = H5Dcreate2(h->file, path, stored(t), space, lcpl, dcpl, H5P_DEFAULT);
    H5Pclose(lcpl);
    H5Pclose(dcpl);
    H5Sclose(space);
    if (d < 0)
        return fail(h, "cannot create dataset %s", path);
    bool ok = rows == 0 || H5Dwrite(d, native(t), H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0;
    H5Dclose(d);
    if (!ok)
        return fail(h, "cannot write dataset %s", path);
    return ck_attr_str(h, path, "unit", unit && *unit ? unit : "1");
}

static bool same_type(hid_t ft, eddy_state_type t)
{
    H5T_class_t c = H5Tget_class(ft);
    size_t size = H5Tget_size(ft);
    if (size != ck_type_size(t))
        return false;
    if (t == EDDY_STATE_F32 || t == EDDY_STATE_F64)
        return c == H5T_FLOAT;
    if (c != H5T_INTEGER)
        return false;
    H5T_sign_t sign = H5Tget_sign(ft);
    return t == EDDY_STATE_I32 ? sign == H5T_SGN_2 : sign == H5T_SGN_NONE;
}

bool ck_extent(ck_h5 *h, const char *path, uint64_t *rows, uint64_t *cols)
{
    if (!ck_exists(h, path))
        return false;
    hid_t d = H5Dopen2(h->file, path, H5P_DEFAULT);
    if (d < 0)
        return false;
    hid_t space = H5Dget_space(d), ft = H5Dget_type(d);
    hsize_t dims[2] = { 0, 0 };
    bool ok = space >= 0 && ft >= 0 && H5Sget_simple_extent_ndims(space) == 2 &&
              H5Sget_simple_extent_dims(space, dims, NULL) == 2;
    /* An extent its file does not hold (a huge dataset never written) is
     * refused here, before a caller sizes an allocation by it: what a
     * sealed file stores is at most its length on the disk. */
    size_t es = ft >= 0 ? H5Tget_size(ft) : 0;
    unsigned long long need = dims[1] && dims[0] > ~0ull / dims[1] / (es ? es : 1) ? ~0ull
                                                                                    : dims[0] * dims[1] * es;
    ok = ok && H5Dget_storage_size(d) >= need;
    if (ft >= 0)
        H5Tclose(ft);
    if (space >= 0)
        H5Sclose(space);
    H5Dclose(d);
    *rows = dims[0];
    *cols = dims[1];
    return ok;
}

/* Whether d is stored as ck_write stores it: chunked as chunk_of says,
 * with Fletcher32 as the only filter (no data: any layout, nothing is
 * read). libhdf5 1.10.8 trusts a file's chunk dimensions when it reads:
 * a chunk wider than its dataset (a damaged or crafted file that carries a
 * valid seal) makes H5Dread copy past its buffers. */
static bool layout_ok(hid_t d, size_t es, uint64_t rows, uint32_t cols)
{
    if (rows == 0)
        return true;
    hid_t dcpl = H5Dget_create_plist(d);
    if (dcpl < 0)
        return false;
    hsize_t want[2], got[2] = { 0, 0 };
    chunk_of(rows, cols, es, want);
    unsigned flags = 0, values[8];
    size_t nvalues = 8;
    char name[32];
    bool ok = H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, 2, got) == 2 && got[0] == want[0] &&
              got[1] == want[1] && H5Pget_nfilters(dcpl) == 1 &&
              H5Pget_filter2(dcpl, 0, &flags, &nvalues, values, sizeof name, name, NULL) == H5Z_FILTER_FLETCHER32;
    H5Pclose(dcpl);
    return ok;
}

bool ck_read(ck_h5 *h, const char *path, eddy_state_type t, uint64_t rows, uint32_t cols, void *data)
{
    if (!ck_exists(h, path))
        return fail(h, "%s: missing", path);
    hid_t d = H5Dopen2(h->file, path, H5P_DEFAULT);
    if (d < 0)
        return fail(h, "%s: not a dataset", path);
    hid_t ft = H5Dget_type(d), space = H5Dget_space(d);
    hsize_t dims[2] = { 0, 0 };
    bool shaped = space >= 0 && H5Sget_simple_extent_ndims(space) == 2 &&
                  H5Sget_simple_extent_dims(space, dims, NULL) == 2;
    bool typed = ft >= 0 && same_type(ft, t);
    if (ft >= 0)
        H5Tclose(ft);
    if (space >= 0)
        H5Sclose(space);
    if (typed && shaped && dims[0] == rows && dims[1] == cols && !layout_ok(d, ck_type_size(t), rows, cols)) {
        H5Dclose(d);
        return fail(h, "%s: not stored as eddy stores it (chunks of another shape, or filters other than "
                    "Fletcher32)", path);
    }
    if (!typed || !shaped || dims[0] != rows || dims[1] != cols) {
        H5Dclose(d);
        if (!typed)
            return fail(h, "%s: expected %s values", path, ck_type_name(t));
        return fail(h, "%s: expected %llu x %u values, the file has %llu x %llu", path, (unsigned long long)rows,
                    cols, (unsigned long long)dims[0], (unsigned long long)dims[1]);
    }
    /* A checksummed dataset is verified as it is read (HDF5 checks
     * Fletcher32 by default): a flipped bit fails here. */
    bool ok = rows == 0 || H5Dread(d, native(t), H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0;
    H5Dclose(d);
    return ok ? true : fail(h, "%s: cannot be read (checksum or storage damaged)", path);
}

static hid_t open_obj(ck_h5 *h, const char *obj)
{
    return ck_exists(h, obj) ? H5Oopen(h->file, obj, H5P_DEFAULT) : H5I_INVALID_HID;
}

static bool attr_write(ck_h5 *h, const char *obj, const char *name, hid_t ftype, hid_t mtype, const void *v)
{
    hid_t o = open_obj(h, obj);
    if (o < 0)
        return fail(h, "%s: no such object for attribute %s", obj, name);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(o, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
    bool ok = a >= 0 && H5Awrite(a, mtype, v) >= 0;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    H5Oclose(o);
    return ok ? true : fail(h, "%s: cannot write attribute %s", obj, name);
}

bool ck_attr_u64(ck_h5 *h, const char *obj, const char *name, uint64_t v)
{
    return attr_write(h, obj, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &v);
}

bool ck_attr_f64(ck_h5 *h, const char *obj, const char *name, double v)
{
    return attr_write(h, obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v);
}

bool ck_attr_str(ck_h5 *h, const char *obj, const char *name, const char *v)
{
    /* Fixed-length ASCII/UTF-8 strings: what h5py and h5dump show as text. */
    hid_t st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, strlen(v) + 1);
    H5Tset_cset(st, H5T_CSET_UTF8);
    bool ok = attr_write(h, obj, name, st, st, v);
    H5Tclose(st);
    return ok;
}

/* Opens attribute name of obj, checks its class and size and reads it. */
static bool attr_read(ck_h5 *h, const char *obj, const char *name, H5T_class_t cls, size_t size, hid_t mtype,
                      void *out, size_t cap)
{
    hid_t o = open_obj(h, obj);
    if (o < 0)
        return fail(h, "%s: missing", obj);
    if (H5Aexists(o, name) <= 0) {
        H5Oclose(o);
        return fail(h, "%s: attribute %s missing", obj, name);
    }
    hid_t a = H5Aopen(o, name, H5P_DEFAULT);
    hid_t ft = a >= 0 ? H5Aget_type(a) : H5I_INVALID_HID;
    hid_t space = a >= 0 ? H5Aget_space(a) : H5I_INVALID_HID;
    bool ok = ft >= 0 && space >= 0 && H5Tget_class(ft) == cls && H5Sget_simple_extent_type(space) == H5S_SCALAR;
    size_t fsize = ft >= 0 ? H5Tget_size(ft) : 0;
    /* Fixed-length text only (ck_walk refuses variable-length data). */
    if (ok && cls == H5T_STRING)
        ok = H5Tis_variable_str(ft) == 0 && fsize > 0 && fsize < cap;
    else if (ok)
        ok = fsize == size && (cls != H5T_INTEGER || H5Tget_sign(ft) == H5T_SGN_NONE);
    if (ok && cls == H5T_STRING) {
        hid_t mt = H5Tcopy(ft); /* the file's size, padding and character set */
        memset(out, 0, cap);
        ok = H5Aread(a, mt, out) >= 0;
        ((char *)out)[fsize] = 0;
        H5Tclose(mt);
    } else if (ok) {
        ok = H5Aread(a, mtype, out) >= 0;
    }
    if (space >= 0)
        H5Sclose(space);
    if (ft >= 0)
        H5Tclose(ft);
    if (a >= 0)
        H5Aclose(a);
    H5Oclose(o);
    return ok ? true : fail(h, "%s: attribute %s has another type or size", obj, name);
}

bool ck_get_u64(ck_h5 *h, const char *obj, const char *name, uint64_t *v)
{
    return attr_read(h, obj, name, H5T_INTEGER, 8, H5T_NATIVE_UINT64, v, 8);
}

bool ck_get_f64(ck_h5 *h, const char *obj, const char *name, double *v)
{
    return attr_read(h, obj, name, H5T_FLOAT, 8, H5T_NATIVE_DOUBLE, v, 8);
}

bool ck_get_str(ck_h5 *h, const char *obj, const char *name, char *out, size_t cap)
{
    return attr_read(h, obj, name, H5T_STRING, 0, H5I_INVALID_HID, out, cap);
}
