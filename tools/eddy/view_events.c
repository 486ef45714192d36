/* eddy view's events parser (view_events.h). */
#include "view_events.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool one_of(const char *s, const char *const *words)
{
    for (; *words; words++)
        if (!strcmp(s, *words))
            return true;
    return false;
}

/* One line (NUL-terminated, comment removed): false when it is not an event. */
static bool parse_line(const char *line, view_event *ev)
{
    static const char *const buttons[] = { "left", "right", "middle", NULL };
    static const char *const keys[] = { "space", "n", "r", "plus", "minus", "c", "q", NULL };
    char a[16] = "", extra[2];
    unsigned long long frame;
    memset(ev, 0, sizeof *ev);
    if (sscanf(line, "%llu %15s", &frame, ev->what) != 2 || frame > 1000000000ull)
        return false;
    ev->frame = frame;
    if (!strcmp(ev->what, "press")) {
        if (sscanf(line, "%*u %*s %15s %lf %lf %1s", a, &ev->x, &ev->y, extra) != 3 || !one_of(a, buttons))
            return false;
        ev->button = !strcmp(a, "left") ? 0 : !strcmp(a, "right") ? 1 : 2;
    } else if (!strcmp(ev->what, "move")) {
        if (sscanf(line, "%*u %*s %lf %lf %1s", &ev->x, &ev->y, extra) != 2)
            return false;
    } else if (!strcmp(ev->what, "scroll")) {
        if (sscanf(line, "%*u %*s %lf %1s", &ev->y, extra) != 1)
            return false;
    } else if (!strcmp(ev->what, "key")) {
        if (sscanf(line, "%*u %*s %15s %1s", ev->key, extra) != 1 || !one_of(ev->key, keys))
            return false;
    } else if (!strcmp(ev->what, "release")) {
        if (sscanf(line, "%*u %*s %1s", extra) == 1)
            return false;
    } else {
        return false;
    }
    /* Pixels and clicks: finite and within any screen. */
    return isfinite(ev->x) && isfinite(ev->y) && fabs(ev->x) <= 1e6 && fabs(ev->y) <= 1e6;
}

int view_parse_events(const char *text, size_t size, view_event *out, uint32_t max, char *err, size_t cap)
{
    if (size > VIEW_EVENTS_MAX_BYTES) {
        snprintf(err, cap, "%zu bytes; expected at most %u", size, VIEW_EVENTS_MAX_BYTES);
        return -1;
    }
    uint32_t count = 0, line_no = 0;
    uint64_t last = 0;
    for (size_t at = 0; at < size;) {
        size_t end = at;
        while (end < size && text[end] != '\n')
            end++;
        char line[256];
        size_t n = end - at;
        line_no++;
        if (n >= sizeof line) {
            snprintf(err, cap, "line %u: longer than %zu bytes", line_no, sizeof line - 1);
            return -1;
        }
        memcpy(line, text + at, n);
        line[n] = 0;
        at = end + 1;
        if (memchr(line, 0, n)) {
            snprintf(err, cap, "line %u: a NUL byte", line_no);
            return -1;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        if (strspn(line, " \t\r") == strlen(line))
            continue;
        view_event ev;
        if (!parse_line(line, &ev) || ev.frame < last || count >= max) {
            snprintf(err, cap, "line %u: expected \"FRAME press left|right|middle X Y\", \"FRAME move X Y\", "
                     "\"FRAME release\", \"FRAME scroll CLICKS\" or \"FRAME key space|n|r|plus|minus|c|q\" with "
                     "frames in order (at most %u events)", line_no, max);
            return -1;
        }
        last = ev.frame;
        out[count++] = ev;
    }
    return (int)count;
}
