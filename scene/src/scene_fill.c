/* Particle sets ("particle_sets"): the set's fields and its particles from
 * fills (box, sphere, upright cylinder or a voxelised mesh, repeated by
 * "copies", with "jitter" and rigid "bodies") and from explicit "points",
 * gathered in host arrays within the loader's host budget before the set's
 * buffers are created (scene_load.c). */
#include "scene_internal.h"
#include "eddy/eddy_mesh.h"
#include "eddy/eddy_tetmesh.h"

#include <inttypes.h>
#include <math.h>

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
        return scene_fail(c, "scene.too_large", field, "%" PRIu64 " particles need %" PRIu64 " bytes of host memory while the set is "
                          "built, over the scene loader's budget of %" PRIu64 " bytes (eddy_scene_desc.host_budget)",
                          need, need > UINT64_MAX / HOST_BYTES_PER_PARTICLE ? UINT64_MAX : need * HOST_BYTES_PER_PARTICLE,
                          c->host_budget);
    /* Each array keeps its old block when growing it fails, so scene_host_free
     * still frees everything. */
    void **arrays[] = { (void **)&h->position, (void **)&h->velocity, (void **)&h->mass, (void **)&h->phase };
    const size_t bytes[] = { 16, 16, 4, 4 };
    for (int i = 0; i < 4; i++) {
        void *grown = realloc(*arrays[i], need * bytes[i]);
        if (!grown)
            return scene_fail(c, "memory.host", field, "out of host memory for %" PRIu64 " particles", need);
        *arrays[i] = grown;
    }
    h->cap = need;
    return true;
}

void scene_host_free(host_particles *h)
{
    free(h->position);
    free(h->velocity);
    free(h->mass);
    free(h->phase);
    free(h->tets);
    free(h->surface);
    free(h->triangles);
    free(h->scalar);
    free(h->pinned);
    memset(h, 0, sizeof *h);
}

static const char *const set_keys[] = { "name", "radius", "mass", "velocity", "capacity",
                                        "spacing", "fill", "points", "phase", "bodies", "tetmesh",
                                        "pinned", "cloth", NULL };
static const char *const cloth_keys[] = { "file", "grid", "scale", "rotation", "center", "density", NULL };
static const char *const grid_keys[] = { "size", "resolution", NULL };
static const char *const tetmesh_keys[] = { "file", "scale", "rotation", "center", "density", "reorient",
                                            "scalar", NULL };
static const char *const fill_keys[] = { "shape", "min", "max", "center", "radius", "height",
                                         "file", "scale", "rotation", "surface_only", "copies",
                                         "velocity", "angular_velocity", "jitter", NULL };
static const char *const copies_keys[] = { "count", "step", NULL };

/* A mesh file named in the scene: relative to the scene file's folder. */
static bool mesh_path(parse_ctx *c, const char *file, const char *field, char *full, size_t cap)
{
    char dir[4096];
    scene_dir_of(c->file, dir, sizeof dir);
    int plen = file[0] == '/' ? snprintf(full, cap, "%s", file) : snprintf(full, cap, "%s/%s", dir, file);
    if (plen < 0 || (size_t)plen >= cap)
        return scene_fail(c, "scene.mesh", field, "the mesh's path is longer than %zu bytes", cap - 1);
    return true;
}

/* mid = minus the middle of the bounding box of n xyz vertices (the move
 * that centres them); centre, when given, gets the middle itself (a
 * mesh's default placement: where it is). */
static void box_middle(const float *v, uint32_t n, double mid[3], double centre[3])
{
    double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    for (uint32_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], v[3 * i + a]);
            hi[a] = fmax(hi[a], v[3 * i + a]);
        }
    for (int a = 0; a < 3; a++) {
        mid[a] = -0.5 * (lo[a] + hi[a]);
        if (centre)
            centre[a] = -mid[a];
    }
}

/* "rotation": [axis x, axis y, axis z, angle in degrees] of obj into rot
 * (left as it is when absent). */
static bool parse_rotation(parse_ctx *c, const cJSON *obj, const char *path, double rot[4])
{
    const cJSON *jr = cJSON_GetObjectItemCaseSensitive(obj, "rotation");
    if (!jr)
        return true;
    char field[512];
    snprintf(field, sizeof field, "%s.rotation", path);
    if (!cJSON_IsArray(jr) || cJSON_GetArraySize(jr) != 4)
        return scene_fail(c, "scene.field", field, "expected [axis x, axis y, axis z, angle in degrees], got %s",
                          scene_json_type(jr));
    for (int a = 0; a < 4; a++) {
        const cJSON *x = cJSON_GetArrayItem(jr, a);
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
            return scene_fail(c, "scene.field", field, "element %d: expected a finite number", a);
        rot[a] = x->valuedouble;
    }
    if (rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2] == 0)
        return scene_fail(c, "scene.field", field, "the axis [0, 0, 0] has no direction");
    return true;
}

static void rotation_quaternion(const double rot[4], double q[4])
{
    double len = sqrt(rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2]), half = rot[3] * M_PI / 360;
    q[0] = cos(half);
    for (int a = 0; a < 3; a++)
        q[a + 1] = sin(half) * rot[a] / len;
}

/* A loaded mesh's vertices placed: scaled by `scale` and turned by rot
 * about their bounding box centre, which goes to center (stays where it is
 * without one). A mesh asked for nothing stays bitwise as loaded (moving it
 * to its middle and back would round its coordinates); a placement beyond
 * what a float holds is refused before any vertex moves. */
static bool place_vertices(parse_ctx *c, const char *field, float *v, uint32_t n, double scale, const double rot[4],
                           bool has_center, double center[3])
{
    double mid[3], q[4];
    box_middle(v, n, mid, has_center ? NULL : center);
    if (scale == 1 && rot[3] == 0 && !has_center)
        return true;
    double reach = 0, shift = 0;
    for (uint32_t i = 0; i < n; i++) {
        double d[3] = { v[3 * i] + mid[0], v[3 * i + 1] + mid[1], v[3 * i + 2] + mid[2] };
        reach = fmax(reach, sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
    }
    for (int a = 0; a < 3; a++)
        shift = fmax(shift, fabs(center[a]));
    if (!(scale * reach + shift < 1e30))
        return scene_fail(c, "scene.mesh", field, "scaled by %g about its middle and moved to (%g, %g, %g), the mesh "
                          "would reach %g m from the origin: expected a placement within 1e30 m (32-bit floats)",
                          scale, center[0], center[1], center[2], scale * reach + shift);
    rotation_quaternion(rot, q);
    eddy_mesh view = { .vertices = v, .vertex_count = n };
    eddy_mesh_transform(&view, 1, NULL, mid);
    eddy_mesh_transform(&view, scale, q, center);
    return true;
}

/* A fill's shape: the extent of a box, sphere or upright cylinder; a mesh
 * has its points instead. */
typedef struct fill_shape {
    bool sphere, cylinder, mesh;
    double lo[3], hi[3], center[3], r, height;
} fill_shape;

/* A closed mesh (OBJ, relative to the scene file): scaled, turned by
 * "rotation" [axis x, y, z, degrees] about its bounding box centre, which
 * goes to "center"; voxelised at the spacing into *pattern (xyz a point). */
static bool mesh_pattern(parse_ctx *c, const cJSON *f, const char *path, double spacing, uint64_t limit,
                         fill_shape *s, float **pattern, uint64_t *pattern_n)
{
    const char *file;
    double scale, rot[4] = { 0, 1, 0, 0 }, zero3[3] = { 0, 0, 0 };
    bool surface;
    char field[512];
    if (!scene_get_string(c, f, "file", path, true, &file) ||
        !scene_get_number(c, f, "scale", path, false, 1, 1e-9, 1e9, &scale) ||
        !scene_get_vec3_key(c, f, "center", path, false, zero3, s->center) ||
        !scene_get_bool(c, f, "surface_only", path, false, &surface))
        return false;
    if (!parse_rotation(c, f, path, rot))
        return false;
    char full[4096], err[1024];
    eddy_mesh m;
    snprintf(field, sizeof field, "%s.file", path);
    if (!mesh_path(c, file, field, full, sizeof full))
        return false;
    if (eddy_load_obj(full, &m, err, sizeof err) != 0)
        return scene_fail(c, "scene.mesh", field, "%s", err);
    if (!place_vertices(c, field, m.vertices, m.vertex_count, scale, rot, true, s->center)) {
        eddy_free_mesh(&m);
        return false;
    }
    int64_t got = eddy_voxelize(&m, &(eddy_voxel_desc){ EDDY_SIZED(eddy_voxel_desc), .diameter = spacing, .surface_only = surface,
                                                      .max_points = (uint32_t)(limit < UINT32_MAX ? limit : UINT32_MAX),
                                                      .max_bytes = c->host_budget },
                                pattern, err, sizeof err);
    eddy_free_mesh(&m);
    if (got < 0)
        return scene_fail(c, "scene.mesh", field, "%s: %s", full, err);
    *pattern_n = (uint64_t)got;
    return true;
}

/* The shape's keys: a box's corners, a sphere's or cylinder's centre and
 * radius (and height); a mesh voxelised into *pattern. */
static bool fill_shape_keys(parse_ctx *c, const cJSON *f, const char *path, const char *shape, double spacing,
                            uint64_t limit, fill_shape *s, float **pattern, uint64_t *pattern_n)
{
    s->sphere = !strcmp(shape, "sphere");
    s->cylinder = !strcmp(shape, "cylinder");
    s->mesh = !strcmp(shape, "mesh");
    if (!strcmp(shape, "box"))
        return scene_get_vec3_key(c, f, "min", path, true, NULL, s->lo) &&
               scene_get_vec3_key(c, f, "max", path, true, NULL, s->hi);
    if (s->sphere) {
        if (!scene_get_vec3_key(c, f, "center", path, true, NULL, s->center) ||
            !scene_get_number(c, f, "radius", path, true, 0, 1e-9, 1e9, &s->r))
            return false;
        for (int a = 0; a < 3; a++) {
            s->lo[a] = s->center[a] - s->r;
            s->hi[a] = s->center[a] + s->r;
        }
        return true;
    }
    if (s->cylinder) {
        /* Upright (along +y) from the centre of its bottom. */
        if (!scene_get_vec3_key(c, f, "center", path, true, NULL, s->center) ||
            !scene_get_number(c, f, "radius", path, true, 0, 1e-9, 1e9, &s->r) ||
            !scene_get_number(c, f, "height", path, true, 0, 1e-9, 1e9, &s->height))
            return false;
        for (int a = 0; a < 3; a++) {
            s->lo[a] = s->center[a] - (a == 1 ? 0 : s->r);
            s->hi[a] = s->center[a] + (a == 1 ? s->height : s->r);
        }
        return true;
    }
    if (s->mesh)
        return mesh_pattern(c, f, path, spacing, limit, s, pattern, pattern_n);
    char field[512];
    snprintf(field, sizeof field, "%s.shape", path);
    return scene_fail(c, "scene.field", field, "unknown shape '%s'; expected \"box\", \"sphere\", \"cylinder\" or "
                      "\"mesh\"", shape);
}

/* A box, sphere or cylinder as the lattice points inside it (cell centres
 * at the spacing) into *pattern, within the set's room and the loader's
 * host budget. */
static bool lattice_pattern(parse_ctx *c, const char *path, double spacing, uint64_t limit,
                            const host_particles *h, const fill_shape *s, float **pattern, uint64_t *pattern_n)
{
    const double *lo = s->lo, *hi = s->hi, *center = s->center;
    double r = s->r;
    long n[3];
    double total = 1; /* each factor <= 1e7: exact enough to compare */
    for (int a = 0; a < 3; a++) {
        if (!(hi[a] > lo[a]))
            return scene_fail(c, "scene.field", path, "max must exceed min along every axis (axis %d: %g .. %g)", a,
                              lo[a], hi[a]);
        double cells = (hi[a] - lo[a]) / spacing;
        if (cells > 1e7)
            return scene_fail(c, "scene.too_large", path, "%g particles along axis %d: too many for spacing %g m", cells,
                              a, spacing);
        n[a] = (long)floor(cells + 1e-9);
        if (n[a] < 1)
            n[a] = 1;
        total *= (double)n[a];
    }
    if (total > (double)(limit - h->count))
        return scene_fail(c, "scene.too_large", path, "the fill's lattice has %.0f points: the set would hold more than the %"
                          PRIu64 " particles that fit in one buffer on this device (maxStorageBufferRange)",
                          total, limit);
    if (12 * total > (double)c->host_budget)
        return scene_fail(c, "scene.too_large", path, "the fill's lattice of %.0f points needs %.0f bytes of host memory, over the "
                          "scene loader's budget of %" PRIu64 " bytes", total, 12 * total, c->host_budget);
    float *pat = *pattern = malloc(12 * (size_t)total + 12);
    if (!pat)
        return scene_fail(c, "memory.host", path, "out of host memory");
    /* Lattice points in cell centres, in x-fastest order so every run is the same. */
    for (long k = 0; k < n[2]; k++)
        for (long j = 0; j < n[1]; j++)
            for (long i = 0; i < n[0]; i++) {
                double x[3] = { lo[0] + spacing * (i + 0.5), lo[1] + spacing * (j + 0.5),
                                lo[2] + spacing * (k + 0.5) };
                if (s->sphere || s->cylinder) {
                    double d2 = 0;
                    for (int a = 0; a < 3; a++)
                        if (s->sphere || a != 1)
                            d2 += (x[a] - center[a]) * (x[a] - center[a]);
                    if (d2 > r * r)
                        continue;
                }
                for (int a = 0; a < 3; a++)
                    pat[3 * *pattern_n + a] = (float)x[a];
                ++*pattern_n;
            }
    return true;
}

/* "copies": {"count": [nx, ny, nz], "step": [dx, dy, dz]} (default one). */
static bool fill_copies(parse_ctx *c, const cJSON *f, const char *path, double count[3], double step[3])
{
    char field[512];
    const cJSON *jc = cJSON_GetObjectItemCaseSensitive(f, "copies");
    snprintf(field, sizeof field, "%s.copies", path);
    if (jc && (!cJSON_IsObject(jc) || !scene_check_keys(c, jc, field, copies_keys) ||
               !scene_get_vec3_key(c, jc, "count", field, true, NULL, count) ||
               !scene_get_vec3_key(c, jc, "step", field, true, NULL, step)))
        return c->failed ? false : scene_fail(c, "scene.field", field, "expected {\"count\": [nx, ny, nz], \"step\": [dx, dy, dz]}, got %s",
                                              scene_json_type(jc));
    for (int a = 0; a < 3; a++)
        if (count[a] < 1 || count[a] > 1e6 || count[a] != floor(count[a]))
            return scene_fail(c, "scene.field", field, "count[%d] = %g: expected a whole number in [1, 1e6]", a, count[a]);
    return true;
}

/* How a fill's particles move and where they sit: the fill's velocity and
 * angular velocity (about each copy's centroid), the jitter, the set's
 * spacing, radius and mass, and the phase (or, with bodies, the next body
 * index). */
typedef struct fill_motion {
    double vel[3], spin[3], jitter, spacing, radius, mass;
    uint32_t phase, *body;
} fill_motion;

/* The copies of the pattern into the set. "angular_velocity": each copy
 * turns about its lattice's centroid, v = velocity + omega x (x - centroid)
 * (a body's centre of mass: its particles weigh the same). */
static bool push_copies(parse_ctx *c, const char *path, const float *pattern, uint64_t pattern_n,
                        const double count[3], const double step[3], const fill_motion *fm, host_particles *h)
{
    const double *vel = fm->vel, *spin = fm->spin;
    double jitter = fm->jitter, spacing = fm->spacing;
    uint32_t *body = fm->body;
    bool ok = true;
    double mid[3] = { 0, 0, 0 };
    for (uint64_t p = 0; p < pattern_n; p++)
        for (int a = 0; a < 3; a++)
            mid[a] += pattern[3 * p + a] / (double)pattern_n;
    for (long ck = 0; ok && ck < (long)count[2]; ck++)
        for (long cj = 0; ok && cj < (long)count[1]; cj++)
            for (long ci = 0; ok && ci < (long)count[0]; ci++) {
                double off[3] = { ci * step[0], cj * step[1], ck * step[2] };
                for (uint64_t p = 0; ok && p < pattern_n; p++) {
                    double x[3] = { pattern[3 * p] + off[0], pattern[3 * p + 1] + off[1], pattern[3 * p + 2] + off[2] };
                    double r[3] = { x[0] - mid[0] - off[0], x[1] - mid[1] - off[1], x[2] - mid[2] - off[2] };
                    double v[3] = { vel[0] + spin[1] * r[2] - spin[2] * r[1], vel[1] + spin[2] * r[0] - spin[0] * r[2],
                                    vel[2] + spin[0] * r[1] - spin[1] * r[0] };
                    for (int a = 0; a < 3; a++)
                        if (!(fabs(v[a]) <= 1e30)) {
                            char field[512];
                            snprintf(field, sizeof field, "%s.angular_velocity", path);
                            return scene_fail(c, "scene.field", field, "gives particles %g m/s: expected speeds "
                                              "within 1e30 m/s (a smaller spin or a smaller fill)", v[a]);
                        }
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
                    ok = host_push(h, x, fm->radius, v, fm->mass, body ? *body : fm->phase);
                }
                if (body)
                    ++*body;
            }
    return ok ? true : scene_fail(c, "memory.host", path, "out of host memory");
}

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
        return scene_fail(c, "scene.field", path, "expected an object like {\"shape\": \"box\", \"min\": [..], "
                             "\"max\": [..]}, got %s", scene_json_type(f));
    if (!scene_check_keys(c, f, path, fill_keys))
        return false;
    const char *shape;
    fill_motion fm = { .spacing = spacing, .radius = radius, .mass = mass, .phase = phase, .body = body };
    static const double no_spin[3] = { 0, 0, 0 };
    if (!scene_get_string(c, f, "shape", path, true, &shape) ||
        !scene_get_vec3_key(c, f, "velocity", path, false, set_vel, fm.vel) ||
        !scene_get_vec3_key(c, f, "angular_velocity", path, false, no_spin, fm.spin) ||
        !scene_get_number(c, f, "jitter", path, false, 0, 0, 1, &fm.jitter))
        return false;
    if (spacing <= 0)
        return scene_fail(c, "scene.field", path, "a fill needs the set's \"spacing\" (m, > 0)");
    fill_shape s = { 0 };
    float *pattern = NULL; /* xyz per point of one copy */
    uint64_t pattern_n = 0;
    if (!fill_shape_keys(c, f, path, shape, spacing, limit, &s, &pattern, &pattern_n))
        return false;
    if (!s.mesh && !lattice_pattern(c, path, spacing, limit, h, &s, &pattern, &pattern_n))
        return false;
    double count[3] = { 1, 1, 1 }, step[3] = { 0, 0, 0 };
    if (!fill_copies(c, f, path, count, step)) {
        free(pattern);
        return false;
    }
    /* Each count <= 1e6, so copies <= 1e18 fits; copies * pattern_n may not,
     * so it is compared by division. */
    uint64_t copies = (uint64_t)count[0] * (uint64_t)count[1] * (uint64_t)count[2];
    if (h->count > limit || (pattern_n && copies > (limit - h->count) / pattern_n)) {
        free(pattern);
        return scene_fail(c, "scene.too_large", path, "%" PRIu64 " copies of %" PRIu64 " particles would make the set hold more than "
                          "the %" PRIu64 " particles that fit in one buffer on this device (maxStorageBufferRange)",
                          copies, pattern_n, limit);
    }
    if (!host_reserve(c, path, h, copies * pattern_n)) {
        free(pattern);
        return false;
    }
    bool ok = push_copies(c, path, pattern, pattern_n, count, step, &fm, h);
    free(pattern);
    return ok;
}

/* "tetmesh": a tetrahedral mesh (TetGen .node/.ele, Gmsh .msh, VTK .vtu;
 * relative to the scene file) as the set's particles: one per vertex, with
 * the masses of the tets' volumes at "density" (kg/m^3) lumped to their
 * vertices; scaled by "scale", turned by "rotation" [axis x, y, z, degrees]
 * about its bounding box centre, which goes to "center" (default: where it
 * is). Its tets and boundary triangles become the set's "tets" and
 * "surface" element sets, vertex attribute "scalar" (an index) its "scalar"
 * buffer. */
static bool parse_tetmesh(parse_ctx *c, const cJSON *t, const char *path, uint64_t limit, double radius,
                          const double vel[3], host_particles *h)
{
    if (!cJSON_IsObject(t))
        return scene_fail(c, "scene.field", path, "expected an object like {\"file\": \"body.node\", \"density\": "
                             "1000}, got %s", scene_json_type(t));
    if (!scene_check_keys(c, t, path, tetmesh_keys))
        return false;
    const char *file;
    double scale, density, scalar, rot[4] = { 0, 1, 0, 0 }, center[3];
    bool reorient, has_center = cJSON_GetObjectItemCaseSensitive(t, "center") != NULL;
    if (!scene_get_string(c, t, "file", path, true, &file) ||
        !scene_get_number(c, t, "scale", path, false, 1, 1e-9, 1e9, &scale) ||
        !scene_get_number(c, t, "density", path, false, 1000, 1e-9, 1e9, &density) ||
        !scene_get_whole(c, t, "scalar", path, 0, 0, EDDY_TET_MAX_ATTRIBUTES - 1, &scalar) ||
        !scene_get_bool(c, t, "reorient", path, false, &reorient) || !parse_rotation(c, t, path, rot) ||
        (has_center && !scene_get_vec3_key(c, t, "center", path, true, NULL, center)))
        return false;
    char full[4096], err[1024], field[512];
    snprintf(field, sizeof field, "%s.file", path);
    if (!mesh_path(c, file, field, full, sizeof full))
        return false;
    eddy_tetmesh m;
    if (eddy_load_tetmesh(full, &(eddy_tetmesh_desc){ EDDY_SIZED(eddy_tetmesh_desc), .reorient = reorient, .max_bytes = c->host_budget }, &m, err,
                          sizeof err) != 0)
        return scene_fail(c, "scene.mesh", field, "%s", err);
    uint64_t need = (uint64_t)m.vertex_count * (HOST_BYTES_PER_PARTICLE + 8) + (uint64_t)m.tet_count * 28;
    if (m.vertex_count > limit || need > c->host_budget) {
        eddy_free_tetmesh(&m);
        return scene_fail(c, "scene.too_large", field, "%u vertices and %u tets: over the device's buffer limit (%" PRIu64
                          " particles) or the scene loader's host budget of %" PRIu64 " bytes",
                          m.vertex_count, m.tet_count, limit, c->host_budget);
    }
    if (m.attribute_count && scalar >= m.attribute_count) {
        eddy_free_tetmesh(&m);
        snprintf(field, sizeof field, "%s.scalar", path);
        return scene_fail(c, "scene.field", field, "attribute %g: the mesh has %u vertex attributes (0..%u)", scalar,
                          m.attribute_count, m.attribute_count - 1);
    }
    if (m.unreferenced)
        eddy_log(c->e, EDDY_LOG_WARN, "scene.mesh_unreferenced", "%s: %s: %u of %u vertices belong to no tet: they get "
                 "no mass and stay where they are", c->file, full, m.unreferenced, m.vertex_count);
    if (!place_vertices(c, field, m.vertices, m.vertex_count, scale, rot, has_center, center)) {
        eddy_free_tetmesh(&m);
        return false;
    }
    float *mass = malloc(4 * (size_t)(m.vertex_count ? m.vertex_count : 1));
    h->tets = malloc(16 * (size_t)(m.tet_count ? m.tet_count : 1));
    h->scalar = calloc(m.vertex_count ? m.vertex_count : 1, sizeof(float));
    int64_t tris = mass && h->tets && h->scalar ? eddy_tetmesh_boundary(&m, &h->surface) : -1;
    if (tris < 0 || !host_reserve(c, path, h, m.vertex_count)) {
        free(mass);
        eddy_free_tetmesh(&m);
        return c->failed ? false : scene_fail(c, "memory.host", path, "out of host memory");
    }
    eddy_tetmesh_masses(&m, density, mass);
    for (uint32_t i = 0; i < m.vertex_count; i++) {
        double x[3] = { m.vertices[3 * i], m.vertices[3 * i + 1], m.vertices[3 * i + 2] };
        host_push(h, x, radius, vel, mass[i], 0);
        if (m.attribute_count)
            h->scalar[i] = m.attributes[(size_t)m.attribute_count * i + (size_t)scalar];
    }
    memcpy(h->tets, m.tets, 16 * (size_t)m.tet_count);
    h->tet_count = m.tet_count;
    h->surface_count = (uint32_t)tris;
    free(mass);
    eddy_free_tetmesh(&m);
    return true;
}

/* A cloth's generated "grid" {"size": [x, z], "resolution": [nx, nz]} into
 * m: (nx + 1) (nz + 1) vertices in the x-z plane about the origin, two
 * triangles a quad, turned by rot and moved to center (the origin without
 * one). */
static bool cloth_grid(parse_ctx *c, const cJSON *grid, const char *path, uint64_t limit, const double rot[4],
                       bool has_center, double center[3], eddy_mesh *m)
{
    char field[512], gp[160];
    snprintf(gp, sizeof gp, "%s.grid", path);
    if (!cJSON_IsObject(grid))
        return scene_fail(c, "scene.field", gp, "expected an object like {\"size\": [1, 1], \"resolution\": "
                          "[20, 20]}, got %s", scene_json_type(grid));
    if (!scene_check_keys(c, grid, gp, grid_keys))
        return false;
    double size[2], res[2];
    const cJSON *js = cJSON_GetObjectItemCaseSensitive(grid, "size"), *jr = cJSON_GetObjectItemCaseSensitive(grid, "resolution");
    for (int k = 0; k < 2; k++) {
        const cJSON *a = cJSON_IsArray(js) && cJSON_GetArraySize(js) == 2 ? cJSON_GetArrayItem(js, k) : NULL;
        const cJSON *b = cJSON_IsArray(jr) && cJSON_GetArraySize(jr) == 2 ? cJSON_GetArrayItem(jr, k) : NULL;
        if (!cJSON_IsNumber(a) || !(a->valuedouble > 0 && a->valuedouble <= 1e9)) {
            snprintf(field, sizeof field, "%s.size", gp);
            return scene_fail(c, "scene.field", field, "expected [x, z]: two lengths in (0, 1e9] m");
        }
        if (!cJSON_IsNumber(b) || !(b->valuedouble >= 1 && b->valuedouble <= 65535) ||
            b->valuedouble != floor(b->valuedouble)) {
            snprintf(field, sizeof field, "%s.resolution", gp);
            return scene_fail(c, "scene.field", field, "expected [nx, nz]: two whole numbers of quads in [1, 65535]");
        }
        size[k] = a->valuedouble;
        res[k] = b->valuedouble;
    }
    uint32_t nx = (uint32_t)res[0], nz = (uint32_t)res[1];
    uint64_t verts = (uint64_t)(nx + 1) * (nz + 1), tris = 2ull * nx * nz;
    if (verts > limit || verts * (HOST_BYTES_PER_PARTICLE + 12) + tris * 12 > c->host_budget) {
        snprintf(field, sizeof field, "%s.resolution", gp);
        return scene_fail(c, "scene.too_large", field, "%" PRIu64 " vertices: over the device's buffer limit (%" PRIu64
                          " particles) or the scene loader's host budget of %" PRIu64 " bytes", verts, limit,
                          c->host_budget);
    }
    m->vertex_count = (uint32_t)verts;
    m->triangle_count = (uint32_t)tris;
    m->vertices = malloc(12 * verts);
    m->indices = malloc(12 * tris);
    if (!m->vertices || !m->indices) {
        eddy_free_mesh(m);
        return scene_fail(c, "memory.host", path, "out of host memory");
    }
    for (uint32_t j = 0; j <= nz; j++)
        for (uint32_t i = 0; i <= nx; i++) {
            float *x = m->vertices + 3 * ((size_t)j * (nx + 1) + i);
            x[0] = (float)(size[0] * ((double)i / nx - 0.5));
            x[1] = 0;
            x[2] = (float)(size[1] * ((double)j / nz - 0.5));
        }
    uint32_t *ix = m->indices;
    for (uint32_t j = 0; j < nz; j++)
        for (uint32_t i = 0; i < nx; i++) {
            uint32_t a = j * (nx + 1) + i, b = a + 1, cc = a + nx + 1, d = cc + 1;
            /* counter-clockwise seen from +y */
            uint32_t q[6] = { a, cc, d, a, d, b };
            if ((i + j) % 2)
                q[2] = b, q[3] = b, q[4] = cc, q[5] = d;
            memcpy(ix, q, sizeof q);
            ix += 6;
        }
    if (!has_center)
        center[0] = center[1] = center[2] = 0;
    double q[4];
    rotation_quaternion(rot, q);
    eddy_mesh_transform(m, 1, q, center);
    return true;
}

/* A cloth's OBJ "file" into m, within the device's and the loader's
 * limits: scaled, turned by rot about its bounding box centre, which goes
 * to center (where it is without one). */
static bool cloth_file(parse_ctx *c, const char *path, const char *file, uint64_t limit, double scale,
                       const double rot[4], bool has_center, double center[3], eddy_mesh *m)
{
    char field[512], err[1024], full[4096];
    snprintf(field, sizeof field, "%s.file", path);
    if (!mesh_path(c, file, field, full, sizeof full))
        return false;
    if (eddy_load_obj(full, m, err, sizeof err) != 0)
        return scene_fail(c, "scene.mesh", field, "%s", err);
    if (m->vertex_count > limit ||
        (uint64_t)m->vertex_count * (HOST_BYTES_PER_PARTICLE + 12) + (uint64_t)m->triangle_count * 12 > c->host_budget) {
        eddy_free_mesh(m);
        return scene_fail(c, "scene.too_large", field, "%u vertices: over the device's buffer limit or the scene "
                          "loader's host budget of %" PRIu64 " bytes", m->vertex_count, c->host_budget);
    }
    if (!place_vertices(c, field, m->vertices, m->vertex_count, scale, rot, has_center, center)) {
        eddy_free_mesh(m);
        return false;
    }
    return true;
}

/* A sheet's masses (density times each triangle's area, a third to each
 * corner) into mass, and the refusals a sheet needs: no NaN, no triangle
 * of zero area or naming a vertex twice; a warning for vertices no
 * triangle names. `what` names the sheet's key ("grid" or "file"). */
static bool cloth_masses(parse_ctx *c, const char *path, const char *what, const eddy_mesh *m, double density,
                         float *mass)
{
    char field[512];
    uint32_t unreferenced = 0;
    bool ok = true;
    for (uint32_t i = 0; ok && i < m->vertex_count; i++)
        if (!isfinite(m->vertices[3 * i]) || !isfinite(m->vertices[3 * i + 1]) || !isfinite(m->vertices[3 * i + 2])) {
            snprintf(field, sizeof field, "%s.%s", path, what);
            ok = scene_fail(c, "scene.mesh", field, "vertex %u is not finite after the transform", i + 1);
        }
    for (uint32_t t3 = 0; ok && t3 < m->triangle_count; t3++) {
        const uint32_t *v = m->indices + 3 * (size_t)t3;
        const float *a = m->vertices + 3 * (size_t)v[0], *b = m->vertices + 3 * (size_t)v[1], *d = m->vertices + 3 * (size_t)v[2];
        double u[3], w[3];
        for (int k = 0; k < 3; k++) {
            u[k] = (double)b[k] - a[k];
            w[k] = (double)d[k] - a[k];
        }
        double cx = u[1] * w[2] - u[2] * w[1], cy = u[2] * w[0] - u[0] * w[2], cz = u[0] * w[1] - u[1] * w[0];
        double area = 0.5 * sqrt(cx * cx + cy * cy + cz * cz);
        if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2] || !(area > 0)) {
            snprintf(field, sizeof field, "%s.%s", path, what);
            ok = scene_fail(c, "scene.mesh", field, "triangle %u (vertices %u, %u, %u) has zero area: expected a "
                            "proper triangle", t3 + 1, v[0] + 1, v[1] + 1, v[2] + 1);
            break;
        }
        for (int k = 0; k < 3; k++)
            mass[v[k]] += (float)(density * area / 3);
    }
    for (uint32_t i = 0; ok && i < m->vertex_count; i++)
        unreferenced += mass[i] == 0;
    if (ok && unreferenced)
        eddy_log(c->e, EDDY_LOG_WARN, "scene.mesh_unreferenced", "%s: %s: %u of %u vertices belong to no triangle: "
                 "they get no mass and stay where they are", c->file, path, unreferenced, m->vertex_count);
    return ok;
}

/* "cloth": a sheet of triangles as the set's particles, one per vertex:
 * an OBJ ("file", relative to the scene file; scaled, turned by "rotation"
 * about its bounding box centre, which goes to "center", default where it
 * is) or a generated "grid" {"size": [x, z] (m), "resolution": [nx, nz]
 * quads} in the x-z plane (normal +y) about the origin, turned by
 * "rotation" and moved to "center". Quads are split along alternating
 * diagonals, so the sheet has no preferred direction. Masses: "density"
 * (kg/m^2) times each triangle's area, a third to each corner. The
 * triangles become the set's "triangles" element set. */
static bool parse_cloth(parse_ctx *c, const cJSON *t, const char *path, uint64_t limit, double radius,
                        const double vel[3], host_particles *h)
{
    if (!cJSON_IsObject(t))
        return scene_fail(c, "scene.field", path, "expected an object like {\"grid\": {\"size\": [1, 1], "
                             "\"resolution\": [20, 20]}, \"density\": 0.2}, got %s", scene_json_type(t));
    if (!scene_check_keys(c, t, path, cloth_keys))
        return false;
    const char *file = NULL;
    double scale, density, rot[4] = { 0, 1, 0, 0 }, center[3];
    const cJSON *grid = cJSON_GetObjectItemCaseSensitive(t, "grid");
    bool has_file = cJSON_GetObjectItemCaseSensitive(t, "file") != NULL;
    bool has_center = cJSON_GetObjectItemCaseSensitive(t, "center") != NULL;
    if (has_file == (grid != NULL))
        return scene_fail(c, "scene.field", path, "give exactly one of \"file\" (an OBJ) and \"grid\"");
    if ((has_file && !scene_get_string(c, t, "file", path, true, &file)) ||
        !scene_get_number(c, t, "scale", path, false, 1, 1e-9, 1e9, &scale) ||
        !scene_get_number(c, t, "density", path, false, 0.2, 1e-9, 1e9, &density) || !parse_rotation(c, t, path, rot) ||
        (has_center && !scene_get_vec3_key(c, t, "center", path, true, NULL, center)))
        return false;
    eddy_mesh m = { 0 };
    if (grid ? !cloth_grid(c, grid, path, limit, rot, has_center, center, &m)
             : !cloth_file(c, path, file, limit, scale, rot, has_center, center, &m))
        return false;
    float *mass = calloc(m.vertex_count ? m.vertex_count : 1, sizeof(float));
    bool ok = mass != NULL && cloth_masses(c, path, grid ? "grid" : "file", &m, density, mass);
    if (ok && (!(h->triangles = malloc(12 * (size_t)m.triangle_count)) || !host_reserve(c, path, h, m.vertex_count)))
        ok = c->failed ? false : scene_fail(c, "memory.host", path, "out of host memory");
    for (uint32_t i = 0; ok && i < m.vertex_count; i++) {
        double x[3] = { m.vertices[3 * i], m.vertices[3 * i + 1], m.vertices[3 * i + 2] };
        host_push(h, x, radius, vel, mass[i], 0);
    }
    if (ok) {
        memcpy(h->triangles, m.indices, 12 * (size_t)m.triangle_count);
        h->triangle_count = m.triangle_count;
    }
    free(mass);
    eddy_free_mesh(&m);
    return ok;
}

bool scene_parse_set(parse_ctx *c, eddy_scene *s, const cJSON *js, int index, uint64_t limit,
                     host_particles *h, uint32_t *capacity, char name[EDDY_NAME_MAX + 1])
{
    char path[64];
    snprintf(path, sizeof path, "particle_sets[%d]", index);
    if (!cJSON_IsObject(js))
        return scene_fail(c, "scene.field", path, "expected an object, got %s", scene_json_type(js));
    if (!scene_check_keys(c, js, path, set_keys))
        return false;
    const char *n;
    if (!scene_get_name(c, js, "name", path, true, EDDY_NAME_MAX, &n))
        return false;
    for (uint32_t i = 0; i < s->set_count; i++)
        if (!strcmp(s->sets[i].name, n))
            return scene_fail(c, "scene.name", path, "a particle set named '%s' exists already", n);
    snprintf(name, EDDY_NAME_MAX + 1, "%s", n);
    double spacing, radius, mass, cap, phase;
    double vel[3];
    bool bodies;
    uint32_t body = 0;
    static const double zero[3] = { 0, 0, 0 };
    if (!scene_get_number(c, js, "spacing", path, false, 0, 1e-9, 1e9, &spacing) ||
        !scene_get_number(c, js, "radius", path, false, spacing > 0 ? spacing / 2 : 0.01, 1e-9, 1e9,
                          &radius) ||
        !scene_get_number(c, js, "mass", path, false, 1000.0 * 8 * radius * radius * radius, 1e-30,
                          1e30, &mass) ||
        !scene_get_whole(c, js, "capacity", path, 0, 0, 4294967295.0, &cap) ||
        !scene_get_whole(c, js, "phase", path, 0, 0, 4294967295.0, &phase) ||
        !scene_get_vec3_key(c, js, "velocity", path, false, zero, vel) ||
        !scene_get_bool(c, js, "bodies", path, false, &bodies))
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
            return scene_fail(c, "scene.field", fp, "expected a shape object or an array of them, got %s",
                              scene_json_type(fills));
        }
    }
    const cJSON *tm = cJSON_GetObjectItemCaseSensitive(js, "tetmesh");
    if (tm) {
        char tp[128];
        snprintf(tp, sizeof tp, "%s.tetmesh", path);
        if (fills || cJSON_GetObjectItemCaseSensitive(js, "points") || bodies)
            return scene_fail(c, "scene.field", tp, "a set with a \"tetmesh\" has no \"fill\", \"points\" or "
                              "\"bodies\": its particles are the mesh's vertices");
        if (!parse_tetmesh(c, tm, tp, limit, radius, vel, h))
            return false;
    }
    const cJSON *cl = cJSON_GetObjectItemCaseSensitive(js, "cloth");
    if (cl) {
        char tp[128];
        snprintf(tp, sizeof tp, "%s.cloth", path);
        if (fills || tm || cJSON_GetObjectItemCaseSensitive(js, "points") || bodies)
            return scene_fail(c, "scene.field", tp, "a set with a \"cloth\" has no \"fill\", \"tetmesh\", "
                              "\"points\" or \"bodies\": its particles are the sheet's vertices");
        if (!parse_cloth(c, cl, tp, limit, radius, vel, h))
            return false;
    }
    const cJSON *points = cJSON_GetObjectItemCaseSensitive(js, "points");
    if (points) {
        char pp[128];
        snprintf(pp, sizeof pp, "%s.points", path);
        if (!cJSON_IsArray(points))
            return scene_fail(c, "scene.field", pp, "expected an array of [x, y, z] positions, got %s",
                              scene_json_type(points));
        int i = 0;
        if (!host_reserve(c, pp, h, (uint64_t)cJSON_GetArraySize(points)))
            return false;
        for (const cJSON *p = points->child; p; p = p->next, i++) {
            char ip[160];
            snprintf(ip, sizeof ip, "%s[%d]", pp, i);
            double x[3];
            if (!scene_get_vec3(c, p, ip, -1e30, 1e30, x))
                return false;
            if (h->count >= limit)
                return scene_fail(c, "scene.too_large", pp, "more than %" PRIu64 " particles do not fit in one buffer",
                                  limit);
            if (!host_push(h, x, radius, vel, mass, bodies ? body : (uint32_t)phase))
                return scene_fail(c, "memory.host", pp, "out of host memory");
        }
        body += bodies && points->child; /* the points are one body */
    }
    if (h->count == 0)
        return scene_fail(c, "scene.field", path, "the set has no particles: give \"fill\" (with \"spacing\"), "
                             "\"points\", \"tetmesh\" or \"cloth\"");
    /* "pinned": particle indices the deformable modules hold still. */
    const cJSON *pinned = cJSON_GetObjectItemCaseSensitive(js, "pinned");
    if (pinned) {
        char pp[128];
        snprintf(pp, sizeof pp, "%s.pinned", path);
        if (!cJSON_IsArray(pinned) || cJSON_GetArraySize(pinned) == 0)
            return scene_fail(c, "scene.field", pp, "expected a non-empty array of particle indices (from 0), got %s",
                              scene_json_type(pinned));
        if (!(h->pinned = calloc(h->count, sizeof(uint32_t))))
            return scene_fail(c, "memory.host", pp, "out of host memory");
        int i = 0;
        for (const cJSON *x = pinned->child; x; x = x->next, i++)
            if (!cJSON_IsNumber(x) || !(x->valuedouble >= 0) || x->valuedouble != floor(x->valuedouble) ||
                x->valuedouble >= (double)h->count)
                return scene_fail(c, "scene.field", pp, "element %d: expected a particle index in [0, %" PRIu64 "], got %s",
                                  i, h->count - 1, cJSON_IsNumber(x) ? "a number outside it" : scene_json_type(x));
            else
                h->pinned[(uint64_t)x->valuedouble] = 1;
    }
    if (cap != 0 && cap < (double)h->count)
        return scene_fail(c, "scene.field", path, "capacity %g is below the %" PRIu64 " particles of its fills", cap,
                          h->count);
    *capacity = cap != 0 ? (uint32_t)cap : (uint32_t)h->count;
    if (*capacity > limit) {
        char field[96];
        snprintf(field, sizeof field, "%s.capacity", path);
        return scene_fail(c, "scene.too_large", field, "%u particles need %" PRIu64 " bytes per position buffer, over the "
                          "device's maxStorageBufferRange of %" PRIu64 " bytes; at most %" PRIu64
                          " particles fit", *capacity, (uint64_t)*capacity * 16,
                          eddy_engine_device(c->e)->max_storage_buffer_range, limit);
    }
    return true;
}
