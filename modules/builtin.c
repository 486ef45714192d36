/* The modules compiled into libeddy, registered at engine creation. A new
 * built-in module adds its descriptor function here and its folder to
 * modules/meson.build. */
#include "ballistic/ballistic.h"
#include "sph/sph.h"
#include "pbf/pbf.h"
#include "rigid/rigid.h"

const eddy_module_desc *const *eddy_builtin_module_list(uint32_t *count);

const eddy_module_desc *const *eddy_builtin_module_list(uint32_t *count)
{
    static const eddy_module_desc *list[4];
    list[0] = eddy_ballistic_module();
    list[1] = eddy_sph_module();
    list[2] = eddy_pbf_module();
    list[3] = eddy_rigid_module();
    *count = sizeof list / sizeof list[0];
    return list;
}
