/* The ballistic module against physics and against its CPU reference:
 *  - a particle dropped from rest from height h reaches the floor at
 *    t = sqrt(2h/g) within one time step;
 *  - with restitution e it rebounds to e^2 h within 1%;
 *  - 1,000 particles bouncing in a box for 300 steps follow the CPU reference
 *    of the same step within 1e-5 of the box size. */
#include "../gpu/gpu_test.h"
#include "ballistic/ballistic.h"

#include <math.h>

static void drop(eddy_engine *e, double h, double restitution, double dt)
{
    const double g = 9.81, r = 0.01;
    char scene[1024];
    snprintf(scene, sizeof scene,
             "{ \"dt\": %.17g, \"duration\": 10,"
             "  \"box\": { \"min\": [0, 0, 0], \"max\": [1, 10, 1] },"
             "  \"particle_sets\": [ { \"name\": \"ball\", \"radius\": %g, \"points\": [[0.5, %.17g, 0.5]] } ],"
             "  \"systems\": [ { \"module\": \"ballistic\", \"set\": \"ball\","
             "      \"params\": { \"gravity\": [0, %g, 0], \"restitution\": %g } } ] }",
             dt, r, h + r, -g, restitution);
    eddy_scene *s = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "drop", .json = scene, .no_output = true });
    REQUIRE(s != NULL);
    eddy_buffer pos = eddy_particles_buffer(e, eddy_find_particles(e, "ball"), "position");
    eddy_buffer vel = eddy_particles_buffer(e, eddy_find_particles(e, "ball"), "velocity");
    float x[4], v[4];
    double t_hit = -1, apex = -1;
    for (int step = 1; step < 20000 && apex < 0; step++) {
        CHECK(eddy_scene_step(s, 1) == EDDY_OK);
        CHECK(eddy_buffer_download(e, pos, 0, 16, x) == EDDY_OK);
        CHECK(eddy_buffer_download(e, vel, 0, 16, v) == EDDY_OK);
        if (t_hit < 0 && v[1] > 0)
            t_hit = step * dt; /* the step in which the floor turned the velocity */
        else if (t_hit >= 0 && v[1] <= 0)
            apex = x[1] - r;
    }
    double t_exact = sqrt(2 * h / g), want = restitution * restitution * h;
    CHECKF(fabs(t_hit - t_exact) <= dt, "h = %g: floor reached at %g s, exact %g s, dt %g", h, t_hit, t_exact, dt);
    CHECKF(fabs(apex - want) <= 0.01 * want, "h = %g, e = %g: rebound %g m, want %g m (1%%)", h, restitution, apex, want);
    printf("drop h = %g m, e = %g, dt = %g s: floor at %.5f s (exact %.5f), rebound %.5f m (exact %.5f, %.3f%%)\n",
           h, restitution, dt, t_hit, t_exact, apex, want, 100 * fabs(apex - want) / want);
    eddy_destroy_scene(s);
}

static void against_cpu(eddy_engine *e)
{
    enum { N = 1000, STEPS = 300 };
    const eddy_module_desc *m = eddy_find_module(e, "ballistic");
    REQUIRE(m != NULL);
    eddy_particles set = eddy_create_particles(e, &(eddy_particles_desc){ EDDY_SIZED(eddy_particles_desc), .name = "cloud", .count = N });
    REQUIRE(set.id);
    static float pos[N * 4], vel[N * 4], gpos[N * 4], gvel[N * 4];
    uint64_t seed = 99;
    for (int i = 0; i < N; i++) {
        for (int a = 0; a < 3; a++) {
            pos[4 * i + a] = 0.05f + 0.9f * (float)test_rand(&seed) / 4294967296.0f;
            vel[4 * i + a] = 4.0f * ((float)test_rand(&seed) / 4294967296.0f - 0.5f);
        }
        pos[4 * i + 3] = 0.01f;
        vel[4 * i + 3] = 0.0f;
    }
    CHECK(eddy_buffer_upload(e, eddy_particles_buffer(e, set, "position"), 0, sizeof pos, pos) == EDDY_OK);
    CHECK(eddy_buffer_upload(e, eddy_particles_buffer(e, set, "velocity"), 0, sizeof vel, vel) == EDDY_OK);
    eddy_param_value params[2] = { { { 0.5, -9.81, 0.25 } }, { { 0.6 } } };
    eddy_system_ctx ctx = { .engine = e, .name = "cloud", .particles = set, .params = params,
                            .box_min = { 0, 0, 0 }, .box_max = { 1, 1, 1 }, .dt = 2e-3, .substeps = 1 };
    void *state = NULL;
    REQUIRE(m->create(&ctx, &state) == EDDY_OK);
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "ballistic" });
    CHECK(m->declare_step(state, g) == EDDY_OK);
    CHECK(eddy_graph_run(e, g, STEPS) == EDDY_OK);
    eddy_ballistic_params p = { { 0.5f, -9.81f, 0.25f, 2e-3f }, { 0, 0, 0, 0.6f }, { 1, 1, 1, 0 }, N, { 0 } };
    for (int s = 0; s < STEPS; s++)
        for (int i = 0; i < N; i++)
            eddy_ballistic_step_cpu(&p, pos + 4 * i, vel + 4 * i);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set, "position"), 0, sizeof gpos, gpos) == EDDY_OK);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set, "velocity"), 0, sizeof gvel, gvel) == EDDY_OK);
    double worst = 0;
    for (int i = 0; i < N * 4; i++)
        worst = fmax(worst, fabs((double)gpos[i] - pos[i]));
    CHECKF(worst <= 1e-5, "largest position difference %g m (box 1 m, tolerance 1e-5)", worst);
    printf("GPU vs CPU, %d particles x %d steps: largest position difference %.3g m\n", N, STEPS, worst);
    eddy_destroy_graph(e, g);
    m->destroy(state);
    eddy_destroy_particles(e, set);
}

int main(void)
{
    eddy_engine *e = test_engine();
    drop(e, 1.0, 0.8, 1e-3);
    drop(e, 2.5, 0.5, 5e-4);
    against_cpu(e);
    test_finish(e);
    return test_report("ballistic");
}
