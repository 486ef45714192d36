/* eddy.h in either order with Vulkan's headers, as a host includes both:
 * built three times, without the project's VK_NO_PROTOTYPES:
 *   EDDY_FIRST_VOLK    eddy.h, then volk.h (volk's function pointers)
 *   EDDY_FIRST_VULKAN  eddy.h, then vulkan.h with its prototypes
 *   VULKAN_FIRST       vulkan.h, then eddy.h
 * Each must compile, and eddy's handle and struct fields must take Vulkan's
 * own types and values with no conversion. Runs nothing on a device. */
#ifdef VK_NO_PROTOTYPES
#error "built without VK_NO_PROTOTYPES: the host decides"
#endif
#if defined(VULKAN_FIRST)
#include <vulkan/vulkan.h>
#include "eddy/eddy.h"
#elif defined(EDDY_FIRST_VOLK)
#include "eddy/eddy.h"
#define VOLK_IMPLEMENTATION
#include <volk.h>
#else
#include "eddy/eddy.h"
#include <vulkan/vulkan.h>
#endif

#include <stddef.h>
#include <stdio.h>

int main(void)
{
#if defined(EDDY_FIRST_VOLK)
    int loaded = volkInitialize() == VK_SUCCESS; /* volk's pointers, from the loader */
#else
    int loaded = 1;
#endif
    /* Vulkan's types go into eddy's fields and come back unchanged. */
    eddy_vk_image im = { 0 };
    VkImage image = im.image;
    VkImageView view = im.view;
    VkSampler sampler = im.sampler;
    im.format = VK_FORMAT_R32_SFLOAT;
    im.layout = VK_IMAGE_LAYOUT_GENERAL;
    VkExtent3D extent = { im.extent.width, im.extent.height, im.extent.depth };
    eddy_adopt_desc adopt = { EDDY_SIZED(eddy_adopt_desc), .get_instance_proc_addr = vkGetInstanceProcAddr };
    eddy_device_info info = { .type = VK_PHYSICAL_DEVICE_TYPE_CPU };
    eddy_record_desc rd = { EDDY_SIZED(eddy_record_desc), .command_buffer = (VkCommandBuffer)NULL, .done_semaphore = VK_NULL_HANDLE };
    eddy_vk_buffer vb = { .buffer = VK_NULL_HANDLE, .size = (VkDeviceSize)16 };
    _Static_assert(sizeof im.format == sizeof(VkFormat) && sizeof im.layout == sizeof(VkImageLayout) &&
                       sizeof im.extent == sizeof(VkExtent3D) && sizeof info.type == sizeof(VkPhysicalDeviceType),
                   "eddy's integer fields have the size of Vulkan's enums and structs");
    int ok = loaded && image == VK_NULL_HANDLE && view == VK_NULL_HANDLE && sampler == VK_NULL_HANDLE &&
             im.format == VK_FORMAT_R32_SFLOAT && im.layout == VK_IMAGE_LAYOUT_GENERAL && extent.width == 0 &&
             adopt.get_instance_proc_addr != NULL && info.type == VK_PHYSICAL_DEVICE_TYPE_CPU &&
             rd.done_semaphore == VK_NULL_HANDLE && vb.size == 16;
#if defined(EDDY_FIRST_VOLK)
    const char *order = "eddy.h, then volk.h";
    ok = ok && vkCreateInstance != NULL; /* volk's pointer, loaded */
#elif defined(VULKAN_FIRST)
    const char *order = "vulkan.h, then eddy.h";
    uint32_t version = 0;
    ok = ok && vkEnumerateInstanceVersion(&version) == VK_SUCCESS; /* the loader's prototype */
#else
    const char *order = "eddy.h, then vulkan.h";
    uint32_t version = 0;
    ok = ok && vkEnumerateInstanceVersion(&version) == VK_SUCCESS;
#endif
    printf("header order %s: %s\n", order, ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
