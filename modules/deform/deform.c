/* deform module: see README.md beside this file. */
#include "deform.h"

#include "eddy/eddy_output.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eddy/eddy_prims.h"
#include "rigid/rigid.h"

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

enum {
    P_INTEGRATOR,
    P_STIFFNESS,
    P_DAMPING,
    P_DAMPING_MODEL,
    P_STIFFNESS_SCALAR,
    P_SHEAR,
    P_BENDING,
    P_GRAVITY,
    P_DRAG,
    P_TOLERANCE,
    P_MAX_ITERATIONS,
    P_JACOBI,
    P_DEFINITE,
    P_CONTACT_STIFFNESS,
    P_CONTACT_DAMPING,
    P_RESTITUTION,
    P_PIN_MIN,
    P_PIN_MAX,
    P_PIN_PLANE_POINT,
    P_PIN_PLANE_NORMAL,
    P_HANDLE_MIN,
    P_HANDLE_MAX,
    P_COUNT
};

static const eddy_param_info params[P_COUNT] = {
    [P_INTEGRATOR] = { "integrator", EDDY_PARAM_INT, "1", { 0 }, 0, 4,
                       "0 implicit Euler (CG), 1 explicit Euler, 2 symplectic Euler, 3 Verlet, 4 velocity Verlet" },
    [P_STIFFNESS] = { "stiffness", EDDY_PARAM_FLOAT, "N/m", { 30000 }, 1e-9, 1e12,
                      "spring constant ks of every spring (scaled per vertex by stiffness_scalar)" },
    [P_DAMPING] = { "damping", EDDY_PARAM_FLOAT, "N s/m", { 1 }, 0, 1e12,
                    "spring damping kd (see damping_model)" },
    [P_DAMPING_MODEL] = { "damping_model", EDDY_PARAM_INT, "1", { 0 }, 0, 1,
                          "0: along the spring, kd ((v_j - v_i) . n) n (damps stretching, not rigid rotation); "
                          "1: the paper's -kd (v_i - v_j), which also slows a spinning body" },
    [P_STIFFNESS_SCALAR] = { "stiffness_scalar", EDDY_PARAM_VEC3, "1", { 0, 1, 1 }, -1e30, 1e30,
                             "[s0, s1, f]: a vertex's stiffness factor goes linearly from 1 at scalar <= s0 "
                             "to f at scalar >= s1 (the set's \"scalar\" buffer); a spring takes the mean of "
                             "its ends'" },
    [P_SHEAR] = { "shear", EDDY_PARAM_FLOAT, "1", { 1 }, 0, 1e6,
                  "cloth: a shear spring's stiffness and damping as a factor of stiffness and damping (the "
                  "other diagonal of a quad of two triangles)" },
    [P_BENDING] = { "bending", EDDY_PARAM_FLOAT, "1", { 0.1 }, 0, 1e6,
                    "cloth: a bending spring's stiffness and damping (across an edge of two triangles) as a "
                    "factor of stiffness and damping; 0: no bending resistance" },
    [P_GRAVITY] = { "gravity", EDDY_PARAM_VEC3, "m/s^2", { 0, -9.81, 0 }, -1e4, 1e4, "uniform acceleration" },
    [P_DRAG] = { "drag", EDDY_PARAM_FLOAT, "1/s", { 0 }, 0, 1e6,
                  "air drag: every vertex feels -drag m v (damps the rigid swinging the springs' damping leaves, "
                  "as air does a cloth's); 0: none" },
    [P_TOLERANCE] = { "tolerance", EDDY_PARAM_FLOAT, "1", { 1e-5 }, 1e-12, 1,
                      "implicit: CG stops when |r| / |b| is at most this" },
    [P_MAX_ITERATIONS] = { "max_iterations", EDDY_PARAM_INT, "1", { 100 }, 1, 10000,
                           "implicit: CG iterations at most per step (recorded; the ones after convergence are "
                           "empty dispatches)" },
    [P_JACOBI] = { "jacobi", EDDY_PARAM_BOOL, "1", { 1 }, 0, 1,
                   "implicit: block-diagonal (Jacobi) preconditioner; false: the paper's plain CG" },
    [P_DEFINITE] = { "definite", EDDY_PARAM_BOOL, "1", { 1 }, 0, 1,
                     "implicit: drop the negative stiffness of compressed springs from the Jacobian "
                     "(keeps the system positive definite); false: the exact Jacobian" },
    [P_CONTACT_STIFFNESS] = { "contact_stiffness", EDDY_PARAM_FLOAT, "N/m", { 1e5 }, 0, 1e12,
                              "penalty stiffness of a vertex against the box walls and the solids, within "
                              "the vertex's radius" },
    [P_CONTACT_DAMPING] = { "contact_damping", EDDY_PARAM_FLOAT, "N s/m", { 0 }, 0, 1e12,
                            "damping of the normal velocity in contact" },
    [P_RESTITUTION] = { "restitution", EDDY_PARAM_FLOAT, "1", { 0 }, 0, 1,
                        "of the position clamp that catches vertices the contact forces left inside" },
    [P_PIN_MIN] = { "pin_min", EDDY_PARAM_VEC3, "m", { 1e30, 1e30, 1e30 }, -1e30, 1e30,
                    "vertices inside the box [pin_min, pin_max] (at the start) are pinned; default none" },
    [P_PIN_MAX] = { "pin_max", EDDY_PARAM_VEC3, "m", { -1e30, -1e30, -1e30 }, -1e30, 1e30,
                    "the other corner of the pinning box" },
    [P_PIN_PLANE_POINT] = { "pin_plane_point", EDDY_PARAM_VEC3, "m", { 0, 0, 0 }, -1e30, 1e30,
                            "a point of the pinning plane" },
    [P_PIN_PLANE_NORMAL] = { "pin_plane_normal", EDDY_PARAM_VEC3, "1", { 0, 0, 0 }, -1e30, 1e30,
                             "vertices on the plane or behind it (against this normal, within 1e-6 of the "
                             "body's size) are pinned; zero: no plane" },
    [P_HANDLE_MIN] = { "handle_min", EDDY_PARAM_VEC3, "m", { 1e30, 1e30, 1e30 }, -1e30, 1e30,
                       "vertices inside the box [handle_min, handle_max] (at the start) are the handle: they move "
                       "rigidly with the input port handle.position (a vertex in both a pin and the handle is "
                       "the handle's); default none" },
    [P_HANDLE_MAX] = { "handle_max", EDDY_PARAM_VEC3, "m", { -1e30, -1e30, -1e30 }, -1e30, 1e30,
                       "the other corner of the handle box" },
};

static const char *const shared[] = { "position", "velocity", "mass", "scalar", "pinned", "clamped" };

enum {
    K_SPRINGS,
    K_ASSEMBLE,
    K_CG_BEGIN,
    K_CG_MATVEC,
    K_CG_ALPHA,
    K_CG_UPDATE,
    K_CG_BETA,
    K_CG_DIRECTION,
    K_IMPLICIT_END,
    K_FORCES,
    K_EXPLICIT,
    K_HANDLE_BEGIN,
    K_HANDLE_MOVE,
    K_HANDLE_END,
    K_COUNT
};

typedef struct deform {
    eddy_engine *e;
    char name[128];
    eddy_particles set;
    uint32_t n, edges, groups;
    struct eddy_deform_params p;
    eddy_deform_topology topo;
    float *edge_param;         /* host copy: 4 per edge */
    uint32_t *cells;           /* host copy of the elements (output; stats: inverted tets) */
    uint32_t cell_count, cell_kind;
    uint32_t *surface;         /* host copy of the boundary triangles (tets' "surface", a cloth's own) */
    uint32_t surface_count;
    bool has_scalar;
    eddy_pvd_entry *series[2]; /* the .pvd series of the .vtu and of the surface */
    uint32_t series_count[2];
    double dt_stable;          /* s: the explicit integrators' bound (stable_dt) */
    eddy_kernel k[K_COUNT];
    eddy_buffer position, velocity, mass, clamped;
    eddy_buffer params, solids, flags, rows, adj, edge_buf, edge_param_buf, edge_force, edge_block;
    /* The matrix's off-diagonal blocks in sliced ELLPACK order (slices of 8
     * rows, each padded to its longest, column-major inside the slice):
     * where each slice starts, the column (neighbour) of each entry, each
     * spring's two entries, and O per entry (padding: zero blocks). */
    eddy_buffer sell_start, sell_col, edge_slots, adj_block;
    eddy_buffer diag, cg_x, cg_r, cg_z, cg_p, cg_q, partials, cg, args, force, prev;
    /* the handle (handle_count > 0) */
    uint32_t handle_count, substeps;
    double step_dt;                      /* s: one step (substeps x dt) */
    double handle_centre[3];             /* m: where the handle starts */
    eddy_buffer handle, offset, hforce, hsum;
    eddy_reduce *reduce;
    /* forces from other systems (a fluid, a rigid set): the set's
     * rigid.external slices, summed when there are several */
    eddy_kernel external_kernel;
    eddy_buffer external_sum, external_none, inverse_mass;
    eddy_buffer external; /* bound: a slice, the sum, or external_none */
    struct eddy_deform_handle handle_host; /* after the last step (a staged read) */
    bool handle_read;
} deform;

static eddy_buffer scratch(deform *d, const char *what, uint64_t bytes, const void *data)
{
    char label[192];
    snprintf(label, sizeof label, "%s.%s", d->name, what);
    return eddy_create_buffer(d->e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = bytes < 16 ? 16 : bytes, .label = label,
                                                         .data = data, .data_size = data ? bytes : 0 });
}

static void destroy(void *state)
{
    deform *d = state;
    if (!d)
        return;
    for (int i = 0; i < K_COUNT; i++)
        eddy_destroy_kernel(d->e, d->k[i]);
    eddy_buffer *b[] = { &d->params, &d->solids, &d->flags, &d->rows, &d->adj, &d->edge_buf, &d->edge_param_buf,
                         &d->edge_force, &d->edge_block, &d->sell_start, &d->sell_col, &d->edge_slots,
                         &d->adj_block, &d->diag, &d->cg_x, &d->cg_r, &d->cg_z, &d->cg_p,
                         &d->cg_q, &d->partials, &d->cg, &d->args, &d->force, &d->prev, &d->handle,
                         &d->offset, &d->hforce, &d->hsum, &d->external_sum, &d->external_none };
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
        eddy_destroy_buffer(d->e, *b[i]);
    eddy_destroy_kernel(d->e, d->external_kernel);
    eddy_destroy_reduce(d->e, d->reduce);
    eddy_deform_topology_free(&d->topo);
    free(d->edge_param);
    free(d->cells);
    free(d->surface);
    for (int s = 0; s < 2; s++) {
        for (uint32_t i = 0; i < d->series_count[s]; i++)
            free((char *)d->series[s][i].file);
        free(d->series[s]);
    }
    free(d);
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

static eddy_result create(const eddy_system_ctx *ctx, void **state)
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
    char msg[512];

    /* The springs: the tets' edges (or a cloth's triangles'). */
    eddy_elements el = eddy_particles_elements(e, d->set, "tets");
    if (!el.buffer.id)
        el = eddy_particles_elements(e, d->set, "triangles");
    if (!el.buffer.id)
        el = eddy_particles_elements(e, d->set, "springs");
    if (!el.buffer.id || el.count == 0) {
        snprintf(msg, sizeof msg, "set '%s' has no \"tets\", \"triangles\" or \"springs\" elements to make "
                 "springs of (give the set a \"tetmesh\")", eddy_particles_name(e, d->set));
        return fail(d, EDDY_ERROR_INVALID_ARGUMENT, msg);
    }
    uint64_t idx_count = (uint64_t)el.kind * el.count;
    uint32_t *elements = malloc(idx_count * 4);
    float *pos = malloc(16ull * (d->n ? d->n : 1)), *vel = malloc(16ull * (d->n ? d->n : 1));
    float *mass = malloc(4ull * (d->n ? d->n : 1)), *scalar = malloc(4ull * (d->n ? d->n : 1));
    uint32_t *pinned = calloc(d->n ? d->n : 1, 4), *flags = calloc(d->n ? d->n : 1, 4);
    eddy_result r = EDDY_OK;
    if (!elements || !pos || !vel || !mass || !scalar || !pinned || !flags)
        r = EDDY_ERROR_OUT_OF_MEMORY;
    if (r == EDDY_OK)
        r = eddy_buffer_download(e, el.buffer, 0, idx_count * 4, elements);
    if (r == EDDY_OK)
        r = eddy_buffer_download(e, eddy_particles_buffer(e, d->set, "position"), 0, 16ull * d->n, pos);
    if (r == EDDY_OK)
        r = eddy_buffer_download(e, eddy_particles_buffer(e, d->set, "velocity"), 0, 16ull * d->n, vel);
    if (r == EDDY_OK)
        r = eddy_buffer_download(e, eddy_particles_buffer(e, d->set, "mass"), 0, 4ull * d->n, mass);
    eddy_buffer sb = eddy_particles_buffer(e, d->set, "scalar"), pb = eddy_particles_buffer(e, d->set, "pinned");
    if (r == EDDY_OK && sb.id)
        r = eddy_buffer_download(e, sb, 0, 4ull * d->n, scalar);
    if (r == EDDY_OK && pb.id)
        r = eddy_buffer_download(e, pb, 0, 4ull * d->n, pinned);
    if (r == EDDY_OK && eddy_deform_topology_build(d->n, elements, el.count, el.kind, pos, &d->topo) != 0)
        r = EDDY_ERROR_OUT_OF_MEMORY;
    if (r == EDDY_OK) {
        d->cells = elements;
        d->cell_count = el.count;
        d->cell_kind = el.kind;
        elements = NULL;
    }
    free(elements);
    /* The surface drawn and written per frame: a tet mesh's boundary, a
     * cloth's triangles. */
    eddy_elements surf = el.kind == EDDY_TRIANGLES ? el : eddy_particles_elements(e, d->set, "surface");
    if (r == EDDY_OK && surf.buffer.id && surf.kind == EDDY_TRIANGLES && surf.count) {
        if (!(d->surface = malloc(12ull * surf.count)))
            r = EDDY_ERROR_OUT_OF_MEMORY;
        else
            r = eddy_buffer_download(e, surf.buffer, 0, 12ull * surf.count, d->surface);
        d->surface_count = r == EDDY_OK ? surf.count : 0;
    }
    d->has_scalar = sb.id != 0;
    d->edges = d->topo.edge_count;
    if (r == EDDY_OK && !(d->edge_param = malloc(16ull * (d->edges ? d->edges : 1))))
        r = EDDY_ERROR_OUT_OF_MEMORY;

    /* Rest lengths from the set as loaded; stiffness per spring. */
    const double *sm = v[P_STIFFNESS_SCALAR].v;
    double ks = v[P_STIFFNESS].v[0], kd = v[P_DAMPING].v[0];
    const double kind_factor[3] = { 1, v[P_SHEAR].v[0], v[P_BENDING].v[0] };
    for (uint32_t k = 0; r == EDDY_OK && k < d->edges; k++) {
        uint32_t i = d->topo.edges[2 * k], j = d->topo.edges[2 * k + 1];
        double dx[3] = { pos[4 * j] - pos[4 * i], pos[4 * j + 1] - pos[4 * i + 1], pos[4 * j + 2] - pos[4 * i + 2] };
        double L = sqrt(dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2]);
        if (!(L > 0) || !isfinite(L)) {
            snprintf(msg, sizeof msg, "the spring between vertices %u and %u has rest length %g m: expected a "
                     "positive length (two vertices at one place?)", i, j, L);
            r = fail(d, EDDY_ERROR_INVALID_ARGUMENT, msg);
            break;
        }
        double f = sb.id ? 0.5 * (scalar_factor(sm, scalar[i]) + scalar_factor(sm, scalar[j])) : 1.0;
        if (!(f > 0) || !isfinite(f)) {
            snprintf(msg, sizeof msg, "params.stiffness_scalar gives the spring between vertices %u and %u the "
                     "factor %g: expected a positive stiffness", i, j, f);
            r = fail(d, EDDY_ERROR_INVALID_ARGUMENT, msg);
            break;
        }
        d->edge_param[4 * k] = (float)L;
        d->edge_param[4 * k + 1] = (float)(ks * f * kind_factor[d->topo.kind[k]]);
        d->edge_param[4 * k + 2] = (float)(kd * kind_factor[d->topo.kind[k]]);
        d->edge_param[4 * k + 3] = 0;
    }

    /* Pins: the set's "pinned" list, the box and the plane. */
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

    /* The explicit integrators' largest stable substep, with the springs'
     * damping: for x'' = -w^2 x - g x' symplectic Euler is stable while
     * h^2 w^2 + 2 h g <= 4, so h <= (sqrt(g^2 + 4 w^2) - g) / w^2 (2 / w
     * undamped), with w^2 <= 4 sum(k) / m and g <= (2 sum(kd) + drag m) / m
     * over each vertex's springs (Gershgorin); none for implicit Euler. */
    d->dt_stable = INFINITY;
    if (r == EDDY_OK && v[P_INTEGRATOR].v[0] != EDDY_DEFORM_IMPLICIT)
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

    /* The parameter block. */
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

    /* The handle's vertices keep their offsets from its centre. */
    d->substeps = ctx->substeps ? ctx->substeps : 1;
    d->step_dt = ctx->dt * d->substeps;
    float *offset = NULL;
    if (r == EDDY_OK && d->handle_count) {
        if (!(offset = calloc(4ull * d->n, sizeof(float))))
            r = EDDY_ERROR_OUT_OF_MEMORY;
        for (uint32_t i = 0; r == EDDY_OK && i < d->n; i++)
            for (int a = 0; a < 3 && (flags[i] & EDDY_DEFORM_HANDLE); a++)
                offset[4 * i + a] = (float)(pos[4 * i + a] - d->handle_centre[a]);
    }

    /* Verlet starts from x_prev = x - h v. */
    float *prev = NULL;
    if (r == EDDY_OK && (prev = calloc(4ull * (d->n ? d->n : 1), sizeof(float))) == NULL)
        r = EDDY_ERROR_OUT_OF_MEMORY;
    if (r == EDDY_OK && p->counts[3] == EDDY_DEFORM_VERLET)
        for (uint32_t i = 0; i < 4 * d->n; i++)
            prev[i] = i % 4 == 3 ? 0 : pos[i] - (float)ctx->dt * vel[i];

    uint64_t n = d->n, E = d->edges;
    if (r == EDDY_OK) {
        d->position = eddy_particles_buffer(e, d->set, "position");
        d->velocity = eddy_particles_buffer(e, d->set, "velocity");
        d->mass = eddy_particles_buffer(e, d->set, "mass");
        d->clamped = eddy_particles_add_buffer(e, d->set, "clamped", 4);
        if (!d->clamped.id)
            r = EDDY_ERROR_OUT_OF_MEMORY;
        d->params = scratch(d, "params", sizeof d->p, &d->p);
        d->solids = scratch(d, "solids", sizeof(eddy_solid) * (ctx->solid_count ? ctx->solid_count : 1),
                            ctx->solid_count ? ctx->solids : NULL);
        d->flags = scratch(d, "flags", 4 * n, flags);
        d->rows = scratch(d, "rows", 4 * (n + 1), d->topo.rows);
        d->adj = scratch(d, "adjacency", 16 * E, d->topo.adj);
        d->edge_buf = scratch(d, "edges", 8 * E, d->topo.edges);
        d->edge_param_buf = scratch(d, "edge_param", 16 * E, d->edge_param);
        d->edge_force = scratch(d, "edge_force", 32 * E, NULL);
        d->edge_block = scratch(d, "edge_block", 32 * E, NULL);
        /* Sliced ELLPACK (8 rows a slice, lavapipe's SIMD width): the rows
         * of a slice run the same number of entries, and its 8 lanes read
         * consecutive entries. Row i's entry j is at start[i / 8] +
         * 8 j + i % 8, in the CSR order of the row (the same sums). */
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
        if (d->handle_count) {
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
            d->reduce = eddy_create_reduce(e, &(eddy_reduce_desc){ EDDY_SIZED(eddy_reduce_desc), .label = rl, .max_count = d->n });
            if (!d->handle.id || !d->offset.id || !d->hforce.id || !d->hsum.id || !d->reduce)
                r = EDDY_ERROR_OUT_OF_MEMORY;
        }
        if (p->counts[3] != EDDY_DEFORM_IMPLICIT || d->handle_count) {
            d->force = scratch(d, "force", 16 * n, NULL);
            if (!d->force.id)
                r = EDDY_ERROR_OUT_OF_MEMORY;
        }
        if (!d->hforce.id && d->force.id) { /* bound, not written, without a handle */
            d->hforce = scratch(d, "handle.vertex_force", 16, NULL);
            if (!d->hforce.id)
                r = EDDY_ERROR_OUT_OF_MEMORY;
        }
        if (p->counts[3] != EDDY_DEFORM_IMPLICIT) {
            d->prev = scratch(d, "prev", 16 * n, prev);
            if (!d->force.id || !d->prev.id)
                r = EDDY_ERROR_OUT_OF_MEMORY;
        } else {
            d->diag = scratch(d, "cg.diag", 64 * n, NULL);
            d->cg_x = scratch(d, "cg.x", 16 * n, NULL);
            d->cg_r = scratch(d, "cg.r", 16 * n, NULL);
            d->cg_z = scratch(d, "cg.z", 16 * n, NULL);
            d->cg_p = scratch(d, "cg.p", 16 * n, NULL);
            d->cg_q = scratch(d, "cg.q", 16 * n, NULL);
            d->partials = scratch(d, "cg.partials", 16ull * (d->groups ? d->groups : 1), NULL);
            d->cg = scratch(d, "cg.state", 32, NULL);
            d->args = scratch(d, "cg.args", 24, NULL);
            if (!d->diag.id || !d->cg_x.id || !d->cg_r.id || !d->cg_z.id || !d->cg_p.id || !d->cg_q.id ||
                !d->partials.id || !d->cg.id || !d->args.id)
                r = EDDY_ERROR_OUT_OF_MEMORY;
        }
        if (!d->params.id || !d->solids.id || !d->flags.id || !d->rows.id || !d->adj.id || !d->edge_buf.id ||
            !d->edge_param_buf.id || !d->edge_force.id || !d->edge_block.id || !d->sell_start.id ||
            !d->sell_col.id || !d->edge_slots.id || !d->adj_block.id)
            r = EDDY_ERROR_OUT_OF_MEMORY;
    }
    /* A fluid with the set in its boundary slot (modules/couple) weighs each
     * vertex's inverse mass in its projection: 1/m for a free vertex, 0 for
     * a pinned or handle vertex (it does not yield). The buffer is the
     * fluid's when the fluid was created first. */
    if (r == EDDY_OK) {
        d->inverse_mass = eddy_particles_buffer(e, d->set, "rigid.inverse_mass");
        if (!d->inverse_mass.id)
            d->inverse_mass = eddy_particles_add_buffer(e, d->set, "rigid.inverse_mass", 4);
        float *inv = malloc(4 * n + 4);
        for (uint32_t i = 0; inv && i < d->n; i++)
            inv[i] = (flags[i] & EDDY_DEFORM_FREE) ? 1.0f / mass[i] : 0.0f;
        if (!inv || !d->inverse_mass.id || eddy_buffer_upload(e, d->inverse_mass, 0, 4 * n, inv) != EDDY_OK)
            r = EDDY_ERROR_OUT_OF_MEMORY;
        free(inv);
        d->external_none = scratch(d, "external.none", 16, NULL);
        if (!d->external_none.id)
            r = EDDY_ERROR_OUT_OF_MEMORY;
    }
    free(pos);
    free(vel);
    free(mass);
    free(scalar);
    free(pinned);
    free(flags);
    free(prev);
    free(offset);
    if (r != EDDY_OK)
        return r;

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
    bool implicit = p->counts[3] == EDDY_DEFORM_IMPLICIT;
    for (int i = 0; i < K_COUNT; i++) {
        bool need = i == K_SPRINGS || (implicit ? i <= K_IMPLICIT_END : i == K_FORCES || i == K_EXPLICIT) ||
                    (d->handle_count && (i >= K_HANDLE_BEGIN || i == K_FORCES));
        if (!need)
            continue;
        char label[192];
        snprintf(label, sizeof label, "deform.%s", ks_[i].what);
        /* The forces pass writes the handle vertices' forces only when
         * there is a handle (constant 1). */
        d->k[i] = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = label, .spirv = ks_[i].spv,
                                                             .spirv_size = ks_[i].size,
                                                             .specialization = { { 1, d->handle_count > 0 } },
                                                             .specialization_count = i == K_FORCES });
        if (!d->k[i].id)
            return EDDY_ERROR_VULKAN;
    }
    return EDDY_OK;
}

static int pass(deform *d, eddy_graph g, const char *what, eddy_kernel k, uint32_t threads, uint32_t groups,
                bool indirect_one, bool indirect_vertex, const eddy_binding *b, uint32_t nb, const void *push,
                uint32_t push_size)
{
    char label[192];
    snprintf(label, sizeof label, "deform.%s", what);
    eddy_pass_desc pd = { EDDY_SIZED(eddy_pass_desc), .label = label, .kernel = k, .threads = threads, .groups = { groups },
                          .push = push, .push_size = push_size };
    if (indirect_one || indirect_vertex) {
        pd.threads = 0;
        pd.groups[0] = 0;
        pd.indirect = d->args;
        pd.indirect_offset = indirect_one ? 12 : 0;
    }
    pd.bindings[0] = (eddy_binding){ d->params, EDDY_READ };
    for (uint32_t i = 0; i < nb; i++)
        pd.bindings[i + 1] = b[i];
    return eddy_graph_add_pass(d->e, g, &pd);
}

#define B(...) (const eddy_binding[]){ __VA_ARGS__ }, sizeof((const eddy_binding[]){ __VA_ARGS__ }) / sizeof(eddy_binding)

static int springs_pass(deform *d, eddy_graph g)
{
    if (d->edges == 0)
        return 0;
    return pass(d, g, "springs", d->k[K_SPRINGS], d->edges, 0, false, false,
                B({ d->position, EDDY_READ }, { d->velocity, EDDY_READ }, { d->edge_buf, EDDY_READ },
                  { d->edge_param_buf, EDDY_READ }, { d->edge_force, EDDY_WRITE }, { d->edge_block, EDDY_WRITE },
                  { d->edge_slots, EDDY_READ }, { d->adj_block, EDDY_WRITE }),
                NULL, 0);
}

static int forces_pass(deform *d, eddy_graph g)
{
    return pass(d, g, "forces", d->k[K_FORCES], d->n, 0, false, false,
                B({ d->position, EDDY_READ }, { d->velocity, EDDY_READ }, { d->mass, EDDY_READ },
                  { d->rows, EDDY_READ }, { d->adj, EDDY_READ }, { d->edge_force, EDDY_READ },
                  { d->solids, EDDY_READ }, { d->force, EDDY_WRITE }, { d->flags, EDDY_READ },
                  { d->hforce, EDDY_WRITE }, { d->external, EDDY_READ }),
                NULL, 0);
}

/* Before the springs: the handle's centre for this substep, and its
 * vertices put there. */
static int handle_begin(deform *d, eddy_graph g)
{
    int rc = pass(d, g, "handle_begin", d->k[K_HANDLE_BEGIN], 1, 0, false, false,
                  B({ d->handle, EDDY_READ_WRITE }), NULL, 0);
    if (rc >= 0)
        rc = pass(d, g, "handle_move", d->k[K_HANDLE_MOVE], d->n, 0, false, false,
                  B({ d->handle, EDDY_READ }, { d->flags, EDDY_READ }, { d->offset, EDDY_READ },
                    { d->position, EDDY_READ_WRITE }, { d->velocity, EDDY_READ_WRITE }),
                  NULL, 0);
    return rc;
}

/* After the forces pass: the handle vertices' forces summed (a fixed tree)
 * and averaged over the step. */
static int handle_end(deform *d, eddy_graph g)
{
    eddy_result r = eddy_reduce_record(d->e, d->reduce, g, d->hforce, d->n, 4, 3, EDDY_REDUCE_SUM, d->hsum, 0);
    if (r != EDDY_OK)
        return (int)r;
    return pass(d, g, "handle_end", d->k[K_HANDLE_END], 1, 0, false, false,
                B({ d->handle, EDDY_READ_WRITE }, { d->hsum, EDDY_READ }), NULL, 0);
}

static int explicit_passes(deform *d, eddy_graph g, uint32_t stage)
{
    int rc = stage != 5 && d->handle_count ? handle_begin(d, g) : 0;
    if (rc >= 0)
        rc = springs_pass(d, g);
    if (rc >= 0)
        rc = forces_pass(d, g);
    if (rc >= 0 && stage != 5 && d->handle_count)
        rc = handle_end(d, g);
    if (rc >= 0)
        rc = pass(d, g, "explicit", d->k[K_EXPLICIT], d->n, 0, false, false,
                  B({ d->position, EDDY_READ_WRITE }, { d->velocity, EDDY_READ_WRITE }, { d->mass, EDDY_READ },
                    { d->flags, EDDY_READ }, { d->force, EDDY_READ }, { d->prev, EDDY_READ_WRITE },
                    { d->solids, EDDY_READ }, { d->clamped, EDDY_WRITE }),
                  &stage, 4);
    return rc;
}

static eddy_result declare_step(void *state, eddy_graph g)
{
    deform *d = state;
    eddy_engine *e = d->e;
    if (d->n == 0)
        return EDDY_OK;
    uint32_t integrator = d->p.counts[3];
    /* The other systems' forces on the vertices (found now: every system
     * is created), held over the substep. */
    eddy_result rx = eddy_rigid_record_external(e, g, d->set, d->n, d->name, &d->external_kernel, &d->external_sum,
                                                &d->external);
    if (rx != EDDY_OK)
        return rx;
    d->p.misc[3] = d->external.id != 0;
    if (!d->external.id)
        d->external = d->external_none;
    if (eddy_buffer_upload(e, d->params, 0, sizeof d->p, &d->p) != EDDY_OK)
        return EDDY_ERROR_VULKAN;
    int rc;
    if (integrator != EDDY_DEFORM_IMPLICIT) {
        if (integrator == EDDY_DEFORM_VELOCITY_VERLET) {
            rc = explicit_passes(d, g, 4);
            if (rc >= 0)
                rc = explicit_passes(d, g, 5);
        } else {
            rc = explicit_passes(d, g, integrator);
        }
        return rc < 0 ? (eddy_result)rc : EDDY_OK;
    }
    rc = d->handle_count ? handle_begin(d, g) : 0;
    if (rc >= 0)
        rc = springs_pass(d, g);
    if (rc >= 0 && d->handle_count)
        rc = forces_pass(d, g);
    if (rc >= 0 && d->handle_count)
        rc = handle_end(d, g);
    if (rc >= 0)
        rc = eddy_fill_record(e, g, d->cg_x, 0, 4 * d->n, 0);
    if (rc >= 0)
        rc = pass(d, g, "assemble", d->k[K_ASSEMBLE], 0, d->groups, false, false,
                  B({ d->position, EDDY_READ }, { d->velocity, EDDY_READ }, { d->mass, EDDY_READ },
                    { d->flags, EDDY_READ }, { d->rows, EDDY_READ }, { d->adj, EDDY_READ },
                    { d->edge_force, EDDY_READ }, { d->edge_block, EDDY_READ },
                    { d->solids, EDDY_READ }, { d->diag, EDDY_WRITE }, { d->cg_r, EDDY_WRITE },
                    { d->cg_z, EDDY_WRITE }, { d->cg_p, EDDY_WRITE }, { d->partials, EDDY_WRITE },
                    { d->external, EDDY_READ }),
                  NULL, 0);
    if (rc >= 0)
        rc = pass(d, g, "cg_begin", d->k[K_CG_BEGIN], 0, 1, false, false,
                  B({ d->partials, EDDY_READ }, { d->cg, EDDY_WRITE }, { d->args, EDDY_WRITE }), NULL, 0);
    int first = rc >= 0 ? (int)eddy_graph_pass_count(e, g) : -1;
    if (rc >= 0)
        rc = pass(d, g, "cg_matvec", d->k[K_CG_MATVEC], 0, 0, false, true,
                  B({ d->flags, EDDY_READ }, { d->sell_start, EDDY_READ }, { d->sell_col, EDDY_READ },
                    { d->adj_block, EDDY_READ }, { d->diag, EDDY_READ },
                    { d->cg_p, EDDY_READ }, { d->cg_q, EDDY_WRITE }, { d->partials, EDDY_WRITE }),
                  NULL, 0);
    if (rc >= 0)
        rc = pass(d, g, "cg_alpha", d->k[K_CG_ALPHA], 0, 0, true, false,
                  B({ d->partials, EDDY_READ }, { d->cg, EDDY_READ_WRITE }, { d->args, EDDY_WRITE }), NULL, 0);
    if (rc >= 0)
        rc = pass(d, g, "cg_update", d->k[K_CG_UPDATE], 0, 0, false, true,
                  B({ d->cg, EDDY_READ }, { d->diag, EDDY_READ }, { d->cg_p, EDDY_READ }, { d->cg_q, EDDY_READ },
                    { d->cg_x, EDDY_READ_WRITE }, { d->cg_r, EDDY_READ_WRITE }, { d->cg_z, EDDY_WRITE },
                    { d->partials, EDDY_WRITE }),
                  NULL, 0);
    if (rc >= 0)
        rc = pass(d, g, "cg_beta", d->k[K_CG_BETA], 0, 0, true, false,
                  B({ d->partials, EDDY_READ }, { d->cg, EDDY_READ_WRITE }, { d->args, EDDY_WRITE }), NULL, 0);
    if (rc >= 0)
        rc = pass(d, g, "cg_direction", d->k[K_CG_DIRECTION], 0, 0, false, true,
                  B({ d->cg, EDDY_READ }, { d->cg_z, EDDY_READ }, { d->cg_p, EDDY_READ_WRITE }), NULL, 0);
    if (rc >= 0 && d->p.misc[0] > 1)
        rc = eddy_graph_repeat(e, g, (uint32_t)first, 5, d->p.misc[0]);
    if (rc >= 0)
        rc = pass(d, g, "implicit_end", d->k[K_IMPLICIT_END], d->n, 0, false, false,
                  B({ d->position, EDDY_READ_WRITE }, { d->velocity, EDDY_READ_WRITE }, { d->flags, EDDY_READ },
                    { d->cg_x, EDDY_READ }, { d->solids, EDDY_READ }, { d->clamped, EDDY_WRITE }),
                  NULL, 0);
    return rc < 0 ? (eddy_result)rc : EDDY_OK;
}

/* Masses and springs do not change: the bound is computed at create. */
static double stable_dt(void *state)
{
    return ((deform *)state)->dt_stable;
}

static eddy_result set_dt(void *state, double dt)
{
    deform *d = state;
    d->p.gravity[3] = (float)dt;
    double k = d->step_dt / dt;
    d->substeps = k < 1 ? 1 : k > 1e6 ? 1000000 : (uint32_t)lround(k);
    return eddy_buffer_upload(d->e, d->params, 0, sizeof d->p, &d->p);
}

/* Per frame: energies, the solver's last iterations and residual, the
 * largest strain and the inverted tets. */
static void stats(void *state, eddy_stats *st)
{
    deform *d = state;
    eddy_engine *e = d->e;
    uint64_t n = d->n;
    float *pos = malloc(16 * (n ? n : 1)), *vel = malloc(16 * (n ? n : 1)), *mass = malloc(4 * (n ? n : 1));
    if (pos && vel && mass && eddy_buffer_download(e, d->position, 0, 16 * n, pos) == EDDY_OK &&
        eddy_buffer_download(e, d->velocity, 0, 16 * n, vel) == EDDY_OK &&
        eddy_buffer_download(e, d->mass, 0, 4 * n, mass) == EDDY_OK) {
        double ke = 0, pg = 0, ps = 0, strain = 0;
        for (uint64_t i = 0; i < n; i++) {
            double v2 = 0;
            for (int a = 0; a < 3; a++) {
                v2 += (double)vel[4 * i + a] * vel[4 * i + a];
                pg -= (double)mass[i] * d->p.gravity[a] * pos[4 * i + a];
            }
            ke += 0.5 * mass[i] * v2;
        }
        for (uint32_t k = 0; k < d->edges; k++) {
            const float *a = pos + 4 * d->topo.edges[2 * k], *b = pos + 4 * d->topo.edges[2 * k + 1];
            double dx = (double)b[0] - a[0], dy = (double)b[1] - a[1], dz = (double)b[2] - a[2];
            double l = sqrt(dx * dx + dy * dy + dz * dz), L = d->edge_param[4 * k];
            ps += 0.5 * d->edge_param[4 * k + 1] * (l - L) * (l - L);
            strain = fmax(strain, fabs(l / L - 1));
        }
        uint32_t inverted = 0;
        for (uint32_t t = 0; d->cell_kind == EDDY_TETRAHEDRA && t < d->cell_count; t++) {
            const float *x0 = pos + 4 * d->cells[4 * t], *x1 = pos + 4 * d->cells[4 * t + 1],
                        *x2 = pos + 4 * d->cells[4 * t + 2], *x3 = pos + 4 * d->cells[4 * t + 3];
            double a[3], b[3], c[3];
            for (int k = 0; k < 3; k++) {
                a[k] = (double)x1[k] - x0[k];
                b[k] = (double)x2[k] - x0[k];
                c[k] = (double)x3[k] - x0[k];
            }
            double det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                         a[2] * (b[0] * c[1] - b[1] * c[0]);
            inverted += det <= 0;
        }
        eddy_stats_add(st, "kinetic_energy", ke);
        eddy_stats_add(st, "spring_energy", ps);
        eddy_stats_add(st, "gravity_energy", pg);
        eddy_stats_add(st, "max_strain", strain);
        if (d->cell_kind == EDDY_TETRAHEDRA)
            eddy_stats_add(st, "inverted_tets", inverted);
    }
    uint32_t cg[8];
    if (d->cg.id && eddy_buffer_download(e, d->cg, 0, sizeof cg, cg) == EDDY_OK) {
        float res;
        memcpy(&res, &cg[7], 4);
        eddy_stats_add(st, "cg_iterations", cg[5]);
        eddy_stats_add(st, "cg_residual", res);
        eddy_stats_add(st, "cg_status", cg[6]);
    }
    free(pos);
    free(vel);
    free(mass);
}

/* Adds a file to series s and rewrites its .pvd. */
static eddy_result add_series(deform *d, int s, const eddy_frame_ctx *f, const char *file, const char *pvd)
{
    eddy_pvd_entry *grown = realloc(d->series[s], (d->series_count[s] + 1) * sizeof *grown);
    char *copy = strdup(file);
    if (!grown || !copy) {
        free(copy);
        if (grown)
            d->series[s] = grown;
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    d->series[s] = grown;
    d->series[s][d->series_count[s]++] = (eddy_pvd_entry){ f->time, 0, copy };
    char path[4200], err[512];
    snprintf(path, sizeof path, "%s/%s", f->out_dir, pvd);
    if (eddy_write_pvd(path, d->series[s], d->series_count[s], err, sizeof err) != 0) {
        eddy_log(d->e, EDDY_LOG_ERROR, "output.write", "%s", err);
        return EDDY_ERROR_IO;
    }
    return EDDY_OK;
}

/* Per frame: the deformed mesh "<system>_body_<frame>.vtu" (tets, a
 * cloth's triangles, or the springs as lines; velocity, speed and the
 * vertex scalar) in "<system>_body.pvd", and the surface
 * "<system>_surface_<frame>.ply/.vtp" in "<system>_surface.pvd". */
static eddy_result write_frame(void *state, const eddy_frame_ctx *f)
{
    deform *d = state;
    eddy_engine *e = d->e;
    if (d->n == 0)
        return EDDY_OK;
    uint64_t n = d->n;
    float *pos = malloc(16 * n), *vel = malloc(16 * n), *scalar = d->has_scalar ? malloc(4 * n) : NULL;
    float *tri = d->surface_count ? malloc(36ull * d->surface_count) : NULL;
    eddy_result r = pos && vel && (scalar || !d->has_scalar) && (tri || !d->surface_count) ? EDDY_OK
                                                                                          : EDDY_ERROR_OUT_OF_MEMORY;
    if (r == EDDY_OK)
        r = eddy_buffer_download(e, d->position, 0, 16 * n, pos);
    if (r == EDDY_OK)
        r = eddy_buffer_download(e, d->velocity, 0, 16 * n, vel);
    if (r == EDDY_OK && scalar)
        r = eddy_buffer_download(e, eddy_particles_buffer(e, d->set, "scalar"), 0, 4 * n, scalar);
    char name[256], file[300], pvd[300];
    uint32_t kind = d->cell_kind;
    const uint32_t *cells = d->cells;
    uint32_t count = d->cell_count;
    if (kind == EDDY_EDGES) { /* a spring network: its springs as lines */
        cells = d->topo.edges;
        count = d->edges;
    }
    snprintf(name, sizeof name, "%s_body_%06u", d->name, f->frame);
    if (r == EDDY_OK)
        r = eddy_write_cells(e, f->out_dir, name, &(eddy_cells_desc){ EDDY_SIZED(eddy_cells_desc), .time = f->time, .point_count = d->n,
                                                                      .position = pos, .velocity = vel,
                                                                      .scalar = scalar, .cell_kind = kind,
                                                                      .cell_count = count, .cells = cells });
    snprintf(file, sizeof file, "%s.vtu", name);
    snprintf(pvd, sizeof pvd, "%s_body.pvd", d->name);
    if (r == EDDY_OK)
        r = add_series(d, 0, f, file, pvd);
    if (r == EDDY_OK && d->surface_count) {
        for (uint64_t t = 0; t < d->surface_count; t++)
            for (int c = 0; c < 3; c++)
                memcpy(tri + 9 * t + 3 * c, pos + 4 * (uint64_t)d->surface[3 * t + c], 12);
        snprintf(name, sizeof name, "%s_surface_%06u", d->name, f->frame);
        r = eddy_write_mesh(e, f->out_dir, name, tri, d->surface_count, f->time);
        snprintf(file, sizeof file, "%s.vtp", name);
        snprintf(pvd, sizeof pvd, "%s_surface.pvd", d->name);
        if (r == EDDY_OK)
            r = add_series(d, 1, f, file, pvd);
    }
    free(pos), free(vel), free(scalar), free(tri);
    return r;
}

enum { IN_HANDLE_POSITION };
enum { OUT_HANDLE_CENTRE, OUT_HANDLE_FORCE, OUT_COUNT };
static const eddy_port_info inputs[] = {
    [IN_HANDLE_POSITION] = { "handle.position", EDDY_PORT_VEC3, "m", "the handle's centre (the mean of its "
                             "vertices' starting positions) at the end of the step; it moves linearly across the "
                             "substeps, its vertices rigidly with it" },
};
static const eddy_port_info outputs[] = {
    [OUT_HANDLE_CENTRE] = { "handle.centre", EDDY_PORT_VEC3, "m", "the handle's centre after the step" },
    [OUT_HANDLE_FORCE] = { "handle.force", EDDY_PORT_VEC3, "N", "the force the body exerts on whatever holds the "
                           "handle: the springs' and contacts' forces on the handle vertices and their weight, "
                           "mean over the step's substeps (a body hanging at rest from it: its whole weight)" },
};

static eddy_result no_handle(deform *d)
{
    eddy_log(d->e, EDDY_LOG_ERROR, "system.invalid", "system '%s': the handle is driven or read but no vertex is a "
             "handle: give params.handle_min and handle_max (m) a box around the vertices to grab", d->name);
    return EDDY_ERROR_INVALID_ARGUMENT;
}

static eddy_result set_input(void *state, uint32_t index, const double from[3], const double to[3])
{
    deform *d = state;
    (void)index; /* one input */
    if (!d->handle_count)
        return no_handle(d);
    for (int a = 0; a < 3; a++)
        if (!isfinite(from[a]) || !isfinite(to[a])) {
            eddy_log(d->e, EDDY_LOG_ERROR, "system.invalid", "system '%s': handle.position is not finite "
                     "(%g, %g, %g)", d->name, to[0], to[1], to[2]);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
    struct { float from[4], to[4]; } ft = { { 0 }, { 0 } };
    for (int a = 0; a < 3; a++) {
        ft.from[a] = (float)from[a];
        ft.to[a] = (float)to[a];
    }
    uint32_t clock[4] = { 0, d->substeps, 0, 0 };
    /* Staged: in with the step's own submission, out at its end. */
    eddy_result r = eddy_buffer_stage_write(d->e, d->handle, 0, sizeof ft, &ft);
    if (r == EDDY_OK)
        r = eddy_buffer_stage_write(d->e, d->handle, offsetof(struct eddy_deform_handle, clock), sizeof clock, clock);
    if (r == EDDY_OK)
        r = eddy_buffer_stage_read(d->e, d->handle, 0, sizeof d->handle_host, &d->handle_host);
    d->handle_read = d->handle_read || r == EDDY_OK;
    return r;
}

/* The handle after the last step: the staged read has landed after a
 * step driven by set_input; otherwise it is read here. */
static eddy_result handle_state(deform *d, struct eddy_deform_handle *t)
{
    if (!d->handle_count)
        return no_handle(d);
    eddy_result r = d->handle_read ? eddy_flush_staged(d->e)
                                   : eddy_buffer_download(d->e, d->handle, 0, sizeof *t, &d->handle_host);
    d->handle_read = false;
    *t = d->handle_host;
    return r;
}

static eddy_result get_input(void *state, uint32_t index, double value[3])
{
    (void)index;
    struct eddy_deform_handle t;
    eddy_result r = handle_state(state, &t);
    for (int a = 0; r == EDDY_OK && a < 3; a++)
        value[a] = t.centre[a];
    return r;
}

static eddy_result read_outputs(void *state, double *v)
{
    struct eddy_deform_handle t;
    eddy_result r = handle_state(state, &t);
    for (int a = 0; r == EDDY_OK && a < 3; a++) {
        v[3 * OUT_HANDLE_CENTRE + a] = t.centre[a];
        v[3 * OUT_HANDLE_FORCE + a] = t.force[a];
    }
    return r;
}

static const eddy_slot_info slots[] = {
    { "body", "the body: a set with \"tets\" (or \"triangles\", or \"springs\" edges) elements", 1, 1 },
};

static const eddy_module_desc desc = {
    EDDY_MODULE_DESC_VERSION,
    .name = "deform",
    .version = "1.0",
    .summary = "mass-spring bodies from tetrahedral meshes: implicit Euler with CG on the GPU, or explicit integrators",
    .params = params,
    .param_count = P_COUNT,
    .shared_buffers = shared,
    .shared_buffer_count = sizeof shared / sizeof shared[0],
    .create = create,
    .destroy = destroy,
    .declare_step = declare_step,
    .stats = stats,
    .write_frame = write_frame,
    .stable_dt = stable_dt,
    .set_dt = set_dt,
    .slots = slots,
    .slot_count = 1,
    .inputs = inputs,
    .input_count = 1,
    .outputs = outputs,
    .output_count = OUT_COUNT,
    .set_input = set_input,
    .get_input = get_input,
    .read_outputs = read_outputs,
};

const eddy_module_desc *eddy_deform_module(void)
{
    return &desc;
}
