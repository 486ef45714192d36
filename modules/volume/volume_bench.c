/* volume's bench cases and pass costs (eddy_bench.h): the renderer on a
 * tet mesh at rest, 512 x 512: a frame's passes (volume.geometry: planes
 * and gradients; volume.keys, the sort, volume.leaves and volume.level: the
 * BVH; volume.cast: the rays) against the C twin of the same algorithm
 * (eddy_volume_cast_cpu: geometry, BVH and rays, single-threaded), images
 * within 1e-3. */
#include "volume.h"
#include "common/bench_tables.h"
#include "eddy/eddy_bench.h"
#include "eddy/eddy_tetmesh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The mesh's vertices (pos: vec4 each) and first attribute (sc) as a
 * particle set with its tets, into *set (to destroy even when this fails);
 * its bounds into lo, hi. */
static bool mesh_set(eddy_engine *e, const eddy_tetmesh *m, float *pos, float *sc, float lo[3], float hi[3],
                     eddy_particles *set)
{
    uint32_t nv = m->vertex_count;
    for (uint32_t i = 0; i < nv; i++) {
        for (int a = 0; a < 3; a++) {
            pos[4 * i + a] = (float)m->vertices[3 * i + a];
            lo[a] = fminf(lo[a], pos[4 * i + a]), hi[a] = fmaxf(hi[a], pos[4 * i + a]);
        }
        sc[i] = m->attribute_count ? (float)m->attributes[(size_t)m->attribute_count * i] : 0.0f;
    }
    *set = eddy_create_particles(e, &(eddy_particles_desc){ EDDY_SIZED(eddy_particles_desc), .name = "volume_bench", .count = nv });
    return set->id && eddy_buffer_upload(e, eddy_particles_buffer(e, *set, "position"), 0, 16ull * nv, pos) == EDDY_OK &&
           eddy_buffer_upload(e, eddy_particles_add_buffer(e, *set, "scalar", 4), 0, 4ull * nv, sc) == EDDY_OK &&
           eddy_particles_add_elements(e, *set, &(eddy_elements_desc){ EDDY_SIZED(eddy_elements_desc), .name = "tets", .kind = EDDY_TETRAHEDRA,
                                                                       .count = m->tet_count,
                                                                       .indices = m->tets }).buffer.id;
}

/* The profile's counts of a frame (the work the passes do: faces
 * rasterised, tets crossed, table samples, BVH nodes), from the twin's
 * counted cast, untimed. */
static void frame_stats(const struct eddy_volume_params *p, const float *pos, const float *sc, const eddy_tetmesh *m,
                        const uint32_t *neigh, const uint32_t *bound, const float *tf, const float *table, float *cpu,
                        double rays, eddy_bench_stats *out)
{
    eddy_volume_cast_counts k;
    eddy_volume_cast_cpu_counted(p, pos, sc, m->tets, neigh, bound, tf, table, cpu, NULL, &k);
    out->frame = (eddy_bench_frame_stats){ .tets = m->tet_count, .faces = p->counts[1], .rays = rays,
                                           .tested = (double)k.tested, .fragments = (double)k.fragments,
                                           .tested_max = (double)k.tested_max,
                                           .steps = (double)k.steps, .pieces = (double)k.pieces,
                                           .lane_steps8 = (double)k.lane_steps8,
                                           .lane_steps32 = (double)k.lane_steps32,
                                           .enters = (double)k.enters, .entries_read = (double)k.entries_read,
                                           .bvh_nodes = (double)k.bvh_nodes };
}

/* c->n: the mesh's vertices. */
static int run(eddy_engine *e, const eddy_bench_case *c, const eddy_bench_options *o, eddy_bench_result *r)
{
    char path[4096], err[1024];
    snprintf(path, sizeof path, "%s/tets/%s.node", o->data_dir, strchr(c->name, '.') + 1);
    eddy_tetmesh m;
    if (eddy_load_tetmesh(path, NULL, &m, err, sizeof err) != 0) {
        fprintf(stderr, "eddy error [run.stopped]: %s\n", err);
        return -1;
    }
    uint32_t nv = m.vertex_count, nt = m.tet_count, w = 512, h = 512;
    float *pos = calloc(4ull * nv, sizeof(float)), *sc = calloc(nv, sizeof(float));
    float *gpu = malloc(16ull * w * h), *cpu = malloc(16ull * w * h), *table = NULL;
    uint32_t *neigh = malloc(16ull * nt), *bound = NULL, nb = 0;
    eddy_particles set = { 0 };
    eddy_volume *v = NULL;
    eddy_graph g = { 0 };
    int rc = -1;
    r->n = w * h;
    r->unit = "pixels";
    r->no_reference = o->no_reference;
    float lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    if (!pos || !sc || !gpu || !cpu || !neigh || !mesh_set(e, &m, pos, sc, lo, hi, &set))
        goto done;
    static const float tf[] = { 0.0f, 0.1f, 0.2f, 0.9f, 0.05f, 0.5f, 0.2f, 0.9f, 0.3f, 0.3f,
                                0.8f, 1.0f, 0.5f, 0.1f, 0.5f, 1.0f, 0.9f, 0.1f, 0.1f, 0.8f };
    float size = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
    eddy_volume_desc d = { .set = set, .width = w, .height = h, .transfer = tf, .transfer_count = 4,
                           .camera = { .up = { 0, 1, 0 }, .fov_deg = 40 } };
    for (int a = 0; a < 3; a++)
        d.camera.target[a] = 0.5f * (lo[a] + hi[a]);
    d.camera.eye[0] = d.camera.target[0] + 0.4f * size;
    d.camera.eye[1] = d.camera.target[1] + 0.3f * size;
    d.camera.eye[2] = d.camera.target[2] + 1.5f * size;
    v = eddy_create_volume(e, &d);
    g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = c->name, .timestamps = true });
    if (!v || !g.id || eddy_volume_record(e, v, g) != EDDY_OK ||
        eddy_bench_time_graph(e, g, o->iterations, r) != EDDY_OK ||
        eddy_image_download(e, eddy_volume_color(v), &(eddy_image_region){ 0 }, gpu) != EDDY_OK)
        goto done;
    const struct eddy_volume_params *p = eddy_volume_params_of(v);
    size_t texels = (size_t)p->table[0] * p->table[0] * p->table[1];
    if (!(table = malloc(16 * texels)) ||
        eddy_image_download(e, eddy_volume_table(v), &(eddy_image_region){ 0 }, table) != EDDY_OK ||
        eddy_volume_topology(m.tets, nt, nv, neigh, &bound, &nb, err, sizeof err) != 0)
        goto done;
    double t0 = eddy_bench_now_ms();
    for (uint32_t k = 0; k < o->iterations && !r->no_reference; k++)
        eddy_volume_cast_cpu(p, pos, sc, m.tets, neigh, bound, tf, table, cpu, NULL);
    r->cpu_ms = eddy_bench_now_ms() - t0;
    frame_stats(p, pos, sc, &m, neigh, bound, tf, table, cpu, (double)w * h, &r->stats);
    r->has_stats = true;
    double worst = 0;
    uint32_t hit = 0;
    for (size_t i = 0; i < 4ull * w * h; i++) {
        worst = fmax(worst, fabs((double)gpu[i] - cpu[i]));
        hit += i % 4 == 3 && gpu[i] > 0;
    }
    r->match = worst <= 1e-3;
    if (r->no_reference) {
        rc = 0;
        goto done;
    }
    fprintf(stderr, "eddy bench %s: %u tets, %u boundary faces, %u of %u pixels hit, %.1f frames/s (GPU time), "
            "%.1f frames/s (C); largest channel difference %.2e\n", c->name, nt, nb, hit, w * h,
            1e3 * r->iterations / r->gpu_ms, 1e3 * o->iterations / r->cpu_ms, worst);
    rc = r->match ? 0 : 1;
done:
    if (g.id)
        eddy_destroy_graph(e, g);
    eddy_destroy_volume(e, v);
    if (set.id)
        eddy_destroy_particles(e, set);
    eddy_free_tetmesh(&m);
    free(pos), free(sc), free(gpu), free(cpu), free(table), free(neigh), free(bound);
    return rc;
}

static const eddy_bench_case cases[] = {
    { "volume.bunny_5k", run, 1028, 0, 0, NULL },
    { "volume.bunny_25k", run, 5364, 0, 0, NULL },
    { "volume.bunny_150k", run, 29598, 0, 0, NULL },
};

EDDY_BENCH_CASE_LIST(eddy_volume_bench_cases, cases)

/* The passes (modules/volume/shaders), per element and call, from the
 * frame's counts: geometry per tet (4 corners and scalars in, 4 planes and
 * the gradient out); keys and leaves per boundary face; the BVH levels per
 * face, spread over the calls (a binary tree has about as many inner nodes
 * as leaves); raster per face (the face in, a ray test per pixel tested, a
 * counter increment and a list entry per pixel covered); cast per ray (its
 * counter and list, its colour and depth out; per tet crossed a gather of 4
 * planes, the gradient and the neighbour; per piece a trilinear table
 * sample, 8 texels, whose filter counts as 64 flops though a GPU's texture
 * units do it; per BVH node a box test). */
static bool frame_model(const char *label, double calls, const eddy_bench_frame_stats *v, double simd_width,
                        eddy_bench_pass_model *m, double *count, const char **per)
{
    *m = (eddy_bench_pass_model){ 0 };
    double faces = v->faces > 0 ? v->faces : 1, rays = v->rays > 0 ? v->rays : 1;
    if (!strcmp(label, "volume.geometry")) {
        *count = v->tets, *per = "tet";
        *m = (eddy_bench_pass_model){ 16 + 16 + 80, 64, 0, 200 };
    } else if (!strcmp(label, "volume.keys")) {
        *count = v->faces, *per = "face";
        *m = (eddy_bench_pass_model){ 4 + 8, 60, 0, 30 };
    } else if (!strcmp(label, "volume.leaves")) {
        *count = v->faces, *per = "face";
        *m = (eddy_bench_pass_model){ 4 + 32, 60, 0, 20 };
    } else if (!strcmp(label, "volume.level")) {
        *count = v->faces / (calls > 0 ? calls : 1), *per = "face";
        *m = (eddy_bench_pass_model){ 96, 0, 0, 12 };
    } else if (!strcmp(label, "volume.raster")) {
        double tested = v->tested / faces, covered = v->fragments / faces;
        *count = v->faces, *per = "face";
        /* visits: the pass lasts as long as its largest face, whose 8
         * threads test its pixels in turn (a covered one waits on the
         * counter's increment for its entry's slot) */
        *m = (eddy_bench_pass_model){ 20 + 16 * covered, 60, v->tested_max / 8, 60 + 40 * tested };
    } else if (!strcmp(label, "volume.cast") || !strcmp(label, "volume.cast_point")) {
        double steps = v->steps / rays, pieces = v->pieces / rays, nodes = v->bvh_nodes / rays;
        /* Lanes in lockstep run (and wait on) their group's longest ray:
         * the arithmetic and the latency chain at the lanes' steps, the
         * gathers at the rays' own (idle lanes fetch nothing). */
        double lanes = simd_width == 8    ? v->lane_steps8
                     : simd_width == 32 ? v->lane_steps32
                                        : v->steps;
        double run = v->steps > 0 ? lanes / v->steps : 1;
        *count = v->rays, *per = "ray";
        *m = (eddy_bench_pass_model){ 24 + 8 * v->entries_read / rays, 84 * steps + 128 * pieces + 32 * nodes,
                                      steps * run + nodes, 30 + (70 * steps + (24 + 64) * pieces) * run + 30 * nodes };
    } else {
        return false;
    }
    return true;
}

const eddy_bench_module *eddy_volume_bench_module(void)
{
    static const eddy_bench_module m = { .module = eddy_volume_module, .frame_model = frame_model };
    return &m;
}
