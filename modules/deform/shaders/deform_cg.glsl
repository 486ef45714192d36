// The solver's state between passes (the "cg" buffer) and its indirect
// dispatch arguments (the "args" buffer): args[0..2] dispatch the
// per-vertex passes, args[3..5] the one-workgroup passes; a converged (or
// broken down) solve sets both to zero groups, so the iterations left in
// the recorded graph become empty dispatches (no host round trip).
#ifndef DEFORM_CG_GLSL
#define DEFORM_CG_GLSL
#include "partials.glsl"

#define CG_RUNNING 0u
#define CG_CONVERGED 1u
#define CG_BREAKDOWN 2u   // p.Ap <= 0: the matrix is not positive definite
#define CG_MAX_ITERATIONS 3u

struct CgState {
    float rz;         // r.z of the current iterate
    float bb;         // b.b
    float alpha;
    float beta;
    float rr;         // r.r
    uint iterations;  // done in this step
    uint status;      // CG_*
    float residual;   // |r| / |b|
};

#endif
