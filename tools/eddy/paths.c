#include "paths.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* PREFIX/share/eddy/<what> when this executable sits in PREFIX/bin and
 * that folder exists: the configured install (EDDY_INSTALL_BINDIR, the
 * absolute bindir) first, then ../share/eddy/<what> beside the executable
 * (a prefix moved elsewhere). */
static bool installed(const char *what, char *out, size_t cap)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return false;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return false;
    *slash = '\0';
    int len;
    if (!strcmp(exe, EDDY_INSTALL_BINDIR)) {
        len = snprintf(out, cap, "%s/eddy/%s", EDDY_INSTALL_DATADIR, what);
        if (len > 0 && (size_t)len < cap && is_dir(out))
            return true;
    }
    len = snprintf(out, cap, "%s/../share/eddy/%s", exe, what);
    return len > 0 && (size_t)len < cap && is_dir(out);
}

const char *eddy_tool_data_dir(void)
{
    static char dir[PATH_MAX + 64];
    if (getenv("EDDY_DATA") && *getenv("EDDY_DATA"))
        return getenv("EDDY_DATA");
    if (!dir[0] && !installed("data", dir, sizeof dir))
        snprintf(dir, sizeof dir, "%s", EDDY_SOURCE_DATA_DIR);
    return dir;
}

const char *eddy_tool_scenes_dir(void)
{
    static char dir[PATH_MAX + 64];
    if (!dir[0] && !installed("scenes", dir, sizeof dir))
        snprintf(dir, sizeof dir, "%s", EDDY_SOURCE_SCENES_DIR);
    return dir;
}

bool eddy_tool_find_scene(const char *name, char *out, size_t cap)
{
    size_t n = strlen(name);
    if (n == 0 || n > 128 || access(name, F_OK) == 0 || strstr(name, ".."))
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
              c == '.'))
            return false;
    }
    bool json = n > 5 && !strcmp(name + n - 5, ".json");
    int len = snprintf(out, cap, "%s/%s%s", eddy_tool_scenes_dir(), name, json ? "" : ".json");
    return len > 0 && (size_t)len < cap && access(out, R_OK) == 0;
}
