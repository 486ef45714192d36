/* Between the deform module's files (not installed): the parameters' and
 * kernels' indices and a system's state. deform.c is the module (its
 * parameters, the step's passes, stats, frames and ports), deform_create.c
 * makes a system from its set. */
#ifndef EDDY_DEFORM_INTERNAL_H
#define EDDY_DEFORM_INTERNAL_H

#include "deform.h"

#include "eddy/eddy_output.h"
#include "eddy/eddy_prims.h"

/* The parameters: deform.c's table, in this order. */
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

/* The kernels; a system makes those its integrator and handle need. */
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
    bool unconverged; /* the last frame had a solve stopped unconverged (warned) */
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
    bool over_ranks; /* a step is several submissions: the handle is read after it, not staged */
} deform;

/* The module's create: the springs, pins and handle from the set and the
 * parameters, the buffers and the kernels. */
eddy_result eddy_deform_create(const eddy_system_ctx *ctx, void **state);

#endif
