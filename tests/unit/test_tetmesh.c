/* Tetrahedral meshes (scene/src/tetmesh*.c), no device:
 *  - data/tets bar_80, bar_5k and bunny_5k (TetGen): the vertex and tet
 *    counts of data/tets/index.json, total volume (4.0 for the bars), lumped
 *    mass = density * volume, unique sorted edges holding every tet edge
 *    (Euler: V - E + F - T = 1), a closed, consistently wound boundary of the
 *    index's triangle count whose enclosed volume is the tets' volume;
 *  - bar_80 as Gmsh 2.2 and 4.1 and as VTU ascii, appended raw, inline
 *    base64 and appended base64 (tests/data/tets, written by
 *    make_fixtures.py) loads to the same vertices (bitwise), tets and
 *    attributes;
 *  - a 201,600-tet grid: edges and boundary (counts known exactly), timed;
 *  - placement: scale, rotation and translation, orientation kept;
 *  - refusals, written to a temporary folder: each message names the
 *    problem (index out of range, inverted (and reorient accepting it),
 *    zero volume, NaN, duplicate tet, a vertex twice, truncated, wrong
 *    header, binary .msh, compressed and big-endian .vtu, a folder, counts
 *    over the limits, over a host memory budget); an unreferenced vertex
 *    loads and is counted. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "test.h"

#include "eddy/eddy_tetmesh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char err[2048];
static const char *root;
static char tmp[256];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static bool has_edge(const uint32_t *e, int64_t n, uint32_t a, uint32_t b)
{
    uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
    int64_t l = 0, h = n;
    while (l < h) {
        int64_t mid = l + (h - l) / 2;
        if (e[2 * mid] < lo || (e[2 * mid] == lo && e[2 * mid + 1] < hi))
            l = mid + 1;
        else
            h = mid;
    }
    return l < n && e[2 * l] == lo && e[2 * l + 1] == hi;
}

/* Volume, masses, edges and boundary of a loaded (or built) mesh. */
static void topology(const char *name, const eddy_tetmesh *m, double volume, int64_t boundary)
{
    double v = 0;
    uint32_t bad = 0;
    for (uint32_t t = 0; t < m->tet_count; t++) {
        double vt = eddy_tet_volume(m, t);
        bad += !(vt > 0);
        v += vt;
    }
    CHECKF(bad == 0, "%s: %u tets not positively oriented", name, bad);
    if (volume > 0)
        CHECKF(fabs(v - volume) <= 1e-5 * volume, "%s: volume %.9g, expected %.9g", name, v, volume);

    float *mass = malloc((size_t)m->vertex_count * sizeof *mass);
    REQUIRE(mass);
    double density = 1250, total = eddy_tetmesh_masses(m, density, mass), sum = 0;
    for (uint32_t i = 0; i < m->vertex_count; i++)
        sum += mass[i];
    CHECKF(fabs(total - density * v) <= 1e-12 * density * v, "%s: mass %.12g, density * volume %.12g", name, total,
           density * v);
    CHECKF(fabs(sum - total) <= 1e-5 * total, "%s: vertex masses sum to %.9g, total %.9g", name, sum, total);
    free(mass);

    uint32_t *e;
    int64_t ne = eddy_tetmesh_edges(m, &e);
    REQUIRE(ne > 0);
    uint32_t unsorted = 0, missing = 0;
    for (int64_t i = 0; i < ne; i++) {
        unsorted += !(e[2 * i] < e[2 * i + 1]);
        if (i)
            unsorted += !(e[2 * i - 2] < e[2 * i] || (e[2 * i - 2] == e[2 * i] && e[2 * i - 1] < e[2 * i + 1]));
    }
    for (uint32_t t = 0; t < m->tet_count; t++)
        for (int a = 0; a < 4; a++)
            for (int b = a + 1; b < 4; b++)
                missing += !has_edge(e, ne, m->tets[4 * t + a], m->tets[4 * t + b]);
    CHECKF(unsorted == 0 && missing == 0, "%s: edges: %u not unique and sorted, %u tet edges missing", name, unsorted,
           missing);
    free(e);

    uint32_t *tri;
    int64_t nb = eddy_tetmesh_boundary(m, &tri);
    REQUIRE(nb > 0);
    if (boundary > 0)
        CHECKF(nb == boundary, "%s: %lld boundary triangles, expected %lld", name, (long long)nb, (long long)boundary);
    /* Closed: every directed edge's reverse is there once, and no edge twice the same way. */
    uint64_t *d = malloc((size_t)nb * 3 * sizeof *d);
    REQUIRE(d);
    for (int64_t i = 0; i < nb; i++)
        for (int k = 0; k < 3; k++)
            d[3 * i + k] = (uint64_t)tri[3 * i + k] << 32 | tri[3 * i + (k + 1) % 3];
    qsort(d, (size_t)nb * 3, sizeof *d, cmp_u64);
    uint32_t open = 0;
    for (int64_t i = 0; i < 3 * nb; i++) {
        uint64_t rev = d[i] << 32 | d[i] >> 32;
        open += !bsearch(&rev, d, (size_t)nb * 3, sizeof *d, cmp_u64) || (i && d[i] == d[i - 1]);
    }
    CHECKF(open == 0, "%s: the boundary is not closed or not consistently wound (%u edges)", name, open);
    free(d);
    double enclosed = 0;
    for (int64_t i = 0; i < nb; i++) {
        const float *p = m->vertices + 3 * tri[3 * i], *q = m->vertices + 3 * tri[3 * i + 1],
                    *r = m->vertices + 3 * tri[3 * i + 2];
        enclosed += ((double)p[0] * ((double)q[1] * r[2] - (double)q[2] * r[1]) -
                     (double)p[1] * ((double)q[0] * r[2] - (double)q[2] * r[0]) +
                     (double)p[2] * ((double)q[0] * r[1] - (double)q[1] * r[0])) / 6.0;
    }
    CHECKF(fabs(enclosed - v) <= 1e-6 * v, "%s: the boundary encloses %.12g, the tets' volume is %.12g", name,
           enclosed, v);
    free(tri);
    /* Euler characteristic of a solid ball. */
    int64_t faces = (4 * (int64_t)m->tet_count + nb) / 2;
    int64_t chi = (int64_t)(m->vertex_count - m->unreferenced) - ne + faces - (int64_t)m->tet_count;
    CHECKF(chi == 1, "%s: V - E + F - T = %lld, expected 1 (V %u, E %lld, F %lld, T %u)", name, (long long)chi,
           m->vertex_count - m->unreferenced, (long long)ne, (long long)faces, m->tet_count);
    printf("%s: %u vertices, %u tets, volume %.9g, %lld edges, %lld boundary triangles enclosing %.9g\n", name,
           m->vertex_count, m->tet_count, v, (long long)ne, (long long)nb, enclosed);
}

static eddy_tetmesh load(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    eddy_tetmesh m;
    int rc = eddy_load_tetmesh(path, NULL, &m, err, sizeof err);
    CHECKF(rc == 0, "%s: %s", rel, err);
    return m;
}

static void dataset(const char *name, uint32_t nv, uint32_t nt, double volume, int64_t boundary)
{
    char rel[256];
    snprintf(rel, sizeof rel, "data/tets/%s.node", name);
    eddy_tetmesh m = load(rel);
    if (!m.tets)
        return;
    CHECKF(m.vertex_count == nv && m.tet_count == nt, "%s: %u vertices and %u tets, expected %u and %u", name,
           m.vertex_count, m.tet_count, nv, nt);
    CHECKF(m.attribute_count == 2 && m.attributes && m.markers, "%s: %u attributes, markers %p", name,
           m.attribute_count, (void *)m.markers);
    CHECKF(m.unreferenced == 0 && m.reoriented == 0, "%s: unreferenced %u, reoriented %u", name, m.unreferenced,
           m.reoriented);
    topology(name, &m, volume, boundary);
    eddy_free_tetmesh(&m);
}

/* A host memory budget (eddy_tetmesh_desc.max_bytes): bar_5k's files
 * alone are over 100 kB, so 50 kB refuses it before its arrays are made, a
 * budget under the arrays refuses it after the files, and 8 MB loads it. */
static void budget(void)
{
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/data/tets/bar_5k.node", root);
    eddy_tetmesh m;
    const uint64_t budgets[] = { 50000, 200000, 8u << 20 };
    for (int i = 0; i < 3; i++) {
        int rc = eddy_load_tetmesh(path, &(eddy_tetmesh_desc){ EDDY_SIZED(eddy_tetmesh_desc), .max_bytes = budgets[i] }, &m, err, sizeof err);
        if (i < 2) {
            CHECKF(rc != 0 && strstr(err, "max_bytes") && !m.vertices && !m.tets,
                   "a budget of %llu bytes: rc %d, %s", (unsigned long long)budgets[i], rc, rc ? err : "loaded");
        } else {
            CHECKF(rc == 0 && m.tet_count == 4920, "a budget of 8 MB: %s", rc ? err : "wrong count");
            eddy_free_tetmesh(&m);
        }
    }
}

/* A fixture against the TetGen original: bitwise the same. */
static void same(const eddy_tetmesh *ref, const char *rel, bool attributes)
{
    eddy_tetmesh m = load(rel);
    if (!m.tets)
        return;
    CHECKF(m.vertex_count == ref->vertex_count && m.tet_count == ref->tet_count, "%s: %u vertices, %u tets", rel,
           m.vertex_count, m.tet_count);
    if (m.vertex_count == ref->vertex_count && m.tet_count == ref->tet_count) {
        CHECKF(memcmp(m.vertices, ref->vertices, 3 * sizeof(float) * m.vertex_count) == 0, "%s: vertices differ",
               rel);
        CHECKF(memcmp(m.tets, ref->tets, 4 * sizeof(uint32_t) * m.tet_count) == 0, "%s: tets differ", rel);
    }
    if (attributes) {
        CHECKF(m.attribute_count == ref->attribute_count && m.attributes &&
                   memcmp(m.attributes, ref->attributes, sizeof(float) * m.attribute_count * m.vertex_count) == 0,
               "%s: attributes differ (%u)", rel, m.attribute_count);
    } else {
        CHECKF(m.attribute_count == 0 && !m.attributes, "%s: %u attributes", rel, m.attribute_count);
    }
    CHECKF(!m.markers && m.unreferenced == 0 && m.reoriented == 0, "%s: markers %p, unreferenced %u, reoriented %u",
           rel, (void *)m.markers, m.unreferenced, m.reoriented);
    printf("%s: the same as bar_80.node/.ele\n", rel);
    eddy_free_tetmesh(&m);
}

/* ------------------------------------------------------------------------ */
/* Hostile files, written to the temporary folder                           */

static char *tmp_path(const char *name)
{
    static char path[4][512];
    static int k;
    char *p = path[k++ & 3];
    snprintf(p, sizeof path[0], "%s/%s", tmp, name);
    return p;
}

static void put(const char *name, const char *text, size_t len)
{
    FILE *f = fopen(tmp_path(name), "wb");
    REQUIRE(f);
    REQUIRE(fwrite(text, 1, len, f) == len);
    fclose(f);
}

static void puts_file(const char *name, const char *text)
{
    put(name, text, strlen(text));
}

/* bar_80 as TetGen text: header counts as given, `lines` point or tet lines
 * written, vertex/tet `edit` (1-based; 0: none) given by `line` instead. */
static void write_node(const char *name, const eddy_tetmesh *m, const char *header, uint32_t lines, uint32_t edit,
                       const char *line)
{
    FILE *f = fopen(tmp_path(name), "w");
    REQUIRE(f);
    fprintf(f, "# hostile variant of bar_80\n%s\n", header);
    for (uint32_t i = 0; i < lines; i++) {
        if (i + 1 == edit) {
            fprintf(f, "%s\n", line);
            continue;
        }
        const float *x = m->vertices + 3 * i;
        fprintf(f, "%u %.9g %.9g %.9g %.9g %.9g %d\n", i + 1, x[0], x[1], x[2], m->attributes[2 * i],
                m->attributes[2 * i + 1], m->markers[i]);
    }
    fclose(f);
}

static void write_ele(const char *name, const eddy_tetmesh *m, const char *header, uint32_t lines, uint32_t edit,
                      const char *line)
{
    FILE *f = fopen(tmp_path(name), "w");
    REQUIRE(f);
    fprintf(f, "%s\n", header);
    for (uint32_t t = 0; t < lines; t++) {
        if (t + 1 == edit) {
            fprintf(f, "%s # edited\n", line);
            continue;
        }
        const uint32_t *k = m->tets + 4 * t;
        fprintf(f, "%u %u %u %u %u\n", t + 1, k[0] + 1, k[1] + 1, k[2] + 1, k[3] + 1);
    }
    fclose(f);
}

/* Loads a pair from the temporary folder: refused with every piece of `want` in the message. */
static void refused_pair(const char *what, const char *node, const char *ele, const char *want[])
{
    eddy_tetmesh m;
    memset(&m, 0xab, sizeof m);
    int rc = eddy_load_tetgen(tmp_path(node), tmp_path(ele), NULL, &m, err, sizeof err);
    eddy_tetmesh zero;
    memset(&zero, 0, sizeof zero);
    CHECKF(rc == -1, "%s: loaded", what);
    CHECKF(memcmp(&m, &zero, sizeof m) == 0, "%s: *out not zeroed", what);
    for (int i = 0; want[i]; i++)
        CHECKF(strstr(err, want[i]), "%s: '%s' not in the message: %s", what, want[i], err);
    printf("refused (%s): %s\n", what, err);
    if (rc == 0)
        eddy_free_tetmesh(&m);
}

static void refused(const char *what, const char *path, const char *want[])
{
    eddy_tetmesh m;
    int rc = eddy_load_tetmesh(path, NULL, &m, err, sizeof err);
    CHECKF(rc == -1, "%s: loaded", what);
    CHECKF(!m.vertices && !m.tets && !m.attributes && !m.markers && !m.vertex_count && !m.tet_count,
           "%s: *out not zeroed", what);
    for (int i = 0; want[i]; i++)
        CHECKF(strstr(err, want[i]), "%s: '%s' not in the message: %s", what, want[i], err);
    printf("refused (%s): %s\n", what, err);
    if (rc == 0)
        eddy_free_tetmesh(&m);
}

#define WANT(...) ((const char *[]){ __VA_ARGS__, NULL })

static char *slurp(const char *rel, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s%s%s", rel[0] == '/' ? "" : root, rel[0] == '/' ? "" : "/", rel);
    FILE *f = fopen(path, "rb");
    REQUIRE(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    REQUIRE(s && fread(s, 1, (size_t)n, f) == (size_t)n);
    s[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return s;
}

/* `text` with the first `from` replaced by `to`, into the temporary folder. */
static void put_replaced(const char *name, const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    REQUIRE(at);
    size_t a = (size_t)(at - text), n = strlen(text) + strlen(to) + 1;
    char *s = malloc(n);
    REQUIRE(s);
    snprintf(s, n, "%.*s%s%s", (int)a, text, to, at + strlen(from));
    puts_file(name, s);
    free(s);
}

static void hostile(const eddy_tetmesh *bar)
{
    char h[64];
    snprintf(h, sizeof h, "%u 3 2 1", bar->vertex_count);
    write_node("bar.node", bar, h, bar->vertex_count, 0, NULL);
    snprintf(h, sizeof h, "%u 4 0", bar->tet_count);
    write_ele("bar.ele", bar, h, bar->tet_count, 0, NULL);
    /* The round trip through text loads. */
    eddy_tetmesh m;
    CHECKF(eddy_load_tetgen(tmp_path("bar.node"), tmp_path("bar.ele"), NULL, &m, err, sizeof err) == 0, "%s", err);
    eddy_free_tetmesh(&m);

    const uint32_t *k = bar->tets + 4 * 4; /* tet 5 */
    char line[256];
    snprintf(line, sizeof line, "5 %u %u %u 39", k[0] + 1, k[1] + 1, k[2] + 1);
    write_ele("range.ele", bar, h, bar->tet_count, 5, line);
    refused_pair("index out of range", "bar.node", "range.ele",
                 WANT("range.ele:6: tet 5 names vertex 39, out of range 1..38"));

    snprintf(line, sizeof line, "5 %u %u %u %u", k[0] + 1, k[1] + 1, k[3] + 1, k[2] + 1);
    write_ele("inverted.ele", bar, h, bar->tet_count, 5, line);
    refused_pair("inverted", "bar.node", "inverted.ele", WANT("inverted.ele:6: tet 5 is inverted", "reorient"));
    CHECKF(eddy_load_tetgen(tmp_path("bar.node"), tmp_path("inverted.ele"), &(eddy_tetmesh_desc){ EDDY_SIZED(eddy_tetmesh_desc), .reorient = true },
                            &m, err, sizeof err) == 0, "reorient: %s", err);
    CHECKF(m.reoriented == 1, "reorient: %u turned", m.reoriented);
    uint32_t negative = 0;
    for (uint32_t t = 0; t < m.tet_count; t++)
        negative += !(eddy_tet_volume(&m, t) > 0);
    CHECKF(negative == 0, "reorient: %u tets still inverted", negative);
    printf("reorient: %u tet turned around\n", m.reoriented);
    eddy_free_tetmesh(&m);

    /* Tet 7 as tet 2's vertices, cyclically shifted (the same orientation). */
    const uint32_t *k2 = bar->tets + 4;
    snprintf(line, sizeof line, "7 %u %u %u %u", k2[1] + 1, k2[2] + 1, k2[0] + 1, k2[3] + 1);
    write_ele("duplicate.ele", bar, h, bar->tet_count, 7, line);
    refused_pair("duplicate", "bar.node", "duplicate.ele",
                 WANT("duplicate.ele:8: tet 7 is a duplicate of tet 2 (line 3)"));

    snprintf(line, sizeof line, "5 %u %u %u %u", k[0] + 1, k[1] + 1, k[2] + 1, k[1] + 1);
    write_ele("twice.ele", bar, h, bar->tet_count, 5, line);
    char want[64];
    snprintf(want, sizeof want, "tet 5 names vertex %u twice", k[1] + 1);
    refused_pair("a vertex twice", "bar.node", "twice.ele", WANT(want));

    snprintf(h, sizeof h, "%u 3 2 1", bar->vertex_count);
    write_node("nan.node", bar, h, bar->vertex_count, 3, "3 0 nan 1 0.5 0 1");
    refused_pair("NaN", "nan.node", "bar.ele", WANT("nan.node:5: point 3: coordinate nan is not finite"));
    write_node("huge.node", bar, h, bar->vertex_count, 3, "3 0 1e39 1 0.5 0 1");
    refused_pair("over a float", "huge.node", "bar.ele", WANT("huge.node:5: point 3: coordinate 1e+39 is not finite as a float"));

    snprintf(h, sizeof h, "%u 4 0", bar->tet_count);
    write_ele("truncated.ele", bar, h, 80, 0, NULL);
    refused_pair("truncated", "bar.node", "truncated.ele",
                 WANT("truncated.ele:81: the file ends after 80 of the 84 tets", "truncated"));
    snprintf(h, sizeof h, "%u 3 2 1", bar->vertex_count);
    write_node("cut.node", bar, h, 20, 0, NULL);
    refused_pair("truncated .node", "cut.node", "bar.ele", WANT("cut.node", "truncated"));

    write_node("dim.node", bar, "38 2 2 1", bar->vertex_count, 0, NULL);
    refused_pair("wrong header", "dim.node", "bar.ele", WANT("dim.node:2: header: dimension 2, expected 3"));
    write_node("words.node", bar, "points 3 2 1", bar->vertex_count, 0, NULL);
    refused_pair("not a header", "words.node", "bar.ele", WANT("words.node:2: expected the header"));
    write_node("attrs.node", bar, "38 3 9 1", bar->vertex_count, 0, NULL);
    refused_pair("too many attributes", "attrs.node", "bar.ele", WANT("9 attributes", "EDDY_TET_MAX_ATTRIBUTES"));
    write_node("many.node", bar, "16777217 3 2 1", bar->vertex_count, 0, NULL);
    refused_pair("over the count limit", "many.node", "bar.ele", WANT("16777217 points", "EDDY_TET_MAX_ELEMENTS"));
    write_node("claims.node", bar, "16000000 3 2 1", bar->vertex_count, 0, NULL);
    refused_pair("count over the file", "claims.node", "bar.ele", WANT("16000000 points", "truncated"));
    write_node("gap.node", bar, "38 3 2 1", bar->vertex_count, 9, "10 2 0 0 0.5 0 1");
    refused_pair("not consecutive", "gap.node", "bar.ele", WANT("point index 10, expected 9"));
    size_t len;
    char *text = slurp(tmp_path("bar.node"), &len);
    char *l5 = strstr(text, "\n4 ");
    REQUIRE(l5);
    l5[2] = 0; /* "4\0..." on line 6 */
    put("nul.node", text, len);
    free(text);
    refused_pair("NUL byte", "nul.node", "bar.ele", WANT("nul.node:6: a NUL byte"));

    /* Zero volume: four points in the plane z = 0 (with a good tet first). */
    puts_file("flat.node", "5 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 0\n");
    puts_file("flat.ele", "2 4 0\n1 1 2 3 4\n2 1 2 5 3\n");
    refused_pair("zero volume", "flat.node", "flat.ele", WANT("flat.ele:3: tet 2 has zero volume: 0 m^3"));

    /* An unreferenced vertex loads and is counted. */
    snprintf(h, sizeof h, "%u 3 2 1", bar->vertex_count + 1);
    write_node("extra.node", bar, h, bar->vertex_count + 1, bar->vertex_count + 1, "39 9 9 9 0 0 0");
    CHECKF(eddy_load_tetgen(tmp_path("extra.node"), tmp_path("bar.ele"), NULL, &m, err, sizeof err) == 0, "%s", err);
    CHECKF(m.unreferenced == 1 && m.vertex_count == 39, "unreferenced: %u of %u", m.unreferenced, m.vertex_count);
    printf("unreferenced: %u of %u vertices\n", m.unreferenced, m.vertex_count);
    eddy_free_tetmesh(&m);

    /* Gmsh. */
    char *msh = slurp("tests/data/tets/bar_80_v22.msh", &len);
    put("binary.msh", "$MeshFormat\n2.2 1 8\n\x01\0\0\0\n$EndMeshFormat\n", 37);
    refused("binary .msh", tmp_path("binary.msh"), WANT("binary.msh:2: a binary .msh file", "ASCII"));
    put_replaced("v3.msh", msh, "2.2 0 8", "3 0 8");
    refused(".msh version", tmp_path("v3.msh"), WANT("version 3: expected 2.2 or 4.1"));
    put_replaced("node.msh", msh, "\n42 4 2 2 1 ", "\n42 4 2 2 1 99 ");
    refused(".msh unknown node", tmp_path("node.msh"), WANT("element 42 names node 99, which $Nodes does not list"));
    put_replaced("notmsh.msh", msh, "$MeshFormat", "MeshFormat");
    refused("not a .msh", tmp_path("notmsh.msh"), WANT("expected $MeshFormat"));
    char *cut = strchr(msh + len / 2, '\n');
    REQUIRE(cut);
    cut[1] = 0; /* whole lines */
    puts_file("half.msh", msh);
    refused("truncated .msh", tmp_path("half.msh"), WANT("the file ends where an element was expected (truncated?)"));
    free(msh);

    /* VTK. */
    char *vtu = slurp("tests/data/tets/bar_80_ascii.vtu", &len);
    put_replaced("zlib.vtu", vtu, "byte_order", "compressor=\"vtkZLibDataCompressor\" byte_order");
    refused("compressed .vtu", tmp_path("zlib.vtu"), WANT("compressed data", "vtkZLibDataCompressor"));
    put_replaced("big.vtu", vtu, "LittleEndian", "BigEndian");
    refused("big-endian .vtu", tmp_path("big.vtu"), WANT("BigEndian", "only LittleEndian"));
    put_replaced("conncount.vtu", vtu, "Name=\"connectivity\" format=\"ascii\">",
                 "Name=\"connectivity\" format=\"ascii\">38 ");
    refused(".vtu connectivity count", tmp_path("conncount.vtu"),
            WANT("DataArray 'connectivity' holds 346 values, expected 345"));
    puts_file("cellrange.vtu",
              "<VTKFile type=\"UnstructuredGrid\" byte_order=\"LittleEndian\">\n<UnstructuredGrid>\n"
              "<Piece NumberOfPoints=\"4\" NumberOfCells=\"1\">\n<Points><DataArray type=\"Float32\" "
              "NumberOfComponents=\"3\" format=\"ascii\">0 0 0 1 0 0 0 1 0 0 0 1</DataArray></Points>\n<Cells>\n"
              "<DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">0 1 2 4</DataArray>\n"
              "<DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">4</DataArray>\n"
              "<DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">10</DataArray>\n"
              "</Cells></Piece></UnstructuredGrid></VTKFile>\n");
    refused(".vtu index out of range", tmp_path("cellrange.vtu"),
            WANT("cellrange.vtu:6: cell 0 names point 4, out of range 0..3"));
    put_replaced("poly.vtu", vtu, "UnstructuredGrid\"", "PolyData\"");
    refused(".vtu type", tmp_path("poly.vtu"), WANT("expected UnstructuredGrid"));
    vtu[len - 40] = 0;
    puts_file("cut.vtu", vtu);
    refused("truncated .vtu", tmp_path("cut.vtu"), WANT("truncated"));
    free(vtu);
    char *raw = slurp("tests/data/tets/bar_80_appended_raw.vtu", &len);
    put("cut_raw.vtu", raw, len - 200);
    refused("truncated appended data", tmp_path("cut_raw.vtu"), WANT("past the end of the appended data"));
    free(raw);
    char *bin = slurp("tests/data/tets/bar_80_binary.vtu", &len);
    put_replaced("b64.vtu", bin, "MAEAAA==", "MAEA*A==");
    refused("bad base64", tmp_path("b64.vtu"), WANT("'wave'", "base64"));
    free(bin);

    /* Not a file, not there, not a mesh. */
    char dir[512];
    snprintf(dir, sizeof dir, "%s/folder.msh", tmp);
    REQUIRE(mkdir(dir, 0700) == 0);
    refused("a folder", dir, WANT("folder.msh: not a regular file"));
    refused("missing", tmp_path("none.vtu"), WANT("none.vtu: cannot open"));
    refused("missing pair", tmp_path("bar2.node"), WANT("bar2.node: cannot open"));
    refused("extension", tmp_path("bar.obj"), WANT("unknown extension"));
    rmdir(dir);
}

static void cleanup(void)
{
    static const char *names[] = { "bar.node", "bar.ele", "range.ele", "inverted.ele", "duplicate.ele", "twice.ele",
                                   "nan.node", "huge.node", "truncated.ele", "cut.node", "dim.node", "words.node",
                                   "attrs.node", "many.node", "claims.node", "gap.node", "nul.node", "flat.node",
                                   "flat.ele", "extra.node", "binary.msh", "v3.msh", "node.msh", "notmsh.msh",
                                   "half.msh", "zlib.vtu", "big.vtu", "conncount.vtu", "cellrange.vtu", "poly.vtu", "cut.vtu",
                                   "cut_raw.vtu", "b64.vtu" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        unlink(tmp_path(names[i]));
    CHECKF(rmdir(tmp) == 0, "the temporary folder %s is not empty", tmp);
}

/* A grid of nx x ny x nz cubes, 6 tets each (Kuhn: the same diagonal in every cube, so faces match). */
static eddy_tetmesh grid(uint32_t nx, uint32_t ny, uint32_t nz)
{
    eddy_tetmesh m;
    memset(&m, 0, sizeof m);
    m.vertex_count = (nx + 1) * (ny + 1) * (nz + 1);
    m.tet_count = 6 * nx * ny * nz;
    m.vertices = malloc(3 * sizeof(float) * m.vertex_count);
    m.tets = malloc(4 * sizeof(uint32_t) * m.tet_count);
    REQUIRE(m.vertices && m.tets);
    for (uint32_t k = 0; k <= nz; k++)
        for (uint32_t j = 0; j <= ny; j++)
            for (uint32_t i = 0; i <= nx; i++) {
                float *v = m.vertices + 3 * ((k * (ny + 1) + j) * (nx + 1) + i);
                v[0] = 0.1f * (float)i, v[1] = 0.1f * (float)j, v[2] = 0.1f * (float)k;
            }
    static const int perm[6][3] = { { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 } };
    uint32_t t = 0;
    for (uint32_t k = 0; k < nz; k++)
        for (uint32_t j = 0; j < ny; j++)
            for (uint32_t i = 0; i < nx; i++)
                for (int p = 0; p < 6; p++) {
                    uint32_t c[3] = { i, j, k }, *o = m.tets + 4 * t;
                    for (int s = 0; s < 4; s++) {
                        if (s)
                            c[perm[p][s - 1]]++;
                        o[s] = (c[2] * (ny + 1) + c[1]) * (nx + 1) + c[0];
                    }
                    if (eddy_tet_volume(&m, t) < 0) {
                        uint32_t x = o[2];
                        o[2] = o[3];
                        o[3] = x;
                    }
                    t++;
                }
    return m;
}

int main(int argc, char **argv)
{
    REQUIRE(argc > 1);
    root = argv[1];

    /* Counts, volumes and boundary sizes from data/tets/index.json. */
    dataset("bar_80", 38, 84, 4.0, 72);
    dataset("bar_5k", 1275, 4920, 4.0, 1730);
    dataset("bunny_5k", 1028, 4830, 0.1978897206598121, 1000);

    eddy_tetmesh bar = load("data/tets/bar_80.ele");
    REQUIRE(bar.tets && bar.vertex_count == 38 && bar.tet_count == 84);
    same(&bar, "tests/data/tets/bar_80_v22.msh", false);
    same(&bar, "tests/data/tets/bar_80_v41.msh", false);
    same(&bar, "tests/data/tets/bar_80_ascii.vtu", true);
    same(&bar, "tests/data/tets/bar_80_appended_raw.vtu", true);
    same(&bar, "tests/data/tets/bar_80_binary.vtu", true);
    same(&bar, "tests/data/tets/bar_80_appended_b64.vtu", true);

    /* Placement: x' = 2 R x + t (R: 90 degrees about z) keeps the orientation, volume x 8. */
    eddy_tetmesh moved = load("data/tets/bar_80.node");
    REQUIRE(moved.tets);
    double q[4] = { sqrt(0.5), 0, 0, sqrt(0.5) }, tr[3] = { 1, 2, 3 };
    eddy_tetmesh_transform(&moved, 2.0, q, tr);
    const float *p = moved.vertices + 3 * 4; /* vertex 5: (4, 0, 1) -> (1, 2 * 4 + 2, 2 * 1 + 3) */
    CHECKF(fabsf(p[0] - 1) < 1e-5f && fabsf(p[1] - 10) < 1e-5f && fabsf(p[2] - 5) < 1e-5f, "moved: %g %g %g", p[0],
           p[1], p[2]);
    topology("bar_80 placed", &moved, 32.0, 72);
    eddy_free_tetmesh(&moved);

    /* 201,600 tets: edges and boundary. */
    uint32_t nx = 40, ny = 30, nz = 28;
    eddy_tetmesh g = grid(nx, ny, nz);
    double t0 = now();
    topology("grid", &g, 0.1 * 0.1 * 0.1 * nx * ny * nz, 4ll * (nx * ny + ny * nz + nx * nz));
    uint32_t *e, *tri;
    double t1 = now();
    int64_t ne = eddy_tetmesh_edges(&g, &e), nb = eddy_tetmesh_boundary(&g, &tri);
    double t2 = now();
    printf("grid: %u tets: all checks %.2f s; edges and boundary %.3f s\n", g.tet_count, t1 - t0, t2 - t1);
    CHECK(ne > 0 && nb > 0);
    free(e);
    free(tri);
    eddy_free_tetmesh(&g);

    snprintf(tmp, sizeof tmp, "%s/eddy_tetmesh_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    REQUIRE(mkdtemp(tmp));
    hostile(&bar);
    budget();
    cleanup();
    eddy_free_tetmesh(&bar);
    return test_report("tetmesh");
}
