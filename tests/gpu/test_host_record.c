/* A host records the scene's steps into its own command buffers
 * (eddy_scene_record): a plain-Vulkan host (validation and
 * synchronization validation on) adopts its device into eddy and submits
 * the steps itself, signalling its own timeline semaphore.
 *  - pbf_tool_5k (the shipped scene): 50 steps a frame at a time on the
 *    scene's tool path, then the host drives the tool down into the water
 *    with eddy_scene_set_input, 5 steps a frame. The same schedule through
 *    eddy_scene_step gives bitwise the same steps, time, tool position,
 *    tool forces (every frame) and particles.
 *  - an adaptive SPH scene recorded a step a frame adapts as eddy_scene_run
 *    does after every frame: the same substeps, graph generations and
 *    particles.
 *  - a recording without a done_semaphore holds the scene's next step
 *    (record.unfinished) until the host says it has finished; bad arguments
 *    get scene.record.
 *  - async compute: eddy's steps submitted on its own (compute) queue with
 *    eddy_scene_submit, the host copying the positions and drawing them on
 *    its graphics queue, the two ordered by timeline semaphores only, 100
 *    frames: the particles bitwise those of eddy_scene_step, the host's
 *    copy equal to them, the picture right, no validation message.
 *  - getters between a recording and the host's submit never wait on the
 *    host's semaphore, and an input reads where the system holds it. */
#undef VK_NO_PROTOTYPES
#include "gpu_test.h"

#include "host_points.h"
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static const char *const tool_outputs[] = { "tool.centre", "tool.force.push", "tool.force.adhesion",
                                            "tool.force.damping", "tool.force.total" };
enum { OUTPUTS = sizeof tool_outputs / sizeof *tool_outputs, FRAMES = 60 };

/* The scene's state a frame: steps, time, tool position and outputs. */
typedef struct frame_state {
    uint64_t steps;
    double time, tool[3], out[OUTPUTS][3];
} frame_state;

typedef struct host {
    host_vk vk;
    eddy_engine *e;
    VkCommandPool pool;
    VkCommandBuffer cb;
    VkSemaphore timeline;
    uint64_t frame;
} host;

/* The schedule: frames 0-49 a step each on the path; frames 50-59 five
 * steps each, the host pushing the tool 15 mm deeper a frame. */
static uint32_t frame_steps(int f)
{
    return f < 50 ? 1 : 5;
}

static void drive(eddy_scene *s, int f)
{
    if (f < 50)
        return;
    double at[3] = { 0.24, 0.27 - 0.015 * (f - 49), 0.12 };
    CHECK(eddy_scene_set_input(s, "tool", "tool.position", at) == EDDY_OK);
}

static void read_state(eddy_scene *s, frame_state *st)
{
    eddy_scene_info info = eddy_scene_get_info(s);
    st->steps = info.steps_done;
    st->time = info.time;
    CHECK(eddy_scene_input(s, "tool", "tool.position", st->tool) == EDDY_OK);
    for (int k = 0; k < OUTPUTS; k++)
        CHECK(eddy_scene_output(s, "tool", tool_outputs[k], st->out[k]) == EDDY_OK);
}

static float *positions(eddy_engine *e, const char *set, uint32_t *n)
{
    eddy_particles p = eddy_find_particles(e, set);
    *n = eddy_particles_count(e, p);
    float *pos = malloc(16ull * *n);
    REQUIRE(pos);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, p, "position"), 0, 16ull * *n, pos) == EDDY_OK);
    return pos;
}

/* Records `steps` steps into the host's command buffer and leaves it
 * unsubmitted: returns the value the host's submit will signal. */
static uint64_t record_unsubmitted(host *h, eddy_scene *s, uint32_t steps)
{
    VK(vkResetCommandPool(h->vk.device, h->pool, 0));
    VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                    .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
    VK(vkBeginCommandBuffer(h->cb, &bi));
    uint64_t value = ++h->frame;
    CHECK(eddy_scene_record(s, &(eddy_scene_record_desc){ EDDY_SIZED(eddy_scene_record_desc), .command_buffer = h->cb, .done_semaphore = h->timeline,
                                                         .done_value = value, .steps = steps }) == EDDY_OK);
    VK(vkEndCommandBuffer(h->cb));
    return value;
}

static void submit_and_wait(host *h, uint64_t value)
{
    VkTimelineSemaphoreSubmitInfo ts = { .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                         .signalSemaphoreValueCount = 1, .pSignalSemaphoreValues = &value };
    VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .pNext = &ts, .commandBufferCount = 1,
                        .pCommandBuffers = &h->cb, .signalSemaphoreCount = 1, .pSignalSemaphores = &h->timeline };
    VK(vkQueueSubmit(h->vk.queue, 1, &si, VK_NULL_HANDLE));
    VkSemaphoreWaitInfo wi = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1,
                               .pSemaphores = &h->timeline, .pValues = &value };
    VK(vkWaitSemaphores(h->vk.device, &wi, UINT64_MAX));
}

/* Records `steps` steps into the host's command buffer, submits it
 * signalling the host's timeline and waits for it there (never on eddy). */
static void host_frame(host *h, eddy_scene *s, uint32_t steps)
{
    submit_and_wait(h, record_unsubmitted(h, s, steps));
}

static eddy_scene *load_file(eddy_engine *e, const char *root, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/scenes/%s", root, name);
    eddy_scene *s = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = path, .no_output = true });
    REQUIRE(s);
    return s;
}

static void tool_scene(host *h, const char *root)
{
    static frame_state stepped[FRAMES], recorded[FRAMES];
    uint32_t n = 0, n2 = 0;
    eddy_scene *s = load_file(h->e, root, "pbf_tool_5k.json");
    for (int f = 0; f < FRAMES; f++) {
        drive(s, f);
        CHECK(eddy_scene_step(s, frame_steps(f)) == EDDY_OK);
        read_state(s, &stepped[f]);
    }
    float *ref = positions(h->e, "water", &n);
    eddy_destroy_scene(s);

    s = load_file(h->e, root, "pbf_tool_5k.json");
    uint64_t generation = eddy_scene_get_info(s).graph_generation;
    for (int f = 0; f < FRAMES; f++) {
        drive(s, f);
        host_frame(h, s, frame_steps(f));
        CHECK(eddy_scene_collect(s) == EDDY_OK);
        read_state(s, &recorded[f]);
    }
    float *got = positions(h->e, "water", &n2);
    CHECK(eddy_scene_get_info(s).graph_generation == generation);
    int differ = -1;
    for (int f = 0; f < FRAMES && differ < 0; f++)
        if (memcmp(&stepped[f], &recorded[f], sizeof stepped[f]))
            differ = f;
    CHECKF(differ < 0, "frame %d: recorded (steps %llu, t %.9g, tool y %.9g, force %.9g) differs from stepped "
           "(steps %llu, t %.9g, tool y %.9g, force %.9g)", differ,
           differ < 0 ? 0ull : (unsigned long long)recorded[differ].steps, differ < 0 ? 0 : recorded[differ].time,
           differ < 0 ? 0 : recorded[differ].tool[1], differ < 0 ? 0 : recorded[differ].out[4][1],
           differ < 0 ? 0ull : (unsigned long long)stepped[differ].steps, differ < 0 ? 0 : stepped[differ].time,
           differ < 0 ? 0 : stepped[differ].tool[1], differ < 0 ? 0 : stepped[differ].out[4][1]);
    CHECK(n == n2 && n > 5000 && memcmp(ref, got, 16ull * n) == 0);
    const frame_state *last = &recorded[FRAMES - 1];
    CHECKF(last->steps == 100 && fabs(last->time - 0.5) < 1e-12, "recorded %llu steps, t = %g s",
           (unsigned long long)last->steps, last->time);
    /* The tool went into the water: the test compares real forces. */
    CHECKF(last->out[4][1] > 0.1, "the tool's upward force at its deepest is %g N", last->out[4][1]);
    printf("host_record: pbf_tool_5k, %u particles, 100 steps recorded in %d host frames: steps, time, tool "
           "position, forces (last %.6g N up) and particles bitwise equal to eddy_scene_step\n",
           n, FRAMES, last->out[4][1]);
    eddy_destroy_scene(s);
    free(ref);
    free(got);
}

static const char adaptive_json[] =
    "{ \"dt\": 0.004, \"duration\": 0.04, \"adaptive\": { \"max_substeps\": 50 },"
    "  \"box\": { \"min\": [0, 0, 0], \"max\": [0.5, 0.3, 0.2] },"
    "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": 0.02,"
    "      \"fill\": { \"shape\": \"box\", \"min\": [0, 0.1, 0], \"max\": [0.2, 0.3, 0.2] } } ],"
    "  \"systems\": [ { \"name\": \"fluid\", \"module\": \"sph\", \"set\": \"water\","
    "      \"params\": { \"h\": 0.04, \"stiffness\": 139.24, \"artificial_viscosity\": 0 } } ],"
    "  \"output\": { \"frame_interval\": 0.004 } }";

static void adaptive(host *h)
{
    enum { STEPS = 10 };
    eddy_scene_desc d = { EDDY_SIZED(eddy_scene_desc), .path = "adaptive", .json = adaptive_json, .no_output = true };
    eddy_scene *s = eddy_load_scene(h->e, &d);
    REQUIRE(s);
    uint32_t first = eddy_scene_get_info(s).substeps;
    CHECK(eddy_scene_run(s, STEPS, false) == EDDY_OK);
    eddy_scene_info ran = eddy_scene_get_info(s);
    uint32_t n = 0, n2 = 0;
    float *ref = positions(h->e, "water", &n);
    eddy_destroy_scene(s);

    s = eddy_load_scene(h->e, &d);
    REQUIRE(s);
    for (int f = 0; f < STEPS; f++)
        host_frame(h, s, 1);
    /* The run adapts after its last frame too: so does the next recording. */
    CHECK(eddy_scene_collect(s) == EDDY_OK);
    eddy_scene_info rec = eddy_scene_get_info(s);
    float *got = positions(h->e, "water", &n2);
    CHECKF(ran.substeps != first, "the run did not adapt (%u substeps throughout)", first);
    CHECKF(rec.steps_done == ran.steps_done && memcmp(ref, got, 16ull * n) == 0 && n == n2,
           "recorded adaptive steps differ from eddy_scene_run's");
    /* The recording adapts before each step, the run after each frame: the
     * last adaptation of the run is the next recording's first. */
    host_frame(h, s, 1);
    rec = eddy_scene_get_info(s);
    CHECKF(rec.substeps == ran.substeps && rec.graph_generation == ran.graph_generation,
           "recorded: %u substeps, generation %llu; run: %u, %llu", rec.substeps,
           (unsigned long long)rec.graph_generation, ran.substeps, (unsigned long long)ran.graph_generation);
    printf("host_record: adaptive SPH recorded a step a frame: %u substeps at the start, %u after %d steps "
           "(graph generation %llu), particles bitwise equal to eddy_scene_run\n", first, ran.substeps, STEPS,
           (unsigned long long)ran.graph_generation);
    eddy_destroy_scene(s);
    free(ref);
    free(got);
}

/* Without a done_semaphore eddy cannot know when the host's command buffer
 * has finished: the scene's next step is refused until the host says so. */
static void unannounced(host *h, const char *root)
{
    eddy_scene *s = load_file(h->e, root, "pbf_tool_5k.json");
    VK(vkResetCommandPool(h->vk.device, h->pool, 0));
    VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
    VK(vkBeginCommandBuffer(h->cb, &bi));
    test_clear_error();
    CHECK(eddy_scene_record(s, &(eddy_scene_record_desc){ EDDY_SIZED(eddy_scene_record_desc), .command_buffer = h->cb,
                                                         .steps = EDDY_SCENE_RECORD_MAX_STEPS + 1 }) ==
          EDDY_ERROR_INVALID_ARGUMENT);
    CHECK(!strcmp(test_last_id, "scene.record") && strstr(test_last_error, "1000"));
    CHECK(eddy_scene_record(s, &(eddy_scene_record_desc){ EDDY_SIZED(eddy_scene_record_desc) }) == EDDY_ERROR_INVALID_ARGUMENT);
    CHECK(!strcmp(test_last_id, "scene.record") && strstr(test_last_error, "command_buffer"));
    CHECK(eddy_scene_get_info(s).steps_done == 0);
    CHECK(eddy_scene_record(s, &(eddy_scene_record_desc){ EDDY_SIZED(eddy_scene_record_desc), .command_buffer = h->cb, .steps = 2 }) == EDDY_OK);
    VK(vkEndCommandBuffer(h->cb));
    VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
    VkFence fence;
    VK(vkCreateFence(h->vk.device, &fci, NULL, &fence));
    VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &h->cb };
    VK(vkQueueSubmit(h->vk.queue, 1, &si, fence));
    VK(vkWaitForFences(h->vk.device, 1, &fence, VK_TRUE, UINT64_MAX));
    CHECK(eddy_scene_collect(s) == EDDY_TIMEOUT);
    CHECK(eddy_poll_idle(h->e) == EDDY_TIMEOUT);
    test_clear_error();
    CHECK(eddy_scene_step(s, 1) == EDDY_ERROR_INVALID_ARGUMENT);
    CHECK(!strcmp(test_last_id, "record.unfinished"));
    eddy_recorded_work_done(h->e);
    CHECK(eddy_poll_idle(h->e) == EDDY_OK);
    CHECK(eddy_scene_step(s, 1) == EDDY_OK);
    CHECK(eddy_scene_get_info(s).steps_done == 3);
    vkDestroyFence(h->vk.device, fence, NULL);
    eddy_destroy_scene(s);
    printf("host_record: without a done_semaphore the next step waits for eddy_recorded_work_done "
           "(record.unfinished); steps over %u and a missing command buffer refused (scene.record)\n",
           EDDY_SCENE_RECORD_MAX_STEPS);
}

/* A tool no path drives: its ports are read on demand, from the device. */
static const char getters_json[] =
    "{ \"dt\": 0.005, \"duration\": 1,"
    "  \"box\": { \"min\": [0, 0, 0], \"max\": [0.48, 0.4, 0.24] },"
    "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": 0.02,"
    "      \"fill\": { \"shape\": \"box\", \"min\": [0, 0, 0], \"max\": [0.2, 0.08, 0.2] } } ],"
    "  \"systems\": [ { \"name\": \"tool\", \"module\": \"pbf\", \"set\": \"water\","
    "      \"params\": { \"h\": 0.04, \"iterations\": 2, \"tool_radius\": 0.05,"
    "                  \"tool_position\": [0.3, 0.3, 0.12] } } ],"
    "  \"output\": { \"frame_interval\": 0.005 } }";

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "host_record: a getter waited on the host's unsubmitted work (hung for 60 s)\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(1);
}

/* Between eddy_scene_record and the host's submit, the ports of a system no
 * path drives are read without waiting on the host's semaphore: unknown
 * before they were ever read (record.unfinished), else their last known
 * values. eddy_scene_input gives where the system holds the input (after
 * its clamp), not the value asked for. */
static void getters(host *h)
{
    signal(SIGALRM, on_alarm);
    alarm(60); /* a hang fails the test instead of stalling the suite */
    eddy_scene_desc d = { EDDY_SIZED(eddy_scene_desc), .path = "getters", .json = getters_json, .no_output = true };
    eddy_scene *s = eddy_load_scene(h->e, &d);
    REQUIRE(s);
    double in[3], out[3], in2[3], out2[3];
    uint64_t value = record_unsubmitted(h, s, 1);
    test_clear_error();
    CHECK(eddy_scene_input(s, "tool", "tool.position", in) == EDDY_TIMEOUT);
    CHECK(!strcmp(test_last_id, "record.unfinished"));
    test_clear_error();
    CHECK(eddy_scene_output(s, "tool", "tool.force.total", out) == EDDY_TIMEOUT);
    CHECK(!strcmp(test_last_id, "record.unfinished"));
    submit_and_wait(h, value);
    CHECK(eddy_scene_collect(s) == EDDY_OK);
    CHECK(eddy_scene_input(s, "tool", "tool.position", in) == EDDY_OK);
    CHECK(eddy_scene_output(s, "tool", "tool.force.total", out) == EDDY_OK);
    CHECKF(fabs(in[0] - 0.3) < 1e-6 && fabs(in[1] - 0.3) < 1e-6 && fabs(in[2] - 0.12) < 1e-6,
           "the tool at rest reads (%g, %g, %g), expected (0.3, 0.3, 0.12)", in[0], in[1], in[2]);

    /* Known now: the next recording's getters give these values at once. */
    value = record_unsubmitted(h, s, 1);
    CHECK(eddy_scene_input(s, "tool", "tool.position", in2) == EDDY_OK);
    CHECK(eddy_scene_output(s, "tool", "tool.force.total", out2) == EDDY_OK);
    CHECK(!memcmp(in, in2, sizeof in) && !memcmp(out, out2, sizeof out));
    submit_and_wait(h, value);
    CHECK(eddy_scene_collect(s) == EDDY_OK);

    /* Driven past the wall: read back where the module holds it. */
    double past[3] = { 0.24, 0.2, 0.23 }, centre[3];
    CHECK(eddy_scene_set_input(s, "tool", "tool.position", past) == EDDY_OK);
    CHECK(eddy_scene_step(s, 1) == EDDY_OK); /* the module warns: system.tool_clamped */
    CHECK(eddy_scene_input(s, "tool", "tool.position", in) == EDDY_OK);
    CHECK(eddy_scene_output(s, "tool", "tool.centre", centre) == EDDY_OK);
    CHECKF(!memcmp(in, centre, sizeof in) && in[2] < 0.23 - 0.05 && fabs(in[2] - (0.24 - 0.05 - 0.02)) < 1e-6,
           "set to z = 0.23 m: eddy_scene_input reads z = %.9g m, tool.centre z = %.9g m (expected 0.17)", in[2],
           centre[2]);
    eddy_destroy_scene(s);
    alarm(0);
    printf("host_record: between record and submit an undriven tool's ports are unknown (record.unfinished) "
           "before their first read, then their last values, never a wait; set to z = 0.23 m the input reads "
           "z = %.6g m as tool.centre does\n", in[2]);
}

static const char dam_json[] =
    "{ \"name\": \"async_dam\", \"dt\": 0.004, \"duration\": 1,"
    "  \"box\": { \"min\": [0, 0, 0], \"max\": [0.6, 0.3, 0.1] },"
    "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": 0.01,"
    "      \"fill\": { \"shape\": \"box\", \"min\": [0, 0, 0], \"max\": [0.15, 0.2, 0.1] } } ],"
    "  \"systems\": [ { \"name\": \"fluid\", \"module\": \"pbf\", \"set\": \"water\","
    "      \"params\": { \"h\": 0.02, \"iterations\": 3 } } ] }";

/* Frame f: eddy's step f on its queue after the host's copy of frame f-1
 * (host timeline 2f-3); the host's copy of the positions after eddy's step
 * (eddy's timeline), signalling 2f-1; its draw from the copy, signalling 2f,
 * while eddy's step f+1 may already run. */
static void async_compute(void)
{
    enum { FRAMES = 100 };
    host_vk hv;
    host_vk_create_for(&hv, true);
    eddy_adopt_desc ad = HOST_VK_ADOPT(&hv);
    ad.share_families = &hv.gfx_family;
    ad.share_family_count = 1;
    eddy_engine *e = eddy_create_engine(&(eddy_engine_desc){ EDDY_SIZED(eddy_engine_desc), .log = test_log, .adopt = &ad });
    REQUIRE(e && eddy_register_builtin_modules(e) == EDDY_OK);
    eddy_scene_desc d = { EDDY_SIZED(eddy_scene_desc), .path = "async_dam", .json = dam_json, .no_output = true };
    eddy_scene *s = eddy_load_scene(e, &d);
    REQUIRE(s);
    CHECK(eddy_scene_step(s, FRAMES) == EDDY_OK);
    uint32_t n = 0, n2 = 0;
    float *ref = positions(e, "water", &n);
    eddy_destroy_scene(s);
    s = eddy_load_scene(e, &d);
    REQUIRE(s);

    /* The host draws as many points as eddy's draw record says. */
    eddy_vk_buffer vb, record;
    CHECK(eddy_buffer_vk(e, eddy_particles_buffer(e, eddy_scene_set(s, 0), "position"), &vb) == EDDY_OK);
    CHECK(eddy_buffer_vk(e, eddy_particles_draw(e, eddy_scene_set(s, 0)), &record) == EDDY_OK);
    VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = 16ull * n,
                               .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT };
    VkBuffer copy;
    VK(vkCreateBuffer(hv.device, &bci, NULL, &copy));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(hv.device, copy, &req);
    VkDeviceMemory copy_mem = host_memory(&hv, req, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                        VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    VK(vkBindBufferMemory(hv.device, copy, copy_mem, 0));
    double lo[3], hi[3];
    eddy_scene_box(s, lo, hi);
    host_points r;
    host_points_create(&r, &hv, lo, hi);
    VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                    .queueFamilyIndex = hv.gfx_family };
    VkCommandPool pool;
    VK(vkCreateCommandPool(hv.device, &pci, NULL, &pool));
    VkCommandBuffer cbs[4]; /* copy and draw, two frames */
    VkCommandBufferAllocateInfo cai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
                                        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 4 };
    VK(vkAllocateCommandBuffers(hv.device, &cai, cbs));
    VkSemaphoreTypeCreateInfo tci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                      .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE };
    VkSemaphoreCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &tci };
    VkSemaphore hs;
    VK(vkCreateSemaphore(hv.device, &sci, NULL, &hs));
    VkSemaphore eddy_timeline = eddy_engine_timeline(e);
    VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                    .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
    for (uint64_t f = 1; f <= FRAMES; f++) {
        uint64_t v = 0;
        eddy_semaphore_wait copied = { hs, 2 * f - 3 };
        CHECK(eddy_scene_submit(s, &(eddy_scene_submit_desc){ EDDY_SIZED(eddy_scene_submit_desc), .steps = 1, .waits = f > 1 ? &copied : NULL,
                                                              .wait_count = f > 1 }, &v) == EDDY_OK);
        if (f > 2) { /* frame f-2's command buffers are free again */
            uint64_t done = 2 * (f - 2);
            VkSemaphoreWaitInfo wi = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1,
                                       .pSemaphores = &hs, .pValues = &done };
            VK(vkWaitSemaphores(hv.device, &wi, UINT64_MAX));
        }
        VkCommandBuffer cc = cbs[2 * (f % 2)], dc = cbs[2 * (f % 2) + 1];
        VK(vkBeginCommandBuffer(cc, &bi));
        /* The last frame's draw read the copy (vertex input) before this
         * frame's copy overwrites it. */
        vkCmdPipelineBarrier(cc, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0,
                             NULL, 0, NULL);
        VkBufferCopy region = { vb.offset, 0, 16ull * n };
        vkCmdCopyBuffer(cc, vb.buffer, copy, 1, &region);
        VK(vkEndCommandBuffer(cc));
        VK(vkBeginCommandBuffer(dc, &bi));
        host_points_draw(&r, dc, copy, 0, n, &record);
        VK(vkEndCommandBuffer(dc));
        uint64_t signal[2] = { 2 * f - 1, 2 * f };
        VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
        VkTimelineSemaphoreSubmitInfo ts[2] = {
            { .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO, .waitSemaphoreValueCount = 1,
              .pWaitSemaphoreValues = &v, .signalSemaphoreValueCount = 1, .pSignalSemaphoreValues = &signal[0] },
            { .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO, .signalSemaphoreValueCount = 1,
              .pSignalSemaphoreValues = &signal[1] },
        };
        VkSubmitInfo si[2] = {
            { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .pNext = &ts[0], .waitSemaphoreCount = 1,
              .pWaitSemaphores = &eddy_timeline, .pWaitDstStageMask = &stage, .commandBufferCount = 1,
              .pCommandBuffers = &cc, .signalSemaphoreCount = 1, .pSignalSemaphores = &hs },
            { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .pNext = &ts[1], .commandBufferCount = 1,
              .pCommandBuffers = &dc, .signalSemaphoreCount = 1, .pSignalSemaphores = &hs },
        };
        VK(vkQueueSubmit(hv.gfx_queue, 2, si, VK_NULL_HANDLE));
    }
    uint64_t last = 2 * FRAMES;
    VkSemaphoreWaitInfo wi = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1,
                               .pSemaphores = &hs, .pValues = &last };
    VK(vkWaitSemaphores(hv.device, &wi, UINT64_MAX));
    CHECK(eddy_scene_collect(s) == EDDY_OK);
    CHECK(eddy_scene_get_info(s).steps_done == FRAMES);
    float *got = positions(e, "water", &n2);
    CHECKF(n == n2 && memcmp(ref, got, 16ull * n) == 0, "async steps differ from eddy_scene_step's");
    void *mapped;
    VK(vkMapMemory(hv.device, copy_mem, 0, VK_WHOLE_SIZE, 0, &mapped));
    CHECKF(memcmp(mapped, got, 16ull * n) == 0, "the host's copy of the last frame differs from eddy's positions");
    vkUnmapMemory(hv.device, copy_mem);
    uint8_t *rgba = malloc(4ull * HOST_W * HOST_H);
    REQUIRE(rgba);
    uint32_t lit = 0, bad = host_points_check(&r, &hv, got, n, rgba, &lit);
    CHECKF(bad == 0 && lit > 1000, "the last picture: %u particles unlit or pixels stray, %u lit", bad, lit);
    printf("host_record: async compute, %s: %d frames of %u particles (eddy's step on its queue, the host's copy "
           "and draw on its graphics queue, timeline semaphores between), particles bitwise equal to "
           "eddy_scene_step, the picture right (%u lit pixels)\n", hv.where, FRAMES, n, lit);
    eddy_destroy_scene(s);
    test_finish(e);
    vkDestroySemaphore(hv.device, hs, NULL);
    vkDestroyCommandPool(hv.device, pool, NULL);
    host_points_destroy(&r, &hv);
    vkDestroyBuffer(hv.device, copy, NULL);
    vkFreeMemory(hv.device, copy_mem, NULL);
    host_vk_destroy(&hv);
    CHECKF(hv.messages == 0, "%u validation message(s) on the host's instance", hv.messages);
    free(ref);
    free(got);
    free(rgba);
}

/* Arguments: the source root, then parts: tool, adaptive, unannounced, async, getters. */
int main(int argc, char **argv)
{
    REQUIRE(argc > 1);
    test_require_device();
    host h = { 0 };
    host_vk_create(&h.vk);
    h.e = eddy_create_engine(&(eddy_engine_desc){ EDDY_SIZED(eddy_engine_desc), .log = test_log, .adopt = &(eddy_adopt_desc)HOST_VK_ADOPT(&h.vk) });
    REQUIRE(h.e);
    REQUIRE(eddy_register_builtin_modules(h.e) == EDDY_OK);
    VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .queueFamilyIndex = h.vk.family };
    VK(vkCreateCommandPool(h.vk.device, &pci, NULL, &h.pool));
    VkCommandBufferAllocateInfo cai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                        .commandPool = h.pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                        .commandBufferCount = 1 };
    VK(vkAllocateCommandBuffers(h.vk.device, &cai, &h.cb));
    VkSemaphoreTypeCreateInfo tci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                      .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE };
    VkSemaphoreCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &tci };
    VK(vkCreateSemaphore(h.vk.device, &sci, NULL, &h.timeline));

    if (test_part(argc, argv, 2, "tool"))
        tool_scene(&h, argv[1]);
    if (test_part(argc, argv, 2, "adaptive"))
        adaptive(&h);
    if (test_part(argc, argv, 2, "unannounced"))
        unannounced(&h, argv[1]);
    if (test_part(argc, argv, 2, "async"))
        async_compute();
    if (test_part(argc, argv, 2, "getters"))
        getters(&h);

    test_finish(h.e); /* no validation message on eddy's side, every part known */
    vkDestroySemaphore(h.vk.device, h.timeline, NULL);
    vkDestroyCommandPool(h.vk.device, h.pool, NULL);
    host_vk_destroy(&h.vk);
    CHECKF(h.vk.messages == 0, "%u validation message(s) on the host's instance", h.vk.messages);
    return test_report("host_record");
}
