/* couple: a fluid and rigid sets through shared buffers (Harada, GPU Gems 3
 * ch. 29, section 29.3.3; Akinci et al. 2012 for the boundary particles).
 * See README.md.
 *
 * Not a system of its own: a fluid system (pbf or sph) takes rigid sets in
 * its "boundary" slot (up to EDDY_COUPLE_MAX_SETS), and uses this to make
 * their particles boundary particles of its density sums: one combined
 * array, the sets' particles one after another in slot order. A set may be
 * the boundary of several fluids: each claims its own slice of the set's
 * forces (eddy_rigid_claim_external), which the rigid module sums in a fixed
 * order. Per substep:
 *   eddy_couple_record_begin  each boundary particle at x + lead v (pbf: its
 *                             predicted position, lead dt; sph: lead 0) with
 *                             its volume V, sorted into a grid of the
 *                             fluid's geometry, and the force sum cleared;
 *   (the fluid's passes read them through couple_boundary.glsl)
 *   eddy_couple_record_pbf    per solver iteration: the force the fluid's
 *                             position corrections put on each boundary
 *                             particle (a gather: fixed order);
 *   eddy_couple_record_sph    once: the opposite of the pressure force the
 *                             boundary put on the fluid (a gather);
 *   eddy_couple_record_end    that force scattered into each set's slice
 *                             "rigid.external.<k>" (N per particle), which
 *                             the rigid module adds into the bodies' force
 *                             and torque.
 * Every pass is on the GPU; nothing goes through the host. */
#ifndef EDDY_COUPLE_H
#define EDDY_COUPLE_H

#include "eddy/eddy_module.h"
#include "couple_params.h"

typedef struct eddy_couple eddy_couple;

#define EDDY_COUPLE_MAX_SETS 8u

typedef struct eddy_couple_desc {
    const char *system;              /* the fluid system's name, for labels and messages */
    const eddy_particles *boundary;  /* the rigid sets (the fluid's boundary slot), in order; */
    uint32_t boundary_count;         /* 1..EDDY_COUPLE_MAX_SETS */
    float origin[3];          /* the fluid's grid: origin (m), */
    float cell;               /* cell size (m; the fluid's h), */
    int32_t dims[3];          /* and cells */
    float h;                  /* support radius (m) */
    double dt;                /* substep (s) */
    uint32_t iterations;      /* pbf: solver iterations per substep; 0 = 4 */
    bool at_start;            /* boundary particles where they are at the substep's start
                                 (sph: explicit forces); false: at its end, x + dt v (pbf) */
    float stiffness;          /* sph: k = c0^2 of the equation of state (m^2/s^2; eddy_sph_pressure) */
    float rest_density;       /* sph: rho0 (kg/m^3) */
    bool sph_muller;          /* sph: the fluid's pressure force is Müller's (sph pressure_force 1),
                                 not the symmetric one (eddy_sph_boundary) */
    bool sph_clamp_negative;  /* sph: no pressure below rest density (eddy_sph_pressure) */
    bool sph_tait;            /* sph: Tait's equation of state, not the linear one (eddy_sph_pressure) */
    float gravity[3];         /* sph: the fluid's gravity (m/s^2): a boundary particle b seen from
                                 fluid particle i carries p_i + rho0 g . (x_b - x_i), the pressure
                                 of fluid at rest at b, as the wall ghosts do (zero: p_i) */
    bool sheets;              /* the fluid records eddy_couple_record_sheet (pbf): boundary
                                 sets with "triangles" (a cloth) are sheets it does not pass;
                                 false: such a set is refused */
    uint32_t fluid_count;     /* the fluid's particles (sheets) */
    uint32_t moved_before;    /* bit k: boundary set k's own system steps before the fluid in
                                 each substep (lead 0: it is where the substep ends); a sheet
                                 must be (or be moved by none) */
    uint32_t moved_after;     /* bit k: ... after the fluid (ctx.moved_after) */
    float added_mass;         /* kg/m^3: each boundary particle publishes added_mass V_b in its
                                 set's "rigid.added_mass" (kg; the largest over the fluids that
                                 couple the set), which the rigid module sums per body as the
                                 body's added mass (README.md, Added mass). 0: none (pbf, whose
                                 projection weighs the bodies' inverse mass instead); sph:
                                 EDDY_COUPLE_ADDED_MASS rho0 */
    bool sph_iisph;           /* sph with a pressure solve (IISPH, solver 1; DFSPH, solver 2): the
                                 boundary particles' velocities are
                                 also kept in sorted order (eddy_couple_bindings.velocity; the
                                 density the solve predicts is relative to them), and couple.sph
                                 reads the solved pressure (eddy_couple_record_sph's `pressure`),
                                 not the equation of state */
} eddy_couple_desc;

/* The added-mass coefficient sph fluids publish (a sphere's, 1/2): the
 * fluid mass a body sets moving, over the fluid its particles displace. */
#define EDDY_COUPLE_ADDED_MASS 0.5f

/* The weight of a body's inverse mass in the fluid's projection: the fluid
 * mass one substep's projection sets moving grows with the Jacobi
 * iterations (each reaches a kernel radius further), so max(1, it / 4). */
static inline float eddy_couple_mass_weight(uint32_t iterations)
{
    return iterations > 4 ? iterations / 4.0f : 1.0f;
}

/* The particles of a slot's sets: a fluid is coupled when its boundary slot
 * has any. */
uint64_t eddy_couple_slot_particles(eddy_engine *e, const eddy_slot_sets *slot);

/* NULL on error (logged, naming the system). A fluid without boundary sets
 * makes none, and binds the plain variants of its shaders. */
eddy_couple *eddy_couple_create(eddy_engine *e, const eddy_couple_desc *desc);
void eddy_couple_destroy(eddy_engine *e, eddy_couple *c);
/* Its state for the owning system's checkpoint (eddy_checkpoint.h): where
 * the fluid last left each cloth vertex ("couple.sheet.start"), with
 * sheets; nothing else carries over a substep. NULL c: nothing. */
typedef struct eddy_checkpoint eddy_checkpoint;
eddy_result eddy_couple_checkpoint(eddy_couple *c, eddy_checkpoint *cp);

/* What the coupled variants of the fluid's shaders bind to read the
 * boundary (couple_boundary.glsl): the parameter block, the sorted boundary
 * particles of all sets (xyz at x + lead v, w the volume V in m^3), the cell
 * tables in the fluid's grid geometry and, in the same sorted order, each
 * particle's share of its body's inverse mass (1/kg, the set's
 * rigid.inverse_mass; 0 for a fixed obstacle) and, with desc.sph_iisph,
 * its velocity (vec4, xyz m/s; else no buffer). */
typedef struct eddy_couple_bindings {
    eddy_buffer params, particles, cell_start, cell_end, inverse_mass, velocity;
} eddy_couple_bindings;
eddy_couple_bindings eddy_couple_get_bindings(const eddy_couple *c);

eddy_result eddy_couple_record_begin(eddy_engine *e, eddy_couple *c, eddy_graph g);
/* One solver iteration of pbf: sp (sorted positions, vec4), smass (float),
 * lambda (vec4, x = lambda) and the fluid grid's cell tables. Returns the
 * pass index or a negative eddy_result. */
int eddy_couple_record_pbf(eddy_engine *e, eddy_couple *c, eddy_graph g, eddy_buffer sp,
                           eddy_buffer smass, eddy_buffer lambda, eddy_buffer cell_start,
                           eddy_buffer cell_end);
/* sph, once per substep after the pressure is known (the forces pass; with
 * IISPH after the solve): spm (sorted xyz, mass), svr (sorted velocity,
 * density), the fluid grid's cell tables and, with desc.sph_iisph,
 * pressure (float per sorted fluid particle, Pa; else ignored). */
int eddy_couple_record_sph(eddy_engine *e, eddy_couple *c, eddy_graph g, eddy_buffer spm,
                           eddy_buffer svr, eddy_buffer cell_start, eddy_buffer cell_end,
                           eddy_buffer pressure);
/* pbf, once per substep after the solver iterations (before the velocity
 * pass): keeps every fluid particle off the sheets (the boundary sets'
 * "triangles", at least their thickness away on the side it came from,
 * couple_sheet.comp) and gives the triangles' vertices the opposite of the
 * impulses. sp (sorted predicted positions, vec4; corrected in place), sold
 * (sorted positions at the substep's start), smass, the fluid grid's cell
 * tables. Nothing without sheets. */
eddy_result eddy_couple_record_sheet(eddy_engine *e, eddy_couple *c, eddy_graph g, eddy_buffer sp,
                                     eddy_buffer sold, eddy_buffer smass, eddy_buffer cell_start,
                                     eddy_buffer cell_end);
/* The forces back to the sets (their slices) and the sheets' impulses.
 * Over MPI ranks (parts, else NULL) with sheets it ends a part: a sheet set
 * is whole on every rank and the force on a vertex is right only on the
 * rank owning its cell, so its rows are gathered from there before the
 * impulses, which go into parts->graph (the next part). */
eddy_result eddy_couple_record_end(eddy_engine *e, eddy_couple *c, eddy_graph g, eddy_step_parts *parts);
/* Instead of the passes above, in a substep with no fluid particle (over
 * MPI ranks, a rank the fluid has not reached): every slice written with
 * zeros, as the passes would write them, not left as a particle's last
 * rank left it; the sheets' gathers and impulses as in record_end. */
eddy_result eddy_couple_record_idle(eddy_engine *e, eddy_couple *c, eddy_graph g, eddy_step_parts *parts);
/* Why the coupling cannot run over MPI ranks as configured (NULL: it can). */
const char *eddy_couple_dist_refusal(eddy_engine *e, const eddy_couple *c);

/* The volume a boundary particle stands for: (2 r)^3 for a particle of
 * radius r on the rigid module's simple cubic lattice. */
/* The boundary sets' counts changed (over MPI ranks: their particles on
 * this rank), and the fluid's is fluid_count (at most its count at create;
 * couple.sheet runs a thread each): the next recorded passes cover them.
 * Between steps; waits (a parameter upload). */
eddy_result eddy_couple_set_counts(eddy_engine *e, eddy_couple *c, uint32_t fluid_count);

static inline float eddy_couple_volume(float radius)
{
    return 8.0f * radius * radius * radius;
}

/* The CPU twin of eddy_couple_record_pbf for one iteration (the tests'
 * reference): boundary (vec4: predicted xyz, V), nf fluid particles x (vec4),
 * mass, lambda (2 floats each, x = lambda); force (vec4 per boundary
 * particle) accumulates -sum_i m_i V lambda_i grad W_spiky(x_i - x_b) / dt^2. */
void eddy_couple_pbf_cpu(const struct eddy_couple_params *p, uint32_t nb, const float *boundary,
                         uint32_t nf, const float *x, const float *mass, const float *lambda,
                         float *force);
/* The CPU twin of eddy_couple_record_sph: force (vec4 per boundary
 * particle) accumulates sum_i m_i (p_i B + L g . (x_b - x_i)) V_b
 * grad W_spiky(x_i - x_b) / rho_i, p_i = k (rho_i - rho0), B =
 * eddy_sph_boundary and L = eddy_sph_boundary_lever (the fluid's pressure
 * force, p->fluid[2]), g = p->gravity, over nf fluid particles x (vec4),
 * mass, density; p_i from pressure (Pa per fluid particle, IISPH's) where
 * that is not NULL. */
void eddy_couple_sph_cpu(const struct eddy_couple_params *p, uint32_t nb, const float *boundary,
                         uint32_t nf, const float *x, const float *mass, const float *density,
                         const float *pressure, float *force);
/* A fluid's sheets for the C twin of the sheet passes: count triangles
 * (uvec4 each: the combined indices a, b, c and the thickness tau's float
 * bits, as couple.c builds them), the vertices where the fluid last left
 * them (start: vec4 per boundary particle, combined order) and the
 * vertices' inverse masses (weight: float per boundary particle, 1/kg). */
typedef struct eddy_couple_sheets_cpu {
    uint32_t count;
    const uint32_t *tris;
    const float *start;
    const float *weight;
} eddy_couple_sheets_cpu;
/* The CPU twin of eddy_couple_record_sheet (couple.sheet, then
 * couple.sheet_force): nf fluid particles at x (vec4, the positions after
 * the solver iterations; corrected in place), x0 (vec4, at the substep's
 * start), mass; predicted the boundary particles where they end the
 * substep (vec4, combined: the triangles' corners); force (vec4 per
 * boundary particle) accumulates each vertex's share of the opposite
 * impulses, -w m dx / dt^2. The triangles are taken in the GPU's order
 * (binned by centroid into p's grid, cells around the particle's own
 * within p->counts[2], or, when it is 0, all cells: the same result, as no
 * triangle further away can hold the particle). dt is p->misc[1]. */
void eddy_couple_sheet_cpu(const struct eddy_couple_params *p, const eddy_couple_sheets_cpu *s,
                           const float *predicted, uint32_t nf, float *x, const float *x0, const float *mass,
                           float *force);
/* The boundary sums at x (couple_boundary.glsl): *w = sum V W_poly6,
 * g = sum V grad W_spiky and, when gw and inverse_mass (nb floats, the
 * boundary's order) are given, gw = sum sqrt(weight inverse_mass) V grad W_spiky
 * (weight: p->misc[2], eddy_couple_mass_weight), and when lever is given,
 * lever = sum V (accel . (x_b - x)) grad W_spiky (couple_boundary_lever: the
 * hydrostatic part of the boundary's pressure, sph). */
void eddy_couple_boundary_cpu(const struct eddy_couple_params *p, uint32_t nb,
                              const float *boundary, const float *inverse_mass, const float *x,
                              float *w, float g[3], float gw[3], const float accel[3], float lever[3]);
/* The sums the IISPH pressure system takes from the boundary at x
 * (couple_boundary_iisph): gd = sum V grad W_poly6(x - x_b) and *div = sum V
 * (vs - v_b) . grad W_poly6(x - x_b), v_b from velocity (vec4 per boundary
 * particle; NULL: at rest). */
void eddy_couple_boundary_iisph_cpu(const struct eddy_couple_params *p, uint32_t nb, const float *boundary,
                                    const float *velocity, const float *x, const float vs[3], float gd[3],
                                    float *div);

#endif
