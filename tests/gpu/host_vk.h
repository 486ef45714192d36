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
    VkQueue queue;
    uint32_t family;   /* the first family with compute */
    uint32_t messages; /* validation warnings and errors on the host's instance */
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

static inline void host_vk_create(host_vk *h)
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
    h->family = UINT32_MAX;
    for (uint32_t i = 0; i < nf && h->family == UINT32_MAX; i++)
        if (fams[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
            h->family = i;
    REQUIRE(h->family != UINT32_MAX);
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                    .queueFamilyIndex = h->family, .queueCount = 1, .pQueuePriorities = &prio };
    VkPhysicalDeviceVulkan12Features f12 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                             .timelineSemaphore = VK_TRUE };
    VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f12,
                               .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci };
    VK(vkCreateDevice(h->pd, &dci, NULL, &h->device));
    vkGetDeviceQueue(h->device, h->family, 0, &h->queue);
}

/* The engine adopting the host's device; eddy's own messages go to test_log. */
#define HOST_VK_ADOPT(h) { .instance = (h)->instance, .physical_device = (h)->pd, .device = (h)->device, \
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
