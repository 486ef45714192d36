/* Proves the sanitized suite can fail: each mode commits the fault its
 * sanitizer must report through tests/sanitize/run.sh (meson marks these
 * should_fail); "clean" must pass, so run.sh does not fail everything. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Not inlined and not static: the leak's stack names this file. */
__attribute__((noinline)) void *eddy_selftest_lose(size_t n)
{
    char *p = malloc(n);
    if (p)
        memset(p, 1, n);
    return p;
}

/* Loses its only pointer to 4 KiB, then the stack slot is reused. */
__attribute__((noinline)) void eddy_selftest_leak(void)
{
    void *volatile p = eddy_selftest_lose(4096);
    p = NULL;
    (void)p;
}

__attribute__((noinline)) int eddy_selftest_clobber(int depth)
{
    volatile char pad[4096];
    memset((char *)pad, 0, sizeof pad);
    return depth ? eddy_selftest_clobber(depth - 1) + pad[depth] : 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "clean";
    volatile int big = INT_MAX;
    if (!strcmp(mode, "leak")) {
        eddy_selftest_leak();
        eddy_selftest_clobber(8);
    } else if (!strcmp(mode, "overflow")) {
        char *p = eddy_selftest_lose(8);
        volatile char c = p[8]; /* one past the end */
        (void)c;
        free(p);
    } else if (!strcmp(mode, "undefined")) {
        volatile int x = big + argc; /* signed overflow */
        (void)x;
    } else {
        free(eddy_selftest_lose(16));
    }
    puts(mode);
    return 0;
}
