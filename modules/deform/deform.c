/* deform module: see README.md beside this file. Here the module: its
 * parameters, the step's passes, the stable step, stats, frames and the
 * handle's ports; a system is made in deform_create.c. */
#include "deform_internal.h"
#include "eddy/eddy_checkpoint.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dist_reach.h"
#include "rigid/rigid.h"

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

/* The other systems' forces on the vertices (found now: every system is
 * created), held over the substep: d->external, and misc[3] set when there
 * are any. */
static eddy_result declare_external(deform *d, eddy_graph g)
{
    eddy_result rx = eddy_rigid_record_external(d->e, g, d->set, d->n, d->name, &d->external_kernel,
                                                &d->external_sum, &d->external);
    if (rx != EDDY_OK)
        return rx;
    d->p.misc[3] = d->external.id != 0;
    if (!d->external.id)
        d->external = d->external_none;
    return eddy_buffer_upload(d->e, d->params, 0, sizeof d->p, &d->p) == EDDY_OK ? EDDY_OK : EDDY_ERROR_VULKAN;
}

/* The body's step with the external forces in d->external. */
static eddy_result declare_body(deform *d, eddy_graph g)
{
    eddy_engine *e = d->e;
    uint32_t integrator = d->p.counts[3];
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
                  B({ d->partials, EDDY_READ }, { d->cg, EDDY_READ_WRITE }, { d->args, EDDY_WRITE }), NULL, 0);
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

static eddy_result declare_step(void *state, eddy_graph g)
{
    deform *d = state;
    if (d->n == 0)
        return EDDY_OK;
    eddy_result r = declare_external(d, g);
    return r == EDDY_OK ? declare_body(d, g) : r;
}

/* Over MPI ranks a body lives whole on every rank (the scene never splits
 * a set with elements) and every rank steps it alike: its springs and
 * solve read no neighbours (reach 0). What other systems put on its
 * vertices is right only on the rank owning a vertex's cell, where the
 * fluid holds every particle near it: those rows are gathered to every
 * rank, in place, before the step. */
static eddy_result declare_parts(void *state, eddy_step_parts *parts)
{
    deform *d = state;
    if (d->n == 0)
        return EDDY_OK;
    eddy_result r = declare_external(d, parts->graph);
    if (r == EDDY_OK && d->p.misc[3])
        r = parts->sync(parts, &(eddy_sync_desc){ EDDY_SIZED(eddy_sync_desc), .gather = { d->external },
                                                  .full = { d->external }, .gather_bytes = { 16 },
                                                  .gather_count = 1 });
    return r == EDDY_OK ? declare_body(d, parts->graph) : r;
}

static eddy_result reach(void *state, double *metres)
{
    deform *d = state;
    /* Asked only over ranks, where a step is several submissions: the
     * handle is read after the step rather than staged on its first one. */
    d->over_ranks = true;
    return eddy_reach_answer(d->e, d->name, NULL, 0, metres);
}

/* The set is whole on every rank: its count never changes. */
static eddy_result set_count(void *state)
{
    deform *d = state;
    return eddy_particles_count(d->e, d->set) == d->n ? EDDY_OK : EDDY_ERROR_INVALID_ARGUMENT;
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
static void cg_stats(deform *d, eddy_stats *st);

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
    if (d->cg.id)
        cg_stats(d, st);
    free(pos);
    free(vel);
    free(mass);
}

/* The conjugate gradients' solves: the last step's, and over every step
 * since the last frame how many stopped at max_iterations or broke down,
 * the most iterations and the worst final residual (deform_cg.glsl's
 * CgState); a warning at the first frame of a run of such frames. */
static void cg_stats(deform *d, eddy_stats *st)
{
    uint32_t cg[16];
    if (eddy_buffer_download(d->e, d->cg, 0, sizeof cg, cg) != EDDY_OK)
        return;
    float res, worst;
    memcpy(&res, &cg[7], 4);
    memcpy(&worst, &cg[12], 4);
    eddy_stats_add(st, "cg_iterations", cg[5]);
    eddy_stats_add(st, "cg_residual", res);
    eddy_stats_add(st, "cg_status", cg[6]);
    eddy_stats_add(st, "cg_solves", cg[8]);
    eddy_stats_add(st, "cg_unconverged", cg[9]);
    eddy_stats_add(st, "cg_breakdowns", cg[10]);
    eddy_stats_add(st, "cg_iterations_max", cg[11]);
    eddy_stats_add(st, "cg_worst_residual", worst);
    bool bad = cg[9] + cg[10] > 0, warn = bad && !d->unconverged;
    d->unconverged = bad;
    if (warn)
        eddy_log(d->e, EDDY_LOG_WARN, "system.unconverged", "system '%s': %u of the %u implicit steps since the "
                 "last frame stopped at max_iterations = %u and %u broke down before the conjugate gradients "
                 "reached tolerance %g (worst relative residual %.3g); raise max_iterations or lower dt",
                 d->name, cg[9], cg[8], d->p.misc[0], cg[10], (double)d->p.solver[0], worst);
    const uint32_t zero[8] = { 0 };
    eddy_buffer_upload(d->e, d->cg, 32, sizeof zero, zero);
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
    if (r == EDDY_OK && !d->over_ranks)
        r = eddy_buffer_stage_read(d->e, d->handle, 0, sizeof d->handle_host, &d->handle_host);
    d->handle_read = !d->over_ranks && (d->handle_read || r == EDDY_OK);
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

/* State: the handle (where it moves this step, its clock), the previous
 * positions of the Verlet integrator, the CG's counts since the last frame
 * and the frame series. The solve starts from zero every substep (no warm
 * start); the springs, pins and offsets are made by create from the scene. */
static eddy_result checkpoint(void *state, eddy_checkpoint *cp)
{
    deform *d = state;
    uint8_t unconverged = d->unconverged;
    /* No handle, or an implicit integrator: zero handles, skipped. */
    const eddy_checkpoint_item items[] = {
        { "cg.state", d->cg, EDDY_STATE_U32, 1, "1" },
        { "handle", d->handle, EDDY_STATE_F32, 4, "1" },
        { "prev", d->prev, EDDY_STATE_F32, 4, "m" },
    };
    eddy_result r = eddy_checkpoint_buffers(cp, items, sizeof items / sizeof *items);
    if (r == EDDY_OK)
        r = eddy_checkpoint_values(cp, "unconverged", &unconverged, EDDY_STATE_U8, 1, 1, "1");
    if (r == EDDY_OK)
        r = eddy_checkpoint_series(cp, "body.series", &d->series[0], &d->series_count[0]);
    if (r == EDDY_OK)
        r = eddy_checkpoint_series(cp, "surface.series", &d->series[1], &d->series_count[1]);
    if (r == EDDY_OK && eddy_checkpoint_restoring(cp)) {
        d->unconverged = unconverged != 0;
        d->handle_read = false; /* the handle's host copy is read again from the restored buffer */
    }
    return r;
}

static const eddy_module_desc desc = {
    EDDY_MODULE_DESC_VERSION,
    .name = "deform",
    .version = "1.0",
    .summary = "mass-spring bodies from tetrahedral meshes: implicit Euler with CG on the GPU, or explicit integrators",
    .params = params,
    .param_count = P_COUNT,
    .shared_buffers = shared,
    .shared_buffer_count = sizeof shared / sizeof shared[0],
    .create = eddy_deform_create,
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
    .checkpoint = checkpoint,
    .reach = reach,
    .set_count = set_count,
    .declare_parts = declare_parts,
};

const eddy_module_desc *eddy_deform_module(void)
{
    return &desc;
}
