/* Scene files (JSON): particle sets, systems, time stepping and outputs.
 * Everything is parsed and checked before anything is written, so a bad
 * scene leaves no output behind. See README.md, "Scene files". */
#include "internal.h"
#include "eddy/eddy_mesh.h"
#include "output.h"
#include "render.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <math.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct scene_set {
    eddy_particles handle;
    char name[EDDY_NAME_MAX + 1];
    uint32_t count;
} scene_set;

typedef struct tool_key {
    double t, x[3];
} tool_key;

/* A system's tool as the scene drives it: along a key-framed path, or to
 * where the host (eddy_scene_set_tool, a haptic loop) puts it. */
typedef struct scene_tool {
    bool scripted;        /* the scene has a "tool" object for this system */
    bool host;            /* eddy_scene_set_tool took over */
    tool_key *keys;
    uint32_t key_count;
    bool smooth;          /* cubic Hermite through the keys, else linear */
    bool log;             /* write tool_<system>.csv */
    double at[3];         /* centre at the end of the last step (m) */
    double target[3];     /* host: centre at the end of the next step */
    eddy_tool_force last; /* the last step's force */
    char *text;           /* log lines not yet appended to the file */
    size_t len, cap;
} scene_tool;

typedef struct scene_system {
    const eddy_module_desc *module;
    void *state;
    char name[EDDY_NAME_MAX + 1];
    scene_tool tool;
} scene_system;

struct eddy_scene {
    eddy_engine *e;
    char path[4096];
    char name[EDDY_SCENE_NAME_MAX + 1];
    char out_dir[EDDY_OUT_DIR_MAX + 1];
    double dt;
    uint32_t substeps;
    bool adaptive;         /* substeps follow the systems' stable_dt, checked per frame */
    uint32_t current_substeps;
    uint32_t max_substeps; /* adaptive: at most this many */
    double duration;
    uint64_t steps, steps_done;
    uint32_t frame_every;
    bool vtk, stats, no_output, profile;
    float box_min[3], box_max[3];
    scene_set *sets;
    uint32_t set_count;
    scene_system *systems;
    uint32_t system_count;
    eddy_solid *solids;
    uint32_t solid_count;
    eddy_graph graph;
    bool out_closed;          /* the .tmp logs (stats.jsonl, tool CSVs) of a ready output were
                                 renamed by eddy_scene_finish_output: no more frames */
    eddy_pvd_entry *pvd;      /* per set and frame; file names owned here */
    uint32_t pvd_count, pvd_cap;
    uint32_t frames;
    bool out_ready;
    /* PNG frames ("output.images"). */
    eddy_renderer *renderer;
    uint32_t image_w, image_h;
    int color_by;            /* 0 speed, 1 density, 2 set, 3 phase */
    double color_range[2];
};

/* ------------------------------------------------------------------ messages */

typedef struct parse_ctx {
    eddy_engine *e;
    const char *file;
    bool failed;
    uint64_t host_budget; /* bytes a set's host arrays and a mesh fill may take */
} parse_ctx;

static bool fail(parse_ctx *c, const char *id, const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static bool fail(parse_ctx *c, const char *id, const char *field, const char *fmt, ...)
{
    if (c->failed)
        return false; /* one message per scene: the first problem */
    c->failed = true;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    eddy_log(c->e, EDDY_LOG_ERROR, id, "%s: %s%s%s", c->file, field ? field : "", field ? ": " : "",
             msg);
    return false;
}

static const char *json_type(const cJSON *j)
{
    if (!j)
        return "nothing";
    if (cJSON_IsNumber(j))
        return "a number";
    if (cJSON_IsString(j))
        return "a string";
    if (cJSON_IsBool(j))
        return "a boolean";
    if (cJSON_IsArray(j))
        return "an array";
    if (cJSON_IsObject(j))
        return "an object";
    if (cJSON_IsNull(j))
        return "null";
    return "something else";
}

static bool check_keys(parse_ctx *c, const cJSON *obj, const char *path, const char *const *keys)
{
    for (const cJSON *it = obj->child; it; it = it->next) {
        bool known = false;
        for (const char *const *k = keys; *k; k++)
            known |= !strcmp(it->string, *k);
        if (!known) {
            char expected[512] = "";
            for (const char *const *k = keys; *k; k++)
                snprintf(expected + strlen(expected), sizeof expected - strlen(expected), "%s%s",
                         k == keys ? "" : ", ", *k);
            char field[512];
            snprintf(field, sizeof field, "%s%s%s", path, *path ? "." : "", it->string);
            return fail(c, "scene.unknown_field", field, "unknown field; expected one of: %s", expected);
        }
    }
    return true;
}

static bool get_number(parse_ctx *c, const cJSON *obj, const char *key, const char *path,
                       bool required, double def, double min, double max, double *out)
{
    char field[512];
    snprintf(field, sizeof field, "%s%s%s", path, *path ? "." : "", key);
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!j) {
        if (required)
            return fail(c, "scene.missing_field", field, "missing; expected a number in [%g, %g]", min, max);
        *out = def;
        return true;
    }
    if (!cJSON_IsNumber(j))
        return fail(c, "scene.field", field, "expected a number in [%g, %g], got %s", min, max, json_type(j));
    if (!isfinite(j->valuedouble))
        return fail(c, "scene.field", field, "expected a finite number in [%g, %g], got %g", min, max,
                    j->valuedouble);
    if (j->valuedouble < min || j->valuedouble > max)
        return fail(c, "scene.field", field, "%g is out of range; expected a number in [%g, %g]", j->valuedouble,
                    min, max);
    *out = j->valuedouble;
    return true;
}

static bool get_vec3(parse_ctx *c, const cJSON *j, const char *field, double min, double max,
                     double out[3])
{
    if (cJSON_IsArray(j) && cJSON_GetArraySize(j) != 3)
        return fail(c, "scene.field", field, "expected an array of 3 numbers, got an array of %d element%s",
                    cJSON_GetArraySize(j), cJSON_GetArraySize(j) == 1 ? "" : "s");
    if (!cJSON_IsArray(j))
        return fail(c, "scene.field", field, "expected an array of 3 numbers, got %s", json_type(j));
    for (int i = 0; i < 3; i++) {
        const cJSON *x = cJSON_GetArrayItem(j, i);
        if (!cJSON_IsNumber(x))
            return fail(c, "scene.field", field, "element %d: expected a number, got %s", i, json_type(x));
        if (!isfinite(x->valuedouble))
            return fail(c, "scene.field", field, "element %d: expected a finite number, got %g", i,
                        x->valuedouble);
        if (x->valuedouble < min || x->valuedouble > max)
            return fail(c, "scene.field", field, "element %d = %g is out of range [%g, %g]", i, x->valuedouble,
                        min, max);
        out[i] = x->valuedouble;
    }
    return true;
}

static bool get_vec3_key(parse_ctx *c, const cJSON *obj, const char *key, const char *path,
                         bool required, const double def[3], double out[3])
{
    char field[512];
    snprintf(field, sizeof field, "%s%s%s", path, *path ? "." : "", key);
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!j) {
        if (required)
            return fail(c, "scene.missing_field", field, "missing; expected an array of 3 numbers");
        memcpy(out, def, 3 * sizeof *out);
        return true;
    }
    return get_vec3(c, j, field, -1e30, 1e30, out);
}

static bool get_string(parse_ctx *c, const cJSON *obj, const char *key, const char *path,
                       bool required, const char **out)
{
    char field[512];
    snprintf(field, sizeof field, "%s%s%s", path, *path ? "." : "", key);
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!j) {
        if (required)
            return fail(c, "scene.missing_field", field, "missing; expected a string");
        *out = NULL;
        return true;
    }
    if (!cJSON_IsString(j))
        return fail(c, "scene.field", field, "expected a non-empty string, got %s", json_type(j));
    if (!*j->valuestring)
        return fail(c, "scene.field", field, "expected a non-empty string, got an empty one");
    *out = j->valuestring;
    return true;
}

static bool get_bool(parse_ctx *c, const cJSON *obj, const char *key, const char *path, bool def,
                     bool *out)
{
    char field[512];
    snprintf(field, sizeof field, "%s%s%s", path, *path ? "." : "", key);
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!j) {
        *out = def;
        return true;
    }
    if (!cJSON_IsBool(j))
        return fail(c, "scene.field", field, "expected true or false, got %s", json_type(j));
    *out = cJSON_IsTrue(j);
    return true;
}

/* A whole number in [min, max] (counts, indices): a fraction is refused, not cut. */
static bool get_whole(parse_ctx *c, const cJSON *obj, const char *key, const char *path, double def,
                      double min, double max, double *out)
{
    if (!get_number(c, obj, key, path, false, def, min, max, out))
        return false;
    if (*out != floor(*out)) {
        char field[512];
        snprintf(field, sizeof field, "%s%s%s", path, *path ? "." : "", key);
        return fail(c, "scene.field", field, "%g is not a whole number; expected a whole number in [%g, %g]", *out, min, max);
    }
    return true;
}

/* Fails with the reason when `name` (from `field`) cannot be part of a file name. */
static bool check_name(parse_ctx *c, const char *field, const char *name, size_t max)
{
    const char *why = eddy_name_problem(name, max);
    if (!why)
        return true;
    char shown[96];
    eddy_printable(name, strlen(name), shown, sizeof shown);
    return fail(c, "scene.name", field, "'%s' cannot name output files: %s; expected at most %zu bytes of UTF-8 without "
                "'/', '\\', \"..\" or control characters", shown, why, max);
}

static bool get_name(parse_ctx *c, const cJSON *obj, const char *key, const char *path, bool required,
                     size_t max, const char **out)
{
    if (!get_string(c, obj, key, path, required, out))
        return false;
    char field[512];
    snprintf(field, sizeof field, "%s%s%s", path, *path ? "." : "", key);
    return !*out || check_name(c, field, *out, max);
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* JSON allows a key twice and cJSON keeps both, reading the first: a
 * scene that says two things in one object is refused, naming the key. */
static bool check_duplicates(parse_ctx *c, const cJSON *j, const char *path)
{
    if (cJSON_IsArray(j)) {
        int i = 0;
        for (const cJSON *it = j->child; it; it = it->next, i++) {
            if (!cJSON_IsObject(it) && !cJSON_IsArray(it))
                continue;
            char field[512];
            snprintf(field, sizeof field, "%s[%d]", path, i);
            if (!check_duplicates(c, it, field))
                return false;
        }
        return true;
    }
    if (!cJSON_IsObject(j))
        return true;
    size_t n = 0;
    for (const cJSON *it = j->child; it; it = it->next)
        n++;
    const cJSON **keys = malloc((n ? n : 1) * sizeof *keys);
    if (!keys)
        return fail(c, "memory.host", path, "out of host memory");
    n = 0;
    for (const cJSON *it = j->child; it; it = it->next)
        keys[n++] = it;
    qsort(keys, n, sizeof *keys, cmp_key);
    for (size_t i = 1; i < n; i++)
        if (!strcmp(keys[i - 1]->string, keys[i]->string)) {
            char field[512], shown[128];
            eddy_printable(keys[i]->string, strlen(keys[i]->string), shown, sizeof shown);
            snprintf(field, sizeof field, "%s%s%s", path, *path ? "." : "", shown);
            free(keys);
            return fail(c, "scene.json", field, "given twice in one object; expected each key once");
        }
    free(keys);
    for (const cJSON *it = j->child; it; it = it->next) {
        if (!cJSON_IsObject(it) && !cJSON_IsArray(it))
            continue;
        char field[512], shown[128];
        eddy_printable(it->string, strlen(it->string), shown, sizeof shown);
        snprintf(field, sizeof field, "%s%s%s", path, *path ? "." : "", shown);
        if (!check_duplicates(c, it, field))
            return false;
    }
    return true;
}

/* ------------------------------------------------------------------ particle fills */

static void dir_of(const char *path, char *out, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(out, cap, ".");
    else
        snprintf(out, cap, "%.*s", (int)(slash - path), path);
}


typedef struct host_particles {
    float *position, *velocity, *mass;
    uint32_t *phase;
    uint64_t count, cap;
} host_particles;

/* Appends one particle to room taken by host_reserve (false when there is none). */
static bool host_push(host_particles *h, const double x[3], double radius, const double v[3],
                      double mass, uint32_t phase)
{
    if (h->count == h->cap)
        return false;
    float *p = h->position + 4 * h->count, *vv = h->velocity + 4 * h->count;
    for (int a = 0; a < 3; a++) {
        p[a] = (float)x[a];
        vv[a] = (float)v[a];
    }
    p[3] = (float)radius;
    vv[3] = 0.0f;
    h->mass[h->count] = (float)mass;
    h->phase[h->count] = phase;
    h->count++;
    return true;
}

/* Host bytes per particle while a set is built: position, velocity, mass, phase. */
#define HOST_BYTES_PER_PARTICLE 40u

/* Room for `more` particles, checked against the budget before it is taken. */
static bool host_reserve(parse_ctx *c, const char *field, host_particles *h, uint64_t more)
{
    uint64_t need = h->count + more;
    if (need <= h->cap)
        return true;
    if (more > c->host_budget / HOST_BYTES_PER_PARTICLE ||
        need > c->host_budget / HOST_BYTES_PER_PARTICLE)
        return fail(c, "scene.too_large", field, "%" PRIu64 " particles need %" PRIu64 " bytes of host memory while the set is "
                    "built, over the scene loader's budget of %" PRIu64 " bytes (eddy_scene_desc.host_budget)",
                    need, need > UINT64_MAX / HOST_BYTES_PER_PARTICLE ? UINT64_MAX : need * HOST_BYTES_PER_PARTICLE,
                    c->host_budget);
    /* Each array keeps its old block when growing it fails, so host_free
     * still frees everything. */
    void **arrays[] = { (void **)&h->position, (void **)&h->velocity, (void **)&h->mass, (void **)&h->phase };
    const size_t bytes[] = { 16, 16, 4, 4 };
    for (int i = 0; i < 4; i++) {
        void *grown = realloc(*arrays[i], need * bytes[i]);
        if (!grown)
            return fail(c, "memory.host", field, "out of host memory for %" PRIu64 " particles", need);
        *arrays[i] = grown;
    }
    h->cap = need;
    return true;
}

static void host_free(host_particles *h)
{
    free(h->position);
    free(h->velocity);
    free(h->mass);
    free(h->phase);
    memset(h, 0, sizeof *h);
}

static const char *const set_keys[] = { "name", "radius", "mass", "velocity", "capacity",
                                        "spacing", "fill", "points", "phase", "bodies", NULL };
static const char *const fill_keys[] = { "shape", "min", "max", "center", "radius", "height",
                                         "file", "scale", "rotation", "surface_only", "copies",
                                         "velocity", "jitter", NULL };
static const char *const copies_keys[] = { "count", "step", NULL };

/* A fill: the lattice points of one shape (box, sphere, upright cylinder,
 * or a closed mesh voxelised at the spacing), repeated by "copies"
 * ({"count": [nx, ny, nz], "step": [dx, dy, dz]} m). With the set's "bodies",
 * each copy is one rigid body: its particles get the next body index as
 * their phase. */
static bool parse_fill(parse_ctx *c, const cJSON *f, const char *path, double spacing,
                       uint64_t limit, double radius, const double set_vel[3], double mass,
                       uint32_t phase, uint32_t *body, host_particles *h)
{
    if (!cJSON_IsObject(f))
        return fail(c, "scene.field", path, "expected an object like {\"shape\": \"box\", \"min\": [..], "
                             "\"max\": [..]}, got %s", json_type(f));
    if (!check_keys(c, f, path, fill_keys))
        return false;
    const char *shape;
    double vel[3], jitter;
    if (!get_string(c, f, "shape", path, true, &shape) ||
        !get_vec3_key(c, f, "velocity", path, false, set_vel, vel) ||
        !get_number(c, f, "jitter", path, false, 0, 0, 1, &jitter))
        return false;
    if (spacing <= 0)
        return fail(c, "scene.field", path, "a fill needs the set's \"spacing\" (m, > 0)");
    double lo[3], hi[3];
    long n[3];
    bool sphere = !strcmp(shape, "sphere"), cylinder = !strcmp(shape, "cylinder");
    bool mesh = !strcmp(shape, "mesh");
    double center[3], r = 0, height = 0;
    float *pattern = NULL; /* xyz per point of one copy */
    uint64_t pattern_n = 0;
    char field[512];
    if (!strcmp(shape, "box")) {
        if (!get_vec3_key(c, f, "min", path, true, NULL, lo) ||
            !get_vec3_key(c, f, "max", path, true, NULL, hi))
            return false;
    } else if (sphere) {
        if (!get_vec3_key(c, f, "center", path, true, NULL, center) ||
            !get_number(c, f, "radius", path, true, 0, 1e-9, 1e9, &r))
            return false;
        for (int a = 0; a < 3; a++) {
            lo[a] = center[a] - r;
            hi[a] = center[a] + r;
        }
    } else if (cylinder) {
        /* Upright (along +y) from the centre of its bottom. */
        if (!get_vec3_key(c, f, "center", path, true, NULL, center) ||
            !get_number(c, f, "radius", path, true, 0, 1e-9, 1e9, &r) ||
            !get_number(c, f, "height", path, true, 0, 1e-9, 1e9, &height))
            return false;
        for (int a = 0; a < 3; a++) {
            lo[a] = center[a] - (a == 1 ? 0 : r);
            hi[a] = center[a] + (a == 1 ? height : r);
        }
    } else if (mesh) {
        /* A closed mesh (OBJ, relative to the scene file): scaled, turned by
         * "rotation" [axis x, y, z, degrees] about its bounding box centre,
         * which goes to "center"; voxelised at the spacing. */
        const char *file;
        double scale, rot[4] = { 0, 1, 0, 0 }, zero3[3] = { 0, 0, 0 };
        bool surface;
        if (!get_string(c, f, "file", path, true, &file) ||
            !get_number(c, f, "scale", path, false, 1, 1e-9, 1e9, &scale) ||
            !get_vec3_key(c, f, "center", path, false, zero3, center) ||
            !get_bool(c, f, "surface_only", path, false, &surface))
            return false;
        const cJSON *jr = cJSON_GetObjectItemCaseSensitive(f, "rotation");
        if (jr) {
            snprintf(field, sizeof field, "%s.rotation", path);
            if (!cJSON_IsArray(jr) || cJSON_GetArraySize(jr) != 4)
                return fail(c, "scene.field", field, "expected [axis x, axis y, axis z, angle in degrees], got %s",
                            json_type(jr));
            for (int a = 0; a < 4; a++) {
                const cJSON *x = cJSON_GetArrayItem(jr, a);
                if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
                    return fail(c, "scene.field", field, "element %d: expected a finite number", a);
                rot[a] = x->valuedouble;
            }
            if (rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2] == 0)
                return fail(c, "scene.field", field, "the axis [0, 0, 0] has no direction");
        }
        char dir[4096], full[4096], err[1024];
        dir_of(c->file, dir, sizeof dir);
        int plen = file[0] == '/' ? snprintf(full, sizeof full, "%s", file)
                                 : snprintf(full, sizeof full, "%s/%s", dir, file);
        eddy_mesh m;
        snprintf(field, sizeof field, "%s.file", path);
        if (plen < 0 || (size_t)plen >= sizeof full)
            return fail(c, "scene.mesh", field, "the mesh's path is longer than %zu bytes", sizeof full - 1);
        if (eddy_load_obj(full, &m, err, sizeof err) != 0)
            return fail(c, "scene.mesh", field, "%s", err);
        double blo[3] = { INFINITY, INFINITY, INFINITY }, bhi[3] = { -INFINITY, -INFINITY, -INFINITY };
        for (uint32_t i = 0; i < m.vertex_count; i++)
            for (int a = 0; a < 3; a++) {
                blo[a] = fmin(blo[a], m.vertices[3 * i + a]);
                bhi[a] = fmax(bhi[a], m.vertices[3 * i + a]);
            }
        double mid[3] = { -0.5 * (blo[0] + bhi[0]), -0.5 * (blo[1] + bhi[1]), -0.5 * (blo[2] + bhi[2]) };
        eddy_mesh_transform(&m, 1, NULL, mid);
        double len = sqrt(rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2]), half = rot[3] * M_PI / 360;
        double q[4] = { cos(half), sin(half) * rot[0] / len, sin(half) * rot[1] / len, sin(half) * rot[2] / len };
        eddy_mesh_transform(&m, scale, q, center);
        int64_t got = eddy_voxelize(&m, &(eddy_voxel_desc){ .diameter = spacing, .surface_only = surface,
                                                          .max_points = (uint32_t)(limit < UINT32_MAX ? limit : UINT32_MAX),
                                                          .max_bytes = c->host_budget },
                                    &pattern, err, sizeof err);
        eddy_free_mesh(&m);
        if (got < 0)
            return fail(c, "scene.mesh", field, "%s: %s", full, err);
        pattern_n = (uint64_t)got;
    } else {
        snprintf(field, sizeof field, "%s.shape", path);
        return fail(c, "scene.field", field, "unknown shape '%s'; expected \"box\", \"sphere\", \"cylinder\" or "
                    "\"mesh\"", shape);
    }
    if (!mesh) {
        double total = 1; /* each factor <= 1e7: exact enough to compare */
        for (int a = 0; a < 3; a++) {
            if (!(hi[a] > lo[a]))
                return fail(c, "scene.field", path, "max must exceed min along every axis (axis %d: %g .. %g)", a,
                            lo[a], hi[a]);
            double cells = (hi[a] - lo[a]) / spacing;
            if (cells > 1e7)
                return fail(c, "scene.too_large", path, "%g particles along axis %d: too many for spacing %g m", cells,
                            a, spacing);
            n[a] = (long)floor(cells + 1e-9);
            if (n[a] < 1)
                n[a] = 1;
            total *= (double)n[a];
        }
        if (total > (double)(limit - h->count))
            return fail(c, "scene.too_large", path, "the fill's lattice has %.0f points: the set would hold more than the %"
                        PRIu64 " particles that fit in one buffer on this device (maxStorageBufferRange)",
                        total, limit);
        if (12 * total > (double)c->host_budget)
            return fail(c, "scene.too_large", path, "the fill's lattice of %.0f points needs %.0f bytes of host memory, over the "
                        "scene loader's budget of %" PRIu64 " bytes", total, 12 * total, c->host_budget);
        pattern = malloc(12 * (size_t)total + 12);
        if (!pattern)
            return fail(c, "memory.host", path, "out of host memory");
        /* Lattice points in cell centres, in x-fastest order so every run is the same. */
        for (long k = 0; k < n[2]; k++)
            for (long j = 0; j < n[1]; j++)
                for (long i = 0; i < n[0]; i++) {
                    double x[3] = { lo[0] + spacing * (i + 0.5), lo[1] + spacing * (j + 0.5),
                                    lo[2] + spacing * (k + 0.5) };
                    if (sphere || cylinder) {
                        double d2 = 0;
                        for (int a = 0; a < 3; a++)
                            if (sphere || a != 1)
                                d2 += (x[a] - center[a]) * (x[a] - center[a]);
                        if (d2 > r * r)
                            continue;
                    }
                    for (int a = 0; a < 3; a++)
                        pattern[3 * pattern_n + a] = (float)x[a];
                    pattern_n++;
                }
    }
    double count[3] = { 1, 1, 1 }, step[3] = { 0, 0, 0 };
    const cJSON *jc = cJSON_GetObjectItemCaseSensitive(f, "copies");
    snprintf(field, sizeof field, "%s.copies", path);
    if (jc && (!cJSON_IsObject(jc) || !check_keys(c, jc, field, copies_keys) ||
               !get_vec3_key(c, jc, "count", field, true, NULL, count) ||
               !get_vec3_key(c, jc, "step", field, true, NULL, step))) {
        free(pattern);
        return c->failed ? false : fail(c, "scene.field", field, "expected {\"count\": [nx, ny, nz], \"step\": [dx, dy, dz]}, got %s",
                                        json_type(jc));
    }
    for (int a = 0; a < 3; a++)
        if (count[a] < 1 || count[a] > 1e6 || count[a] != floor(count[a])) {
            free(pattern);
            return fail(c, "scene.field", field, "count[%d] = %g: expected a whole number in [1, 1e6]", a, count[a]);
        }
    /* Each count <= 1e6, so copies <= 1e18 fits; copies * pattern_n may not,
     * so it is compared by division. */
    uint64_t copies = (uint64_t)count[0] * (uint64_t)count[1] * (uint64_t)count[2];
    if (h->count > limit || (pattern_n && copies > (limit - h->count) / pattern_n)) {
        free(pattern);
        return fail(c, "scene.too_large", path, "%" PRIu64 " copies of %" PRIu64 " particles would make the set hold more than "
                    "the %" PRIu64 " particles that fit in one buffer on this device (maxStorageBufferRange)",
                    copies, pattern_n, limit);
    }
    if (!host_reserve(c, path, h, copies * pattern_n)) {
        free(pattern);
        return false;
    }
    bool ok = true;
    for (long ck = 0; ok && ck < (long)count[2]; ck++)
        for (long cj = 0; ok && cj < (long)count[1]; cj++)
            for (long ci = 0; ok && ci < (long)count[0]; ci++) {
                double off[3] = { ci * step[0], cj * step[1], ck * step[2] };
                for (uint64_t p = 0; ok && p < pattern_n; p++) {
                    double x[3] = { pattern[3 * p] + off[0], pattern[3 * p + 1] + off[1], pattern[3 * p + 2] + off[2] };
                    /* "jitter": a fixed pseudo-random offset of up to
                     * jitter * spacing / 2 per axis (the same every run),
                     * to break a lattice's perfect stacking. */
                    for (int a = 0; a < 3 && jitter > 0; a++) {
                        uint64_t z = (h->count + 1) * 0x9E3779B97F4A7C15ull + (uint64_t)a * 0xBF58476D1CE4E5B9ull;
                        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
                        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
                        z ^= z >> 31;
                        x[a] += jitter * spacing * ((double)(z >> 11) / 9007199254740992.0 - 0.5);
                    }
                    ok = host_push(h, x, radius, vel, mass, body ? *body : phase);
                }
                if (body)
                    ++*body;
            }
    free(pattern);
    return ok ? true : fail(c, "memory.host", path, "out of host memory");
}

static bool parse_set(parse_ctx *c, eddy_scene *s, const cJSON *js, int index, uint64_t limit,
                      host_particles *h, uint32_t *capacity, char name[EDDY_NAME_MAX + 1])
{
    char path[64];
    snprintf(path, sizeof path, "particle_sets[%d]", index);
    if (!cJSON_IsObject(js))
        return fail(c, "scene.field", path, "expected an object, got %s", json_type(js));
    if (!check_keys(c, js, path, set_keys))
        return false;
    const char *n;
    if (!get_name(c, js, "name", path, true, EDDY_NAME_MAX, &n))
        return false;
    for (uint32_t i = 0; i < s->set_count; i++)
        if (!strcmp(s->sets[i].name, n))
            return fail(c, "scene.name", path, "a particle set named '%s' exists already", n);
    snprintf(name, EDDY_NAME_MAX + 1, "%s", n);
    double spacing, radius, mass, cap, phase;
    double vel[3];
    bool bodies;
    uint32_t body = 0;
    static const double zero[3] = { 0, 0, 0 };
    if (!get_number(c, js, "spacing", path, false, 0, 1e-9, 1e9, &spacing) ||
        !get_number(c, js, "radius", path, false, spacing > 0 ? spacing / 2 : 0.01, 1e-9, 1e9,
                    &radius) ||
        !get_number(c, js, "mass", path, false, 1000.0 * 8 * radius * radius * radius, 1e-30,
                    1e30, &mass) ||
        !get_whole(c, js, "capacity", path, 0, 0, 4294967295.0, &cap) ||
        !get_whole(c, js, "phase", path, 0, 0, 4294967295.0, &phase) ||
        !get_vec3_key(c, js, "velocity", path, false, zero, vel) ||
        !get_bool(c, js, "bodies", path, false, &bodies))
        return false;
    const cJSON *fills = cJSON_GetObjectItemCaseSensitive(js, "fill");
    if (fills) {
        char fp[128];
        if (cJSON_IsObject(fills)) {
            snprintf(fp, sizeof fp, "%s.fill", path);
            if (!parse_fill(c, fills, fp, spacing, limit, radius, vel, mass, (uint32_t)phase,
                            bodies ? &body : NULL, h))
                return false;
        } else if (cJSON_IsArray(fills)) {
            int i = 0;
            for (const cJSON *f = fills->child; f; f = f->next, i++) {
                snprintf(fp, sizeof fp, "%s.fill[%d]", path, i);
                if (!parse_fill(c, f, fp, spacing, limit, radius, vel, mass, (uint32_t)phase,
                                bodies ? &body : NULL, h))
                    return false;
            }
        } else {
            snprintf(fp, sizeof fp, "%s.fill", path);
            return fail(c, "scene.field", fp, "expected a shape object or an array of them, got %s",
                        json_type(fills));
        }
    }
    const cJSON *points = cJSON_GetObjectItemCaseSensitive(js, "points");
    if (points) {
        char pp[128];
        snprintf(pp, sizeof pp, "%s.points", path);
        if (!cJSON_IsArray(points))
            return fail(c, "scene.field", pp, "expected an array of [x, y, z] positions, got %s",
                        json_type(points));
        int i = 0;
        if (!host_reserve(c, pp, h, (uint64_t)cJSON_GetArraySize(points)))
            return false;
        for (const cJSON *p = points->child; p; p = p->next, i++) {
            char ip[160];
            snprintf(ip, sizeof ip, "%s[%d]", pp, i);
            double x[3];
            if (!get_vec3(c, p, ip, -1e30, 1e30, x))
                return false;
            if (h->count >= limit)
                return fail(c, "scene.too_large", pp, "more than %" PRIu64 " particles do not fit in one buffer",
                            limit);
            if (!host_push(h, x, radius, vel, mass, bodies ? body : (uint32_t)phase))
                return fail(c, "memory.host", pp, "out of host memory");
        }
        body += bodies && points->child; /* the points are one body */
    }
    if (h->count == 0)
        return fail(c, "scene.field", path, "the set has no particles: give \"fill\" (with \"spacing\") or "
                             "\"points\"");
    if (cap != 0 && cap < (double)h->count)
        return fail(c, "scene.field", path, "capacity %g is below the %" PRIu64 " particles of its fills", cap,
                    h->count);
    *capacity = cap != 0 ? (uint32_t)cap : (uint32_t)h->count;
    if (*capacity > limit) {
        char field[96];
        snprintf(field, sizeof field, "%s.capacity", path);
        return fail(c, "scene.too_large", field, "%u particles need %" PRIu64 " bytes per position buffer, over the "
                    "device's maxStorageBufferRange of %" PRIu64 " bytes; at most %" PRIu64
                    " particles fit", *capacity, (uint64_t)*capacity * 16,
                    c->e->info.max_storage_buffer_range, limit);
    }
    return true;
}

/* ------------------------------------------------------------------ systems */

static const char *const system_keys[] = { "name", "module", "set", "with", "params", "tool", NULL };

/* The path's centre at time t: held before the first key and after the last. */
static void tool_path_at(const scene_tool *tl, double t, double out[3])
{
    const tool_key *k = tl->keys;
    uint32_t n = tl->key_count;
    if (t <= k[0].t || n == 1) {
        memcpy(out, k[0].x, sizeof k[0].x);
        return;
    }
    if (t >= k[n - 1].t) {
        memcpy(out, k[n - 1].x, sizeof k[n - 1].x);
        return;
    }
    uint32_t i = 0;
    while (t >= k[i + 1].t)
        i++;
    double T = k[i + 1].t - k[i].t, u = (t - k[i].t) / T;
    for (int a = 0; a < 3; a++) {
        double p0 = k[i].x[a], p1 = k[i + 1].x[a];
        if (!tl->smooth) {
            out[a] = p0 + (p1 - p0) * u;
            continue;
        }
        /* Catmull-Rom tangents for uneven key spacing; at rest at the ends. */
        double m0 = i > 0 ? (p1 - k[i - 1].x[a]) / (k[i + 1].t - k[i - 1].t) : 0;
        double m1 = i + 2 < n ? (k[i + 2].x[a] - p0) / (k[i + 2].t - k[i].t) : 0;
        double u2 = u * u, u3 = u2 * u;
        out[a] = (2 * u3 - 3 * u2 + 1) * p0 + (u3 - 2 * u2 + u) * T * m0 + (-2 * u3 + 3 * u2) * p1 +
                 (u3 - u2) * T * m1;
    }
}

static const char *const tool_keys[] = { "path", "interpolation", "log", NULL };
static const char *const tool_key_keys[] = { "t", "position", NULL };

/* "tool": {"path": [{"t": 0, "position": [x, y, z]}, ...], "interpolation":
 * "linear" | "smooth", "log": true}: key times strictly increasing. */
static bool parse_tool(parse_ctx *c, const cJSON *jt, const char *path, scene_tool *tl)
{
    char field[400];
    if (!cJSON_IsObject(jt))
        return fail(c, "scene.field", path, "expected an object like {\"path\": [{\"t\": 0, \"position\": "
                    "[0, 0.3, 0]}]}, got %s", json_type(jt));
    if (!check_keys(c, jt, path, tool_keys))
        return false;
    const cJSON *jp = cJSON_GetObjectItemCaseSensitive(jt, "path");
    snprintf(field, sizeof field, "%s.path", path);
    if (!cJSON_IsArray(jp) || cJSON_GetArraySize(jp) < 1)
        return fail(c, "scene.field", field, "expected a non-empty array of key frames {\"t\": s, \"position\": "
                    "[x, y, z]}, got %s", json_type(jp));
    tl->key_count = (uint32_t)cJSON_GetArraySize(jp);
    tl->keys = calloc(tl->key_count, sizeof *tl->keys);
    if (!tl->keys)
        return fail(c, "memory.host", NULL, "out of host memory");
    uint32_t i = 0;
    for (const cJSON *jk = jp->child; jk; jk = jk->next, i++) {
        char kp[300];
        snprintf(kp, sizeof kp, "%s.path[%u]", path, i);
        if (!cJSON_IsObject(jk))
            return fail(c, "scene.field", kp, "expected a key frame {\"t\": s, \"position\": [x, y, z]}, got %s",
                        json_type(jk));
        if (!check_keys(c, jk, kp, tool_key_keys) ||
            !get_number(c, jk, "t", kp, true, 0, 0, 1e9, &tl->keys[i].t) ||
            !get_vec3_key(c, jk, "position", kp, true, NULL, tl->keys[i].x))
            return false;
        if (i > 0 && !(tl->keys[i].t > tl->keys[i - 1].t)) {
            snprintf(field, sizeof field, "%s.t", kp);
            return fail(c, "scene.field", field, "key frames must be in time order: expected a time after "
                        "path[%u].t = %g s, got %g s", i - 1, tl->keys[i - 1].t, tl->keys[i].t);
        }
    }
    const char *interp = NULL;
    if (!get_string(c, jt, "interpolation", path, false, &interp) ||
        !get_bool(c, jt, "log", path, true, &tl->log))
        return false;
    if (interp && strcmp(interp, "linear") && strcmp(interp, "smooth")) {
        snprintf(field, sizeof field, "%s.interpolation", path);
        return fail(c, "scene.field", field, "expected \"linear\" or \"smooth\", got \"%s\"", interp);
    }
    tl->smooth = interp && !strcmp(interp, "smooth");
    tl->scripted = true;
    tool_path_at(tl, 0, tl->at);
    return true;
}

static bool parse_params(parse_ctx *c, const eddy_module_desc *m, const cJSON *jp,
                         const char *path, eddy_param_value *values)
{
    for (uint32_t i = 0; i < m->param_count; i++)
        memcpy(values[i].v, m->params[i].def, sizeof values[i].v);
    if (!jp)
        return true;
    if (!cJSON_IsObject(jp))
        return fail(c, "scene.field", path, "expected an object of parameters, got %s", json_type(jp));
    for (const cJSON *it = jp->child; it; it = it->next) {
        char field[512];
        snprintf(field, sizeof field, "%s.%s", path, it->string);
        const eddy_param_info *info = NULL;
        uint32_t index = 0;
        for (uint32_t i = 0; i < m->param_count; i++)
            if (!strcmp(m->params[i].name, it->string)) {
                info = &m->params[i];
                index = i;
            }
        if (!info) {
            char known[512] = "";
            for (uint32_t i = 0; i < m->param_count; i++)
                snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                         i ? ", " : "", m->params[i].name);
            return fail(c, "scene.unknown_field", field, "module '%s' has no parameter '%s'; its parameters: %s",
                        m->name, it->string, m->param_count ? known : "(none)");
        }
        double *v = values[index].v;
        switch (info->type) {
        case EDDY_PARAM_VEC3:
            if (!get_vec3(c, it, field, info->min, info->max, v))
                return false;
            break;
        case EDDY_PARAM_BOOL:
            if (!cJSON_IsBool(it))
                return fail(c, "scene.field", field, "expected true or false, got %s", json_type(it));
            v[0] = cJSON_IsTrue(it) ? 1 : 0;
            break;
        case EDDY_PARAM_INT:
        case EDDY_PARAM_FLOAT:
            if (!cJSON_IsNumber(it))
                return fail(c, "scene.field", field, "expected a number in [%g, %g], got %s", info->min,
                            info->max, json_type(it));
            if (!isfinite(it->valuedouble))
                return fail(c, "scene.field", field, "expected a finite number in [%g, %g], got %g",
                            info->min, info->max, it->valuedouble);
            if (info->type == EDDY_PARAM_INT && it->valuedouble != floor(it->valuedouble))
                return fail(c, "scene.field", field, "expected an integer, got %g", it->valuedouble);
            if (it->valuedouble < info->min || it->valuedouble > info->max)
                return fail(c, "scene.field", field, "%g is out of range; expected a number in [%g, %g]%s%s",
                            it->valuedouble, info->min, info->max,
                            info->unit && strcmp(info->unit, "1") ? " " : "",
                            info->unit && strcmp(info->unit, "1") ? info->unit : "");
            v[0] = it->valuedouble;
            break;
        }
    }
    return true;
}

/* ------------------------------------------------------------------ load */

static const char *const scene_keys[] = { "name", "dt", "substeps", "adaptive", "duration", "box",
                                          "particle_sets", "systems", "output", "plugins",
                                          "description", "solids", NULL };

/* ------------------------------------------------------------------ solids */

static bool parse_solid(parse_ctx *c, const cJSON *j, const char *path, eddy_solid *out)
{
    static const char *const plane_keys[] = { "type", "point", "normal", NULL };
    static const char *const sphere_keys[] = { "type", "center", "radius", NULL };
    static const char *const capsule_keys[] = { "type", "a", "b", "radius", NULL };
    static const char *const glass_keys[] = { "type", "center", "axis", "radius", "height",
                                              "thickness", NULL };
    if (!cJSON_IsObject(j))
        return fail(c, "scene.field", path, "expected an object with a \"type\", got %s", json_type(j));
    const char *type;
    if (!get_string(c, j, "type", path, true, &type))
        return false;
    memset(out, 0, sizeof *out);
    double a[3], b[3], r = 0, hgt = 0, t = 0;
    char field[160];
    if (!strcmp(type, "plane")) {
        if (!check_keys(c, j, path, plane_keys) || !get_vec3_key(c, j, "point", path, true, NULL, a) ||
            !get_vec3_key(c, j, "normal", path, true, NULL, b))
            return false;
        out->type = EDDY_SOLID_PLANE;
    } else if (!strcmp(type, "sphere")) {
        if (!check_keys(c, j, path, sphere_keys) || !get_vec3_key(c, j, "center", path, true, NULL, a) ||
            !get_number(c, j, "radius", path, true, 0, 1e-9, 1e9, &r))
            return false;
        out->type = EDDY_SOLID_SPHERE;
    } else if (!strcmp(type, "capsule")) {
        if (!check_keys(c, j, path, capsule_keys) || !get_vec3_key(c, j, "a", path, true, NULL, a) ||
            !get_vec3_key(c, j, "b", path, true, NULL, b) ||
            !get_number(c, j, "radius", path, true, 0, 1e-9, 1e9, &r))
            return false;
        out->type = EDDY_SOLID_CAPSULE;
    } else if (!strcmp(type, "glass")) {
        static const double up[3] = { 0, 1, 0 };
        if (!check_keys(c, j, path, glass_keys) || !get_vec3_key(c, j, "center", path, true, NULL, a) ||
            !get_vec3_key(c, j, "axis", path, false, up, b) ||
            !get_number(c, j, "radius", path, true, 0, 1e-9, 1e9, &r) ||
            !get_number(c, j, "height", path, true, 0, 1e-9, 1e9, &hgt) ||
            !get_number(c, j, "thickness", path, false, 0.005, 1e-9, 1e9, &t))
            return false;
        out->type = EDDY_SOLID_GLASS;
    } else {
        snprintf(field, sizeof field, "%s.type", path);
        return fail(c, "scene.field", field, "unknown solid '%s'; expected \"plane\", \"sphere\", \"capsule\" "
                    "or \"glass\"", type);
    }
    if (out->type == EDDY_SOLID_PLANE || out->type == EDDY_SOLID_GLASS) {
        double len = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
        if (!(len > 1e-12)) {
            snprintf(field, sizeof field, "%s.%s", path, out->type == EDDY_SOLID_PLANE ? "normal" : "axis");
            return fail(c, "scene.field", field, "expected a non-zero vector");
        }
        for (int k = 0; k < 3; k++)
            b[k] /= len;
    }
    for (int k = 0; k < 3; k++) {
        out->a[k] = (float)a[k];
        out->b[k] = out->type == EDDY_SOLID_SPHERE ? 0.0f : (float)b[k];
    }
    out->a[3] = (float)r;
    out->b[3] = (float)hgt;
    out->c[0] = (float)t;
    return true;
}
static const char *const box_keys[] = { "min", "max", NULL };
static const char *const output_keys[] = { "frame_interval", "vtk", "stats", "images", NULL };
static const char *const image_keys[] = { "width", "height", "camera", "color_by", "range", NULL };
static const char *const camera_keys[] = { "eye", "target", "up", "fov", NULL };

/* "output.images": the renderer's size, camera and colouring. The default
 * camera looks at the box centre from the front, a little from above. */
static bool parse_images(parse_ctx *c, eddy_scene *s, const cJSON *j, eddy_render_desc *rd)
{
    if (!cJSON_IsObject(j))
        return fail(c, "scene.field", "output.images", "expected an object, got %s", json_type(j));
    double w, h, fov = 40;
    if (!check_keys(c, j, "output.images", image_keys) ||
        !get_number(c, j, "width", "output.images", false, 640, 16, 8192, &w) ||
        !get_number(c, j, "height", "output.images", false, 480, 16, 8192, &h))
        return false;
    double center[3], ext = 0, eye[3], target[3], up[3] = { 0, 1, 0 };
    for (int a = 0; a < 3; a++) {
        center[a] = 0.5 * (s->box_min[a] + s->box_max[a]);
        double d = s->box_max[a] - s->box_min[a];
        ext += d * d;
    }
    ext = sqrt(ext);
    static const double dir[3] = { 0.35, 0.45, 1.0 };
    for (int a = 0; a < 3; a++) {
        target[a] = center[a];
        eye[a] = center[a] + 1.3 * ext * dir[a];
    }
    const cJSON *cam = cJSON_GetObjectItemCaseSensitive(j, "camera");
    if (cam) {
        if (!cJSON_IsObject(cam))
            return fail(c, "scene.field", "output.images.camera", "expected an object, got %s", json_type(cam));
        double e0[3], t0[3], u0[3];
        memcpy(e0, eye, sizeof e0), memcpy(t0, target, sizeof t0), memcpy(u0, up, sizeof u0);
        if (!check_keys(c, cam, "output.images.camera", camera_keys) ||
            !get_vec3_key(c, cam, "eye", "output.images.camera", false, e0, eye) ||
            !get_vec3_key(c, cam, "target", "output.images.camera", false, t0, target) ||
            !get_vec3_key(c, cam, "up", "output.images.camera", false, u0, up) ||
            !get_number(c, cam, "fov", "output.images.camera", false, 40, 1, 170, &fov))
            return false;
    }
    const char *by;
    if (!get_string(c, j, "color_by", "output.images", false, &by))
        return false;
    s->color_by = !by || !strcmp(by, "speed") ? 0 : !strcmp(by, "density") ? 1 : !strcmp(by, "set") ? 2
                  : !strcmp(by, "phase") ? 3 : -1;
    if (s->color_by < 0)
        return fail(c, "scene.field", "output.images.color_by", "unknown '%s'; expected \"speed\", \"density\", \"set\" or \"phase\"", by);
    s->color_range[0] = s->color_by == 1 ? 900 : 0;
    s->color_range[1] = s->color_by == 1 ? 1100 : s->color_by == 0 ? 3 : 1;
    const cJSON *range = cJSON_GetObjectItemCaseSensitive(j, "range");
    if (range) {
        double r3[3];
        if (!cJSON_IsArray(range) || cJSON_GetArraySize(range) != 2)
            return fail(c, "scene.field", "output.images.range", "expected [low, high], got %s", json_type(range));
        for (int i = 0; i < 2; i++) {
            const cJSON *x = cJSON_GetArrayItem(range, i);
            if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
                return fail(c, "scene.field", "output.images.range", "element %d: expected a finite number", i);
            r3[i] = x->valuedouble;
        }
        if (!(r3[1] > r3[0]))
            return fail(c, "scene.field", "output.images.range", "high must exceed low (%g .. %g)", r3[0], r3[1]);
        s->color_range[0] = r3[0], s->color_range[1] = r3[1];
    }
    s->image_w = (uint32_t)w;
    s->image_h = (uint32_t)h;
    *rd = (eddy_render_desc){ .width = s->image_w, .height = s->image_h, .fov_deg = (float)fov };
    for (int a = 0; a < 3; a++) {
        rd->eye[a] = (float)eye[a];
        rd->target[a] = (float)target[a];
        rd->up[a] = (float)up[a];
    }
    return true;
}

static char *read_file(const char *path, char *err, size_t cap)
{
    /* A device or a pipe would be read forever or block the open itself. */
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, cap, "cannot open: %s", strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, cap, "not a regular file (expected a JSON scene file)");
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, cap, "cannot open: %s", strerror(errno));
        return NULL;
    }
    size_t len = 0, size = 4096;
    char *buf = malloc(size);
    while (buf) {
        size_t n = fread(buf + len, 1, size - len - 1, f);
        len += n;
        if (len + 1 < size)
            break;
        char *grown = size < (64u << 20) ? realloc(buf, size * 2) : NULL;
        if (!grown) {
            free(buf);
            buf = NULL;
            snprintf(err, cap, "larger than 64 MiB or out of memory");
            break;
        }
        buf = grown;
        size *= 2;
    }
    if (buf && ferror(f)) {
        snprintf(err, cap, "read error: %s", strerror(errno));
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf)
        buf[len] = 0;
    return buf;
}

static void line_col(const char *text, const char *at, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (const char *p = text; p < at && *p; p++) {
        if (*p == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

/* Adaptive stepping: the substeps the systems need now; a new step graph
 * when that differs from the current one. */
static eddy_result adapt(eddy_scene *s)
{
    double stable = INFINITY;
    for (uint32_t i = 0; i < s->system_count; i++) {
        double d = s->systems[i].module->stable_dt(s->systems[i].state);
        stable = d < stable ? d : stable;
    }
    double need = ceil(s->dt / stable - 1e-9);
    uint32_t n = need < s->substeps ? s->substeps : need > s->max_substeps ? s->max_substeps : (uint32_t)need;
    if (stable * n < s->dt * (1 - 1e-9))
        eddy_log(s->e, EDDY_LOG_WARN, "adaptive.limited", "adaptive: %u substeps (max_substeps) are not enough for a "
                 "stable substep of %g s at step %llu", n, stable, (unsigned long long)s->steps_done);
    if (s->graph.id && n == s->current_substeps)
        return EDDY_OK;
    eddy_destroy_graph(s->e, s->graph);
    s->graph = eddy_create_graph(s->e, &(eddy_graph_desc){
        .label = "step", .times = n, .timestamps = s->profile });
    if (!s->graph.id)
        return EDDY_ERROR_VULKAN;
    for (uint32_t i = 0; i < s->system_count; i++) {
        const eddy_module_desc *m = s->systems[i].module;
        eddy_result r = m->set_dt(s->systems[i].state, s->dt / n);
        if (r == EDDY_OK)
            r = m->declare_step(s->systems[i].state, s->graph);
        if (r != EDDY_OK)
            return r;
    }
    s->current_substeps = n;
    return EDDY_OK;
}

static bool load(parse_ctx *c, eddy_scene *s, const cJSON *root, const eddy_scene_desc *desc)
{
    eddy_engine *e = s->e;
    if (!cJSON_IsObject(root))
        return fail(c, "scene.json", NULL, "the scene must be a JSON object, not %s", json_type(root));
    if (!check_keys(c, root, "", scene_keys))
        return false;
    if (!check_duplicates(c, root, ""))
        return false;
    const char *name;
    if (!get_name(c, root, "name", "", false, EDDY_SCENE_NAME_MAX, &name))
        return false;
    if (!name) {
        /* The file's stem names an unnamed scene, under the same rules. */
        const char *base = strrchr(s->path, '/');
        base = base ? base + 1 : s->path;
        const char *dot = strrchr(base, '.');
        size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
        char stem[EDDY_SCENE_NAME_MAX + 2];
        snprintf(stem, sizeof stem, "%.*s", (int)(len < sizeof stem - 1 ? len : sizeof stem - 1), base);
        if (!check_name(c, "name", stem, EDDY_SCENE_NAME_MAX))
            return fail(c, "scene.field", "name", "the file name's stem names a scene without \"name\"");
        snprintf(s->name, sizeof s->name, "%.*s", EDDY_SCENE_NAME_MAX, stem); /* checked: fits */
    } else {
        snprintf(s->name, sizeof s->name, "%s", name);
    }
    double substeps;
    if (!get_number(c, root, "dt", "", true, 0, 1e-9, 10, &s->dt) ||
        !get_number(c, root, "substeps", "", false, 1, 1, 10000, &substeps) ||
        !get_number(c, root, "duration", "", true, 0, 0, 1e9, &s->duration))
        return false;
    if (substeps != floor(substeps))
        return fail(c, "scene.field", "substeps", "expected an integer, got %g", substeps);
    s->substeps = (uint32_t)substeps;
    /* "adaptive": {"max_substeps": N}: each frame the step is split into as
     * many substeps as the systems' stability bounds need (at least
     * `substeps`), so a fast flow takes smaller steps; the graph is
     * re-recorded only when that number changes. */
    const cJSON *ad = cJSON_GetObjectItemCaseSensitive(root, "adaptive");
    if (ad) {
        static const char *const adaptive_keys[] = { "max_substeps", NULL };
        double maxs;
        if (!cJSON_IsObject(ad))
            return fail(c, "scene.field", "adaptive", "expected an object like {\"max_substeps\": 100}, got %s",
                        json_type(ad));
        if (!check_keys(c, ad, "adaptive", adaptive_keys) ||
            !get_number(c, ad, "max_substeps", "adaptive", false, 100, 1, 10000, &maxs))
            return false;
        s->adaptive = true;
        s->max_substeps = (uint32_t)maxs;
    }
    double steps = ceil(s->duration / s->dt - 1e-9);
    if (steps > 1e12)
        return fail(c, "scene.too_large", "duration", "%g s at dt %g s is %g steps; at most 1e12", s->duration, s->dt,
                    steps);
    s->steps = (uint64_t)(steps > 0 ? steps : 0);

    const cJSON *box = cJSON_GetObjectItemCaseSensitive(root, "box");
    if (!box)
        return fail(c, "scene.missing_field", "box", "missing; expected {\"min\": [x, y, z], \"max\": [x, y, z]} (m)");
    if (!cJSON_IsObject(box))
        return fail(c, "scene.field", "box", "expected an object, got %s", json_type(box));
    double bmin[3], bmax[3];
    if (!check_keys(c, box, "box", box_keys) ||
        !get_vec3_key(c, box, "min", "box", true, NULL, bmin) ||
        !get_vec3_key(c, box, "max", "box", true, NULL, bmax))
        return false;
    for (int a = 0; a < 3; a++) {
        if (!(bmax[a] > bmin[a]))
            return fail(c, "scene.field", "box", "max must exceed min along every axis (axis %d: %g .. %g)", a,
                        bmin[a], bmax[a]);
        s->box_min[a] = (float)bmin[a];
        s->box_max[a] = (float)bmax[a];
    }

    const cJSON *out = cJSON_GetObjectItemCaseSensitive(root, "output");
    double frame_interval = 1.0 / 30.0;
    s->vtk = s->stats = true;
    if (out) {
        if (!cJSON_IsObject(out))
            return fail(c, "scene.field", "output", "expected an object, got %s", json_type(out));
        if (!check_keys(c, out, "output", output_keys) ||
            !get_number(c, out, "frame_interval", "output", false, 1.0 / 30.0, 1e-9, 1e9,
                        &frame_interval) ||
            !get_bool(c, out, "vtk", "output", true, &s->vtk) ||
            !get_bool(c, out, "stats", "output", true, &s->stats))
            return false;
        const cJSON *images = cJSON_GetObjectItemCaseSensitive(out, "images");
        if (images) {
            eddy_render_desc rd;
            if (!parse_images(c, s, images, &rd))
                return false;
            s->renderer = eddy_create_renderer(e, &rd);
            if (!s->renderer)
                return fail(c, "scene.system", "output.images", "the renderer could not be created (see above)");
        }
    }
    double every = floor(frame_interval / s->dt + 0.5);
    s->frame_every = every < 1 ? 1 : every > 4e9 ? 4000000000u : (uint32_t)every;

    const cJSON *plugins = cJSON_GetObjectItemCaseSensitive(root, "plugins");
    if (plugins) {
        if (!cJSON_IsArray(plugins))
            return fail(c, "scene.field", "plugins", "expected an array of shared library paths, got %s",
                        json_type(plugins));
        /* A library runs its code when loaded: a scene file alone (from
         * anyone) must not be able to do that. */
        if (!desc->allow_plugins && cJSON_GetArraySize(plugins) > 0)
            return fail(c, "scene.plugin_refused", "plugins", "the scene loads module libraries, which run their own code; "
                        "refused unless allowed (eddy run --allow-plugins, or "
                        "eddy_scene_desc.allow_plugins; --module LIB.so loads one by hand)");
        char dir[4096];
        dir_of(s->path, dir, sizeof dir);
        int i = 0;
        for (const cJSON *p = plugins->child; p; p = p->next, i++) {
            char field[64];
            snprintf(field, sizeof field, "plugins[%d]", i);
            if (!cJSON_IsString(p))
                return fail(c, "scene.field", field, "expected a path string, got %s", json_type(p));
            char full[4096];
            int len = p->valuestring[0] == '/' ? snprintf(full, sizeof full, "%s", p->valuestring)
                                               : snprintf(full, sizeof full, "%s/%s", dir, p->valuestring);
            if (len < 0 || (size_t)len >= sizeof full)
                return fail(c, "scene.field", field, "the path is longer than %zu bytes", sizeof full - 1);
            if (eddy_load_module(e, full) != EDDY_OK)
                return fail(c, "scene.system", field, "module '%s' could not be loaded (see above)", full);
        }
    }

    const cJSON *solids = cJSON_GetObjectItemCaseSensitive(root, "solids");
    if (solids) {
        if (!cJSON_IsArray(solids))
            return fail(c, "scene.field", "solids", "expected an array of solids, got %s", json_type(solids));
        int n = cJSON_GetArraySize(solids);
        s->solids = calloc((size_t)n + 1, sizeof *s->solids);
        if (!s->solids)
            return fail(c, "memory.host", NULL, "out of host memory");
        int i = 0;
        for (const cJSON *js = solids->child; js; js = js->next, i++) {
            char path[64];
            snprintf(path, sizeof path, "solids[%d]", i);
            if (!parse_solid(c, js, path, &s->solids[s->solid_count]))
                return false;
            s->solid_count++;
        }
    }

    /* Particle sets. */
    const cJSON *sets = cJSON_GetObjectItemCaseSensitive(root, "particle_sets");
    if (!cJSON_IsArray(sets) || cJSON_GetArraySize(sets) == 0)
        return fail(c, "scene.field", "particle_sets", "expected a non-empty array of particle sets, got %s",
                    json_type(sets));
    int set_n = cJSON_GetArraySize(sets);
    s->sets = calloc((size_t)set_n, sizeof *s->sets);
    if (!s->sets)
        return fail(c, "memory.host", NULL, "out of host memory");
    uint64_t limit = e->info.max_storage_buffer_range / 16;
    int index = 0;
    for (const cJSON *js = sets->child; js; js = js->next, index++) {
        host_particles h = { 0 };
        uint32_t capacity = 0;
        char sname[EDDY_NAME_MAX + 1];
        if (!parse_set(c, s, js, index, limit, &h, &capacity, sname)) {
            host_free(&h);
            return false;
        }
        /* Frames and the scene's info count all sets in 32 bits. */
        uint64_t all = h.count;
        for (uint32_t i = 0; i < s->set_count; i++)
            all += s->sets[i].count;
        if (all > UINT32_MAX) {
            host_free(&h);
            char field[64];
            snprintf(field, sizeof field, "particle_sets[%d]", index);
            return fail(c, "scene.too_large", field, "the scene's sets would hold %" PRIu64 " particles together; at most %u",
                        all, UINT32_MAX);
        }
        eddy_particles p = eddy_create_particles(e, &(eddy_particles_desc){
            .name = sname, .count = (uint32_t)h.count, .capacity = capacity });
        if (!p.id) {
            host_free(&h);
            char field[64];
            snprintf(field, sizeof field, "particle_sets[%d]", index);
            return fail(c, "scene.system", field, "the set's buffers could not be created (see above)");
        }
        scene_set *ss = &s->sets[s->set_count++];
        ss->handle = p;
        ss->count = (uint32_t)h.count;
        snprintf(ss->name, sizeof ss->name, "%s", sname);
        eddy_result r = eddy_buffer_upload(e, eddy_particles_buffer(e, p, "position"), 0,
                                           h.count * 16, h.position);
        if (r == EDDY_OK)
            r = eddy_buffer_upload(e, eddy_particles_buffer(e, p, "velocity"), 0, h.count * 16,
                                   h.velocity);
        if (r == EDDY_OK)
            r = eddy_buffer_upload(e, eddy_particles_buffer(e, p, "mass"), 0, h.count * 4, h.mass);
        if (r == EDDY_OK)
            r = eddy_buffer_upload(e, eddy_particles_buffer(e, p, "phase"), 0, h.count * 4,
                                   h.phase);
        host_free(&h);
        if (r != EDDY_OK)
            return fail(c, "scene.system", NULL, "uploading particle set '%s' failed", sname);
    }

    /* Systems. */
    const cJSON *systems = cJSON_GetObjectItemCaseSensitive(root, "systems");
    if (!cJSON_IsArray(systems) || cJSON_GetArraySize(systems) == 0)
        return fail(c, "scene.field", "systems", "expected a non-empty array of systems, got %s",
                    json_type(systems));
    int sys_n = cJSON_GetArraySize(systems);
    s->systems = calloc((size_t)sys_n, sizeof *s->systems);
    if (!s->systems)
        return fail(c, "memory.host", NULL, "out of host memory");
    s->graph = eddy_create_graph(e, &(eddy_graph_desc){
        .label = "step", .times = s->substeps, .timestamps = desc->profile });
    if (!s->graph.id)
        return fail(c, "scene.system", NULL, "the step graph could not be created");
    index = 0;
    for (const cJSON *js = systems->child; js; js = js->next, index++) {
        char path[64];
        snprintf(path, sizeof path, "systems[%d]", index);
        if (!cJSON_IsObject(js))
            return fail(c, "scene.field", path, "expected an object, got %s", json_type(js));
        const char *mname, *setname, *sname, *withname;
        if (!check_keys(c, js, path, system_keys) ||
            !get_string(c, js, "module", path, true, &mname) ||
            !get_string(c, js, "set", path, true, &setname) ||
            !get_string(c, js, "with", path, false, &withname) ||
            !get_name(c, js, "name", path, false, EDDY_NAME_MAX, &sname))
            return false;
        const eddy_module_desc *m = eddy_find_module(e, mname);
        char field[128];
        if (!m) {
            char known[512] = "";
            for (uint32_t i = 0; i < e->module_count; i++)
                snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                         i ? ", " : "", e->modules[i]->name);
            snprintf(field, sizeof field, "%s.module", path);
            return fail(c, "scene.unknown_module", field, "unknown module '%s'; known modules: %s (`eddy modules` "
                        "lists them)", mname, known);
        }
        eddy_particles set = eddy_find_particles(e, setname);
        if (!set.id) {
            snprintf(field, sizeof field, "%s.set", path);
            return fail(c, "scene.unknown_set", field, "no particle set named '%s' in particle_sets", setname);
        }
        eddy_particles with = { 0 };
        snprintf(field, sizeof field, "%s.with", path);
        if (withname && !m->with_doc)
            return fail(c, "scene.field", field, "module '%s' runs on one set and takes no \"with\"", m->name);
        if (withname) {
            with = eddy_find_particles(e, withname);
            if (!with.id)
                return fail(c, "scene.unknown_set", field, "no particle set named '%s' in particle_sets", withname);
            if (with.id == set.id)
                return fail(c, "scene.field", field, "'%s' is the system's own set; expected another set", withname);
        }
        eddy_param_value values[64];
        if (m->param_count > 64) {
            snprintf(field, sizeof field, "%s.module", path);
            return fail(c, "scene.field", field, "module '%s' declares more than 64 parameters", m->name);
        }
        snprintf(field, sizeof field, "%s.params", path);
        if (!parse_params(c, m, cJSON_GetObjectItemCaseSensitive(js, "params"), field, values))
            return false;
        /* A system's name is part of its files' names (tool_<name>.csv,
         * <name>_surface_*.ply): one name, one system. */
        const char *use = sname ? sname : mname;
        snprintf(field, sizeof field, "%s.name", path);
        if (!sname && !check_name(c, field, use, EDDY_NAME_MAX))
            return false;
        for (uint32_t i = 0; i < s->system_count; i++)
            if (!strcmp(s->systems[i].name, use))
                return fail(c, "scene.name", field, "a system named '%s' exists already; expected a \"name\" of its own",
                            use);
        scene_system *sys = &s->systems[s->system_count++];
        sys->module = m;
        snprintf(sys->name, sizeof sys->name, "%s", use);
        eddy_system_ctx ctx = {
            .engine = e,
            .name = sys->name,
            .particles = set,
            .with = with,
            .params = values,
            .dt = s->dt / s->substeps,
            .substeps = s->substeps,
            .solids = s->solids,
            .solid_count = s->solid_count,
            .adaptive = s->adaptive,
        };
        memcpy(ctx.box_min, s->box_min, sizeof ctx.box_min);
        memcpy(ctx.box_max, s->box_max, sizeof ctx.box_max);
        if (m->create(&ctx, &sys->state) != EDDY_OK)
            return fail(c, "scene.system", path, "module '%s' could not create the system (see above)", m->name);
        if (m->declare_step(sys->state, s->graph) != EDDY_OK)
            return fail(c, "scene.system", path, "module '%s' could not declare its step (see above)", m->name);
        if (s->adaptive && (!m->stable_dt || !m->set_dt))
            return fail(c, "scene.field", "adaptive", "module '%s' (%s) cannot adapt its step (no stable_dt)",
                        m->name, path);
        const cJSON *jt = cJSON_GetObjectItemCaseSensitive(js, "tool");
        if (jt) {
            snprintf(field, sizeof field, "%s.tool", path);
            if (!m->set_tool || !m->tool_force)
                return fail(c, "system.no_tool", field, "module '%s' has no tool", m->name);
            if (!parse_tool(c, jt, field, &sys->tool))
                return false;
            if (m->set_tool(sys->state, sys->tool.at, sys->tool.at) != EDDY_OK ||
                m->tool_force(sys->state, &sys->tool.last) != EDDY_OK)
                return fail(c, "scene.system", field, "module '%s' could not place the tool (see above)", m->name);
            /* Until the first step: no force, the tool where the path starts. */
            memset(&sys->tool.last, 0, offsetof(eddy_tool_force, position));
            memcpy(sys->tool.last.position, sys->tool.at, sizeof sys->tool.at);
        }
    }
    if (s->adaptive && adapt(s) != EDDY_OK)
        return fail(c, "scene.system", "adaptive", "the first adaptive substep could not be set up (see above)");
    return true;
}

eddy_scene *eddy_load_scene(eddy_engine *e, const eddy_scene_desc *desc)
{
    if (!desc || (!desc->path && !desc->json)) {
        eddy_log(e, EDDY_LOG_ERROR, "scene.invalid", "load_scene: give a path or the JSON text");
        return NULL;
    }
    eddy_scene *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->e = e;
    s->no_output = desc->no_output;
    s->profile = desc->profile;
    parse_ctx c = { e, desc->path ? desc->path : "(scene text)", false,
                    desc->host_budget ? desc->host_budget : EDDY_SCENE_DEFAULT_HOST_BUDGET };
    /* Paths too long for eddy's buffers are refused, never cut (a cut path
     * names another file or folder). */
    if (desc->path && strlen(desc->path) >= sizeof s->path) {
        fail(&c, "scene.file", NULL, "the scene file's path is longer than %zu bytes", sizeof s->path - 1);
        free(s);
        return NULL;
    }
    if (desc->out_dir && strlen(desc->out_dir) > EDDY_OUT_DIR_MAX) {
        fail(&c, "output.write", NULL, "the output folder's path (--out) is %zu bytes long; at most %d", strlen(desc->out_dir),
             EDDY_OUT_DIR_MAX);
        free(s);
        return NULL;
    }
    snprintf(s->path, sizeof s->path, "%s", desc->path ? desc->path : "(scene text)");
    c.file = s->path;
    char *text = NULL;
    if (desc->json) {
        text = strdup(desc->json);
    } else {
        char err[256];
        text = read_file(desc->path, err, sizeof err);
        if (!text) {
            fail(&c, "scene.file", NULL, "%s", err);
            free(s);
            return NULL;
        }
    }
    if (!text) {
        free(s);
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
    if (!root) {
        int line, col;
        const char *at = end ? end : cJSON_GetErrorPtr();
        line_col(text, at ? at : text, &line, &col);
        char near[96];
        if (at && *at)
            eddy_printable(at, strnlen(at, 20), near, sizeof near);
        eddy_log(e, EDDY_LOG_ERROR, "scene.json", "%s:%d:%d: malformed JSON near '%s'", s->path, line, col,
                 at && *at ? near : "(end of file)");
        free(text);
        free(s);
        return NULL;
    }
    bool ok = load(&c, s, root, desc);
    cJSON_Delete(root);
    free(text);
    if (!ok) {
        eddy_destroy_scene(s);
        return NULL;
    }
    if (desc->out_dir && *desc->out_dir)
        snprintf(s->out_dir, sizeof s->out_dir, "%s", desc->out_dir);
    else
        snprintf(s->out_dir, sizeof s->out_dir, "out/%s", s->name);
    return s;
}

static eddy_result close_output(eddy_scene *s);

void eddy_destroy_scene(eddy_scene *s)
{
    if (!s)
        return;
    eddy_engine *e = s->e;
    close_output(s);
    eddy_destroy_graph(e, s->graph);
    eddy_destroy_renderer(e, s->renderer);
    for (uint32_t i = 0; i < s->system_count; i++) {
        s->systems[i].module->destroy(s->systems[i].state);
        free(s->systems[i].tool.keys);
        free(s->systems[i].tool.text);
    }
    for (uint32_t i = 0; i < s->set_count; i++)
        eddy_destroy_particles(e, s->sets[i].handle);
    for (uint32_t i = 0; i < s->pvd_count; i++)
        free((char *)s->pvd[i].file);
    free(s->pvd);
    free(s->solids);
    free(s->systems);
    free(s->sets);
    free(s);
}

eddy_scene_info eddy_scene_get_info(const eddy_scene *s)
{
    uint32_t particles = 0;
    for (uint32_t i = 0; i < s->set_count; i++)
        particles += s->sets[i].count;
    return (eddy_scene_info){
        .name = s->name,
        .dt = s->dt,
        .substeps = s->adaptive ? s->current_substeps : s->substeps,
        .duration = s->duration,
        .steps = s->steps,
        .steps_done = s->steps_done,
        .time = (double)s->steps_done * s->dt,
        .frame_every = s->frame_every,
        .particle_count = particles,
        .out_dir = s->out_dir,
    };
}

eddy_engine *eddy_scene_engine(const eddy_scene *s)
{
    return s->e;
}

eddy_graph eddy_scene_graph(const eddy_scene *s)
{
    return s->graph;
}

static scene_system *find_system(const eddy_scene *s, const char *name)
{
    for (uint32_t i = 0; s && name && i < s->system_count; i++)
        if (!strcmp(s->systems[i].name, name))
            return &s->systems[i];
    if (s)
        eddy_log(s->e, EDDY_LOG_ERROR, "scene.unknown_system", "scene '%s' has no system named '%s'", s->name,
                 name ? name : "(null)");
    return NULL;
}

eddy_result eddy_scene_set_tool(eddy_scene *s, const char *system, const double position[3])
{
    scene_system *sys = find_system(s, system);
    if (!sys)
        return EDDY_ERROR_INVALID_ARGUMENT;
    if (!sys->module->set_tool) {
        eddy_log(s->e, EDDY_LOG_ERROR, "system.no_tool", "system '%s': module '%s' has no tool", system,
                 sys->module->name);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    for (int a = 0; a < 3; a++)
        if (!isfinite(position[a])) {
            eddy_log(s->e, EDDY_LOG_ERROR, "system.diverged", "system '%s': tool position (%g, %g, %g) is not finite",
                     system, position[0], position[1], position[2]);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
    if (!sys->tool.host && !sys->tool.scripted) {
        /* First host move: check the system has a tool, and start from where it is. */
        eddy_tool_force f;
        eddy_result r = sys->module->tool_force(sys->state, &f);
        if (r != EDDY_OK)
            return r;
        memcpy(sys->tool.at, f.position, sizeof sys->tool.at);
    }
    sys->tool.host = true;
    memcpy(sys->tool.target, position, sizeof sys->tool.target);
    return EDDY_OK;
}

eddy_result eddy_scene_tool_path(const eddy_scene *s, const char *system, double t, double position[3])
{
    scene_system *sys = find_system(s, system);
    if (!sys)
        return EDDY_ERROR_INVALID_ARGUMENT;
    if (!sys->tool.scripted) {
        eddy_log(s->e, EDDY_LOG_ERROR, "system.no_tool", "%s: system '%s' has no tool path (a \"tool\" object with "
                 "a \"path\" in the scene)", s->path, system);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    tool_path_at(&sys->tool, t, position);
    return EDDY_OK;
}

const char *eddy_scene_system_name(const eddy_scene *s, uint32_t index)
{
    return s && index < s->system_count ? s->systems[index].name : NULL;
}

eddy_result eddy_scene_tool_force(const eddy_scene *s, const char *system, eddy_tool_force *out)
{
    scene_system *sys = find_system(s, system);
    if (!sys)
        return EDDY_ERROR_INVALID_ARGUMENT;
    if (!sys->module->tool_force) {
        eddy_log(s->e, EDDY_LOG_ERROR, "system.no_tool", "system '%s': module '%s' has no tool", system,
                 sys->module->name);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (sys->tool.host || sys->tool.scripted) {
        *out = sys->tool.last;
        return EDDY_OK;
    }
    return sys->module->tool_force(sys->state, out);
}

static bool append_text(scene_tool *tl, const char *line)
{
    size_t n = strlen(line);
    if (tl->len + n + 1 > tl->cap) {
        size_t cap = tl->cap ? tl->cap * 2 : 65536;
        while (cap < tl->len + n + 1)
            cap *= 2;
        char *grown = realloc(tl->text, cap);
        if (!grown)
            return false;
        tl->text = grown;
        tl->cap = cap;
    }
    memcpy(tl->text + tl->len, line, n + 1);
    tl->len += n;
    return true;
}

/* One step with the tools moved first and their forces read after. */
static eddy_result tool_step(eddy_scene *s)
{
    double t1 = (double)(s->steps_done + 1) * s->dt;
    for (uint32_t i = 0; i < s->system_count; i++) {
        scene_system *sys = &s->systems[i];
        scene_tool *tl = &sys->tool;
        if (!tl->scripted && !tl->host)
            continue;
        double to[3];
        if (tl->host)
            memcpy(to, tl->target, sizeof to);
        else
            tool_path_at(tl, t1, to);
        eddy_result r = sys->module->set_tool(sys->state, tl->at, to);
        if (r != EDDY_OK)
            return r;
        memcpy(tl->at, to, sizeof to);
    }
    eddy_result r = eddy_graph_run(s->e, s->graph, 1);
    if (r != EDDY_OK)
        return r;
    s->steps_done++;
    for (uint32_t i = 0; i < s->system_count; i++) {
        scene_system *sys = &s->systems[i];
        scene_tool *tl = &sys->tool;
        if (!tl->scripted && !tl->host)
            continue;
        r = sys->module->tool_force(sys->state, &tl->last);
        if (r != EDDY_OK)
            return r;
        const eddy_tool_force *f = &tl->last;
        if (tl->log && !s->no_output) {
            char line[640];
            snprintf(line, sizeof line,
                     "%" PRIu64 ",%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,"
                     "%.9g,%.9g,%.9g\n", s->steps_done, t1, f->position[0], f->position[1],
                     f->position[2], f->push[0], f->push[1], f->push[2], f->adhesion[0],
                     f->adhesion[1], f->adhesion[2], f->damping[0], f->damping[1], f->damping[2],
                     f->total[0], f->total[1], f->total[2]);
            if (!append_text(tl, line))
                return EDDY_ERROR_OUT_OF_MEMORY;
        }
    }
    return EDDY_OK;
}

static bool has_tools(const eddy_scene *s)
{
    for (uint32_t i = 0; i < s->system_count; i++)
        if (s->systems[i].tool.scripted || s->systems[i].tool.host)
            return true;
    return false;
}

eddy_result eddy_scene_step(eddy_scene *s, uint64_t steps)
{
    if (has_tools(s)) {
        for (; steps; steps--) {
            eddy_result r = tool_step(s);
            if (r != EDDY_OK)
                return r;
        }
        return EDDY_OK;
    }
    while (steps) {
        uint32_t n = steps > 1000000 ? 1000000 : (uint32_t)steps;
        eddy_result r = eddy_graph_run(s->e, s->graph, n);
        if (r != EDDY_OK)
            return r;
        s->steps_done += n;
        steps -= n;
    }
    return EDDY_OK;
}

/* ------------------------------------------------------------------ frames */

struct eddy_stats {
    char *buf;
    size_t len, cap;
    bool first;
    bool failed; /* out of memory: the line is incomplete */
};

static void stats_printf(eddy_stats *st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void stats_printf(eddy_stats *st, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(st->buf ? st->buf + st->len : NULL, st->buf ? st->cap - st->len : 0,
                          fmt, ap);
        va_end(ap);
        if (n < 0 || st->failed) {
            st->failed = true;
            return;
        }
        if (st->buf && st->len + (size_t)n < st->cap) {
            st->len += (size_t)n;
            return;
        }
        size_t cap = (st->cap + (size_t)n + 1) * 2;
        char *grown = realloc(st->buf, cap);
        if (!grown) {
            st->failed = true;
            return;
        }
        st->buf = grown;
        st->cap = cap;
    }
}

/* JSON has no NaN or infinity: write null for them. */
static void stats_number(eddy_stats *st, double v)
{
    if (isfinite(v))
        stats_printf(st, "%.9g", v);
    else
        stats_printf(st, "null");
}

static void stats_string(eddy_stats *st, const char *text);

void eddy_stats_add(eddy_stats *st, const char *key, double value)
{
    stats_printf(st, "%s", st->first ? "" : ",");
    stats_string(st, key);
    stats_printf(st, ":");
    stats_number(st, value);
    st->first = false;
}

/* "<out_dir>/<file>" into path; false when it does not fit (names and the
 * folder are length-checked at load, so this is a guard, not a cut). */
static bool out_path(const eddy_scene *s, char *path, size_t cap, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static bool out_path(const eddy_scene *s, char *path, size_t cap, const char *fmt, ...)
{
    int n = snprintf(path, cap, "%s/", s->out_dir);
    if (n < 0 || (size_t)n >= cap)
        return false;
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(path + n, cap - (size_t)n, fmt, ap);
    va_end(ap);
    if (m < 0 || (size_t)m >= cap - (size_t)n) {
        eddy_log(s->e, EDDY_LOG_ERROR, "output.write", "output: a file name in '%s' is too long", s->out_dir);
        return false;
    }
    return true;
}

/* Appends text to "<out_dir>/<file>.tmp", the file that becomes <file> when
 * the scene is destroyed (statistics and tool logs grow by a line per frame
 * or step, so they are appended to their temporary and renamed once). */
static eddy_result append_tmp(eddy_scene *s, const char *file, const char *mode, const char *text, size_t len)
{
    char path[EDDY_OUT_DIR_MAX + 160];
    if (!out_path(s, path, sizeof path, "%s.tmp", file))
        return EDDY_ERROR_IO;
    FILE *f = fopen(path, mode);
    bool ok = f && fwrite(text, 1, len, f) == len;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok) {
        eddy_log(s->e, EDDY_LOG_ERROR, "output.write", "output: cannot write '%s': %s", path, strerror(errno));
        return EDDY_ERROR_IO;
    }
    return EDDY_OK;
}

static const char tool_header[] = "step,time,x,y,z,push_x,push_y,push_z,adhesion_x,adhesion_y,adhesion_z,"
                                  "damping_x,damping_y,damping_z,total_x,total_y,total_z\n";

static eddy_result ensure_out(eddy_scene *s)
{
    if (s->out_ready)
        return EDDY_OK;
    char err[1024];
    int got = eddy_prepare_out_dir(s->out_dir, err, sizeof err);
    if (got != 0) {
        eddy_log(s->e, EDDY_LOG_ERROR, got == -2 ? "output.folder_in_use" : "output.write", "output: %s", err);
        return EDDY_ERROR_IO;
    }
    s->out_ready = true;
    eddy_result r = s->stats ? append_tmp(s, "stats.jsonl", "wb", "", 0) : EDDY_OK;
    for (uint32_t i = 0; i < s->system_count && r == EDDY_OK; i++) {
        scene_tool *tl = &s->systems[i].tool;
        if (!tl->scripted || !tl->log)
            continue;
        char file[EDDY_NAME_MAX + 16];
        snprintf(file, sizeof file, "tool_%s.csv", s->systems[i].name);
        r = append_tmp(s, file, "wb", tool_header, sizeof tool_header - 1);
    }
    return r;
}

/* Appends the tools' buffered log lines (one per step since the last frame). */
static eddy_result flush_tool_logs(eddy_scene *s)
{
    for (uint32_t i = 0; i < s->system_count; i++) {
        scene_tool *tl = &s->systems[i].tool;
        if (!tl->scripted || !tl->log || !tl->len)
            continue;
        char file[EDDY_NAME_MAX + 16];
        snprintf(file, sizeof file, "tool_%s.csv", s->systems[i].name);
        eddy_result r = append_tmp(s, file, "ab", tl->text, tl->len);
        if (r != EDDY_OK)
            return r;
        tl->len = 0;
    }
    return EDDY_OK;
}

/* Renames the appended files into place: at the end of the scene's life,
 * whether the run finished or stopped on an error. */
static eddy_result close_output(eddy_scene *s)
{
    if (!s->out_ready || s->out_closed)
        return EDDY_OK;
    s->out_closed = true;
    eddy_result res = flush_tool_logs(s);
    for (uint32_t i = 0; i <= s->system_count; i++) {
        char file[EDDY_NAME_MAX + 16], path[EDDY_OUT_DIR_MAX + 160], tmp[EDDY_OUT_DIR_MAX + 170];
        if (i == s->system_count) {
            if (!s->stats)
                continue;
            snprintf(file, sizeof file, "stats.jsonl");
        } else {
            if (!s->systems[i].tool.scripted || !s->systems[i].tool.log)
                continue;
            snprintf(file, sizeof file, "tool_%s.csv", s->systems[i].name);
        }
        if (!out_path(s, path, sizeof path, "%s", file) || !out_path(s, tmp, sizeof tmp, "%s.tmp", file) ||
            rename(tmp, path) != 0) {
            eddy_log(s->e, EDDY_LOG_ERROR, "output.write", "output: cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
            res = EDDY_ERROR_IO;
        }
    }
    return res;
}

/* A JSON string: quotes, backslashes and control characters escaped (names
 * are checked to be valid UTF-8 when the scene is loaded). */
static void stats_string(eddy_stats *st, const char *text)
{
    stats_printf(st, "\"");
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '"' || *p == '\\')
            stats_printf(st, "\\%c", *p);
        else if (*p < 0x20)
            stats_printf(st, "\\u%04x", *p);
        else
            stats_printf(st, "%c", *p);
    }
    stats_printf(st, "\"");
}

eddy_result eddy_scene_finish_output(eddy_scene *s)
{
    return s ? close_output(s) : EDDY_ERROR_INVALID_ARGUMENT;
}

eddy_result eddy_scene_write_frame(eddy_scene *s)
{
    eddy_engine *e = s->e;
    if (s->out_closed && !s->no_output) {
        eddy_log(e, EDDY_LOG_ERROR, "output.finished", "output: the scene's output was finished (eddy_scene_finish_output); "
                 "no more frames can be written");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    double t = (double)s->steps_done * s->dt;
    eddy_stats st = { 0 };
    st.first = true;
    bool unstable = false; /* a set has non-finite particles: statistics only */
    stats_printf(&st, "{\"frame\":%u,\"step\":%" PRIu64 ",\"substeps\":%u,\"time\":", s->frames,
                 s->steps_done, s->adaptive ? s->current_substeps : s->substeps);
    stats_number(&st, t);
    stats_printf(&st, ",\"sets\":{");
    eddy_result res = s->no_output ? EDDY_OK : ensure_out(s);
    bool draw = s->renderer && !s->no_output;
    /* Tools are drawn as grey spheres after the particles. */
    uint32_t tools = 0;
    for (uint32_t i = 0; i < s->system_count; i++)
        tools += s->systems[i].tool.scripted || s->systems[i].tool.host;
    /* The sets are drawn from their device buffers; only the tools' spheres
     * go up (eddy_render_sets). */
    eddy_render_set *rsets = draw ? calloc(s->set_count + 1, sizeof *rsets) : NULL;
    float *spheres = draw ? malloc(16ull * tools + 16) : NULL;
    float *scalars = draw ? malloc(4ull * tools + 4) : NULL;
    uint32_t drawn = 0;
    if (draw && (!spheres || !scalars || !rsets))
        res = EDDY_ERROR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < s->set_count && res == EDDY_OK; i++) {
        scene_set *ss = &s->sets[i];
        uint32_t n = ss->count;
        float *pos = malloc((size_t)n * 16 + 16), *vel = malloc((size_t)n * 16 + 16);
        float *mass = malloc((size_t)n * 4 + 4);
        uint32_t *phase = malloc((size_t)n * 4 + 4);
        if (!pos || !vel || !mass || !phase)
            res = EDDY_ERROR_OUT_OF_MEMORY;
        if (res == EDDY_OK)
            res = eddy_buffer_download(e, eddy_particles_buffer(e, ss->handle, "position"), 0,
                                       (uint64_t)n * 16, pos);
        if (res == EDDY_OK)
            res = eddy_buffer_download(e, eddy_particles_buffer(e, ss->handle, "velocity"), 0,
                                       (uint64_t)n * 16, vel);
        if (res == EDDY_OK)
            res = eddy_buffer_download(e, eddy_particles_buffer(e, ss->handle, "mass"), 0,
                                       (uint64_t)n * 4, mass);
        if (res == EDDY_OK)
            res = eddy_buffer_download(e, eddy_particles_buffer(e, ss->handle, "phase"), 0,
                                       (uint64_t)n * 4, phase);
        if (res == EDDY_OK) {
            double ke = 0, mom[3] = { 0 }, com[3] = { 0 }, mtot = 0, vmax = 0;
            double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
            uint32_t bad = 0;
            for (uint32_t k = 0; k < n; k++) {
                const float *x = pos + 4 * (size_t)k, *v = vel + 4 * (size_t)k;
                double m = mass[k], v2 = 0;
                if (!isfinite(x[0]) || !isfinite(x[1]) || !isfinite(x[2]) || !isfinite(v[0]) ||
                    !isfinite(v[1]) || !isfinite(v[2])) {
                    bad++;
                    continue;
                }
                for (int a = 0; a < 3; a++) {
                    v2 += (double)v[a] * v[a];
                    mom[a] += m * v[a];
                    com[a] += m * x[a];
                    lo[a] = x[a] < lo[a] ? x[a] : lo[a];
                    hi[a] = x[a] > hi[a] ? x[a] : hi[a];
                }
                mtot += m;
                ke += 0.5 * m * v2;
                vmax = sqrt(v2) > vmax ? sqrt(v2) : vmax;
            }
            stats_printf(&st, "%s", i ? "," : "");
            stats_string(&st, ss->name);
            stats_printf(&st, ":{\"count\":%u,\"kinetic_energy\":", n);
            stats_number(&st, ke);
            stats_printf(&st, ",\"max_speed\":");
            stats_number(&st, vmax);
            stats_printf(&st, ",\"momentum\":[");
            for (int a = 0; a < 3; a++) {
                stats_number(&st, mom[a]);
                stats_printf(&st, a < 2 ? "," : "],\"center_of_mass\":[");
            }
            for (int a = 0; a < 3; a++) {
                stats_number(&st, mtot > 0 ? com[a] / mtot : 0);
                stats_printf(&st, a < 2 ? "," : "],\"min\":[");
            }
            for (int a = 0; a < 3; a++) {
                stats_number(&st, lo[a]);
                stats_printf(&st, a < 2 ? "," : "],\"max\":[");
            }
            for (int a = 0; a < 3; a++) {
                stats_number(&st, hi[a]);
                stats_printf(&st, a < 2 ? "," : "],");
            }
            stats_printf(&st, "\"non_finite\":%u}", bad);
            if (bad) {
                eddy_log(e, EDDY_LOG_ERROR,
                         "particles.not_finite", "particle set '%s': %u particle(s) have a non-finite position or "
                         "velocity at step %" PRIu64 " (t = %g s): the simulation is unstable; "
                         "lower dt or check the parameters", ss->name, bad, s->steps_done, t);
                unstable = true;
            }
        }
        if (res == EDDY_OK && !unstable && draw) {
            /* Colour by speed (0), density (1; speed where the set has no
             * density buffer), set (2) or phase (3). */
            eddy_buffer db = eddy_particles_buffer(e, ss->handle, "density");
            eddy_buffer pb = eddy_particles_buffer(e, ss->handle, "position");
            rsets[i] = (eddy_render_set){
                .position = pb,
                .velocity = eddy_particles_buffer(e, ss->handle, "velocity"),
                .density = db.id ? db : pb,
                .phase = eddy_particles_buffer(e, ss->handle, "phase"),
                .count = n,
                .mode = s->color_by == 1 && !db.id ? 0 : (uint32_t)s->color_by,
                .lo = (float)s->color_range[0],
                .span = (float)(s->color_range[1] - s->color_range[0]),
                .value = (float)(s->set_count > 1 ? (double)i / (s->set_count - 1) : 0.5),
            };
        }
        if (res == EDDY_OK && !unstable && !s->no_output && s->vtk) {
            char file[EDDY_NAME_MAX + 32], path[EDDY_OUT_DIR_MAX + 160], err[1024];
            snprintf(file, sizeof file, "%s_%06u.vtp", ss->name, s->frames);
            if (!out_path(s, path, sizeof path, "%s", file))
                res = EDDY_ERROR_IO;
            eddy_vtp_particles vp = { t, n, pos, vel, mass, phase };
            if (res == EDDY_OK && eddy_write_vtp(path, &vp, err, sizeof err) != 0) {
                eddy_log(e, EDDY_LOG_ERROR, "output.write", "output: %s", err);
                res = EDDY_ERROR_IO;
            }
            if (res == EDDY_OK && s->pvd_count == s->pvd_cap) {
                uint32_t cap = s->pvd_cap ? s->pvd_cap * 2 : 64;
                eddy_pvd_entry *grown = realloc(s->pvd, cap * sizeof *grown);
                if (grown) {
                    s->pvd = grown;
                    s->pvd_cap = cap;
                } else {
                    res = EDDY_ERROR_OUT_OF_MEMORY;
                }
            }
            if (res == EDDY_OK) {
                s->pvd[s->pvd_count++] = (eddy_pvd_entry){ t, i, strdup(file) };
                /* One .pvd per set, listing that set's frames. */
                eddy_pvd_entry *mine = malloc(s->pvd_count * sizeof *mine);
                uint32_t m = 0;
                for (uint32_t k = 0; mine && k < s->pvd_count; k++)
                    if (s->pvd[k].part == i)
                        mine[m] = s->pvd[k], mine[m++].part = 0;
                if (!mine || !out_path(s, path, sizeof path, "%s.pvd", ss->name) ||
                    eddy_write_pvd(path, mine, m, err, sizeof err) != 0) {
                    eddy_log(e, EDDY_LOG_ERROR, "output.write", "output: %s", mine ? err : "out of memory");
                    res = EDDY_ERROR_IO;
                }
                free(mine);
            }
        }
        free(pos);
        free(vel);
        free(mass);
        free(phase);
    }
    for (uint32_t i = 0; i < s->system_count && res == EDDY_OK && !unstable && draw; i++) {
        const scene_tool *tl = &s->systems[i].tool;
        if (!tl->scripted && !tl->host)
            continue;
        eddy_tool_force f;
        res = s->systems[i].module->tool_force(s->systems[i].state, &f);
        for (int a = 0; a < 3; a++)
            spheres[4 * (size_t)drawn + a] = (float)f.position[a];
        spheres[4 * (size_t)drawn + 3] = (float)f.radius;
        scalars[drawn++] = -1.0f;
    }
    if (res == EDDY_OK && !unstable && draw) {
        uint8_t *rgba = malloc(4ull * s->image_w * s->image_h);
        char path[EDDY_OUT_DIR_MAX + 64];
        if (!out_path(s, path, sizeof path, "frame_%06u.png", s->frames))
            res = EDDY_ERROR_IO;
        else
            res = rgba ? eddy_render_sets(e, s->renderer, rsets, s->set_count, spheres, scalars, drawn, rgba)
                   : EDDY_ERROR_OUT_OF_MEMORY;
        if (res == EDDY_OK)
            res = eddy_write_png(e, path, rgba, s->image_w, s->image_h);
        free(rgba);
    }
    free(spheres);
    free(scalars);
    free(rsets);
    stats_printf(&st, "},\"systems\":{");
    for (uint32_t i = 0; i < s->system_count; i++) {
        stats_printf(&st, "%s", i ? "," : "");
        stats_string(&st, s->systems[i].name);
        stats_printf(&st, ":{");
        st.first = true;
        if (s->systems[i].module->stats)
            s->systems[i].module->stats(s->systems[i].state, &st);
        stats_printf(&st, "}");
    }
    stats_printf(&st, "}}\n");
    for (uint32_t i = 0; i < s->system_count && res == EDDY_OK && !unstable && !s->no_output; i++)
        if (s->systems[i].module->write_frame) {
            eddy_frame_ctx fc = { s->out_dir, s->frames, t };
            res = s->systems[i].module->write_frame(s->systems[i].state, &fc);
        }
    if (st.failed && res == EDDY_OK) {
        eddy_log(e, EDDY_LOG_ERROR, "memory.host", "output: out of host memory for the statistics line");
        res = EDDY_ERROR_OUT_OF_MEMORY;
    }
    /* The frame that went unstable keeps its statistics line: it says which
     * set went non-finite and where the others were. */
    if (res == EDDY_OK && !s->no_output && s->stats && st.buf)
        res = append_tmp(s, "stats.jsonl", "ab", st.buf, st.len);
    free(st.buf);
    if (res == EDDY_OK && !s->no_output)
        res = flush_tool_logs(s);
    if (res == EDDY_OK && unstable)
        res = EDDY_ERROR_INVALID_ARGUMENT;
    if (res == EDDY_OK)
        s->frames++;
    return res;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

eddy_result eddy_scene_run(eddy_scene *s, uint64_t max_steps, bool progress)
{
    uint64_t total = max_steps ? max_steps : s->steps;
    uint64_t end = s->steps_done + total;
    double start = now_s(), last = start;
    bool tty = isatty(2);
    uint64_t last_decile = 0;
    eddy_result r = eddy_scene_write_frame(s);
    while (r == EDDY_OK && s->steps_done < end) {
        uint64_t to_frame = s->frame_every - s->steps_done % s->frame_every;
        uint64_t n = end - s->steps_done < to_frame ? end - s->steps_done : to_frame;
        r = eddy_scene_step(s, n);
        if (r == EDDY_OK)
            r = eddy_scene_write_frame(s);
        if (r == EDDY_OK && s->adaptive)
            r = adapt(s);
        double t = now_s();
        /* A terminal gets one line rewritten in place, a log file a line every 10%. */
        uint64_t done = total - (end - s->steps_done);
        bool report = tty ? t - last > 0.5 || s->steps_done == end
                          : done * 10 / (total ? total : 1) != last_decile;
        if (progress && report) {
            double rate = (double)done / (t - start > 1e-9 ? t - start : 1e-9);
            fprintf(stderr, "%s%s: step %" PRIu64 "/%" PRIu64 " (%3.0f%%)  t = %.4g s  "
                            "%.3g steps/s  frame %u   %s",
                    tty ? "\r" : "", s->name, done, total,
                    100.0 * (double)done / (double)(total ? total : 1),
                    (double)s->steps_done * s->dt, rate, s->frames, tty ? "" : "\n");
            last = t;
            last_decile = done * 10 / (total ? total : 1);
        }
    }
    if (progress && tty)
        fputc('\n', stderr);
    return r;
}
