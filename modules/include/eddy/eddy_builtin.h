/* eddy_builtin.h: the modules that ship with eddy (libeddy-modules):
 * ballistic, sph, pbf and rigid, whose parameters and passes are described
 * in modules/<name>/README.md and listed by `eddy modules`. */
#ifndef EDDY_BUILTIN_H
#define EDDY_BUILTIN_H

#include "eddy/eddy_module.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers every built-in module with the engine (eddy_register_module),
 * in the order above. Call it once per engine, before loading scenes that
 * name them; a second call is refused (names are unique). */
EDDY_API eddy_result eddy_register_builtin_modules(eddy_engine *e);

#ifdef __cplusplus
}
#endif
#endif
