/* eddy_builtin.h: the modules that ship with eddy (libeddy-modules):
 * ballistic, sph, pbf, rigid, deform, contact and volume (those the build's
 * `modules` option kept), whose parameters and passes are described in
 * modules/<name>/README.md and listed by `eddy modules`. */
#ifndef EDDY_BUILTIN_H
#define EDDY_BUILTIN_H

#include "eddy/eddy_module.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers every built-in module with the engine (eddy_register_module),
 * in the order above. Call it once per engine, before loading scenes that
 * name them; a second call is refused (names are unique). The one call a
 * host makes besides eddy_create_engine to run scenes of the built-in
 * modules. Never waits. */
EDDY_API eddy_result eddy_register_builtin_modules(eddy_engine *e);

#ifdef __cplusplus
}
#endif
#endif
