/* Adoption: the test creates its own instance and device with plain Vulkan
 * (validation and synchronization validation on), hands them to eddy, runs a
 * graph on eddy's side and recorded into its own command buffer, destroys
 * eddy, and then still uses its device: eddy destroyed nothing of it. */
#undef VK_NO_PROTOTYPES
#include "gpu_test.h"

#include "host_vk.h"
#include <math.h>

static const uint32_t ops_spv[] =
#include "ops.spv.inc"
    ;

enum { N = 4096 };

int main(void)
{
    host_vk hk;
    host_vk_create(&hk);
    VkInstance instance = hk.instance;
    VkPhysicalDevice pd = hk.pd;
    VkDevice device = hk.device;
    VkQueue queue = hk.queue;
    uint32_t family = hk.family;

    /* adopt.queue_family is checked against the device. */
    test_clear_error();
    eddy_engine *misfamily = eddy_create_engine(&(eddy_engine_desc){ EDDY_SIZED(eddy_engine_desc),
        .log = test_log,
        .adopt = &(eddy_adopt_desc){ EDDY_SIZED(eddy_adopt_desc), .instance = instance, .physical_device = pd, .device = device, .queue = queue,
                   .queue_family = 1000, .get_instance_proc_addr = vkGetInstanceProcAddr,
                   .api_version = VK_API_VERSION_1_2 } });
    CHECK(misfamily == NULL);
    CHECKF(!strcmp(test_last_id, "adopt.invalid") && strstr(test_last_error, "queue_family is 1000"),
           "adopting with queue family 1000: '%s' %s", test_last_id, test_last_error);
    printf("adopt: queue family 1000 refused: %s\n", test_last_error);
    /* adopt.share_families (async compute) is checked too. */
    uint32_t bad_share[2] = { family, 77 };
    test_clear_error();
    misfamily = eddy_create_engine(&(eddy_engine_desc){ EDDY_SIZED(eddy_engine_desc),
        .log = test_log,
        .adopt = &(eddy_adopt_desc){ EDDY_SIZED(eddy_adopt_desc), .instance = instance, .physical_device = pd, .device = device, .queue = queue,
                   .queue_family = family, .get_instance_proc_addr = vkGetInstanceProcAddr,
                   .share_families = bad_share, .share_family_count = 2 } });
    CHECK(misfamily == NULL);
    CHECKF(!strcmp(test_last_id, "adopt.invalid") && strstr(test_last_error, "share_families[1] is 77"),
           "adopting with share family 77: '%s' %s", test_last_id, test_last_error);

    eddy_engine *e = eddy_create_engine(&(eddy_engine_desc){ EDDY_SIZED(eddy_engine_desc),
        .log = test_log,
        .adopt = &(eddy_adopt_desc){ EDDY_SIZED(eddy_adopt_desc), .instance = instance, .physical_device = pd, .device = device, .queue = queue,
                   .queue_family = family, .get_instance_proc_addr = vkGetInstanceProcAddr,
                   .api_version = VK_API_VERSION_1_2, .debug_utils_enabled = true, .log_validation = true } });
    REQUIRE(e != NULL);
    REQUIRE(eddy_register_builtin_modules(e) == EDDY_OK);
    CHECK(eddy_engine_device(e)->adopted);
    eddy_vk_objects vo = eddy_engine_vk(e);
    CHECK(vo.device == device && vo.queue == queue && vo.instance == instance);

    uint32_t a[N], b[N], got[N];
    for (uint32_t i = 0; i < N; i++)
        a[i] = i * 7u, b[i] = i;
    eddy_kernel k = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "ops", EDDY_SPIRV(ops_spv) });
    eddy_buffer ba = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof a, .label = "a", .data = a });
    eddy_buffer bb = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof b, .label = "b", .data = b });
    REQUIRE(k.id && ba.id && bb.id);

    /* Messages on the host's instance: eddy's log and count take
     * only those that name one of eddy's objects (named EDDY_OBJECT_NAME_PREFIX
     * "<label>"), and the host's messenger gets each once. Two messages
     * submitted as a layer would: one about the host's queue, one about
     * eddy's buffer "a". */
    PFN_vkSubmitDebugUtilsMessageEXT submit_message =
        (PFN_vkSubmitDebugUtilsMessageEXT)vkGetInstanceProcAddr(instance, "vkSubmitDebugUtilsMessageEXT");
    REQUIRE(submit_message);
    eddy_vk_buffer vba;
    CHECK(eddy_buffer_vk(e, ba, &vba) == EDDY_OK);
    VkDebugUtilsObjectNameInfoEXT objects[2] = {
        { .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT, .objectType = VK_OBJECT_TYPE_QUEUE,
          .objectHandle = (uint64_t)(uintptr_t)queue, .pObjectName = "host queue" },
        { .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT, .objectType = VK_OBJECT_TYPE_BUFFER,
          .objectHandle = (uint64_t)vba.buffer, .pObjectName = EDDY_OBJECT_NAME_PREFIX "a" } };
    uint32_t seen = eddy_validation_message_count(e), injected = 0;
    for (int k = 0; k < 2; k++) {
        VkDebugUtilsMessengerCallbackDataEXT md = {
            .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CALLBACK_DATA_EXT,
            .pMessageIdName = k ? "TEST-eddy-object" : "TEST-host-object",
            .pMessage = k ? "a test message about eddy's buffer (ignore)" : "a test message about the host's queue (ignore)",
            .objectCount = 1, .pObjects = &objects[k] };
        submit_message(instance, VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT, &md);
        injected += k;
        CHECKF(eddy_validation_message_count(e) == seen + injected, "after the message about the %s: eddy counts %u "
               "(expected %u)", k ? "eddy's buffer" : "host's queue", eddy_validation_message_count(e) - seen, injected);
        CHECKF(hk.messages == (uint32_t)k + 1, "the host's messenger got %u messages, expected %d", hk.messages, k + 1);
    }
    printf("adopt: a message about the host's queue stays the host's; one about eddy's buffer reaches eddy's log too\n");
    hk.messages = 0;
    struct { uint32_t count, op; } p = { N, 1 };
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "b+=a" });
    CHECK(eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .kernel = k, .threads = N,
        .bindings = { { ba, EDDY_READ_WRITE }, { bb, EDDY_READ_WRITE } }, .push = &p, .push_size = sizeof p }) == 0);
    CHECK(eddy_graph_run(e, g, 2) == EDDY_OK);

    /* The host records the same graph into its own command buffer, twice. */
    VkCommandPool pool;
    VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = family };
    VK(vkCreateCommandPool(device, &pci, NULL, &pool));
    VkCommandBuffer cb;
    VkCommandBufferAllocateInfo cai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                        .commandPool = pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1 };
    VK(vkAllocateCommandBuffers(device, &cai, &cb));
    VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
    VK(vkBeginCommandBuffer(cb, &bi));
    CHECK(eddy_graph_record(e, g, &(eddy_record_desc){ EDDY_SIZED(eddy_record_desc), .command_buffer = cb }) == EDDY_OK);
    CHECK(eddy_graph_record(e, g, &(eddy_record_desc){ EDDY_SIZED(eddy_record_desc), .command_buffer = cb }) == EDDY_OK);
    VK(vkEndCommandBuffer(cb));
    VkFence fence;
    VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
    VK(vkCreateFence(device, &fci, NULL, &fence));
    VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb };
    VK(vkQueueSubmit(queue, 1, &si, fence));
    VK(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX));
    eddy_recorded_work_done(e);
    CHECK(eddy_buffer_download(e, bb, 0, sizeof got, got) == EDDY_OK);
    int bad = 0;
    for (uint32_t i = 0; i < N; i++)
        bad += got[i] != b[i] + 4 * a[i];
    CHECKF(bad == 0, "%d results differ after 2 runs + 2 host recordings", bad);

    /* The host fills b before the recording and copies it out after, in
     * the same command buffer, saying so (before/after): the barriers eddy
     * records name the transfer stage and only b and a (synchronization
     * validation on both instances checks them). A use whose access its
     * stages cannot make is refused. */
    eddy_vk_buffer vb;
    CHECK(eddy_buffer_vk(e, bb, &vb) == EDDY_OK);
    VkBufferCreateInfo rbci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = sizeof got,
                                .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT };
    VkBuffer readback;
    VK(vkCreateBuffer(device, &rbci, NULL, &readback));
    VkMemoryRequirements rreq;
    vkGetBufferMemoryRequirements(device, readback, &rreq);
    VkPhysicalDeviceMemoryProperties rmp;
    vkGetPhysicalDeviceMemoryProperties(pd, &rmp);
    uint32_t rtype = UINT32_MAX;
    const VkMemoryPropertyFlags hv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t i = 0; i < rmp.memoryTypeCount && rtype == UINT32_MAX; i++)
        if ((rreq.memoryTypeBits & (1u << i)) && (rmp.memoryTypes[i].propertyFlags & hv) == hv)
            rtype = i;
    REQUIRE(rtype != UINT32_MAX);
    VkMemoryAllocateInfo rmai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = rreq.size,
                                  .memoryTypeIndex = rtype };
    VkDeviceMemory rmem;
    VK(vkAllocateMemory(device, &rmai, NULL, &rmem));
    VK(vkBindBufferMemory(device, readback, rmem, 0));
    VK(vkResetCommandPool(device, pool, 0));
    VK(vkResetFences(device, 1, &fence));
    VK(vkBeginCommandBuffer(cb, &bi));
    vkCmdFillBuffer(cb, vb.buffer, vb.offset, sizeof got, 5u);
    eddy_host_use before[] = { { .buffer = bb, .stages = EDDY_STAGE_TRANSFER, .access = EDDY_ACCESS_TRANSFER_WRITE },
                               { .stages = 0, .access = 0 } };
    eddy_host_use after[] = { { .buffer = bb, .stages = EDDY_STAGE_TRANSFER, .access = EDDY_ACCESS_TRANSFER_READ },
                              { .stages = 0, .access = 0 } };
    eddy_host_use wrong[] = { { .buffer = bb, .stages = EDDY_STAGE_TRANSFER, .access = EDDY_ACCESS_VERTEX_READ } };
    test_clear_error();
    CHECK(eddy_graph_record(e, g, &(eddy_record_desc){ EDDY_SIZED(eddy_record_desc), .command_buffer = cb, .before = wrong, .before_count = 1 }) ==
          EDDY_ERROR_INVALID_ARGUMENT);
    CHECK(!strcmp(test_last_id, "graph.host_use") && strstr(test_last_error, "before[0]") &&
          strstr(test_last_error, "0x20") && strstr(test_last_error, "0x4"));
    CHECK(eddy_graph_record(e, g, &(eddy_record_desc){ EDDY_SIZED(eddy_record_desc), .command_buffer = cb, .before = before, .before_count = 2,
                                                       .after = after, .after_count = 2 }) == EDDY_OK);
    VkBufferCopy region = { vb.offset, 0, sizeof got };
    vkCmdCopyBuffer(cb, vb.buffer, readback, 1, &region);
    VkMemoryBarrier to_host = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                .dstAccessMask = VK_ACCESS_HOST_READ_BIT };
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, NULL, 0, NULL);
    VK(vkEndCommandBuffer(cb));
    VK(vkQueueSubmit(queue, 1, &si, fence));
    VK(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX));
    eddy_recorded_work_done(e);
    uint32_t *rb;
    VK(vkMapMemory(device, rmem, 0, sizeof got, 0, (void **)&rb));
    bad = 0;
    for (uint32_t i = 0; i < N; i++)
        bad += rb[i] != 5u + a[i];
    CHECKF(bad == 0, "%d results differ after fill, record, copy", bad);
    vkUnmapMemory(device, rmem);
    vkDestroyBuffer(device, readback, NULL);
    vkFreeMemory(device, rmem, NULL);

    /* Two engines at once (one own, one adopted on the host's instance),
     * with a device enumeration between their steps: each runs a scene to
     * the bitwise same result as an engine alone. */
    {
        const char *json =
            "{ \"dt\": 0.004, \"duration\": 1, \"box\": { \"min\": [0, 0, 0], \"max\": [0.32, 0.3, 0.16] },"
            "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": 0.02,"
            "      \"fill\": { \"shape\": \"box\", \"min\": [0, 0, 0], \"max\": [0.16, 0.16, 0.16] } } ],"
            "  \"systems\": [ { \"module\": \"pbf\", \"set\": \"water\", \"params\": { \"h\": 0.04, \"iterations\": 3 } } ] }";
        enum { STEPS = 10 };
        float *alone = NULL, *own_pos = NULL, *adopted_pos = NULL;
        uint32_t n = 0;
        for (int round = 0; round < 2; round++) {
            eddy_engine *o = eddy_create_engine(&(eddy_engine_desc){ EDDY_SIZED(eddy_engine_desc), .validation = EDDY_VALIDATION_SYNC, .log = test_log });
            REQUIRE(o && eddy_register_builtin_modules(o) == EDDY_OK);
            eddy_scene *so = eddy_load_scene(o, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "two.json", .json = json, .no_output = true });
            eddy_scene *sa = round ? eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "two.json", .json = json, .no_output = true })
                                   : NULL;
            REQUIRE(so && (sa || !round));
            eddy_device_info info[4];
            for (int k = 0; k < STEPS; k++) {
                CHECK(eddy_scene_step(so, 1) == EDDY_OK);
                CHECK(eddy_enumerate_devices(info, 4) >= 1);
                if (sa)
                    CHECK(eddy_scene_step(sa, 1) == EDDY_OK);
            }
            eddy_particles po = eddy_find_particles(o, "water");
            n = eddy_particles_count(o, po);
            float **into = round ? &own_pos : &alone;
            *into = malloc(16ull * n);
            REQUIRE(*into);
            CHECK(eddy_buffer_download(o, eddy_particles_buffer(o, po, "position"), 0, 16ull * n, *into) == EDDY_OK);
            if (sa) {
                /* What a host lists to draw: the sets, their
                 * buffers, the systems and the box. */
                eddy_particles listed = eddy_scene_set(sa, 0);
                CHECK(listed.id && !eddy_scene_set(sa, 1).id && !strcmp(eddy_particles_name(e, listed), "water"));
                char names[256] = "";
                const char *bn;
                for (uint32_t k = 0; (bn = eddy_particles_buffer_name(e, listed, k)); k++) {
                    CHECK(eddy_particles_buffer(e, listed, bn).id != 0);
                    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? " " : "", bn);
                }
                CHECKF(!strncmp(names, "position velocity mass phase", 28) && strstr(names, "density"),
                       "the set's buffers: %s", names);
                double lo[3], hi[3];
                eddy_scene_box(sa, lo, hi);
                CHECK(lo[0] == 0 && lo[1] == 0 && lo[2] == 0 && fabs(hi[0] - 0.32) < 1e-6 && fabs(hi[1] - 0.3) < 1e-6 &&
                      fabs(hi[2] - 0.16) < 1e-6);
                CHECK(eddy_scene_system_name(sa, 0) && !eddy_scene_system_name(sa, 1));
                printf("scene listing: set 'water' (%u particles) with buffers %s; box to (%g, %g, %g) m; system '%s'\n",
                       eddy_particles_count(e, listed), names, hi[0], hi[1], hi[2], eddy_scene_system_name(sa, 0));
                eddy_particles pa = eddy_find_particles(e, "water");
                REQUIRE(eddy_particles_count(e, pa) == n);
                adopted_pos = malloc(16ull * n);
                REQUIRE(adopted_pos);
                CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, pa, "position"), 0, 16ull * n, adopted_pos) ==
                      EDDY_OK);
                eddy_destroy_scene(sa);
            }
            eddy_destroy_scene(so);
            uint32_t om = eddy_validation_message_count(o);
            CHECKF(om == 0, "%u validation message(s) on the second engine", om);
            eddy_destroy_engine(o);
        }
        CHECK(n > 500);
        CHECKF(memcmp(alone, own_pos, 16ull * n) == 0, "the own engine beside an adopted one differs from alone");
        CHECKF(memcmp(alone, adopted_pos, 16ull * n) == 0, "the adopted engine beside an own one differs from alone");
        printf("two engines: %u particles x %d steps on each, bitwise equal to one engine alone\n", n, STEPS);
        free(alone);
        free(own_pos);
        free(adopted_pos);
    }

    /* eddy_graph_submit_after: the replay waits on the host's
     * timeline semaphore, which the host signals only after eddy has
     * submitted (wait-before-signal): a poll finds it not done, and after
     * the host's signal it runs once more (b += a). */
    {
        static uint32_t before[N], after[N];
        CHECK(eddy_buffer_download(e, bb, 0, sizeof before, before) == EDDY_OK);
        VkSemaphoreTypeCreateInfo tci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                          .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE, .initialValue = 0 };
        VkSemaphoreCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &tci };
        VkSemaphore host_sem;
        VK(vkCreateSemaphore(device, &sci, NULL, &host_sem));
        eddy_semaphore_wait w = { host_sem, 1 };
        uint64_t v = 0;
        CHECK(eddy_graph_submit_after(e, g, &(eddy_submit_desc){ EDDY_SIZED(eddy_submit_desc), .waits = &w, .wait_count = 1 }, &v) == EDDY_OK);
        eddy_result polled = eddy_wait(e, v, 0);
        CHECKF(polled == EDDY_TIMEOUT, "before the host's signal the submission is %s", eddy_result_string(polled));
        VkSemaphoreSignalInfo ssi = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO, .semaphore = host_sem, .value = 1 };
        VK(vkSignalSemaphore(device, &ssi));
        CHECK(eddy_wait(e, v, EDDY_WAIT_FOREVER) == EDDY_OK);
        CHECK(eddy_buffer_download(e, bb, 0, sizeof after, after) == EDDY_OK);
        int off = 0;
        for (uint32_t i = 0; i < N; i++)
            off += after[i] != before[i] + a[i];
        CHECKF(off == 0, "%d results differ after the submission that waited on the host", off);
        printf("submit after a host semaphore: not run before the host's signal (%s), run after it\n",
               eddy_result_string(polled));
        test_clear_error();
        eddy_semaphore_wait many[EDDY_SUBMIT_WAITS_MAX + 1] = { { host_sem, 1 } };
        CHECK(eddy_graph_submit_after(e, g, &(eddy_submit_desc){ EDDY_SIZED(eddy_submit_desc), .waits = many, .wait_count = EDDY_SUBMIT_WAITS_MAX + 1 },
                                      &v) == EDDY_ERROR_INVALID_ARGUMENT);
        CHECK(!strcmp(test_last_id, "submit.invalid"));
        CHECK(eddy_graph_submit_after(e, g, &(eddy_submit_desc){ EDDY_SIZED(eddy_submit_desc), .waits = many, .wait_count = 2 }, &v) ==
              EDDY_ERROR_INVALID_ARGUMENT);
        CHECK(!strcmp(test_last_id, "submit.invalid") && strstr(test_last_error, "waits[1]"));
        CHECK(eddy_wait_idle(e) == EDDY_OK);
        vkDestroySemaphore(device, host_sem, NULL);
    }

    eddy_destroy_graph(e, g);
    uint32_t eddy_messages = eddy_validation_message_count(e) - injected;
    CHECKF(eddy_messages == 0, "eddy saw %u validation message(s)", eddy_messages);
    eddy_destroy_engine(e);

    /* eddy is gone; the host's device, queue and pool still work. */
    VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = 256,
                               .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT };
    VkBuffer buf;
    VK(vkCreateBuffer(device, &bci, NULL, &buf));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, buf, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(pd, &mp);
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < mp.memoryTypeCount && type == UINT32_MAX; i++)
        if ((req.memoryTypeBits & (1u << i)) &&
            (mp.memoryTypes[i].propertyFlags & (VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) ==
                (VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT))
            type = i;
    REQUIRE(type != UINT32_MAX);
    VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size, .memoryTypeIndex = type };
    VkDeviceMemory mem;
    VK(vkAllocateMemory(device, &mai, NULL, &mem));
    VK(vkBindBufferMemory(device, buf, mem, 0));
    VK(vkResetCommandPool(device, pool, 0));
    VK(vkResetFences(device, 1, &fence));
    VK(vkBeginCommandBuffer(cb, &bi));
    vkCmdFillBuffer(cb, buf, 0, 256, 0x01020304u);
    VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                           .dstAccessMask = VK_ACCESS_HOST_READ_BIT };
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    VK(vkEndCommandBuffer(cb));
    VK(vkQueueSubmit(queue, 1, &si, fence));
    VK(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX));
    uint32_t *mapped;
    VK(vkMapMemory(device, mem, 0, 256, 0, (void **)&mapped));
    CHECK(mapped[0] == 0x01020304u && mapped[63] == 0x01020304u);
    vkUnmapMemory(device, mem);
    vkDestroyFence(device, fence, NULL);
    vkDestroyBuffer(device, buf, NULL);
    vkFreeMemory(device, mem, NULL);
    vkDestroyCommandPool(device, pool, NULL);
    host_vk_destroy(&hk);
    CHECKF(hk.messages == 0, "%u validation message(s) on the host's instance", hk.messages);
    return test_report("adopt");
}
