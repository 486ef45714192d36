/* The haptic loop (eddy_haptic_run) with the PBF tool, 5 s of wall time.
 * Not a timing test: it runs beside other tests on a loaded two-core machine
 * (lavapipe's threads, the sanitizers), so nothing checked here depends on
 * how promptly the haptic thread is woken. The achieved rate and the
 * interval jitter are measured, without pass or fail, by `eddy bench
 * haptic` (modules/pbf/pbf_bench.c). Checked:
 *  - the loop produces samples: at least half of 5 s x 1 kHz, one device
 *    call each, and the simulation steps meanwhile;
 *  - pacing: the sample times the device gets increase, sample k never
 *    comes before k periods (absolute deadlines: a late thread catches up
 *    with prompt samples, never early ones), and the mean interval is
 *    within 25% of 1 ms (missed only if the thread were over a second
 *    behind at the start or the end of the run);
 *  - the simulation meanwhile runs well below 1 kHz here (lavapipe), and
 *    the force stays continuous: two samples dt apart differ by at most
 *    max_slope dt (the documented bound of the first-order hold); when the
 *    haptic thread kept up (no gap between samples over a quarter of the
 *    shortest time between simulation results), the largest jump between
 *    samples is well below the largest jump between simulation results;
 *  - the device (a scripted position in wall-clock time, as a haptic
 *    device's would be) drives the tool into the water: the force is not 0;
 *  - every sample is in the CSV log: its header, one line per sample, the
 *    times as the device got them, the simulation step never decreasing.
 * Two bounds a loaded machine can miss are not checked: the mean interval
 * within 5% of 1 ms and at least 4,750 samples in the 5 s; and the
 * jump-against-simulation comparison depends on the haptic thread's
 * measured gaps instead of assuming it kept up. */
#include "../gpu/gpu_test.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>

enum { RATE = 1000 };
#define PERIOD (1.0 / RATE)

typedef struct device {
    double max_force;
    uint64_t calls;
    double last_t;        /* the previous sample's time */
    uint64_t not_after;   /* samples whose time did not increase */
    uint64_t early;       /* samples k before k periods */
    double worst_early;   /* s, the earliest of those */
} device;

/* Down at 0.05 m/s for 2.5 s, then along -x at 0.05 m/s. */
static void scripted(void *user, double t, const double force[3], double position[3])
{
    device *d = user;
    /* Sample k (from 0) is due at k periods; 1 us of slack for rounding. */
    if (t < (double)d->calls * PERIOD - 1e-6) {
        d->early++;
        d->worst_early = fmax(d->worst_early, (double)d->calls * PERIOD - t);
    }
    if (d->calls && !(t > d->last_t))
        d->not_after++;
    d->last_t = t;
    double f = sqrt(force[0] * force[0] + force[1] * force[1] + force[2] * force[2]);
    d->max_force = f > d->max_force ? f : d->max_force;
    d->calls++;
    double down = t < 2.5 ? t : 2.5, side = t < 2.5 ? 0 : t - 2.5;
    position[0] = 0.16 - 0.05 * side;
    position[1] = 0.22 - 0.05 * down;
    position[2] = 0.08;
}

int main(void)
{
    eddy_engine *e = test_engine();
    const char *json =
        "{ \"dt\": 0.004, \"duration\": 100, \"box\": { \"min\": [0, 0, 0], \"max\": [0.32, 0.3, 0.16] },"
        "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": 0.016,"
        "      \"fill\": { \"shape\": \"box\", \"min\": [0, 0, 0], \"max\": [0.32, 0.12, 0.16] } } ],"
        "  \"systems\": [ { \"name\": \"fluid\", \"module\": \"pbf\", \"set\": \"water\","
        "      \"params\": { \"h\": 0.032, \"iterations\": 4, \"xsph\": 0.1, \"tool_radius\": 0.04,"
        "                  \"tool_position\": [0.16, 0.22, 0.08] } } ] }";
    eddy_scene *s = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "haptic-test", .json = json, .no_output = true });
    REQUIRE(s != NULL);
    char log[256];
    snprintf(log, sizeof log, "/tmp/eddy_haptic_test_%d.csv", (int)getpid());
    device dev = { 0 };
    eddy_haptic_report rep;
    CHECK(eddy_haptic_run(s, &(eddy_haptic_desc){ EDDY_SIZED(eddy_haptic_desc), .system = "fluid", .device = scripted, .user = &dev,
                                                   .rate = RATE, .duration = 5, .log_path = log }, &rep) == EDDY_OK);
    double sim_rate = rep.steps / 5.0, bound = rep.max_slope * rep.max_interval;
    printf("haptic: %llu samples, mean interval %.4f ms, longest %.3f ms; %llu simulation steps (%.0f Hz), "
           "shortest %.2f ms apart\n", (unsigned long long)rep.samples, rep.mean_interval * 1e3,
           rep.max_interval * 1e3, (unsigned long long)rep.steps, sim_rate, rep.min_sim_interval * 1e3);
    printf("haptic: largest jump between samples %.4g N (bound max_slope x longest interval = %.4g N); "
           "between simulation results %.4g N; largest force %.4g N\n", rep.max_jump, bound,
           rep.max_sim_jump, dev.max_force);
    /* Samples: at least half the run's (the thread may trail at the end). */
    CHECKF(rep.samples >= 5 * RATE / 2 && rep.samples == dev.calls, "%llu samples, %llu device calls",
           (unsigned long long)rep.samples, (unsigned long long)dev.calls);
    CHECKF(rep.steps > 0, "no simulation step in 5 s");
    /* Pacing: increasing times, never early, 1 ms apart on average. */
    CHECKF(dev.not_after == 0, "%llu sample times did not increase", (unsigned long long)dev.not_after);
    CHECKF(dev.early == 0, "%llu samples before their due time (the earliest %.3f ms early)",
           (unsigned long long)dev.early, dev.worst_early * 1e3);
    CHECKF(fabs(rep.mean_interval - PERIOD) <= 0.25 * PERIOD, "mean interval %g ms, expected 1 ms +- 25%%",
           rep.mean_interval * 1e3);
    CHECKF(dev.max_force > 0.1, "largest force %g N: the tool did not reach the water", dev.max_force);
    /* Continuity. */
    CHECKF(rep.max_jump <= bound * (1 + 1e-9) + 1e-12, "jump %g N over the bound %g N", rep.max_jump, bound);
    if (sim_rate >= 500)
        printf("haptic: the simulation ran at %.0f Hz on this device; the slow case was not exercised\n", sim_rate);
    else if (rep.max_interval > 0.25 * rep.min_sim_interval)
        printf("haptic: the haptic thread was held up for %.3f ms (the simulation's results came %.3f ms "
               "apart at the least): jumps against simulation results not compared\n",
               rep.max_interval * 1e3, rep.min_sim_interval * 1e3);
    else
        CHECKF(rep.max_jump < 0.5 * rep.max_sim_jump, "samples jump %g N, simulation results %g N",
               rep.max_jump, rep.max_sim_jump);
    /* The log: header, one line per sample, the device's times, steps in order. */
    FILE *f = fopen(log, "r");
    CHECK(f != NULL);
    char line[512];
    uint64_t lines = 0, bad = 0, prev_step = 0;
    double prev_t = -1;
    if (f && fgets(line, sizeof line, f)) {
        lines++;
        CHECKF(!strcmp(line, "time,fx,fy,fz,x,y,z,sim_step\n"), "log header '%s'", line);
    }
    while (f && fgets(line, sizeof line, f)) {
        double t = 0, v[6] = { 0 };
        unsigned long long step = 0;
        int got = sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%llu", &t, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                         &step);
        bool ok = got == 8 && t > prev_t && t >= (double)(lines - 1) * PERIOD - 1e-6 && step >= prev_step;
        for (int a = 0; a < 6 && ok; a++)
            ok = isfinite(v[a]);
        if (!ok && bad++ == 0)
            fprintf(stderr, "log line %llu: '%s'\n", (unsigned long long)lines + 1, line);
        prev_t = t, prev_step = step;
        lines++;
    }
    if (f)
        fclose(f);
    CHECKF(lines == rep.samples + 1, "%llu log lines for %llu samples", (unsigned long long)lines,
           (unsigned long long)rep.samples);
    CHECKF(bad == 0, "%llu log lines malformed, out of order or early", (unsigned long long)bad);
    remove(log);
    eddy_destroy_scene(s);
    test_finish(e);
    return test_report("pbf_haptic");
}
