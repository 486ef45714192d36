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
    // Since stats last read them (it zeroes them): the solves ended, those
    // stopped at max_iterations, those broken down, the most iterations one
    // took and the largest final residual (float bits: non-negative floats
    // order as their bits).
    uint solves;
    uint unconverged;
    uint breakdowns;
    uint most_iterations;
    uint worst_residual;
    uint pad0, pad1, pad2;
};

// One solve ended (cg_begin, cg_alpha, cg_beta: their one thread).
#define CG_ENDED(cg, unconv, broken, its, res)                               \
    {                                                                        \
        cg.solves += 1u;                                                     \
        cg.unconverged += (unconv) ? 1u : 0u;                                \
        cg.breakdowns += (broken) ? 1u : 0u;                                 \
        cg.most_iterations = max(cg.most_iterations, its);                   \
        cg.worst_residual = max(cg.worst_residual, floatBitsToUint(res));    \
    }

#endif
