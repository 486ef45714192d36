/* Minimal test helpers shared by eddy's test programs: a failed check prints
 * file:line and the expression, and the program exits non-zero at the end. */
#ifndef EDDY_TEST_H
#define EDDY_TEST_H

#include <stdio.h>
#include <stdlib.h>

static int test_failures;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            test_failures++;                                                     \
        }                                                                        \
    } while (0)

#define CHECKF(cond, ...)                                                        \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                 \
            test_failures++;                                                     \
        }                                                                        \
    } while (0)

/* Stops at once: for failures after which nothing else can be checked. */
#define REQUIRE(cond)                                                            \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: required: %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

static inline int test_report(const char *name)
{
    if (test_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", name, test_failures);
    else
        printf("%s: ok\n", name);
    return test_failures ? 1 : 0;
}

#endif
