/* A checkpoint's HDF5 structure checked before libhdf5 opens it: see
 * checkpoint_h5.h (ck_walk).
 *
 * Why: a file from elsewhere is untrusted, and libhdf5 (1.10) trusts the
 * addresses and lengths it decodes. A resealed file whose object-header
 * continuation claims a terabyte makes it allocate a terabyte. So eddy
 * walks the structures it writes itself (HDF5 File Format Specification,
 * version 0 superblock with 8-byte offsets and lengths, version 1 object
 * headers, symbol-table groups with their version 1 B-trees, symbol nodes
 * and local heaps, chunked datasets indexed by version 1 B-trees) and
 * accepts a file only when every address and length it finds lies inside
 * the file, every count fits its node, no object is reached twice and
 * every header message is of a kind eddy writes. Anything else (new-style
 * groups, shared messages, variable-length data, external links) is
 * refused: it is not a file eddy wrote.
 *
 * Structures are read with pread, a bounded piece at a time, so a hostile
 * size never sizes an allocation past CK_WALK_BLOCK. */
#include "checkpoint_h5.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The largest object-header block, B-tree node or symbol node read. eddy's
 * largest (the root group's header with its attributes) is under 2 KiB. */
#define CK_WALK_BLOCK (64u << 10)
/* Objects (headers and nodes) visited before a file is refused as too
 * complex: eddy's checkpoints hold a few hundred. */
#define CK_WALK_NODES 100000u
#define CK_WALK_DEPTH 32
#define UNDEF UINT64_MAX

typedef struct walk {
    int fd;
    uint64_t size, base;  /* the file's length; its HDF5 base address */
    unsigned group_k, leaf_k; /* the superblock's B-tree and symbol node K */
    unsigned nodes;
    uint64_t *seen;       /* object-header addresses reached */
    unsigned nseen, cap;
    char *err;
    size_t errcap;
} walk;

static bool bad(walk *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static bool bad(walk *w, const char *fmt, ...)
{
    if (w->err[0])
        return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err, w->errcap, fmt, ap);
    va_end(ap);
    return false;
}

/* True when [rel, rel + len) lies inside the file (rel from the base). */
static bool inside(const walk *w, uint64_t rel, uint64_t len)
{
    return rel != UNDEF && rel <= w->size - w->base && len <= w->size - w->base - rel;
}

/* len bytes at rel into buf (len <= CK_WALK_BLOCK), checked inside. */
static bool fetch(walk *w, uint64_t rel, uint64_t len, unsigned char *buf, const char *what)
{
    if (len > CK_WALK_BLOCK || !inside(w, rel, len))
        return bad(w, "%s at %llu (%llu bytes) lies outside the file", what, (unsigned long long)rel,
                   (unsigned long long)len);
    if (++w->nodes > CK_WALK_NODES)
        return bad(w, "more than %u HDF5 objects", CK_WALK_NODES);
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(w->fd, buf + got, (size_t)len - got, (off_t)(w->base + rel + got));
        if (n <= 0)
            return bad(w, "cannot read %s at %llu", what, (unsigned long long)rel);
        got += (size_t)n;
    }
    return true;
}

static bool object(walk *w, uint64_t rel, int depth);

/* A local heap's data segment (its address and size), for link names. */
typedef struct heap {
    uint64_t data, size;
} heap;

static bool local_heap(walk *w, uint64_t rel, heap *hp)
{
    unsigned char b[32];
    if (!fetch(w, rel, sizeof b, b, "a local heap"))
        return false;
    hp->size = ck_le(b + 8, 8);
    uint64_t free_list = ck_le(b + 16, 8);
    hp->data = ck_le(b + 24, 8);
    if (memcmp(b, "HEAP", 4) || b[4] != 0)
        return bad(w, "local heap at %llu: no HEAP version 0 signature", (unsigned long long)rel);
    if (!inside(w, hp->data, hp->size) || (free_list != UNDEF && free_list >= hp->size))
        return bad(w, "local heap at %llu: its data lies outside the file", (unsigned long long)rel);
    return true;
}

/* A link name: NUL-terminated inside the heap's data segment. */
static bool link_name(walk *w, const heap *hp, uint64_t offset)
{
    unsigned char b[256];
    if (offset >= hp->size)
        return bad(w, "a link name's offset %llu lies past its heap", (unsigned long long)offset);
    uint64_t n = hp->size - offset < sizeof b ? hp->size - offset : sizeof b;
    if (!fetch(w, hp->data + offset, n, b, "a link name"))
        return false;
    if (!memchr(b, 0, (size_t)n))
        return bad(w, "a link name at heap offset %llu is not terminated", (unsigned long long)offset);
    return true;
}

/* A symbol node: up to 2 leaf_k entries, each an object. */
static bool symbol_node(walk *w, uint64_t rel, const heap *hp, int depth)
{
    uint64_t len = 8 + 2ull * w->leaf_k * 40;
    unsigned char *b = malloc(len);
    bool ok = b && fetch(w, rel, len, b, "a symbol node");
    if (ok && (memcmp(b, "SNOD", 4) || b[4] != 1 || ck_le(b + 6, 2) > 2ull * w->leaf_k))
        ok = bad(w, "symbol node at %llu: no SNOD version 1 signature or too many entries", (unsigned long long)rel);
    for (unsigned i = 0; ok && i < ck_le(b + 6, 2); i++) {
        const unsigned char *e = b + 8 + 40 * i;
        ok = link_name(w, hp, ck_le(e, 8)) && object(w, ck_le(e + 8, 8), depth + 1);
    }
    if (!b)
        bad(w, "out of memory");
    free(b);
    return ok;
}

/* A version 1 B-tree node of the given type (0 groups, 1 chunks); key
 * bytes per key; ndims for chunk keys. Leaves' children are symbol nodes
 * (groups) or chunks whose size the left key gives. */
static bool btree(walk *w, uint64_t rel, int type, unsigned key, const heap *hp, int depth)
{
    unsigned k = type == 0 ? w->group_k : 32;
    uint64_t len = 24 + (2ull * k + 1) * key + 2ull * k * 8;
    if (depth > CK_WALK_DEPTH)
        return bad(w, "B-tree at %llu nests too deep", (unsigned long long)rel);
    unsigned char *b = malloc(len);
    bool ok = b && fetch(w, rel, len, b, "a B-tree node");
    unsigned level = ok ? b[5] : 0, used = ok ? (unsigned)ck_le(b + 6, 2) : 0;
    if (ok && (memcmp(b, "TREE", 4) || b[4] != type || used > 2 * k))
        ok = bad(w, "B-tree node at %llu: no TREE signature of type %d or too many entries", (unsigned long long)rel,
                 type);
    for (unsigned i = 0; ok && i < used; i++) {
        const unsigned char *kp = b + 24 + (uint64_t)i * (key + 8);
        uint64_t child = ck_le(kp + key, 8);
        if (level > 0)
            ok = btree(w, child, type, key, hp, depth + 1);
        else if (type == 0)
            ok = symbol_node(w, child, hp, depth);
        else if (!inside(w, child, ck_le(kp, 4)) || ck_le(kp, 4) == 0)
            ok = bad(w, "a chunk at %llu (%llu bytes) lies outside the file", (unsigned long long)child,
                     (unsigned long long)ck_le(kp, 4));
    }
    if (!b)
        bad(w, "out of memory");
    free(b);
    return ok;
}

/* Symbol table message: a group's B-tree and local heap. */
static bool group(walk *w, const unsigned char *m, uint64_t size, int depth)
{
    heap hp;
    if (size < 16)
        return bad(w, "a symbol table message is %llu bytes", (unsigned long long)size);
    return local_heap(w, ck_le(m + 8, 8), &hp) && btree(w, ck_le(m, 8), 0, 8, &hp, depth);
}

/* Data layout message, version 3: compact, contiguous or chunked. */
static bool layout(walk *w, const unsigned char *m, uint64_t size, int depth)
{
    if (size < 2 || m[0] != 3)
        return bad(w, "a data layout message of version %u (eddy writes 3)", size ? m[0] : 0);
    if (m[1] == 0)
        return size >= 4 && ck_le(m + 2, 2) <= size - 4 ? true : bad(w, "a compact dataset overruns its message");
    if (m[1] == 1) {
        if (size < 18)
            return bad(w, "a contiguous layout message is %llu bytes", (unsigned long long)size);
        uint64_t at = ck_le(m + 2, 8), len = ck_le(m + 10, 8);
        return at == UNDEF || inside(w, at, len) ? true : bad(w, "contiguous data lies outside the file");
    }
    /* Chunked: two dimensions and the element size, as ck_write makes
     * them (libhdf5 loops on chunk dimensions that overflow). */
    unsigned nd = size >= 3 ? m[2] : 0;
    if (m[1] != 2 || nd != 3 || size < 11 + 4ull * nd)
        return bad(w, "a data layout message of class %u with %u dimensions (eddy writes 2-D chunks)", m[1], nd);
    uint64_t rows = ck_le(m + 11, 4), row = ck_le(m + 15, 4) * ck_le(m + 19, 4);
    if (!rows || !row || row > CK_CHUNK_BYTES || rows > CK_CHUNK_BYTES / row)
        return bad(w, "chunks of %llu rows of %llu bytes (eddy writes at most %u bytes)",
                   (unsigned long long)rows, (unsigned long long)row, CK_CHUNK_BYTES);
    uint64_t tree = ck_le(m + 3, 8);
    return tree == UNDEF || btree(w, tree, 1, 8 + 8 * nd, NULL, depth);
}

/* A datatype (message or inside an attribute): integers, floats and
 * fixed strings only, whose properties fit; *bytes its element size.
 * Variable-length data, references and compounds keep values elsewhere
 * or nest types: eddy writes none. */
static bool datatype(walk *w, const unsigned char *t, uint64_t len, uint64_t *bytes)
{
    static const unsigned props[] = { 4, 12, 0, 0 }; /* fixed-point, float, -, string */
    unsigned cls = len >= 8 ? t[0] & 15 : 15, version = len >= 8 ? t[0] >> 4 : 0;
    *bytes = len >= 8 ? ck_le(t + 4, 4) : 0;
    if ((cls != 0 && cls != 1 && cls != 3) || version < 1 || version > 3 || len < 8 + props[cls] || !*bytes ||
        *bytes > CK_CHUNK_BYTES)
        return bad(w, "a datatype of class %u, version %u, %llu bytes (eddy writes numbers and fixed strings)", cls,
                   version, (unsigned long long)*bytes);
    return true;
}

/* A dataspace (version 1 or 2), its dimensions inside len; *count its
 * elements (UINT64_MAX past that). */
static bool dataspace(walk *w, const unsigned char *s, uint64_t len, uint64_t *count)
{
    unsigned head = len >= 4 && s[0] == 1 ? 8 : 4, rank = len >= 4 ? s[1] : 0;
    if (len < head || (s[0] != 1 && s[0] != 2) || rank > 32 || (s[2] & ~1u) ||
        len < head + 8ull * rank * ((s[2] & 1) ? 2 : 1))
        return bad(w, "a dataspace that is not one eddy writes");
    *count = 1;
    for (unsigned i = 0; i < rank; i++) {
        uint64_t d = ck_le(s + head + 8 * i, 8);
        *count = d && *count > UINT64_MAX / d ? UINT64_MAX : *count * d;
    }
    return true;
}

/* Attribute message, version 1: name, datatype, dataspace and value
 * inside the message; the value's size from the datatype and dataspace. */
static bool attribute(walk *w, const unsigned char *m, uint64_t size)
{
    if (size < 8 || m[0] != 1)
        return bad(w, "an attribute message of version %u (eddy writes 1)", size ? m[0] : 0);
    /* The name, datatype and dataspace sizes, each padded to 8 bytes. */
    uint64_t type_len = ck_le(m + 4, 2), space_len = ck_le(m + 6, 2);
    uint64_t name = (ck_le(m + 2, 2) + 7) & ~7ull, type = (type_len + 7) & ~7ull, space = (space_len + 7) & ~7ull;
    if (name + type + space > size - 8)
        return bad(w, "an attribute message overruns its size");
    uint64_t bytes = 0, count = 0, room = size - 8 - name - type - space;
    if (!datatype(w, m + 8 + name, type_len, &bytes) || !dataspace(w, m + 8 + name + type, space_len, &count))
        return false;
    return count <= room / bytes ? true : bad(w, "an attribute's value overruns its message");
}

/* Fill value message (versions 1 to 3): a defined value fits. */
static bool fill_value(walk *w, const unsigned char *m, uint64_t size)
{
    unsigned version = size ? m[0] : 0;
    bool defined = version == 3 ? size >= 2 && (m[1] & 0x20) : size >= 4 && m[3] == 1;
    uint64_t at = version == 3 ? 2 : 4;
    if (version < 1 || version > 3 || size < at || (defined && (size < at + 4 || ck_le(m + at, 4) > size - at - 4)))
        return bad(w, "a fill value message that overruns its size");
    return true;
}

/* Filter pipeline message (version 1 or 2): each filter fits. */
static bool filters(walk *w, const unsigned char *m, uint64_t size)
{
    unsigned version = size >= 2 ? m[0] : 0, n = size >= 2 ? m[1] : 0;
    uint64_t at = version == 1 ? 8 : 2;
    if ((version != 1 && version != 2) || n > 32 || size < at)
        return bad(w, "a filter pipeline message of version %u with %u filters", version, n);
    for (unsigned i = 0; i < n; i++) {
        bool named = version == 1 || ck_le(m + at, 2) >= 256;
        uint64_t head = named ? 8 : 6;
        if (size - at < head)
            return bad(w, "a filter pipeline message overruns its size");
        uint64_t name = named ? ck_le(m + at + 2, 2) : 0, values = ck_le(m + at + head - 2, 2) * 4ull;
        if (version == 1)
            name = (name + 7) & ~7ull, values = (values + 7) & ~7ull;
        if (name + values > size - at - head)
            return bad(w, "a filter pipeline message overruns its size");
        at += head + name + values;
    }
    return true;
}

/* The message kinds eddy's files hold: NIL, dataspace, datatype, fill
 * value, data layout, filter pipeline, attribute, continuation, symbol
 * table, modification time. */
static bool known(unsigned type)
{
    static const unsigned kinds[] = { 0x0, 0x1, 0x3, 0x5, 0x8, 0xB, 0xC, 0x10, 0x11, 0x12 };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (kinds[i] == type)
            return true;
    return false;
}

/* The messages of one header block; continuations queued in next. */
static bool messages(walk *w, const unsigned char *b, uint64_t len, uint64_t next[][2], unsigned *nnext,
                     unsigned *count, int depth)
{
    for (uint64_t at = 0; at + 8 <= len;) {
        unsigned type = (unsigned)ck_le(b + at, 2), flags = b[at + 4];
        uint64_t size = ck_le(b + at + 2, 2);
        const unsigned char *m = b + at + 8;
        if (size > len - at - 8 || !known(type) || (flags & 2) || ++*count > 4096)
            return bad(w, "an object header message (type 0x%x, %llu bytes, flags 0x%x) that eddy does not write", type,
                       (unsigned long long)size, flags);
        bool ok = true;
        if (type == 0x10) {
            if (size < 16 || *nnext >= 16)
                return bad(w, "an object header continues more than 16 times");
            next[*nnext][0] = ck_le(m, 8);
            next[(*nnext)++][1] = ck_le(m + 8, 8);
        } else if (type == 0x11) {
            ok = group(w, m, size, depth);
        } else if (type == 0x8) {
            ok = layout(w, m, size, depth);
        } else if (type == 0xC) {
            ok = attribute(w, m, size);
        } else if (type == 0x1) {
            uint64_t count;
            ok = dataspace(w, m, size, &count);
        } else if (type == 0x3) {
            uint64_t bytes;
            ok = datatype(w, m, size, &bytes);
        } else if (type == 0x5) {
            ok = fill_value(w, m, size);
        } else if (type == 0xB) {
            ok = filters(w, m, size);
        } else if (type == 0x12 && size < 8) {
            ok = bad(w, "a modification time message of %llu bytes", (unsigned long long)size);
        }
        if (!ok)
            return false;
        at += 8 + size;
    }
    return true;
}

/* A version 1 object header and its continuation blocks. */
static bool object(walk *w, uint64_t rel, int depth)
{
    if (depth > CK_WALK_DEPTH)
        return bad(w, "groups nest deeper than %d", CK_WALK_DEPTH);
    for (unsigned i = 0; i < w->nseen; i++)
        if (w->seen[i] == rel)
            return bad(w, "the object at %llu is reached twice", (unsigned long long)rel);
    if (w->nseen == w->cap) {
        unsigned cap = w->cap ? 2 * w->cap : 64;
        uint64_t *s = realloc(w->seen, cap * sizeof *s);
        if (!s)
            return bad(w, "out of memory");
        w->seen = s, w->cap = cap;
    }
    w->seen[w->nseen++] = rel;
    unsigned char prefix[16];
    if (!fetch(w, rel, sizeof prefix, prefix, "an object header"))
        return false;
    if (prefix[0] != 1)
        return bad(w, "object header at %llu: version %u (eddy writes 1)", (unsigned long long)rel, prefix[0]);
    uint64_t next[16][2] = { { rel + 16, ck_le(prefix + 8, 4) } };
    unsigned nnext = 1, count = 0;
    unsigned char *b = malloc(CK_WALK_BLOCK);
    bool ok = b != NULL || bad(w, "out of memory");
    for (unsigned i = 0; ok && i < nnext; i++)
        ok = fetch(w, next[i][0], next[i][1], b, "an object header block") &&
             messages(w, b, next[i][1], next, &nnext, &count, depth);
    free(b);
    return ok;
}

/* The version 0 superblock at the end of eddy's user block, then the root
 * group. */
static bool superblock(walk *w)
{
    unsigned char b[96];
    if (pread(w->fd, b, sizeof b, CK_USERBLOCK) != (ssize_t)sizeof b ||
        memcmp(b, "\x89HDF\r\n\x1a\n", 8))
        return bad(w, "no HDF5 superblock after the %d-byte user block", CK_USERBLOCK);
    if (b[8] != 0 || b[13] != 8 || b[14] != 8)
        return bad(w, "superblock version %u with %u-byte offsets (eddy writes version 0, 8 bytes)", b[8], b[13]);
    w->leaf_k = (unsigned)ck_le(b + 16, 2), w->group_k = (unsigned)ck_le(b + 18, 2);
    w->base = ck_le(b + 24, 8);
    if (w->leaf_k == 0 || w->leaf_k > 64 || w->group_k == 0 || w->group_k > 64 || ck_le(b + 20, 4) != 0)
        return bad(w, "superblock B-tree ranks %u and %u, flags %llu", w->leaf_k, w->group_k,
                   (unsigned long long)ck_le(b + 20, 4));
    if (w->base != CK_USERBLOCK || ck_le(b + 32, 8) != UNDEF || ck_le(b + 40, 8) > w->size || ck_le(b + 48, 8) != UNDEF)
        return bad(w, "superblock addresses are not eddy's (base %llu, end %llu)", (unsigned long long)w->base,
                   (unsigned long long)ck_le(b + 40, 8));
    return object(w, ck_le(b + 64, 8), 0);
}

bool ck_walk(const char *path, char *err, size_t cap)
{
    walk w = { .err = err, .errcap = cap };
    err[0] = 0;
    struct stat st;
    w.fd = open(path, O_RDONLY);
    if (w.fd < 0 || fstat(w.fd, &st) != 0) {
        if (w.fd >= 0)
            close(w.fd);
        return bad(&w, "cannot be read");
    }
    w.size = (uint64_t)st.st_size;
    bool ok = w.size > CK_USERBLOCK && superblock(&w);
    if (!ok && !err[0])
        bad(&w, "too short for an HDF5 file");
    if (!ok) {
        char why[384];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, cap, "not an HDF5 structure eddy writes: %s", why);
    }
    free(w.seen);
    close(w.fd);
    return ok;
}
