/* The offscreen renderer: particle sets as spheres and deformable bodies as
 * their triangle surfaces, with one depth test between both, shaded, into an
 * RGBA8 image, by compute passes (shaders/render_*.comp), and PNG files.
 *
 * A frame's graph: clear depth and ids; gather every set's spheres
 * (render_gather) or triangles (render_tri_gather) from its device buffers;
 * depth of the spheres (render_splat) and of the triangles (render_tri) by
 * atomicMin into one depth buffer; the claims (the same two shaders, ids by
 * atomicMin: every sphere's id is below every triangle's); shade
 * (render_shade). Only integer atomicMin decides, so the image does not
 * depend on thread order. The graph is recorded again only when the sets,
 * the sphere count or the triangle count change. */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "eddy/eddy_prims.h"
#include "output.h"

static const uint32_t splat_spv[] =
#include "render_splat.spv.inc"
    ;
static const uint32_t shade_spv[] =
#include "render_shade.spv.inc"
    ;
static const uint32_t gather_spv[] =
#include "render_gather.spv.inc"
    ;
static const uint32_t tri_spv[] =
#include "render_tri.spv.inc"
    ;
static const uint32_t tri_gather_spv[] =
#include "render_tri_gather.spv.inc"
    ;

/* render.glsl's gather push block: count and id_base are spheres or
 * triangles; vertices, the set's particles, only the triangle gather reads. */
typedef struct gather_push {
    uint32_t count, id_base, mode, vertices;
    float lo, span, value, pad2;
} gather_push;

/* A triangle in the renderer's list: 3 vec4 (render_tri_gather.comp). */
#define TRI_BYTES 48u

typedef struct render_cam {
    float eye[4], forward[4], right[4], up[4];
    uint32_t count, id_base, set, pad;
} render_cam;

struct eddy_renderer {
    eddy_engine *e;
    uint32_t width, height, capacity, count;
    uint32_t tri_capacity, tri_count; /* triangles */
    render_cam cam;     /* the spheres' passes and shade: count = spheres */
    render_cam tri_cam; /* the triangles' passes: count = triangles, id_base = spheres */
    eddy_kernel depth_k, claim_k, shade_k, gather_k, tri_depth_k, tri_claim_k, tri_gather_k;
    eddy_buffer spheres, scalars, depth, ids, image, tris;
    eddy_graph g;
    /* The sets the graph gathers (eddy_render_sets); none for eddy_render. */
    eddy_render_set *sets;
    uint32_t set_count, extra;
};

static void normalize3(float *v)
{
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > 0)
        v[0] /= l, v[1] /= l, v[2] /= l;
}

static void cross3(const float *a, const float *b, float *out)
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

eddy_renderer *eddy_create_renderer(eddy_engine *e, const eddy_render_desc *d)
{
    if (!d || d->width < 1 || d->height < 1 || d->width > 8192 || d->height > 8192 ||
        !(d->fov_deg > 0 && d->fov_deg < 179)) {
        eddy_log(e, EDDY_LOG_ERROR, "render.invalid", "renderer: image size must be 1..8192 px a side and the "
                 "field of view in (0, 179) degrees");
        return NULL;
    }
    float f[3] = { d->target[0] - d->eye[0], d->target[1] - d->eye[1], d->target[2] - d->eye[2] };
    float r[3], u[3];
    normalize3(f);
    cross3(f, d->up, r);
    normalize3(r);
    cross3(r, f, u);
    if (!(fabsf(r[0]) + fabsf(r[1]) + fabsf(r[2]) > 0.5f)) {
        eddy_log(e, EDDY_LOG_ERROR, "render.invalid", "renderer: the camera's up vector is parallel to its view "
                 "direction (or eye equals target)");
        return NULL;
    }
    eddy_renderer *rd = calloc(1, sizeof *rd);
    if (!rd)
        return NULL;
    rd->e = e;
    rd->width = d->width;
    rd->height = d->height;
    for (int a = 0; a < 3; a++) {
        rd->cam.eye[a] = d->eye[a];
        rd->cam.forward[a] = f[a];
        rd->cam.right[a] = r[a];
        rd->cam.up[a] = u[a];
    }
    rd->cam.eye[3] = tanf(d->fov_deg * 0.5f * 3.14159265f / 180.0f);
    rd->cam.forward[3] = (float)d->width / (float)d->height;
    rd->cam.right[3] = (float)d->width;
    rd->cam.up[3] = (float)d->height;
    uint64_t pixels = (uint64_t)d->width * d->height;
    rd->depth_k = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "eddy.render.depth", EDDY_SPIRV(splat_spv),
                                                            .specialization = { { 1, 0 } }, .specialization_count = 1 });
    rd->claim_k = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "eddy.render.claim", EDDY_SPIRV(splat_spv),
                                                            .specialization = { { 1, 1 } }, .specialization_count = 1 });
    rd->shade_k = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "eddy.render.shade", EDDY_SPIRV(shade_spv) });
    rd->gather_k = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "eddy.render.gather", EDDY_SPIRV(gather_spv) });
    rd->tri_depth_k = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "eddy.render.tri_depth", EDDY_SPIRV(tri_spv),
                                                                .specialization = { { 1, 0 } }, .specialization_count = 1 });
    rd->tri_claim_k = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "eddy.render.tri_claim", EDDY_SPIRV(tri_spv),
                                                                .specialization = { { 1, 1 } }, .specialization_count = 1 });
    rd->tri_gather_k = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "eddy.render.tri_gather",
                                                                 EDDY_SPIRV(tri_gather_spv) });
    rd->depth = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = pixels * 4, .label = "render.depth" });
    rd->ids = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = pixels * 4, .label = "render.ids" });
    rd->image = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = pixels * 4, .label = "render.image" });
    if (!rd->depth_k.id || !rd->claim_k.id || !rd->shade_k.id || !rd->gather_k.id || !rd->tri_depth_k.id ||
        !rd->tri_claim_k.id || !rd->tri_gather_k.id || !rd->depth.id || !rd->ids.id || !rd->image.id) {
        eddy_destroy_renderer(e, rd);
        return NULL;
    }
    return rd;
}

void eddy_destroy_renderer(eddy_engine *e, eddy_renderer *r)
{
    if (!r)
        return;
    eddy_destroy_graph(e, r->g);
    eddy_destroy_kernel(e, r->depth_k);
    eddy_destroy_kernel(e, r->claim_k);
    eddy_destroy_kernel(e, r->shade_k);
    eddy_destroy_kernel(e, r->gather_k);
    eddy_destroy_kernel(e, r->tri_depth_k);
    eddy_destroy_kernel(e, r->tri_claim_k);
    eddy_destroy_kernel(e, r->tri_gather_k);
    free(r->sets);
    eddy_buffer b[] = { r->spheres, r->scalars, r->depth, r->ids, r->image, r->tris };
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
        eddy_destroy_buffer(e, b[i]);
    free(r);
}

/* (Re)records the graph for n spheres, the first gathered from `sets` on
 * the device, and tri_n triangles, all from `sets`; buffers grow, never
 * shrink. Both lists always exist (the shade pass binds them). */
static eddy_result prepare(eddy_renderer *r, uint32_t n, uint32_t tri_n, const eddy_render_set *sets,
                           uint32_t set_count)
{
    eddy_engine *e = r->e;
    if (r->g.id && n == r->count && tri_n == r->tri_count && set_count == r->set_count &&
        (!set_count || !memcmp(sets, r->sets, set_count * sizeof *sets)))
        return EDDY_OK;
    /* The old graph binds buffers that may go now; none until the new one
     * is recorded, so a failure here is not followed by a stale replay. */
    eddy_destroy_graph(e, r->g);
    r->g = (eddy_graph){ 0 };
    if (n > r->capacity || !r->spheres.id) {
        eddy_destroy_buffer(e, r->spheres);
        eddy_destroy_buffer(e, r->scalars);
        /* Grown by half again, in 64 bits (n may be near UINT32_MAX). */
        uint64_t cap = (uint64_t)n + n / 2 + 16;
        r->capacity = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
        r->spheres = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 16ull * r->capacity, .label = "render.spheres" });
        r->scalars = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 4ull * r->capacity, .label = "render.scalars" });
        if (!r->spheres.id || !r->scalars.id) {
            r->capacity = 0;
            return EDDY_ERROR_OUT_OF_MEMORY;
        }
    }
    if (tri_n > r->tri_capacity || !r->tris.id) {
        eddy_destroy_buffer(e, r->tris);
        uint64_t cap = (uint64_t)tri_n + tri_n / 2 + 16;
        r->tri_capacity = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
        r->tris = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = (uint64_t)TRI_BYTES * r->tri_capacity,
                                                             .label = "render.triangles" });
        if (!r->tris.id) {
            r->tri_capacity = 0;
            return EDDY_ERROR_OUT_OF_MEMORY;
        }
    }
    eddy_render_set *copy = set_count ? malloc(set_count * sizeof *copy) : NULL;
    if (set_count && !copy)
        return EDDY_ERROR_OUT_OF_MEMORY;
    if (set_count)
        memcpy(copy, sets, set_count * sizeof *copy);
    free(r->sets);
    r->sets = copy;
    r->set_count = set_count;
    r->count = n;
    r->cam.count = n;
    r->tri_count = tri_n;
    r->tri_cam = r->cam;
    r->tri_cam.count = tri_n;
    r->tri_cam.id_base = n;
    uint32_t pixels = r->width * r->height;
    r->g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "render" });
    eddy_result res = eddy_fill_record(e, r->g, r->depth, 0, pixels, 0xffffffffu);
    if (res == EDDY_OK)
        res = eddy_fill_record(e, r->g, r->ids, 0, pixels, 0xffffffffu);
    int rc = res == EDDY_OK ? 0 : -1;
    uint32_t base = 0, tri_base = 0;
    for (uint32_t i = 0; i < set_count && rc >= 0; i++) {
        const eddy_render_set *st = &sets[i];
        if (st->triangle_count) {
            gather_push gp = { st->triangle_count, tri_base, st->mode, st->count, st->lo, st->span, st->value, 0 };
            rc = eddy_graph_add_pass(e, r->g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
                .label = "eddy.render.tri_gather", .kernel = r->tri_gather_k, .threads = st->triangle_count,
                .bindings = { { st->position, EDDY_READ }, { st->velocity, EDDY_READ }, { st->density, EDDY_READ },
                              { st->phase, EDDY_READ }, { st->triangles, EDDY_READ }, { r->tris, EDDY_WRITE } },
                .push = &gp, .push_size = sizeof gp });
            tri_base += st->triangle_count;
            continue;
        }
        gather_push gp = { st->count, base, st->mode, st->count, st->lo, st->span, st->value, 0 };
        if (st->count)
            rc = eddy_graph_add_pass(e, r->g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
                .label = "eddy.render.gather", .kernel = r->gather_k, .threads = st->count,
                .bindings = { { st->position, EDDY_READ }, { st->velocity, EDDY_READ }, { st->density, EDDY_READ },
                              { st->phase, EDDY_READ }, { r->spheres, EDDY_WRITE }, { r->scalars, EDDY_WRITE } },
                .push = &gp, .push_size = sizeof gp });
        base += st->count;
    }
    /* The splat passes run one SPIR-V a kind (mode by specialization
     * constant), whose depth and id blocks are plain `buffer`: each pass
     * declares the one it does not write READ_WRITE, as the declared-access
     * check asks. The two depth passes, then the two claim passes, run back
     * to back on their ATOMIC buffer: atomicMin commutes, no barrier needed. */
    if (rc >= 0 && n)
        rc = eddy_graph_add_pass(e, r->g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "eddy.render.depth", .kernel = r->depth_k, .threads = n,
            .bindings = { { r->spheres, EDDY_READ }, { r->depth, EDDY_ATOMIC }, { r->ids, EDDY_READ_WRITE } },
            .push = &r->cam, .push_size = sizeof r->cam });
    if (rc >= 0 && tri_n)
        rc = eddy_graph_add_pass(e, r->g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "eddy.render.tri_depth", .kernel = r->tri_depth_k, .threads = tri_n,
            .bindings = { { r->tris, EDDY_READ }, { r->depth, EDDY_ATOMIC }, { r->ids, EDDY_READ_WRITE } },
            .push = &r->tri_cam, .push_size = sizeof r->tri_cam });
    if (rc >= 0 && n)
        rc = eddy_graph_add_pass(e, r->g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "eddy.render.claim", .kernel = r->claim_k, .threads = n,
            .bindings = { { r->spheres, EDDY_READ }, { r->depth, EDDY_READ_WRITE }, { r->ids, EDDY_ATOMIC } },
            .push = &r->cam, .push_size = sizeof r->cam });
    if (rc >= 0 && tri_n)
        rc = eddy_graph_add_pass(e, r->g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "eddy.render.tri_claim", .kernel = r->tri_claim_k, .threads = tri_n,
            .bindings = { { r->tris, EDDY_READ }, { r->depth, EDDY_READ_WRITE }, { r->ids, EDDY_ATOMIC } },
            .push = &r->tri_cam, .push_size = sizeof r->tri_cam });
    if (rc >= 0)
        rc = eddy_graph_add_pass(e, r->g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "eddy.render.shade", .kernel = r->shade_k, .threads = pixels,
            .bindings = { { r->spheres, EDDY_READ }, { r->scalars, EDDY_READ }, { r->ids, EDDY_READ },
                          { r->image, EDDY_WRITE }, { r->tris, EDDY_READ } },
            .push = &r->cam, .push_size = sizeof r->cam });
    if (rc < 0) { /* never replay a half-recorded graph */
        eddy_destroy_graph(e, r->g);
        r->g = (eddy_graph){ 0 };
        return EDDY_ERROR_VULKAN;
    }
    return EDDY_OK;
}

eddy_result eddy_render(eddy_engine *e, eddy_renderer *r, const float *spheres,
                        const float *scalars, uint32_t n, uint8_t *rgba)
{
    eddy_result res = prepare(r, n, 0, NULL, 0);
    if (res == EDDY_OK && n)
        res = eddy_buffer_upload(e, r->spheres, 0, 16ull * n, spheres);
    if (res == EDDY_OK && n)
        res = eddy_buffer_upload(e, r->scalars, 0, 4ull * n, scalars);
    if (res == EDDY_OK)
        res = eddy_graph_run(e, r->g, 1);
    if (res == EDDY_OK)
        res = eddy_buffer_download(e, r->image, 0, 4ull * r->width * r->height, rgba);
    return res;
}

eddy_result eddy_render_sets(eddy_engine *e, eddy_renderer *r, const eddy_render_set *sets, uint32_t set_count,
                             const float *extra_spheres, const float *extra_scalars, uint32_t extra,
                             uint8_t *rgba)
{
    /* A set with triangles is drawn as them, not as spheres. Sums in 64 bits:
     * every id (spheres, then triangles) stays below the empty pixel's
     * 0xffffffff, and a triangle's vec4 index (3 a triangle) in 32 bits. */
    uint64_t n = extra, tri_n = 0;
    for (uint32_t i = 0; i < set_count; i++) {
        if (!sets[i].triangle_count) {
            n += sets[i].count;
            continue;
        }
        /* The gather reads 3 indices a triangle: a short buffer would be
         * read past its end on the device. */
        uint64_t need = 12ull * sets[i].triangle_count;
        if (eddy_buffer_size(e, sets[i].triangles) < need) {
            eddy_log(e, EDDY_LOG_ERROR, "render.invalid", "renderer: set %u's triangle buffer holds %" PRIu64
                     " bytes, less than the %" PRIu64 " of its %u triangles (3 uint32 indices each)", i,
                     eddy_buffer_size(e, sets[i].triangles), need, sets[i].triangle_count);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        tri_n += sets[i].triangle_count;
    }
    if (n + tri_n >= UINT32_MAX || tri_n > UINT32_MAX / 3) {
        eddy_log(e, EDDY_LOG_ERROR, "scene.too_large", "renderer: %" PRIu64 " spheres and %" PRIu64 " triangles are "
                 "too many for one frame (at most %u in all, %u of them triangles)", n, tri_n, UINT32_MAX - 1,
                 UINT32_MAX / 3);
        return EDDY_ERROR_LIMIT;
    }
    eddy_result res = prepare(r, (uint32_t)n, (uint32_t)tri_n, sets, set_count);
    uint64_t base = n - extra;
    /* The few extra spheres (tools) ride on the frame's own submission. */
    if (res == EDDY_OK && extra)
        res = eddy_buffer_stage_write(e, r->spheres, 16 * base, 16ull * extra, extra_spheres);
    if (res == EDDY_OK && extra)
        res = eddy_buffer_stage_write(e, r->scalars, 4 * base, 4ull * extra, extra_scalars);
    if (res == EDDY_OK)
        res = eddy_graph_run(e, r->g, 1);
    if (res == EDDY_OK)
        res = eddy_buffer_download(e, r->image, 0, 4ull * r->width * r->height, rgba);
    return res;
}

eddy_result eddy_write_png(eddy_engine *e, const char *path, const uint8_t *rgba, uint32_t w,
                           uint32_t h)
{
    char tmp[4300], err[512];
    FILE *f = eddy_atomic_open(path, tmp, sizeof tmp);
    if (!f) {
        eddy_log(e, EDDY_LOG_ERROR, "output.write", "cannot create '%s': %s", tmp, strerror(errno));
        return EDDY_ERROR_IO;
    }
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_bytep *rows = malloc(sizeof *rows * h);
    if (!png || !info || !rows || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(rows);
        fclose(f);
        remove(tmp);
        eddy_log(e, EDDY_LOG_ERROR, "output.write", "writing '%s' failed (libpng)", path);
        return EDDY_ERROR_IO;
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (uint32_t y = 0; y < h; y++)
        rows[y] = (png_bytep)(rgba + 4ull * w * y);
    png_write_image(png, rows);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(rows);
    if (eddy_atomic_close(f, tmp, path, err, sizeof err) != 0) {
        eddy_log(e, EDDY_LOG_ERROR, "output.write", "%s", err);
        return EDDY_ERROR_IO;
    }
    return EDDY_OK;
}
