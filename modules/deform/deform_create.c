/* Making a deform system from its set (the module's create): the set read
 * to the host, the springs' rest lengths and stiffness, the pins and the
 * handle, the explicit integrators' stable step, the parameter block, the
 * buffers (the matrix in sliced ELLPACK order among them) and the kernels.
 * The module itself is deform.c. */
#include "deform_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const uint32_t springs_spv[] =
#include "deform_springs.spv.inc"
    ;
static const uint32_t assemble_spv[] =
#include "deform_assemble.spv.inc"
    ;
static const uint32_t cg_begin_spv[] =
#include "deform_cg_begin.spv.inc"
    ;
static const uint32_t cg_matvec_spv[] =
#include "deform_cg_matvec.spv.inc"
    ;
static const uint32_t cg_alpha_spv[] =
#include "deform_cg_alpha.spv.inc"
    ;
static const uint32_t cg_update_spv[] =
#include "deform_cg_update.spv.inc"
    ;
static const uint32_t cg_beta_spv[] =
#include "deform_cg_beta.spv.inc"
    ;
static const uint32_t cg_direction_spv[] =
#include "deform_cg_direction.spv.inc"
    ;
static const uint32_t implicit_end_spv[] =
#include "deform_implicit_end.spv.inc"
    ;
static const uint32_t forces_spv[] =
#include "deform_forces.spv.inc"
    ;
static const uint32_t explicit_spv[] =
#include "deform_explicit.spv.inc"
    ;
static const uint32_t handle_begin_spv[] =
#include "deform_handle_begin.spv.inc"
    ;
static const uint32_t handle_move_spv[] =
#include "deform_handle_move.spv.inc"
    ;
static const uint32_t handle_end_spv[] =
#include "deform_handle_end.spv.inc"
    ;

static eddy_buffer scratch(deform *d, const char *what, uint64_t bytes, const void *data)
{
    char label[192];
    snprintf(label, sizeof label, "%s.%s", d->name, what);
    return eddy_create_buffer(d->e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = bytes < 16 ? 16 : bytes, .label = label,
                                                         .data = data, .data_size = data ? bytes : 0 });
}

static eddy_result fail(deform *d, eddy_result r, const char *what)
{
    eddy_log(d->e, EDDY_LOG_ERROR, "system.invalid", "system '%s': %s", d->name, what);
    return r;
}

/* The factor of stiffness_scalar [s0, s1, f] at scalar s. */
static double scalar_factor(const double m[3], double s)
{
    if (m[1] <= m[0])
        return s >= m[1] ? m[2] : 1.0;
    double t = (s - m[0]) / (m[1] - m[0]);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return 1.0 + t * (m[2] - 1.0);
}

/* What create reads from the set and works on, on the host: 4 floats a
 * vertex for pos, vel, offset and prev, one value a vertex for the rest.
 * Freed when the system is made. */
typedef struct deform_host {
    float *pos, *vel, *mass, *scalar;
    uint32_t *pinned, *flags;
    float *offset; /* the handle vertices' offsets from its centre */
    float *prev;   /* Verlet's previous positions */
    eddy_buffer sb; /* the set's "scalar" buffer, if it has one */
} deform_host;

static void host_free(deform_host *h)
{
    free(h->pos);
    free(h->vel);
    free(h->mass);
    free(h->scalar);
    free(h->pinned);
    free(h->flags);
    free(h->prev);
    free(h->offset);
}

/* The set on the host (elements, positions, velocities, masses, the
 * scalar and the pins), the springs' topology from the elements, and the
 * surface drawn and written per frame: a tet mesh's boundary, a cloth's
 * triangles. */
static eddy_result read_set(deform *d, eddy_elements el, deform_host *h)
{
    eddy_engine *e = d->e;
    uint64_t idx_count = (uint64_t)el.kind * el.count;
    uint32_t *elements = malloc(idx_count * 4);
    h->pos = malloc(16ull * (d->n ? d->n : 1));
    h->vel = malloc(16ull * (d->n ? d->n : 1));
    h->mass = malloc(4ull * (d->n ? d->n : 1));
    h->scalar = malloc(4ull * (d->n ? d->n : 1));
    h->pinned = calloc(d->n ? d->n : 1, 4);
    h->flags = calloc(d->n ? d->n : 1, 4);
    eddy_result r = EDDY_OK;
    if (!elements || !h->pos || !h->vel || !h->mass || !h->scalar || !h->pinned || !h->flags)
        r = EDDY_ERROR_OUT_OF_MEMORY;
    if (r == EDDY_OK)
        r = eddy_buffer_download(e, el.buffer, 0, idx_count * 4, elements);
    if (r == EDDY_OK)
        r = eddy_buffer_download(e, eddy_particles_buffer(e, d->set, "position"), 0, 16ull * d->n, h->pos);
    if (r == EDDY_OK)
        r = eddy_buffer_download(e, eddy_particles_buffer(e, d->set, "velocity"), 0, 16ull * d->n, h->vel);
    if (r == EDDY_OK)
        r = eddy_buffer_download(e, eddy_particles_buffer(e, d->set, "mass"), 0, 4ull * d->n, h->mass);
    h->sb = eddy_particles_buffer(e, d->set, "scalar");
    eddy_buffer pb = eddy_particles_buffer(e, d->set, "pinned");
    if (r == EDDY_OK && h->sb.id)
        r = eddy_buffer_download(e, h->sb, 0, 4ull * d->n, h->scalar);
    if (r == EDDY_OK && pb.id)
        r = eddy_buffer_download(e, pb, 0, 4ull * d->n, h->pinned);
    if (r == EDDY_OK && eddy_deform_topology_build(d->n, elements, el.count, el.kind, h->pos, &d->topo) != 0)
        r = EDDY_ERROR_OUT_OF_MEMORY;
    if (r == EDDY_OK) {
        d->cells = elements;
        d->cell_count = el.count;
        d->cell_kind = el.kind;
        elements = NULL;
    }
    free(elements);
    eddy_elements surf = el.kind == EDDY_TRIANGLES ? el : eddy_particles_elements(e, d->set, "surface");
    if (r == EDDY_OK && surf.buffer.id && surf.kind == EDDY_TRIANGLES && surf.count) {
        if (!(d->surface = malloc(12ull * surf.count)))
            r = EDDY_ERROR_OUT_OF_MEMORY;
        else
            r = eddy_buffer_download(e, surf.buffer, 0, 12ull * surf.count, d->surface);
        d->surface_count = r == EDDY_OK ? surf.count : 0;
    }
    return r;
}

/* Rest lengths from the set as loaded; stiffness per spring. */
static eddy_result spring_params(deform *d, const eddy_param_value *v, const deform_host *h)
{
    const float *pos = h->pos, *scalar = h->scalar;
    char msg[512];
    if (!(d->edge_param = malloc(16ull * (d->edges ? d->edges : 1))))
        return EDDY_ERROR_OUT_OF_MEMORY;
    const double *sm = v[P_STIFFNESS_SCALAR].v;
    double ks = v[P_STIFFNESS].v[0], kd = v[P_DAMPING].v[0];
    const double kind_factor[3] = { 1, v[P_SHEAR].v[0], v[P_BENDING].v[0] };
    for (uint32_t k = 0; k < d->edges; k++) {
        uint32_t i = d->topo.edges[2 * k], j = d->topo.edges[2 * k + 1];
        double dx[3] = { pos[4 * j] - pos[4 * i], pos[4 * j + 1] - pos[4 * i + 1], pos[4 * j + 2] - pos[4 * i + 2] };
        double L = sqrt(dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2]);
        if (!(L > 0) || !isfinite(L)) {
            snprintf(msg, sizeof msg, "the spring between vertices %u and %u has rest length %g m: expected a "
                     "positive length (two vertices at one place?)", i, j, L);
            return fail(d, EDDY_ERROR_INVALID_ARGUMENT, msg);
        }
        double f = h->sb.id ? 0.5 * (scalar_factor(sm, scalar[i]) + scalar_factor(sm, scalar[j])) : 1.0;
        if (!(f > 0) || !isfinite(f)) {
            snprintf(msg, sizeof msg, "params.stiffness_scalar gives the spring between vertices %u and %u the "
                     "factor %g: expected a positive stiffness", i, j, f);
            return fail(d, EDDY_ERROR_INVALID_ARGUMENT, msg);
        }
        d->edge_param[4 * k] = (float)L;
        d->edge_param[4 * k + 1] = (float)(ks * f * kind_factor[d->topo.kind[k]]);
        d->edge_param[4 * k + 2] = (float)(kd * kind_factor[d->topo.kind[k]]);
        d->edge_param[4 * k + 3] = 0;
    }
    return EDDY_OK;
}

/* Pins: the set's "pinned" list, the box and the plane; and the handle's
 * vertices and centre. Each vertex's flags: free, the handle's, or held
 * (pinned, or without springs or mass). */
static eddy_result pin_vertices(deform *d, const eddy_param_value *v, deform_host *h)
{
    const float *pos = h->pos, *mass = h->mass;
    const uint32_t *pinned = h->pinned;
    uint32_t *flags = h->flags;
    char msg[512];
    eddy_result r = EDDY_OK;
    const double *lo = v[P_PIN_MIN].v, *hi = v[P_PIN_MAX].v, *pp = v[P_PIN_PLANE_POINT].v,
                 *pn = v[P_PIN_PLANE_NORMAL].v;
    bool box = lo[0] <= hi[0] && lo[1] <= hi[1] && lo[2] <= hi[2];
    double nl = sqrt(pn[0] * pn[0] + pn[1] * pn[1] + pn[2] * pn[2]);
    double bmin[3] = { INFINITY, INFINITY, INFINITY }, bmax[3] = { -INFINITY, -INFINITY, -INFINITY };
    for (uint32_t i = 0; i < d->n; i++)
        for (int a = 0; a < 3; a++) {
            bmin[a] = fmin(bmin[a], pos[4 * i + a]);
            bmax[a] = fmax(bmax[a], pos[4 * i + a]);
        }
    double size = fmax(bmax[0] - bmin[0], fmax(bmax[1] - bmin[1], bmax[2] - bmin[2]));
    const double *hlo = v[P_HANDLE_MIN].v, *hhi = v[P_HANDLE_MAX].v;
    bool hbox = hlo[0] <= hhi[0] && hlo[1] <= hhi[1] && hlo[2] <= hhi[2];
    uint32_t in_box = 0, on_plane = 0;
    for (uint32_t i = 0; r == EDDY_OK && i < d->n; i++) {
        const float *x = pos + 4 * i;
        bool pin = pinned[i] != 0;
        if (hbox && x[0] >= hlo[0] && x[0] <= hhi[0] && x[1] >= hlo[1] && x[1] <= hhi[1] && x[2] >= hlo[2] &&
            x[2] <= hhi[2]) {
            flags[i] = EDDY_DEFORM_HANDLE;
            for (int a = 0; a < 3; a++)
                d->handle_centre[a] += x[a];
            d->handle_count++;
            continue;
        }
        if (box && x[0] >= lo[0] && x[0] <= hi[0] && x[1] >= lo[1] && x[1] <= hi[1] && x[2] >= lo[2] &&
            x[2] <= hi[2]) {
            pin = true;
            in_box++;
        }
        if (nl > 0 && ((x[0] - pp[0]) * pn[0] + (x[1] - pp[1]) * pn[1] + (x[2] - pp[2]) * pn[2]) / nl <= 1e-6 * size) {
            pin = true;
            on_plane++;
        }
        bool springs = d->topo.rows[i + 1] > d->topo.rows[i];
        flags[i] = !pin && mass[i] > 0 && springs ? EDDY_DEFORM_FREE : 0;
        if (!pin && springs && !(mass[i] > 0)) {
            snprintf(msg, sizeof msg, "vertex %u has springs but mass %g kg: expected a positive mass", i, mass[i]);
            r = fail(d, EDDY_ERROR_INVALID_ARGUMENT, msg);
        }
    }
    if (r == EDDY_OK && box && in_box == 0) {
        snprintf(msg, sizeof msg, "params.pin_min/pin_max: the box [%g, %g, %g] .. [%g, %g, %g] holds none of the "
                 "set's vertices (they span [%g, %g, %g] .. [%g, %g, %g])", lo[0], lo[1], lo[2], hi[0], hi[1], hi[2],
                 bmin[0], bmin[1], bmin[2], bmax[0], bmax[1], bmax[2]);
        r = fail(d, EDDY_ERROR_INVALID_ARGUMENT, msg);
    }
    if (r == EDDY_OK && hbox && d->handle_count == 0) {
        snprintf(msg, sizeof msg, "params.handle_min/handle_max: the box [%g, %g, %g] .. [%g, %g, %g] holds none of "
                 "the set's vertices (they span [%g, %g, %g] .. [%g, %g, %g])", hlo[0], hlo[1], hlo[2], hhi[0],
                 hhi[1], hhi[2], bmin[0], bmin[1], bmin[2], bmax[0], bmax[1], bmax[2]);
        r = fail(d, EDDY_ERROR_INVALID_ARGUMENT, msg);
    }
    for (int a = 0; a < 3 && d->handle_count; a++)
        d->handle_centre[a] /= d->handle_count;
    if (r == EDDY_OK && nl > 0 && on_plane == 0) {
        snprintf(msg, sizeof msg, "params.pin_plane_point/pin_plane_normal: no vertex lies on the plane or behind it");
        r = fail(d, EDDY_ERROR_INVALID_ARGUMENT, msg);
    }
    return r;
}

/* The explicit integrators' largest stable substep, with the springs'
 * damping: for x'' = -w^2 x - g x' symplectic Euler is stable while
 * h^2 w^2 + 2 h g <= 4, so h <= (sqrt(g^2 + 4 w^2) - g) / w^2 (2 / w
 * undamped), with w^2 <= 4 sum(k) / m and g <= (2 sum(kd) + drag m) / m
 * over each vertex's springs (Gershgorin). */
static void stable_step(deform *d, const eddy_param_value *v, const float *mass)
{
    for (uint32_t i = 0; i < d->n; i++) {
        double k = 0, kd = 0;
        for (uint32_t a = d->topo.rows[i]; a < d->topo.rows[i + 1]; a++) {
            const float *ep = d->edge_param + 4 * (d->topo.adj[2 * a + 1] & 0x7fffffffu);
            k += ep[1];
            kd += ep[2];
        }
        if (!(k > 0) || !(mass[i] > 0))
            continue;
        double w2 = 4 * k / mass[i], g = 2 * kd / mass[i] + v[P_DRAG].v[0];
        d->dt_stable = fmin(d->dt_stable, (sqrt(g * g + 4 * w2) - g) / w2);
    }
}

/* The parameter block. */
static void param_block(deform *d, const eddy_system_ctx *ctx, const eddy_param_value *v)
{
    d->groups = (d->n + EDDY_DEFORM_GROUP - 1) / EDDY_DEFORM_GROUP;
    struct eddy_deform_params *p = &d->p;
    for (int a = 0; a < 3; a++) {
        p->gravity[a] = (float)v[P_GRAVITY].v[a];
        p->box_min[a] = ctx->box_min[a];
        p->box_max[a] = ctx->box_max[a];
    }
    p->gravity[3] = (float)ctx->dt;
    p->box_min[3] = (float)v[P_CONTACT_STIFFNESS].v[0];
    p->box_max[3] = (float)v[P_CONTACT_DAMPING].v[0];
    p->solver[0] = (float)v[P_TOLERANCE].v[0];
    p->solver[1] = (float)v[P_RESTITUTION].v[0];
    p->solver[2] = (float)v[P_DRAG].v[0];
    p->counts[0] = d->n;
    p->counts[1] = d->edges;
    p->counts[2] = ctx->solid_count;
    p->counts[3] = (uint32_t)v[P_INTEGRATOR].v[0];
    p->misc[0] = (uint32_t)v[P_MAX_ITERATIONS].v[0];
    p->misc[1] = (v[P_DEFINITE].v[0] != 0 ? EDDY_DEFORM_DEFINITE : 0) | (v[P_JACOBI].v[0] != 0 ? EDDY_DEFORM_JACOBI : 0) |
                 (v[P_DAMPING_MODEL].v[0] != 0 ? EDDY_DEFORM_ISOTROPIC : 0);
    p->misc[2] = d->groups;
}

/* The handle's vertices keep their offsets from its centre; Verlet starts
 * from x_prev = x - h v. */
static eddy_result start_state(deform *d, const eddy_system_ctx *ctx, deform_host *h)
{
    if (d->handle_count) {
        if (!(h->offset = calloc(4ull * d->n, sizeof(float))))
            return EDDY_ERROR_OUT_OF_MEMORY;
        for (uint32_t i = 0; i < d->n; i++)
            for (int a = 0; a < 3 && (h->flags[i] & EDDY_DEFORM_HANDLE); a++)
                h->offset[4 * i + a] = (float)(h->pos[4 * i + a] - d->handle_centre[a]);
    }
    if ((h->prev = calloc(4ull * (d->n ? d->n : 1), sizeof(float))) == NULL)
        return EDDY_ERROR_OUT_OF_MEMORY;
    if (d->p.counts[3] == EDDY_DEFORM_VERLET)
        for (uint32_t i = 0; i < 4 * d->n; i++)
            h->prev[i] = i % 4 == 3 ? 0 : h->pos[i] - (float)ctx->dt * h->vel[i];
    return EDDY_OK;
}

/* The matrix's off-diagonal blocks in sliced ELLPACK (8 rows a slice,
 * lavapipe's SIMD width): the rows of a slice run the same number of
 * entries, and its 8 lanes read consecutive entries. Row i's entry j is at
 * start[i / 8] + 8 j + i % 8, in the CSR order of the row (the same sums).
 * A buffer left unmade is refused by the caller. */
static void sell_buffers(deform *d)
{
    eddy_engine *e = d->e;
    uint64_t n = d->n, E = d->edges;
    uint64_t S = (n + EDDY_DEFORM_SLICE - 1) / EDDY_DEFORM_SLICE, total = 0;
    uint32_t *start = malloc(4 * (S + 1)), *slots = calloc(2 * E + 2, 4), *col = NULL;
    for (uint64_t s = 0; start && s < S; s++) {
        uint32_t w = 0;
        for (uint64_t i = s * EDDY_DEFORM_SLICE; i < n && i < (s + 1) * EDDY_DEFORM_SLICE; i++)
            w = d->topo.rows[i + 1] - d->topo.rows[i] > w ? d->topo.rows[i + 1] - d->topo.rows[i] : w;
        start[s] = (uint32_t)total;
        total += (uint64_t)w * EDDY_DEFORM_SLICE;
    }
    if (start)
        start[S] = (uint32_t)total;
    if (total > UINT32_MAX / 32)
        start = (free(start), NULL);
    if (start && slots && (col = malloc(4 * total + 4))) {
        for (uint64_t s = 0; s < S; s++)
            for (uint64_t q = start[s]; q < start[s + 1]; q++) {
                uint64_t row = s * EDDY_DEFORM_SLICE + (q - start[s]) % EDDY_DEFORM_SLICE;
                col[q] = row < n ? (uint32_t)row : 0; /* padding: a zero block */
            }
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t k = d->topo.rows[i]; k < d->topo.rows[i + 1]; k++) {
                uint32_t q = start[i / EDDY_DEFORM_SLICE] + EDDY_DEFORM_SLICE * (k - d->topo.rows[i]) +
                             i % EDDY_DEFORM_SLICE;
                col[q] = d->topo.adj[2 * k];
                slots[2 * (d->topo.adj[2 * k + 1] & 0x7fffffffu) + (d->topo.adj[2 * k + 1] >> 31)] = q;
            }
        d->sell_start = scratch(d, "sell.start", 4 * (S + 1), start);
        d->sell_col = scratch(d, "sell.column", 4 * total, col);
        d->edge_slots = scratch(d, "sell.edge_slots", 8 * E, slots);
        d->adj_block = scratch(d, "sell.block", 32 * total, NULL);
        if (d->adj_block.id && eddy_buffer_fill(e, d->adj_block, 0, 32 * total, 0) != EDDY_OK)
            d->adj_block = (eddy_buffer){ 0 };
    }
    free(start), free(slots), free(col);
}

/* The handle's state, its vertices' offsets and forces, and the sum of
 * those forces. */
static eddy_result handle_buffers(deform *d, const float *offset)
{
    uint64_t n = d->n;
    struct eddy_deform_handle h0 = { .clock = { d->substeps, d->substeps } };
    for (int a = 0; a < 3; a++)
        h0.from[a] = h0.to[a] = h0.start[a] = h0.centre[a] = (float)d->handle_centre[a];
    d->handle_host = h0;
    d->handle = scratch(d, "handle", sizeof h0, &h0);
    d->offset = scratch(d, "handle.offset", 16 * n, offset);
    d->hforce = scratch(d, "handle.vertex_force", 16 * n, NULL);
    d->hsum = scratch(d, "handle.force_sum", 16, NULL);
    char rl[192];
    snprintf(rl, sizeof rl, "%s.handle_reduce", d->name);
    d->reduce = eddy_create_reduce(d->e, &(eddy_reduce_desc){ EDDY_SIZED(eddy_reduce_desc), .label = rl, .max_count = d->n });
    if (!d->handle.id || !d->offset.id || !d->hforce.id || !d->hsum.id || !d->reduce)
        return EDDY_ERROR_OUT_OF_MEMORY;
    return EDDY_OK;
}

/* The integrator's own buffers: the explicit ones' previous positions, or
 * implicit Euler's CG vectors and solver state. */
static eddy_result integrator_buffers(deform *d, const float *prev)
{
    uint64_t n = d->n;
    if (d->p.counts[3] != EDDY_DEFORM_IMPLICIT) {
        d->prev = scratch(d, "prev", 16 * n, prev);
        if (!d->force.id || !d->prev.id)
            return EDDY_ERROR_OUT_OF_MEMORY;
        return EDDY_OK;
    }
    d->diag = scratch(d, "cg.diag", 64 * n, NULL);
    d->cg_x = scratch(d, "cg.x", 16 * n, NULL);
    d->cg_r = scratch(d, "cg.r", 16 * n, NULL);
    d->cg_z = scratch(d, "cg.z", 16 * n, NULL);
    d->cg_p = scratch(d, "cg.p", 16 * n, NULL);
    d->cg_q = scratch(d, "cg.q", 16 * n, NULL);
    d->partials = scratch(d, "cg.partials", 16ull * (d->groups ? d->groups : 1), NULL);
    d->cg = scratch(d, "cg.state", 64, NULL); /* CgState, deform_cg.glsl */
    d->args = scratch(d, "cg.args", 24, NULL);
    if (!d->diag.id || !d->cg_x.id || !d->cg_r.id || !d->cg_z.id || !d->cg_p.id || !d->cg_q.id ||
        !d->partials.id || !d->cg.id || !d->args.id)
        return EDDY_ERROR_OUT_OF_MEMORY;
    return EDDY_OK;
}

/* The set's buffers the system uses and the ones it makes. Every buffer is
 * attempted before a missing one is reported. */
static eddy_result create_buffers(deform *d, const eddy_system_ctx *ctx, const deform_host *h)
{
    eddy_engine *e = d->e;
    eddy_result r = EDDY_OK;
    uint64_t n = d->n, E = d->edges;
    d->position = eddy_particles_buffer(e, d->set, "position");
    d->velocity = eddy_particles_buffer(e, d->set, "velocity");
    d->mass = eddy_particles_buffer(e, d->set, "mass");
    d->clamped = eddy_particles_add_buffer(e, d->set, "clamped", 4);
    if (!d->clamped.id)
        r = EDDY_ERROR_OUT_OF_MEMORY;
    d->params = scratch(d, "params", sizeof d->p, &d->p);
    d->solids = scratch(d, "solids", sizeof(eddy_solid) * (ctx->solid_count ? ctx->solid_count : 1),
                        ctx->solid_count ? ctx->solids : NULL);
    d->flags = scratch(d, "flags", 4 * n, h->flags);
    d->rows = scratch(d, "rows", 4 * (n + 1), d->topo.rows);
    d->adj = scratch(d, "adjacency", 16 * E, d->topo.adj);
    d->edge_buf = scratch(d, "edges", 8 * E, d->topo.edges);
    d->edge_param_buf = scratch(d, "edge_param", 16 * E, d->edge_param);
    d->edge_force = scratch(d, "edge_force", 32 * E, NULL);
    d->edge_block = scratch(d, "edge_block", 32 * E, NULL);
    sell_buffers(d);
    if (d->handle_count && handle_buffers(d, h->offset) != EDDY_OK)
        r = EDDY_ERROR_OUT_OF_MEMORY;
    if (d->p.counts[3] != EDDY_DEFORM_IMPLICIT || d->handle_count) {
        d->force = scratch(d, "force", 16 * n, NULL);
        if (!d->force.id)
            r = EDDY_ERROR_OUT_OF_MEMORY;
    }
    if (!d->hforce.id && d->force.id) { /* bound, not written, without a handle */
        d->hforce = scratch(d, "handle.vertex_force", 16, NULL);
        if (!d->hforce.id)
            r = EDDY_ERROR_OUT_OF_MEMORY;
    }
    if (integrator_buffers(d, h->prev) != EDDY_OK)
        r = EDDY_ERROR_OUT_OF_MEMORY;
    if (!d->params.id || !d->solids.id || !d->flags.id || !d->rows.id || !d->adj.id || !d->edge_buf.id ||
        !d->edge_param_buf.id || !d->edge_force.id || !d->edge_block.id || !d->sell_start.id ||
        !d->sell_col.id || !d->edge_slots.id || !d->adj_block.id)
        r = EDDY_ERROR_OUT_OF_MEMORY;
    return r;
}

/* A fluid with the set in its boundary slot (modules/couple) weighs each
 * vertex's inverse mass in its projection: 1/m for a free vertex, 0 for a
 * pinned or handle vertex (it does not yield). The buffer is the fluid's
 * when the fluid was created first. Also the zero external force bound
 * when no other system pushes the set. */
static eddy_result inverse_mass(deform *d, const deform_host *h)
{
    eddy_engine *e = d->e;
    uint64_t n = d->n;
    eddy_result r = EDDY_OK;
    d->inverse_mass = eddy_particles_buffer(e, d->set, "rigid.inverse_mass");
    if (!d->inverse_mass.id)
        d->inverse_mass = eddy_particles_add_buffer(e, d->set, "rigid.inverse_mass", 4);
    float *inv = malloc(4 * n + 4);
    for (uint32_t i = 0; inv && i < d->n; i++)
        inv[i] = (h->flags[i] & EDDY_DEFORM_FREE) ? 1.0f / h->mass[i] : 0.0f;
    if (!inv || !d->inverse_mass.id || eddy_buffer_upload(e, d->inverse_mass, 0, 4 * n, inv) != EDDY_OK)
        r = EDDY_ERROR_OUT_OF_MEMORY;
    free(inv);
    d->external_none = scratch(d, "external.none", 16, NULL);
    if (!d->external_none.id)
        r = EDDY_ERROR_OUT_OF_MEMORY;
    return r;
}

/* The kernels the integrator and the handle need. */
static eddy_result create_kernels(deform *d)
{
    static const struct {
        const uint32_t *spv;
        size_t size;
        const char *what;
    } ks_[K_COUNT] = {
        [K_SPRINGS] = { springs_spv, sizeof springs_spv, "springs" },
        [K_ASSEMBLE] = { assemble_spv, sizeof assemble_spv, "assemble" },
        [K_CG_BEGIN] = { cg_begin_spv, sizeof cg_begin_spv, "cg_begin" },
        [K_CG_MATVEC] = { cg_matvec_spv, sizeof cg_matvec_spv, "cg_matvec" },
        [K_CG_ALPHA] = { cg_alpha_spv, sizeof cg_alpha_spv, "cg_alpha" },
        [K_CG_UPDATE] = { cg_update_spv, sizeof cg_update_spv, "cg_update" },
        [K_CG_BETA] = { cg_beta_spv, sizeof cg_beta_spv, "cg_beta" },
        [K_CG_DIRECTION] = { cg_direction_spv, sizeof cg_direction_spv, "cg_direction" },
        [K_IMPLICIT_END] = { implicit_end_spv, sizeof implicit_end_spv, "implicit_end" },
        [K_FORCES] = { forces_spv, sizeof forces_spv, "forces" },
        [K_EXPLICIT] = { explicit_spv, sizeof explicit_spv, "explicit" },
        [K_HANDLE_BEGIN] = { handle_begin_spv, sizeof handle_begin_spv, "handle_begin" },
        [K_HANDLE_MOVE] = { handle_move_spv, sizeof handle_move_spv, "handle_move" },
        [K_HANDLE_END] = { handle_end_spv, sizeof handle_end_spv, "handle_end" },
    };
    bool implicit = d->p.counts[3] == EDDY_DEFORM_IMPLICIT;
    for (int i = 0; i < K_COUNT; i++) {
        bool need = i == K_SPRINGS || (implicit ? i <= K_IMPLICIT_END : i == K_FORCES || i == K_EXPLICIT) ||
                    (d->handle_count && (i >= K_HANDLE_BEGIN || i == K_FORCES));
        if (!need)
            continue;
        char label[192];
        snprintf(label, sizeof label, "deform.%s", ks_[i].what);
        /* The forces pass writes the handle vertices' forces only when
         * there is a handle (constant 1). */
        d->k[i] = eddy_create_kernel(d->e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = label, .spirv = ks_[i].spv,
                                                                .spirv_size = ks_[i].size,
                                                                .specialization = { { 1, d->handle_count > 0 } },
                                                                .specialization_count = i == K_FORCES });
        if (!d->k[i].id)
            return EDDY_ERROR_VULKAN;
    }
    return EDDY_OK;
}

eddy_result eddy_deform_create(const eddy_system_ctx *ctx, void **state)
{
    eddy_engine *e = ctx->engine;
    deform *d = calloc(1, sizeof *d);
    if (!d)
        return EDDY_ERROR_OUT_OF_MEMORY;
    *state = d;
    d->e = e;
    d->set = ctx->particles;
    snprintf(d->name, sizeof d->name, "%s", ctx->name);
    d->n = eddy_particles_count(e, d->set);
    const eddy_param_value *v = ctx->params;

    /* The springs: the tets' edges (or a cloth's triangles'). */
    eddy_elements el = eddy_particles_elements(e, d->set, "tets");
    if (!el.buffer.id)
        el = eddy_particles_elements(e, d->set, "triangles");
    if (!el.buffer.id)
        el = eddy_particles_elements(e, d->set, "springs");
    if (!el.buffer.id || el.count == 0) {
        char msg[512];
        snprintf(msg, sizeof msg, "set '%s' has no \"tets\", \"triangles\" or \"springs\" elements to make "
                 "springs of (give the set a \"tetmesh\")", eddy_particles_name(e, d->set));
        return fail(d, EDDY_ERROR_INVALID_ARGUMENT, msg);
    }
    deform_host h = { 0 };
    eddy_result r = read_set(d, el, &h);
    d->has_scalar = h.sb.id != 0;
    d->edges = d->topo.edge_count;
    if (r == EDDY_OK)
        r = spring_params(d, v, &h);
    if (r == EDDY_OK)
        r = pin_vertices(d, v, &h);
    /* No bound for implicit Euler. */
    d->dt_stable = INFINITY;
    if (r == EDDY_OK && v[P_INTEGRATOR].v[0] != EDDY_DEFORM_IMPLICIT)
        stable_step(d, v, h.mass);
    param_block(d, ctx, v);
    d->substeps = ctx->substeps ? ctx->substeps : 1;
    d->step_dt = ctx->dt * d->substeps;
    if (r == EDDY_OK)
        r = start_state(d, ctx, &h);
    if (r == EDDY_OK)
        r = create_buffers(d, ctx, &h);
    if (r == EDDY_OK)
        r = inverse_mass(d, &h);
    host_free(&h);
    if (r != EDDY_OK)
        return r;
    return create_kernels(d);
}
