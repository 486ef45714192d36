/* libFuzzer harness: bytes -> view_parse_events (eddy view's --events
 * file). The parser must refuse or accept every input without reading
 * outside it; what it accepts must be in order and finite. tools/fuzz.sh
 * runs it. */
#include "view_events.h"

#include <math.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static view_event events[64];
    char err[512];
    int n = view_parse_events((const char *)data, size, events, 64, err, sizeof err);
    if (n > 64)
        abort();
    for (int i = 0; i < n; i++)
        if ((i && events[i].frame < events[i - 1].frame) || !isfinite(events[i].x) || !isfinite(events[i].y))
            abort();
    return 0;
}
