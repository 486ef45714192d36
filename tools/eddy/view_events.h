/* eddy view's scripted input (view_events.c): events replayed at given
 * frames through the same handlers as the window's callbacks. No Vulkan
 * here, so the parser is fuzzed on its own (tests/fuzz/fuzz_view_events.c). */
#ifndef EDDY_TOOL_VIEW_EVENTS_H
#define EDDY_TOOL_VIEW_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#define VIEW_EVENTS_MAX 4096u
#define VIEW_EVENTS_MAX_BYTES (1u << 20)

typedef struct view_event {
    uint64_t frame;
    char what[16]; /* press, release, move, scroll, key */
    int button;    /* press: 0 left, 1 right, 2 middle */
    double x, y;   /* press, move: pixels; scroll: y clicks */
    char key[16];  /* key: space, n, r, plus, minus, c, q */
} view_event;

/* The events text: one event a line, "FRAME press left|right|middle X Y",
 * "FRAME move X Y", "FRAME release", "FRAME scroll CLICKS", "FRAME key
 * space|n|r|plus|minus|c|q"; '#' starts a comment; frames (from 0) in order;
 * at most VIEW_EVENTS_MAX events and VIEW_EVENTS_MAX_BYTES bytes. Returns
 * the number of events in out (max entries), or -1 with "line N: ..." in err. */
int view_parse_events(const char *text, size_t size, view_event *out, uint32_t max, char *err, size_t cap);

#endif
