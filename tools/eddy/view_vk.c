/* eddy view's own Vulkan: instance, device and queue (handed to eddy),
 * the swapchain or the offscreen image, the render targets and readback,
 * the pipelines (sphere impostors, surface meshes), and the teardown. */
#include "view_internal.h"

static const uint32_t sphere_vert[] =
#include "sphere.vert.spv.inc"
    ;
static const uint32_t sphere_frag[] =
#include "sphere.frag.spv.inc"
    ;
static const uint32_t mesh_vert[] =
#include "mesh.vert.spv.inc"
    ;
static const uint32_t mesh_frag[] =
#include "mesh.frag.spv.inc"
    ;

/* ------------------------------------------------------------------ Vulkan */

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT types,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    (void)types;
    if (severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) {
        ((viewer *)user)->messages++;
        fprintf(stderr, "eddy warning [validation.reported]: view: %s\n", data->pMessage);
    }
    return VK_FALSE;
}

bool view_vk_ok(VkResult r, const char *what)
{
    if (r != VK_SUCCESS)
        fprintf(stderr, "eddy error [vulkan.call]: view: %s failed (VkResult %d)\n", what, (int)r);
    return r == VK_SUCCESS;
}

bool view_memory(viewer *v, VkMemoryRequirements req, VkMemoryPropertyFlags want, VkDeviceMemory *out)
{
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(v->pd, &mp);
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
        if ((req.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) {
            VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                                        .memoryTypeIndex = i };
            return VKV(vkAllocateMemory(v->dev, &ai, NULL, out));
        }
    fprintf(stderr, "eddy error [device.unsupported]: view: no memory type with flags 0x%x\n", want);
    return false;
}

bool view_make_image(viewer *v, VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect,
                       VkImage *image, VkDeviceMemory *mem, VkImageView *view)
{
    VkImageCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                             .format = format, .extent = { v->width, v->height, 1 }, .mipLevels = 1,
                             .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
                             .usage = usage };
    if (!VKV(vkCreateImage(v->dev, &ci, NULL, image)))
        return false;
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(v->dev, *image, &req);
    if (!view_memory(v, req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, mem) || !VKV(vkBindImageMemory(v->dev, *image, *mem, 0)))
        return false;
    VkImageViewCreateInfo vci = { .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = *image,
                                  .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = format,
                                  .subresourceRange = { aspect, 0, 1, 0, 1 } };
    return VKV(vkCreateImageView(v->dev, &vci, NULL, view));
}

bool view_make_buffer(viewer *v, VkDeviceSize size, VkBufferUsageFlags usage, VkBuffer *b, VkDeviceMemory *mem,
                        void **map)
{
    VkBufferCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size, .usage = usage };
    if (!VKV(vkCreateBuffer(v->dev, &ci, NULL, b)))
        return false;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(v->dev, *b, &req);
    return view_memory(v, req, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, mem) &&
           VKV(vkBindBufferMemory(v->dev, *b, *mem, 0)) && VKV(vkMapMemory(v->dev, *mem, 0, VK_WHOLE_SIZE, 0, map));
}

bool view_make_device(viewer *v, bool windowed)
{
    const char *exts[8];
    uint32_t n_ext = 0;
#ifdef EDDY_HAVE_GLFW
    if (windowed) {
        uint32_t n = 0;
        const char **req = glfwGetRequiredInstanceExtensions(&n);
        for (uint32_t i = 0; req && i < n && n_ext < 6; i++)
            exts[n_ext++] = req[i];
    }
#endif
    if (v->o.validation)
        exts[n_ext++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    const char *layer = "VK_LAYER_KHRONOS_validation";
    VkValidationFeatureEnableEXT sync = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    VkValidationFeaturesEXT features = { .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
                                         .enabledValidationFeatureCount = 1, .pEnabledValidationFeatures = &sync };
    VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "eddy view",
                              .apiVersion = VK_API_VERSION_1_2 };
    VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                 .pNext = v->o.validation == 2 ? &features : NULL, .pApplicationInfo = &app,
                                 .enabledLayerCount = v->o.validation ? 1 : 0, .ppEnabledLayerNames = &layer,
                                 .enabledExtensionCount = n_ext, .ppEnabledExtensionNames = exts };
    if (!VKV(vkCreateInstance(&ici, NULL, &v->instance)))
        return false;
    if (v->o.validation) {
        VkDebugUtilsMessengerCreateInfoEXT mci = {
            .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
            .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
            .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
            .pfnUserCallback = on_message, .pUserData = v };
        PFN_vkCreateDebugUtilsMessengerEXT create =
            (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(v->instance, "vkCreateDebugUtilsMessengerEXT");
        if (!create || !VKV(create(v->instance, &mci, NULL, &v->messenger)))
            return false;
    }
#ifdef EDDY_HAVE_GLFW
    if (windowed && !VKV(glfwCreateWindowSurface(v->instance, v->window, NULL, &v->surface)))
        return false;
#endif
    /* The first device with a family that does graphics and compute (and
     * presents to the window). */
    VkPhysicalDevice pds[16];
    uint32_t n_pd = 16;
    VkResult er = vkEnumeratePhysicalDevices(v->instance, &n_pd, pds);
    if (er != VK_SUCCESS && er != VK_INCOMPLETE)
        return view_vk_ok(er, "vkEnumeratePhysicalDevices");
    v->family = UINT32_MAX;
    for (uint32_t d = 0; d < n_pd && v->family == UINT32_MAX; d++) {
        VkQueueFamilyProperties fams[16];
        uint32_t nf = 16;
        vkGetPhysicalDeviceQueueFamilyProperties(pds[d], &nf, fams);
        for (uint32_t i = 0; i < nf && v->family == UINT32_MAX; i++) {
            VkBool32 present = VK_TRUE;
            if (v->surface)
                vkGetPhysicalDeviceSurfaceSupportKHR(pds[d], i, v->surface, &present);
            const VkQueueFlags gc = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
            if ((fams[i].queueFlags & gc) == gc && present)
                v->pd = pds[d], v->family = i;
        }
    }
    if (v->family == UINT32_MAX) {
        fprintf(stderr, "eddy error [device.none]: view: no Vulkan device with a queue that draws, computes%s\n",
                v->surface ? " and presents to the window" : "");
        return false;
    }
    float priority = 1;
    VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = v->family,
                                    .queueCount = 1, .pQueuePriorities = &priority };
    VkPhysicalDeviceVulkan12Features f12 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                             .timelineSemaphore = VK_TRUE };
    const char *swapchain = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
    VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f12,
                               .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci,
                               .enabledExtensionCount = v->surface ? 1 : 0, .ppEnabledExtensionNames = &swapchain };
    if (!VKV(vkCreateDevice(v->pd, &dci, NULL, &v->dev)))
        return false;
    vkGetDeviceQueue(v->dev, v->family, 0, &v->queue);
    return true;
}

bool view_make_swapchain(viewer *v)
{
    VkSurfaceCapabilitiesKHR caps;
    if (!VKV(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(v->pd, v->surface, &caps)))
        return false;
    VkSurfaceFormatKHR formats[64];
    uint32_t nf = 64;
    vkGetPhysicalDeviceSurfaceFormatsKHR(v->pd, v->surface, &nf, formats);
    bool found = false;
    for (uint32_t i = 0; i < nf; i++)
        found |= formats[i].format == COLOUR_FORMAT && formats[i].colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR;
    const VkImageUsageFlags usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                    VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    if (!found || (caps.supportedUsageFlags & usage) != usage) {
        fprintf(stderr, "eddy error [device.unsupported]: view: the window's surface offers no B8G8R8A8_UNORM "
                "swapchain with colour attachment and transfer use\n");
        return false;
    }
    if (caps.currentExtent.width != UINT32_MAX)
        v->width = caps.currentExtent.width, v->height = caps.currentExtent.height;
    uint32_t count = caps.minImageCount + 1;
    if (caps.maxImageCount && count > caps.maxImageCount)
        count = caps.maxImageCount;
    VkSwapchainCreateInfoKHR sci = { .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR, .surface = v->surface,
                                     .minImageCount = count, .imageFormat = COLOUR_FORMAT,
                                     .imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR,
                                     .imageExtent = { v->width, v->height }, .imageArrayLayers = 1,
                                     .imageUsage = usage, .preTransform = caps.currentTransform,
                                     .compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
                                     .presentMode = VK_PRESENT_MODE_FIFO_KHR, .clipped = VK_TRUE };
    if (!VKV(vkCreateSwapchainKHR(v->dev, &sci, NULL, &v->swapchain)))
        return false;
    v->image_count = MAX_IMAGES;
    return VKV(vkGetSwapchainImagesKHR(v->dev, v->swapchain, &v->image_count, v->images));
}

bool view_make_targets(viewer *v)
{
    if (!v->surface) {
        v->image_count = 1;
        if (!view_make_image(v, COLOUR_FORMAT, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                        VK_IMAGE_USAGE_TRANSFER_DST_BIT, VK_IMAGE_ASPECT_COLOR_BIT, &v->offscreen, &v->offscreen_mem,
                        &v->views[0]))
            return false;
        v->images[0] = v->offscreen;
    } else {
        for (uint32_t i = 0; i < v->image_count; i++) {
            VkImageViewCreateInfo vci = { .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = v->images[i],
                                          .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = COLOUR_FORMAT,
                                          .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 } };
            if (!VKV(vkCreateImageView(v->dev, &vci, NULL, &v->views[i])))
                return false;
        }
    }
    if (!view_make_image(v, DEPTH_FORMAT, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_IMAGE_ASPECT_DEPTH_BIT, &v->depth,
                    &v->depth_mem, &v->depth_view))
        return false;
    VkSemaphoreCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO };
    for (uint32_t i = 0; i < v->image_count; i++) {
        VkImageView att[2] = { v->views[i], v->depth_view };
        VkFramebufferCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO, .renderPass = v->pass,
                                        .attachmentCount = 2, .pAttachments = att, .width = v->width,
                                        .height = v->height, .layers = 1 };
        if (!VKV(vkCreateFramebuffer(v->dev, &fci, NULL, &v->framebuffers[i])) ||
            (v->surface && !VKV(vkCreateSemaphore(v->dev, &sci, NULL, &v->rendered[i]))))
            return false;
    }
    return view_make_buffer(v, 4ull * v->width * v->height, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &v->readback,
                       &v->readback_mem, &v->readback_map) &&
           view_make_buffer(v, 4ull * v->width * BAR_MAX, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &v->bar, &v->bar_mem,
                       &v->bar_map) &&
           view_make_buffer(v, 64, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &v->tool,
                       &v->tool_mem, &v->tool_map) &&
           view_make_buffer(v, 16ull * SOLID_VERTICES_MAX, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &v->solids, &v->solids_mem,
                       &v->solids_map);
}

VkShaderModule view_shader(viewer *v, const uint32_t *code, size_t size)
{
    VkShaderModuleCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size,
                                    .pCode = code };
    VkShaderModule m = VK_NULL_HANDLE;
    VKV(vkCreateShaderModule(v->dev, &ci, NULL, &m));
    return m;
}

bool view_make_pipelines(viewer *v)
{
    VkAttachmentDescription att[2] = {
        { .format = COLOUR_FORMAT, .samples = VK_SAMPLE_COUNT_1_BIT, .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
          .storeOp = VK_ATTACHMENT_STORE_OP_STORE, .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
          .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
          .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL },
        { .format = DEPTH_FORMAT, .samples = VK_SAMPLE_COUNT_1_BIT, .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
          .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
          .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
          .finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL },
    };
    VkAttachmentReference colour = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
    VkAttachmentReference depth = { 1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL };
    VkSubpassDescription sub = { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .colorAttachmentCount = 1,
                                 .pColorAttachments = &colour, .pDepthStencilAttachment = &depth };
    /* Before: the last frame's copies out of and into the image, its depth
     * writes, and the acquire's wait (colour output). After: the text bar's
     * copy into the image. */
    const VkPipelineStageFlags frag = VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                                      VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
    VkSubpassDependency deps[2] = {
        { VK_SUBPASS_EXTERNAL, 0,
          VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT | frag,
          VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | frag,
          VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
          VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
              VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, 0 },
        { 0, VK_SUBPASS_EXTERNAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, 0 },
    };
    VkRenderPassCreateInfo rpci = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, .attachmentCount = 2,
                                    .pAttachments = att, .subpassCount = 1, .pSubpasses = &sub,
                                    .dependencyCount = 2, .pDependencies = deps };
    if (!VKV(vkCreateRenderPass(v->dev, &rpci, NULL, &v->pass)))
        return false;
    VkDescriptorSetLayoutBinding matrices = { 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT,
                                              NULL };
    VkDescriptorSetLayoutCreateInfo dslci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                              .bindingCount = 1, .pBindings = &matrices };
    VkDescriptorPoolSize pool_size = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, MAX_SETS + 1 };
    VkDescriptorPoolCreateInfo dpci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                        .maxSets = MAX_SETS + 1, .poolSizeCount = 1, .pPoolSizes = &pool_size };
    if (!VKV(vkCreateDescriptorSetLayout(v->dev, &dslci, NULL, &v->set_layout)) ||
        !VKV(vkCreateDescriptorPool(v->dev, &dpci, NULL, &v->descriptor_pool)))
        return false;
    VkDescriptorSetLayout layouts[MAX_SETS + 1];
    for (int i = 0; i <= MAX_SETS; i++)
        layouts[i] = v->set_layout;
    VkDescriptorSetAllocateInfo dsai = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                         .descriptorPool = v->descriptor_pool, .descriptorSetCount = MAX_SETS + 1,
                                         .pSetLayouts = layouts };
    VkPushConstantRange range = { VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(push_view) };
    VkPipelineLayoutCreateInfo plci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                        .setLayoutCount = 1, .pSetLayouts = &v->set_layout,
                                        .pushConstantRangeCount = 1, .pPushConstantRanges = &range };
    if (!VKV(vkAllocateDescriptorSets(v->dev, &dsai, v->descriptors)) ||
        !VKV(vkCreatePipelineLayout(v->dev, &plci, NULL, &v->layout)))
        return false;
    /* Spheres: position, velocity, phase and density, one of each per
     * instance, from the set's buffers as they are. */
    VkVertexInputBindingDescription sb[5] = { { 0, 16, VK_VERTEX_INPUT_RATE_INSTANCE },
                                              { 1, 16, VK_VERTEX_INPUT_RATE_INSTANCE },
                                              { 2, 4, VK_VERTEX_INPUT_RATE_INSTANCE },
                                              { 3, 4, VK_VERTEX_INPUT_RATE_INSTANCE },
                                              { 4, 16, VK_VERTEX_INPUT_RATE_INSTANCE } };
    VkVertexInputAttributeDescription sa[5] = { { 0, 0, VK_FORMAT_R32G32B32A32_SFLOAT, 0 },
                                                { 1, 1, VK_FORMAT_R32G32B32A32_SFLOAT, 0 },
                                                { 2, 2, VK_FORMAT_R32_UINT, 0 },
                                                { 3, 3, VK_FORMAT_R32_SFLOAT, 0 },
                                                { 4, 4, VK_FORMAT_R32G32B32A32_SFLOAT, 0 } };
    VkVertexInputBindingDescription mb = { 0, 16, VK_VERTEX_INPUT_RATE_VERTEX };
    VkPipelineVertexInputStateCreateInfo vin[2] = {
        { .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO, .vertexBindingDescriptionCount = 5,
          .pVertexBindingDescriptions = sb, .vertexAttributeDescriptionCount = 5, .pVertexAttributeDescriptions = sa },
        { .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO, .vertexBindingDescriptionCount = 1,
          .pVertexBindingDescriptions = &mb, .vertexAttributeDescriptionCount = 1, .pVertexAttributeDescriptions = sa },
    };
    VkPipelineInputAssemblyStateCreateInfo ia = { .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
                                                  .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST };
    VkPipelineViewportStateCreateInfo vp = { .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
                                             .viewportCount = 1, .scissorCount = 1 };
    VkDynamicState dyn[2] = { VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR };
    VkPipelineDynamicStateCreateInfo ds = { .sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
                                            .dynamicStateCount = 2, .pDynamicStates = dyn };
    VkPipelineRasterizationStateCreateInfo rs = { .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
                                                  .polygonMode = VK_POLYGON_MODE_FILL, .lineWidth = 1 };
    VkPipelineMultisampleStateCreateInfo ms = { .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
                                                .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT };
    VkPipelineDepthStencilStateCreateInfo dss = { .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
                                                  .depthTestEnable = VK_TRUE, .depthWriteEnable = VK_TRUE,
                                                  .depthCompareOp = VK_COMPARE_OP_LESS };
    VkPipelineColorBlendAttachmentState blend = { .colorWriteMask = 0xf };
    VkPipelineColorBlendStateCreateInfo cbs = { .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
                                                .attachmentCount = 1, .pAttachments = &blend };
    VkShaderModule mods[4] = { view_shader(v, sphere_vert, sizeof sphere_vert), view_shader(v, sphere_frag, sizeof sphere_frag),
                               view_shader(v, mesh_vert, sizeof mesh_vert), view_shader(v, mesh_frag, sizeof mesh_frag) };
    bool ok = mods[0] && mods[1] && mods[2] && mods[3];
    /* Three pipelines: spheres, spheres placed by their bodies' transforms
     * (the specialization constant BODIES), surfaces. */
    VkPipeline *out[3] = { &v->spheres, &v->bodies, &v->meshes };
    for (int p = 0; ok && p < 3; p++) {
        int m = p == 2; /* the mesh shaders for the last */
        VkBool32 bodies = p == 1;
        VkSpecializationMapEntry entry = { 0, 0, sizeof bodies };
        VkSpecializationInfo spec = { 1, &entry, sizeof bodies, &bodies };
        VkPipelineShaderStageCreateInfo st[2] = {
            { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
              .module = mods[2 * m], .pName = "main", .pSpecializationInfo = m ? NULL : &spec },
            { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
              .module = mods[2 * m + 1], .pName = "main" },
        };
        VkGraphicsPipelineCreateInfo gp = { .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, .stageCount = 2,
                                            .pStages = st, .pVertexInputState = &vin[m], .pInputAssemblyState = &ia,
                                            .pViewportState = &vp, .pRasterizationState = &rs,
                                            .pMultisampleState = &ms, .pDepthStencilState = &dss,
                                            .pColorBlendState = &cbs, .pDynamicState = &ds, .layout = v->layout,
                                            .renderPass = v->pass };
        ok = VKV(vkCreateGraphicsPipelines(v->dev, VK_NULL_HANDLE, 1, &gp, NULL, out[p]));
        if (ok && p == 2) {
            VkPipelineVertexInputStateCreateInfo none = {
                .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO };
            ok = view_volumes_pipeline(v, &none, &gp);
        }
    }
    for (int i = 0; i < 4; i++)
        vkDestroyShaderModule(v->dev, mods[i], NULL);
    return ok;
}

/* The readback (BGRA) as an RGBA PNG. */
bool view_write_png(viewer *v, const char *path)
{
    uint8_t *rgba = malloc(4ull * v->width * v->height);
    if (!rgba)
        return false;
    const uint8_t *src = v->readback_map;
    for (size_t i = 0; i < (size_t)v->width * v->height; i++) {
        rgba[4 * i] = src[4 * i + 2];
        rgba[4 * i + 1] = src[4 * i + 1];
        rgba[4 * i + 2] = src[4 * i];
        rgba[4 * i + 3] = 255;
    }
    bool ok = eddy_write_png(v->e, path, rgba, v->width, v->height) == EDDY_OK;
    free(rgba);
    return ok;
}

void view_destroy(viewer *v)
{
    if (v->dev)
        vkDeviceWaitIdle(v->dev); /* the viewer's own device: nobody else's work on it */
    eddy_destroy_scene(v->scene);
    eddy_destroy_engine(v->e);
    if (v->dev) {
        VkDevice d = v->dev;
        vkDestroyPipeline(d, v->spheres, NULL);
        vkDestroyPipeline(d, v->meshes, NULL);
        vkDestroyPipeline(d, v->bodies, NULL);
        view_volumes_destroy(v);
        vkDestroyDescriptorPool(d, v->descriptor_pool, NULL);
        vkDestroyDescriptorSetLayout(d, v->set_layout, NULL);
        vkDestroyPipelineLayout(d, v->layout, NULL);
        for (uint32_t i = 0; i < MAX_IMAGES; i++) {
            vkDestroyFramebuffer(d, v->framebuffers[i], NULL);
            vkDestroyImageView(d, v->views[i], NULL);
            vkDestroySemaphore(d, v->rendered[i], NULL);
        }
        vkDestroyRenderPass(d, v->pass, NULL);
        vkDestroyImageView(d, v->depth_view, NULL);
        vkDestroyImage(d, v->depth, NULL);
        vkDestroyImage(d, v->offscreen, NULL);
        vkDestroyBuffer(d, v->readback, NULL);
        vkDestroyBuffer(d, v->bar, NULL);
        vkDestroyBuffer(d, v->tool, NULL);
        vkDestroyBuffer(d, v->solids, NULL);
        VkDeviceMemory mems[6] = { v->depth_mem, v->offscreen_mem, v->readback_mem, v->bar_mem, v->tool_mem,
                                   v->solids_mem };
        for (int i = 0; i < 6; i++)
            vkFreeMemory(d, mems[i], NULL);
        vkDestroySemaphore(d, v->acquired, NULL);
        vkDestroySemaphore(d, v->timeline, NULL);
        vkDestroyCommandPool(d, v->pool, NULL);
        if (v->swapchain)
            vkDestroySwapchainKHR(d, v->swapchain, NULL);
        vkDestroyDevice(d, NULL);
    }
    if (v->surface)
        vkDestroySurfaceKHR(v->instance, v->surface, NULL);
    if (v->messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT fn = (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
            v->instance, "vkDestroyDebugUtilsMessengerEXT");
        fn(v->instance, v->messenger, NULL);
    }
    if (v->instance)
        vkDestroyInstance(v->instance, NULL);
#ifdef EDDY_HAVE_GLFW
    if (v->window)
        glfwDestroyWindow(v->window);
#endif
    if (v->log)
        fclose(v->log);
    free(v->events);
}
