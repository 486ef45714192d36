/* The haptic loop: a thread renders force samples at a fixed rate (1 kHz by
 * default) while the calling thread steps the simulation as fast as it can.
 * Continuity: each simulation result F_k (arriving at t_k) is reached by a
 * linear ramp from the force being rendered at t_k over T_k = t_k - t_(k-1)
 * (at least one period): a first-order hold with one interval of delay.
 * So the rendered force is continuous and piecewise linear, and two samples
 * dt apart differ by at most S dt, S = max_k |F_k - F_r(t_k)| / T_k. A
 * virtual coupling (a spring between device and tool) would need a dynamic
 * tool; the tool here is kinematic, placed where the device is. */

#include "scene_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct haptic {
    pthread_mutex_t mu;
    struct timespec start;
    double period;
    /* sim -> haptic: the ramp being rendered */
    double from[3], to[3], t0, T;
    uint64_t sim_step;
    /* haptic -> sim */
    double position[3];
    bool have_position, stop;
    /* the haptic thread's own */
    const eddy_haptic_desc *desc;
    FILE *log;
    bool log_failed;
    uint64_t samples;
    double first, last, max_interval, max_jump, prev_f[3];
} haptic;

static double since(const struct timespec *start)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)(ts.tv_sec - start->tv_sec) + (ts.tv_nsec - start->tv_nsec) * 1e-9;
}

/* The rendered force at time t (under the lock). */
static void ramp_at(const haptic *h, double t, double f[3])
{
    double u = h->T > 0 ? (t - h->t0) / h->T : 1;
    u = u < 0 ? 0 : u > 1 ? 1 : u;
    for (int a = 0; a < 3; a++)
        f[a] = h->from[a] + (h->to[a] - h->from[a]) * u;
}

static void *haptic_thread(void *arg)
{
    haptic *h = arg;
    for (uint64_t k = 0;; k++) {
        /* Absolute deadlines: a late sample does not shift the ones after it. */
        double due = (double)k * h->period;
        struct timespec at = h->start;
        at.tv_sec += (time_t)floor(due);
        at.tv_nsec += (long)((due - floor(due)) * 1e9);
        if (at.tv_nsec >= 1000000000L) {
            at.tv_sec++;
            at.tv_nsec -= 1000000000L;
        }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR)
            ;
        double f[3], pos[3] = { 0, 0, 0 };
        uint64_t step;
        pthread_mutex_lock(&h->mu);
        /* The time is read under the lock, as the simulation's is: a thread
         * paused between the two would see a ramp from the other's future. */
        double t = since(&h->start);
        bool stop = h->stop;
        ramp_at(h, t, f);
        step = h->sim_step;
        if (h->have_position)
            memcpy(pos, h->position, sizeof pos);
        pthread_mutex_unlock(&h->mu);
        if (stop)
            break;
        h->desc->device(h->desc->user, t, f, pos);
        pthread_mutex_lock(&h->mu);
        memcpy(h->position, pos, sizeof pos);
        h->have_position = true;
        pthread_mutex_unlock(&h->mu);
        if (h->samples) {
            double dt = t - h->last, d2 = 0;
            for (int a = 0; a < 3; a++)
                d2 += (f[a] - h->prev_f[a]) * (f[a] - h->prev_f[a]);
            h->max_interval = dt > h->max_interval ? dt : h->max_interval;
            h->max_jump = sqrt(d2) > h->max_jump ? sqrt(d2) : h->max_jump;
        } else {
            h->first = t;
        }
        h->last = t;
        memcpy(h->prev_f, f, sizeof f);
        h->samples++;
        if (h->log && fprintf(h->log, "%.9f,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%llu\n", t, f[0], f[1],
                              f[2], pos[0], pos[1], pos[2], (unsigned long long)step) < 0)
            h->log_failed = true;
    }
    return NULL;
}

/* The ports of the system: the vec3 input the device drives (desc->input,
 * else the first vec3 input) and the vec3 output in N it renders
 * (desc->output, else one named "*.total", else the first). */
static eddy_result find_ports(eddy_engine *e, eddy_scene *s, const eddy_haptic_desc *desc, const char **input_out,
                              const char **output_out)
{
    const eddy_module_desc *m = eddy_scene_system_module(s, desc->system);
    if (!m)
        return EDDY_ERROR_INVALID_ARGUMENT;
    const char *input = desc->input, *output = desc->output;
    for (uint32_t k = 0; !input && k < m->input_count; k++)
        if (m->inputs[k].type == EDDY_PORT_VEC3)
            input = m->inputs[k].name;
    for (int pass = 0; pass < 2 && !output; pass++)
        for (uint32_t k = 0; !output && k < m->output_count; k++) {
            const eddy_port_info *p = &m->outputs[k];
            const char *dot = strrchr(p->name, '.');
            if (p->type == EDDY_PORT_VEC3 && p->unit && !strcmp(p->unit, "N") &&
                (pass || (dot && !strcmp(dot, ".total"))))
                output = p->name;
        }
    if (!input || !output) {
        eddy_log(e, EDDY_LOG_ERROR, "haptic.invalid", "haptic: system '%s' (module '%s') has no %s; a haptic "
                 "device drives a vec3 input and renders a vec3 output in N", desc->system, m->name,
                 !input ? "vec3 input" : "vec3 output in N");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    *input_out = input;
    *output_out = output;
    return EDDY_OK;
}

/* The sample log, written to tmp (desc->log_path + ".tmp", cap bytes) and
 * renamed when the run ends well. */
static eddy_result open_log(eddy_engine *e, const eddy_haptic_desc *desc, haptic *h, char *tmp, size_t cap)
{
    if (snprintf(tmp, cap, "%s.tmp", desc->log_path) >= (int)cap) {
        eddy_log(e, EDDY_LOG_ERROR, "haptic.invalid", "haptic: the log path is longer than %zu bytes", cap - 5);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    h->log = fopen(tmp, "wb");
    if (!h->log) {
        eddy_log(e, EDDY_LOG_ERROR, "output.write", "haptic: cannot create '%s': %s", tmp, strerror(errno));
        return EDDY_ERROR_IO;
    }
    setvbuf(h->log, NULL, _IOFBF, 1 << 20);
    fputs("time,fx,fy,fz,x,y,z,sim_step\n", h->log);
    return EDDY_OK;
}

/* The haptic thread, at real-time priority where allowed (root, or
 * CAP_SYS_NICE); else the default scheduler, which wakes a sleeping thread
 * promptly enough. 0, or pthread_create's error. */
static int start_thread(haptic *h, pthread_t *thread)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    struct sched_param sp = { .sched_priority = sched_get_priority_min(SCHED_FIFO) + 10 };
    int rc = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED) ||
             pthread_attr_setschedpolicy(&attr, SCHED_FIFO) || pthread_attr_setschedparam(&attr, &sp) ||
             pthread_create(thread, &attr, haptic_thread, h);
    if (rc)
        rc = pthread_create(thread, NULL, haptic_thread, h);
    pthread_attr_destroy(&attr);
    return rc;
}

/* The simulation's side between steps. */
typedef struct sim_side {
    double last_result, prev_total[3];
    eddy_haptic_report rep;
} sim_side;

/* A new result f handed to the haptic thread: a ramp to it from the force
 * being rendered now, over the time since the last result; the report's
 * slopes, jumps and intervals. */
static void hand_over(haptic *h, const double f[3], sim_side *sim)
{
    eddy_haptic_report *rep = &sim->rep;
    double d2 = 0;
    pthread_mutex_lock(&h->mu);
    double now = since(&h->start), cur[3], step2 = 0;
    ramp_at(h, now, cur);
    for (int a = 0; a < 3; a++)
        step2 += (f[a] - cur[a]) * (f[a] - cur[a]);
    memcpy(h->from, cur, sizeof cur);
    memcpy(h->to, f, sizeof h->to);
    h->t0 = now;
    h->T = now - sim->last_result > h->period ? now - sim->last_result : h->period;
    h->sim_step++;
    double slope = sqrt(step2) / h->T;
    pthread_mutex_unlock(&h->mu);
    rep->max_slope = slope > rep->max_slope ? slope : rep->max_slope;
    for (int a = 0; a < 3; a++)
        d2 += (f[a] - sim->prev_total[a]) * (f[a] - sim->prev_total[a]);
    if (rep->steps) {
        rep->max_sim_jump = sqrt(d2) > rep->max_sim_jump ? sqrt(d2) : rep->max_sim_jump;
        rep->min_sim_interval = now - sim->last_result < rep->min_sim_interval ? now - sim->last_result
                                                                               : rep->min_sim_interval;
    }
    memcpy(sim->prev_total, f, sizeof sim->prev_total);
    sim->last_result = now;
    rep->steps++;
}

/* The simulation as fast as it goes until the duration (or the scene's
 * steps): the device's position in, a step, the force out to the thread. */
static eddy_result sim_loop(eddy_scene *s, const eddy_haptic_desc *desc, haptic *h, const char *input,
                            const char *output, sim_side *sim)
{
    eddy_engine *e = eddy_scene_engine(s);
    eddy_scene_info info = eddy_scene_get_info(s);
    eddy_result r = EDDY_OK;
    double f[3];
    while (r == EDDY_OK) {
        double t = since(&h->start);
        if (desc->duration > 0 ? t >= desc->duration : eddy_scene_get_info(s).steps_done >= info.steps)
            break;
        double pos[3];
        pthread_mutex_lock(&h->mu);
        memcpy(pos, h->position, sizeof pos);
        pthread_mutex_unlock(&h->mu);
        r = eddy_scene_set_input(s, desc->system, input, pos);
        if (r == EDDY_OK)
            r = eddy_scene_step(s, 1);
        if (r == EDDY_OK)
            r = eddy_scene_output(s, desc->system, output, f);
        if (r != EDDY_OK)
            break;
        for (int a = 0; a < 3; a++)
            if (!isfinite(f[a])) {
                eddy_log(e, EDDY_LOG_ERROR, "system.diverged", "haptic: the output %s is not finite at step %" PRIu64
                         "; the simulation is unstable", output, sim->rep.steps + 1);
                r = EDDY_ERROR_INVALID_ARGUMENT;
            }
        if (r != EDDY_OK)
            break;
        hand_over(h, f, sim);
    }
    return r;
}

/* The log closed, and renamed into place when the run went well (else
 * removed); r, or the write's error. */
static eddy_result close_log(eddy_engine *e, const eddy_haptic_desc *desc, haptic *h, const char *tmp, eddy_result r)
{
    bool ok = !h->log_failed && fflush(h->log) == 0;
    ok = fclose(h->log) == 0 && ok;
    if (ok && r == EDDY_OK && rename(tmp, desc->log_path) != 0)
        ok = false;
    if (!ok) {
        eddy_log(e, EDDY_LOG_ERROR, "output.write", "haptic: cannot write '%s': %s", desc->log_path, strerror(errno));
        r = r == EDDY_OK ? EDDY_ERROR_IO : r;
    }
    if (r != EDDY_OK)
        remove(tmp);
    return r;
}

eddy_result eddy_haptic_run(eddy_scene *s, const eddy_haptic_desc *desc, eddy_haptic_report *report)
{
    SCENE_GUARD(s, return EDDY_ERROR_INVALID_ARGUMENT);
    eddy_engine *e = eddy_scene_engine(s);
    EDDY_TAKE_DESC_OPTIONAL(e, eddy_haptic_desc, desc, return EDDY_ERROR_ABI);
    if (!desc || !desc->device || !desc->system) {
        eddy_log(e, EDDY_LOG_ERROR, "haptic.invalid", "haptic: give the scene, desc->system and desc->device");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    double rate = desc->rate > 0 ? desc->rate : 1000;
    if (!isfinite(rate) || rate > 1e5 || !isfinite(desc->duration) || desc->duration < 0) {
        eddy_log(e, EDDY_LOG_ERROR, "haptic.invalid", "haptic: rate %g Hz or duration %g s out of range; expected "
                 "0 < rate <= 100000 Hz (0 = 1000) and duration >= 0 s", desc->rate, desc->duration);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    const char *input = NULL, *output = NULL;
    eddy_result r = find_ports(e, s, desc, &input, &output);
    if (r != EDDY_OK)
        return r;
    haptic h = { .period = 1.0 / rate, .desc = desc };
    double f[3];
    r = eddy_scene_input(s, desc->system, input, h.position);
    if (r == EDDY_OK)
        r = eddy_scene_output(s, desc->system, output, f);
    if (r != EDDY_OK)
        return r;
    char tmp[4200];
    if (desc->log_path && (r = open_log(e, desc, &h, tmp, sizeof tmp)) != EDDY_OK)
        return r;
    pthread_mutex_init(&h.mu, NULL);
    clock_gettime(CLOCK_MONOTONIC, &h.start);
    pthread_t thread;
    int rc = start_thread(&h, &thread);
    if (rc) {
        eddy_log(e, EDDY_LOG_ERROR, "haptic.thread", "haptic: cannot start the haptic thread: %s", strerror(rc));
        if (h.log)
            fclose(h.log), remove(tmp);
        pthread_mutex_destroy(&h.mu);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    sim_side sim = { .rep = { .min_sim_interval = INFINITY } };
    r = sim_loop(s, desc, &h, input, output, &sim);
    pthread_mutex_lock(&h.mu);
    h.stop = true;
    pthread_mutex_unlock(&h.mu);
    pthread_join(thread, NULL);
    pthread_mutex_destroy(&h.mu);
    eddy_haptic_report rep = sim.rep;
    rep.samples = h.samples;
    rep.mean_interval = h.samples > 1 ? (h.last - h.first) / (double)(h.samples - 1) : 0;
    rep.max_interval = h.max_interval;
    rep.max_jump = h.max_jump;
    if (h.log)
        r = close_log(e, desc, &h, tmp, r);
    if (report)
        *report = rep;
    return r;
}
