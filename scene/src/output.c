/* Output files: VTK XML PolyData particles (.vtp), the .pvd time series and
 * JSON-lines statistics. Every file is written to a temporary name and renamed
 * into place, so a reader (or a crash) never sees half a file. */
#include "output.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

int eddy_mkdirs(const char *path, char *err, size_t err_cap)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        snprintf(err, err_cap, "output folder path too long");
        return -1;
    }
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
                snprintf(err, err_cap, "cannot create folder '%s': %s", buf, strerror(errno));
                return -1;
            }
            *p = c;
            if (!c)
                break;
        }
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, err_cap, "'%s' exists and is not a folder", path);
        return -1;
    }
    return 0;
}

FILE *eddy_atomic_open(const char *path, char *tmp, size_t tmp_cap)
{
    if (snprintf(tmp, tmp_cap, "%s.tmp", path) >= (int)tmp_cap) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    return fopen(tmp, "wb");
}

/* Length of the UTF-8 sequence at s, or 0 when it is not valid (overlong
 * forms, surrogates and code points past U+10FFFF included). */
static size_t utf8_length(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) || (c == 0xf0 && s[1] < 0x90) ||
        (c == 0xf4 && s[1] > 0x8f))
        return 0;
    return n;
}

const char *eddy_name_problem(const char *name, size_t max_bytes)
{
    size_t len = strlen(name);
    if (len == 0)
        return "it is empty";
    if (len > max_bytes)
        return "it is too long";
    if (strstr(name, ".."))
        return "it contains \"..\"";
    for (const unsigned char *p = (const unsigned char *)name; *p;) {
        if (*p == '/' || *p == '\\')
            return "it contains a '/' or '\\' (a name is one file name part, not a path)";
        if (*p < 0x20 || *p == 0x7f)
            return "it contains a control character";
        size_t n = utf8_length(p);
        if (!n)
            return "it is not valid UTF-8";
        p += n;
    }
    if (!strcmp(name, "."))
        return "\".\" names a folder";
    return NULL;
}

void eddy_printable(const char *text, size_t len, char *out, size_t cap)
{
    size_t o = 0;
    if (!cap)
        return;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        char piece[8];
        int n = c >= 0x20 && c < 0x7f ? snprintf(piece, sizeof piece, "%c", c)
                                       : snprintf(piece, sizeof piece, "\\x%02x", c);
        if (o + (size_t)n + 4 > cap) {
            snprintf(out + o, cap - o, "...");
            return;
        }
        memcpy(out + o, piece, (size_t)n);
        o += (size_t)n;
    }
    out[o] = 0;
}

static bool is_output_file(const char *name)
{
    static const char *const ends[] = { ".vtp", ".pvtp", ".vtu", ".pvd", ".png", ".ply", ".csv", ".jsonl", ".tmp", ".h5" };
    size_t len = strlen(name);
    for (size_t i = 0; i < sizeof ends / sizeof *ends; i++) {
        size_t n = strlen(ends[i]);
        if (len > n && !strcmp(name + len - n, ends[i]))
            return true;
    }
    return false;
}

int eddy_prepare_out_dir(const char *dir, char *err, size_t err_cap)
{
    if (err_cap)
        err[0] = 0;
    if (eddy_mkdirs(dir, err, err_cap) != 0)
        return -1;
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, err_cap, "cannot read folder '%s': %s", dir, strerror(errno));
        return -1;
    }
    bool marked = false, other = false;
    char first[256] = "";
    for (struct dirent *de; (de = readdir(d));) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (!strcmp(de->d_name, EDDY_OUT_MARKER)) {
            marked = true;
        } else if (!other) {
            other = true;
            eddy_printable(de->d_name, strlen(de->d_name), first, sizeof first);
        }
    }
    closedir(d);
    if (other && !marked) {
        snprintf(err, err_cap, "output folder '%s' holds other files ('%s', ...) and no %s file of an "
                 "earlier eddy run: give a new or empty folder (--out)", dir, first, EDDY_OUT_MARKER);
        return -2;
    }
    char path[4200];
    if (marked) {
        /* Read the whole listing before removing anything from it. */
        d = opendir(dir);
        if (!d) {
            snprintf(err, err_cap, "cannot read folder '%s': %s", dir, strerror(errno));
            return -1;
        }
        char **names = NULL;
        size_t count = 0, cap = 0;
        bool ok = true;
        for (struct dirent *de; ok && (de = readdir(d));) {
            if (!is_output_file(de->d_name))
                continue;
            if (count == cap) {
                size_t c = cap ? 2 * cap : 64;
                char **grown = realloc(names, c * sizeof *names);
                ok = grown != NULL;
                if (ok)
                    names = grown, cap = c;
            }
            if (ok && !(names[count] = strdup(de->d_name)))
                ok = false;
            count += ok;
        }
        closedir(d);
        for (size_t i = 0; i < count && ok; i++) {
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            /* Regular files and links only; a link is removed, never what it names. */
            if (lstat(path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) && unlink(path) != 0) {
                snprintf(err, err_cap, "cannot remove '%s' of an earlier run: %s", path, strerror(errno));
                ok = false;
            }
        }
        for (size_t i = 0; i < count; i++)
            free(names[i]);
        free(names);
        if (!ok) {
            if (!*err)
                snprintf(err, err_cap, "out of host memory clearing '%s'", dir);
            return -1;
        }
    }
    snprintf(path, sizeof path, "%s/%s", dir, EDDY_OUT_MARKER);
    char tmp[4300];
    FILE *f = eddy_atomic_open(path, tmp, sizeof tmp);
    if (!f) {
        snprintf(err, err_cap, "cannot create '%s': %s", path, strerror(errno));
        return -1;
    }
    fputs("This folder holds the output of an eddy run. The next run into it first removes the\n"
          "files ending in .vtp, .pvtp, .pvd, .png, .ply, .csv, .jsonl and .tmp at its top level.\n", f);
    return eddy_atomic_close(f, tmp, path, err, err_cap);
}

int eddy_atomic_close(FILE *f, const char *tmp, const char *path, char *err, size_t err_cap)
{
    int bad = ferror(f);
    if (fclose(f) != 0)
        bad = 1;
    if (bad || rename(tmp, path) != 0) {
        snprintf(err, err_cap, "cannot write '%s': %s", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

typedef struct array_spec {
    const char *type; /* VTK type name */
    const char *name;
    int components;
    uint64_t bytes;
    const void *data;
} array_spec;

static void write_block(FILE *f, const void *data, uint64_t bytes)
{
    /* header_type="UInt64": each appended block starts with its byte count. */
    fwrite(&bytes, sizeof bytes, 1, f);
    if (bytes)
        fwrite(data, 1, bytes, f);
}

/* path's temporary file (eddy_atomic_open), or NULL with the reason in err. */
static FILE *open_frame_file(const char *path, char *tmp, size_t tmp_cap, char *err, size_t err_cap)
{
    FILE *f = eddy_atomic_open(path, tmp, tmp_cap);
    if (!f)
        snprintf(err, err_cap, "cannot create '%s': %s", tmp, strerror(errno));
    return f;
}

/* A particle frame's point arrays, in file order, of 4-byte components:
 * eddy_write_vtp writes them, eddy_write_pvtp names them. */
static const struct {
    const char *type, *name;
    int components;
} particle_arrays[] = {
    { "Float32", "velocity", 3 }, { "Float32", "speed", 1 }, { "Float32", "radius", 1 },
    { "Float32", "mass", 1 },     { "UInt32", "phase", 1 },  { "UInt32", "id", 1 },
};
#define PARTICLE_ARRAYS (sizeof particle_arrays / sizeof *particle_arrays)

int eddy_write_vtp(const char *path, const eddy_vtp_particles *p, char *err, size_t err_cap)
{
    char tmp[4200];
    FILE *f = open_frame_file(path, tmp, sizeof tmp, err, err_cap);
    if (!f)
        return -1;
    uint32_t n = p->count;
    float *points = malloc((size_t)n * 12 + 1), *vel = malloc((size_t)n * 12 + 1);
    float *radius = malloc((size_t)n * 4 + 1), *speed = malloc((size_t)n * 4 + 1);
    int64_t *conn = malloc((size_t)n * 8 + 1), *offs = malloc((size_t)n * 8 + 1);
    uint32_t *ids = malloc((size_t)n * 4 + 1);
    if (!points || !vel || !radius || !speed || !conn || !offs || !ids) {
        free(points), free(vel), free(radius), free(speed), free(conn), free(offs), free(ids);
        fclose(f);
        remove(tmp);
        snprintf(err, err_cap, "out of host memory writing '%s'", path);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        const float *x = p->position + 4 * (size_t)i, *v = p->velocity + 4 * (size_t)i;
        memcpy(points + 3 * (size_t)i, x, 12);
        memcpy(vel + 3 * (size_t)i, v, 12);
        radius[i] = x[3];
        speed[i] = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        conn[i] = i;
        offs[i] = (int64_t)i + 1;
        ids[i] = p->id ? p->id[i] : i;
    }
    const void *data[PARTICLE_ARRAYS] = { vel, speed, radius, p->mass, p->phase, ids };
    array_spec pd[PARTICLE_ARRAYS];
    for (size_t i = 0; i < PARTICLE_ARRAYS; i++)
        pd[i] = (array_spec){ particle_arrays[i].type, particle_arrays[i].name, particle_arrays[i].components,
                              (uint64_t)n * 4 * (uint64_t)particle_arrays[i].components, data[i] };
    const int npd = (int)PARTICLE_ARRAYS;
    uint64_t offset = 0;
    fprintf(f, "<?xml version=\"1.0\"?>\n"
               "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" "
               "header_type=\"UInt64\">\n"
               "  <PolyData>\n"
               "    <FieldData>\n"
               "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" "
               "format=\"ascii\">%.17g</DataArray>\n"
               "    </FieldData>\n"
               "    <Piece NumberOfPoints=\"%u\" NumberOfVerts=\"%u\" NumberOfLines=\"0\" "
               "NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n"
               "      <PointData Scalars=\"speed\" Vectors=\"velocity\">\n",
            p->time, n, n);
    for (int i = 0; i < npd; i++) {
        fprintf(f, "        <DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\" "
                   "format=\"appended\" offset=\"%llu\"/>\n",
                pd[i].type, pd[i].name, pd[i].components, (unsigned long long)offset);
        offset += 8 + pd[i].bytes;
    }
    fprintf(f, "      </PointData>\n      <Points>\n        <DataArray type=\"Float32\" "
               "Name=\"position\" NumberOfComponents=\"3\" format=\"appended\" offset=\"%llu\"/>\n"
               "      </Points>\n",
            (unsigned long long)offset);
    offset += 8 + (uint64_t)n * 12;
    fprintf(f, "      <Verts>\n        <DataArray type=\"Int64\" Name=\"connectivity\" "
               "format=\"appended\" offset=\"%llu\"/>\n",
            (unsigned long long)offset);
    offset += 8 + (uint64_t)n * 8;
    fprintf(f, "        <DataArray type=\"Int64\" Name=\"offsets\" format=\"appended\" "
               "offset=\"%llu\"/>\n      </Verts>\n    </Piece>\n  </PolyData>\n"
               "  <AppendedData encoding=\"raw\">\n   _",
            (unsigned long long)offset);
    for (int i = 0; i < npd; i++)
        write_block(f, pd[i].data, pd[i].bytes);
    write_block(f, points, (uint64_t)n * 12);
    write_block(f, conn, (uint64_t)n * 8);
    write_block(f, offs, (uint64_t)n * 8);
    fprintf(f, "\n  </AppendedData>\n</VTKFile>\n");
    free(points), free(vel), free(radius), free(speed), free(conn), free(offs), free(ids);
    return eddy_atomic_close(f, tmp, path, err, err_cap);
}

eddy_result eddy_write_cells(eddy_engine *e, const char *dir, const char *name, const eddy_cells_desc *d)
{
    static const uint8_t vtk_type[5] = { 0, 0, 3, 5, 10 }; /* VTK_LINE, VTK_TRIANGLE, VTK_TETRA */
    EDDY_TAKE_DESC(e, eddy_cells_desc, d, return EDDY_ERROR_ABI);
    if (d->cell_kind < 2 || d->cell_kind > 4) {
        eddy_log(e, EDDY_LOG_ERROR, "output.write", "mesh '%s': cell kind %u, expected 2, 3 or 4", name, d->cell_kind);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    for (uint64_t i = 0; i < (uint64_t)d->cell_kind * d->cell_count; i++)
        if (d->cells[i] >= d->point_count) {
            eddy_log(e, EDDY_LOG_ERROR, "output.write", "mesh '%s': cell %llu names vertex %u of %u", name,
                     (unsigned long long)(i / d->cell_kind), d->cells[i], d->point_count);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
    char path[4200], tmp[4300], err[512];
    snprintf(path, sizeof path, "%s/%s.vtu", dir, name);
    uint64_t n = d->point_count, c = d->cell_count, k = d->cell_kind;
    float *points = malloc(n * 12 + 1), *vel = malloc(n * 12 + 1), *speed = malloc(n * 4 + 1);
    int64_t *conn = malloc(c * k * 8 + 1), *offs = malloc(c * 8 + 1);
    uint8_t *types = malloc(c + 1);
    FILE *f = points && vel && speed && conn && offs && types ? eddy_atomic_open(path, tmp, sizeof tmp) : NULL;
    if (!f) {
        free(points), free(vel), free(speed), free(conn), free(offs), free(types);
        if (!(points && vel && speed && conn && offs && types)) {
            eddy_log(e, EDDY_LOG_ERROR, "memory.host", "mesh '%s': out of host memory", name);
            return EDDY_ERROR_OUT_OF_MEMORY;
        }
        eddy_log(e, EDDY_LOG_ERROR, "output.write", "cannot create '%s': %s", tmp, strerror(errno));
        return EDDY_ERROR_IO;
    }
    for (uint64_t i = 0; i < n; i++) {
        const float *x = d->position + 4 * i, *v = d->velocity + 4 * i;
        memcpy(points + 3 * i, x, 12);
        memcpy(vel + 3 * i, v, 12);
        speed[i] = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    }
    for (uint64_t i = 0; i < c * k; i++)
        conn[i] = d->cells[i];
    for (uint64_t i = 0; i < c; i++) {
        offs[i] = (int64_t)((i + 1) * k);
        types[i] = vtk_type[k];
    }
    array_spec pd[] = {
        { "Float32", "velocity", 3, n * 12, vel },
        { "Float32", "speed", 1, n * 4, speed },
        { "Float32", "scalar", 1, n * 4, d->scalar },
    };
    int npd = d->scalar ? 3 : 2;
    uint64_t offset = 0;
    fprintf(f, "<?xml version=\"1.0\"?>\n"
               "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" "
               "header_type=\"UInt64\">\n  <UnstructuredGrid>\n    <FieldData>\n"
               "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" "
               "format=\"ascii\">%.17g</DataArray>\n    </FieldData>\n"
               "    <Piece NumberOfPoints=\"%llu\" NumberOfCells=\"%llu\">\n"
               "      <PointData Scalars=\"%s\" Vectors=\"velocity\">\n",
            d->time, (unsigned long long)n, (unsigned long long)c, d->scalar ? "scalar" : "speed");
    for (int i = 0; i < npd; i++) {
        fprintf(f, "        <DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\" "
                   "format=\"appended\" offset=\"%llu\"/>\n",
                pd[i].type, pd[i].name, pd[i].components, (unsigned long long)offset);
        offset += 8 + pd[i].bytes;
    }
    fprintf(f, "      </PointData>\n      <Points>\n        <DataArray type=\"Float32\" Name=\"position\" "
               "NumberOfComponents=\"3\" format=\"appended\" offset=\"%llu\"/>\n      </Points>\n      <Cells>\n",
            (unsigned long long)offset);
    offset += 8 + n * 12;
    fprintf(f, "        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"appended\" offset=\"%llu\"/>\n",
            (unsigned long long)offset);
    offset += 8 + c * k * 8;
    fprintf(f, "        <DataArray type=\"Int64\" Name=\"offsets\" format=\"appended\" offset=\"%llu\"/>\n",
            (unsigned long long)offset);
    offset += 8 + c * 8;
    fprintf(f, "        <DataArray type=\"UInt8\" Name=\"types\" format=\"appended\" offset=\"%llu\"/>\n"
               "      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n  <AppendedData encoding=\"raw\">\n   _",
            (unsigned long long)offset);
    for (int i = 0; i < npd; i++)
        write_block(f, pd[i].data, pd[i].bytes);
    write_block(f, points, n * 12);
    write_block(f, conn, c * k * 8);
    write_block(f, offs, c * 8);
    write_block(f, types, c);
    fprintf(f, "\n  </AppendedData>\n</VTKFile>\n");
    free(points), free(vel), free(speed), free(conn), free(offs), free(types);
    if (eddy_atomic_close(f, tmp, path, err, sizeof err) != 0) {
        eddy_log(e, EDDY_LOG_ERROR, "output.write", "%s", err);
        return EDDY_ERROR_IO;
    }
    return EDDY_OK;
}

/* An XML attribute value (names may hold any character but '/', '\\' and
 * controls). */
static void xml_attr(FILE *f, const char *text)
{
    for (const char *c = text; *c; c++)
        switch (*c) {
        case '"': fputs("&quot;", f); break;
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '\'': fputs("&apos;", f); break;
        default: fputc(*c, f);
        }
}

int eddy_write_pvtp(const char *path, double time, const char *const *pieces, uint32_t count, char *err,
                    size_t err_cap)
{
    char tmp[4200];
    FILE *f = open_frame_file(path, tmp, sizeof tmp, err, err_cap);
    if (!f)
        return -1;
    fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PPolyData\" version=\"1.0\" "
               "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n  <PPolyData GhostLevel=\"0\">\n"
               "    <FieldData>\n      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" "
               "format=\"ascii\">%.17g</DataArray>\n    </FieldData>\n"
               "    <PPointData Scalars=\"speed\" Vectors=\"velocity\">\n", time);
    for (size_t i = 0; i < PARTICLE_ARRAYS; i++)
        fprintf(f, "      <PDataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\"/>\n",
                particle_arrays[i].type, particle_arrays[i].name, particle_arrays[i].components);
    fprintf(f, "    </PPointData>\n    <PPoints>\n      <PDataArray type=\"Float32\" Name=\"position\" "
               "NumberOfComponents=\"3\"/>\n    </PPoints>\n");
    for (uint32_t i = 0; i < count; i++) {
        fputs("    <Piece Source=\"", f);
        xml_attr(f, pieces[i]);
        fputs("\"/>\n", f);
    }
    fprintf(f, "  </PPolyData>\n</VTKFile>\n");
    return eddy_atomic_close(f, tmp, path, err, err_cap);
}

int eddy_write_pvd(const char *path, const eddy_pvd_entry *entries, uint32_t count, char *err,
                   size_t err_cap)
{
    char tmp[4200];
    FILE *f = open_frame_file(path, tmp, sizeof tmp, err, err_cap);
    if (!f)
        return -1;
    fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"1.0\" "
               "byte_order=\"LittleEndian\">\n  <Collection>\n");
    for (uint32_t i = 0; i < count; i++) {
        fprintf(f, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"%u\" file=\"", entries[i].time,
                entries[i].part);
        xml_attr(f, entries[i].file);
        fputs("\"/>\n", f);
    }
    fprintf(f, "  </Collection>\n</VTKFile>\n");
    return eddy_atomic_close(f, tmp, path, err, err_cap);
}

/* ------------------------------------------------------------------ meshes */


typedef struct weld_entry {
    uint32_t key[3]; /* the position's bits */
    uint32_t index;
    bool used;
} weld_entry;

int64_t eddy_weld_triangles(const float *tri, uint32_t count, float **vertices, uint32_t **indices)
{
    uint64_t corners = (uint64_t)count * 3, cap = 16;
    while (cap < corners * 2)
        cap *= 2;
    weld_entry *table = calloc(cap, sizeof *table);
    float *v = malloc(corners * 12 + 12);
    uint32_t *idx = malloc(corners * 4 + 4);
    if (!table || !v || !idx) {
        free(table), free(v), free(idx);
        return -1;
    }
    uint32_t n = 0;
    for (uint64_t c = 0; c < corners; c++) {
        uint32_t key[3];
        memcpy(key, tri + 3 * c, 12);
        uint64_t hsh = (key[0] * 73856093u) ^ (key[1] * 19349663u) ^ (key[2] * 83492791u);
        uint64_t slot = hsh & (cap - 1);
        while (table[slot].used && memcmp(table[slot].key, key, 12))
            slot = (slot + 1) & (cap - 1);
        if (!table[slot].used) {
            table[slot].used = true;
            memcpy(table[slot].key, key, 12);
            table[slot].index = n;
            memcpy(v + 3 * n, key, 12);
            n++;
        }
        idx[c] = table[slot].index;
    }
    free(table);
    *vertices = v;
    *indices = idx;
    return n;
}

eddy_result eddy_write_mesh(eddy_engine *e, const char *dir, const char *name,
                            const float *triangles, uint32_t count, double time)
{
    float *v;
    uint32_t *idx;
    int64_t n = eddy_weld_triangles(triangles, count, &v, &idx);
    if (n < 0) {
        eddy_log(e, EDDY_LOG_ERROR, "memory.host", "mesh '%s': out of host memory", name);
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    char path[4200], tmp[4300], err[512];
    eddy_result res = EDDY_OK;
    /* PLY, binary little endian: what Blender and MeshLab read. */
    snprintf(path, sizeof path, "%s/%s.ply", dir, name);
    FILE *f = eddy_atomic_open(path, tmp, sizeof tmp);
    if (!f) {
        eddy_log(e, EDDY_LOG_ERROR, "output.write", "cannot create '%s': %s", tmp, strerror(errno));
        free(v), free(idx);
        return EDDY_ERROR_IO;
    }
    fprintf(f, "ply\nformat binary_little_endian 1.0\ncomment eddy surface, time %.9g s\n"
               "element vertex %lld\nproperty float x\nproperty float y\nproperty float z\n"
               "element face %u\nproperty list uchar uint vertex_indices\nend_header\n",
            time, (long long)n, count);
    fwrite(v, 12, (size_t)n, f);
    for (uint32_t t = 0; t < count; t++) {
        unsigned char three = 3;
        fwrite(&three, 1, 1, f);
        fwrite(idx + 3 * (size_t)t, 4, 3, f);
    }
    if (eddy_atomic_close(f, tmp, path, err, sizeof err) != 0) {
        eddy_log(e, EDDY_LOG_ERROR, "output.write", "%s", err);
        res = EDDY_ERROR_IO;
    }
    /* VTK PolyData with triangles, ASCII: small enough at these sizes. */
    snprintf(path, sizeof path, "%s/%s.vtp", dir, name);
    f = res == EDDY_OK ? eddy_atomic_open(path, tmp, sizeof tmp) : NULL;
    if (res == EDDY_OK && !f) {
        eddy_log(e, EDDY_LOG_ERROR, "output.write", "cannot create '%s': %s", tmp, strerror(errno));
        res = EDDY_ERROR_IO;
    }
    if (f) {
        fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" "
                   "byte_order=\"LittleEndian\">\n  <PolyData>\n    <FieldData>\n      "
                   "<DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" "
                   "format=\"ascii\">%.17g</DataArray>\n    </FieldData>\n"
                   "    <Piece NumberOfPoints=\"%lld\" NumberOfPolys=\"%u\">\n      <Points>\n"
                   "        <DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"ascii\">\n",
                time, (long long)n, count);
        for (int64_t i = 0; i < n; i++)
            fprintf(f, "%.9g %.9g %.9g\n", v[3 * i], v[3 * i + 1], v[3 * i + 2]);
        fprintf(f, "        </DataArray>\n      </Points>\n      <Polys>\n        <DataArray "
                   "type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n");
        for (uint32_t t = 0; t < count; t++)
            fprintf(f, "%u %u %u\n", idx[3 * t], idx[3 * t + 1], idx[3 * t + 2]);
        fprintf(f, "        </DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" "
                   "format=\"ascii\">\n");
        for (uint32_t t = 0; t < count; t++)
            fprintf(f, "%u\n", 3 * (t + 1));
        fprintf(f, "        </DataArray>\n      </Polys>\n    </Piece>\n  </PolyData>\n"
                   "</VTKFile>\n");
        if (eddy_atomic_close(f, tmp, path, err, sizeof err) != 0) {
            eddy_log(e, EDDY_LOG_ERROR, "output.write", "%s", err);
            res = EDDY_ERROR_IO;
        }
    }
    free(v), free(idx);
    return res;
}
