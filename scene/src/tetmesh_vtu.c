/* VTK XML unstructured grids (.vtu): one Piece; Points Float32 or Float64;
 * Cells of any integer type, of which the VTK_TETRA (10) cells are kept
 * (named by cell index, from 0); one-component PointData arrays become the
 * attributes in file order. Data ascii, binary (base64) or appended (raw or
 * base64), UInt32 or UInt64 block headers, LittleEndian; compressed data is
 * refused. The tags come from xml_tok.c, base64 from base64.c; every offset
 * and size in the file is bounds checked. tetmesh.c checks the mesh and
 * frees what is left. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mesh_err.h"
#include "tetmesh_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { VT_I8, VT_U8, VT_I16, VT_U16, VT_I32, VT_U32, VT_I64, VT_U64, VT_F32, VT_F64, VT_COUNT };
static const char *const vt_names[VT_COUNT] = { "Int8",   "UInt8",  "Int16",  "UInt16",  "Int32",
                                                "UInt32", "Int64",  "UInt64", "Float32", "Float64" };
static const int vt_sizes[VT_COUNT] = { 1, 1, 2, 2, 4, 4, 8, 8, 4, 8 };

enum { FMT_ASCII, FMT_BINARY, FMT_APPENDED };

typedef struct varr {
    bool present;
    int type; /* VT_*, or -1: unknown */
    int format;
    uint64_t offset;
    size_t at, c0, c1; /* the tag; its content (ascii, binary) */
    const char *name;
    size_t nlen;
    uint64_t ncomp;
    bool ncomp_given;
} varr;

typedef struct vtu {
    tet_load *L;
    const char *path;
    const char *d;
    size_t size;
    xml_doc xml;       /* the tokenizer's view of d */
    int hbytes;        /* the block header: 4 (UInt32) or 8 (UInt64) */
    bool appended;
    bool app_base64;
    size_t app0, app1; /* the appended data, past its '_' */
    /* What the walk over the tags found: the root, the piece, its arrays. */
    bool root;
    int pieces;
    size_t piece_at;
    uint64_t np, nc; /* the piece's points and cells */
    varr points, conn, offs, types, attr[EDDY_TET_MAX_ATTRIBUTES];
    int nattr;
} vtu;

/* Decoded values: little-endian ones of `type` at p, or (native) int64_t or
 * double values of ASCII data. */
typedef struct vdata {
    int type;
    bool native;
    uint64_t n;
    const uint8_t *p;
    void *owned;
} vdata;


static uint32_t line_at(const char *d, size_t at)
{
    uint32_t line = 1;
    for (const char *p = d, *e = d + at; (p = memchr(p, '\n', (size_t)(e - p))); p++)
        line++;
    return line;
}

static int vtu_fail(const vtu *V, size_t at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int vtu_fail(const vtu *V, size_t at, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return failf(V->L->err, V->L->n, "%s:%u: %s", V->path, line_at(V->d, at), what);
}

static int vt_parse(const char *s, size_t n)
{
    for (int i = 0; i < VT_COUNT; i++)
        if (xml_is(s, n, vt_names[i]))
            return i;
    return -1;
}

/* A DataArray's tag into a: its type, format, offset and content. */
static int vtu_array(vtu *V, const xtag *t, varr *a)
{
    memset(a, 0, sizeof *a);
    a->present = true;
    a->at = t->at;
    const xattr *x = xml_attr(t, "Name");
    a->name = x ? x->val : "";
    a->nlen = x ? (x->vlen > 40 ? 40 : x->vlen) : 0;
    x = xml_attr(t, "type");
    a->type = x ? vt_parse(x->val, x->vlen) : -1;
    x = xml_attr(t, "NumberOfComponents");
    a->ncomp = 1;
    if (x) {
        a->ncomp_given = true;
        if (!xml_u64(x->val, x->vlen, &a->ncomp))
            return vtu_fail(V, t->at, "DataArray '%.*s': NumberOfComponents \"%.*s\" is not a number", (int)a->nlen,
                            a->name, (int)(x->vlen > 40 ? 40 : x->vlen), x->val);
    }
    x = xml_attr(t, "format");
    if (!x || xml_is(x->val, x->vlen, "ascii"))
        a->format = FMT_ASCII;
    else if (xml_is(x->val, x->vlen, "binary"))
        a->format = FMT_BINARY;
    else if (xml_is(x->val, x->vlen, "appended"))
        a->format = FMT_APPENDED;
    else
        return vtu_fail(V, t->at, "DataArray '%.*s': format \"%.*s\", expected ascii, binary or appended",
                        (int)a->nlen, a->name, (int)(x->vlen > 40 ? 40 : x->vlen), x->val);
    if (a->format == FMT_APPENDED) {
        x = xml_attr(t, "offset");
        if (!x || !xml_u64(x->val, x->vlen, &a->offset))
            return vtu_fail(V, t->at, "DataArray '%.*s': appended data needs an offset=\"N\"", (int)a->nlen, a->name);
    }
    a->c0 = a->c1 = t->end;
    if (!t->empty) {
        const char *lt = memchr(V->d + t->end, '<', V->size - t->end);
        a->c1 = lt ? (size_t)(lt - V->d) : V->size;
    }
    return 0;
}

static uint64_t le_get(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* A value as a double (any type). */
static double vd_real(const vdata *v, uint64_t i)
{
    if (v->native)
        return v->type == VT_F64 ? ((const double *)v->owned)[i] : (double)((const int64_t *)v->owned)[i];
    int size = vt_sizes[v->type];
    uint64_t u = le_get(v->p + i * (uint64_t)size, size);
    switch (v->type) {
    case VT_F32: {
        uint32_t w = (uint32_t)u;
        float f;
        memcpy(&f, &w, sizeof f);
        return f;
    }
    case VT_F64: {
        double f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    case VT_U8:
    case VT_U16:
    case VT_U32:
    case VT_U64:
        return (double)u;
    case VT_I64: {
        int64_t s;
        memcpy(&s, &u, sizeof s);
        return (double)s;
    }
    default: {
        uint64_t sign = 1ull << (8 * size - 1);
        return (double)((int64_t)(u ^ sign) - (int64_t)sign);
    }
    }
}

/* A value as an integer: false for a real type or a UInt64 over INT64_MAX. */
static bool vd_int(const vdata *v, uint64_t i, int64_t *out)
{
    if (v->type == VT_F32 || v->type == VT_F64)
        return false;
    if (v->native) {
        *out = ((const int64_t *)v->owned)[i];
        return true;
    }
    int size = vt_sizes[v->type];
    uint64_t u = le_get(v->p + i * (uint64_t)size, size);
    switch (v->type) {
    case VT_U8:
    case VT_U16:
    case VT_U32:
        *out = (int64_t)u;
        return true;
    case VT_U64:
        if (u > INT64_MAX)
            return false;
        *out = (int64_t)u;
        return true;
    case VT_I64:
        memcpy(out, &u, sizeof *out);
        return true;
    default: {
        uint64_t sign = 1ull << (8 * size - 1);
        *out = (int64_t)(u ^ sign) - (int64_t)sign;
        return true;
    }
    }
}

#define VTU_ANY UINT64_MAX

/* An ASCII array: whitespace-separated numbers in [c0, c1). */
static int vtu_ascii(vtu *V, const varr *a, uint64_t want, vdata *out)
{
    const char *d = V->d;
    uint64_t count = 0;
    for (size_t i = a->c0; i < a->c1;) {
        while (i < a->c1 && is_ws(d[i]))
            i++;
        if (i == a->c1)
            break;
        count++;
        while (i < a->c1 && !is_ws(d[i]))
            i++;
    }
    if (want != VTU_ANY && count != want)
        return vtu_fail(V, a->at, "DataArray '%.*s' holds %llu values, expected %llu", (int)a->nlen, a->name,
                        (unsigned long long)count, (unsigned long long)want);
    bool real = a->type == VT_F32 || a->type == VT_F64;
    out->type = real ? VT_F64 : VT_I64;
    out->native = true;
    out->n = count;
    if (tet_take(V->L, V->path, count, 8) != 0)
        return -1;
    out->owned = tet_alloc_array(count, 8);
    if (!out->owned)
        return vtu_fail(V, a->at, "DataArray '%.*s': out of memory (%llu values)", (int)a->nlen, a->name,
                        (unsigned long long)count);
    uint64_t k = 0;
    for (size_t i = a->c0; i < a->c1;) {
        while (i < a->c1 && is_ws(d[i]))
            i++;
        if (i == a->c1)
            break;
        size_t t0 = i;
        while (i < a->c1 && !is_ws(d[i]))
            i++;
        char tok[72];
        size_t len = i - t0;
        if (len >= 64)
            return vtu_fail(V, t0, "DataArray '%.*s': value %llu is longer than 63 characters", (int)a->nlen,
                            a->name, (unsigned long long)k);
        memcpy(tok, d + t0, len);
        tok[len] = 0;
        char *e;
        errno = 0;
        if (real) {
            double x = strtod(tok, &e);
            if (e == tok || *e)
                return vtu_fail(V, t0, "DataArray '%.*s': value %llu \"%s\" is not a number", (int)a->nlen, a->name,
                                (unsigned long long)k, tok);
            if (a->type == VT_F32) {
                float f;
                if (!tet_to_float(x, &f))
                    return vtu_fail(V, t0, "DataArray '%.*s': value %llu (%g) is out of the range of Float32",
                                    (int)a->nlen, a->name, (unsigned long long)k, x);
                x = f;
            }
            ((double *)out->owned)[k++] = x;
        } else {
            bool sign = a->type == VT_I8 || a->type == VT_I16 || a->type == VT_I32 || a->type == VT_I64;
            int bits = 8 * vt_sizes[a->type];
            int64_t v = 0;
            bool ok = tok[0] == '-' ? sign : true;
            if (ok) {
                if (tok[0] == '-') {
                    long long x = strtoll(tok, &e, 10);
                    ok = e != tok && !*e && errno != ERANGE && (bits == 64 || x >= -(1ll << (bits - 1)));
                    v = x;
                } else {
                    unsigned long long x = strtoull(tok, &e, 10);
                    uint64_t max = sign ? (bits == 64 ? INT64_MAX : (1ull << (bits - 1)) - 1)
                                        : (bits == 64 ? UINT64_MAX : (1ull << bits) - 1);
                    ok = e != tok && !*e && errno != ERANGE && x <= max && x <= INT64_MAX;
                    v = ok ? (int64_t)x : 0;
                }
            }
            if (!ok)
                return vtu_fail(V, t0, "DataArray '%.*s': value %llu \"%s\" is not a %s", (int)a->nlen, a->name,
                                (unsigned long long)k, tok, vt_names[a->type]);
            ((int64_t *)out->owned)[k++] = v;
        }
    }
    return 0;
}

/* A DataArray's values, `want` of them (VTU_ANY: as many as it holds). */
static int vtu_data(vtu *V, const varr *a, uint64_t want, vdata *out)
{
    memset(out, 0, sizeof *out);
    if (a->type < 0)
        return vtu_fail(V, a->at, "DataArray '%.*s': no or unknown type (expected one of Int8 ... UInt64, Float32, "
                        "Float64)", (int)a->nlen, a->name);
    if (a->format == FMT_ASCII)
        return vtu_ascii(V, a, want, out);
    int size = vt_sizes[a->type], hb = V->hbytes;
    uint8_t hdr[8];
    uint64_t bytes;
    out->type = a->type;
    if (a->format == FMT_APPENDED && !V->appended)
        return vtu_fail(V, a->at, "DataArray '%.*s' is appended, but the file has no <AppendedData>", (int)a->nlen,
                        a->name);
    if (a->format == FMT_APPENDED && !V->app_base64) {
        size_t avail = V->app1 - V->app0;
        if (a->offset > avail || avail - a->offset < (uint64_t)hb)
            return vtu_fail(V, a->at, "DataArray '%.*s': offset %llu is past the end of the appended data (%zu "
                            "bytes)", (int)a->nlen, a->name, (unsigned long long)a->offset, avail);
        const uint8_t *p = (const uint8_t *)V->d + V->app0 + a->offset;
        bytes = le_get(p, hb);
        if (bytes > avail - a->offset - (uint64_t)hb)
            return vtu_fail(V, a->at, "DataArray '%.*s': a block of %llu bytes at offset %llu, past the end of the "
                            "appended data (%zu bytes; truncated?)", (int)a->nlen, a->name,
                            (unsigned long long)bytes, (unsigned long long)a->offset, avail);
        out->p = p + hb;
    } else {
        b64 b = { .s = V->d };
        if (a->format == FMT_BINARY) {
            b.i = a->c0;
            b.end = a->c1;
        } else {
            if (a->offset > V->app1 - V->app0)
                return vtu_fail(V, a->at, "DataArray '%.*s': offset %llu is past the end of the appended data "
                                "(%zu characters)", (int)a->nlen, a->name, (unsigned long long)a->offset,
                                V->app1 - V->app0);
            b.i = V->app0 + (size_t)a->offset;
            b.end = V->app1;
        }
        if (b64_get(&b, hdr, (uint64_t)hb) != 0)
            return vtu_fail(V, a->at, "DataArray '%.*s': bad or truncated base64 in the block header", (int)a->nlen,
                            a->name);
        bytes = le_get(hdr, hb);
        /* Every 4 characters hold 3 bytes at most: checked before allocating. */
        if (bytes / 3 > (b.end - b.i) / 4 + 1)
            return vtu_fail(V, a->at, "DataArray '%.*s': the header says %llu bytes, more than its base64 text "
                            "holds (truncated?)", (int)a->nlen, a->name, (unsigned long long)bytes);
        out->owned = malloc(bytes ? (size_t)bytes : 1);
        if (!out->owned)
            return vtu_fail(V, a->at, "DataArray '%.*s': out of memory (%llu bytes)", (int)a->nlen, a->name,
                            (unsigned long long)bytes);
        if (b64_get(&b, out->owned, bytes) != 0)
            return vtu_fail(V, a->at, "DataArray '%.*s': bad or truncated base64 data (%llu bytes expected)",
                            (int)a->nlen, a->name, (unsigned long long)bytes);
        out->p = out->owned;
    }
    if (bytes % (uint64_t)size)
        return vtu_fail(V, a->at, "DataArray '%.*s': %llu bytes, not a whole number of %s values", (int)a->nlen,
                        a->name, (unsigned long long)bytes, vt_names[a->type]);
    out->n = bytes / (uint64_t)size;
    if (want != VTU_ANY && out->n != want)
        return vtu_fail(V, a->at, "DataArray '%.*s' holds %llu values, expected %llu", (int)a->nlen, a->name,
                        (unsigned long long)out->n, (unsigned long long)want);
    return 0;
}

static void vd_free(vdata *v)
{
    free(v->owned);
    memset(v, 0, sizeof *v);
}

static bool is_int_type(int type)
{
    return type >= 0 && type < VT_F32;
}

/* The next tag, an error of the tokenizer reported as the reader's own. */
static int vtu_tag(vtu *V, size_t *pos, xtag *t)
{
    int r = xml_next_tag(&V->xml, pos, t);
    if (r < 0)
        return vtu_fail(V, V->xml.err_at, "%s", V->xml.err);
    return r;
}

/* <VTKFile>: an unstructured grid, uncompressed and little-endian; the size
 * of its blocks' headers. */
static int vtu_root(vtu *V, const xtag *t)
{
    if (V->root || !xml_is(t->name, t->nlen, "VTKFile"))
        return vtu_fail(V, t->at, "%s <%.*s>: not a VTK XML file (expected <VTKFile>)",
                        V->root ? "a second root element" : "the root element is", (int)(t->nlen > 40 ? 40 : t->nlen),
                        t->name);
    V->root = true;
    const xattr *x = xml_attr(t, "type");
    if (!x || !xml_is(x->val, x->vlen, "UnstructuredGrid"))
        return vtu_fail(V, t->at, "VTKFile type \"%.*s\": expected UnstructuredGrid (a .vtu file)",
                        x ? (int)(x->vlen > 40 ? 40 : x->vlen) : 0, x ? x->val : "");
    if ((x = xml_attr(t, "compressor")))
        return vtu_fail(V, t->at, "compressed data (compressor \"%.*s\") is not supported: write the file "
                        "uncompressed", (int)(x->vlen > 40 ? 40 : x->vlen), x->val);
    if ((x = xml_attr(t, "byte_order")) && !xml_is(x->val, x->vlen, "LittleEndian"))
        return vtu_fail(V, t->at, "byte_order \"%.*s\": only LittleEndian is supported",
                        (int)(x->vlen > 40 ? 40 : x->vlen), x->val);
    if ((x = xml_attr(t, "header_type"))) {
        if (xml_is(x->val, x->vlen, "UInt64"))
            V->hbytes = 8;
        else if (!xml_is(x->val, x->vlen, "UInt32"))
            return vtu_fail(V, t->at, "header_type \"%.*s\": expected UInt32 or UInt64",
                            (int)(x->vlen > 40 ? 40 : x->vlen), x->val);
    }
    return 0;
}

/* <Piece>: the only one, in <UnstructuredGrid>; its point and cell counts. */
static int vtu_piece(vtu *V, const xtag *t, const char *parent, size_t plen)
{
    if (!xml_is(parent, plen, "UnstructuredGrid"))
        return vtu_fail(V, t->at, "a <Piece> outside <UnstructuredGrid>");
    if (++V->pieces > 1)
        return vtu_fail(V, t->at, "a second <Piece>: only files of one piece are read");
    V->piece_at = t->at;
    const xattr *p = xml_attr(t, "NumberOfPoints"), *c = xml_attr(t, "NumberOfCells");
    if (!p || !c || !xml_u64(p->val, p->vlen, &V->np) || !xml_u64(c->val, c->vlen, &V->nc))
        return vtu_fail(V, t->at, "<Piece> needs NumberOfPoints=\"N\" and NumberOfCells=\"N\"");
    if (V->np > EDDY_TET_MAX_ELEMENTS || V->nc > EDDY_TET_MAX_ELEMENTS)
        return vtu_fail(V, t->at, "<Piece>: %llu points and %llu cells, at most %u each (EDDY_TET_MAX_ELEMENTS)",
                        (unsigned long long)V->np, (unsigned long long)V->nc, (unsigned)EDDY_TET_MAX_ELEMENTS);
    return 0;
}

/* A DataArray of the piece: the points, a cell array, or point data of one
 * component (an attribute); others are ignored. */
static int vtu_piece_array(vtu *V, const xtag *t, const char *parent, size_t plen)
{
    varr a;
    if (vtu_array(V, t, &a) != 0)
        return -1;
    if (xml_is(parent, plen, "Points")) {
        if (!V->points.present)
            V->points = a;
    } else if (xml_is(parent, plen, "Cells")) {
        varr *slot = xml_is(a.name, a.nlen, "connectivity") ? &V->conn
                     : xml_is(a.name, a.nlen, "offsets")    ? &V->offs
                     : xml_is(a.name, a.nlen, "types")      ? &V->types
                                                            : NULL;
        if (slot && slot->present)
            return vtu_fail(V, t->at, "a second DataArray '%.*s' in <Cells>", (int)a.nlen, a.name);
        if (slot)
            *slot = a;
    } else if (xml_is(parent, plen, "PointData") && a.ncomp == 1 && a.type >= 0) {
        if (V->nattr == EDDY_TET_MAX_ATTRIBUTES)
            return vtu_fail(V, t->at, "more than %d one-component point data arrays (EDDY_TET_MAX_ATTRIBUTES)",
                            EDDY_TET_MAX_ATTRIBUTES);
        V->attr[V->nattr++] = a;
    }
    return 0;
}

/* <AppendedData>: its encoding, and where its data start (past the '_')
 * and end. */
static int vtu_appended(vtu *V, const xtag *t, int depth)
{
    if (depth != 1)
        return vtu_fail(V, t->at, "<AppendedData> outside <VTKFile>");
    const xattr *x = xml_attr(t, "encoding");
    if (x && xml_is(x->val, x->vlen, "base64"))
        V->app_base64 = true;
    else if (!x || !xml_is(x->val, x->vlen, "raw"))
        return vtu_fail(V, t->at, "<AppendedData> encoding \"%.*s\": expected raw or base64",
                        x ? (int)(x->vlen > 40 ? 40 : x->vlen) : 0, x ? x->val : "");
    const char *data = V->d;
    size_t size = V->size, i = t->end;
    while (i < size && is_ws(data[i]))
        i++;
    if (t->empty || i >= size || data[i] != '_')
        return vtu_fail(V, t->at, "<AppendedData>: expected '_' before the data");
    V->appended = true;
    V->app0 = i + 1;
    V->app1 = size;
    if (V->app_base64) {
        const char *lt = memchr(data + V->app0, '<', size - V->app0);
        V->app1 = lt ? (size_t)(lt - data) : size;
    }
    return 0;
}

/* The walk over the tags, each element checked against its parent, up to
 * the end of the file or the appended data (raw bytes follow: the XML ends
 * there); then what a piece needs. */
static int vtu_walk(vtu *V)
{
    /* The open elements' names. */
    const char *stack[XML_MAX_DEPTH];
    size_t slen[XML_MAX_DEPTH];
    int depth = 0;
    size_t pos = 0;
    xtag t;
    int r;
    while ((r = vtu_tag(V, &pos, &t)) == 1) {
        if (t.close) {
            if (depth == 0 || slen[depth - 1] != t.nlen || memcmp(stack[depth - 1], t.name, t.nlen) != 0)
                return vtu_fail(V, t.at, "</%.*s> closes %s%.*s%s", (int)(t.nlen > 40 ? 40 : t.nlen), t.name,
                                depth ? "<" : "nothing", depth ? (int)(slen[depth - 1] > 40 ? 40 : slen[depth - 1]) : 0,
                                depth ? stack[depth - 1] : "", depth ? ">" : "");
            depth--;
            continue;
        }
        const char *parent = depth ? stack[depth - 1] : NULL;
        size_t plen = depth ? slen[depth - 1] : 0;
        if (depth == 0) {
            if (vtu_root(V, &t) != 0)
                return -1;
        } else if (xml_is(t.name, t.nlen, "Piece")) {
            if (vtu_piece(V, &t, parent, plen) != 0)
                return -1;
        } else if (xml_is(t.name, t.nlen, "DataArray") && depth >= 2 &&
                   xml_is(stack[depth - 2], slen[depth - 2], "Piece")) {
            if (vtu_piece_array(V, &t, parent, plen) != 0)
                return -1;
        } else if (xml_is(t.name, t.nlen, "AppendedData")) {
            if (vtu_appended(V, &t, depth) != 0)
                return -1;
            break;
        }
        if (!t.empty) {
            if (depth == XML_MAX_DEPTH)
                return vtu_fail(V, t.at, "elements nested deeper than %d", XML_MAX_DEPTH);
            stack[depth] = t.name;
            slen[depth++] = t.nlen;
        }
    }
    tet_load *L = V->L;
    if (r < 0)
        return -1;
    if (!V->root)
        return failf(L->err, L->n, "%s: no <VTKFile> element: not a VTK XML file", V->path);
    if (r == 0 && depth > 0)
        return failf(L->err, L->n, "%s: the file ends inside <%.*s> (truncated?)", V->path,
                     (int)(slen[depth - 1] > 40 ? 40 : slen[depth - 1]), stack[depth - 1]);
    if (!V->pieces)
        return failf(L->err, L->n, "%s: no <Piece> in <UnstructuredGrid>", V->path);
    if (!V->points.present || !V->conn.present || !V->offs.present || !V->types.present)
        return vtu_fail(V, V->piece_at, "<Piece> needs <Points> with a DataArray and <Cells> with DataArrays "
                        "'connectivity', 'offsets' and 'types'");
    return 0;
}

/* The points: three real components each, finite as floats. */
static int vtu_points(vtu *V)
{
    tet_load *L = V->L;
    eddy_tetmesh *m = L->m;
    const varr *points = &V->points;
    uint64_t np = V->np;
    if (points->type != VT_F32 && points->type != VT_F64)
        return vtu_fail(V, points->at, "Points: type %s, expected Float32 or Float64",
                        points->type >= 0 ? vt_names[points->type] : "unknown");
    if (points->ncomp != 3)
        return vtu_fail(V, points->at, "Points: NumberOfComponents %llu, expected 3",
                        (unsigned long long)points->ncomp);
    vdata dp = { 0 };
    int rc = vtu_data(V, points, 3 * np, &dp);
    if (rc == 0)
        rc = tet_take(L, V->path, 3 * np, sizeof(float));
    if (rc == 0 && !(m->vertices = tet_alloc_array(3 * np, sizeof(float))))
        rc = failf(L->err, L->n, "%s: out of memory (%llu points)", V->path, (unsigned long long)np);
    for (uint64_t i = 0; rc == 0 && i < 3 * np; i++) {
        double x = vd_real(&dp, i);
        if (!isfinite(x) || !tet_to_float(x, &m->vertices[i]))
            rc = vtu_fail(V, points->at, "point %llu: coordinate %g is not finite%s", (unsigned long long)(i / 3), x,
                          isfinite(x) ? " as a float" : "");
    }
    if (rc == 0)
        m->vertex_count = (uint32_t)np;
    vd_free(&dp);
    return rc;
}

/* The cells' offsets and types: every VTK_TETRA (10) cell of 4 points; the
 * tets counted in *ntets and the end of the last cell in *last. */
static int vtu_cell_shapes(vtu *V, const vdata *doff, const vdata *dt, uint32_t *ntets, int64_t *last)
{
    int64_t prev = 0, o, ty;
    *ntets = 0;
    for (uint64_t c = 0; c < V->nc; c++) {
        if (!vd_int(doff, c, &o) || o < prev)
            return vtu_fail(V, V->offs.at, "offsets: cell %llu ends at %lld, before it starts (%lld)",
                            (unsigned long long)c, (long long)o, (long long)prev);
        if (!vd_int(dt, c, &ty))
            return vtu_fail(V, V->types.at, "types: cell %llu has no valid type", (unsigned long long)c);
        if (ty == 10) {
            if (o - prev != 4)
                return vtu_fail(V, V->offs.at, "cell %llu is a VTK_TETRA (type 10) of %lld points, expected 4",
                                (unsigned long long)c, (long long)(o - prev));
            (*ntets)++;
        }
        prev = o;
    }
    *last = prev;
    return 0;
}

/* The tetra cells' points, in range, as tets named by cell index. */
static int vtu_cell_tets(vtu *V, const vdata *doff, const vdata *dt, const vdata *dc)
{
    int64_t prev = 0, o, ty;
    for (uint64_t c = 0; c < V->nc; c++) {
        vd_int(doff, c, &o);
        vd_int(dt, c, &ty);
        if (ty == 10) {
            uint32_t k[4];
            for (int a = 0; a < 4; a++) {
                int64_t v;
                if (!vd_int(dc, (uint64_t)prev + (uint64_t)a, &v) || v < 0 || (uint64_t)v >= V->np)
                    return vtu_fail(V, V->conn.at, "cell %llu names point %lld, out of range 0..%lld",
                                    (unsigned long long)c, (long long)v, (long long)V->np - 1);
                k[a] = (uint32_t)v;
            }
            if (tet_add(V->L, k, (int64_t)c, 0) != 0)
                return -1;
        }
        prev = o;
    }
    return 0;
}

/* Cells: offsets, types, then the connectivity the last offset ends. */
static int vtu_cells(vtu *V)
{
    tet_load *L = V->L;
    varr *ints[3] = { &V->offs, &V->types, &V->conn };
    for (int i = 0; i < 3; i++)
        if (!is_int_type(ints[i]->type))
            return vtu_fail(V, ints[i]->at, "DataArray '%.*s': type %s, expected an integer type", (int)ints[i]->nlen,
                            ints[i]->name, ints[i]->type >= 0 ? vt_names[ints[i]->type] : "unknown");
    vdata dc = { 0 }, doff = { 0 }, dt = { 0 };
    int64_t last = 0;
    uint32_t ntets = 0;
    int rc = vtu_data(V, &V->offs, V->nc, &doff);
    if (rc == 0)
        rc = vtu_data(V, &V->types, V->nc, &dt);
    if (rc == 0)
        rc = vtu_cell_shapes(V, &doff, &dt, &ntets, &last);
    if (rc == 0 && ntets > EDDY_TET_MAX_ELEMENTS)
        rc = failf(L->err, L->n, "%s: %u tets, more than %u (EDDY_TET_MAX_ELEMENTS)", V->path, ntets,
                   (unsigned)EDDY_TET_MAX_ELEMENTS);
    if (rc == 0)
        rc = vtu_data(V, &V->conn, (uint64_t)last, &dc);
    if (rc == 0)
        rc = tet_reserve(L, ntets);
    if (rc == 0)
        rc = vtu_cell_tets(V, &doff, &dt, &dc);
    vd_free(&dc);
    vd_free(&doff);
    vd_free(&dt);
    return rc;
}

/* Point data of one component: the attributes, in file order. */
static int vtu_attributes(vtu *V)
{
    tet_load *L = V->L;
    eddy_tetmesh *m = L->m;
    uint64_t np = V->np;
    int nattr = V->nattr;
    if (!nattr)
        return 0;
    if (tet_take(L, V->path, np * (uint64_t)nattr, sizeof(float)) != 0)
        return -1;
    m->attributes = tet_alloc_array(np * (uint64_t)nattr, sizeof(float));
    if (!m->attributes)
        return failf(L->err, L->n, "%s: out of memory (%llu points)", V->path, (unsigned long long)np);
    m->attribute_count = (uint32_t)nattr;
    for (int a = 0; a < nattr; a++) {
        const varr *attr = &V->attr[a];
        vdata da = { 0 };
        int rc = vtu_data(V, attr, np, &da);
        for (uint64_t i = 0; rc == 0 && i < np; i++) {
            double x = vd_real(&da, i);
            if (!tet_to_float(x, &m->attributes[i * (uint64_t)nattr + (uint64_t)a]))
                rc = vtu_fail(V, attr->at, "DataArray '%.*s': point %llu: %g is out of the range of a float",
                              (int)attr->nlen, attr->name, (unsigned long long)i, x);
        }
        vd_free(&da);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int tet_load_vtu(tet_load *L, const char *path)
{
    char *data;
    size_t size;
    if (tet_read_file(L, path, "a VTK .vtu file", &data, &size) != 0)
        return -1;
    vtu V = { .L = L, .path = path, .d = data, .size = size, .xml = { .d = data, .size = size }, .hbytes = 4 };
    int rc = vtu_walk(&V);
    if (rc == 0)
        rc = vtu_points(&V);
    if (rc == 0)
        rc = vtu_cells(&V);
    if (rc == 0)
        rc = vtu_attributes(&V);
    free(data);
    return rc;
}
