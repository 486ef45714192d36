/* Lifetimes, under synchronization validation: a pass
 * added to a submitted graph, a bound buffer destroyed, destruction while
 * work is in flight, a failed submit, and a host recording whose resources
 * are destroyed before the host's command buffer has run. Each case: no
 * validation message, no crash, no hang, the documented result. */
#undef VK_NO_PROTOTYPES
#include "gpu_test.h"

#include <vulkan/vulkan.h>
#include <stdlib.h>

static const uint32_t ops_spv[] =
#include "ops.spv.inc"
    ;

enum { N = 20000 };

typedef struct { uint32_t count, op; } ops_push;

static eddy_kernel ops_kernel(eddy_engine *e)
{
    eddy_kernel k = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "ops", EDDY_SPIRV(ops_spv) });
    REQUIRE(k.id);
    return k;
}

static eddy_buffer make(eddy_engine *e, const char *label, const uint32_t *data)
{
    eddy_buffer b = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = N * 4, .label = label, .data = data });
    REQUIRE(b.id);
    return b;
}

/* b += a (op 1) as one pass. */
static int add_pass(eddy_engine *e, eddy_graph g, eddy_kernel k, eddy_buffer a, eddy_buffer b, const ops_push *p)
{
    return eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .label = "b+=a", .kernel = k, .threads = N,
        .bindings = { { a, EDDY_READ_WRITE }, { b, EDDY_READ_WRITE } }, .push = p, .push_size = sizeof *p });
}

static void pass_added_while_pending(void)
{
    eddy_engine *e = test_engine();
    eddy_kernel k = ops_kernel(e);
    static uint32_t a[N], b[N], got[N];
    for (uint32_t i = 0; i < N; i++)
        a[i] = i, b[i] = 3 * i;
    eddy_buffer ba = make(e, "a", a), bb = make(e, "b", b);
    ops_push p = { N, 1 };
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "grows" });
    CHECK(add_pass(e, g, k, ba, bb, &p) == 0);
    uint64_t v = 0;
    CHECK(eddy_graph_submit(e, g, 50, &v) == EDDY_OK);
    /* The recording may still run: adding a pass must not free it now. */
    CHECK(add_pass(e, g, k, ba, bb, &p) == 1);
    CHECK(eddy_graph_submit(e, g, 1, &v) == EDDY_OK);
    CHECK(eddy_wait(e, v, EDDY_WAIT_FOREVER) == EDDY_OK);
    CHECK(eddy_engine_get_counters(e).deferred == 0);
    CHECK(eddy_buffer_download(e, bb, 0, sizeof got, got) == EDDY_OK);
    int bad = 0;
    for (uint32_t i = 0; i < N; i++)
        bad += got[i] != b[i] + 52 * a[i];
    CHECKF(bad == 0, "%d of %d differ after 50 + 2 additions", bad, N);
    eddy_destroy_graph(e, g);
    test_finish(e);
}

/* A graph of one b += a pass, submitted `times` times (not waited for). */
static eddy_graph submitted(eddy_engine *e, const char *label, eddy_kernel k, eddy_buffer ba, eddy_buffer bb,
                            uint32_t times, uint64_t *value)
{
    ops_push p = { N, 1 };
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = label });
    CHECK(add_pass(e, g, k, ba, bb, &p) == 0);
    CHECK(eddy_graph_submit(e, g, times, value) == EDDY_OK);
    return g;
}

static void destroyed_binding_refused(void)
{
    eddy_engine *e = test_engine();
    eddy_kernel k = ops_kernel(e);
    static uint32_t a[N];
    eddy_buffer ba = make(e, "a", a), bb = make(e, "water.pos", a);
    ops_push p = { N, 1 };
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "step" });
    CHECK(add_pass(e, g, k, ba, bb, &p) == 0);
    CHECK(eddy_graph_run(e, g, 1) == EDDY_OK);
    eddy_destroy_buffer(e, bb);
    test_clear_error();
    CHECK(eddy_graph_run(e, g, 1) == EDDY_ERROR_INVALID_ARGUMENT);
    CHECKF(!strcmp(test_last_id, "graph.destroyed_resource") && strstr(test_last_error, "'step'") &&
               strstr(test_last_error, "'b+=a'") && strstr(test_last_error, "'water.pos'") &&
               strstr(test_last_error, "binding 1"),
           "message: [%s] %s", test_last_id, test_last_error);
    /* The same for a destroyed kernel, and for a host recording. */
    eddy_graph g2 = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "step2" });
    eddy_buffer bc = make(e, "c", a);
    CHECK(add_pass(e, g2, k, ba, bc, &p) == 0);
    eddy_destroy_kernel(e, k);
    test_clear_error();
    CHECK(eddy_graph_submit(e, g2, 1, NULL) == EDDY_ERROR_INVALID_ARGUMENT);
    CHECKF(!strcmp(test_last_id, "graph.destroyed_resource") && strstr(test_last_error, "'ops'"),
           "message: [%s] %s", test_last_id, test_last_error);
    eddy_destroy_graph(e, g);
    eddy_destroy_graph(e, g2);
    test_finish(e);
}

static void destroyed_in_flight(void)
{
    eddy_engine *e = test_engine();
    eddy_kernel k = ops_kernel(e);
    static uint32_t a[N];
    eddy_buffer ba = make(e, "a", a), bb = make(e, "b", a);
    ops_push p = { N, 1 };
    uint64_t v = 0;
    eddy_graph g = submitted(e, "in flight", k, ba, bb, 200, &v);
    /* Everything the submission uses goes at once; nothing may be freed
     * before it has run (synchronization validation and the counters). */
    eddy_destroy_graph(e, g);
    eddy_destroy_buffer(e, ba);
    eddy_destroy_buffer(e, bb);
    eddy_destroy_kernel(e, k);
    eddy_engine_counters c = eddy_engine_get_counters(e);
    printf("in flight: %u object groups deferred after the destroys\n", c.deferred);
    CHECK(eddy_wait(e, v, EDDY_WAIT_FOREVER) == EDDY_OK);
    CHECK(eddy_engine_get_counters(e).deferred == 0);
    /* Another submit in flight when the engine itself goes. */
    eddy_kernel k2 = ops_kernel(e);
    eddy_buffer bc = make(e, "c", a), bd = make(e, "d", a);
    eddy_graph g2 = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "at exit" });
    CHECK(add_pass(e, g2, k2, bc, bd, &p) == 0);
    CHECK(eddy_graph_submit(e, g2, 100, &v) == EDDY_OK);
    test_finish(e);
}

static void failed_submit(void)
{
    eddy_engine *e = test_engine();
    eddy_kernel k = ops_kernel(e);
    static uint32_t a[N], b[N], got[N];
    for (uint32_t i = 0; i < N; i++)
        a[i] = 1, b[i] = i;
    eddy_buffer ba = make(e, "a", a), bb = make(e, "b", b);
    ops_push p = { N, 1 };
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "fails" });
    CHECK(add_pass(e, g, k, ba, bb, &p) == 0);
    uint64_t v = 0;
    CHECK(eddy_graph_submit(e, g, 1, &v) == EDDY_OK);
    uint64_t before = v;
    setenv("EDDY_TESTING_FAIL_SUBMIT", "1", 1); /* the engine's submits fail as on a lost device */
    test_clear_error();
    uint64_t v2 = 12345;
    CHECK(eddy_graph_submit(e, g, 1, &v2) == EDDY_ERROR_VULKAN);
    unsetenv("EDDY_TESTING_FAIL_SUBMIT");
    CHECK(v2 == 12345);
    CHECK(!strcmp(test_last_id, "vulkan.call") && strstr(test_last_error, "vkQueueSubmit"));
    /* The failed submit took no timeline value: waiting on the last one
     * returns, and a value never submitted is refused instead of hanging. */
    CHECK(eddy_wait(e, before, EDDY_WAIT_FOREVER) == EDDY_OK);
    test_clear_error();
    CHECK(eddy_wait(e, before + 1, EDDY_WAIT_FOREVER) == EDDY_ERROR_INVALID_ARGUMENT);
    CHECK(!strcmp(test_last_id, "wait.unsubmitted"));
    CHECK(eddy_wait_idle(e) == EDDY_OK);
    CHECK(eddy_graph_run(e, g, 1) == EDDY_OK);
    CHECK(eddy_buffer_download(e, bb, 0, sizeof got, got) == EDDY_OK);
    int bad = 0;
    for (uint32_t i = 0; i < N; i++)
        bad += got[i] != b[i] + 2;
    CHECKF(bad == 0, "%d differ: the failed submit ran or the next did not", bad);
    eddy_destroy_graph(e, g);
    test_finish(e);
}

/* The host records a graph into its own command buffer with a timeline
 * semaphore of its own as the "done" signal, destroys eddy's graph, buffers
 * and kernel before submitting, then submits: nothing may be freed before
 * the host's semaphore is signalled. */
static void host_recording(void)
{
    eddy_engine *e = test_engine();
    eddy_vk_objects vo = eddy_engine_vk(e);
#define DEV(name) PFN_##name name = (PFN_##name)vkGetDeviceProcAddr(vo.device, #name)
    DEV(vkCreateCommandPool);
    DEV(vkDestroyCommandPool);
    DEV(vkAllocateCommandBuffers);
    DEV(vkBeginCommandBuffer);
    DEV(vkEndCommandBuffer);
    DEV(vkCreateSemaphore);
    DEV(vkDestroySemaphore);
    DEV(vkQueueSubmit);
    DEV(vkWaitSemaphores);
    REQUIRE(vkCreateCommandPool && vkQueueSubmit && vkWaitSemaphores);
    eddy_kernel k = ops_kernel(e);
    static uint32_t a[N];
    eddy_buffer ba = make(e, "a", a), bb = make(e, "b", a);
    ops_push p = { N, 1 };
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "host" });
    CHECK(add_pass(e, g, k, ba, bb, &p) == 0);

    VkCommandPool pool;
    VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .queueFamilyIndex = vo.queue_family };
    REQUIRE(vkCreateCommandPool(vo.device, &pci, NULL, &pool) == VK_SUCCESS);
    VkCommandBuffer cb;
    VkCommandBufferAllocateInfo cai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                        .commandPool = pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                        .commandBufferCount = 1 };
    REQUIRE(vkAllocateCommandBuffers(vo.device, &cai, &cb) == VK_SUCCESS);
    VkSemaphoreTypeCreateInfo tci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                      .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE };
    VkSemaphoreCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &tci };
    VkSemaphore done;
    REQUIRE(vkCreateSemaphore(vo.device, &sci, NULL, &done) == VK_SUCCESS);

    VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                    .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
    REQUIRE(vkBeginCommandBuffer(cb, &bi) == VK_SUCCESS);
    CHECK(eddy_graph_record(e, g, &(eddy_record_desc){ EDDY_SIZED(eddy_record_desc), .command_buffer = cb, .done_semaphore = done,
                                                       .done_value = 7 }) == EDDY_OK);
    REQUIRE(vkEndCommandBuffer(cb) == VK_SUCCESS);
    eddy_destroy_graph(e, g);
    eddy_destroy_buffer(e, ba);
    eddy_destroy_buffer(e, bb);
    eddy_destroy_kernel(e, k);
    eddy_engine_counters c = eddy_engine_get_counters(e);
    CHECKF(c.deferred >= 3, "%u deferred: the recording's descriptors, buffers and pipeline must wait for the host",
           c.deferred);
    uint64_t seven = 7;
    VkTimelineSemaphoreSubmitInfo ti = { .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                         .signalSemaphoreValueCount = 1, .pSignalSemaphoreValues = &seven };
    VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .pNext = &ti, .commandBufferCount = 1,
                        .pCommandBuffers = &cb, .signalSemaphoreCount = 1, .pSignalSemaphores = &done };
    REQUIRE(vkQueueSubmit(vo.queue, 1, &si, VK_NULL_HANDLE) == VK_SUCCESS);
    VkSemaphoreWaitInfo wi = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1,
                               .pSemaphores = &done, .pValues = &seven };
    REQUIRE(vkWaitSemaphores(vo.device, &wi, UINT64_MAX) == VK_SUCCESS);
    /* Any engine call that collects now frees them: a wait on eddy's own idle timeline. */
    CHECK(eddy_wait_idle(e) == EDDY_OK);
    CHECK(eddy_engine_get_counters(e).deferred == 0);

    /* Without a semaphore: kept until the host says its work is done. */
    eddy_kernel k2 = ops_kernel(e);
    eddy_buffer bc = make(e, "c", a), bd = make(e, "d", a);
    eddy_graph g2 = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "host2" });
    CHECK(add_pass(e, g2, k2, bc, bd, &p) == 0);
    VkCommandBuffer cb2;
    REQUIRE(vkAllocateCommandBuffers(vo.device, &cai, &cb2) == VK_SUCCESS);
    REQUIRE(vkBeginCommandBuffer(cb2, &bi) == VK_SUCCESS);
    CHECK(eddy_graph_record(e, g2, &(eddy_record_desc){ EDDY_SIZED(eddy_record_desc), .command_buffer = cb2 }) == EDDY_OK);
    REQUIRE(vkEndCommandBuffer(cb2) == VK_SUCCESS);
    eddy_destroy_graph(e, g2);
    eddy_destroy_buffer(e, bd);
    CHECK(eddy_engine_get_counters(e).deferred >= 2);
    uint64_t eight = 8;
    ti.pSignalSemaphoreValues = &eight;
    si.pCommandBuffers = &cb2;
    REQUIRE(vkQueueSubmit(vo.queue, 1, &si, VK_NULL_HANDLE) == VK_SUCCESS);
    wi.pValues = &eight;
    REQUIRE(vkWaitSemaphores(vo.device, &wi, UINT64_MAX) == VK_SUCCESS);
    CHECK(eddy_wait_idle(e) == EDDY_OK);
    CHECK(eddy_engine_get_counters(e).deferred >= 2);
    eddy_recorded_work_done(e);
    CHECK(eddy_engine_get_counters(e).deferred == 0);

    vkDestroySemaphore(vo.device, done, NULL);
    vkDestroyCommandPool(vo.device, pool, NULL);
    test_finish(e);
}

/* eddy_wait's bound: 0 polls and returns at once, EDDY_TIMEOUT
 * (no message) while the work runs; EDDY_WAIT_FOREVER waits; once reached,
 * a poll gives EDDY_OK. */
static void wait_timeouts(void)
{
    eddy_engine *e = test_engine();
    eddy_kernel k = ops_kernel(e);
    static uint32_t a[N];
    eddy_buffer ba = make(e, "a", a), bb = make(e, "b", a);
    uint64_t v = 0;
    eddy_graph g = submitted(e, "polled", k, ba, bb, 2000, &v);
    test_clear_error();
    eddy_result polled = eddy_wait(e, v, 0), bounded = eddy_wait(e, v, 1000);
    printf("wait: a poll right after submitting 2000 passes: %s; a 1 us wait: %s\n", eddy_result_string(polled),
           eddy_result_string(bounded));
    CHECK(polled == EDDY_TIMEOUT || polled == EDDY_OK);
    CHECK(bounded == EDDY_TIMEOUT || bounded == EDDY_OK);
    CHECKF(!test_last_id[0], "a wait that timed out logged '%s'", test_last_id);
    CHECK(eddy_wait(e, v, EDDY_WAIT_FOREVER) == EDDY_OK);
    CHECK(eddy_wait(e, v, 0) == EDDY_OK);
    CHECK(!strcmp(eddy_result_string(EDDY_TIMEOUT), "timed out"));
    eddy_destroy_graph(e, g);
    eddy_destroy_buffer(e, ba);
    eddy_destroy_buffer(e, bb);
    eddy_destroy_kernel(e, k);
    test_finish(e);
}

int main(void)
{
    pass_added_while_pending();
    destroyed_binding_refused();
    destroyed_in_flight();
    failed_submit();
    host_recording();
    wait_timeouts();
    return test_report("lifetime");
}
