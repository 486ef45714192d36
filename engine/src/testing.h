/* Hooks for eddy's own tests, not part of the public API. */
#ifndef EDDY_TESTING_H
#define EDDY_TESTING_H

#include "eddy/eddy.h"

/* The engine's next queue submission fails as it would on a lost device
 * (VK_ERROR_DEVICE_LOST), without reaching the driver. */
void eddy_testing_fail_next_submit(eddy_engine *e);

#endif
