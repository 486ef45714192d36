/* A system's answer to eddy_module_desc.reach (runs over MPI ranks): how
 * far its substep carries, or, where `why` says what keeps it on one rank,
 * one message naming the system. */
#ifndef EDDY_MODULES_DIST_REACH_H
#define EDDY_MODULES_DIST_REACH_H

#include "eddy/eddy.h"

static inline eddy_result eddy_reach_answer(eddy_engine *e, const char *system, const char *why, double reach,
                                            double *metres)
{
    if (why) {
        eddy_log(e, EDDY_LOG_ERROR, "dist.unsupported", "system '%s': does not run over MPI ranks yet: %s", system,
                 why);
        return EDDY_ERROR_UNSUPPORTED;
    }
    *metres = reach;
    return EDDY_OK;
}

#endif
