/* The fluid modules' dam-break bench case and run-profile counts: see
 * fluid_bench.h. */
#include "fluid_bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parameter values as a scene with only h = 0.02 m set has them, in the
 * descriptor's order; room for any module's (the scene loader's limit). */
static void dam_values(const eddy_module_desc *md, eddy_param_value values[64])
{
    for (uint32_t i = 0; i < md->param_count && i < 64; i++) {
        memcpy(values[i].v, md->params[i].def, sizeof values[i].v);
        if (!strcmp(md->params[i].name, "h"))
            values[i].v[0] = 0.02;
    }
}

int eddy_fluid_bench_run(eddy_engine *e, const eddy_bench_case *c, const eddy_bench_options *o,
                         const fluid_bench *f, eddy_bench_result *r)
{
    uint32_t n = o->particles ? o->particles : c->n;
    /* A column twice as high as wide, or a cube: the dam break of the CPU
     * libraries' figure (50,653 = 37^3 particles). */
    uint32_t nx = (uint32_t)round(cbrt(f->cube ? (double)n : n / 2.0));
    const double s = 0.01;
    double cx = nx * s, cy = (f->cube ? 1 : 2) * nx * s;
    char json[2048], params[256];
    snprintf(params, sizeof params, "%s%s", f->params, o->no_lists ? ", \"neighbour_list\": 0" : "");
    snprintf(json, sizeof json,
             "{ \"dt\": %g, \"duration\": 1, \"box\": { \"min\": [0, 0, 0], \"max\": [%g, %g, %g] },"
             "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": %g,"
             "      \"fill\": { \"shape\": \"box\", \"min\": [0, 0, 0], \"max\": [%g, %g, %g] } } ],"
             "  \"systems\": [ { \"name\": \"fluid\", \"module\": \"%s\", \"set\": \"water\","
             "      \"params\": { \"h\": 0.02, %s } } ] }",
             f->dt, 4 * cx, 1.5 * cy, cx, s, cx, cy, cx, f->module->name, params);
    uint64_t bytes0 = eddy_engine_get_counters(e).buffer_bytes;
    eddy_scene *sc = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = c->name, .json = json, .profile = true,
                                                             .no_output = true });
    if (!sc)
        return -1;
    eddy_particles p = eddy_find_particles(e, "water");
    uint32_t count = eddy_particles_count(e, p);
    float *pos = malloc(16ull * count), *vel = malloc(16ull * count), *mass = malloc(4ull * count);
    float *gpos = malloc(16ull * count);
    int rc = -1;
    r->n = count;
    r->unit = "particles";
    r->bytes = eddy_engine_get_counters(e).buffer_bytes - bytes0;
    r->no_reference = o->no_reference;
    if (!pos || !vel || !mass || !gpos ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "position"), 0, 16ull * count, pos) != EDDY_OK ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "velocity"), 0, 16ull * count, vel) != EDDY_OK ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "mass"), 0, 4ull * count, mass) != EDDY_OK ||
        eddy_bench_time_graph(e, eddy_scene_graph(sc), o->iterations, r) != EDDY_OK ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "position"), 0, 16ull * count, gpos) != EDDY_OK)
        goto done;
    /* The neighbour counts of the result, for the pass profile. */
    r->has_stats = eddy_bench_count_neighbours(gpos, count, 0.02f, (float)(0.02 * (1 + f->skin)), &r->stats);
    r->stats.scans = o->no_lists;
    const float lo[3] = { 0, 0, 0 }, hi[3] = { (float)(4 * cx), (float)(1.5 * cy), (float)cx };
    eddy_bench_count_ghosts(gpos, count, 0.02f, (float)s, lo, hi, &r->stats); /* wall spacing: the fill's */
    if (o->no_reference) {
        rc = 0;
        goto done;
    }
    eddy_param_value values[64];
    dam_values(f->module, values);
    if (!f->reference(c, f, values, count, lo, hi, pos, vel, mass, o, r))
        goto done;
    double worst = 0;
    for (uint32_t i = 0; i < 4 * count; i++)
        worst = fmax(worst, fabs((double)gpos[i] - pos[i]));
    r->match = worst <= 1e-4 * 4 * cx; /* the step tests' tolerance */
    rc = r->match ? 0 : 1;
done:
    free(pos), free(vel), free(mass), free(gpos);
    eddy_destroy_scene(sc);
    return rc;
}

bool eddy_fluid_system_stats(eddy_engine *e, const eddy_scene *s, const char *system, const char *skin_param,
                             uint32_t *count, eddy_bench_stats *out)
{
    double h[3] = { 0 }, skin[3] = { 0 }, ws[3] = { 0 }, lo[3], hi[3];
    if (eddy_scene_system_param(s, system, "h", h) != EDDY_OK ||
        (skin_param && eddy_scene_system_param(s, system, skin_param, skin) != EDDY_OK) ||
        eddy_scene_system_param(s, system, "wall_spacing", ws) != EDDY_OK)
        return false;
    eddy_scene_box(s, lo, hi);
    const float flo[3] = { (float)lo[0], (float)lo[1], (float)lo[2] }, fhi[3] = { (float)hi[0], (float)hi[1], (float)hi[2] };
    eddy_particles set = eddy_scene_system_set(s, system);
    uint32_t n = eddy_particles_count(e, set);
    float *pos = n ? malloc(16ull * n) : NULL;
    bool ok = pos && eddy_buffer_download(e, eddy_particles_buffer(e, set, "position"), 0, 16ull * n, pos) == EDDY_OK &&
              eddy_bench_count_neighbours(pos, n, (float)h[0], (float)(h[0] * (1 + skin[0])), out);
    if (ok)
        eddy_bench_count_ghosts(pos, n, (float)h[0], (float)(ws[0] > 0 ? ws[0] : h[0] / 2), flo, fhi, out);
    *count = n;
    free(pos);
    return ok;
}
