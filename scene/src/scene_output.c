/* A scene's outputs: the statistics line per frame (stats.jsonl, with
 * eddy_stats_add for the modules' own numbers), the frame files (VTK
 * particles and .pvd series, PNG images, the modules' own frames), the
 * ports' CSV logs, and closing the appended files into place
 * (scene_close_output, eddy_scene_finish_output). */
#include "scene_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>

/* ------------------------------------------------------------------ frames */

struct eddy_stats {
    char *buf;
    size_t len, cap;
    bool first;
    bool failed; /* out of memory: the line is incomplete */
};

void scene_stats_printf(eddy_stats *st, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(st->buf ? st->buf + st->len : NULL, st->buf ? st->cap - st->len : 0,
                          fmt, ap);
        va_end(ap);
        if (n < 0 || st->failed) {
            st->failed = true;
            return;
        }
        if (st->buf && st->len + (size_t)n < st->cap) {
            st->len += (size_t)n;
            return;
        }
        size_t cap = (st->cap + (size_t)n + 1) * 2;
        char *grown = realloc(st->buf, cap);
        if (!grown) {
            st->failed = true;
            return;
        }
        st->buf = grown;
        st->cap = cap;
    }
}

/* JSON has no NaN or infinity: write null for them. */
static void stats_number(eddy_stats *st, double v)
{
    if (isfinite(v))
        scene_stats_printf(st, "%.9g", v);
    else
        scene_stats_printf(st, "null");
}

static void stats_string(eddy_stats *st, const char *text);

void eddy_stats_add(eddy_stats *st, const char *key, double value)
{
    scene_stats_printf(st, "%s", st->first ? "" : ",");
    stats_string(st, key);
    scene_stats_printf(st, ":");
    stats_number(st, value);
    st->first = false;
}

/* "<out_dir>/<file>" into path; false when it does not fit (names and the
 * folder are length-checked at load, so this is a guard, not a cut). */
static bool out_path(const eddy_scene *s, char *path, size_t cap, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static bool out_path(const eddy_scene *s, char *path, size_t cap, const char *fmt, ...)
{
    int n = snprintf(path, cap, "%s/", s->out_dir);
    if (n < 0 || (size_t)n >= cap)
        return false;
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(path + n, cap - (size_t)n, fmt, ap);
    va_end(ap);
    if (m < 0 || (size_t)m >= cap - (size_t)n) {
        eddy_log(s->e, EDDY_LOG_ERROR, "output.write", "output: a file name in '%s' is too long", s->out_dir);
        return false;
    }
    return true;
}

bool scene_out_path(const eddy_scene *s, char *path, size_t cap, const char *file)
{
    return out_path(s, path, cap, "%s", file);
}

/* Appends text to "<out_dir>/<file>.tmp", the file that becomes <file> when
 * the scene is destroyed (statistics and port logs grow by a line per frame
 * or step, so they are appended to their temporary and renamed once). */
static eddy_result append_tmp(eddy_scene *s, const char *file, const char *mode, const char *text, size_t len)
{
    char path[EDDY_OUT_DIR_MAX + 160];
    if (!out_path(s, path, sizeof path, "%s.tmp", file))
        return EDDY_ERROR_IO;
    FILE *f = fopen(path, mode);
    bool ok = f && fwrite(text, 1, len, f) == len;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok) {
        eddy_log(s->e, EDDY_LOG_ERROR, "output.write", "output: cannot write '%s': %s", path, strerror(errno));
        return EDDY_ERROR_IO;
    }
    return EDDY_OK;
}

static eddy_result ensure_out(eddy_scene *s)
{
    if (s->out_ready)
        return EDDY_OK;
    if (s->resume_out)
        return scene_resume_out(s);
    char err[1024];
    int got = eddy_prepare_out_dir(s->out_dir, err, sizeof err);
    if (got != 0) {
        eddy_log(s->e, EDDY_LOG_ERROR, got == -2 ? "output.folder_in_use" : "output.write", "output: %s", err);
        return EDDY_ERROR_IO;
    }
    s->out_ready = true;
    eddy_result r = s->stats ? append_tmp(s, "stats.jsonl", "wb", "", 0) : EDDY_OK;
    for (uint32_t i = 0; i < s->system_count && r == EDDY_OK; i++) {
        scene_system *sys = &s->systems[i];
        if (!sys->log)
            continue;
        /* step, time, then each input and output: "name" or "name.x,name.y,name.z". */
        const eddy_module_desc *m = sys->module;
        char header[8192];
        int n = snprintf(header, sizeof header, "step,time");
        for (uint32_t k = 0; k < m->input_count + m->output_count && n > 0 && (size_t)n < sizeof header; k++) {
            const eddy_port_info *p = k < m->input_count ? &m->inputs[k] : &m->outputs[k - m->input_count];
            if (p->type == EDDY_PORT_FLOAT)
                n += snprintf(header + n, sizeof header - (size_t)n, ",%s", p->name);
            else
                n += snprintf(header + n, sizeof header - (size_t)n, ",%s.x,%s.y,%s.z", p->name, p->name, p->name);
        }
        if (n <= 0 || (size_t)n + 2 > sizeof header)
            return EDDY_ERROR_INVALID_ARGUMENT;
        memcpy(header + n, "\n", 2);
        char file[EDDY_NAME_MAX + 16];
        snprintf(file, sizeof file, "ports_%s.csv", sys->name);
        r = append_tmp(s, file, "wb", header, (size_t)n + 1);
    }
    return r;
}

/* Appends the ports' buffered log lines (one per step since the last frame). */
eddy_result scene_flush_port_logs(eddy_scene *s)
{
    for (uint32_t i = 0; i < s->system_count; i++) {
        scene_system *sys = &s->systems[i];
        if (!sys->log || !sys->len)
            continue;
        char file[EDDY_NAME_MAX + 16];
        snprintf(file, sizeof file, "ports_%s.csv", sys->name);
        eddy_result r = append_tmp(s, file, "ab", sys->text, sys->len);
        if (r != EDDY_OK)
            return r;
        sys->len = 0;
    }
    return EDDY_OK;
}

bool scene_log_name(const eddy_scene *s, uint32_t k, char *out, size_t cap)
{
    if (k == 0) {
        snprintf(out, cap, "stats.jsonl");
        return s->stats;
    }
    snprintf(out, cap, "ports_%s.csv", s->systems[k - 1].name);
    return s->systems[k - 1].log;
}

/* Renames the appended files into place: at the end of the scene's life,
 * whether the run finished or stopped on an error. */
eddy_result scene_close_output(eddy_scene *s)
{
    if (!s->out_ready || s->out_closed)
        return EDDY_OK;
    s->out_closed = true;
    if (!scene_dist_root(s)) /* over ranks, rank 0 keeps the logs */
        return EDDY_OK;
    eddy_result res = scene_flush_port_logs(s);
    for (uint32_t i = 0; i <= s->system_count; i++) {
        char file[EDDY_NAME_MAX + 16], path[EDDY_OUT_DIR_MAX + 160], tmp[EDDY_OUT_DIR_MAX + 170];
        if (!scene_log_name(s, i, file, sizeof file))
            continue;
        if (!out_path(s, path, sizeof path, "%s", file) || !out_path(s, tmp, sizeof tmp, "%s.tmp", file) ||
            rename(tmp, path) != 0) {
            eddy_log(s->e, EDDY_LOG_ERROR, "output.write", "output: cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
            res = EDDY_ERROR_IO;
        }
    }
    return res;
}

/* A JSON string: quotes, backslashes and control characters escaped (names
 * are checked to be valid UTF-8 when the scene is loaded). */
static void stats_string(eddy_stats *st, const char *text)
{
    scene_stats_printf(st, "\"");
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '"' || *p == '\\')
            scene_stats_printf(st, "\\%c", *p);
        else if (*p < 0x20)
            scene_stats_printf(st, "\\u%04x", *p);
        else
            scene_stats_printf(st, "%c", *p);
    }
    scene_stats_printf(st, "\"");
}

eddy_result eddy_scene_finish_output(eddy_scene *s)
{
    SCENE_GUARD(s, return EDDY_ERROR_INVALID_ARGUMENT);
    return scene_close_output(s);
}

/* A set's particles on the host for a frame. The particles a module's box
 * limit put back since the last frame (the set's "clamped" flags, eddy.h)
 * are counted into *clamped and cleared; they are read into phase's scratch
 * before phase itself is downloaded. */
static eddy_result download_set(eddy_engine *e, const scene_set *ss, float *pos, float *vel, float *mass,
                                uint32_t *phase, uint32_t *clamped)
{
    uint32_t n = ss->count;
    eddy_result res = EDDY_OK;
    eddy_buffer cb = eddy_particles_buffer(e, ss->handle, "clamped");
    if (cb.id && n) {
        res = eddy_buffer_download(e, cb, 0, (uint64_t)n * 4, phase);
        for (uint32_t k = 0; k < n && res == EDDY_OK; k++)
            *clamped += phase[k] != 0;
        if (res == EDDY_OK && *clamped)
            res = eddy_buffer_fill(e, cb, 0, (uint64_t)n * 4, 0);
    }
    const struct { const char *name; void *to; uint64_t bytes; } standard[] = {
        { "position", pos, 16 }, { "velocity", vel, 16 }, { "mass", mass, 4 }, { "phase", phase, 4 },
    };
    for (size_t b = 0; b < sizeof standard / sizeof *standard && res == EDDY_OK; b++)
        res = eddy_buffer_download(e, eddy_particles_buffer(e, ss->handle, standard[b].name), 0,
                                   (uint64_t)n * standard[b].bytes, standard[b].to);
    return res;
}

/* Set i's statistics (energy, momentum, centre of mass, extent, particles
 * outside the box, clamped or not finite) into the frame's line, with a
 * warning for each kind of escape; *unstable when a particle is not
 * finite. */
void scene_set_stats(eddy_scene *s, uint32_t i, uint32_t n, double t, eddy_stats *st, const float *pos,
                     const float *vel, const float *mass, uint32_t clamped, bool *unstable)
{
    eddy_engine *e = s->e;
    const scene_set *ss = &s->sets[i];
    double ke = 0, mom[3] = { 0 }, com[3] = { 0 }, mtot = 0, vmax = 0;
    double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    uint32_t bad = 0, outside = 0;
    for (uint32_t k = 0; k < n; k++) {
        const float *x = pos + 4 * (size_t)k, *v = vel + 4 * (size_t)k;
        double m = mass[k], v2 = 0;
        if (!isfinite(x[0]) || !isfinite(x[1]) || !isfinite(x[2]) || !isfinite(v[0]) ||
            !isfinite(v[1]) || !isfinite(v[2])) {
            bad++;
            continue;
        }
        /* A centre past a wall plane: no wall should let one through, so
         * each is a wall that failed. */
        for (int a = 0; a < 3; a++)
            if (x[a] < s->box_min[a] || x[a] > s->box_max[a]) {
                outside++;
                break;
            }
        for (int a = 0; a < 3; a++) {
            v2 += (double)v[a] * v[a];
            mom[a] += m * v[a];
            com[a] += m * x[a];
            lo[a] = x[a] < lo[a] ? x[a] : lo[a];
            hi[a] = x[a] > hi[a] ? x[a] : hi[a];
        }
        mtot += m;
        ke += 0.5 * m * v2;
        vmax = sqrt(v2) > vmax ? sqrt(v2) : vmax;
    }
    scene_stats_printf(st, "%s", i ? "," : "");
    stats_string(st, ss->name);
    scene_stats_printf(st, ":{\"count\":%u,\"kinetic_energy\":", n);
    stats_number(st, ke);
    scene_stats_printf(st, ",\"max_speed\":");
    stats_number(st, vmax);
    scene_stats_printf(st, ",\"momentum\":[");
    for (int a = 0; a < 3; a++) {
        stats_number(st, mom[a]);
        scene_stats_printf(st, a < 2 ? "," : "],\"center_of_mass\":[");
    }
    for (int a = 0; a < 3; a++) {
        stats_number(st, mtot > 0 ? com[a] / mtot : 0);
        scene_stats_printf(st, a < 2 ? "," : "],\"min\":[");
    }
    for (int a = 0; a < 3; a++) {
        stats_number(st, lo[a]);
        scene_stats_printf(st, a < 2 ? "," : "],\"max\":[");
    }
    for (int a = 0; a < 3; a++) {
        stats_number(st, hi[a]);
        scene_stats_printf(st, a < 2 ? "," : "],");
    }
    scene_stats_printf(st, "\"outside\":%u,\"clamped\":%u,\"non_finite\":%u}", outside, clamped, bad);
    if (clamped)
        eddy_log(e, EDDY_LOG_WARN, "particles.clamped",
                 "particle set '%s': %u particle(s) found past a wall of the box in steps %" PRIu64 "..%" PRIu64
                 " (t <= %g s) and put back by the box limit: they crossed a wall's plane within a step "
                 "(a smaller dt; stiffer walls where walls are springs)", ss->name, clamped, s->frame_step + 1, s->steps_done, t);
    if (outside)
        eddy_log(e, EDDY_LOG_WARN, "particles.outside",
                 "particle set '%s': %u particle(s) outside the box at step %" PRIu64 " (t = %g s): "
                 "a wall let them through (stiffer walls or a smaller dt)", ss->name, outside,
                 s->steps_done, t);
    if (bad) {
        eddy_log(e, EDDY_LOG_ERROR,
                 "particles.not_finite", "particle set '%s': %u particle(s) have a non-finite position or "
                 "velocity at step %" PRIu64 " (t = %g s): the simulation is unstable; "
                 "lower dt or check the parameters", ss->name, bad, s->steps_done, t);
        *unstable = true;
    }
}

/* How set i is drawn: from its device buffers, coloured by speed (0),
 * density (1; speed where the set has no density buffer), set (2) or phase
 * (3); a deformable body (a tetmesh's "surface", a cloth's "triangles") as
 * its surface, not as spheres. */
static eddy_render_set render_set(const eddy_scene *s, uint32_t i)
{
    eddy_engine *e = s->e;
    const scene_set *ss = &s->sets[i];
    eddy_buffer db = eddy_particles_buffer(e, ss->handle, "density");
    eddy_buffer pb = eddy_particles_buffer(e, ss->handle, "position");
    eddy_render_set rs = {
        .position = pb,
        .velocity = eddy_particles_buffer(e, ss->handle, "velocity"),
        .density = db.id ? db : pb,
        .phase = eddy_particles_buffer(e, ss->handle, "phase"),
        .count = ss->count,
        .mode = s->color_by == 1 && !db.id ? 0 : (uint32_t)s->color_by,
        .lo = (float)s->color_range[0],
        .span = (float)(s->color_range[1] - s->color_range[0]),
        .value = (float)(s->set_count > 1 ? (double)i / (s->set_count - 1) : 0.5),
    };
    eddy_elements el = eddy_particles_elements(e, ss->handle, "surface");
    if (el.kind != EDDY_TRIANGLES || !el.buffer.id)
        el = eddy_particles_elements(e, ss->handle, "triangles");
    if (el.kind == EDDY_TRIANGLES && el.buffer.id) {
        rs.triangles = el.buffer;
        rs.triangle_count = el.count;
    }
    return rs;
}

eddy_result scene_write_pvd(eddy_scene *s, uint32_t i)
{
    char path[EDDY_OUT_DIR_MAX + 160], err[1024];
    eddy_pvd_entry *mine = malloc((s->pvd_count ? s->pvd_count : 1) * sizeof *mine);
    uint32_t m = 0;
    for (uint32_t k = 0; mine && k < s->pvd_count; k++)
        if (s->pvd[k].part == i)
            mine[m] = s->pvd[k], mine[m++].part = 0;
    eddy_result res = EDDY_OK;
    if (!mine || !out_path(s, path, sizeof path, "%s.pvd", s->sets[i].name) ||
        eddy_write_pvd(path, mine, m, err, sizeof err) != 0) {
        eddy_log(s->e, EDDY_LOG_ERROR, "output.write", "output: %s", mine ? err : "out of memory");
        res = EDDY_ERROR_IO;
    }
    free(mine);
    return res;
}

/* Set i's particles as <set>_<frame>.vtp, and its .pvd (one per set,
 * listing that set's frames) rewritten. */
static eddy_result write_set_vtp(eddy_scene *s, uint32_t i, double t, float *pos, float *vel, float *mass,
                                 uint32_t *phase)
{
    eddy_engine *e = s->e;
    const scene_set *ss = &s->sets[i];
    eddy_result res = EDDY_OK;
    char file[EDDY_NAME_MAX + 32], path[EDDY_OUT_DIR_MAX + 160], err[1024];
    snprintf(file, sizeof file, "%s_%06u.vtp", ss->name, s->frames);
    if (!out_path(s, path, sizeof path, "%s", file))
        res = EDDY_ERROR_IO;
    eddy_vtp_particles vp = { t, ss->count, pos, vel, mass, phase, NULL };
    if (res == EDDY_OK && eddy_write_vtp(path, &vp, err, sizeof err) != 0) {
        eddy_log(e, EDDY_LOG_ERROR, "output.write", "output: %s", err);
        res = EDDY_ERROR_IO;
    }
    return res == EDDY_OK ? scene_add_pvd(s, i, t, file) : res;
}

eddy_result scene_add_pvd(eddy_scene *s, uint32_t i, double t, const char *file)
{
    eddy_result res = EDDY_OK;
    if (s->pvd_count == s->pvd_cap) {
        uint32_t cap = s->pvd_cap ? s->pvd_cap * 2 : 64;
        eddy_pvd_entry *grown = realloc(s->pvd, cap * sizeof *grown);
        if (grown) {
            s->pvd = grown;
            s->pvd_cap = cap;
        } else {
            res = EDDY_ERROR_OUT_OF_MEMORY;
        }
    }
    if (res == EDDY_OK) {
        s->pvd[s->pvd_count++] = (eddy_pvd_entry){ t, i, strdup(file) };
        res = scene_write_pvd(s, i);
    }
    return res;
}

/* Set i's part of a frame: its statistics, how it is drawn (into
 * rsets[i], when the frame is drawn) and its .vtp. Once a set is unstable
 * (*unstable), no set is drawn or written. */
static eddy_result frame_set(eddy_scene *s, uint32_t i, double t, eddy_stats *st, eddy_render_set *rsets, bool draw,
                             bool *unstable)
{
    if (s->dist)
        return scene_dist_frame_set(s, i, t, st, unstable);
    uint32_t n = s->sets[i].count;
    eddy_result res = EDDY_OK;
    float *pos = malloc((size_t)n * 16 + 16), *vel = malloc((size_t)n * 16 + 16);
    float *mass = malloc((size_t)n * 4 + 4);
    uint32_t *phase = malloc((size_t)n * 4 + 4);
    if (!pos || !vel || !mass || !phase)
        res = EDDY_ERROR_OUT_OF_MEMORY;
    uint32_t clamped = 0;
    if (res == EDDY_OK)
        res = download_set(s->e, &s->sets[i], pos, vel, mass, phase, &clamped);
    if (res == EDDY_OK)
        scene_set_stats(s, i, n, t, st, pos, vel, mass, clamped, unstable);
    if (res == EDDY_OK && !*unstable && draw)
        rsets[i] = render_set(s, i);
    if (res == EDDY_OK && !*unstable && !s->no_output && s->vtk)
        res = write_set_vtp(s, i, t, pos, vel, mass, phase);
    free(pos);
    free(vel);
    free(mass);
    free(phase);
    return res;
}

/* Tools are drawn as grey spheres after the particles: an active system's
 * output pairs "X.centre" (vec3, m) and "X.radius" (float, m). Returns how
 * many went into spheres and scalars. */
static uint32_t tool_spheres(const eddy_scene *s, float *spheres, float *scalars)
{
    uint32_t drawn = 0;
    for (uint32_t i = 0; i < s->system_count; i++) {
        const scene_system *sys = &s->systems[i];
        const eddy_module_desc *m = sys->module;
        for (uint32_t c = 0; sys->active && c < m->output_count; c++) {
            const char *name = m->outputs[c].name, *dot = strrchr(name, '.');
            if (!dot || strcmp(dot, ".centre") || m->outputs[c].type != EDDY_PORT_VEC3)
                continue;
            for (uint32_t r = 0; r < m->output_count; r++) {
                const char *rn = m->outputs[r].name;
                if (m->outputs[r].type != EDDY_PORT_FLOAT || strncmp(rn, name, (size_t)(dot - name)) ||
                    strcmp(rn + (dot - name), ".radius"))
                    continue;
                for (int a = 0; a < 3; a++)
                    spheres[4 * (size_t)drawn + a] = (float)sys->outputs[3 * c + a];
                spheres[4 * (size_t)drawn + 3] = (float)sys->outputs[3 * r];
                scalars[drawn++] = -1.0f;
            }
        }
    }
    return drawn;
}

/* The frame drawn: the sets and the tools' spheres, to frame_<frame>.png. */
static eddy_result draw_frame(eddy_scene *s, const eddy_render_set *rsets, const float *spheres,
                              const float *scalars, uint32_t drawn)
{
    eddy_result res;
    uint8_t *rgba = malloc(4ull * s->image_w * s->image_h);
    char path[EDDY_OUT_DIR_MAX + 64];
    if (!out_path(s, path, sizeof path, "frame_%06u.png", s->frames))
        res = EDDY_ERROR_IO;
    else
        res = rgba ? eddy_render_sets(s->e, s->renderer, rsets, s->set_count, spheres, scalars, drawn, rgba)
               : EDDY_ERROR_OUT_OF_MEMORY;
    if (res == EDDY_OK)
        res = eddy_write_png(s->e, path, rgba, s->image_w, s->image_h);
    free(rgba);
    return res;
}

/* The sets' part of a frame: each set's statistics and files, then the
 * drawing (the sets from their device buffers; only the tools' spheres go
 * up, eddy_render_sets). */
static eddy_result frame_sets(eddy_scene *s, double t, eddy_stats *st, bool *unstable)
{
    eddy_result res = s->no_output || (s->dist && !scene_dist_root(s)) ? EDDY_OK : ensure_out(s);
    if (s->dist)
        res = scene_dist_frame_begin(s, res);
    bool draw = s->renderer && !s->no_output;
    uint32_t tools = 0;
    for (uint32_t i = 0; i < s->system_count; i++)
        tools += s->systems[i].active ? s->systems[i].module->output_count : 0;
    eddy_render_set *rsets = draw ? calloc(s->set_count + 1, sizeof *rsets) : NULL;
    float *spheres = draw ? malloc(16ull * tools + 16) : NULL;
    float *scalars = draw ? malloc(4ull * tools + 4) : NULL;
    uint32_t drawn = 0;
    if (draw && (!spheres || !scalars || !rsets))
        res = EDDY_ERROR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < s->set_count && res == EDDY_OK; i++)
        res = frame_set(s, i, t, st, rsets, draw, unstable);
    if (res == EDDY_OK && !*unstable && draw)
        drawn = tool_spheres(s, spheres, scalars);
    if (res == EDDY_OK && !*unstable && draw)
        res = draw_frame(s, rsets, spheres, scalars, drawn);
    free(spheres);
    free(scalars);
    free(rsets);
    return res;
}

eddy_result eddy_scene_write_frame(eddy_scene *s)
{
    SCENE_GUARD(s, return EDDY_ERROR_INVALID_ARGUMENT);
    eddy_engine *e = s->e;
    if (s->out_closed && !s->no_output) {
        eddy_log(e, EDDY_LOG_ERROR, "output.finished", "output: the scene's output was finished (eddy_scene_finish_output); "
                 "no more frames can be written");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    /* A host's recorded steps first: the frame shows their particles. */
    eddy_result wr = scene_wait_recorded(s);
    if (wr != EDDY_OK)
        return wr;
    double t = (double)s->steps_done * s->dt;
    eddy_stats st = { 0 };
    st.first = true;
    bool unstable = false; /* a set has non-finite particles: statistics only */
    scene_stats_printf(&st, "{\"frame\":%u,\"step\":%" PRIu64 ",\"substeps\":%u,\"time\":", s->frames,
                 s->steps_done, s->adaptive ? s->current_substeps : s->substeps);
    stats_number(&st, t);
    scene_stats_printf(&st, ",\"sets\":{");
    eddy_result res = frame_sets(s, t, &st, &unstable);
    scene_stats_printf(&st, "},\"systems\":{");
    bool was_quiet = s->dist && !scene_dist_root(s) ? eddy_log_quiet(s->e, true) : false;
    for (uint32_t i = 0; i < s->system_count; i++) {
        scene_stats_printf(&st, "%s", i ? "," : "");
        stats_string(&st, s->systems[i].name);
        scene_stats_printf(&st, ":{");
        st.first = true;
        /* A rank's system sees its part of the sets, ghosts included: over
         * ranks its figures are not the scene's and are dropped, but every
         * rank asks for them, for their side effects on what every rank
         * agrees on (a pressure solve's substep factor after an unconverged
         * solve, which adaptive stepping reads), and rank 0 alone says the
         * warnings (a solve that stopped unconverged), once. */
        if (s->systems[i].module->stats && !s->dist)
            s->systems[i].module->stats(s->systems[i].state, &st);
        eddy_stats dropped = { 0 };
        if (s->systems[i].module->stats && s->dist)
            s->systems[i].module->stats(s->systems[i].state, &dropped);
        free(dropped.buf);
        scene_stats_printf(&st, "}");
    }
    if (s->dist && !scene_dist_root(s))
        eddy_log_quiet(s->e, was_quiet);
    scene_stats_printf(&st, "}");
    if (s->dist)
        res = scene_dist_frame_end(s, &st, res);
    scene_stats_printf(&st, "}\n");
    for (uint32_t i = 0; i < s->system_count && res == EDDY_OK && !unstable && !s->no_output; i++)
        if (s->systems[i].module->write_frame && scene_dist_writes_frames(s, i)) {
            eddy_frame_ctx fc = { s->out_dir, s->frames, t };
            res = s->systems[i].module->write_frame(s->systems[i].state, &fc);
        }
    if (st.failed && res == EDDY_OK) {
        eddy_log(e, EDDY_LOG_ERROR, "memory.host", "output: out of host memory for the statistics line");
        res = EDDY_ERROR_OUT_OF_MEMORY;
    }
    /* The frame that went unstable keeps its statistics line: it says which
     * set went non-finite and where the others were. */
    if (res == EDDY_OK && !s->no_output && s->stats && st.buf && (!s->dist || scene_dist_root(s)))
        res = append_tmp(s, "stats.jsonl", "ab", st.buf, st.len);
    free(st.buf);
    if (res == EDDY_OK && !s->no_output)
        res = scene_flush_port_logs(s);
    if (res == EDDY_OK && unstable)
        res = EDDY_ERROR_INVALID_ARGUMENT;
    if (res == EDDY_OK)
        s->frames++;
    s->frame_step = s->steps_done;
    return res;
}
