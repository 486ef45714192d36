/* Runs over MPI ranks (docs/distributed.md). Every rank loads the whole
 * scene, then keeps the particles of the grid cells it owns (decomp.c) and
 * hands the rest on (dist.c). Before each substep each rank takes, as
 * ghosts, every particle of the other ranks within the systems' reach of
 * its own (eddy_module_desc.reach: all a substep's result for a particle
 * can depend on), has its owned and ghost particles on its device in
 * ascending index order, steps them all, and keeps the owned particles'
 * results. A system's neighbour loops visit cells in order and each cell's
 * particles in index order (the grid's stable sort), so an owned particle
 * sums the same neighbours in the same order as on one rank: the same
 * bits on any number of ranks. One exchange a substep, with ghosts as deep
 * as the reach (a density and a force: two support radii), instead of one
 * per pass: fewer, larger messages, and no module has to know which of its
 * particles are ghosts.
 *
 * The particles stay on the device; the host keeps their ids and, after
 * each substep, their positions and velocities, from which it decides who
 * goes where (scene_dist_exchange.c: only the rows sent cross to the host).
 * Frames gather the statistics to rank 0 in index order (the one-rank
 * numbers, bit for bit), and each rank writes its piece of a frame, rank 0
 * the .pvtp that names them. */
#include "scene_internal.h"

eddy_result scene_dist_refuse(const eddy_scene *s, const char *what)
{
    eddy_log(s->e, EDDY_LOG_ERROR, "dist.unsupported", "%s does not run over MPI ranks yet "
             "(docs/distributed.md)", what);
    return EDDY_ERROR_UNSUPPORTED;
}

#ifndef EDDY_MPI

bool eddy_scene_mpi(void)
{
    return false;
}

eddy_scene *scene_dist_attach(eddy_engine *e, eddy_scene *s, const void *comm)
{
    (void)comm;
    if (s)
        eddy_log(e, EDDY_LOG_ERROR, "dist.unsupported", "eddy_scene_desc.mpi_comm: this eddy was built without "
                 "MPI (meson option mpi, libopenmpi-dev): it runs scenes on one rank only");
    eddy_destroy_scene(s);
    return NULL;
}

/* Never reached without MPI: no scene has a dist part. */
void scene_dist_free(eddy_scene *s)
{
    (void)s;
}
eddy_result scene_dist_steps(eddy_scene *s, uint64_t n)
{
    (void)n;
    return scene_dist_refuse(s, "a step");
}
bool scene_dist_root(const eddy_scene *s)
{
    (void)s;
    return true;
}
eddy_result scene_dist_frame_begin(eddy_scene *s, eddy_result res)
{
    (void)s;
    return res;
}
eddy_result scene_dist_frame_set(eddy_scene *s, uint32_t i, double t, eddy_stats *st, bool *unstable)
{
    (void)i, (void)t, (void)st, (void)unstable;
    return scene_dist_refuse(s, "a frame");
}
eddy_result scene_dist_frame_end(eddy_scene *s, eddy_stats *st, eddy_result res)
{
    (void)s, (void)st;
    return res;
}
bool scene_dist_any(eddy_scene *s, bool v)
{
    (void)s;
    return v;
}
bool scene_dist_writes_frames(const eddy_scene *s, uint32_t k)
{
    (void)s, (void)k;
    return true;
}
eddy_result scene_dist_agree(eddy_scene *s, eddy_result r)
{
    (void)s;
    return r;
}
eddy_result scene_dist_save(eddy_scene *s, const char *path)
{
    (void)path;
    return scene_dist_refuse(s, "a checkpoint");
}

#else

#include "scene_dist.h"

#include <inttypes.h>
#include <math.h>
#include <mpi.h>
#include <time.h>

bool eddy_scene_mpi(void)
{
    return true;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

bool scene_dist_root(const eddy_scene *s)
{
    return !s->dist || s->dist->ctx.rank == 0;
}

/* This rank's cause, for the agreement, from the engine's last error. */
static void note_error(scene_dist *d, eddy_engine *e)
{
    if (!d->ctx.err[0])
        snprintf(d->ctx.err, sizeof d->ctx.err, "[%s] %.200s", *eddy_last_error(e) ? eddy_last_error(e) : "failed",
                 eddy_last_error_text(e));
}

/* One result on every rank: r where it failed; on the others a failure
 * too, with the first failing rank's message. */
eddy_result scene_dist_agree(eddy_scene *s, eddy_result r)
{
    scene_dist *d = s->dist;
    if (r != EDDY_OK)
        note_error(d, s->e);
    double t0 = now_s();
    bool ok = dist_agree(&d->ctx, r == EDDY_OK);
    d->t_wait += now_s() - t0;
    if (ok)
        return EDDY_OK;
    if (r == EDDY_OK)
        eddy_log(s->e, EDDY_LOG_ERROR, "dist.failed", "%s", d->ctx.err);
    d->ctx.err[0] = 0;
    return r != EDDY_OK ? r : EDDY_ERROR_INVALID_ARGUMENT;
}

/* A collective of dist.c that failed (on some rank; every rank returns
 * false): its message, logged where it did not fail here. */
static eddy_result failed_split(eddy_scene *s)
{
    scene_dist *d = s->dist;
    eddy_log(s->e, EDDY_LOG_ERROR, "dist.split", "%s", d->ctx.err);
    d->ctx.err[0] = 0;
    return EDDY_ERROR_INVALID_ARGUMENT;
}

eddy_result scene_dist_failed(eddy_scene *s)
{
    scene_dist *d = s->dist;
    eddy_log(s->e, EDDY_LOG_ERROR, "dist.failed", "%s", d->ctx.err);
    d->ctx.err[0] = 0;
    return EDDY_ERROR_INVALID_ARGUMENT;
}

int dist_set_index(const eddy_scene *s, eddy_particles p)
{
    for (uint32_t i = 0; i < s->set_count; i++)
        if (s->sets[i].handle.id == p.id)
            return (int)i;
    return -1;
}

static bool has_elements(const eddy_scene *s, eddy_particles p)
{
    return eddy_particles_elements_name(s->e, p, 0) != NULL;
}

/* A set with elements stays whole on every rank, so a system stepping it
 * must give every rank the same result: it reads no neighbours (reach 0)
 * and gathers what other systems wrote into the set from the ranks that
 * computed it right (declare_parts). */
static eddy_result check_whole(eddy_scene *s, const scene_system *sys, const char *what, double r)
{
    if (!has_elements(s, sys->set) || (r == 0 && sys->module->declare_parts))
        return EDDY_OK;
    int i = dist_set_index(s, sys->set);
    const char *set = i >= 0 ? s->sets[i].name : "?";
    char why[700];
    snprintf(why, sizeof why, "%s on particle set '%s', which has elements (edges, triangles, tetrahedra) and "
             "stays whole on every rank, with a reach of %g m or without a substep in parts (expected: reach 0 "
             "and declare_parts, as the deform module)", what, set, r);
    return scene_dist_refuse(s, why);
}

/* What keeps a scene on one rank: the systems' reach and rates, images,
 * the systems of sets with elements. One message. */
static eddy_result check_scene(eddy_scene *s, double *reach)
{
    eddy_engine *e = s->e;
    *reach = 0;
    if (s->renderer)
        return scene_dist_refuse(s, "\"output.images\"");
    for (uint32_t i = 0; i < s->system_count; i++) {
        scene_system *sys = &s->systems[i];
        const eddy_module_desc *m = sys->module;
        char what[200];
        snprintf(what, sizeof what, "system '%s' (module '%s')", sys->name, m->name);
        if (!m->reach)
            return scene_dist_refuse(s, what);
        double r = -1;
        eddy_result res = m->reach(sys->state, &r);
        if (res != EDDY_OK)
            return res;
        if (!(r >= 0 && r < 1e30)) {
            eddy_log(e, EDDY_LOG_ERROR, "dist.unsupported", "%s: its reach %g m is not a distance", what, r);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        /* Driven inputs are set alike on every rank; the outputs a module
         * reports over ranks are the whole run's (its own syncs make them
         * so), and rank 0 logs them. */
        if (sys->rate != 1) {
            snprintf(what + strlen(what), sizeof what - strlen(what), " with its own substeps");
            return scene_dist_refuse(s, what);
        }
        if ((res = check_whole(s, sys, what, r)) != EDDY_OK)
            return res;
        *reach = r > *reach ? r : *reach;
    }
    if (!(*reach > 0)) {
        eddy_log(e, EDDY_LOG_ERROR, "dist.unsupported", "no system reads its neighbours (every reach is 0): "
                 "nothing to split the box by; run it on one rank");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    return EDDY_OK;
}

/* Set i's "id" buffer (eddy.h): each particle's index in the whole set,
 * which travels with it. */
static eddy_result add_ids(eddy_scene *s, uint32_t i)
{
    eddy_particles p = s->sets[i].handle;
    uint32_t n = s->sets[i].count;
    eddy_buffer b = eddy_particles_add_buffer(s->e, p, "id", 4);
    uint32_t *ids = malloc(4ull * n + 4);
    eddy_result r = b.id && ids ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
    for (uint32_t k = 0; k < n && r == EDDY_OK; k++)
        ids[k] = k;
    if (r == EDDY_OK && n)
        r = eddy_buffer_upload(s->e, b, 0, 4ull * n, ids);
    free(ids);
    return r;
}

/* Set i's buffers as one row a particle, in the set's order: position,
 * velocity, mass and phase first (the exchange and the frames read them
 * there), then the modules'. */
static eddy_result set_layout(eddy_scene *s, uint32_t i, dist_set *ds)
{
    eddy_engine *e = s->e;
    eddy_particles p = s->sets[i].handle;
    uint64_t cap = eddy_particles_capacity(e, p);
    const char *name;
    ds->clamped = -1;
    uint32_t b = 0;
    for (uint32_t k = 0; (name = eddy_particles_buffer_name(e, p, k)); k++) {
        /* The set's own rows (a rigid body's state) stay: their system keeps
         * them the same on every rank. */
        if (!eddy_particles_buffer_travels(e, p, name))
            continue;
        eddy_buffer buf = eddy_particles_buffer(e, p, name);
        uint64_t size = eddy_buffer_size(e, buf), es = cap ? size / cap : 0;
        if (b == DIST_SET_BUFFERS || !cap || size % cap || es % 4 || es == 0 || es > 256 ||
            (b < 4 && strcmp(name, (const char *[]){ "position", "velocity", "mass", "phase" }[b]))) {
            eddy_log(e, EDDY_LOG_ERROR, "dist.unsupported", "particle set '%s': buffer '%s' (%" PRIu64 " bytes for "
                     "%" PRIu64 " particles) cannot travel between ranks: expected at most %d buffers, position, "
                     "velocity, mass and phase first, each a multiple of 4 bytes a particle up to 256", s->sets[i].name, name, size, cap,
                     DIST_SET_BUFFERS);
            return EDDY_ERROR_UNSUPPORTED;
        }
        ds->buf[b] = buf;
        ds->esize[b] = (uint32_t)es;
        ds->offset[b] = ds->stride;
        ds->stride += (uint32_t)es;
        ds->buffers = b + 1;
        if (!strcmp(name, "clamped"))
            ds->clamped = (int)b;
        b++;
    }
    ds->capacity = (uint32_t)cap;
    ds->id = malloc(4 * cap);
    ds->mine = malloc(cap);
    ds->pos = malloc(16 * cap);
    ds->vel = malloc(16 * cap);
    return ds->id && ds->mine && ds->pos && ds->vel ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
}

/* Every rank starts with the whole set on its device and owns the
 * particles whose index is its rank modulo the ranks; the first exchange
 * hands them to the owners of their cells. */
static eddy_result set_start(eddy_scene *s, uint32_t i, dist_set *ds)
{
    scene_dist *d = s->dist;
    uint32_t n = s->sets[i].count;
    ds->local = n;
    ds->owned = 0;
    ds->whole = has_elements(s, s->sets[i].handle);
    for (uint32_t k = 0; k < n; k++) {
        ds->id[k] = k;
        ds->mine[k] = k % (uint32_t)d->ctx.size == (uint32_t)d->ctx.rank;
        ds->owned += ds->mine[k];
    }
    eddy_result r = n ? eddy_buffer_download(s->e, ds->buf[0], 0, 16ull * n, ds->pos) : EDDY_OK;
    return r == EDDY_OK && n ? eddy_buffer_download(s->e, ds->buf[1], 0, 16ull * n, ds->vel) : r;
}

/* The particles set i adds to a rank's work: its owned ones, none of a
 * whole set (every rank steps all of it). */
static uint32_t weighed(const dist_set *ds)
{
    return ds->whole ? 0 : ds->owned;
}

/* Every split set's owned positions in one table: what the split weighs. */
static bool all_positions(const scene_dist *d, uint32_t sets, dist_table *t)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < sets; i++)
        n += weighed(&d->sets[i]);
    if (n > UINT32_MAX / 2 || !dist_table_init(t, 16, (uint32_t)n))
        return false;
    for (uint32_t i = 0; i < sets; i++)
        for (uint32_t j = 0; j < d->sets[i].local && !d->sets[i].whole; j++)
            if (d->sets[i].mine[j])
                dist_table_push(t, (uint32_t)t->count, d->sets[i].pos + 4 * (size_t)j);
    return true;
}

/* A new split from the particles where they are now (each cell's weight
 * scaled by its rank's measured cost, with seconds); *moved when a box
 * changed. */
static eddy_result replan(eddy_scene *s, bool *moved, const double *seconds)
{
    scene_dist *d = s->dist;
    dist_table t;
    bool ok = all_positions(d, s->set_count, &t);
    if (!dist_agree(&d->ctx, ok || (snprintf(d->ctx.err, sizeof d->ctx.err, "out of memory weighing the split"), 0)))
        return scene_dist_failed(s);
    dc_plan next = { 0 };
    ok = dist_plan(&d->ctx, &d->grid, &t, 1, d->plan.ranks ? &d->plan : NULL, d->plan.ranks ? seconds : NULL,
                   &next);
    dist_table_free(&t);
    /* The first split is where a box too small for the ranks shows. */
    if (!ok)
        return d->plan.ranks ? scene_dist_failed(s) : failed_split(s);
    *moved = !d->plan.ranks || memcmp(next.box, d->plan.box, next.ranks * sizeof *next.box) != 0;
    dc_free(&d->plan);
    d->plan = next;
    return EDDY_OK;
}

static eddy_result dist_start(eddy_scene *s, double reach)
{
    scene_dist *d = s->dist;
    /* Cells one reach wide, with a cell of margin, like the systems' own
     * grids: a particle reaches only the cells next to its own. */
    for (int a = 0; a < 3; a++) {
        double cells = ceil(((double)s->box_max[a] - s->box_min[a]) / reach) + 2;
        if (!(cells <= (1 << 20))) {
            eddy_log(s->e, EDDY_LOG_ERROR, "dist.split", "the box spans %g cells of the reach %g m along axis %d: "
                     "more than %d", cells, reach, a, 1 << 20);
            return EDDY_ERROR_LIMIT;
        }
        d->grid.dims[a] = (int32_t)cells;
        d->grid.origin[a] = (float)(s->box_min[a] - reach);
    }
    d->grid.inv_cell = (float)(1.0 / reach);
    d->sets = calloc(s->set_count ? s->set_count : 1, sizeof *d->sets);
    eddy_result r = d->sets ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < s->set_count && r == EDDY_OK; i++) {
        r = add_ids(s, i);
        if (r == EDDY_OK)
            r = set_layout(s, i, &d->sets[i]);
        if (r == EDDY_OK)
            r = set_start(s, i, &d->sets[i]);
    }
    if (r == EDDY_OK)
        r = dist_exchange_init(s);
    return r == EDDY_OK ? dist_parts_init(s) : r;
}

eddy_scene *scene_dist_attach(eddy_engine *e, eddy_scene *s, const void *comm_ptr)
{
    MPI_Comm comm = *(const MPI_Comm *)comm_ptr;
    int size = 1;
    MPI_Comm_size(comm, &size);
    if (size == 1)
        return s;
    scene_dist *d = calloc(1, sizeof *d);
    dist_ctx c = { 0 };
    MPI_Comm_dup(comm, &c.comm);
    MPI_Comm_rank(c.comm, &c.rank);
    c.size = size;
    eddy_result r = s && d ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
    double reach = 0;
    if (r == EDDY_OK) {
        d->ctx = c;
        s->dist = d;
        r = check_scene(s, &reach);
        if (r == EDDY_OK)
            r = dist_start(s, reach);
    }
    if (!s || !d) {
        if (s)
            eddy_log(e, EDDY_LOG_ERROR, "memory.host", "out of host memory for the run over ranks");
        snprintf(c.err, sizeof c.err, "[%s] %.200s", eddy_last_error(e), eddy_last_error_text(e));
        dist_agree(&c, false);
        MPI_Comm_free(&c.comm);
        free(d);
        eddy_destroy_scene(s);
        return NULL;
    }
    bool moved;
    r = scene_dist_agree(s, r);
    if (r == EDDY_OK)
        r = replan(s, &moved, NULL);
    if (r != EDDY_OK) {
        eddy_destroy_scene(s);
        return NULL;
    }
    return s;
}

void scene_dist_free(eddy_scene *s)
{
    scene_dist *d = s->dist;
    if (!d)
        return;
    dist_exchange_free(s);
    dist_parts_free(s);
    for (uint32_t i = 0; d->sets && i < s->set_count; i++) {
        free(d->sets[i].id);
        free(d->sets[i].mine);
        free(d->sets[i].pos);
        free(d->sets[i].vel);
    }
    free(d->sets);
    dc_free(&d->plan);
    MPI_Comm_free(&d->ctx.comm);
    free(d);
    s->dist = NULL;
}

/* Adaptive stepping over ranks, after the exchange, when every rank's
 * ghosts carry their owners' velocities: each rank's systems see the
 * particles it holds, so the smallest stable substep over the ranks is
 * the one-rank run's (a minimum does not depend on the order). */
static eddy_result adapt(eddy_scene *s)
{
    double mine = scene_stable_dt(s), all = mine;
    MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MIN, s->dist->ctx.comm);
    s->adapt_pending = false;
    return scene_dist_agree(s, scene_adapt_to(s, all));
}

/* One substep: a new graph (the counts change), the exchange's passes in
 * it, then the systems' for the particles on the device now. */
static eddy_result substep(eddy_scene *s)
{
    scene_dist *d = s->dist;
    eddy_destroy_graph(s->e, s->graph);
    s->generation++;
    s->graph = eddy_create_graph(s->e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "step",
                                                           .times = 1, .timestamps = s->profile });
    eddy_result r = s->graph.id ? dist_exchange(s, s->graph) : EDDY_ERROR_VULKAN;
    double t1 = now_s();
    for (uint32_t i = 0; i < s->system_count && r == EDDY_OK; i++)
        r = s->systems[i].module->set_count(s->systems[i].state);
    d->t_pack += now_s() - t1;
    /* A rank whose merge or counts failed must not leave the others alone
     * in the parts' collectives: all go on, or none. */
    r = scene_dist_agree(s, r);
    if (r == EDDY_OK && s->adapt_pending)
        r = adapt(s);
    if (r == EDDY_OK)
        r = dist_parts_step(s, s->graph);
    double t3 = now_s();
    if (r == EDDY_OK)
        r = dist_after_step(s);
    d->t_pack += now_s() - t3;
    d->substeps++;
    return scene_dist_agree(s, r);
}

eddy_result scene_dist_steps(eddy_scene *s, uint64_t n)
{
    for (uint64_t k = 0; k < n; k++) {
        /* An adaptive step's count is set in its first substep. */
        uint32_t j = 0;
        do {
            eddy_result r = substep(s);
            if (r != EDDY_OK)
                return r;
        } while (++j < (s->adaptive ? s->current_substeps : s->substeps));
        s->steps_done++;
    }
    return EDDY_OK;
}

eddy_result scene_dist_frame_begin(eddy_scene *s, eddy_result res)
{
    res = scene_dist_agree(s, res);
    if (res == EDDY_OK && !s->no_output)
        s->out_ready = true; /* rank 0 made the folder; the others only add their pieces */
    return res;
}

/* One particle as rank 0 gathers it for the statistics. */
typedef struct dist_record {
    uint32_t id;
    float pos[4], vel[4], mass;
    uint32_t phase;
} dist_record;

/* This rank's piece of set i as <set>_<frame>_<rank>.vtp. */
static eddy_result write_piece(eddy_scene *s, uint32_t i, double t, const dist_record *rec, uint32_t n)
{
    float *pos = malloc(16ull * n + 16), *vel = malloc(16ull * n + 16), *mass = malloc(4ull * n + 4);
    uint32_t *phase = malloc(4ull * n + 4), *id = malloc(4ull * n + 4);
    eddy_result r = pos && vel && mass && phase && id ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
    for (uint32_t k = 0; k < n && r == EDDY_OK; k++) {
        memcpy(pos + 4 * (size_t)k, rec[k].pos, 16);
        memcpy(vel + 4 * (size_t)k, rec[k].vel, 16);
        mass[k] = rec[k].mass, phase[k] = rec[k].phase, id[k] = rec[k].id;
    }
    char path[EDDY_OUT_DIR_MAX + 200], err[1024];
    int len = snprintf(path, sizeof path, "%s/%s_%06u_%d.vtp", s->out_dir, s->sets[i].name, s->frames,
                       s->dist->ctx.rank);
    eddy_vtp_particles vp = { t, n, pos, vel, mass, phase, id };
    if (r == EDDY_OK && (len <= 0 || (size_t)len >= sizeof path || eddy_write_vtp(path, &vp, err, sizeof err))) {
        eddy_log(s->e, EDDY_LOG_ERROR, "output.write", "output: %s", len > 0 && (size_t)len < sizeof path ? err
                 : "the piece's path is too long");
        r = EDDY_ERROR_IO;
    }
    free(pos), free(vel), free(mass), free(phase), free(id);
    return r;
}

/* Rank 0: the frame's .pvtp naming every rank's piece, into the .pvd. */
static eddy_result write_pvtp(eddy_scene *s, uint32_t i, double t)
{
    int ranks = s->dist->ctx.size;
    char file[EDDY_NAME_MAX + 32], path[EDDY_OUT_DIR_MAX + 200], err[1024];
    char (*names)[EDDY_NAME_MAX + 40] = malloc((size_t)ranks * sizeof *names);
    const char **pieces = malloc((size_t)ranks * sizeof *pieces);
    eddy_result r = names && pieces ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
    for (int k = 0; k < ranks && r == EDDY_OK; k++) {
        snprintf(names[k], sizeof names[k], "%s_%06u_%d.vtp", s->sets[i].name, s->frames, k);
        pieces[k] = names[k];
    }
    snprintf(file, sizeof file, "%s_%06u.pvtp", s->sets[i].name, s->frames);
    if (r == EDDY_OK && (!scene_out_path(s, path, sizeof path, file) ||
                         eddy_write_pvtp(path, t, pieces, (uint32_t)ranks, err, sizeof err))) {
        eddy_log(s->e, EDDY_LOG_ERROR, "output.write", "output: %s", err);
        r = EDDY_ERROR_IO;
    }
    free(names);
    free(pieces);
    return r == EDDY_OK ? scene_add_pvd(s, i, t, file) : r;
}

/* Set i's owned particles as records (the clamped flags counted into
 * *clamped and cleared); NULL when out of memory or a download failed. */
static dist_record *records(eddy_scene *s, uint32_t i, uint32_t *clamped)
{
    dist_set *ds = &s->dist->sets[i];
    uint32_t L = ds->local;
    dist_record *rec = malloc(((size_t)ds->owned + 1) * sizeof *rec);
    uint32_t *mass = malloc(4ull * L + 4), *phase = malloc(4ull * L + 4), *flag = malloc(4ull * L + 4);
    bool ok = rec && mass && phase && flag;
    ok = ok && (!L || (eddy_buffer_download(s->e, ds->buf[2], 0, 4ull * L, mass) == EDDY_OK &&
                       eddy_buffer_download(s->e, ds->buf[3], 0, 4ull * L, phase) == EDDY_OK));
    if (ok && L && ds->clamped >= 0) {
        ok = eddy_buffer_download(s->e, ds->buf[ds->clamped], 0, 4ull * L, flag) == EDDY_OK &&
             eddy_buffer_fill(s->e, ds->buf[ds->clamped], 0, 4ull * L, 0) == EDDY_OK;
    } else if (flag) {
        memset(flag, 0, 4ull * L);
    }
    for (uint32_t j = 0, k = 0; ok && j < L; j++) {
        if (!ds->mine[j])
            continue;
        rec[k].id = ds->id[j];
        memcpy(rec[k].pos, ds->pos + 4 * (size_t)j, 16);
        memcpy(rec[k].vel, ds->vel + 4 * (size_t)j, 16);
        memcpy(&rec[k].mass, &mass[j], 4);
        rec[k].phase = phase[j];
        *clamped += flag[j] != 0;
        k++;
    }
    free(mass), free(phase), free(flag);
    if (!ok) {
        free(rec);
        return NULL;
    }
    return rec;
}

/* Collective, after an agreement: every rank's `bytes` bytes at mine to
 * rank 0, in rank order, into out (sized there for them all; the caller
 * checked the total fits an int). */
static void gather_to_root(scene_dist *d, const void *mine, int bytes, void *out)
{
    int counts[DC_MAX_RANKS], at[DC_MAX_RANKS];
    MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, d->ctx.comm);
    for (int q = 0, sum = 0; d->ctx.rank == 0 && q < d->ctx.size; sum += counts[q], q++)
        at[q] = sum;
    MPI_Gatherv(mine, bytes, MPI_BYTE, out, counts, at, MPI_BYTE, 0, d->ctx.comm);
}

static int by_record_id(const void *a, const void *b)
{
    uint32_t x = ((const dist_record *)a)->id, y = ((const dist_record *)b)->id;
    return (x > y) - (x < y);
}

/* Rank 0: every rank's records, in index order (NULL elsewhere); *ok false
 * on every rank when rank 0 cannot take them. */
static dist_record *gather(scene_dist *d, const dist_record *rec, uint32_t n, uint32_t total, bool *ok)
{
    bool root = d->ctx.rank == 0;
    dist_record *all = root ? malloc(((size_t)total + 1) * sizeof *all) : NULL;
    *ok = !root || all;
    if (!*ok)
        snprintf(d->ctx.err, sizeof d->ctx.err, "out of host memory gathering %u particles for the statistics",
                 total);
    else if ((uint64_t)total * sizeof *rec >= INT32_MAX)
        snprintf(d->ctx.err, sizeof d->ctx.err, "the statistics of %u particles are over the 2 GiB one MPI "
                 "gather takes", total), *ok = false;
    if (!dist_agree(&d->ctx, *ok)) {
        free(all);
        *ok = false;
        return NULL;
    }
    gather_to_root(d, rec, (int)(n * sizeof *rec), all);
    if (root)
        qsort(all, total, sizeof *all, by_record_id);
    return all;
}

eddy_result scene_dist_frame_set(eddy_scene *s, uint32_t i, double t, eddy_stats *st, bool *unstable)
{
    scene_dist *d = s->dist;
    uint32_t clamped = 0, n = d->sets[i].owned, total = s->sets[i].count;
    dist_record *rec = records(s, i, &clamped);
    eddy_result r = rec ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
    if (r == EDDY_OK && !s->no_output && s->vtk)
        r = write_piece(s, i, t, rec, n);
    if ((r = scene_dist_agree(s, r)) != EDDY_OK) {
        free(rec);
        return r;
    }
    uint32_t clamped_all = 0;
    MPI_Reduce(&clamped, &clamped_all, 1, MPI_UINT32_T, MPI_SUM, 0, d->ctx.comm);
    bool ok;
    dist_record *all = gather(d, rec ? rec : (dist_record[1]){ 0 }, n, total, &ok);
    free(rec);
    if (!ok)
        return scene_dist_failed(s);
    if (d->ctx.rank == 0) {
        float *pos = malloc(16ull * total + 16), *vel = malloc(16ull * total + 16), *mass = malloc(4ull * total + 4);
        r = pos && vel && mass ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
        for (uint32_t k = 0; k < total && r == EDDY_OK; k++) {
            memcpy(pos + 4 * (size_t)k, all[k].pos, 16);
            memcpy(vel + 4 * (size_t)k, all[k].vel, 16);
            mass[k] = all[k].mass;
        }
        if (r == EDDY_OK)
            scene_set_stats(s, i, total, t, st, pos, vel, mass, clamped_all, unstable);
        if (r == EDDY_OK && !*unstable && !s->no_output && s->vtk)
            r = write_pvtp(s, i, t);
        free(pos), free(vel), free(mass);
    }
    free(all);
    int flag = *unstable;
    MPI_Bcast(&flag, 1, MPI_INT, 0, d->ctx.comm);
    *unstable = flag != 0;
    return scene_dist_agree(s, r);
}

/* The ranks' figures since the last frame into rank 0's line, as lists in
 * rank order. */
static void rank_figures(eddy_scene *s, eddy_stats *st)
{
    scene_dist *d = s->dist;
    uint64_t own = 0;
    for (uint32_t i = 0; i < s->set_count; i++)
        own += d->sets[i].owned;
    double sub = d->substeps ? (double)d->substeps : 1;
    /* The device's submissions and waits a substep: on a GPU each is a
     * round trip of tens of microseconds, the host's part of the step. */
    eddy_engine_counters c = eddy_engine_get_counters(s->e);
    enum { F = 11 };
    double mine[F] = { (double)own, (double)d->ghosts / sub, (double)d->migrations, (double)d->halo_bytes / sub,
                       d->t_compute, d->t_pack, d->t_exchange, d->t_wait, (double)d->substeps,
                       (double)(c.submits - d->submits) / sub, (double)(c.waits - d->waits) / sub };
    static const char *const key[F] = { "particles", "ghosts", "migrations", "halo_bytes", "compute_s", "pack_s",
                                         "exchange_s", "wait_s", "substeps", "submits", "waits" };
    d->submits = c.submits, d->waits = c.waits;
    int ranks = d->ctx.size;
    double *all = d->ctx.rank == 0 ? malloc((size_t)F * (size_t)ranks * sizeof *all) : NULL;
    double *got = all ? all : (double[F]){ 0 };
    MPI_Gather(mine, F, MPI_DOUBLE, d->ctx.rank == 0 ? got : NULL, F, MPI_DOUBLE, 0, d->ctx.comm);
    if (d->ctx.rank == 0 && all) {
        scene_stats_printf(st, ",\"ranks\":{\"count\":%d,\"split_moves\":%u", ranks, d->moves);
        for (int f = 0; f < F; f++) {
            scene_stats_printf(st, ",\"%s\":[", key[f]);
            for (int k = 0; k < ranks; k++)
                scene_stats_printf(st, "%s%.9g", k ? "," : "", all[F * k + f]);
            scene_stats_printf(st, "]");
        }
        scene_stats_printf(st, "}");
    }
    free(all);
    d->migrations = d->ghosts = d->substeps = d->halo_bytes = 0;
    d->t_compute = d->t_pack = d->t_exchange = d->t_wait = 0;
}

/* At a frame: a new split when the most loaded rank is more than the
 * threshold over the mean, loaded by its particles or, with "balance"
 * by time, by the compute time it measured since the last frame (busy).
 * A split by time depends on timing, the results do not: a particle's
 * sums are the same bits however the box is split. */
static eddy_result balance(eddy_scene *s, double busy)
{
    scene_dist *d = s->dist;
    double own = 0;
    for (uint32_t i = 0; i < s->set_count; i++)
        own += weighed(&d->sets[i]);
    own = s->balance_time ? busy : own;
    double *all = malloc((size_t)d->ctx.size * sizeof *all);
    if (!dist_agree(&d->ctx, all || (snprintf(d->ctx.err, sizeof d->ctx.err, "out of memory"), 0))) {
        free(all);
        return scene_dist_failed(s);
    }
    MPI_Allgather(&own, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, d->ctx.comm);
    bool uneven = dc_imbalanced(all, (uint32_t)d->ctx.size, s->balance_threshold), moved = false;
    eddy_result r = uneven ? replan(s, &moved, s->balance_time ? all : NULL) : EDDY_OK;
    free(all);
    d->moves += moved;
    return r;
}

eddy_result scene_dist_frame_end(eddy_scene *s, eddy_stats *st, eddy_result res)
{
    res = scene_dist_agree(s, res);
    if (res != EDDY_OK)
        return res;
    double busy = s->dist->t_compute; /* since the last frame: rank_figures starts them again */
    rank_figures(s, st);
    return balance(s, busy);
}

bool scene_dist_writes_frames(const eddy_scene *s, uint32_t k)
{
    const scene_dist *d = s->dist;
    if (!d)
        return true;
    int i = d->ctx.rank == 0 ? dist_set_index(s, s->systems[k].set) : -1;
    return i >= 0 && d->sets[i].whole;
}

bool scene_dist_any(eddy_scene *s, bool v)
{
    if (!s->dist)
        return v;
    int mine = v, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_LOR, s->dist->ctx.comm);
    return any != 0;
}

/* Set i whole on rank 0, in index order: every rank's owned rows gathered
 * there and put in its set's buffers (its capacity is the whole set's).
 * Collective, called for every set with what failed before (prior).
 * Rank 0 keeps owning what it owned; the rest it holds until the next
 * exchange drops them, as it drops ghosts. */
static eddy_result gather_whole(eddy_scene *s, uint32_t i, eddy_result prior)
{
    scene_dist *d = s->dist;
    dist_set *ds = &d->sets[i];
    if (ds->whole) /* rank 0 holds it already, as every rank does */
        return prior;
    bool root = d->ctx.rank == 0;
    uint32_t n = ds->owned, total = s->sets[i].count;
    unsigned char *rows = malloc((size_t)n * ds->stride + 1);
    uint32_t *ids = malloc(4ull * n + 4);
    unsigned char *all = root ? malloc((size_t)total * ds->stride + 1) : NULL;
    uint32_t *all_ids = root ? malloc(4ull * total + 4) : NULL;
    eddy_result r = prior != EDDY_OK ? prior
                  : rows && ids && (!root || (all && all_ids)) ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
    if (r == EDDY_OK)
        r = dist_owned_rows(s, i, rows, ids);
    if (r == EDDY_OK && (uint64_t)total * ds->stride > INT32_MAX)
        r = EDDY_ERROR_LIMIT;
    if ((r = scene_dist_agree(s, r)) == EDDY_OK) {
        gather_to_root(d, ids, (int)(4 * n), all_ids);
        gather_to_root(d, rows, (int)(n * ds->stride), all);
    }
    if (r == EDDY_OK && root)
        r = dist_put_whole(s, i, all, all_ids, total);
    free(rows), free(ids), free(all), free(all_ids);
    return r;
}

eddy_result scene_dist_save(eddy_scene *s, const char *path)
{
    eddy_result r = EDDY_OK;
    for (uint32_t i = 0; i < s->set_count; i++) /* every rank every set: the agreements pair */
        r = gather_whole(s, i, r);
    if (r == EDDY_OK && s->dist->ctx.rank == 0)
        r = scene_checkpoint_write(s, path);
    return scene_dist_agree(s, r);
}

#endif
