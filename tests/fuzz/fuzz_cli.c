/* libFuzzer harness: bytes -> the command line's options
 * (cli_parse_options, and eddy graph's cli_parse_graph). The input is split at NUL bytes into arguments. The
 * parser must refuse or accept every argument list without reading outside
 * it; what it accepts must be within the documented limits. tools/fuzz.sh
 * runs it. */
#include "cli_options.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum { MAX_ARGS = 32 };
    char *copy = malloc(size + 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    copy[size] = 0;
    char *argv[MAX_ARGS + 2] = { "eddy", "run" };
    int argc = 2;
    for (char *p = copy; p <= copy + size && argc < MAX_ARGS + 2; p += strlen(p) + 1)
        argv[argc++] = p;
    options o;
    memset(&o, 0, sizeof o);
    if (cli_parse_options(argc, argv, 2, &o) == 0) {
        if (o.steps > EDDY_CLI_MAX_STEPS || o.module_count > 16 || !isfinite(o.rate) || o.rate < 0 ||
            o.rate > EDDY_CLI_MAX_RATE || !isfinite(o.seconds) || o.seconds < 0 || o.seconds > EDDY_CLI_MAX_SECONDS)
            abort();
        if (o.validation && strcmp(o.validation, "off") && strcmp(o.validation, "on") && strcmp(o.validation, "sync"))
            abort();
    }
    /* The same arguments as `eddy graph`'s. */
    options g;
    memset(&g, 0, sizeof g);
    const char *scenes[EDDY_CLI_MAX_GRAPH_SCENES], *dot = NULL;
    int n = -1;
    if (cli_parse_graph(argc, argv, 2, &g, scenes, &n, &dot) == 0) {
        if (n < 1 || n > EDDY_CLI_MAX_GRAPH_SCENES || (dot && n != 1) || g.module_count > 16)
            abort();
        for (int i = 0; i < n; i++)
            if (!scenes[i] || scenes[i][0] == '-')
                abort();
    }
    free(copy);
    return 0;
}
