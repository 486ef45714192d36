/* The built-in modules (libeddy-modules): eddy_register_builtin_modules
 * registers each with an engine. A new built-in module adds its descriptor
 * function here and its folder to modules/meson.build. The core (libeddy)
 * knows none of them: programs call this after eddy_create_engine. */
#include "eddy/eddy_builtin.h"

#include "ballistic/ballistic.h"
#include "contact/contact.h"
#include "deform/deform.h"
#include "pbf/pbf.h"
#include "rigid/rigid.h"
#include "sph/sph.h"
#include "volume/volume.h"

eddy_result eddy_register_builtin_modules(eddy_engine *e)
{
    const eddy_module_desc *list[] = { eddy_ballistic_module(), eddy_sph_module(), eddy_pbf_module(),
                                       eddy_rigid_module(), eddy_deform_module(),
                                       eddy_contact_module(), eddy_volume_module() };
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) {
        eddy_result r = eddy_register_module(e, list[i]);
        if (r != EDDY_OK)
            return r;
    }
    return EDDY_OK;
}
