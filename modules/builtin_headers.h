/* The headers of the built-in modules this build carries
 * (eddy_builtin_config.h, from the `modules` option): builtin.c lists their
 * descriptors, builtin_bench.c their bench cases. */
#ifndef EDDY_BUILTIN_HEADERS_H
#define EDDY_BUILTIN_HEADERS_H

#include "eddy_builtin_config.h"

#if EDDY_BUILTIN_BALLISTIC
#include "ballistic/ballistic.h"
#endif
#if EDDY_BUILTIN_CONTACT
#include "contact/contact.h"
#endif
#if EDDY_BUILTIN_DEFORM
#include "deform/deform.h"
#endif
#if EDDY_BUILTIN_PBF
#include "pbf/pbf.h"
#endif
#if EDDY_BUILTIN_RIGID
#include "rigid/rigid.h"
#endif
#if EDDY_BUILTIN_SPH
#include "sph/sph.h"
#endif
#if EDDY_BUILTIN_VOLUME
#include "volume/volume.h"
#endif

#endif
