/* volume: single-pass ray casting of (deforming) tetrahedral meshes with a
 * pre-integrated transfer function (seed 003 section 5, after Weiler et
 * al.). See README.md for the passes and the parameters.
 *
 * A renderer (eddy_volume) draws one view of one particle set that has a
 * "tets" element set (EDDY_TETRAHEDRA) from the device buffers every frame:
 * its "position" buffer (vec4, m) and a per-vertex scalar (float). The
 * module "volume" wraps one renderer as a scene system that writes PNG
 * frames; a host uses the C API below and draws from the images. */
#ifndef EDDY_VOLUME_H
#define EDDY_VOLUME_H

#include "eddy/eddy_module.h"
#include "volume_params.h"

#ifdef __cplusplus
extern "C" {
#endif

const eddy_module_desc *eddy_volume_module(void);

typedef struct eddy_volume eddy_volume;

/* A view: the particle renderer's conventions (scene "output.images"). */
typedef struct eddy_volume_camera {
    float eye[3];    /* m; anywhere, inside the mesh too (rays start in the tet that holds it) */
    float target[3]; /* m; not equal to eye */
    float up[3];     /* need not be orthogonal to the view, not parallel to it */
    float fov_deg;   /* vertical field of view, (0, 179) degrees */
} eddy_volume_camera;

typedef struct eddy_volume_desc {
    const char *label;          /* names the renderer's buffers and passes; default "volume" */
    eddy_particles set;         /* required: has "position" and a "tets" element set */
    const char *scalar;         /* the set's per-vertex float buffer drawn; default "scalar" */
    uint32_t width, height;     /* px, required, each 1..16384, width x height x 16 bytes within
                                   the device's storage buffer and image limits */
    eddy_volume_camera camera;  /* checked as documented there; eye equal to target (all
                                   zero, say): the rest mesh's bounding box seen from
                                   (0.35, 0.45, 1), far enough to hold it, with this up (+y
                                   when zero) and fov_deg (40 when 0) */
    /* The transfer function: points (s, r, g, b, a) by ascending s (equal s
     * make a step): colour r, g, b in [0, 1] and opacity a in [0, 1], the
     * fraction of light a slab `opacity_unit` thick absorbs (as VTK's grid
     * mappers with ScalarOpacityUnitDistance = opacity_unit; VTK's
     * tetrahedral ray caster reads opacity as attenuation per metre:
     * eddy_volume_opacity_to_attenuation converts), each linear in s between points and constant
     * beyond the ends. Copied. 1..EDDY_VOLUME_MAX_TF points. NULL: from
     * transparent blue at the rest scalar's lowest value to half-opaque
     * orange at its highest (transfer_count ignored). */
    const float *transfer;
    uint32_t transfer_count;
    float scalar_min, scalar_max; /* the table's scalar range (scalars beyond are clamped);
                                     both 0: the transfer function's first and last s
                                     (a single point: s - 1 .. s + 1) */
    float opacity_unit;         /* m; 0 = the mean tet edge length at creation */
    float max_segment;          /* m, the table's longest segment (longer ones are cut in
                                   pieces); 0 = twice the longest tet edge at creation */
    uint32_t table_scalars;     /* texels per scalar axis of the table; 0 = 256 (2..1024) */
    uint32_t table_lengths;     /* texels along the length axis; 0 = 32 (2..1024) */
    float cutoff;               /* opacity at which a ray stops; 0 = 0.999 (0..1] */
    uint32_t max_steps;         /* tets a ray crosses at most (a guard); 0 = the tet count
                                   + 64 */
    bool point_sampling;        /* a segment takes the transfer function at its middle
                                   scalar instead of the table (for comparison) */
    uint32_t entry_slots;       /* boundary faces each pixel's list keeps (volume.raster);
                                   0 = 8 (1..64); 8 bytes each, per pixel, and at most what
                                   fits the device's maxStorageBufferRange (none, when one
                                   does not: every pixel searches the BVH). A pixel whose
                                   ray enters the mesh through more faces searches the BVH
                                   instead: the same image, more slowly */
    float bounds_min[3], bounds_max[3]; /* m: the box the Morton codes quantise (only the
                                   BVH's quality depends on it); all zero = the rest
                                   mesh's bounding box grown by half its size a side */
    /* Optional: the host's images drawn into (an eddy_image, adopted from
     * the host or made with eddy_create_image, width x height, with
     * EDDY_IMAGE_STORAGE): colour EDDY_FORMAT_RGBA32F (premultiplied colour
     * and opacity), depth EDDY_FORMAT_R32F (m along the view ray to the
     * first hit, +inf where the ray misses); another format or size is
     * refused. Zero handles: the renderer makes its own. */
    eddy_image color_image, depth_image;
} eddy_volume_desc;

/* Builds the neighbour table and boundary faces on the CPU (a face shared
 * by three tets, an inverted or flat tet, an empty mesh are refused with a
 * message naming the tet), the transfer function's table on the GPU (run
 * once here), the buffers and kernels. NULL after a message. */
eddy_volume *eddy_create_volume(eddy_engine *e, const eddy_volume_desc *desc);
/* Deferred like buffers (the GPU may still draw). */
void eddy_destroy_volume(eddy_engine *e, eddy_volume *v);
/* A new view for the next frames (uploaded now; checked as at creation). */
eddy_result eddy_volume_set_camera(eddy_engine *e, eddy_volume *v, const eddy_volume_camera *camera);
/* Adds a frame's passes to g: volume.geometry (planes and gradients),
 * volume.keys, the sort, volume.leaves and volume.level (the BVH), and
 * volume.cast into the images. A host records them after its step. */
eddy_result eddy_volume_record(eddy_engine *e, eddy_volume *v, eddy_graph g);
/* Runs the renderer's own graph of those passes and waits for it. */
eddy_result eddy_volume_render(eddy_engine *e, eddy_volume *v);
eddy_image eddy_volume_color(const eddy_volume *v);
eddy_image eddy_volume_depth(const eddy_volume *v);
/* The table (RGBA32F, table_scalars^2 x table_lengths texels, front scalar
 * fastest, then back scalar, then length): per (s_f, s_b, d) the colour
 * over the opacity (rgb: C / alpha, the limit for d -> 0 in layer 0) and
 * the optical depth T (alpha = 1 - exp(-T)), both smooth in d where
 * alpha is not: T is linear in d, so sampling between layers is exact for
 * the opacity. Texel k along the length axis is d = k max_segment /
 * (lengths - 1). */
eddy_image eddy_volume_table(const eddy_volume *v);
/* Downloads the last frame: rgba (width x height x 4 floats, rows top to
 * bottom) and/or depth (width x height floats); either may be NULL. Only
 * for the renderer's own RGBA32F/R32F images (a host's image: the host
 * reads it). */
eddy_result eddy_volume_read(eddy_engine *e, eddy_volume *v, float *rgba, float *depth);
/* Statistics of the last frame's rays (downloaded): rays that stopped at the
 * step guard or stalled on zero-length segments, and pixels whose list of
 * entry faces overflowed (entry_slots), so they searched the BVH. Any
 * pointer may be NULL. */
eddy_result eddy_volume_read_guards(eddy_engine *e, eddy_volume *v, uint32_t *max_steps_hit,
                                    uint32_t *stalled, uint32_t *bvh_pixels);
/* The parameter block as uploaded (for the C twins in the tests). */
const struct eddy_volume_params *eddy_volume_params_of(const eddy_volume *v);

/* ---------------------------------------------------------- C references */

/* The neighbour table (eddy_tet_neighbours: 4 per tet, the tet across face
 * i, opposite vertex i, as tet << 2 | its face, or EDDY_VOLUME_BOUNDARY) and
 * the boundary faces (tet << 2 | face, ascending; *boundary malloc'd). 0,
 * or -1 with a message in err (a face of three tets, an index out of
 * range). */
int eddy_volume_topology(const uint32_t *tets, uint32_t tet_count, uint32_t vertex_count,
                         uint32_t *neighbours, uint32_t **boundary, uint32_t *boundary_count,
                         char *err, size_t err_cap);
/* volume.geometry's twin: per tet 4 planes (vec4: outward unit normal of
 * face i, n . x on the face) and the gradient (vec4: g, g-hat). */
void eddy_volume_geometry_cpu(const float *position, const float *scalar, const uint32_t *tets,
                              uint32_t tet_count, float *planes, float *gradient);
/* volume.geometry's point location, from its planes: the lowest tet that
 * holds eye (within the planes' rounding; flat tets never), where every ray
 * of volume.cast starts, or EDDY_VOLUME_NONE when the eye is outside. */
uint32_t eddy_volume_locate_cpu(const float *position, const uint32_t *tets, uint32_t tet_count, const float *planes,
                                const float eye[3]);
/* VTK's opacity conventions. eddy's opacity a is the fraction of light a
 * slab opacity_unit = u metres thick absorbs: what VTK's grid mappers
 * (vtkGPUVolumeRayCastMapper, vtkFixedPointVolumeRayCastMapper) take with
 * the volume property's ScalarOpacityUnitDistance = u. VTK's tetrahedral
 * ray caster (vtkUnstructuredGridVolumeRayCastMapper) reads its opacity as
 * an attenuation sigma per metre instead, so the same number shows
 * another image; the conversions, exact for any slab length L (the light
 * left is exp(-sigma L) = (1 - a)^(L / u)):
 *   sigma = -ln(1 - a) / u,    a = 1 - exp(-sigma u). */
double eddy_volume_opacity_to_attenuation(double a, double unit);
double eddy_volume_opacity_from_attenuation(double sigma, double unit);
/* The transfer function at s: colour and extinction (1/m). */
void eddy_volume_tf_cpu(const float *transfer, uint32_t count, float opacity_unit, float s,
                        float color[3], float *extinction);
/* Brute force: a segment whose scalar goes linearly from sf to sb over d
 * metres, by `steps` midpoint slabs each absorbing exactly (double):
 * premultiplied colour and opacity. */
void eddy_volume_segment_cpu(const float *transfer, uint32_t count, float opacity_unit, double sf,
                             double sb, double d, uint32_t steps, double out[4]);
/* volume.preint's twin: the whole table (layout of eddy_volume_table). */
void eddy_volume_preintegrate_cpu(const struct eddy_volume_params *p, const float *transfer,
                                  float *table);
/* The frame's twin: geometry, the BVH, the lists and the rays, as the
 * passes do them (the table sampled trilinearly as the sampler does). rgba
 * and depth as eddy_volume_read. p->lists[0] = 0: no lists, every entry
 * from the BVH. */
void eddy_volume_cast_cpu(const struct eddy_volume_params *p, const float *position,
                          const float *scalar, const uint32_t *tets, const uint32_t *neighbours,
                          const uint32_t *boundary, const float *transfer, const float *table,
                          float *rgba, float *depth);
/* What a frame of eddy_volume_cast_cpu did, the same work as volume.raster
 * and volume.cast (eddy bench's profile of the volume passes). */
typedef struct eddy_volume_cast_counts {
    uint64_t tested;       /* volume.raster: pixels tested against a boundary face, over all faces */
    uint64_t fragments;    /* of which the face covers (added to the pixel's count and list) */
    uint64_t tested_max;   /* the most pixels one face tested (its 8 threads' share: the pass's longest chain) */
    uint64_t rays_hit;     /* volume.cast: pixels whose ray enters the mesh */
    uint64_t steps;        /* tetrahedra crossed, over all rays */
    uint64_t lane_steps8;  /* the steps SIMD lanes run: 8 lanes (4 x 2 pixels) as long as their longest ray */
    uint64_t lane_steps32; /* the same for 32 lanes (8 x 4 pixels) */
    uint64_t pieces;       /* table samples composited (a segment longer than the table's: several) */
    uint64_t enters;       /* entry lookups: the first, and one after each exit through the boundary */
    uint64_t entries_read; /* pixel-list entries those lookups read */
    uint64_t bvh_enters;   /* lookups through the BVH (a pixel's list overflowed, or no lists) */
    uint64_t bvh_nodes;    /* BVH nodes those visited */
} eddy_volume_cast_counts;
/* counts: NULL counts nothing (eddy_volume_cast_cpu). */
void eddy_volume_cast_cpu_counted(const struct eddy_volume_params *p, const float *position,
                                  const float *scalar, const uint32_t *tets, const uint32_t *neighbours,
                                  const uint32_t *boundary, const float *transfer, const float *table,
                                  float *rgba, float *depth, eddy_volume_cast_counts *counts);
/* The reference ray integral (no traversal, no table): every tet cut by
 * every ray on its own, the pieces in order along the ray, each integrated
 * through the transfer function with `steps` slabs; no early stop. A ray
 * in a face's plane counts as moved off it by a fixed infinitesimal offset
 * (so one of the tets around an edge it runs along claims it). */
void eddy_volume_reference_cpu(const struct eddy_volume_params *p, const float *position,
                               const float *scalar, const uint32_t *tets, const float *transfer,
                               uint32_t steps, float *rgba, float *depth);

struct eddy_bench_case;
struct eddy_bench_module;
/* Its `eddy bench` cases (*count gets their number) and its passes' costs
 * (volume_bench.c; eddy/eddy_bench.h). */
const struct eddy_bench_case *eddy_volume_bench_cases(uint32_t *count);
const struct eddy_bench_module *eddy_volume_bench_module(void);

#ifdef __cplusplus
}
#endif
#endif
