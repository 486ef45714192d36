/* Checkpoints: a scene's whole state at a step boundary in one HDF5 file
 * (docs/checkpoint.md), written so that the previous file is never lost,
 * and a scene restored from one that continues bitwise as if it had never
 * stopped. The scene saves what it owns (time, steps, frames, every
 * particle set buffer, its ports' values, where its output files stood);
 * each system declares the rest through its module's checkpoint callback
 * (eddy_checkpoint.h). A checkpoint is untrusted input: every dataset is
 * read only into a place of exactly its expected type and extent, and
 * checksummed. */
#include "checkpoint_h5.h"
#include "eddy/eddy_checkpoint.h"
#include "scene_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#define CK_FORMAT "eddy checkpoint"
#define CK_FORMAT_VERSION 1
/* The scene text a checkpoint may carry, at most (bytes). */
#define CK_TEXT_MAX (64u << 20)

struct eddy_checkpoint {
    eddy_scene *s;
    ck_h5 *h;
    const char *file;    /* for messages */
    bool restoring;
    uint32_t system;     /* the system whose callback runs */
    uint32_t items;      /* its declarations so far */
    uint32_t *done;      /* set buffers a declaration saved or restored (ids) */
    uint32_t done_count, done_cap;
    bool failed;
};

/* FNV-1a (64 bits) of the scene text: tells a checkpoint's scene from
 * another. */
static uint64_t scene_text_hash(const char *text)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        h = (h ^ *p) * 0x100000001b3ull;
    return h;
}

/* One message for the first failure of a save or restore. */
static eddy_result cp_fail(eddy_checkpoint *cp, const char *id, eddy_result r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static eddy_result cp_fail(eddy_checkpoint *cp, const char *id, eddy_result r, const char *fmt, ...)
{
    if (!cp->failed) {
        char what[768];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        eddy_log(cp->s->e, EDDY_LOG_ERROR, id, "checkpoint: %s: %s", cp->file, what);
    }
    cp->failed = true;
    return r;
}

/* The set and name of buffer b when it is a particle set's. */
static bool set_buffer_of(const eddy_scene *s, eddy_buffer b, uint32_t *set, const char **name)
{
    for (uint32_t i = 0; i < s->set_count; i++) {
        const char *n;
        for (uint32_t k = 0; (n = eddy_particles_buffer_name(s->e, s->sets[i].handle, k)); k++)
            if (eddy_particles_buffer(s->e, s->sets[i].handle, n).id == b.id) {
                *set = i;
                *name = n;
                return true;
            }
    }
    return false;
}

static bool mark_done(eddy_checkpoint *cp, eddy_buffer b)
{
    if (cp->done_count == cp->done_cap) {
        uint32_t cap = cp->done_cap ? 2 * cp->done_cap : 16;
        uint32_t *grown = realloc(cp->done, cap * sizeof *grown);
        if (!grown)
            return false;
        cp->done = grown, cp->done_cap = cap;
    }
    cp->done[cp->done_count++] = b.id;
    return true;
}

static bool is_done(const eddy_checkpoint *cp, eddy_buffer b)
{
    for (uint32_t i = 0; i < cp->done_count; i++)
        if (cp->done[i] == b.id)
            return true;
    return false;
}

/* The checks every declaration shares. */
static eddy_result check_item(eddy_checkpoint *cp, const char *fn, const char *name, eddy_state_type type,
                              uint32_t components)
{
    if (!cp) {
        fprintf(stderr, "eddy error [api.null]: %s: cp is NULL\n", fn);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (cp->failed)
        return EDDY_ERROR_INVALID_ARGUMENT;
    const char *sys = cp->s->systems[cp->system].name;
    /* Names become HDF5 link names under the system's group: one part, as
     * a file name. */
    const char *problem = name ? eddy_name_problem(name, 63) : "it is NULL";
    if (problem)
        return cp_fail(cp, "checkpoint.invalid", EDDY_ERROR_INVALID_ARGUMENT, "system '%s': %s: the name %s",
                       sys, fn, problem);
    if (!ck_type_size(type) || components == 0 || components > 64)
        return cp_fail(cp, "checkpoint.invalid", EDDY_ERROR_INVALID_ARGUMENT, "system '%s': %s '%s': expected an "
                       "eddy_state_type and 1..64 components", sys, fn, name);
    if (++cp->items > EDDY_CHECKPOINT_MAX_ITEMS)
        return cp_fail(cp, "checkpoint.invalid", EDDY_ERROR_LIMIT, "system '%s': more than %d declarations", sys,
                       EDDY_CHECKPOINT_MAX_ITEMS);
    return EDDY_OK;
}

/* Saves or restores one dataset through host memory `data`. */
static eddy_result transfer(eddy_checkpoint *cp, const char *path, eddy_state_type type, uint64_t rows,
                            uint32_t cols, void *data, const char *unit)
{
    bool ok = cp->restoring ? ck_read(cp->h, path, type, rows, cols, data)
                            : ck_write(cp->h, path, type, rows, cols, data, unit);
    if (!ok)
        return cp_fail(cp, cp->restoring ? "checkpoint.mismatch" : "checkpoint.io",
                       cp->restoring ? EDDY_ERROR_PARSE : EDDY_ERROR_IO, "%s", cp->h->err);
    return EDDY_OK;
}

/* A device buffer whole, as rows of cols values of type. */
static eddy_result transfer_buffer(eddy_checkpoint *cp, const char *path, eddy_buffer b, eddy_state_type type,
                                   uint32_t cols, const char *unit)
{
    eddy_engine *e = cp->s->e;
    uint64_t size = eddy_buffer_size(e, b), row = ck_type_size(type) * cols;
    if (!size || size % row)
        return cp_fail(cp, "checkpoint.invalid", EDDY_ERROR_INVALID_ARGUMENT, "%s: a buffer of %" PRIu64
                       " bytes is not rows of %u %s values", path, size, cols, ck_type_name(type));
    void *data = size <= SIZE_MAX ? malloc((size_t)size) : NULL;
    if (!data)
        return cp_fail(cp, "memory.host", EDDY_ERROR_OUT_OF_MEMORY, "%s: no host memory for %" PRIu64 " bytes",
                       path, size);
    eddy_result r = EDDY_OK;
    if (!cp->restoring && eddy_buffer_download(e, b, 0, size, data) != EDDY_OK)
        r = cp_fail(cp, "checkpoint.io", EDDY_ERROR_VULKAN, "%s: the buffer could not be read", path);
    if (r == EDDY_OK)
        r = transfer(cp, path, type, size / row, cols, data, unit);
    if (r == EDDY_OK && cp->restoring && eddy_buffer_upload(e, b, 0, size, data) != EDDY_OK)
        r = cp_fail(cp, "checkpoint.io", EDDY_ERROR_VULKAN, "%s: the buffer could not be written", path);
    free(data);
    return r;
}

eddy_result eddy_checkpoint_buffer(eddy_checkpoint *cp, const char *name, eddy_buffer b, eddy_state_type type,
                                   uint32_t components, const char *unit)
{
    eddy_result r = check_item(cp, __func__, name, type, components);
    if (r != EDDY_OK)
        return r;
    char path[256];
    uint32_t set;
    const char *set_name;
    if (set_buffer_of(cp->s, b, &set, &set_name)) {
        if (is_done(cp, b))
            return EDDY_OK; /* two systems describing one shared buffer: once is enough */
        snprintf(path, sizeof path, "/sets/%s/%s", cp->s->sets[set].name, set_name);
        if (!mark_done(cp, b))
            return cp_fail(cp, "memory.host", EDDY_ERROR_OUT_OF_MEMORY, "out of host memory");
    } else {
        if (!eddy_buffer_size(cp->s->e, b))
            return cp_fail(cp, "checkpoint.invalid", EDDY_ERROR_INVALID_ARGUMENT, "system '%s': '%s' is not a "
                           "live buffer", cp->s->systems[cp->system].name, name);
        snprintf(path, sizeof path, "/systems/%s/%s", cp->s->systems[cp->system].name, name);
    }
    return transfer_buffer(cp, path, b, type, components, unit);
}

eddy_result eddy_checkpoint_buffers(eddy_checkpoint *cp, const eddy_checkpoint_item *items, uint32_t count)
{
    if (!items && count) {
        fprintf(stderr, "eddy error [api.null]: %s: items is NULL\n", __func__);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    eddy_result r = EDDY_OK;
    for (uint32_t i = 0; i < count && r == EDDY_OK; i++)
        if (items[i].buffer.id)
            r = eddy_checkpoint_buffer(cp, items[i].name, items[i].buffer, items[i].type, items[i].components,
                                       items[i].unit);
    return r;
}

eddy_result eddy_checkpoint_values(eddy_checkpoint *cp, const char *name, void *data, eddy_state_type type,
                                   uint64_t count, uint32_t components, const char *unit)
{
    eddy_result r = check_item(cp, __func__, name, type, components);
    if (r != EDDY_OK)
        return r;
    uint64_t bytes = count * components * ck_type_size(type);
    if (count > EDDY_CHECKPOINT_MAX_VALUES_BYTES || bytes > EDDY_CHECKPOINT_MAX_VALUES_BYTES || (count && !data))
        return cp_fail(cp, "checkpoint.invalid", EDDY_ERROR_LIMIT, "system '%s': values '%s': %s",
                       cp->s->systems[cp->system].name, name, data ? "more than 64 MiB" : "data is NULL");
    char path[256];
    snprintf(path, sizeof path, "/systems/%s/%s", cp->s->systems[cp->system].name, name);
    return transfer(cp, path, type, count, components, data, unit);
}

/* A restored series' names, each one file name part. */
static bool series_names(const char *buf, uint64_t bytes, uint32_t count, eddy_pvd_entry *out)
{
    uint64_t at = 0;
    for (uint32_t k = 0; k < count; k++) {
        const char *name = buf + at;
        size_t len = strnlen(name, (size_t)(bytes - at));
        if (at + len >= bytes || eddy_name_problem(name, 255))
            return false;
        if (!(out[k].file = strdup(name)))
            return false;
        at += len + 1;
    }
    return at == bytes;
}

/* A .pvd series (a system's own, or the scene's of its sets) at prefix:
 * "<prefix>.time", "<prefix>.files" and, with parts (the number of sets),
 * each entry's set in "<prefix>.set". Restored into a new array that
 * replaces *entries; at most max entries, each a file name part. */
static eddy_result transfer_series(eddy_checkpoint *cp, const char *prefix, eddy_pvd_entry **entries,
                                   uint32_t *count, uint64_t max, uint32_t parts)
{
    char path[300], files[300], sets[300];
    snprintf(path, sizeof path, "%s.time", prefix);
    snprintf(files, sizeof files, "%s.files", prefix);
    snprintf(sets, sizeof sets, "%s.set", prefix);
    uint64_t n = *count, bytes = 0, cols;
    eddy_result r = EDDY_OK;
    if (cp->restoring && (!ck_extent(cp->h, path, &n, &cols) || !ck_extent(cp->h, files, &bytes, &cols) ||
                          n > (1u << 24) || n > max || bytes > n * 256))
        return cp_fail(cp, "checkpoint.mismatch", EDDY_ERROR_PARSE, "%s: expected a series of at most %" PRIu64
                       " files (one a frame), of at most 255 bytes each", path, max);
    for (uint64_t k = 0; !cp->restoring && k < n; k++)
        bytes += strlen((*entries)[k].file) + 1;
    double *t = calloc(n ? n : 1, sizeof *t);
    uint32_t *part = calloc(n ? n : 1, sizeof *part);
    char *buf = calloc(bytes ? bytes : 1, 1);
    eddy_pvd_entry *out = cp->restoring ? calloc(n ? n : 1, sizeof *out) : NULL;
    if (!t || !part || !buf || (cp->restoring && !out))
        r = cp_fail(cp, "memory.host", EDDY_ERROR_OUT_OF_MEMORY, "out of host memory");
    for (uint64_t k = 0, at = 0; r == EDDY_OK && !cp->restoring && k < n; k++) {
        t[k] = (*entries)[k].time;
        part[k] = (*entries)[k].part;
        size_t len = strlen((*entries)[k].file) + 1;
        memcpy(buf + at, (*entries)[k].file, len);
        at += len;
    }
    if (r == EDDY_OK)
        r = transfer(cp, path, EDDY_STATE_F64, n, 1, t, "s");
    if (r == EDDY_OK)
        r = transfer(cp, files, EDDY_STATE_U8, bytes, 1, buf, "1");
    if (r == EDDY_OK && parts)
        r = transfer(cp, sets, EDDY_STATE_U32, n, 1, part, "1");
    if (r == EDDY_OK && cp->restoring) {
        bool ok = series_names(buf, bytes, (uint32_t)n, out);
        for (uint64_t k = 0; ok && k < n; k++) {
            out[k].time = t[k], out[k].part = parts ? part[k] : 0;
            ok = isfinite(t[k]) && (!parts || part[k] < parts);
        }
        if (!ok) {
            r = cp_fail(cp, "checkpoint.mismatch", EDDY_ERROR_PARSE, "%s: expected %" PRIu64 " file names, each one "
                        "file name part, at finite times%s", files, n, parts ? ", of the scene's sets" : "");
        } else {
            for (uint32_t k = 0; k < *count; k++)
                free((char *)(*entries)[k].file);
            free(*entries);
            *entries = out, *count = (uint32_t)n;
            out = NULL;
        }
    }
    for (uint64_t k = 0; out && k < n; k++)
        free((char *)out[k].file);
    free(out);
    free(t);
    free(part);
    free(buf);
    return r;
}

eddy_result eddy_checkpoint_series(eddy_checkpoint *cp, const char *name, eddy_pvd_entry **entries, uint32_t *count)
{
    eddy_result r = check_item(cp, __func__, name, EDDY_STATE_F64, 1);
    if (r != EDDY_OK)
        return r;
    if (!entries || !count)
        return cp_fail(cp, "checkpoint.invalid", EDDY_ERROR_INVALID_ARGUMENT, "%s: entries or count is NULL",
                       __func__);
    char prefix[256];
    snprintf(prefix, sizeof prefix, "/systems/%s/%s", cp->s->systems[cp->system].name, name);
    return transfer_series(cp, prefix, entries, count, cp->s->frames + 1ull, 0);
}

bool eddy_checkpoint_restoring(const eddy_checkpoint *cp)
{
    return cp && cp->restoring;
}

/* The type and unit of eddy's own set buffers (eddy.h); module buffers no
 * system described are kept as 32-bit words. */
static void set_buffer_kind(const char *name, eddy_state_type *t, const char **unit)
{
    static const struct { const char *name, *unit; eddy_state_type t; } known[] = {
        { "position", "m", EDDY_STATE_F32 }, { "velocity", "m/s", EDDY_STATE_F32 },
        { "mass", "kg", EDDY_STATE_F32 },    { "phase", "1", EDDY_STATE_U32 },
        { "clamped", "1", EDDY_STATE_U32 },
    };
    *t = EDDY_STATE_U32;
    *unit = "1";
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (!strcmp(name, known[i].name))
            *t = known[i].t, *unit = known[i].unit;
}

/* Every set buffer no declaration handled, as rows of one particle. */
static eddy_result transfer_sets(eddy_checkpoint *cp)
{
    eddy_scene *s = cp->s;
    for (uint32_t i = 0; i < s->set_count; i++) {
        eddy_particles p = s->sets[i].handle;
        uint64_t cap = eddy_particles_capacity(s->e, p);
        const char *n;
        for (uint32_t k = 0; (n = eddy_particles_buffer_name(s->e, p, k)); k++) {
            eddy_buffer b = eddy_particles_buffer(s->e, p, n);
            if (is_done(cp, b))
                continue;
            eddy_state_type t;
            const char *unit;
            set_buffer_kind(n, &t, &unit);
            uint64_t size = eddy_buffer_size(s->e, b);
            uint32_t cols = cap && size % (cap * 4) == 0 && size / (cap * 4) <= 64 ? (uint32_t)(size / (cap * 4)) : 1;
            char path[256];
            snprintf(path, sizeof path, "/sets/%s/%s", s->sets[i].name, n);
            eddy_result r = transfer_buffer(cp, path, b, t, cols, unit);
            if (r != EDDY_OK)
                return r;
        }
    }
    return EDDY_OK;
}

/* An input's values as a file row (at, target, held: 9 numbers; host and
 * held_known: 2 flags), or back from one. */
static void input_row(scene_input *in, double *v, uint8_t *f, bool restoring)
{
    double *mine[3] = { in->at, in->target, in->held };
    for (int j = 0; j < 3; j++)
        memcpy(restoring ? mine[j] : v + 3 * j, restoring ? v + 3 * j : mine[j], 3 * sizeof *v);
    if (restoring)
        in->host = f[0] != 0, in->held_known = f[1] != 0;
    else
        f[0] = in->host, f[1] = in->held_known;
}

/* The scene's own view of each system: its ports' values. */
static eddy_result transfer_ports(eddy_checkpoint *cp, uint32_t i)
{
    scene_system *sys = &cp->s->systems[i];
    const eddy_module_desc *m = sys->module;
    char path[256];
    eddy_result r = EDDY_OK;
    if (m->input_count) {
        double *v = calloc((size_t)m->input_count * 9, sizeof *v);
        uint8_t *flags = calloc((size_t)m->input_count * 2, 1);
        if (!v || !flags)
            r = cp_fail(cp, "memory.host", EDDY_ERROR_OUT_OF_MEMORY, "out of host memory");
        for (uint32_t k = 0; r == EDDY_OK && k < m->input_count && !cp->restoring; k++)
            input_row(&sys->inputs[k], v + 9 * k, flags + 2 * k, false);
        snprintf(path, sizeof path, "/scene/ports/%s/inputs", sys->name);
        if (r == EDDY_OK)
            r = transfer(cp, path, EDDY_STATE_F64, m->input_count, 9, v, "1");
        snprintf(path, sizeof path, "/scene/ports/%s/input_flags", sys->name);
        if (r == EDDY_OK)
            r = transfer(cp, path, EDDY_STATE_U8, m->input_count, 2, flags, "1");
        for (uint32_t k = 0; r == EDDY_OK && k < m->input_count && cp->restoring; k++)
            input_row(&sys->inputs[k], v + 9 * k, flags + 2 * k, true);
        free(v);
        free(flags);
    }
    if (r == EDDY_OK && m->output_count) {
        /* A system whose ports the scene never read has no values: zeros. */
        uint8_t known = sys->outputs_known;
        double *out = sys->outputs ? sys->outputs : calloc((size_t)m->output_count * 3, sizeof *out);
        snprintf(path, sizeof path, "/scene/ports/%s/outputs", sys->name);
        r = out ? transfer(cp, path, EDDY_STATE_F64, m->output_count, 3, out, "1")
                : cp_fail(cp, "memory.host", EDDY_ERROR_OUT_OF_MEMORY, "out of host memory");
        if (out != sys->outputs)
            free(out);
        snprintf(path, sizeof path, "/scene/ports/%s/outputs_known", sys->name);
        if (r == EDDY_OK)
            r = transfer(cp, path, EDDY_STATE_U8, 1, 1, &known, "1");
        sys->outputs_known = known != 0;
    }
    return r;
}

/* Each system through its module, then its ports. */
static eddy_result transfer_systems(eddy_checkpoint *cp)
{
    eddy_scene *s = cp->s;
    for (uint32_t i = 0; i < s->system_count; i++) {
        cp->system = i;
        cp->items = 0;
        char path[256];
        snprintf(path, sizeof path, "/systems/%s", s->systems[i].name);
        if (!cp->restoring && !ck_group(cp->h, path))
            return cp_fail(cp, "checkpoint.io", EDDY_ERROR_IO, "%s", cp->h->err);
        eddy_result r = s->systems[i].module->checkpoint(s->systems[i].state, cp);
        if (r != EDDY_OK)
            return cp_fail(cp, "checkpoint.system", r, "system '%s' (module '%s') could not %s its state",
                           s->systems[i].name, s->systems[i].module->name, cp->restoring ? "restore" : "save");
        if (cp->failed)
            return EDDY_ERROR_INVALID_ARGUMENT;
        r = transfer_ports(cp, i);
        if (r != EDDY_OK)
            return r;
    }
    return EDDY_OK;
}

/* A system whose module declares no state stops a save or restore before
 * anything is written or read. */
bool scene_checkpointable(eddy_scene *s, const char *file)
{
    for (uint32_t i = 0; i < s->system_count; i++) {
        const eddy_module_desc *m = s->systems[i].module;
        if (!m->checkpoint) {
            eddy_log(s->e, EDDY_LOG_ERROR, "checkpoint.unsupported", "checkpoint: %s: system '%s': module '%s' "
                     "(module ABI %u.%u) declares no checkpoint state, so the scene cannot be checkpointed "
                     "(it still runs)", file, s->systems[i].name, m->name, m->abi_major, m->abi_minor);
            return false;
        }
    }
    return true;
}

/* The size of a log at the checkpoint: its growing .tmp, or the file once
 * renamed into place; 0 when neither exists. */
static uint64_t log_bytes(const eddy_scene *s, const char *file)
{
    char path[EDDY_OUT_DIR_MAX + 160];
    struct stat st;
    size_t n = strlen(file);
    char tmp[EDDY_NAME_MAX + 24];
    if (n + 5 > sizeof tmp)
        return 0;
    memcpy(tmp, file, n);
    memcpy(tmp + n, ".tmp", 5);
    if (scene_out_path(s, path, sizeof path, tmp) && stat(path, &st) == 0)
        return (uint64_t)st.st_size;
    if (scene_out_path(s, path, sizeof path, file) && stat(path, &st) == 0)
        return (uint64_t)st.st_size;
    return 0;
}

/* Where the output folder stands: frames, the .pvd entries (time, set,
 * frame), each log's length. */
static eddy_result transfer_output(eddy_checkpoint *cp)
{
    eddy_scene *s = cp->s;
    uint32_t logs = 1 + s->system_count;
    uint64_t *bytes = calloc(logs, sizeof *bytes);
    uint64_t ready = s->out_ready && !s->no_output;
    if (!bytes)
        return cp_fail(cp, "memory.host", EDDY_ERROR_OUT_OF_MEMORY, "out of host memory");
    eddy_result r = transfer(cp, "/scene/output/ready", EDDY_STATE_U64, 1, 1, &ready, "1");
    for (uint32_t k = 0; k < logs && !cp->restoring; k++) {
        char name[EDDY_NAME_MAX + 16];
        bytes[k] = ready && scene_log_name(s, k, name, sizeof name) ? log_bytes(s, name) : 0;
    }
    if (r == EDDY_OK)
        r = transfer(cp, "/scene/output/log_bytes", EDDY_STATE_U64, logs, 1, bytes, "B");
    /* The sets' series: a file a set and frame at most. */
    uint32_t count = s->pvd_count;
    if (r == EDDY_OK)
        r = transfer_series(cp, "/scene/output/pvd", &s->pvd, &count, (uint64_t)s->set_count * (s->frames + 1ull),
                            s->set_count);
    if (r == EDDY_OK && cp->restoring)
        s->pvd_count = s->pvd_cap = count;
    if (r == EDDY_OK && cp->restoring) {
        s->resume_out = ready != 0 && !s->no_output;
        free(s->resume_bytes);
        s->resume_bytes = bytes;
        bytes = NULL;
    }
    free(bytes);
    return r;
}

/* The scene's counters: saved as attributes of the file (h5dump shows them
 * first). */
static eddy_result save_header(eddy_checkpoint *cp)
{
    eddy_scene *s = cp->s;
    ck_h5 *h = cp->h;
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", EDDY_VERSION_MAJOR, EDDY_VERSION_MINOR, EDDY_VERSION_PATCH);
    uint64_t len = strlen(s->text);
    bool ok = ck_attr_str(h, "/", "format", CK_FORMAT) && ck_attr_u64(h, "/", "format_version", CK_FORMAT_VERSION) &&
              ck_attr_str(h, "/", "eddy_version", version) && ck_attr_str(h, "/", "scene", s->name) &&
              ck_attr_u64(h, "/", "scene_hash", scene_text_hash(s->text)) && ck_attr_u64(h, "/", "step", s->steps_done) &&
              ck_attr_f64(h, "/", "time", (double)s->steps_done * s->dt) && ck_attr_f64(h, "/", "dt", s->dt) &&
              ck_attr_u64(h, "/", "substeps", s->adaptive ? s->current_substeps : s->substeps) &&
              ck_attr_u64(h, "/", "frames", s->frames) && ck_attr_u64(h, "/", "frame_step", s->frame_step) &&
              ck_write(h, "/scene/text", EDDY_STATE_U8, len, 1, s->text, "1") &&
              ck_attr_str(h, "/scene/text", "path", s->path);
    return ok ? EDDY_OK : cp_fail(cp, "checkpoint.io", EDDY_ERROR_IO, "%s", h->err);
}

/* Makes sure a file's data reached the disk, then its folder's entry. */
static bool sync_path(const char *path, bool dir)
{
    int fd = open(path, dir ? O_RDONLY | O_DIRECTORY : O_RDONLY);
    if (fd < 0)
        return false;
    bool ok = fsync(fd) == 0 || (dir && errno == EINVAL);
    close(fd);
    return ok;
}

eddy_result eddy_scene_save(eddy_scene *s, const char *path)
{
    SCENE_GUARD(s, return EDDY_ERROR_INVALID_ARGUMENT);
    SCENE_NEED(s, path, return EDDY_ERROR_INVALID_ARGUMENT);
    return s->dist ? scene_dist_save(s, path) : scene_checkpoint_write(s, path);
}

eddy_result scene_checkpoint_write(eddy_scene *s, const char *path)
{
    char tmp[4200], dir[4200];
    if (!*path || strlen(path) + 5 > sizeof tmp) {
        eddy_log(s->e, EDDY_LOG_ERROR, "checkpoint.invalid", "eddy_scene_save: the path is empty or longer than "
                 "%zu bytes", sizeof tmp - 5);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (!scene_checkpointable(s, path))
        return EDDY_ERROR_UNSUPPORTED;
    eddy_result r = scene_wait_recorded(s);
    if (r == EDDY_OK && s->resume_out && !s->no_output)
        r = scene_resume_out(s);
    /* The ports' lines of the steps since the last frame go to their files
     * now, so the logs' lengths are those of this step. */
    if (r == EDDY_OK && s->out_ready && !s->out_closed && !s->no_output)
        r = scene_flush_port_logs(s);
    if (r != EDDY_OK)
        return r;
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    scene_dir_of(path, dir, sizeof dir);
    ck_h5 h;
    eddy_checkpoint cp = { .s = s, .h = &h, .file = path };
    if (!ck_create(&h, tmp)) {
        r = cp_fail(&cp, "checkpoint.io", EDDY_ERROR_IO, "%s (%s)", h.err, tmp);
        return r;
    }
    r = save_header(&cp);
    if (r == EDDY_OK)
        r = transfer_systems(&cp);
    if (r == EDDY_OK)
        r = transfer_sets(&cp);
    if (r == EDDY_OK)
        r = transfer_output(&cp);
    if (!ck_close(&h) && r == EDDY_OK)
        r = cp_fail(&cp, "checkpoint.io", EDDY_ERROR_IO, "%s", h.err);
    char err[256];
    if (r == EDDY_OK && !ck_seal(tmp, err, sizeof err))
        r = cp_fail(&cp, "checkpoint.io", EDDY_ERROR_IO, "%s", err);
    /* The earlier file with this name stays whole until the new one is on
     * the disk: then one rename replaces it. */
    if (r == EDDY_OK && (!sync_path(tmp, false) || rename(tmp, path) != 0 || !sync_path(dir, true)))
        r = cp_fail(&cp, "checkpoint.io", EDDY_ERROR_IO, "cannot write it in place: %s", strerror(errno));
    if (r != EDDY_OK)
        unlink(tmp);
    free(cp.done);
    return r;
}

char *scene_checkpoint_text(eddy_engine *e, const char *checkpoint, char *path, size_t path_cap)
{
    ck_h5 h;
    char *text = NULL;
    uint64_t rows = 0, cols = 0;
    if (!ck_open(&h, checkpoint)) {
        eddy_log(e, EDDY_LOG_ERROR, "checkpoint.invalid", "checkpoint: %s: %s", checkpoint, h.err);
        return NULL;
    }
    if (!ck_extent(&h, "/scene/text", &rows, &cols) || cols != 1 || rows == 0 || rows > CK_TEXT_MAX) {
        eddy_log(e, EDDY_LOG_ERROR, "checkpoint.invalid", "checkpoint: %s: /scene/text: expected the scene text "
                 "(1..%u bytes)", checkpoint, CK_TEXT_MAX);
    } else if (!(text = calloc(rows + 1, 1))) {
        eddy_log(e, EDDY_LOG_ERROR, "memory.host", "checkpoint: %s: out of host memory", checkpoint);
    } else if (!ck_read(&h, "/scene/text", EDDY_STATE_U8, rows, 1, text) ||
               !ck_get_str(&h, "/scene/text", "path", path, path_cap) || strlen(text) != rows) {
        eddy_log(e, EDDY_LOG_ERROR, "checkpoint.invalid", "checkpoint: %s: %s", checkpoint,
                 h.err[0] ? h.err : "/scene/text: holds a NUL byte");
        free(text);
        text = NULL;
    }
    ck_close(&h);
    return text;
}

/* The file's header against the scene: its format, version, scene and
 * counters. */
static bool check_header(eddy_checkpoint *cp)
{
    eddy_scene *s = cp->s;
    ck_h5 *h = cp->h;
    char format[64], version[32];
    uint64_t fv, hash, step, frames, frame_step, substeps;
    int maj = 0, min = 0, pat = 0;
    if (!ck_get_str(h, "/", "format", format, sizeof format) || strcmp(format, CK_FORMAT) ||
        !ck_get_u64(h, "/", "format_version", &fv) || !ck_get_str(h, "/", "eddy_version", version, sizeof version) ||
        sscanf(version, "%d.%d.%d", &maj, &min, &pat) != 3)
        return cp_fail(cp, "checkpoint.invalid", EDDY_ERROR_PARSE, "not an eddy checkpoint (%s)",
                       h->err[0] ? h->err : "format") == EDDY_OK;
    if (fv > CK_FORMAT_VERSION || maj > EDDY_VERSION_MAJOR || (maj == EDDY_VERSION_MAJOR && min > EDDY_VERSION_MINOR))
        return cp_fail(cp, "checkpoint.version", EDDY_ERROR_PARSE, "written by eddy %s (format %" PRIu64 "); this "
                       "is eddy %d.%d.%d (format %d): expected a checkpoint of this version or an older one",
                       version, fv, EDDY_VERSION_MAJOR, EDDY_VERSION_MINOR, EDDY_VERSION_PATCH,
                       CK_FORMAT_VERSION) == EDDY_OK;
    uint64_t mine = scene_text_hash(s->text);
    if (!ck_get_u64(h, "/", "scene_hash", &hash) || hash != mine)
        return cp_fail(cp, "checkpoint.foreign", EDDY_ERROR_PARSE, "saved from another scene (its scene_hash "
                       "%016" PRIx64 " is not this scene's %016" PRIx64 ")", hash, mine) == EDDY_OK;
    if (!ck_get_u64(h, "/", "step", &step) || !ck_get_u64(h, "/", "frames", &frames) ||
        !ck_get_u64(h, "/", "frame_step", &frame_step) || !ck_get_u64(h, "/", "substeps", &substeps))
        return cp_fail(cp, "checkpoint.invalid", EDDY_ERROR_PARSE, "%s", h->err) == EDDY_OK;
    uint32_t lo = s->substeps, hi = s->adaptive ? s->max_substeps : s->substeps;
    if (step > 1000000000000ull || frame_step > step || frames > step + 1 || frames > UINT32_MAX ||
        substeps < lo || substeps > hi)
        return cp_fail(cp, "checkpoint.invalid", EDDY_ERROR_PARSE, "its counters (step %" PRIu64 ", frames %" PRIu64
                       ", frame_step %" PRIu64 ", substeps %" PRIu64 ") are not those of a run of this scene "
                       "(substeps %u..%u)", step, frames, frame_step, substeps, lo, hi) == EDDY_OK;
    s->steps_done = step;
    s->frames = (uint32_t)frames;
    s->frame_step = frame_step;
    if (s->adaptive && substeps != s->current_substeps && scene_set_substeps(s, (uint32_t)substeps) != EDDY_OK)
        return cp_fail(cp, "checkpoint.system", EDDY_ERROR_INVALID_ARGUMENT, "the step graph of %" PRIu64
                       " substeps could not be made", substeps) == EDDY_OK;
    return true;
}

bool scene_restore(eddy_scene *s, const char *checkpoint)
{
    if (!scene_checkpointable(s, checkpoint))
        return false;
    ck_h5 h;
    eddy_checkpoint cp = { .s = s, .h = &h, .file = checkpoint, .restoring = true };
    if (!ck_open(&h, checkpoint)) {
        cp_fail(&cp, "checkpoint.invalid", EDDY_ERROR_PARSE, "%s", h.err);
        return false;
    }
    bool ok = check_header(&cp) && transfer_systems(&cp) == EDDY_OK && transfer_sets(&cp) == EDDY_OK &&
              transfer_output(&cp) == EDDY_OK;
    ck_close(&h);
    free(cp.done);
    return ok && !cp.failed;
}
