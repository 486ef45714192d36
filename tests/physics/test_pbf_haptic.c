/* The haptic loop (eddy_haptic_run) with the PBF tool, 5 s of wall time:
 *  - force samples at 1 kHz: the mean interval within 5% of 1 ms;
 *  - the simulation meanwhile runs well below 1 kHz here (lavapipe), and
 *    the force stays continuous: two samples dt apart differ by at most
 *    max_slope dt (the documented bound of the first-order hold), and the
 *    largest jump between samples is well below the largest jump between
 *    simulation results;
 *  - the device (a scripted position in wall-clock time, as a haptic
 *    device's would be) drives the tool into the water: the force is not 0;
 *  - every sample is in the CSV log. */
#include "../gpu/gpu_test.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>

typedef struct device {
    double max_force;
    uint64_t calls;
} device;

/* Down at 0.05 m/s for 2.5 s, then along -x at 0.05 m/s. */
static void scripted(void *user, double t, const double force[3], double position[3])
{
    device *d = user;
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
    eddy_scene *s = eddy_load_scene(e, &(eddy_scene_desc){ .path = "haptic-test", .json = json, .no_output = true });
    REQUIRE(s != NULL);
    char log[256];
    snprintf(log, sizeof log, "/tmp/eddy_haptic_test_%d.csv", (int)getpid());
    device dev = { 0 };
    eddy_haptic_report rep;
    CHECK(eddy_haptic_run(s, &(eddy_haptic_desc){ .system = "fluid", .device = scripted, .user = &dev,
                                                   .duration = 5, .log_path = log }, &rep) == EDDY_OK);
    double sim_rate = rep.steps / 5.0, bound = rep.max_slope * rep.max_interval;
    printf("haptic: %llu samples, mean interval %.4f ms, longest %.3f ms; %llu simulation steps (%.0f Hz), "
           "shortest %.2f ms apart\n", (unsigned long long)rep.samples, rep.mean_interval * 1e3,
           rep.max_interval * 1e3, (unsigned long long)rep.steps, sim_rate, rep.min_sim_interval * 1e3);
    printf("haptic: largest jump between samples %.4g N (bound max_slope x longest interval = %.4g N); "
           "between simulation results %.4g N; largest force %.4g N\n", rep.max_jump, bound,
           rep.max_sim_jump, dev.max_force);
    CHECKF(fabs(rep.mean_interval - 1e-3) < 0.05e-3, "mean interval %g ms", rep.mean_interval * 1e3);
    CHECKF(rep.samples >= 4750 && rep.samples == dev.calls, "%llu samples, %llu device calls",
           (unsigned long long)rep.samples, (unsigned long long)dev.calls);
    CHECKF(dev.max_force > 0.1, "largest force %g N: the tool did not reach the water", dev.max_force);
    CHECKF(rep.max_jump <= bound * (1 + 1e-9) + 1e-12, "jump %g N over the bound %g N", rep.max_jump, bound);
    if (sim_rate < 500)
        CHECKF(rep.max_jump < 0.5 * rep.max_sim_jump, "samples jump %g N, simulation results %g N",
               rep.max_jump, rep.max_sim_jump);
    else
        printf("haptic: the simulation ran at %.0f Hz on this device; the slow case was not exercised\n", sim_rate);
    FILE *f = fopen(log, "r");
    CHECK(f != NULL);
    uint64_t lines = 0;
    for (int c; f && (c = fgetc(f)) != EOF;)
        lines += c == '\n';
    if (f)
        fclose(f);
    CHECKF(lines == rep.samples + 1, "%llu log lines for %llu samples", (unsigned long long)lines,
           (unsigned long long)rep.samples);
    remove(log);
    eddy_destroy_scene(s);
    test_finish(e);
    return test_report("pbf_haptic");
}
