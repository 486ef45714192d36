/* The command line's options: every value checked in full (a number is
 * digits and nothing else: strtoull and strtod alone skip blanks, take a
 * sign and saturate, so " -1" would run 2^64 - 1 steps). */
#include "cli_options.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || !*s)
        return -1;
    uint64_t v = 0;
    for (const char *c = s; *c; c++) {
        if (*c < '0' || *c > '9')
            return -1;
        uint64_t d = (uint64_t)(*c - '0');
        if (v > (max - d) / 10)
            return -1; /* over max, before it could wrap */
        v = 10 * v + d;
    }
    *out = v;
    return 0;
}

int cli_parse_positive(const char *s, double max, double *out)
{
    if (!s || !*s || isspace((unsigned char)*s) || *s == '+' || *s == '-')
        return -1;
    for (const char *c = s; *c; c++)
        if (!isdigit((unsigned char)*c) && *c != '.' && *c != 'e' && *c != 'E' && *c != '-' && *c != '+')
            return -1; /* no "inf", "nan" or hexadecimal */
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno || !isfinite(v) || !(v > 0) || v > max)
        return -1;
    *out = v;
    return 0;
}

static int usage_error(const char *msg, const char *value)
{
    fprintf(stderr, "eddy error [cli.usage]: %s%s%s%s\n", msg, value ? ", got '" : "", value ? value : "",
            value ? "'" : "");
    return -1;
}

/* An option that takes a value: argv[*i + 1], consumed. */
static int value_option(const char *a, const char *v, options *o)
{
    if (!strcmp(a, "--out")) {
        o->out = v;
    } else if (!strcmp(a, "--device")) {
        o->device = v;
    } else if (!strcmp(a, "--validation")) {
        if (strcmp(v, "off") && strcmp(v, "on") && strcmp(v, "sync"))
            return usage_error("--validation: expected off, on or sync", v);
        o->validation = v;
    } else if (!strcmp(a, "--steps")) {
        if (cli_parse_u64(v, EDDY_CLI_MAX_STEPS, &o->steps) != 0 || o->steps == 0)
            return usage_error("--steps: expected a whole number of steps from 1 to 10^12, digits only", v);
    } else if (!strcmp(a, "--module")) {
        if (o->module_count == 16)
            return usage_error("at most 16 --module options", NULL);
        o->modules[o->module_count++] = v;
    } else if (!strcmp(a, "--seconds")) {
        if (cli_parse_positive(v, EDDY_CLI_MAX_SECONDS, &o->seconds) != 0)
            return usage_error("--seconds: expected a number of seconds > 0 and at most 10^6", v);
    } else if (!strcmp(a, "--rate")) {
        if (cli_parse_positive(v, EDDY_CLI_MAX_RATE, &o->rate) != 0)
            return usage_error("--rate: expected a sample rate in Hz > 0 and at most 100000", v);
    } else if (!strcmp(a, "--checkpoint-every")) {
        if (cli_parse_positive(v, 1e12, &o->checkpoint_every) != 0)
            return usage_error("--checkpoint-every: expected simulated seconds > 0 and at most 10^12", v);
    } else if (!strcmp(a, "--checkpoint-wall")) {
        double min;
        if (cli_parse_positive(v, 1e7, &min) != 0)
            return usage_error("--checkpoint-wall: expected wall-clock minutes > 0 and at most 10^7", v);
        o->checkpoint_wall = 60 * min;
    } else if (!strcmp(a, "--checkpoint-keep")) {
        if (cli_parse_u64(v, 64, &o->checkpoint_keep) != 0 || o->checkpoint_keep == 0)
            return usage_error("--checkpoint-keep: expected a whole number of checkpoints from 1 to 64", v);
    } else if (!strcmp(a, "--resume")) {
        o->resume = v;
    } else if (!strcmp(a, "--system")) {
        o->system = v;
    } else {
        return 1; /* not an option with a value */
    }
    return 0;
}

int cli_parse_options(int argc, char **argv, int first, options *o)
{
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        if (!a)
            return usage_error("a NULL argument", NULL);
        if (i + 1 < argc && a[0] == '-') {
            int r = value_option(a, argv[i + 1], o);
            if (r < 0)
                return -1;
            if (r == 0) {
                i++;
                continue;
            }
        }
        if (!strcmp(a, "--profile")) {
            o->profile = true;
        } else if (!strcmp(a, "--quiet")) {
            o->quiet = true;
        } else if (!strcmp(a, "--no-output")) {
            o->no_output = true;
        } else if (!strcmp(a, "--allow-plugins")) {
            o->allow_plugins = true;
        } else if (a[0] == '-') {
            fprintf(stderr, "eddy error [cli.usage]: unknown option '%s' (or its value is missing)\n", a);
            return -2;
        } else if (!o->scene) {
            o->scene = a;
        } else {
            fprintf(stderr, "eddy error [cli.usage]: unexpected argument '%s'\n", a);
            return -2;
        }
    }
    return 0;
}

int cli_parse_graph(int argc, char **argv, int first, options *o, const char **scenes, int *n, const char **dot)
{
    *n = 0;
    *dot = NULL;
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        bool value = !strcmp(a, "--dot") || !strcmp(a, "--device") || !strcmp(a, "--validation") ||
                     !strcmp(a, "--module");
        if (value && i + 1 >= argc) {
            fprintf(stderr, "eddy error [cli.usage]: graph: %s needs a value\n", a);
            return -1;
        }
        if (!strcmp(a, "--dot"))
            *dot = argv[++i];
        else if (!strcmp(a, "--device"))
            o->device = argv[++i];
        else if (!strcmp(a, "--validation"))
            o->validation = argv[++i];
        else if (!strcmp(a, "--module") && o->module_count < 16)
            o->modules[o->module_count++] = argv[++i];
        else if (!strcmp(a, "--allow-plugins"))
            o->allow_plugins = true;
        else if (a[0] == '-' || *n == EDDY_CLI_MAX_GRAPH_SCENES || value) {
            fprintf(stderr, "eddy error [cli.usage]: graph: '%s': an unknown option, or past %d scenes or 16 "
                    "modules\n", a, EDDY_CLI_MAX_GRAPH_SCENES);
            return -1;
        } else {
            scenes[(*n)++] = a;
        }
    }
    if (!*n || (*dot && *n != 1) || (o->validation && strcmp(o->validation, "off") && strcmp(o->validation, "on") &&
                                     strcmp(o->validation, "sync"))) {
        fprintf(stderr, "eddy error [cli.usage]: graph: expected one scene or more (--dot: exactly one) and "
                "--validation off, on or sync\n");
        return -1;
    }
    return 0;
}
