/* libFuzzer harness: bytes -> a module descriptor -> eddy_module_check (the
 * checks eddy_register_module and a module library's load run). Names come
 * from the input without a terminator where it says so, pointers are NULL
 * where it says so, counts run past the limits: the check must refuse or
 * accept without reading outside what the descriptor's counts promise, and
 * what it accepts must be whole. tools/fuzz.sh runs it. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The check only logs: no engine. */
void eddy_log(eddy_engine *e, eddy_log_level level, const char *id, const char *fmt, ...)
{
    (void)e, (void)level, (void)id, (void)fmt;
}

enum { N = EDDY_MAX_PARAMS + 6, TEXT = 80 };

typedef struct reader {
    const uint8_t *p;
    size_t left;
} reader;

static uint8_t byte(reader *r)
{
    if (!r->left)
        return 0;
    r->left--;
    return *r->p++;
}

/* A string of up to TEXT - 1 input bytes, terminated; or NULL (1 in 8). */
static const char *text(reader *r, char store[TEXT])
{
    uint8_t n = byte(r);
    if ((n & 7) == 7)
        return NULL;
    uint32_t len = (uint32_t)(n >> 1) % TEXT;
    len = len == TEXT - 1 ? TEXT - 1 : len;
    for (uint32_t i = 0; i < len; i++)
        store[i] = (char)byte(r);
    store[len] = 0;
    return store;
}

static double number(reader *r)
{
    static const double values[] = { 0, 1, -1, 0.5, 1e6, -1e6, 3, 16, 65536, 1e300, INFINITY, -INFINITY, NAN, 2.5 };
    return values[byte(r) % (sizeof values / sizeof values[0])];
}

static eddy_result create(const eddy_system_ctx *ctx, void **state) { (void)ctx, (void)state; return EDDY_OK; }
static void destroy(void *state) { (void)state; }
static eddy_result declare(void *state, eddy_graph g) { (void)state, (void)g; return EDDY_OK; }
static double stable(void *state) { (void)state; return 1; }
static eddy_result set_dt(void *state, double dt) { (void)state, (void)dt; return EDDY_OK; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char texts[4 * N + 8][TEXT];
    static eddy_param_info params[N];
    static eddy_port_info ports[2 * N];
    static eddy_slot_info slots[N];
    static const char *shared[N];
    reader r = { data, size };
    uint32_t t = 0;
    eddy_module_desc m = { EDDY_MODULE_DESC_VERSION };
    m.name = text(&r, texts[t++]);
    m.version = text(&r, texts[t++]);
    m.summary = text(&r, texts[t++]);
    uint8_t flags = byte(&r);
    m.create = flags & 1 ? NULL : create;
    m.destroy = flags & 2 ? NULL : destroy;
    m.declare_step = flags & 4 ? NULL : declare;
    m.stable_dt = flags & 8 ? stable : NULL;
    m.set_dt = flags & 16 ? set_dt : NULL;
    m.param_count = byte(&r) % N;
    m.params = flags & 32 ? NULL : params;
    for (uint32_t i = 0; i < m.param_count; i++) {
        params[i] = (eddy_param_info){ text(&r, texts[t++ % (4 * N)]), (eddy_param_type)(byte(&r) % 7), "m",
                                       { number(&r), number(&r), number(&r) }, number(&r), number(&r), "doc" };
        if (byte(&r) & 1)
            params[i].unit = text(&r, texts[(t++) % (4 * N)]);
    }
    m.shared_buffer_count = byte(&r) % N;
    m.shared_buffers = flags & 64 ? NULL : shared;
    for (uint32_t i = 0; i < m.shared_buffer_count; i++)
        shared[i] = text(&r, texts[t++ % (4 * N)]);
    m.input_count = byte(&r) % 20;
    m.output_count = byte(&r) % 20;
    m.inputs = ports;
    m.outputs = ports + N;
    m.set_input = NULL;
    for (uint32_t i = 0; i < 2 * N; i++)
        ports[i] = (eddy_port_info){ i < 3 ? text(&r, texts[t++ % (4 * N)]) : "p", (eddy_port_type)(byte(&r) % 4),
                                     "1", "doc" };
    m.slot_count = byte(&r) % 12;
    m.slots = flags & 128 ? NULL : slots;
    for (uint32_t i = 0; i < m.slot_count && i < N; i++)
        slots[i] = (eddy_slot_info){ text(&r, texts[t++ % (4 * N)]), "doc", byte(&r) % 20, byte(&r) % 20 };
    if (eddy_module_check(NULL, &m, "fuzz") == EDDY_OK) {
        /* Accepted: everything the scene layer and `eddy modules` read is there. */
        if (!m.name || !m.version || !m.summary || !m.create || m.param_count > EDDY_MAX_PARAMS ||
            m.input_count > EDDY_MAX_PORTS || m.slot_count > EDDY_MAX_SLOTS)
            abort();
        for (uint32_t i = 0; i < m.param_count; i++)
            if (!m.params[i].name || !m.params[i].unit || !m.params[i].doc || !(m.params[i].min <= m.params[i].max))
                abort();
    }
    return 0;
}
