/* The built-in modules (libeddy-modules): eddy_register_builtin_modules
 * registers each with an engine. A new built-in module adds its descriptor
 * function here, its folder to modules/meson.build and its name to the
 * `modules` option. The core (libeddy) knows none of them: programs call
 * this after eddy_create_engine. Which are built: eddy_builtin_config.h
 * (meson setup -Dmodules=...). */
#include "eddy/eddy_builtin.h"
#include "builtin_headers.h"

/* In the order `eddy modules` lists them. */
static const eddy_module_desc *(*const modules[])(void) = {
#if EDDY_BUILTIN_BALLISTIC
    eddy_ballistic_module,
#endif
#if EDDY_BUILTIN_SPH
    eddy_sph_module,
#endif
#if EDDY_BUILTIN_PBF
    eddy_pbf_module,
#endif
#if EDDY_BUILTIN_RIGID
    eddy_rigid_module,
#endif
#if EDDY_BUILTIN_DEFORM
    eddy_deform_module,
#endif
#if EDDY_BUILTIN_CONTACT
    eddy_contact_module,
#endif
#if EDDY_BUILTIN_VOLUME
    eddy_volume_module,
#endif
    NULL, /* never empty, whatever was built */
};

eddy_result eddy_register_builtin_modules(eddy_engine *e)
{
    for (size_t i = 0; modules[i]; i++) {
        eddy_result r = eddy_register_module(e, modules[i]());
        if (r != EDDY_OK)
            return r;
    }
    return EDDY_OK;
}
