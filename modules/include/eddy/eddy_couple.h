/* eddy_couple.h: the coupling API for module authors (libeddy-modules).
 *
 * A module that pushes on rigid bodies or cloth (a fluid's boundary, a force
 * field, a tool) writes a force per particle into a slice of the set it acts
 * on; the rigid and deform systems sum the slices, in a fixed order, into
 * each particle's force every substep. A module claims its slice when it is
 * created (eddy_rigid_claim_external) and writes every particle of it in
 * each of its substeps (a pass that binds the slice EDDY_WRITE). The slices
 * are ordinary buffers of the set: the graph orders the writer's pass
 * before the rigid system's read. docs/modules.md shows a whole module
 * (examples/rigid_push). Thread safety: as the engine (one thread at a
 * time); none of these waits on the GPU. */
#ifndef EDDY_COUPLE_API_H
#define EDDY_COUPLE_API_H

#include "eddy/eddy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Forces from other systems (a fluid's boundary particles, a force field of
 * your own) reach a rigid set through per-contributor slices: buffers of the set named
 * "rigid.external.0", "rigid.external.1", ... (vec4 per particle, N; w
 * unused), one per contributing system, numbered in the order the systems
 * are created. The rigid system adds their sum, in slice order (so a rerun
 * gives the same bits), to each particle's contact force every substep; it
 * finds the slices when it declares its step, after every system is
 * created. A contributor writes every particle of its slice each substep of
 * its own. */
#define EDDY_RIGID_EXTERNAL_MAX 8u
/* Claims the next free slice of the set (zero-filled) for a contributing
 * system (named in messages). A zero handle on failure, logged: more than
 * EDDY_RIGID_EXTERNAL_MAX contributors, or out of memory. */
EDDY_API eddy_buffer eddy_rigid_claim_external(eddy_engine *e, eddy_particles set, const char *system);
/* Slice k of the set, or a zero handle. */
EDDY_API eddy_buffer eddy_rigid_external(eddy_engine *e, eddy_particles set, uint32_t k);
/* For a system that takes the slices (rigid, deform), when it declares its
 * step: *external is what to bind: a zero handle without slices, slice 0
 * alone, or with two or more their sum in slice order, recorded into *sum
 * (16 n bytes) by *kernel; both made here on first use (labelled after
 * `system`) and owned by the caller, who destroys them. */
EDDY_API eddy_result eddy_rigid_record_external(eddy_engine *e, eddy_graph g, eddy_particles set, uint32_t n,
                                       const char *system, eddy_kernel *kernel, eddy_buffer *sum,
                                       eddy_buffer *external);

#ifdef __cplusplus
}
#endif
#endif
