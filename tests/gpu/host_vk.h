/* A host's own Vulkan for the tests that play a renderer (test_adopt,
 * test_host_record): an instance with the validation layer and
 * synchronization validation, a messenger that counts and prints every
 * warning and error, and a device with one compute queue and timeline
 * semaphores, made with plain Vulkan (the loader), as a host makes them. */
#ifndef EDDY_TEST_HOST_VK_H
#define EDDY_TEST_HOST_VK_H

#include "../test.h"

#include <vulkan/vulkan.h>

#define VK(x) REQUIRE((x) == VK_SUCCESS)

typedef struct host_vk {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice pd;
    VkDevice device;
    VkQueue queue;        /* eddy's */
    uint32_t family;      /* its family */
    VkQueue gfx_queue;    /* the host's own (the same as queue unless async) */
    uint32_t gfx_family;
    const char *where;    /* async: what runs where */
    bool large_points;    /* point sizes above 1 enabled */
    uint32_t messages;    /* validation warnings and errors on the host's instance */
} host_vk;

static VKAPI_ATTR VkBool32 VKAPI_CALL host_vk_debug(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                                   VkDebugUtilsMessageTypeFlagsEXT types,
                                                   const VkDebugUtilsMessengerCallbackDataEXT *d, void *user)
{
    (void)types;
    if (sev & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) {
        ((host_vk *)user)->messages++;
        fprintf(stderr, "[host validation] %s\n", d->pMessage);
    }
    return VK_FALSE;
}

/* The device with, for async compute (`async`), a graphics queue for the
 * host (gfx_queue, gfx_family) beside eddy's compute queue (queue, family):
 * a family with compute and no graphics where there is one, else a second
 * queue of the graphics family, else the graphics queue itself (lavapipe:
 * one family, one queue). Without `async` both are the first compute
 * family's first queue. `where` says which. */
static inline void host_vk_create_for(host_vk *h, bool async)
{
    *h = (host_vk){ 0 };
    const char *layer = "VK_LAYER_KHRONOS_validation";
    const char *ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkValidationFeatureEnableEXT en = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    VkValidationFeaturesEXT vf = { .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
                                   .enabledValidationFeatureCount = 1, .pEnabledValidationFeatures = &en };
    VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_2 };
    VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pNext = &vf,
                                 .pApplicationInfo = &app, .enabledLayerCount = 1, .ppEnabledLayerNames = &layer,
                                 .enabledExtensionCount = 1, .ppEnabledExtensionNames = &ext };
    VK(vkCreateInstance(&ici, NULL, &h->instance));
    PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
        (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(h->instance, "vkCreateDebugUtilsMessengerEXT");
    REQUIRE(create_messenger);
    VkDebugUtilsMessengerCreateInfoEXT mci = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
        .pfnUserCallback = host_vk_debug, .pUserData = h };
    VK(create_messenger(h->instance, &mci, NULL, &h->messenger));

    uint32_t n = 1;
    VkResult er = vkEnumeratePhysicalDevices(h->instance, &n, &h->pd);
    REQUIRE((er == VK_SUCCESS || er == VK_INCOMPLETE) && n >= 1);
    uint32_t nf = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(h->pd, &nf, NULL);
    VkQueueFamilyProperties fams[16];
    nf = nf > 16 ? 16 : nf;
    vkGetPhysicalDeviceQueueFamilyProperties(h->pd, &nf, fams);
    h->family = h->gfx_family = UINT32_MAX;
    const VkQueueFlags gc = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
    for (uint32_t i = 0; i < nf; i++) {
        if (h->gfx_family == UINT32_MAX && (fams[i].queueFlags & (async ? gc : VK_QUEUE_COMPUTE_BIT)) ==
                                               (async ? gc : VK_QUEUE_COMPUTE_BIT))
            h->gfx_family = i;
        if (async && h->family == UINT32_MAX && (fams[i].queueFlags & gc) == VK_QUEUE_COMPUTE_BIT)
            h->family = i;
    }
    REQUIRE(h->gfx_family != UINT32_MAX);
    uint32_t second = 0; /* eddy's queue index in the graphics family */
    if (h->family != UINT32_MAX)
        h->where = "eddy on a compute-only family, the host on a graphics family (concurrent sharing)";
    else if (async && fams[h->gfx_family].queueCount > 1)
        h->family = h->gfx_family, second = 1, h->where = "eddy and the host on two queues of one family";
    else
        h->family = h->gfx_family, h->where = "eddy and the host on one queue (the device has one)";
    float prio[2] = { 1.0f, 1.0f };
    VkDeviceQueueCreateInfo qci[2] = {
        { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = h->gfx_family,
          .queueCount = 1 + second, .pQueuePriorities = prio },
        { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = h->family, .queueCount = 1,
          .pQueuePriorities = prio },
    };
    VkPhysicalDeviceFeatures has;
    vkGetPhysicalDeviceFeatures(h->pd, &has);
    VkPhysicalDeviceFeatures want = { .largePoints = has.largePoints };
    h->large_points = has.largePoints;
    VkPhysicalDeviceVulkan12Features f12 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                             .timelineSemaphore = VK_TRUE };
    VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f12,
                               .queueCreateInfoCount = h->family != h->gfx_family ? 2 : 1,
                               .pQueueCreateInfos = qci, .pEnabledFeatures = &want };
    VK(vkCreateDevice(h->pd, &dci, NULL, &h->device));
    vkGetDeviceQueue(h->device, h->gfx_family, 0, &h->gfx_queue);
    vkGetDeviceQueue(h->device, h->family, second, &h->queue);
}

static inline void host_vk_create(host_vk *h)
{
    host_vk_create_for(h, false);
}

/* The engine adopting the host's device (an eddy_adopt_desc initializer);
 * eddy's own messages go to test_log. */
#define HOST_VK_ADOPT(h) { EDDY_SIZED(eddy_adopt_desc), .instance = (h)->instance, .physical_device = (h)->pd, .device = (h)->device, \
                           .queue = (h)->queue, .queue_family = (h)->family,                          \
                           .get_instance_proc_addr = vkGetInstanceProcAddr,                          \
                           .api_version = VK_API_VERSION_1_2, .debug_utils_enabled = true,           \
                           .log_validation = true }

static inline void host_vk_destroy(host_vk *h)
{
    VK(vkDeviceWaitIdle(h->device));
    vkDestroyDevice(h->device, NULL);
    PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger =
        (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(h->instance, "vkDestroyDebugUtilsMessengerEXT");
    destroy_messenger(h->instance, h->messenger, NULL);
    vkDestroyInstance(h->instance, NULL);
}

#endif
