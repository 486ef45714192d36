/* The smallest Vulkan host of eddy: a renderer's own device, eddy adopting
 * it, each frame eddy's step recorded into the renderer's command buffer
 * (eddy_scene_record) followed by a draw of the particles straight from
 * eddy's "position" buffer, offscreen; the last frame is checked against
 * the particles' positions and written as a PNG.
 *
 *   eddy_host [--validate] [--frames N] [--out FILE.png]
 *
 * --validate turns on the Khronos validation layer with synchronization
 * validation on the host's instance; any message then fails the run. The
 * picture check: every particle in view lights the pixel under its centre,
 * and every lit pixel has a particle centre within 2 pixels. Prints one
 * line; exits non-zero on any failure. */
#include <vulkan/vulkan.h>

#include "eddy/eddy.h"
#include "eddy/eddy_output.h"
#include "eddy/eddy_builtin.h"
#include "eddy/eddy_module.h" /* eddy_write_png */
#include "eddy/eddy_scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 320, H = 240 };

static const uint32_t vert_spv[] =
#include "points.vert.spv.inc"
    ;
static const uint32_t frag_spv[] =
#include "points.frag.spv.inc"
    ;

/* A dam break: a block of water (PBF) collapsing in a 0.6 x 0.3 x 0.1 m tank. */
static const char scene_json[] =
    "{ \"name\": \"host_dam\", \"dt\": 0.004, \"duration\": 1,"
    "  \"box\": { \"min\": [0, 0, 0], \"max\": [0.6, 0.3, 0.1] },"
    "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": 0.01,"
    "      \"fill\": { \"shape\": \"box\", \"min\": [0, 0, 0], \"max\": [0.15, 0.2, 0.1] } } ],"
    "  \"systems\": [ { \"name\": \"fluid\", \"module\": \"pbf\", \"set\": \"water\","
    "      \"params\": { \"h\": 0.02, \"iterations\": 3 } } ] }";

static uint32_t messages;

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT types,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    (void)types, (void)user;
    if (severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) {
        messages++;
        fprintf(stderr, "validation: %s\n", data->pMessage);
    }
    return VK_FALSE;
}

#define VK(call)                                                                  \
    do {                                                                          \
        VkResult vr_ = (call);                                                    \
        if (vr_ != VK_SUCCESS) {                                                  \
            fprintf(stderr, "eddy_host: %s failed (VkResult %d)\n", #call, vr_); \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

static uint32_t memory_type(VkPhysicalDevice pd, uint32_t bits, VkMemoryPropertyFlags want)
{
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(pd, &mp);
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want)
            return i;
    fprintf(stderr, "eddy_host: no memory type with flags 0x%x\n", want);
    exit(1);
}

static VkDeviceMemory bind_memory(VkPhysicalDevice pd, VkDevice dev, VkMemoryRequirements req,
                                  VkMemoryPropertyFlags want)
{
    VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                                .memoryTypeIndex = memory_type(pd, req.memoryTypeBits, want) };
    VkDeviceMemory mem;
    VK(vkAllocateMemory(dev, &ai, NULL, &mem));
    return mem;
}

static VkShaderModule shader(VkDevice dev, const uint32_t *code, size_t size)
{
    VkShaderModuleCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size,
                                    .pCode = code };
    VkShaderModule m;
    VK(vkCreateShaderModule(dev, &ci, NULL, &m));
    return m;
}

int main(int argc, char **argv)
{
    bool validate = false;
    int frames = 50;
    const char *out = "eddy_host.png";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--validate"))
            validate = true;
        else if (!strcmp(argv[i], "--frames") && i + 1 < argc && atoi(argv[i + 1]) > 0)
            frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out = argv[++i];
        else {
            fprintf(stderr, "usage: eddy_host [--validate] [--frames N (> 0)] [--out FILE.png]\n");
            return 2;
        }
    }

    /* ---- the host's own Vulkan: instance, device with one queue doing graphics and compute */
    const char *layer = "VK_LAYER_KHRONOS_validation", *ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkValidationFeatureEnableEXT sync = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    VkValidationFeaturesEXT features = { .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
                                         .enabledValidationFeatureCount = 1, .pEnabledValidationFeatures = &sync };
    VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "eddy_host",
                              .apiVersion = VK_API_VERSION_1_2 };
    VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pNext = validate ? &features : NULL,
                                 .pApplicationInfo = &app, .enabledLayerCount = validate,
                                 .ppEnabledLayerNames = &layer, .enabledExtensionCount = validate,
                                 .ppEnabledExtensionNames = &ext };
    VkInstance instance;
    VK(vkCreateInstance(&ici, NULL, &instance));
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    if (validate) {
        VkDebugUtilsMessengerCreateInfoEXT mci = {
            .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
            .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
            .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
            .pfnUserCallback = on_message };
        PFN_vkCreateDebugUtilsMessengerEXT create =
            (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT");
        VK(create(instance, &mci, NULL, &messenger));
    }
    uint32_t n = 1;
    VkPhysicalDevice pd;
    VkResult er = vkEnumeratePhysicalDevices(instance, &n, &pd);
    if ((er != VK_SUCCESS && er != VK_INCOMPLETE) || n == 0) {
        fprintf(stderr, "eddy_host: no Vulkan device\n");
        return 1;
    }
    VkQueueFamilyProperties fams[16];
    uint32_t nf = 16, family = UINT32_MAX;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nf, fams);
    const VkQueueFlags both = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
    for (uint32_t i = 0; i < nf && family == UINT32_MAX; i++)
        if ((fams[i].queueFlags & both) == both)
            family = i;
    if (family == UINT32_MAX) {
        fprintf(stderr, "eddy_host: no queue family with graphics and compute\n");
        return 1;
    }
    VkPhysicalDeviceFeatures has;
    vkGetPhysicalDeviceFeatures(pd, &has);
    float priority = 1;
    VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = family,
                                    .queueCount = 1, .pQueuePriorities = &priority };
    VkPhysicalDeviceVulkan12Features f12 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                             .timelineSemaphore = VK_TRUE };
    VkPhysicalDeviceFeatures want = { .largePoints = has.largePoints };
    VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f12,
                               .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci, .pEnabledFeatures = &want };
    VkDevice dev;
    VK(vkCreateDevice(pd, &dci, NULL, &dev));
    VkQueue queue;
    vkGetDeviceQueue(dev, family, 0, &queue);

    /* ---- eddy on the host's device (it creates no instance, device or queue of its own) */
    eddy_engine *e = eddy_create_engine(&(eddy_engine_desc){ EDDY_SIZED(eddy_engine_desc),
        .adopt = &(eddy_adopt_desc){ EDDY_SIZED(eddy_adopt_desc), .instance = instance, .physical_device = pd, .device = dev, .queue = queue,
                   .queue_family = family, .get_instance_proc_addr = vkGetInstanceProcAddr,
                   .api_version = VK_API_VERSION_1_2, .debug_utils_enabled = validate } });
    if (!e || eddy_register_builtin_modules(e) != EDDY_OK)
        return 1;
    eddy_scene *scene = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "host_dam.json", .json = scene_json,
                                                              .no_output = true });
    if (!scene)
        return 1;
    eddy_particles water = eddy_scene_set(scene, 0);
    uint32_t count = eddy_particles_count(e, water);
    eddy_buffer position = eddy_particles_buffer(e, water, "position");
    eddy_vk_buffer vb, draw;
    if (eddy_buffer_vk(e, position, &vb) != EDDY_OK || eddy_buffer_vk(e, eddy_particles_draw(e, water), &draw) != EDDY_OK)
        return 1;

    /* ---- the renderer: an offscreen colour target, a point pipeline, a readback buffer */
    VkImageCreateInfo imci = { .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                               .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = { W, H, 1 }, .mipLevels = 1,
                               .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT,
                               .tiling = VK_IMAGE_TILING_OPTIMAL,
                               .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT };
    VkImage image;
    VK(vkCreateImage(dev, &imci, NULL, &image));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(dev, image, &req);
    VkDeviceMemory image_mem = bind_memory(pd, dev, req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    VK(vkBindImageMemory(dev, image, image_mem, 0));
    VkImageViewCreateInfo vci = { .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = image,
                                  .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = imci.format,
                                  .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 } };
    VkImageView view;
    VK(vkCreateImageView(dev, &vci, NULL, &view));
    VkBufferCreateInfo rbci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = 4ull * W * H,
                                .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT };
    VkBuffer readback;
    VK(vkCreateBuffer(dev, &rbci, NULL, &readback));
    vkGetBufferMemoryRequirements(dev, readback, &req);
    VkDeviceMemory readback_mem = bind_memory(pd, dev, req, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                                VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    VK(vkBindBufferMemory(dev, readback, readback_mem, 0));

    VkAttachmentDescription colour = { .format = imci.format, .samples = VK_SAMPLE_COUNT_1_BIT,
                                       .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                       .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
                                       .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
                                       .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
                                       .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL };
    VkAttachmentReference ref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
    VkSubpassDescription sub = { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .colorAttachmentCount = 1,
                                 .pColorAttachments = &ref };
    /* The last frame's copy out of the image comes before this frame's clear. */
    VkSubpassDependency deps[2] = {
        { VK_SUBPASS_EXTERNAL, 0, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
          VK_ACCESS_TRANSFER_READ_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, 0 },
        { 0, VK_SUBPASS_EXTERNAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT, 0 },
    };
    VkRenderPassCreateInfo rpci = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, .attachmentCount = 1,
                                    .pAttachments = &colour, .subpassCount = 1, .pSubpasses = &sub,
                                    .dependencyCount = 2, .pDependencies = deps };
    VkRenderPass pass;
    VK(vkCreateRenderPass(dev, &rpci, NULL, &pass));
    VkFramebufferCreateInfo fbci = { .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO, .renderPass = pass,
                                     .attachmentCount = 1, .pAttachments = &view, .width = W, .height = H,
                                     .layers = 1 };
    VkFramebuffer framebuffer;
    VK(vkCreateFramebuffer(dev, &fbci, NULL, &framebuffer));

    struct { float clip[16], size; } push;
    VkPushConstantRange range = { VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof push };
    VkPipelineLayoutCreateInfo plci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                        .pushConstantRangeCount = 1, .pPushConstantRanges = &range };
    VkPipelineLayout layout;
    VK(vkCreatePipelineLayout(dev, &plci, NULL, &layout));
    VkShaderModule vs = shader(dev, vert_spv, sizeof vert_spv), fs = shader(dev, frag_spv, sizeof frag_spv);
    VkPipelineShaderStageCreateInfo stages[2] = {
        { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
          .module = vs, .pName = "main" },
        { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
          .module = fs, .pName = "main" },
    };
    /* eddy's "position" buffer as it is: a vec4 a particle, stride 16. */
    VkVertexInputBindingDescription binding = { 0, 16, VK_VERTEX_INPUT_RATE_VERTEX };
    VkVertexInputAttributeDescription attribute = { 0, 0, VK_FORMAT_R32G32B32_SFLOAT, 0 };
    VkPipelineVertexInputStateCreateInfo vin = { .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
                                                 .vertexBindingDescriptionCount = 1,
                                                 .pVertexBindingDescriptions = &binding,
                                                 .vertexAttributeDescriptionCount = 1,
                                                 .pVertexAttributeDescriptions = &attribute };
    VkPipelineInputAssemblyStateCreateInfo ia = { .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
                                                  .topology = VK_PRIMITIVE_TOPOLOGY_POINT_LIST };
    VkViewport viewport = { 0, 0, W, H, 0, 1 };
    VkRect2D scissor = { { 0, 0 }, { W, H } };
    VkPipelineViewportStateCreateInfo vp = { .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
                                             .viewportCount = 1, .pViewports = &viewport, .scissorCount = 1,
                                             .pScissors = &scissor };
    VkPipelineRasterizationStateCreateInfo rs = { .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
                                                  .polygonMode = VK_POLYGON_MODE_FILL, .lineWidth = 1 };
    VkPipelineMultisampleStateCreateInfo ms = { .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
                                                .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT };
    VkPipelineColorBlendAttachmentState blend = { .colorWriteMask = 0xf };
    VkPipelineColorBlendStateCreateInfo cb_state = { .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
                                                     .attachmentCount = 1, .pAttachments = &blend };
    VkGraphicsPipelineCreateInfo gpci = { .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, .stageCount = 2,
                                          .pStages = stages, .pVertexInputState = &vin, .pInputAssemblyState = &ia,
                                          .pViewportState = &vp, .pRasterizationState = &rs,
                                          .pMultisampleState = &ms, .pColorBlendState = &cb_state,
                                          .layout = layout, .renderPass = pass };
    VkPipeline pipeline;
    VK(vkCreateGraphicsPipelines(dev, VK_NULL_HANDLE, 1, &gpci, NULL, &pipeline));

    /* A front view of the tank: x right, y up (Vulkan's clip y points down), z dropped. */
    double box_min[3], box_max[3];
    eddy_scene_box(scene, box_min, box_max);
    double cx = (box_min[0] + box_max[0]) / 2, cy = (box_min[1] + box_max[1]) / 2;
    double half = fmax((box_max[0] - box_min[0]) / 2 * H / W, (box_max[1] - box_min[1]) / 2) * 1.05;
    double sx = 1 / (half * W / H), sy = -1 / half;
    memset(&push, 0, sizeof push);
    push.clip[0] = (float)sx;  /* column-major: clip = M (x, y, z, 1) */
    push.clip[5] = (float)sy;
    push.clip[12] = (float)(-cx * sx);
    push.clip[13] = (float)(-cy * sy);
    push.clip[14] = 0.5f;
    push.clip[15] = 1;
    push.size = has.largePoints ? 3 : 1;

    VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = family };
    VkCommandPool pool;
    VK(vkCreateCommandPool(dev, &pci, NULL, &pool));
    VkCommandBufferAllocateInfo cai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
                                        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1 };
    VkCommandBuffer cb;
    VK(vkAllocateCommandBuffers(dev, &cai, &cb));
    VkSemaphoreTypeCreateInfo tci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                      .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE };
    VkSemaphoreCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &tci };
    VkSemaphore timeline;
    VK(vkCreateSemaphore(dev, &sci, NULL, &timeline));

    /* What the host does with eddy's buffers around the recorded steps: the
     * draw reads "position" as vertices, before (last frame) and after. */
    eddy_host_use uses[2] = { { .buffer = position, .stages = EDDY_STAGE_VERTEX_INPUT,
                                .access = EDDY_ACCESS_VERTEX_READ },
                              { .stages = 0, .access = 0 } };
    /* ---- the frames: eddy's step, then the draw, in one command buffer */
    for (uint64_t frame = 1; frame <= (uint64_t)frames; frame++) {
        VK(vkResetCommandPool(dev, pool, 0));
        VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
        VK(vkBeginCommandBuffer(cb, &bi));
        if (eddy_scene_record(scene, &(eddy_scene_record_desc){ EDDY_SIZED(eddy_scene_record_desc),
                .command_buffer = cb, .done_semaphore = timeline, .done_value = frame,
                .before = uses, .before_count = 2, .after = uses, .after_count = 2 }) != EDDY_OK)
            return 1;
        VkClearValue clear = { .color = { { 0.97f, 0.97f, 0.95f, 1 } } };
        VkRenderPassBeginInfo rbi = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO, .renderPass = pass,
                                      .framebuffer = framebuffer, .renderArea = scissor, .clearValueCount = 1,
                                      .pClearValues = &clear };
        vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
        vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof push, &push);
        vkCmdBindVertexBuffers(cb, 0, 1, &vb.buffer, &vb.offset);
        /* eddy's draw record: { particles in use, 1, 0, 0 } */
        vkCmdDrawIndirect(cb, draw.buffer, draw.offset, 1, 16);
        vkCmdEndRenderPass(cb);
        VkBufferImageCopy copy = { .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                                   .imageExtent = { W, H, 1 } };
        vkCmdCopyImageToBuffer(cb, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback, 1, &copy);
        VkMemoryBarrier to_host = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                    .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                    .dstAccessMask = VK_ACCESS_HOST_READ_BIT };
        vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0,
                             NULL, 0, NULL);
        VK(vkEndCommandBuffer(cb));
        VkTimelineSemaphoreSubmitInfo ts = { .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                             .signalSemaphoreValueCount = 1, .pSignalSemaphoreValues = &frame };
        VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .pNext = &ts, .commandBufferCount = 1,
                            .pCommandBuffers = &cb, .signalSemaphoreCount = 1, .pSignalSemaphores = &timeline };
        VK(vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE));
        VkSemaphoreWaitInfo wi = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1,
                                   .pSemaphores = &timeline, .pValues = &frame };
        VK(vkWaitSemaphores(dev, &wi, UINT64_MAX));
    }

    /* ---- the last frame against the particles it drew */
    uint8_t *rgba = malloc(4ull * W * H);
    float *x = malloc(16ull * count);
    uint8_t *near = calloc((size_t)W * H, 1);
    if (!rgba || !x || !near || eddy_buffer_download(e, position, 0, 16ull * count, x) != EDDY_OK)
        return 1;
    void *mapped;
    VK(vkMapMemory(dev, readback_mem, 0, VK_WHOLE_SIZE, 0, &mapped));
    memcpy(rgba, mapped, 4ull * W * H);
    vkUnmapMemory(dev, readback_mem);
    uint32_t in_view = 0, dark = 0, lit = 0, stray = 0;
    for (uint32_t i = 0; i < count; i++) {
        double px = ((x[4 * i] * sx + push.clip[12]) * 0.5 + 0.5) * W;
        double py = ((x[4 * i + 1] * sy + push.clip[13]) * 0.5 + 0.5) * H;
        if (px < 0 || py < 0 || px >= W || py >= H)
            continue;
        in_view++;
        const uint8_t *p = rgba + 4 * ((size_t)(int)py * W + (int)px);
        dark += p[0] > 200 && p[1] > 200 && p[2] > 200; /* the background */
        for (int dy = -2; dy <= 2; dy++)
            for (int dx = -2; dx <= 2; dx++) {
                int qx = (int)px + dx, qy = (int)py + dy;
                if (qx >= 0 && qy >= 0 && qx < W && qy < H)
                    near[(size_t)qy * W + qx] = 1;
            }
    }
    for (size_t k = 0; k < (size_t)W * H; k++) {
        bool on = !(rgba[4 * k] > 200 && rgba[4 * k + 1] > 200 && rgba[4 * k + 2] > 200);
        lit += on;
        stray += on && !near[k];
    }
    eddy_scene_info info = eddy_scene_get_info(scene);
    eddy_result wr = eddy_write_png(e, out, rgba, W, H);
    printf("eddy_host on %s: %d frames, %llu steps (t = %.3f s) of %u particles recorded into the host's command "
           "buffers and drawn from eddy's position buffer; %u of %u particles in view unlit, %u lit pixels, "
           "%u away from every particle; %s%s; %u validation messages\n",
           eddy_engine_device(e)->name, frames, (unsigned long long)info.steps_done, info.time, count, dark, in_view,
           lit, stray, wr == EDDY_OK ? "wrote " : "could not write ", out, messages);
    bool ok = wr == EDDY_OK && in_view > count / 2 && dark == 0 && stray == 0 && lit > 0 &&
              eddy_validation_message_count(e) == 0;

    /* ---- eddy first (it frees only its own), then the host's objects */
    eddy_destroy_scene(scene);
    eddy_destroy_engine(e);
    VK(vkDeviceWaitIdle(dev));
    vkDestroySemaphore(dev, timeline, NULL);
    vkDestroyCommandPool(dev, pool, NULL);
    vkDestroyPipeline(dev, pipeline, NULL);
    vkDestroyShaderModule(dev, vs, NULL);
    vkDestroyShaderModule(dev, fs, NULL);
    vkDestroyPipelineLayout(dev, layout, NULL);
    vkDestroyFramebuffer(dev, framebuffer, NULL);
    vkDestroyRenderPass(dev, pass, NULL);
    vkDestroyImageView(dev, view, NULL);
    vkDestroyImage(dev, image, NULL);
    vkFreeMemory(dev, image_mem, NULL);
    vkDestroyBuffer(dev, readback, NULL);
    vkFreeMemory(dev, readback_mem, NULL);
    vkDestroyDevice(dev, NULL);
    if (messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy =
            (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT");
        destroy(instance, messenger, NULL);
    }
    vkDestroyInstance(instance, NULL);
    free(rgba);
    free(x);
    free(near);
    return ok && messages == 0 ? 0 : 1;
}
