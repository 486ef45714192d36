/* The command line's options (eddy run, eddy haptic): pure parsing, no
 * engine, so a fuzz harness (tests/fuzz/fuzz_cli.c) drives it alone. */
#ifndef EDDY_CLI_OPTIONS_H
#define EDDY_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

/* The most steps a command line may ask for: as a scene's duration. */
#define EDDY_CLI_MAX_STEPS 1000000000000ull
/* The haptic loop's sample rate, at most (Hz), and its wall-clock time (s). */
#define EDDY_CLI_MAX_RATE 1e5
#define EDDY_CLI_MAX_SECONDS 1e6

typedef struct options {
    const char *scene, *out, *device, *validation;
    const char *modules[16];
    int module_count;
    uint64_t steps;
    bool profile, quiet, no_output, allow_plugins;
    const char *system;  /* haptic */
    double seconds, rate; /* haptic */
    /* run: checkpoints (s simulated; s wall clock; how many kept) and the
     * checkpoint or output folder to resume from */
    double checkpoint_every, checkpoint_wall;
    uint64_t checkpoint_keep;
    const char *resume;
} options;

/* A whole number written as plain decimal digits (no blank, no sign, no
 * leading '+', at most `max`): 0 and *out, else -1. */
int cli_parse_u64(const char *s, uint64_t max, uint64_t *out);
/* A finite decimal number in (0, max], written without blanks: 0 and *out,
 * else -1. */
int cli_parse_positive(const char *s, double max, double *out);
/* argv[first..argc) into *o (zeroed by the caller): 0; -1 after one
 * message on stderr ("eddy error [cli.usage]: ..."); -2 after one that
 * the usage should follow. */
int cli_parse_options(int argc, char **argv, int first, options *o);
/* eddy graph's arguments from argv[first..argc): the scenes (at most
 * EDDY_CLI_MAX_GRAPH_SCENES, borrowed from argv) into scenes[0..*n), --dot
 * FILE into *dot (exactly one scene then), --device, --validation,
 * --module and --allow-plugins into *o (zeroed by the caller): 0; -1 after
 * one message on stderr ("eddy error [cli.usage]: graph: ..."). */
#define EDDY_CLI_MAX_GRAPH_SCENES 256
int cli_parse_graph(int argc, char **argv, int first, options *o, const char **scenes, int *n, const char **dot);

#endif
