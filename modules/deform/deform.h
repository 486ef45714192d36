/* deform: tetrahedral mass-spring bodies after Tejada and Ertl (2005),
 * implicit Euler with conjugate gradients on the GPU, and the explicit
 * integrators they compare with. See README.md. */
#ifndef EDDY_DEFORM_H
#define EDDY_DEFORM_H

#include "eddy/eddy_module.h"
#include "deform_params.h"

const eddy_module_desc *eddy_deform_module(void);

/* The springs of a mesh: the unique edges of its elements, and per vertex
 * its springs in CSR form (the paper's neighbours / neighbourhood), the
 * layout the GPU passes read. */
typedef struct eddy_deform_topology {
    uint32_t vertex_count, edge_count;
    uint32_t *edges; /* 2 per edge (i < j), sorted by (i, j) */
    uint32_t *kind;  /* per edge: EDDY_DEFORM_STRETCH (an element's edge), _SHEAR or _BEND */
    uint32_t *rows;  /* vertex_count + 1: vertex v's entries are [rows[v], rows[v+1]) */
    uint32_t *adj;   /* 2 per entry: the neighbour, then the edge index with bit 31 set
                        when v is the edge's second vertex; entries in edge order */
} eddy_deform_topology;

/* From element_count elements of `kind` indices each (2 edges, 3
 * triangles, 4 tets), every index < vertex_count: a spring per unique
 * element edge, and for triangles (cloth) one more across every edge that
 * exactly two triangles share, between their opposite corners: shear where
 * the shared edge is the longest side of both triangles (a quad's diagonal:
 * the spring is the quad's other diagonal), else bending. pos (4 floats a
 * vertex) tells them apart; NULL makes them all bending. Returns 0, or -1
 * (out of memory, or more than 2^31 springs). */
int eddy_deform_topology_build(uint32_t vertex_count, const uint32_t *elements, uint32_t element_count,
                               uint32_t kind, const float *pos, eddy_deform_topology *t);
void eddy_deform_topology_free(eddy_deform_topology *t);

/* The C reference of one step (and `eddy bench`'s C step): the shaders'
 * equations in the same order, in float, with sums of the solver's dot
 * products in double. Vertex arrays hold 4 floats a vertex (as the GPU's
 * vec4 buffers). */
typedef struct eddy_deform_cpu {
    const struct eddy_deform_params *p;
    const eddy_deform_topology *t;
    const float *edge_param;  /* 4 per edge: rest length (m), ks (N/m), kd (N s/m), 0 */
    const uint32_t *flags;    /* per vertex, EDDY_DEFORM_FREE */
    const eddy_solid *solids; /* p->counts[2] of them */
    const float *external;    /* 4 per vertex: other systems' forces (N, the rigid.external slices'
                                 sum), or NULL; set after init */
    /* scratch (eddy_deform_cpu_init allocates, eddy_deform_cpu_free frees) */
    float *edge_force;        /* 8 per edge: force on the first vertex, strain; K_ij (v_j - v_i), 0 */
    float *edge_block;        /* 8 per edge: O = h D + h^2 K_ij as (xx, yy, zz, -, xy, xz, yz, -) */
    float *diag;              /* 16 per vertex: A_ii, then P^-1 (the same layout) */
    float *force, *x, *r, *z, *dir, *q; /* 4 per vertex */
    /* the last implicit solve */
    uint32_t iterations, status; /* status: 1 converged, 2 breakdown, 3 max iterations */
    double residual;             /* |r| / |b| */
} eddy_deform_cpu;

int eddy_deform_cpu_init(eddy_deform_cpu *c, const struct eddy_deform_params *p, const eddy_deform_topology *t,
                         const float *edge_param, const uint32_t *flags, const eddy_solid *solids);
void eddy_deform_cpu_free(eddy_deform_cpu *c);
/* One substep of p's integrator. prev: 4 per vertex, Verlet's previous
 * positions or velocity Verlet's accelerations (unused otherwise). */
void eddy_deform_cpu_step(eddy_deform_cpu *c, float *pos, float *vel, const float *mass, float *prev);
/* The parts, for the tests: the springs' forces and blocks; the implicit
 * system's diagonal blocks and right-hand side (into c->r, and c->x = 0);
 * q = A v; the conjugate gradients from c->x = 0 (returns iterations). */
void eddy_deform_cpu_springs(eddy_deform_cpu *c, const float *pos, const float *vel);
void eddy_deform_cpu_assemble(eddy_deform_cpu *c, const float *pos, const float *vel, const float *mass);
void eddy_deform_cpu_matvec(const eddy_deform_cpu *c, const float *v, float *q);
uint32_t eddy_deform_cpu_solve(eddy_deform_cpu *c);

/* One spring in double: the force on i and K = df_i/dx_j (row major), as
 * deform.glsl's spring() (definite: 1 - L/l clamped at 0). */
void eddy_deform_spring_double(const double xi[3], const double xj[3], double L, double ks, bool definite,
                               double f[3], double K[9]);

struct eddy_bench_case;
struct eddy_bench_module;
/* Its `eddy bench` cases (*count gets their number) and its passes' costs
 * (deform_bench.c; eddy/eddy_bench.h). */
const struct eddy_bench_case *eddy_deform_bench_cases(uint32_t *count);
const struct eddy_bench_module *eddy_deform_bench_module(void);

#endif
