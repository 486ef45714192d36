/* Time stepping: the ports API (eddy_scene_set_input, eddy_scene_input_path,
 * eddy_scene_output) and the step with the inputs set first and the outputs
 * read and logged after, eddy_scene_step and adaptive substeps (scene_adapt);
 * the loop of steps and frames is scene_run.c. */
#include "scene_internal.h"

#include <inttypes.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

/* The system's port named `name` among `ports`, or -1 after a message. */
static int find_port(const eddy_scene *s, const scene_system *sys, const eddy_port_info *ports, uint32_t count,
                     const char *kind, const char *name)
{
    for (uint32_t k = 0; name && k < count; k++)
        if (!strcmp(ports[k].name, name))
            return (int)k;
    char names[512] = "";
    for (uint32_t k = 0; k < count; k++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "", ports[k].name);
    eddy_log(s->e, EDDY_LOG_ERROR, "system.no_port", "system '%s' (module '%s') has no %s named '%s'; its %ss: %s",
             sys->name, sys->module->name, kind, name ? name : "(null)", kind, count ? names : "(none)");
    return -1;
}

/* The index of `system`'s input `input` (and the system in *sys), or -1
 * after a message. */
static int input_of(const eddy_scene *s, const char *system, const char *input, scene_system **sys)
{
    *sys = scene_find_system(s, system);
    return *sys ? find_port(s, *sys, (*sys)->module->inputs, (*sys)->module->input_count, "input", input) : -1;
}

eddy_result scene_activate_ports(eddy_scene *s, scene_system *sys)
{
    if (sys->active)
        return EDDY_OK;
    const eddy_module_desc *m = sys->module;
    if (!sys->outputs)
        sys->outputs = calloc(3ull * m->output_count + 1, sizeof *sys->outputs);
    if (!sys->outputs) {
        eddy_log(s->e, EDDY_LOG_ERROR, "memory.host", "system '%s': out of host memory", sys->name);
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    /* Every input starts where its path starts or where the system has it,
     * and is set there: a tool stands at the start of its path before the
     * first step. */
    for (uint32_t k = 0; k < m->input_count; k++) {
        scene_input *in = &sys->inputs[k];
        eddy_result r = in->scripted ? EDDY_OK : m->get_input(sys->state, k, in->at);
        if (r == EDDY_OK)
            r = m->set_input(sys->state, k, in->at, in->at);
        if (r != EDDY_OK)
            return r;
    }
    eddy_result r = m->output_count ? m->read_outputs(sys->state, sys->outputs) : EDDY_OK;
    sys->active = r == EDDY_OK;
    return r;
}

eddy_result eddy_scene_set_input(eddy_scene *s, const char *system, const char *input, const double value[3])
{
    SCENE_GUARD(s, return EDDY_ERROR_INVALID_ARGUMENT);
    SCENE_NEED(s, value, return EDDY_ERROR_INVALID_ARGUMENT);
    scene_system *sys;
    int k = input_of(s, system, input, &sys);
    if (k < 0)
        return EDDY_ERROR_INVALID_ARGUMENT;
    uint32_t w = scene_port_width(&sys->module->inputs[k]);
    for (uint32_t a = 0; a < w; a++)
        if (!isfinite(value[a])) {
            eddy_log(s->e, EDDY_LOG_ERROR, "system.diverged", "system '%s': input %s = (%g%s%g%s%g) is not finite",
                     system, input, value[0], w > 1 ? ", " : "", w > 1 ? value[1] : 0, w > 1 ? ", " : "",
                     w > 1 ? value[2] : 0);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
    eddy_result r = scene_activate_ports(s, sys);
    if (r != EDDY_OK)
        return r;
    scene_input *in = &sys->inputs[k];
    in->host = true;
    memset(in->target, 0, sizeof in->target);
    memcpy(in->target, value, w * sizeof *value);
    return EDDY_OK;
}

/* Steps a host recorded or submitted still run: a system's state on the
 * device is not known, and reading it would wait on the host's semaphore,
 * which it may not have submitted yet (a getter between eddy_scene_record
 * and the host's vkQueueSubmit). */
static bool host_steps_running(const eddy_scene *s)
{
    return s->recorded && eddy_poll_idle(s->e) != EDDY_OK;
}

static eddy_result unknown_while_running(const eddy_scene *s, const char *system, const char *kind, const char *name)
{
    eddy_log(s->e, EDDY_LOG_ERROR, "record.unfinished", "system '%s': %s '%s' is not known until the steps the "
             "host recorded or submitted have finished (it was never read before them); read it after "
             "eddy_scene_collect returns EDDY_OK", system, kind, name);
    return EDDY_TIMEOUT;
}

eddy_result eddy_scene_input(const eddy_scene *s, const char *system, const char *input, double value[3])
{
    SCENE_GUARD(s, return EDDY_ERROR_INVALID_ARGUMENT);
    SCENE_NEED(s, value, return EDDY_ERROR_INVALID_ARGUMENT);
    scene_system *sys;
    int k = input_of(s, system, input, &sys);
    if (k < 0)
        return EDDY_ERROR_INVALID_ARGUMENT;
    scene_input *in = &sys->inputs[k];
    if (host_steps_running(s)) {
        if (!in->held_known)
            return unknown_while_running(s, system, "input", input);
        memcpy(value, in->held, sizeof in->held);
        return EDDY_OK;
    }
    /* The system's own word, not the value asked for: a tool set past a
     * wall is held where the module clamped it. Nothing runs now, so this
     * waits for nothing a host owns. */
    double v[3] = { 0 };
    eddy_result r = sys->module->get_input(sys->state, (uint32_t)k, v);
    if (r != EDDY_OK)
        return r;
    memcpy(in->held, v, sizeof v);
    in->held_known = true;
    memcpy(value, v, sizeof v);
    return EDDY_OK;
}

eddy_result eddy_scene_input_path(const eddy_scene *s, const char *system, const char *input, double t,
                                  double value[3])
{
    SCENE_GUARD(s, return EDDY_ERROR_INVALID_ARGUMENT);
    SCENE_NEED(s, value, return EDDY_ERROR_INVALID_ARGUMENT);
    scene_system *sys;
    int k = input_of(s, system, input, &sys);
    if (k < 0)
        return EDDY_ERROR_INVALID_ARGUMENT;
    if (!sys->inputs[k].scripted) {
        eddy_log(s->e, EDDY_LOG_ERROR, "system.no_port", "%s: system '%s' has no path for its input '%s' (\"inputs\": "
                 "{\"%s\": {\"path\": [...]}} in the scene)", s->path, system, input, input);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    scene_input_path_at(&sys->inputs[k], t, value);
    return EDDY_OK;
}

eddy_result eddy_scene_output(const eddy_scene *s, const char *system, const char *output, double value[3])
{
    SCENE_GUARD(s, return EDDY_ERROR_INVALID_ARGUMENT);
    SCENE_NEED(s, value, return EDDY_ERROR_INVALID_ARGUMENT);
    scene_system *sys = scene_find_system(s, system);
    int k = sys ? find_port(s, sys, sys->module->outputs, sys->module->output_count, "output", output) : -1;
    if (k < 0)
        return EDDY_ERROR_INVALID_ARGUMENT;
    if (!sys->active && !host_steps_running(s)) {
        /* Not stepped with its ports: ask the system for its state now
         * (nothing runs, so no wait on a host's work), and keep it for
         * when the host's steps run. */
        if (!sys->outputs)
            sys->outputs = calloc(3ull * sys->module->output_count + 1, sizeof *sys->outputs);
        if (!sys->outputs) {
            eddy_log(s->e, EDDY_LOG_ERROR, "memory.host", "system '%s': out of host memory", system);
            return EDDY_ERROR_OUT_OF_MEMORY;
        }
        eddy_result r = sys->module->read_outputs(sys->state, sys->outputs);
        if (r != EDDY_OK)
            return r;
        sys->outputs_known = true;
    }
    if (!sys->active && !sys->outputs_known)
        return unknown_while_running(s, system, "output", output);
    memcpy(value, sys->outputs + 3 * k, 3 * sizeof *value);
    return EDDY_OK;
}

static bool append_text(scene_system *sys, const char *line)
{
    size_t n = strlen(line);
    if (sys->len + n + 1 > sys->cap) {
        size_t cap = sys->cap ? sys->cap * 2 : 65536;
        while (cap < sys->len + n + 1)
            cap *= 2;
        char *grown = realloc(sys->text, cap);
        if (!grown)
            return false;
        sys->text = grown;
        sys->cap = cap;
    }
    memcpy(sys->text + sys->len, line, n + 1);
    sys->len += n;
    return true;
}

/* One CSV line of the system's ports after a step: step, time, the inputs'
 * values as set, the outputs'. */
static bool log_ports(eddy_scene *s, scene_system *sys, double t)
{
    const eddy_module_desc *m = sys->module;
    char line[4096];
    int n = snprintf(line, sizeof line, "%" PRIu64 ",%.9g", s->steps_done, t);
    for (uint32_t k = 0; k < m->input_count + m->output_count && n > 0 && (size_t)n < sizeof line; k++) {
        bool input = k < m->input_count;
        const eddy_port_info *p = input ? &m->inputs[k] : &m->outputs[k - m->input_count];
        const double *v = input ? sys->inputs[k].at : sys->outputs + 3 * (k - m->input_count);
        for (uint32_t a = 0; a < scene_port_width(p) && (size_t)n < sizeof line; a++)
            n += snprintf(line + n, sizeof line - (size_t)n, ",%.9g", v[a]);
    }
    if (n <= 0 || (size_t)n + 2 > sizeof line)
        return false;
    memcpy(line + n, "\n", 2);
    return append_text(sys, line);
}

/* The active systems' inputs for the next step: the host's value, the
 * path's at the step's end, or where the input is. The modules stage the
 * transfers, so they ride on the step's submission or recording. */
static eddy_result set_inputs(eddy_scene *s)
{
    double t1 = (double)(s->steps_done + 1) * s->dt;
    for (uint32_t i = 0; i < s->system_count; i++) {
        scene_system *sys = &s->systems[i];
        for (uint32_t k = 0; sys->active && k < sys->module->input_count; k++) {
            scene_input *in = &sys->inputs[k];
            double to[3];
            if (in->host)
                memcpy(to, in->target, sizeof to);
            else if (in->scripted)
                scene_input_path_at(in, t1, to);
            else
                memcpy(to, in->at, sizeof to);
            eddy_result r = sys->module->set_input(sys->state, k, in->at, to);
            if (r != EDDY_OK)
                return r;
            memcpy(in->at, to, sizeof to);
        }
    }
    return EDDY_OK;
}

/* The active systems' outputs after the last step, and their log line. */
static eddy_result read_outputs(eddy_scene *s)
{
    double t = (double)s->steps_done * s->dt;
    for (uint32_t i = 0; i < s->system_count; i++) {
        scene_system *sys = &s->systems[i];
        eddy_result r;
        if (!sys->active)
            continue;
        if (sys->module->output_count && (r = sys->module->read_outputs(sys->state, sys->outputs)) != EDDY_OK)
            return r;
        if (sys->log && !s->no_output && scene_dist_root(s) && !log_ports(s, sys, t))
            return EDDY_ERROR_OUT_OF_MEMORY;
    }
    return EDDY_OK;
}

/* One step with the active systems' inputs set first and their outputs read
 * after: still one submission. */
static eddy_result port_step(eddy_scene *s)
{
    eddy_result r = set_inputs(s);
    if (s->dist) { /* every rank sets the same inputs and reads the same outputs; the step counts itself */
        r = scene_dist_agree(s, r);
        r = r == EDDY_OK ? scene_dist_steps(s, 1) : r;
        return r == EDDY_OK ? scene_dist_agree(s, read_outputs(s)) : r;
    }
    if (r == EDDY_OK && (r = eddy_graph_run(s->e, s->graph, 1)) == EDDY_OK)
        s->steps_done++;
    return r == EDDY_OK ? read_outputs(s) : r;
}

static bool has_ports(const eddy_scene *s)
{
    for (uint32_t i = 0; i < s->system_count; i++)
        if (s->systems[i].active)
            return true;
    return false;
}

/* The outputs of a host's recorded steps: read once the recordings have
 * finished; `wait` waits for them (through their done_semaphore). */
static eddy_result collect_recorded(eddy_scene *s, bool wait)
{
    if (!s->recorded)
        return EDDY_OK;
    eddy_result r = wait ? eddy_wait_idle(s->e) : eddy_poll_idle(s->e);
    if (r == EDDY_OK && wait)
        r = eddy_wait_recorded(s->e);
    if (r != EDDY_OK)
        return r;
    s->recorded = false;
    return has_ports(s) ? read_outputs(s) : EDDY_OK;
}

eddy_result scene_wait_recorded(eddy_scene *s)
{
    return collect_recorded(s, true);
}

eddy_result eddy_scene_collect(eddy_scene *s)
{
    SCENE_GUARD(s, return EDDY_ERROR_INVALID_ARGUMENT);
    return collect_recorded(s, false);
}

/* Steps a host takes (recorded into its command buffer, or submitted
 * without waiting): the same inputs and adaptation for both. */
typedef struct host_steps {
    const eddy_scene_record_desc *record; /* or */
    const eddy_scene_submit_desc *submit;
    uint64_t value;                       /* submit: the last step's timeline value */
} host_steps;

static eddy_result host_step(eddy_scene *s, host_steps *h, uint32_t k, uint32_t steps)
{
    if (h->submit) {
        return eddy_graph_submit_after(s->e, s->graph, &(eddy_submit_desc){ EDDY_SIZED(eddy_submit_desc),
            .times = 1, .waits = k ? NULL : h->submit->waits, .wait_count = k ? 0 : h->submit->wait_count },
            &h->value);
    }
    /* Between two recorded steps the next step's compute passes are the
     * only "host" use, so the barriers there are eddy's own. */
    static const eddy_host_use compute = { { 0 }, EDDY_STAGE_COMPUTE,
                                           EDDY_ACCESS_SHADER_READ | EDDY_ACCESS_SHADER_WRITE, { 0 } };
    const eddy_scene_record_desc *d = h->record;
    bool first = k == 0, last = k + 1 == steps;
    return eddy_graph_record(s->e, s->graph, &(eddy_record_desc){ EDDY_SIZED(eddy_record_desc),
        .command_buffer = d->command_buffer,
        .done_semaphore = d->done_semaphore,
        .done_value = d->done_value,
        .before = first ? d->before : &compute,
        .before_count = first ? d->before_count : 1,
        .after = last ? d->after : &compute,
        .after_count = last ? d->after_count : 1,
    });
}

static eddy_result host_steps_run(eddy_scene *s, host_steps *h, uint32_t steps)
{
    const char *call = h->submit ? "eddy_scene_submit" : "eddy_scene_record";
    if (steps > EDDY_SCENE_RECORD_MAX_STEPS) {
        eddy_log(s->e, EDDY_LOG_ERROR, "scene.record", "scene '%s': %s needs steps at most "
                 "EDDY_SCENE_RECORD_MAX_STEPS (1000), got %u", s->name, call, steps);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    eddy_result r = collect_recorded(s, false);
    if (r != EDDY_OK && r != EDDY_TIMEOUT)
        return r;
    /* stable_dt may read the particles: only once the steps that move them
     * have finished, never by waiting for them. */
    if (s->adaptive && eddy_poll_idle(s->e) == EDDY_OK && (r = scene_adapt(s)) != EDDY_OK)
        return r;
    bool ports = has_ports(s);
    steps = steps ? steps : 1;
    for (uint32_t k = 0; k < steps; k++) {
        if (ports && (r = set_inputs(s)) != EDDY_OK)
            return r;
        if ((r = host_step(s, h, k, steps)) != EDDY_OK)
            return r;
        s->steps_done++;
        s->recorded = true;
    }
    return EDDY_OK;
}

eddy_result eddy_scene_record(eddy_scene *s, const eddy_scene_record_desc *desc)
{
    SCENE_GUARD(s, return EDDY_ERROR_INVALID_ARGUMENT);
    EDDY_TAKE_DESC_OPTIONAL(s->e, eddy_scene_record_desc, desc, return EDDY_ERROR_ABI);
    if (!desc || !desc->command_buffer) {
        eddy_log(s->e, EDDY_LOG_ERROR, "scene.record", "scene '%s': eddy_scene_record needs a desc with the host's "
                 "command_buffer", s->name);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (s->dist)
        return scene_dist_refuse(s, "eddy_scene_record");
    return host_steps_run(s, &(host_steps){ .record = desc }, desc->steps);
}

eddy_result eddy_scene_submit(eddy_scene *s, const eddy_scene_submit_desc *desc, uint64_t *value)
{
    SCENE_GUARD(s, return EDDY_ERROR_INVALID_ARGUMENT);
    EDDY_TAKE_DESC_OPTIONAL(s->e, eddy_scene_submit_desc, desc, return EDDY_ERROR_ABI);
    if (!desc || !value) {
        eddy_log(s->e, EDDY_LOG_ERROR, "scene.record", "scene '%s': eddy_scene_submit needs a desc and a value "
                 "to return", s->name);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (s->dist)
        return scene_dist_refuse(s, "eddy_scene_submit");
    host_steps h = { .submit = desc };
    eddy_result r = host_steps_run(s, &h, desc->steps);
    *value = h.value;
    return r;
}

eddy_result eddy_scene_step(eddy_scene *s, uint64_t steps)
{
    SCENE_GUARD(s, return EDDY_ERROR_INVALID_ARGUMENT);
    eddy_result wr = collect_recorded(s, true);
    if (wr != EDDY_OK)
        return wr;
    if (has_ports(s)) {
        for (; steps; steps--) {
            eddy_result r = port_step(s);
            if (r != EDDY_OK)
                return r;
        }
        return EDDY_OK;
    }
    if (s->dist)
        return scene_dist_steps(s, steps);
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

eddy_result eddy_scene_describe(eddy_scene *s, eddy_describe_format format, char *out, size_t capacity,
                                size_t *length)
{
    SCENE_GUARD(s, return EDDY_ERROR_INVALID_ARGUMENT);
    if (s->dist)
        return scene_dist_refuse(s, "eddy_scene_describe");
    eddy_pass_group *groups = calloc(s->system_count + 1, sizeof *groups);
    char(*names)[EDDY_NAME_MAX + 96] = calloc(s->system_count + 1, sizeof *names);
    if (!groups || !names) {
        free(groups), free(names);
        eddy_log(s->e, EDDY_LOG_ERROR, "memory.host", "scene '%s': out of host memory describing its graph", s->name);
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->system_count; i++) {
        const scene_system *sys = &s->systems[i];
        if (!sys->pass_count)
            continue;
        snprintf(names[n], sizeof names[n], "system '%s' (module %s)%s", sys->name, sys->module->name,
                 sys->rate > 1 ? ", its own substeps" : "");
        groups[n] = (eddy_pass_group){ names[n], sys->pass_first, sys->pass_count };
        n++;
    }
    uint32_t sub = s->adaptive ? s->current_substeps : s->substeps;
    char title[EDDY_NAME_MAX + 160];
    snprintf(title, sizeof title, "scene '%s': a step of %g s is %u substep%s%s, each one run of the graph", s->name,
             s->dt, sub, sub == 1 ? "" : "s", s->adaptive ? " (now: adaptive)" : "");
    eddy_result r = eddy_graph_describe(s->e, s->graph, &(eddy_graph_describe_desc){ EDDY_SIZED(eddy_graph_describe_desc),
        .format = format, .groups = groups, .group_count = n, .title = title, .out = out, .capacity = capacity,
        .length = length });
    free(groups), free(names);
    return r;
}

double scene_stable_dt(eddy_scene *s)
{
    double stable = INFINITY;
    for (uint32_t i = 0; i < s->system_count; i++) {
        double d = s->systems[i].module->stable_dt(s->systems[i].state);
        stable = d < stable ? d : stable;
    }
    return stable;
}

/* Adaptive stepping: the substeps the systems need now; a new step graph
 * when that differs from the current one. */
eddy_result scene_adapt(eddy_scene *s)
{
    /* Over ranks the ghosts' velocities are a substep old here: the next
     * substep adapts, once its exchange has brought them (scene_dist.c). */
    if (s->dist) {
        s->adapt_pending = true;
        return EDDY_OK;
    }
    return scene_adapt_to(s, scene_stable_dt(s));
}

eddy_result scene_adapt_to(eddy_scene *s, double stable)
{
    double need = ceil(s->dt / stable - 1e-9);
    uint32_t n = need < s->substeps ? s->substeps : need > s->max_substeps ? s->max_substeps : (uint32_t)need;
    if (stable * n < s->dt * (1 - 1e-9) && scene_dist_root(s))
        eddy_log(s->e, EDDY_LOG_WARN, "adaptive.limited", "adaptive: %u substeps (max_substeps) are not enough for a "
                 "stable substep of %g s at step %llu", n, stable, (unsigned long long)s->steps_done);
    if ((s->graph.id || s->dist) && n == s->current_substeps)
        return EDDY_OK;
    return scene_set_substeps(s, n);
}

eddy_result scene_set_substeps(eddy_scene *s, uint32_t n)
{
    /* Over ranks each substep declares a graph of its own (scene_dist.c):
     * only the systems' substep changes here. */
    if (!s->dist) {
        eddy_destroy_graph(s->e, s->graph);
        s->generation++;
        s->graph = eddy_create_graph(s->e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc),
            .label = "step", .times = n, .timestamps = s->profile });
        if (!s->graph.id)
            return EDDY_ERROR_VULKAN;
    }
    for (uint32_t i = 0; i < s->system_count; i++) {
        const eddy_module_desc *m = s->systems[i].module;
        eddy_result r = m->set_dt(s->systems[i].state, s->dt / n);
        uint32_t first = s->dist ? 0 : eddy_graph_pass_count(s->e, s->graph);
        if (r == EDDY_OK && !s->dist)
            r = m->declare_step(s->systems[i].state, s->graph);
        s->systems[i].pass_first = first;
        s->systems[i].pass_count = s->dist ? 0 : eddy_graph_pass_count(s->e, s->graph) - first;
        if (r != EDDY_OK)
            return r;
    }
    s->current_substeps = n;
    return EDDY_OK;
}
