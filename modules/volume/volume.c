/* The volume renderer (eddy_volume) and the module "volume" around it.
 *
 * On creation, from the set's rest state on the host: the neighbour table
 * and boundary faces (volume_cpu.c), checks (no inverted tet), defaults
 * from the mesh (opacity unit, longest segment, Morton box); then on the
 * GPU, once: the pre-integrated table (volume.preint, one pass a layer).
 * Every frame (eddy_volume_record): volume.geometry (planes, gradients,
 * the tet that holds the eye) from the deformed positions; the BVH over the boundary faces
 * (volume.keys, the shared radix sort, volume.leaves, one volume.level a
 * tree level: a complete binary tree over the faces in Morton order, built
 * again each frame so it follows the deformation); volume.cast. */
#include "volume.h"
#include <vulkan/vulkan_core.h>

#include <errno.h>
#include <stdarg.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eddy/eddy_prims.h"

static const uint32_t geometry_spv[] =
#include "volume_geometry.spv.inc"
    ;
static const uint32_t keys_spv[] =
#include "volume_keys.spv.inc"
    ;
static const uint32_t leaves_spv[] =
#include "volume_leaves.spv.inc"
    ;
static const uint32_t level_spv[] =
#include "volume_level.spv.inc"
    ;
static const uint32_t preint_spv[] =
#include "volume_preint.spv.inc"
    ;
static const uint32_t cast_point_spv[] =
#include "volume_cast_point.spv.inc"
    ;
static const uint32_t raster_spv[] =
#include "volume_raster.spv.inc"
    ;
static const uint32_t cast_spv[] =
#include "volume_cast.spv.inc"
    ;

struct eddy_volume {
    eddy_engine *e;
    char label[64];
    uint32_t width, height, tet_count, vertex_count, boundary_count;
    struct eddy_volume_params p;
    eddy_buffer position, scalar, tets;          /* the set's */
    eddy_buffer params, tf, boundary, keys, values, leaf_face, nodes, guards, hits, entries;
    eddy_image table, color, depth;
    eddy_image neighbours, planes, gradient; /* per tet (EDDY_VOLUME_ROW_SHIFT) */
    bool own_color, own_depth;
    eddy_kernel k_geometry, k_keys, k_leaves, k_level, k_preint, k_raster, k_cast;
    eddy_sort *sort;
    eddy_graph frame; /* eddy_volume_render's graph, recorded on first use */
};

static eddy_result fail(eddy_engine *e, const char *label, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static eddy_result fail(eddy_engine *e, const char *label, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    eddy_log(e, EDDY_LOG_ERROR, "render.invalid", "%s: %s", label, msg);
    return EDDY_ERROR_INVALID_ARGUMENT;
}

static bool finite3(const float *v)
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

/* The camera into the parameter block (render.c's conventions). */
static eddy_result put_camera(eddy_engine *e, const char *label, const eddy_volume_camera *c, uint32_t w,
                              uint32_t h, struct eddy_volume_params *p)
{
    if (!finite3(c->eye) || !finite3(c->target) || !finite3(c->up) || !(c->fov_deg > 0 && c->fov_deg < 179))
        return fail(e, label, "the camera needs finite eye, target and up and a field of view in (0, 179) "
                    "degrees (got fov %g)", c->fov_deg);
    float f[3], r[3], u[3];
    for (int a = 0; a < 3; a++)
        f[a] = c->target[a] - c->eye[a];
    float fl = sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    if (!(fl > 0))
        return fail(e, label, "the camera's eye equals its target");
    for (int a = 0; a < 3; a++)
        f[a] /= fl;
    r[0] = f[1] * c->up[2] - f[2] * c->up[1];
    r[1] = f[2] * c->up[0] - f[0] * c->up[2];
    r[2] = f[0] * c->up[1] - f[1] * c->up[0];
    float rl = sqrtf(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    float ul = sqrtf(c->up[0] * c->up[0] + c->up[1] * c->up[1] + c->up[2] * c->up[2]);
    if (!(rl > 1e-6f * ul) || !(ul > 0))
        return fail(e, label, "the camera's up vector is zero or parallel to its view direction");
    for (int a = 0; a < 3; a++)
        r[a] /= rl;
    u[0] = r[1] * f[2] - r[2] * f[1];
    u[1] = r[2] * f[0] - r[0] * f[2];
    u[2] = r[0] * f[1] - r[1] * f[0];
    for (int a = 0; a < 3; a++) {
        p->eye[a] = c->eye[a];
        p->forward[a] = f[a];
        p->right[a] = r[a];
        p->up[a] = u[a];
    }
    p->eye[3] = tanf(c->fov_deg * 0.5f * 3.14159265f / 180.0f);
    p->forward[3] = (float)w / (float)h;
    p->right[3] = (float)w;
    p->up[3] = (float)h;
    return EDDY_OK;
}

static eddy_result check_tf(eddy_engine *e, const char *label, const float *tf, uint32_t n)
{
    if (!tf || n < 1 || n > EDDY_VOLUME_MAX_TF)
        return fail(e, label, "the transfer function has %u points; expected 1 to %u", tf ? n : 0,
                    EDDY_VOLUME_MAX_TF);
    for (uint32_t k = 0; k < n; k++) {
        const float *q = tf + 5 * k;
        if (!isfinite(q[0]))
            return fail(e, label, "transfer function point %u: its scalar is not finite", k);
        for (int c = 1; c < 5; c++)
            if (!(q[c] >= 0 && q[c] <= 1))
                return fail(e, label, "transfer function point %u: colour and opacity must be in [0, 1] "
                            "(got %g)", k, q[c]);
        if (k && !(q[0] >= q[-5]))
            return fail(e, label, "transfer function point %u: scalars must not decrease (%g after %g)", k,
                        q[0], q[-5]);
    }
    return EDDY_OK;
}

static void destroy_parts(eddy_engine *e, eddy_volume *v)
{
    eddy_buffer bufs[] = { v->params, v->tf, v->boundary, v->keys,
                           v->values, v->leaf_face, v->nodes, v->guards, v->hits, v->entries };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i].id)
            eddy_destroy_buffer(e, bufs[i]);
    eddy_kernel ks[] = { v->k_geometry, v->k_keys, v->k_leaves, v->k_level, v->k_preint, v->k_raster, v->k_cast };
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        if (ks[i].id)
            eddy_destroy_kernel(e, ks[i]);
    eddy_image ims[] = { v->table, v->neighbours, v->planes, v->gradient };
    for (size_t i = 0; i < sizeof ims / sizeof ims[0]; i++)
        if (ims[i].id)
            eddy_destroy_image(e, ims[i]);
    if (v->own_color && v->color.id)
        eddy_destroy_image(e, v->color);
    if (v->own_depth && v->depth.id)
        eddy_destroy_image(e, v->depth);
    if (v->sort)
        eddy_destroy_sort(e, v->sort);
    if (v->frame.id)
        eddy_destroy_graph(e, v->frame);
}

void eddy_destroy_volume(eddy_engine *e, eddy_volume *v)
{
    if (!v)
        return;
    destroy_parts(e, v);
    free(v);
}

/* The host copy of the rest state: positions, scalars, tets. */
typedef struct rest {
    float *pos, *scalar;
    uint32_t *tets;
} rest;

static eddy_result load_rest(eddy_engine *e, eddy_volume *v, rest *r)
{
    r->pos = malloc(16 * (size_t)v->vertex_count);
    r->scalar = malloc(4 * (size_t)v->vertex_count);
    r->tets = malloc(16 * (size_t)v->tet_count);
    if (!r->pos || !r->scalar || !r->tets) {
        eddy_log(e, EDDY_LOG_ERROR, "memory.host", "%s: out of host memory for %u vertices and %u tets", v->label,
                 v->vertex_count, v->tet_count);
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    eddy_result res = eddy_buffer_download(e, v->position, 0, 16 * (uint64_t)v->vertex_count, r->pos);
    if (res == EDDY_OK)
        res = eddy_buffer_download(e, v->scalar, 0, 4 * (uint64_t)v->vertex_count, r->scalar);
    if (res == EDDY_OK)
        res = eddy_buffer_download(e, v->tets, 0, 16 * (uint64_t)v->tet_count, r->tets);
    return res;
}

static eddy_kernel kernel(eddy_engine *e, const char *what, const uint32_t *spv, size_t size)
{
    char label[96];
    snprintf(label, sizeof label, "volume.%s", what);
    return eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = label, .spirv = spv, .spirv_size = size });
}

static eddy_buffer buffer(eddy_engine *e, const eddy_volume *v, const char *what, uint64_t size, const void *data)
{
    char label[128];
    snprintf(label, sizeof label, "%s.%s", v->label, what);
    return eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = size ? size : 16, .label = label, .data = data,
                                                      .data_size = data ? size : 0 });
}

/* A pass binding: a buffer or an image. */
typedef struct slot {
    eddy_buffer buffer;
    eddy_image image;
    uint32_t access;
} slot;
#define BUF(x, a) (slot){ .buffer = (x), .access = (a) }
#define IMG(x, a) (slot){ .image = (x), .access = (a) }

/* A pass with the parameter block at binding 0 and b at 1, 2, ... */
static int add(eddy_engine *e, eddy_volume *v, eddy_graph g, const char *what, eddy_kernel k, uint32_t threads,
               const slot *b, uint32_t nb, const void *push, uint32_t push_size)
{
    char label[128];
    snprintf(label, sizeof label, "%s.%s", v->label, what);
    eddy_pass_desc pd = { EDDY_SIZED(eddy_pass_desc), .label = label, .kernel = k, .threads = threads, .push = push, .push_size = push_size };
    pd.bindings[0] = (eddy_binding){ v->params, EDDY_READ };
    for (uint32_t i = 0; i < nb; i++) {
        if (b[i].image.id)
            pd.images[i + 1] = (eddy_image_binding){ b[i].image, b[i].access };
        else
            pd.bindings[i + 1] = (eddy_binding){ b[i].buffer, b[i].access };
    }
    return eddy_graph_add_pass(e, g, &pd);
}

#define B(...) (const slot[]){ __VA_ARGS__ }, sizeof((const slot[]){ __VA_ARGS__ }) / sizeof(slot)

/* The table, once: layer k from layers below it (volume_preint.comp). */
static eddy_result preintegrate(eddy_engine *e, eddy_volume *v)
{
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "volume.preint" });
    if (!g.id)
        return EDDY_ERROR_OUT_OF_MEMORY;
    eddy_result res = EDDY_OK;
    for (uint32_t k = 0; k < v->p.table[1] && res == EDDY_OK; k++) {
        char label[128];
        snprintf(label, sizeof label, "%s.preint", v->label);
        eddy_pass_desc pd = { EDDY_SIZED(eddy_pass_desc), .label = label, .kernel = v->k_preint, .threads = v->p.table[0] * v->p.table[0],
                              .push = &k, .push_size = 4 };
        pd.bindings[0] = (eddy_binding){ v->params, EDDY_READ };
        pd.bindings[1] = (eddy_binding){ v->tf, EDDY_READ };
        pd.images[2] = (eddy_image_binding){ v->table, EDDY_READ_WRITE };
        if (eddy_graph_add_pass(e, g, &pd) < 0)
            res = EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (res == EDDY_OK)
        res = eddy_graph_run(e, g, 1);
    eddy_destroy_graph(e, g);
    return res;
}

/* The descriptor's checks before anything is made: the set's tets and
 * scalar, the transfer function, the ranges, and the host's images. */
static eddy_result check_desc(eddy_engine *e, const char *label, const eddy_volume_desc *d, eddy_elements *el,
                              eddy_buffer *sb, const char **set_name_out)
{
    if (!d || !d->set.id)
        return fail(e, label, "no particle set given");
    if (d->width < 1 || d->height < 1 || d->width > 16384 || d->height > 16384)
        return fail(e, label, "image size %u x %u px: expected 1 to 16384 a side", d->width, d->height);
    const char *set_name = *set_name_out = eddy_particles_name(e, d->set);
    *el = eddy_particles_elements(e, d->set, "tets");
    if (!el->buffer.id || el->kind != EDDY_TETRAHEDRA || el->count == 0)
        return fail(e, label, "set '%s' has no tets (a \"tets\" element set of at least one tetrahedron)",
                    set_name ? set_name : "?");
    const char *sname = d->scalar ? d->scalar : "scalar";
    *sb = eddy_particles_buffer(e, d->set, sname);
    if (!sb->id)
        return fail(e, label, "set '%s' has no buffer '%s' for the scalar", set_name, sname);
    if (d->transfer && check_tf(e, label, d->transfer, d->transfer_count) != EDDY_OK)
        return EDDY_ERROR_INVALID_ARGUMENT;
    if (!(d->cutoff >= 0 && d->cutoff <= 1) || !(d->opacity_unit >= 0 && isfinite(d->opacity_unit)) ||
        !(d->max_segment >= 0 && isfinite(d->max_segment)) || !isfinite(d->scalar_min) ||
        !isfinite(d->scalar_max))
        return fail(e, label, "cutoff must be in [0, 1], opacity_unit and max_segment finite and >= 0, the scalar "
                    "range finite");
    if (d->entry_slots > 64)
        return fail(e, label, "entry_slots %u: expected 1 to 64 (0: the default 8)", d->entry_slots);
    if ((d->table_scalars && (d->table_scalars < 2 || d->table_scalars > 1024)) ||
        (d->table_lengths && (d->table_lengths < 2 || d->table_lengths > 1024)))
        return fail(e, label, "table of %u x %u texels: expected 2 to 1024 each (0: the defaults 256 and 32)",
                    d->table_scalars, d->table_lengths);
    const struct { eddy_image im; VkFormat format; const char *what; } host[2] = {
        { d->color_image, VK_FORMAT_R32G32B32A32_SFLOAT, "colour image (RGBA32F)" },
        { d->depth_image, VK_FORMAT_R32_SFLOAT, "depth image (R32F)" },
    };
    for (int k = 0; k < 2; k++) {
        eddy_vk_image vi;
        if (!host[k].im.id)
            continue;
        if (eddy_image_vk(e, host[k].im, &vi) != EDDY_OK || vi.format != (int32_t)host[k].format ||
            vi.extent.width != d->width || vi.extent.height != d->height || vi.extent.depth != 1)
            return fail(e, label, "the host's %s must be %u x %u px in that format, with storage use", host[k].what,
                        d->width, d->height);
    }
    return EDDY_OK;
}

/* The rest mesh's edge lengths and bounding box: the defaults come from
 * them. */
typedef struct rest_shape {
    double edge_sum, edge_max, lo[3], hi[3];
} rest_shape;

/* The rest mesh: its neighbour table and boundary faces, no inverted or
 * flat tet, finite scalars; its edges and box into *sh. */
static eddy_result check_rest(eddy_engine *e, eddy_volume *v, const char *label, const char *set_name, const rest *r,
                              uint32_t **neigh, uint32_t **bound, rest_shape *sh)
{
    char err[512];
    eddy_result res = EDDY_OK;
    *neigh = malloc(16 * (size_t)v->tet_count);
    if (!*neigh)
        res = EDDY_ERROR_OUT_OF_MEMORY;
    if (res == EDDY_OK && eddy_volume_topology(r->tets, v->tet_count, v->vertex_count, *neigh, bound,
                                               &v->boundary_count, err, sizeof err) != 0)
        res = fail(e, label, "set '%s': %s", set_name, err);
    /* volume.raster runs 8 threads a face, the BVH a power of two of leaves */
    if (res == EDDY_OK && v->boundary_count > (UINT32_MAX >> 4))
        res = fail(e, label, "set '%s': %u boundary faces: expected at most %u", set_name, v->boundary_count,
                   UINT32_MAX >> 4);
    for (uint32_t t = 0; t < v->tet_count && res == EDDY_OK; t++) {
        const float *x[4];
        for (int i = 0; i < 4; i++)
            x[i] = r->pos + 4 * (size_t)r->tets[4 * (size_t)t + i];
        double a[3], b[3], c[3];
        for (int k = 0; k < 3; k++)
            a[k] = x[1][k] - x[0][k], b[k] = x[2][k] - x[0][k], c[k] = x[3][k] - x[0][k];
        double vol = (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                      a[2] * (b[0] * c[1] - b[1] * c[0])) / 6.0;
        if (!(vol > 0)) {
            res = fail(e, label, "set '%s': tet %u is %s (volume %g m^3): expected positively oriented tets", set_name,
                       t, vol < 0 ? "inverted" : isnan(vol) ? "not finite" : "flat", vol);
            break;
        }
        for (int i = 0; i < 4; i++)
            for (int j = i + 1; j < 4; j++) {
                double l = sqrt((double)(x[i][0] - x[j][0]) * (x[i][0] - x[j][0]) +
                                (double)(x[i][1] - x[j][1]) * (x[i][1] - x[j][1]) +
                                (double)(x[i][2] - x[j][2]) * (x[i][2] - x[j][2]));
                sh->edge_sum += l;
                sh->edge_max = l > sh->edge_max ? l : sh->edge_max;
            }
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 3; k++)
                sh->lo[k] = x[i][k] < sh->lo[k] ? x[i][k] : sh->lo[k],
                sh->hi[k] = x[i][k] > sh->hi[k] ? x[i][k] : sh->hi[k];
    }
    for (uint32_t i = 0; i < v->vertex_count && res == EDDY_OK; i++)
        if (!isfinite(r->scalar[i]))
            res = fail(e, label, "set '%s': the scalar of vertex %u is not finite", set_name, i);
    return res;
}

/* With no camera given (eye == target): one framing the rest mesh's box
 * from the front, above and to the right. */
static void default_camera(eddy_volume_camera *cam, const rest_shape *sh)
{
    static const float dir[3] = { 0.35f, 0.45f, 1.0f };
    float fov = cam->fov_deg > 0 ? cam->fov_deg : 40.0f;
    double diag = 0, dl = sqrt(0.35 * 0.35 + 0.45 * 0.45 + 1.0);
    for (int k = 0; k < 3; k++)
        diag += (sh->hi[k] - sh->lo[k]) * (sh->hi[k] - sh->lo[k]);
    double dist = 0.5 * sqrt(diag) / tan(fov * 0.5 * 3.14159265358979 / 180.0) * 1.15;
    bool up = cam->up[0] || cam->up[1] || cam->up[2];
    *cam = (eddy_volume_camera){ .up = { up ? cam->up[0] : 0, up ? cam->up[1] : 1, up ? cam->up[2] : 0 },
                                 .fov_deg = fov };
    for (int k = 0; k < 3; k++) {
        cam->target[k] = (float)(0.5 * (sh->lo[k] + sh->hi[k]));
        cam->eye[k] = (float)(cam->target[k] + dist * dir[k] / dl);
    }
}

/* With no transfer function given: two points over the scalar's range at
 * rest, into def (10 floats). */
static void default_tf(const eddy_volume *v, const rest *r, float def_tf[10])
{
    float smin = INFINITY, smax = -INFINITY;
    for (uint32_t i = 0; i < v->vertex_count; i++)
        smin = fminf(smin, r->scalar[i]), smax = fmaxf(smax, r->scalar[i]);
    if (!(smax > smin))
        smin -= 0.5f, smax += 0.5f;
    const float def[10] = { smin, 0.2f, 0.35f, 0.9f, 0.0f, smax, 1.0f, 0.6f, 0.15f, 0.5f };
    memcpy(def_tf, def, sizeof def);
}

/* The parameter block past the camera: the scalar range, segment and
 * opacity unit, the BVH box, the counts, the table, the entry lists. Every
 * field is set even after a refusal, which is logged. */
static eddy_result fill_params(eddy_engine *e, eddy_volume *v, const char *label, const eddy_volume_desc *d,
                               const float *tf, uint32_t n, const rest_shape *sh)
{
    struct eddy_volume_params *p = &v->p;
    eddy_result res = EDDY_OK;
    float smin = d->scalar_min, smax = d->scalar_max;
    if (smin == 0 && smax == 0) {
        smin = tf[0];
        smax = tf[5 * (n - 1)];
        if (!(smax > smin))
            smin -= 1, smax += 1;
    }
    if (!(smax > smin))
        res = fail(e, label, "the scalar range [%g, %g] is empty", smin, smax);
    p->range[0] = smin;
    p->range[1] = smax;
    p->range[2] = d->max_segment > 0 ? d->max_segment : (float)(2 * sh->edge_max);
    /* A segment inside one tet is at most its longest edge (twice that once
     * the body stretches): cut into at most EDDY_VOLUME_MAX_PIECES pieces
     * by the cast, so a shorter max_segment would be exceeded silently. */
    if (d->max_segment > 0 && 2 * sh->edge_max > EDDY_VOLUME_MAX_PIECES * (double)d->max_segment)
        res = fail(e, label, "max_segment %g m: a segment through one tet (up to twice the longest edge, %g m) "
                   "would need more than %d pieces; expected max_segment >= %g m, or 0 for the default", d->max_segment,
                   2 * sh->edge_max, EDDY_VOLUME_MAX_PIECES, 2 * sh->edge_max / EDDY_VOLUME_MAX_PIECES);
    p->range[3] = d->opacity_unit > 0 ? d->opacity_unit : (float)(sh->edge_sum / (6.0 * v->tet_count));
    bool box = d->bounds_min[0] || d->bounds_min[1] || d->bounds_min[2] || d->bounds_max[0] ||
               d->bounds_max[1] || d->bounds_max[2];
    for (int k = 0; k < 3; k++) {
        double half = 0.5 * (sh->hi[k] - sh->lo[k]) + 1e-6;
        p->bounds_min[k] = box ? d->bounds_min[k] : (float)(sh->lo[k] - half);
        p->bounds_max[k] = box ? d->bounds_max[k] : (float)(sh->hi[k] + half);
        if (!(p->bounds_max[k] > p->bounds_min[k]) || !isfinite(p->bounds_min[k]) || !isfinite(p->bounds_max[k]))
            res = fail(e, label, "the BVH box must have max > min on each axis");
    }
    p->bounds_min[3] = d->cutoff > 0 ? d->cutoff : 0.999f;
    uint32_t leaves = 2;
    while (leaves < v->boundary_count)
        leaves *= 2;
    p->counts[0] = v->tet_count;
    p->counts[1] = v->boundary_count;
    p->counts[2] = leaves;
    p->counts[3] = n;
    p->table[0] = d->table_scalars ? d->table_scalars : 256;
    p->table[1] = d->table_lengths ? d->table_lengths : 32;
    p->table[2] = d->max_steps ? d->max_steps : (v->tet_count > UINT32_MAX - 64 ? UINT32_MAX : v->tet_count + 64);
    p->table[3] = d->point_sampling ? EDDY_VOLUME_POINT_SAMPLING : 0;
    /* as many as asked that fit one storage buffer (none: every pixel
     * that meets the mesh searches the BVH) */
    uint64_t fit = eddy_engine_device(e)->max_storage_buffer_range / (8ull * v->width * v->height);
    uint32_t slots = d->entry_slots ? d->entry_slots : 8;
    p->lists[0] = fit < slots ? (uint32_t)fit : slots;
    return res;
}

/* The buffers: the parameter block, the transfer function (n points of 8
 * floats), the boundary faces, the BVH's and the frame's. */
static eddy_result make_buffers(eddy_engine *e, eddy_volume *v, const float *tfbuf, uint32_t n, const uint32_t *bound)
{
    struct eddy_volume_params *p = &v->p;
    uint64_t leaves = p->counts[2];
    v->params = buffer(e, v, "params", sizeof *p, p);
    v->tf = buffer(e, v, "transfer", 32ull * n, tfbuf);
    v->boundary = buffer(e, v, "boundary", 4ull * v->boundary_count, bound);
    v->keys = buffer(e, v, "keys", 4ull * v->boundary_count, NULL);
    v->values = buffer(e, v, "values", 4ull * v->boundary_count, NULL);
    v->leaf_face = buffer(e, v, "leaf_face", 4 * leaves, NULL);
    v->nodes = buffer(e, v, "nodes", 64 * leaves, NULL);
    v->guards = buffer(e, v, "guards", 16, NULL);
    v->hits = buffer(e, v, "hits", 4ull * v->width * v->height, NULL);
    v->entries = buffer(e, v, "entries", 8ull * p->lists[0] * v->width * v->height, NULL);
    if (!v->params.id || !v->tf.id || !v->boundary.id || !v->keys.id || !v->values.id || !v->leaf_face.id || !v->nodes.id || !v->guards.id || !v->hits.id ||
        !v->entries.id)
        return EDDY_ERROR_OUT_OF_MEMORY;
    return EDDY_OK;
}

/* The pre-integrated table and the frame's colour and depth (the host's,
 * when it gives them). */
static eddy_result make_images(eddy_engine *e, eddy_volume *v, const char *label, const eddy_volume_desc *d)
{
    const struct eddy_volume_params *p = &v->p;
    char tl[128];
    snprintf(tl, sizeof tl, "%s.table", v->label);
    v->table = eddy_create_image(e, &(eddy_image_desc){ EDDY_SIZED(eddy_image_desc), .width = p->table[0], .height = p->table[0],
                                                        .depth = p->table[1], .format = EDDY_FORMAT_RGBA32F,
                                                        .filter = EDDY_FILTER_LINEAR, .label = tl });
    v->own_color = !d->color_image.id;
    v->own_depth = !d->depth_image.id;
    snprintf(tl, sizeof tl, "%s.color", v->label);
    v->color = v->own_color ? eddy_create_image(e, &(eddy_image_desc){ EDDY_SIZED(eddy_image_desc), .width = v->width, .height = v->height,
                                                                      .format = EDDY_FORMAT_RGBA32F,
                                                                      .usage = EDDY_IMAGE_STORAGE, .label = tl })
                            : d->color_image;
    snprintf(tl, sizeof tl, "%s.depth", v->label);
    v->depth = v->own_depth ? eddy_create_image(e, &(eddy_image_desc){ EDDY_SIZED(eddy_image_desc), .width = v->width, .height = v->height,
                                                                      .format = EDDY_FORMAT_R32F,
                                                                      .usage = EDDY_IMAGE_STORAGE, .label = tl })
                            : d->depth_image;
    if (!v->table.id || !v->color.id || !v->depth.id)
        return fail(e, label, "the images (table %u x %u x %u, frame %u x %u px) could not be made (see above)",
                    p->table[0], p->table[0], p->table[1], v->width, v->height);
    return EDDY_OK;
}

/* Per tet, in rows of 1 << EDDY_VOLUME_ROW_SHIFT texels: the neighbours
 * (from the host), the planes and the gradients. */
static eddy_result tet_images(eddy_engine *e, eddy_volume *v, const char *label, const uint32_t *neigh)
{
    const uint32_t row = 1u << EDDY_VOLUME_ROW_SHIFT;
    uint32_t rows4 = (uint32_t)((4ull * v->tet_count + row - 1) / row), rows1 = (v->tet_count + row - 1) / row;
    uint32_t *padded = calloc((size_t)row * rows4, 4);
    char tl[128];
    if (padded) {
        memcpy(padded, neigh, 16 * (size_t)v->tet_count);
        snprintf(tl, sizeof tl, "%s.neighbours", v->label);
        v->neighbours = eddy_create_image(e, &(eddy_image_desc){ EDDY_SIZED(eddy_image_desc), .dimensions = 2, .width = row, .height = rows4,
                                                                 .format = EDDY_FORMAT_R32UI,
                                                                 .usage = EDDY_IMAGE_STORAGE, .label = tl,
                                                                 .data = padded });
        snprintf(tl, sizeof tl, "%s.planes", v->label);
        v->planes = eddy_create_image(e, &(eddy_image_desc){ EDDY_SIZED(eddy_image_desc), .dimensions = 2, .width = row, .height = rows4,
                                                             .format = EDDY_FORMAT_RGBA32F,
                                                             .usage = EDDY_IMAGE_STORAGE, .label = tl });
        snprintf(tl, sizeof tl, "%s.gradient", v->label);
        v->gradient = eddy_create_image(e, &(eddy_image_desc){ EDDY_SIZED(eddy_image_desc), .dimensions = 2, .width = row, .height = rows1,
                                                               .format = EDDY_FORMAT_RGBA32F,
                                                               .usage = EDDY_IMAGE_STORAGE, .label = tl });
    }
    free(padded);
    if (!padded)
        return EDDY_ERROR_OUT_OF_MEMORY;
    if (!v->neighbours.id || !v->planes.id || !v->gradient.id)
        return fail(e, label, "the per-tet images (%u x %u texels for %u tets) could not be made (see above)", row,
                    rows4, v->tet_count);
    return EDDY_OK;
}

/* The kernels (the cast by point sampling or by segments) and the sort. */
static eddy_result make_kernels(eddy_engine *e, eddy_volume *v, const eddy_volume_desc *d)
{
    v->k_geometry = kernel(e, "geometry", geometry_spv, sizeof geometry_spv);
    v->k_keys = kernel(e, "keys", keys_spv, sizeof keys_spv);
    v->k_leaves = kernel(e, "leaves", leaves_spv, sizeof leaves_spv);
    v->k_level = kernel(e, "level", level_spv, sizeof level_spv);
    v->k_preint = kernel(e, "preint", preint_spv, sizeof preint_spv);
    v->k_raster = kernel(e, "raster", raster_spv, sizeof raster_spv);
    v->k_cast = d->point_sampling ? kernel(e, "cast", cast_point_spv, sizeof cast_point_spv)
                                  : kernel(e, "cast", cast_spv, sizeof cast_spv);
    char sl[96];
    snprintf(sl, sizeof sl, "%s.sort", v->label);
    v->sort = eddy_create_sort(e, &(eddy_sort_desc){ EDDY_SIZED(eddy_sort_desc), .label = sl, .max_count = v->boundary_count });
    if (!v->k_geometry.id || !v->k_keys.id || !v->k_leaves.id || !v->k_level.id || !v->k_preint.id ||
        !v->k_raster.id || !v->k_cast.id || !v->sort)
        return EDDY_ERROR_INVALID_ARGUMENT;
    return EDDY_OK;
}

eddy_volume *eddy_create_volume(eddy_engine *e, const eddy_volume_desc *d)
{
    const char *label = d && d->label ? d->label : "volume";
    eddy_elements el = { 0 };
    eddy_buffer sb = { 0 };
    const char *set_name = NULL;
    if (check_desc(e, label, d, &el, &sb, &set_name) != EDDY_OK)
        return NULL;
    eddy_volume *v = calloc(1, sizeof *v);
    if (!v) {
        eddy_log(e, EDDY_LOG_ERROR, "memory.host", "%s: out of host memory", label);
        return NULL;
    }
    v->e = e;
    snprintf(v->label, sizeof v->label, "%s", label);
    v->width = d->width;
    v->height = d->height;
    v->tet_count = el.count;
    v->vertex_count = eddy_particles_count(e, d->set);
    v->position = eddy_particles_buffer(e, d->set, "position");
    v->scalar = sb;
    v->tets = el.buffer;
    rest r = { 0 };
    uint32_t *neigh = NULL, *bound = NULL;
    rest_shape sh = { 0, 0, { INFINITY, INFINITY, INFINITY }, { -INFINITY, -INFINITY, -INFINITY } };
    eddy_result res = load_rest(e, v, &r);
    if (res == EDDY_OK)
        res = check_rest(e, v, label, set_name, &r, &neigh, &bound, &sh);
    /* The defaults from the rest state: the camera framing the mesh, the
     * transfer function over its scalar's range. */
    eddy_volume_camera cam = d->camera;
    float def_tf[10];
    const float *tf = d->transfer;
    uint32_t n = d->transfer_count;
    if (res == EDDY_OK && !memcmp(cam.eye, cam.target, sizeof cam.eye))
        default_camera(&cam, &sh);
    if (res == EDDY_OK)
        res = put_camera(e, label, &cam, d->width, d->height, &v->p);
    if (res == EDDY_OK && !tf) {
        default_tf(v, &r, def_tf);
        tf = def_tf;
        n = 2;
    }
    if (res == EDDY_OK)
        res = fill_params(e, v, label, d, tf, n, &sh);
    float *tfbuf = res == EDDY_OK ? calloc(8 * (size_t)n, sizeof(float)) : NULL;
    if (res == EDDY_OK && !tfbuf)
        res = EDDY_ERROR_OUT_OF_MEMORY;
    for (uint32_t k = 0; res == EDDY_OK && k < n; k++) {
        tfbuf[8 * k] = tf[5 * k];
        memcpy(tfbuf + 8 * k + 4, tf + 5 * k + 1, 16);
    }
    if (res == EDDY_OK)
        res = make_buffers(e, v, tfbuf, n, bound);
    if (res == EDDY_OK)
        res = make_images(e, v, label, d);
    if (res == EDDY_OK)
        res = tet_images(e, v, label, neigh);
    if (res == EDDY_OK)
        res = make_kernels(e, v, d);
    if (res == EDDY_OK)
        res = preintegrate(e, v);
    free(tfbuf);
    free(neigh);
    free(bound);
    free(r.pos), free(r.scalar), free(r.tets);
    if (res != EDDY_OK) {
        eddy_destroy_volume(e, v);
        return NULL;
    }
    return v;
}

eddy_result eddy_volume_set_camera(eddy_engine *e, eddy_volume *v, const eddy_volume_camera *c)
{
    struct eddy_volume_params p = v->p;
    eddy_result res = put_camera(e, v->label, c, v->width, v->height, &p);
    if (res == EDDY_OK)
        res = eddy_buffer_upload(e, v->params, 0, sizeof p, &p);
    if (res == EDDY_OK)
        v->p = p;
    return res;
}

eddy_result eddy_volume_record(eddy_engine *e, eddy_volume *v, eddy_graph g)
{
    eddy_result res = eddy_fill_record(e, g, v->guards, 0, 4, 0);
    if (res == EDDY_OK &&
        add(e, v, g, "geometry", v->k_geometry, v->tet_count,
            B(BUF(v->position, EDDY_READ), BUF(v->scalar, EDDY_READ), BUF(v->tets, EDDY_READ),
              IMG(v->planes, EDDY_WRITE), IMG(v->gradient, EDDY_WRITE), BUF(v->guards, EDDY_ATOMIC)), NULL, 0) < 0)
        res = EDDY_ERROR_INVALID_ARGUMENT;
    if (res == EDDY_OK &&
        add(e, v, g, "keys", v->k_keys, v->boundary_count,
            B(BUF(v->position, EDDY_READ), BUF(v->tets, EDDY_READ), BUF(v->boundary, EDDY_READ),
              BUF(v->keys, EDDY_WRITE), BUF(v->values, EDDY_WRITE)), NULL, 0) < 0)
        res = EDDY_ERROR_INVALID_ARGUMENT;
    if (res == EDDY_OK)
        res = eddy_sort_record(e, v->sort, g, v->keys, v->values, v->boundary_count, 30);
    if (res == EDDY_OK &&
        add(e, v, g, "leaves", v->k_leaves, v->p.counts[2],
            B(BUF(v->position, EDDY_READ), BUF(v->tets, EDDY_READ), BUF(v->boundary, EDDY_READ),
              BUF(v->values, EDDY_READ), BUF(v->leaf_face, EDDY_WRITE), BUF(v->nodes, EDDY_WRITE)), NULL, 0) < 0)
        res = EDDY_ERROR_INVALID_ARGUMENT;
    for (uint32_t m = v->p.counts[2] / 2; m >= 1 && res == EDDY_OK; m /= 2)
        if (add(e, v, g, "level", v->k_level, m, B(BUF(v->nodes, EDDY_READ_WRITE)), &m, 4) < 0)
            res = EDDY_ERROR_INVALID_ARGUMENT;
    if (res == EDDY_OK)
        res = eddy_fill_record(e, g, v->hits, 0, v->width * v->height, 0);
    if (res == EDDY_OK &&
        add(e, v, g, "raster", v->k_raster, 8 * v->boundary_count,
            B(BUF(v->position, EDDY_READ), BUF(v->tets, EDDY_READ), BUF(v->boundary, EDDY_READ),
              IMG(v->planes, EDDY_READ), BUF(v->hits, EDDY_ATOMIC), BUF(v->entries, EDDY_WRITE)), NULL, 0) < 0)
        res = EDDY_ERROR_INVALID_ARGUMENT;
    /* 8 x 8 pixel tiles, a thread's 8 neighbours in 4 x 2 blocks (lanes
     * that cross similar tets) */
    if (res == EDDY_OK &&
        add(e, v, g, "cast", v->k_cast, ((v->width + 7) / 8) * ((v->height + 7) / 8) * 64,
            B(BUF(v->position, EDDY_READ), BUF(v->tets, EDDY_READ), IMG(v->neighbours, EDDY_READ),
              BUF(v->boundary, EDDY_READ), IMG(v->planes, EDDY_READ), IMG(v->gradient, EDDY_READ),
              BUF(v->leaf_face, EDDY_READ), BUF(v->nodes, EDDY_READ), BUF(v->tf, EDDY_READ),
              BUF(v->guards, EDDY_ATOMIC), IMG(v->table, EDDY_SAMPLE), IMG(v->color, EDDY_WRITE),
              IMG(v->depth, EDDY_WRITE), BUF(v->hits, EDDY_READ), BUF(v->entries, EDDY_READ)), NULL, 0) < 0)
        res = EDDY_ERROR_INVALID_ARGUMENT;
    return res;
}

eddy_result eddy_volume_render(eddy_engine *e, eddy_volume *v)
{
    if (!v->frame.id) {
        char label[128];
        snprintf(label, sizeof label, "%s.frame", v->label);
        v->frame = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = label });
        if (!v->frame.id)
            return EDDY_ERROR_OUT_OF_MEMORY;
        eddy_result res = eddy_volume_record(e, v, v->frame);
        if (res != EDDY_OK) {
            eddy_destroy_graph(e, v->frame);
            v->frame = (eddy_graph){ 0 };
            return res;
        }
    }
    return eddy_graph_run(e, v->frame, 1);
}

eddy_image eddy_volume_color(const eddy_volume *v)
{
    return v->color;
}

eddy_image eddy_volume_depth(const eddy_volume *v)
{
    return v->depth;
}

eddy_image eddy_volume_table(const eddy_volume *v)
{
    return v->table;
}

const struct eddy_volume_params *eddy_volume_params_of(const eddy_volume *v)
{
    return &v->p;
}

eddy_result eddy_volume_read(eddy_engine *e, eddy_volume *v, float *rgba, float *depth)
{
    eddy_result res = EDDY_OK;
    if (rgba && !v->own_color)
        return fail(e, v->label, "the colour image is the host's: the host reads it");
    if (depth && !v->own_depth)
        return fail(e, v->label, "the depth image is the host's: the host reads it");
    if (rgba)
        res = eddy_image_download(e, v->color, &(eddy_image_region){ 0 }, rgba);
    if (res == EDDY_OK && depth)
        res = eddy_image_download(e, v->depth, &(eddy_image_region){ 0 }, depth);
    return res;
}

eddy_result eddy_volume_read_guards(eddy_engine *e, eddy_volume *v, uint32_t *max_steps_hit, uint32_t *stalled,
                                    uint32_t *bvh_pixels)
{
    uint32_t g[4];
    eddy_result res = eddy_buffer_download(e, v->guards, 0, 16, g);
    if (res == EDDY_OK) {
        if (max_steps_hit)
            *max_steps_hit = g[0];
        if (stalled)
            *stalled = g[1];
        if (bvh_pixels)
            *bvh_pixels = g[2];
    }
    return res;
}
