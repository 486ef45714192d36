/* Between the tetrahedral mesh files of the scene layer (not installed):
 *   tetmesh.c         the shared part: reading a file whole, text lines and
 *                     tokens, what a loader builds, the checks, the public
 *                     entry points, placement and derived quantities
 *   tetmesh_tetgen.c  TetGen .node/.ele
 *   tetmesh_msh.c     Gmsh .msh
 *   tetmesh_vtu.c     VTK .vtu, on the two below
 *   xml_tok.c         the XML tokenizer (tags and attributes, no tree)
 *   base64.c          the base64 decoder
 * The input rules (hostile files, bounded sizes, errors into err) are
 * tetmesh.c's, at its top. */
#ifndef EDDY_TETMESH_INTERNAL_H
#define EDDY_TETMESH_INTERNAL_H

#include "eddy/eddy_tetmesh.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest text line the TetGen and Gmsh readers take (a line of a
 * section the Gmsh reader skips may be longer). */
#define TET_LINE_MAX 4096

/* Inline: the tokenizer and the decoder test every character with it. */
static inline bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* count * elem bytes, or NULL when that overflows or memory is out. */
void *tet_alloc_array(uint64_t count, size_t elem);

/* ------------------------------------------------------------------------ */
/* What a loader builds                                                     */

typedef struct tet_load {
    eddy_tetmesh *m;
    char *err;
    size_t n;
    const char *tpath, *vpath; /* the files the tets and the vertices come from */
    const char *tword, *vword; /* "tet", "element", "cell"; "vertex", "node", "point" */
    const char *vwords;        /* "vertices", "nodes", "points" */
    int64_t *tnum;             /* per tet: its number in the file */
    uint32_t *tline;           /* per tet: its line (0: none) */
    uint32_t tcap;
    int64_t vbase;             /* vertex i is vbase + i in the file ... */
    int64_t *vnum;             /* ... or vnum[i] (Gmsh node tags) */
    uint64_t budget, used;     /* host bytes (eddy_tetmesh_desc.max_bytes), taken so far */
} tet_load;

/* Takes count * elem bytes of the budget before they are allocated; -1 with
 * a message naming the budget when they do not fit. */
int tet_take(tet_load *L, const char *path, uint64_t count, uint64_t elem);
/* The whole file, NUL-terminated (data[size] is 0), its bytes taken from
 * the budget; `what` names the file expected in a refusal. */
int tet_read_file(tet_load *L, const char *path, const char *what, char **data, size_t *size);
/* Room for `cap` tets (and their numbers and lines). */
int tet_reserve(tet_load *L, uint32_t cap);
/* A tet (indices from 0), its number in the file and its line (0: none). */
int tet_add(tet_load *L, const uint32_t k[4], int64_t num, uint32_t line);

/* The readers: each fills L->m (vertices, tets, attributes) or returns -1
 * with a message in L->err; the caller checks the mesh and frees. */
int tet_load_tetgen(tet_load *L, const char *node_path, const char *ele_path);
int tet_load_msh(tet_load *L, const char *path);
int tet_load_vtu(tet_load *L, const char *path);

/* ------------------------------------------------------------------------ */
/* Text, line by line (TetGen, Gmsh)                                        */

/* Each line is NUL-terminated in place, trimmed, and blank lines (and with
 * `hash`, '#' comments) are skipped. */
typedef struct tet_text {
    const char *path;
    char *p, *end;
    uint32_t line; /* the line last read, from 1 */
    bool hash;
} tet_text;

/* The next line with content, or NULL at the end of the file (*rc 0) or on
 * an error (*rc -1): a line over `max` characters, a NUL byte. */
char *tet_next_line(tet_text *t, size_t max, int *rc, char *err, size_t n);
/* Nothing but whitespace left. */
bool tet_at_end(char *s);
/* An integer token (then a space or the end of the line). Out of range
 * values come back clamped (strtoll), so range checks refuse them. */
bool tet_get_ll(char **p, long long *v);
/* A real token (then a space or the end of the line). */
bool tet_get_d(char **p, double *v);
/* A double as a float: false when it is finite but out of a float's range. */
bool tet_to_float(double x, float *f);

/* ------------------------------------------------------------------------ */
/* XML tokens (xml_tok.c)                                                   */

/* A tag's attributes, and how deep its elements nest. */
#define XML_MAX_ATTRS 32
#define XML_MAX_DEPTH 64

typedef struct xattr {
    const char *name, *val;
    size_t nlen, vlen;
} xattr;

typedef struct xtag {
    const char *name;
    size_t nlen;
    xattr a[XML_MAX_ATTRS];
    int na;
    bool close, empty; /* </name>, <name/> */
    size_t at, end;    /* the offsets of its '<' and past its '>' */
} xtag;

/* A document in memory. On an error the tokenizer says what is wrong in
 * err and where (err_at, an offset of d); the caller names the file. */
typedef struct xml_doc {
    const char *d;
    size_t size;
    size_t err_at;
    char err[512];
} xml_doc;

/* The next tag at or past *pos: 1, 0 at the end of the document, -1 on an
 * error. Comments, processing instructions and declarations are skipped. */
int xml_next_tag(xml_doc *x, size_t *pos, xtag *t);
/* The n characters at s are `want`. */
bool xml_is(const char *s, size_t n, const char *want);
/* A tag's attribute by name, or NULL. */
const xattr *xml_attr(const xtag *t, const char *name);
/* A decimal attribute value (spaces around allowed). */
bool xml_u64(const char *s, size_t n, uint64_t *v);

/* ------------------------------------------------------------------------ */
/* Base64 (base64.c)                                                        */

/* Decoded quantum by quantum, whitespace skipped, from s[i] to s[end]. A
 * quantum with '=' padding ends a block and another may follow: VTK encodes
 * a block's header and its data apart, other writers together; both decode
 * the same. */
typedef struct b64 {
    const char *s;
    size_t i, end;
    uint8_t left[3];
    int nleft, lpos;
} b64;

/* `want` bytes into out: 0, or -1 at a bad character or the end of the data. */
int b64_get(b64 *b, uint8_t *out, uint64_t want);

#endif
