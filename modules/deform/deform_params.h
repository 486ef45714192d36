/* The deform module's parameter block: one layout (std430) for C and GLSL,
 * uploaded once to a storage buffer when the system is created. */
#ifndef EDDY_DEFORM_PARAMS_H
#define EDDY_DEFORM_PARAMS_H

#include "shared_types.h"

/* integrator (counts.w) */
#define EDDY_DEFORM_IMPLICIT 0u       /* implicit Euler, Baraff and Witkin, CG solve */
#define EDDY_DEFORM_EULER 1u          /* explicit (forward) Euler */
#define EDDY_DEFORM_SYMPLECTIC 2u     /* symplectic (semi-implicit) Euler */
#define EDDY_DEFORM_VERLET 3u         /* position (Stoermer) Verlet */
#define EDDY_DEFORM_VELOCITY_VERLET 4u

/* flags (misc.y) */
#define EDDY_DEFORM_DEFINITE 1u  /* clamp 1 - L/l at 0 in the Jacobian (keeps the system definite) */
#define EDDY_DEFORM_JACOBI 2u    /* Jacobi (block-diagonal) preconditioner */
#define EDDY_DEFORM_ISOTROPIC 4u /* the paper's damping -kd (v_i - v_j); else along the spring */

/* per-vertex flags (the "deform.flags" buffer) */
#define EDDY_DEFORM_FREE 1u      /* moves; else pinned (or massless): held where it is */
#define EDDY_DEFORM_HANDLE 2u    /* not free: moves with the handle (an input port) */

/* spring kinds (eddy_deform_topology.kind) */
#define EDDY_DEFORM_STRETCH 0u   /* an element's edge */
#define EDDY_DEFORM_SHEAR 1u     /* cloth: a quad's other diagonal */
#define EDDY_DEFORM_BEND 2u      /* cloth: across an edge of two triangles */

/* Threads of the solver's reduction workgroups (reduce.glsl's tree). */
#define EDDY_DEFORM_GROUP 256u
#define EDDY_DEFORM_SLICE 8u    /* rows a slice of the sliced ELLPACK matrix (deform.c) */

struct eddy_deform_params {
    EDDY_V4 gravity EDDY_ARR4;  /* xyz (m/s^2), w substep h (s) */
    EDDY_V4 box_min EDDY_ARR4;  /* xyz (m), w contact stiffness kc (N/m) */
    EDDY_V4 box_max EDDY_ARR4;  /* xyz (m), w contact damping cd (N s/m) */
    EDDY_V4 solver EDDY_ARR4;   /* x relative residual tolerance, y restitution of the
                                   position clamp, z air drag (1/s), w unused */
    EDDY_U4 counts EDDY_ARR4;   /* x vertices, y edges, z solids, w integrator */
    EDDY_U4 misc EDDY_ARR4;     /* x CG iterations at most, y flags, z reduction groups
                                   (ceil(vertices / 256)), w 1 when other systems put forces
                                   on the set (its rigid.external slices) */
};

/* The handle on the GPU: the host writes from/to/clock before a step
 * (set_input); deform.handle_begin moves it each substep, deform.handle_end
 * averages the force over the step's substeps. */
struct eddy_deform_handle {
    EDDY_V4 from EDDY_ARR4;     /* xyz centre at the start of the step (m) */
    EDDY_V4 to EDDY_ARR4;       /* xyz centre at the end of the step (m) */
    EDDY_V4 start EDDY_ARR4;    /* xyz centre at this substep's start (m) */
    EDDY_V4 centre EDDY_ARR4;   /* xyz centre at this substep's end (m) */
    EDDY_V4 velocity EDDY_ARR4; /* xyz this substep's velocity (m/s) */
    EDDY_U4 clock EDDY_ARR4;    /* x substeps done in this step, y substeps per step */
    EDDY_V4 force EDDY_ARR4;    /* xyz the body's force on the handle (N), mean over the step */
};

#undef EDDY_ARR4
#endif
