/* The module "volume": one eddy_volume renderer as a scene system. It adds
 * no pass to the step; at every output frame it draws the set as it is
 * then and writes "<system>_<frame>.png" (the premultiplied image over the
 * background). Several systems on one set give several views; a host's
 * camera gets one more (view: eddy view draws it). */
#include "volume.h"

#include "eddy/eddy_checkpoint.h"
#include "eddy/eddy_output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    P_WIDTH,
    P_HEIGHT,
    P_EYE,
    P_TARGET,
    P_UP,
    P_FOV,
    P_TRANSFER,
    P_SCALAR_RANGE,
    P_OPACITY_UNIT,
    P_MAX_SEGMENT,
    P_TABLE_SCALARS,
    P_TABLE_LENGTHS,
    P_CUTOFF,
    P_POINT_SAMPLING,
    P_BACKGROUND,
    P_ENTRY_SLOTS,
    P_COUNT
};

static const eddy_param_info params[P_COUNT] = {
    [P_WIDTH] = { "width", EDDY_PARAM_INT, "px", { 640 }, 1, 16384, "image width" },
    [P_HEIGHT] = { "height", EDDY_PARAM_INT, "px", { 480 }, 1, 16384, "image height" },
    [P_EYE] = { "eye", EDDY_PARAM_VEC3, "m", { 0, 0, 0 }, -1e30, 1e30,
                "camera position; eye = target (the default): the set's bounding box seen from the front, a "
                "little from above and the right, as output.images does with the box" },
    [P_TARGET] = { "target", EDDY_PARAM_VEC3, "m", { 0, 0, 0 }, -1e30, 1e30, "the point the camera looks at" },
    [P_UP] = { "up", EDDY_PARAM_VEC3, "1", { 0, 1, 0 }, -1e30, 1e30, "camera up (not parallel to the view)" },
    [P_FOV] = { "fov", EDDY_PARAM_FLOAT, "deg", { 40 }, 1, 170, "vertical field of view" },
    [P_TRANSFER] = { "transfer_function", EDDY_PARAM_LIST, "1", { 5, EDDY_VOLUME_MAX_TF }, -1e30, 1e30,
                     "points [s, r, g, b, a] by ascending scalar s: colour and opacity (a: the fraction a slab "
                     "opacity_unit thick absorbs), linear between points; none: from transparent blue at the "
                     "scalar's lowest to half-opaque orange at its highest" },
    [P_SCALAR_RANGE] = { "scalar_range", EDDY_PARAM_VEC3, "1", { 0, 0, 0 }, -1e30, 1e30,
                         "[low, high, -]: the pre-integration table's scalar range; [0, 0]: the transfer "
                         "function's first and last points" },
    [P_OPACITY_UNIT] = { "opacity_unit", EDDY_PARAM_FLOAT, "m", { 0 }, 0, 1e9,
                         "the slab thickness opacities refer to; 0: the mean tet edge length at creation" },
    [P_MAX_SEGMENT] = { "max_segment", EDDY_PARAM_FLOAT, "m", { 0 }, 0, 1e9,
                        "the table's longest segment (longer ones are cut); 0: twice the longest tet edge" },
    [P_TABLE_SCALARS] = { "table_scalars", EDDY_PARAM_INT, "1", { 256 }, 2, 1024,
                          "table texels along each scalar axis" },
    [P_TABLE_LENGTHS] = { "table_lengths", EDDY_PARAM_INT, "1", { 32 }, 2, 1024, "table texels along the length axis" },
    [P_CUTOFF] = { "cutoff", EDDY_PARAM_FLOAT, "1", { 0.999 }, 1e-6, 1, "opacity at which a ray stops" },
    [P_POINT_SAMPLING] = { "point_sampling", EDDY_PARAM_BOOL, "1", { 0 }, 0, 1,
                           "take the transfer function at each segment's middle instead of the table" },
    [P_BACKGROUND] = { "background", EDDY_PARAM_VEC3, "1", { 1, 1, 1 }, 0, 1,
                       "the PNG's background colour behind the volume" },
    [P_ENTRY_SLOTS] = { "entry_slots", EDDY_PARAM_INT, "1", { 8 }, 1, 64,
                        "boundary faces a pixel's list keeps (8 bytes each a pixel); a pixel whose ray enters "
                        "the mesh through more searches the BVH instead (same image, slower)" },
};

static const char *const shared[] = { "position", "scalar" };

typedef struct vsys {
    eddy_engine *e;
    char name[128], view_label[160];
    eddy_volume *v;
    eddy_volume_desc desc; /* as created: a host's view takes the same but for size and camera */
    float tf[5 * EDDY_VOLUME_MAX_TF];
    uint32_t width, height;
    float background[3];
    uint32_t guard_steps, guard_stalled, bvh_pixels; /* the last frame's */
    eddy_volume *view;     /* a host's view (eddy_scene_system_view), its graph and camera */
    eddy_graph view_graph;
    eddy_volume_camera view_camera;
} vsys;

static void drop_view(vsys *s)
{
    if (s->view_graph.id)
        eddy_destroy_graph(s->e, s->view_graph);
    eddy_destroy_volume(s->e, s->view);
    s->view_graph = (eddy_graph){ 0 };
    s->view = NULL;
}

static void destroy(void *state)
{
    vsys *s = state;
    if (!s)
        return;
    drop_view(s);
    eddy_destroy_volume(s->e, s->v);
    free(s);
}

static eddy_result create(const eddy_system_ctx *ctx, void **state)
{
    eddy_engine *e = ctx->engine;
    const eddy_param_value *pv = ctx->params;
    vsys *s = calloc(1, sizeof *s);
    if (!s)
        return EDDY_ERROR_OUT_OF_MEMORY;
    *state = s;
    s->e = e;
    snprintf(s->name, sizeof s->name, "%s", ctx->name);
    s->width = (uint32_t)pv[P_WIDTH].v[0];
    s->height = (uint32_t)pv[P_HEIGHT].v[0];
    for (int k = 0; k < 3; k++)
        s->background[k] = (float)pv[P_BACKGROUND].v[k];
    /* eye = target and no transfer function: eddy_create_volume's defaults
     * from the rest state. */
    eddy_volume_camera cam = { .fov_deg = (float)pv[P_FOV].v[0] };
    for (int k = 0; k < 3; k++) {
        cam.eye[k] = (float)pv[P_EYE].v[k];
        cam.target[k] = (float)pv[P_TARGET].v[k];
        cam.up[k] = (float)pv[P_UP].v[k];
    }
    const eddy_param_list *list = EDDY_SYSTEM_CTX_HAS(ctx, lists) && ctx->lists ? &ctx->lists[P_TRANSFER] : NULL;
    uint32_t tn = list ? list->count : 0;
    for (uint32_t k = 0; k < 5 * tn; k++)
        s->tf[k] = (float)list->values[k];
    s->desc = (eddy_volume_desc){
        .label = s->name,
        .set = ctx->particles,
        .width = s->width,
        .height = s->height,
        .camera = cam,
        .transfer = tn ? s->tf : NULL,
        .transfer_count = tn,
        .scalar_min = (float)pv[P_SCALAR_RANGE].v[0],
        .scalar_max = (float)pv[P_SCALAR_RANGE].v[1],
        .opacity_unit = (float)pv[P_OPACITY_UNIT].v[0],
        .max_segment = (float)pv[P_MAX_SEGMENT].v[0],
        .table_scalars = (uint32_t)pv[P_TABLE_SCALARS].v[0],
        .table_lengths = (uint32_t)pv[P_TABLE_LENGTHS].v[0],
        .cutoff = (float)pv[P_CUTOFF].v[0],
        .point_sampling = pv[P_POINT_SAMPLING].v[0] != 0,
        .entry_slots = (uint32_t)pv[P_ENTRY_SLOTS].v[0],
    };
    s->v = eddy_create_volume(e, &s->desc);
    return s->v ? EDDY_OK : EDDY_ERROR_INVALID_ARGUMENT;
}

/* A host's view: a renderer of its own at the view's size (made again when
 * the size changes), the system's parameters otherwise; the camera when it
 * changed. The table is the same bits as the system's own (same parameters). */
static eddy_result view(void *state, const eddy_system_view_desc *d, eddy_system_view *out)
{
    vsys *s = state;
    eddy_volume_camera cam = { .fov_deg = d->fov_deg };
    for (int k = 0; k < 3; k++)
        cam.eye[k] = d->eye[k], cam.target[k] = d->target[k], cam.up[k] = d->up[k];
    eddy_result res = EDDY_OK;
    const struct eddy_volume_params *p = s->view ? eddy_volume_params_of(s->view) : NULL;
    if (!p || (uint32_t)p->right[3] != d->width || (uint32_t)p->up[3] != d->height) {
        drop_view(s);
        snprintf(s->view_label, sizeof s->view_label, "%s.view", s->name);
        eddy_volume_desc vd = s->desc;
        vd.label = s->view_label;
        vd.width = d->width, vd.height = d->height, vd.camera = cam;
        s->view = eddy_create_volume(s->e, &vd);
        if (!s->view)
            return EDDY_ERROR_INVALID_ARGUMENT;
        s->view_graph = eddy_create_graph(s->e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = s->view_label });
        res = s->view_graph.id ? eddy_volume_record(s->e, s->view, s->view_graph) : EDDY_ERROR_OUT_OF_MEMORY;
        if (res != EDDY_OK) {
            drop_view(s);
            return res;
        }
    } else if (memcmp(&cam, &s->view_camera, sizeof cam))
        res = eddy_volume_set_camera(s->e, s->view, &cam); /* an upload: only when the camera moved */
    if (res == EDDY_OK)
        s->view_camera = cam;
    if (res == EDDY_OK) {
        out->graph = s->view_graph;
        out->color = eddy_volume_color(s->view);
        out->depth = eddy_volume_depth(s->view);
    }
    return res;
}

static eddy_result declare_step(void *state, eddy_graph step)
{
    (void)state, (void)step;
    return EDDY_OK; /* drawing is per frame (write_frame), not per step */
}

static void stats(void *state, eddy_stats *st)
{
    const vsys *s = state;
    eddy_stats_add(st, "rays_at_step_guard", s->guard_steps);
    eddy_stats_add(st, "rays_stalled", s->guard_stalled);
    eddy_stats_add(st, "pixels_through_bvh", s->bvh_pixels);
}

static uint8_t to8(float x)
{
    x = x < 0 ? 0 : x > 1 ? 1 : x;
    return (uint8_t)(x * 255.0f + 0.5f);
}

static eddy_result write_frame(void *state, const eddy_frame_ctx *f)
{
    vsys *s = state;
    size_t px = (size_t)s->width * s->height;
    float *img = malloc(16 * px);
    uint8_t *rgba = malloc(4 * px);
    eddy_result res = img && rgba ? eddy_volume_render(s->e, s->v) : EDDY_ERROR_OUT_OF_MEMORY;
    if (res == EDDY_OK)
        res = eddy_volume_read(s->e, s->v, img, NULL);
    if (res == EDDY_OK)
        res = eddy_volume_read_guards(s->e, s->v, &s->guard_steps, &s->guard_stalled, &s->bvh_pixels);
    for (size_t i = 0; res == EDDY_OK && i < px; i++) {
        const float *c = img + 4 * i;
        for (int k = 0; k < 3; k++)
            rgba[4 * i + k] = to8(c[k] + (1.0f - c[3]) * s->background[k]);
        rgba[4 * i + 3] = 255;
    }
    char path[4200];
    if (res == EDDY_OK) {
        int w = snprintf(path, sizeof path, "%s/%s_%06u.png", f->out_dir, s->name, f->frame);
        res = w > 0 && (size_t)w < sizeof path ? eddy_write_png(s->e, path, rgba, s->width, s->height)
                                               : EDDY_ERROR_IO;
    }
    free(img);
    free(rgba);
    return res;
}

/* State: none of the step (it draws, it does not move anything); the
 * last frame's ray counters, which the next frame's statistics report. */
static eddy_result checkpoint(void *state, eddy_checkpoint *cp)
{
    vsys *s = state;
    uint32_t g[3] = { s->guard_steps, s->guard_stalled, s->bvh_pixels };
    eddy_result r = eddy_checkpoint_values(cp, "ray_counters", g, EDDY_STATE_U32, 1, 3, "1");
    if (r == EDDY_OK && eddy_checkpoint_restoring(cp))
        s->guard_steps = g[0], s->guard_stalled = g[1], s->bvh_pixels = g[2];
    return r;
}

static const eddy_module_desc desc = {
    EDDY_MODULE_DESC_VERSION,
    .name = "volume",
    .version = "0.1",
    .summary = "ray casting of a (deforming) tet mesh's scalar with a pre-integrated transfer function "
               "(Tejada & Ertl 2005 section 5, Weiler et al. 2003)",
    .params = params,
    .param_count = P_COUNT,
    .shared_buffers = shared,
    .shared_buffer_count = sizeof shared / sizeof shared[0],
    .create = create,
    .destroy = destroy,
    .declare_step = declare_step,
    .stats = stats,
    .write_frame = write_frame,
    .view = view,
    .checkpoint = checkpoint,
};

const eddy_module_desc *eddy_volume_module(void)
{
    return &desc;
}
