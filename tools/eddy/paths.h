/* Where the eddy tool finds what ships with it: the meshes and
 * tetrahedral meshes of `eddy bench` and the example scenes `eddy run NAME`
 * looks up. Installed, they are under PREFIX/share/eddy (data/, scenes/),
 * found from the executable's own location (/proc/self/exe), so a moved
 * prefix works too and no environment variable is needed; run from the
 * build tree, the source tree's folders. EDDY_DATA, when set, names the
 * data folder. */
#ifndef EDDY_TOOL_PATHS_H
#define EDDY_TOOL_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/* The folder with meshes/ and tets/ (no trailing slash). Never NULL. */
const char *eddy_tool_data_dir(void);
/* The folder of the example scenes. Never NULL. */
const char *eddy_tool_scenes_dir(void);

/* `eddy run NAME`: when NAME names no readable file and is a plain scene
 * name (letters, digits, '_', '-', '.', no "..", no '/', at most 128
 * characters; ".json" may be left out), the example scene's path in out.
 * False (out untouched) otherwise. */
bool eddy_tool_find_scene(const char *name, char *out, size_t cap);

#endif
