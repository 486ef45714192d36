/* Time stepping: the tool API (eddy_scene_set_tool, eddy_scene_tool_path,
 * eddy_scene_tool_force) and the step with the tools moved first and their
 * forces logged after, eddy_scene_step, adaptive substeps (scene_adapt), and
 * eddy_scene_run, the loop of steps and frames with its progress line. */
#include "scene_internal.h"

#include <inttypes.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

static scene_system *find_system(const eddy_scene *s, const char *name)
{
    for (uint32_t i = 0; s && name && i < s->system_count; i++)
        if (!strcmp(s->systems[i].name, name))
            return &s->systems[i];
    if (s)
        eddy_log(s->e, EDDY_LOG_ERROR, "scene.unknown_system", "scene '%s' has no system named '%s'", s->name,
                 name ? name : "(null)");
    return NULL;
}

eddy_result eddy_scene_set_tool(eddy_scene *s, const char *system, const double position[3])
{
    scene_system *sys = find_system(s, system);
    if (!sys)
        return EDDY_ERROR_INVALID_ARGUMENT;
    if (!sys->module->set_tool) {
        eddy_log(s->e, EDDY_LOG_ERROR, "system.no_tool", "system '%s': module '%s' has no tool", system,
                 sys->module->name);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    for (int a = 0; a < 3; a++)
        if (!isfinite(position[a])) {
            eddy_log(s->e, EDDY_LOG_ERROR, "system.diverged", "system '%s': tool position (%g, %g, %g) is not finite",
                     system, position[0], position[1], position[2]);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
    if (!sys->tool.host && !sys->tool.scripted) {
        /* First host move: check the system has a tool, and start from where it is. */
        eddy_tool_force f;
        eddy_result r = sys->module->tool_force(sys->state, &f);
        if (r != EDDY_OK)
            return r;
        memcpy(sys->tool.at, f.position, sizeof sys->tool.at);
    }
    sys->tool.host = true;
    memcpy(sys->tool.target, position, sizeof sys->tool.target);
    return EDDY_OK;
}

eddy_result eddy_scene_tool_path(const eddy_scene *s, const char *system, double t, double position[3])
{
    scene_system *sys = find_system(s, system);
    if (!sys)
        return EDDY_ERROR_INVALID_ARGUMENT;
    if (!sys->tool.scripted) {
        eddy_log(s->e, EDDY_LOG_ERROR, "system.no_tool", "%s: system '%s' has no tool path (a \"tool\" object with "
                 "a \"path\" in the scene)", s->path, system);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    scene_tool_path_at(&sys->tool, t, position);
    return EDDY_OK;
}

eddy_result eddy_scene_tool_force(const eddy_scene *s, const char *system, eddy_tool_force *out)
{
    scene_system *sys = find_system(s, system);
    if (!sys)
        return EDDY_ERROR_INVALID_ARGUMENT;
    if (!sys->module->tool_force) {
        eddy_log(s->e, EDDY_LOG_ERROR, "system.no_tool", "system '%s': module '%s' has no tool", system,
                 sys->module->name);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (sys->tool.host || sys->tool.scripted) {
        *out = sys->tool.last;
        return EDDY_OK;
    }
    return sys->module->tool_force(sys->state, out);
}

static bool append_text(scene_tool *tl, const char *line)
{
    size_t n = strlen(line);
    if (tl->len + n + 1 > tl->cap) {
        size_t cap = tl->cap ? tl->cap * 2 : 65536;
        while (cap < tl->len + n + 1)
            cap *= 2;
        char *grown = realloc(tl->text, cap);
        if (!grown)
            return false;
        tl->text = grown;
        tl->cap = cap;
    }
    memcpy(tl->text + tl->len, line, n + 1);
    tl->len += n;
    return true;
}

/* One step with the tools moved first and their forces read after. */
static eddy_result tool_step(eddy_scene *s)
{
    double t1 = (double)(s->steps_done + 1) * s->dt;
    for (uint32_t i = 0; i < s->system_count; i++) {
        scene_system *sys = &s->systems[i];
        scene_tool *tl = &sys->tool;
        if (!tl->scripted && !tl->host)
            continue;
        double to[3];
        if (tl->host)
            memcpy(to, tl->target, sizeof to);
        else
            scene_tool_path_at(tl, t1, to);
        eddy_result r = sys->module->set_tool(sys->state, tl->at, to);
        if (r != EDDY_OK)
            return r;
        memcpy(tl->at, to, sizeof to);
    }
    eddy_result r = eddy_graph_run(s->e, s->graph, 1);
    if (r != EDDY_OK)
        return r;
    s->steps_done++;
    for (uint32_t i = 0; i < s->system_count; i++) {
        scene_system *sys = &s->systems[i];
        scene_tool *tl = &sys->tool;
        if (!tl->scripted && !tl->host)
            continue;
        r = sys->module->tool_force(sys->state, &tl->last);
        if (r != EDDY_OK)
            return r;
        const eddy_tool_force *f = &tl->last;
        if (tl->log && !s->no_output) {
            char line[640];
            snprintf(line, sizeof line,
                     "%" PRIu64 ",%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,"
                     "%.9g,%.9g,%.9g\n", s->steps_done, t1, f->position[0], f->position[1],
                     f->position[2], f->push[0], f->push[1], f->push[2], f->adhesion[0],
                     f->adhesion[1], f->adhesion[2], f->damping[0], f->damping[1], f->damping[2],
                     f->total[0], f->total[1], f->total[2]);
            if (!append_text(tl, line))
                return EDDY_ERROR_OUT_OF_MEMORY;
        }
    }
    return EDDY_OK;
}

static bool has_tools(const eddy_scene *s)
{
    for (uint32_t i = 0; i < s->system_count; i++)
        if (s->systems[i].tool.scripted || s->systems[i].tool.host)
            return true;
    return false;
}

eddy_result eddy_scene_step(eddy_scene *s, uint64_t steps)
{
    if (has_tools(s)) {
        for (; steps; steps--) {
            eddy_result r = tool_step(s);
            if (r != EDDY_OK)
                return r;
        }
        return EDDY_OK;
    }
    while (steps) {
        uint32_t n = steps > 1000000 ? 1000000 : (uint32_t)steps;
        eddy_result r = eddy_graph_run(s->e, s->graph, n);
        if (r != EDDY_OK)
            return r;
        s->steps_done += n;
        steps -= n;
    }
    return EDDY_OK;
}

/* Adaptive stepping: the substeps the systems need now; a new step graph
 * when that differs from the current one. */
eddy_result scene_adapt(eddy_scene *s)
{
    double stable = INFINITY;
    for (uint32_t i = 0; i < s->system_count; i++) {
        double d = s->systems[i].module->stable_dt(s->systems[i].state);
        stable = d < stable ? d : stable;
    }
    double need = ceil(s->dt / stable - 1e-9);
    uint32_t n = need < s->substeps ? s->substeps : need > s->max_substeps ? s->max_substeps : (uint32_t)need;
    if (stable * n < s->dt * (1 - 1e-9))
        eddy_log(s->e, EDDY_LOG_WARN, "adaptive.limited", "adaptive: %u substeps (max_substeps) are not enough for a "
                 "stable substep of %g s at step %llu", n, stable, (unsigned long long)s->steps_done);
    if (s->graph.id && n == s->current_substeps)
        return EDDY_OK;
    eddy_destroy_graph(s->e, s->graph);
    s->graph = eddy_create_graph(s->e, &(eddy_graph_desc){
        .label = "step", .times = n, .timestamps = s->profile });
    if (!s->graph.id)
        return EDDY_ERROR_VULKAN;
    for (uint32_t i = 0; i < s->system_count; i++) {
        const eddy_module_desc *m = s->systems[i].module;
        eddy_result r = m->set_dt(s->systems[i].state, s->dt / n);
        if (r == EDDY_OK)
            r = m->declare_step(s->systems[i].state, s->graph);
        if (r != EDDY_OK)
            return r;
    }
    s->current_substeps = n;
    return EDDY_OK;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

eddy_result eddy_scene_run(eddy_scene *s, uint64_t max_steps, bool progress)
{
    uint64_t total = max_steps ? max_steps : s->steps;
    uint64_t end = s->steps_done + total;
    double start = now_s(), last = start;
    bool tty = isatty(2);
    uint64_t last_decile = 0;
    eddy_result r = eddy_scene_write_frame(s);
    while (r == EDDY_OK && s->steps_done < end) {
        uint64_t to_frame = s->frame_every - s->steps_done % s->frame_every;
        uint64_t n = end - s->steps_done < to_frame ? end - s->steps_done : to_frame;
        r = eddy_scene_step(s, n);
        if (r == EDDY_OK)
            r = eddy_scene_write_frame(s);
        if (r == EDDY_OK && s->adaptive)
            r = scene_adapt(s);
        double t = now_s();
        /* A terminal gets one line rewritten in place, a log file a line every 10%. */
        uint64_t done = total - (end - s->steps_done);
        bool report = tty ? t - last > 0.5 || s->steps_done == end
                          : done * 10 / (total ? total : 1) != last_decile;
        if (progress && report) {
            double rate = (double)done / (t - start > 1e-9 ? t - start : 1e-9);
            fprintf(stderr, "%s%s: step %" PRIu64 "/%" PRIu64 " (%3.0f%%)  t = %.4g s  "
                            "%.3g steps/s  frame %u   %s",
                    tty ? "\r" : "", s->name, done, total,
                    100.0 * (double)done / (double)(total ? total : 1),
                    (double)s->steps_done * s->dt, rate, s->frames, tty ? "" : "\n");
            last = t;
            last_decile = done * 10 / (total ? total : 1);
        }
    }
    if (progress && tty)
        fputc('\n', stderr);
    return r;
}
