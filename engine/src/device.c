/* Instance and device: created by eddy or adopted from a host renderer. */
#include "internal.h"

#include <ctype.h>
#include <pthread.h>
#include <strings.h>

/* volk keeps one global set of loader and instance functions, which every
 * engine's creation and eddy_enumerate_devices load for their instance:
 * those sections hold this lock, and an engine keeps its own tables (vk,
 * vki) for everything after creation, so engines (own and adopted, on
 * different loaders) run side by side. */
static pthread_mutex_t volk_lock = PTHREAD_MUTEX_INITIALIZER;
static PFN_vkGetInstanceProcAddr loader_gipa; /* libvulkan's, from volkInitialize */

static const char *validation_layer = "VK_LAYER_KHRONOS_validation";

static void log_from(eddy_engine *e, eddy_log_level level, const char *source, const char *id,
                     const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    eddy_logv(e, level, source, id, fmt, ap);
    va_end(ap);
}

static VKAPI_ATTR VkBool32 VKAPI_CALL debug_callback(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    (void)types;
    eddy_engine *e = user;
    /* On a host's instance only the messages about eddy's own objects are
     * eddy's (eddy_set_name's prefix); the host's messenger has the rest. */
    if (e->adopted) {
        bool ours = false;
        for (uint32_t k = 0; data && k < data->objectCount && !ours; k++)
            ours = data->pObjects[k].pObjectName &&
                   !strncmp(data->pObjects[k].pObjectName, EDDY_OBJECT_NAME_PREFIX, strlen(EDDY_OBJECT_NAME_PREFIX));
        if (!ours)
            return VK_FALSE;
    }
    eddy_log_level level = EDDY_LOG_DEBUG;
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)
        level = EDDY_LOG_ERROR;
    else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT)
        level = EDDY_LOG_WARN;
    else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT)
        level = EDDY_LOG_DEBUG;
    if (level >= EDDY_LOG_WARN)
        __atomic_add_fetch(&e->validation_messages, 1, __ATOMIC_SEQ_CST);
    const char *id = data && data->pMessageIdName && *data->pMessageIdName ? data->pMessageIdName
                                                                           : "vulkan.message";
    log_from(e, level, "vulkan", id, "%s", data && data->pMessage ? data->pMessage : "(no text)");
    return VK_FALSE;
}

static eddy_validation validation_from_env(void)
{
    const char *v = getenv("EDDY_VALIDATION");
    if (!v || !*v || !strcasecmp(v, "off") || !strcmp(v, "0"))
        return EDDY_VALIDATION_OFF;
    if (!strcasecmp(v, "sync"))
        return EDDY_VALIDATION_SYNC;
    return EDDY_VALIDATION_ON;
}

static bool has_instance_layer(const char *name)
{
    uint32_t n = 0;
    if (vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS || n == 0)
        return false;
    VkLayerProperties *props = calloc(n, sizeof *props);
    bool found = false;
    if (props && vkEnumerateInstanceLayerProperties(&n, props) == VK_SUCCESS)
        for (uint32_t i = 0; i < n; i++)
            found |= !strcmp(props[i].layerName, name);
    free(props);
    return found;
}

static bool has_instance_extension(const char *name)
{
    uint32_t n = 0;
    if (vkEnumerateInstanceExtensionProperties(NULL, &n, NULL) != VK_SUCCESS || n == 0)
        return false;
    VkExtensionProperties *props = calloc(n, sizeof *props);
    bool found = false;
    if (props && vkEnumerateInstanceExtensionProperties(NULL, &n, props) == VK_SUCCESS)
        for (uint32_t i = 0; i < n; i++)
            found |= !strcmp(props[i].extensionName, name);
    free(props);
    return found;
}

static bool has_device_extension(VkPhysicalDevice pd, const char *name)
{
    uint32_t n = 0;
    if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS || n == 0)
        return false;
    VkExtensionProperties *props = calloc(n, sizeof *props);
    bool found = false;
    if (props && vkEnumerateDeviceExtensionProperties(pd, NULL, &n, props) == VK_SUCCESS)
        for (uint32_t i = 0; i < n; i++)
            found |= !strcmp(props[i].extensionName, name);
    free(props);
    return found;
}

/* The first queue family with compute, preferring one with timestamps. */
static int compute_family(VkPhysicalDevice pd, uint32_t *timestamp_bits)
{
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, NULL);
    VkQueueFamilyProperties *props = calloc(n ? n : 1, sizeof *props);
    if (!props)
        return -1;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, props);
    int best = -1;
    for (uint32_t i = 0; i < n; i++) {
        if (!(props[i].queueFlags & VK_QUEUE_COMPUTE_BIT))
            continue;
        if (best < 0 || (props[best].timestampValidBits == 0 && props[i].timestampValidBits))
            best = (int)i;
    }
    if (best >= 0 && timestamp_bits)
        *timestamp_bits = props[best].timestampValidBits;
    free(props);
    return best;
}

static void fill_info(VkPhysicalDevice pd, uint32_t index, eddy_device_info *info)
{
    VkPhysicalDeviceSubgroupProperties sub = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES,
    };
    VkPhysicalDeviceProperties2 p2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
        .pNext = &sub,
    };
    vkGetPhysicalDeviceProperties2(pd, &p2);
    const VkPhysicalDeviceProperties *p = &p2.properties;
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "%s", p->deviceName);
    info->index = index;
    info->type = p->deviceType;
    info->api_version = p->apiVersion;
    info->vendor_id = p->vendorID;
    info->device_id = p->deviceID;
    info->max_storage_buffer_range = p->limits.maxStorageBufferRange;
    info->max_texel_buffer_elements = p->limits.maxTexelBufferElements;
    info->subgroup_size = sub.subgroupSize;
    info->subgroup_arithmetic =
        (sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
        (sub.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) &&
        (sub.supportedOperations & VK_SUBGROUP_FEATURE_BASIC_BIT);
    info->max_workgroup_invocations = p->limits.maxComputeWorkGroupInvocations;
    info->max_push_constants = p->limits.maxPushConstantsSize;
    for (int i = 0; i < 3; i++)
        info->max_workgroup_count[i] = p->limits.maxComputeWorkGroupCount[i];
    uint32_t bits = 0;
    compute_family(pd, &bits);
    info->timestamp_period_ns = bits ? p->limits.timestampPeriod : 0.0f;
    VkPhysicalDeviceMemoryProperties mem;
    vkGetPhysicalDeviceMemoryProperties(pd, &mem);
    for (uint32_t i = 0; i < mem.memoryHeapCount; i++)
        if ((mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) &&
            mem.memoryHeaps[i].size > info->device_local_bytes)
            info->device_local_bytes = mem.memoryHeaps[i].size;
}

static int type_rank(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
    default: return 0;
    }
}

/* With volk_lock held: volk's globals for the system loader. */
static VkResult load_vulkan(void)
{
    static int state; /* 0 untried, 1 ok, -1 failed */
    if (state == 0) {
        state = volkInitialize() == VK_SUCCESS ? 1 : -1;
        if (state == 1)
            loader_gipa = vkGetInstanceProcAddr;
    }
    if (state != 1)
        return VK_ERROR_INITIALIZATION_FAILED;
    volkInitializeCustom(loader_gipa); /* an adopted engine may have set another */
    return VK_SUCCESS;
}

/* This engine's tables, from its own instance (volk_lock held, volk's
 * globals loaded for that instance). */
static void load_tables(eddy_engine *e, PFN_vkGetInstanceProcAddr gipa)
{
#define INSTANCE_FN(name) e->vki.name = (PFN_##name)gipa(e->instance, #name)
    INSTANCE_FN(vkGetPhysicalDeviceMemoryProperties2);
    INSTANCE_FN(vkSetDebugUtilsObjectNameEXT);
    INSTANCE_FN(vkDestroyDebugUtilsMessengerEXT);
    INSTANCE_FN(vkDestroyInstance);
    INSTANCE_FN(vkGetPhysicalDeviceFormatProperties);
    INSTANCE_FN(vkGetPhysicalDeviceProperties);
#undef INSTANCE_FN
}

static VkResult create_instance(bool validation, bool sync, bool debug_utils, VkInstance *out)
{
    const char *exts[2];
    uint32_t ext_count = 0;
    if (debug_utils)
        exts[ext_count++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "eddy",
        .pEngineName = "eddy",
        .engineVersion = VK_MAKE_VERSION(EDDY_VERSION_MAJOR, EDDY_VERSION_MINOR,
                                         EDDY_VERSION_PATCH),
        .apiVersion = VK_API_VERSION_1_2,
    };
    VkValidationFeatureEnableEXT enables[] = {
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT,
    };
    VkValidationFeaturesEXT features = {
        .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
        .enabledValidationFeatureCount = 1,
        .pEnabledValidationFeatures = enables,
    };
    VkInstanceCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = validation && sync ? &features : NULL,
        .pApplicationInfo = &app,
        .enabledLayerCount = validation ? 1 : 0,
        .ppEnabledLayerNames = &validation_layer,
        .enabledExtensionCount = ext_count,
        .ppEnabledExtensionNames = exts,
    };
    return vkCreateInstance(&ci, NULL, out);
}

static int enumerate_devices(eddy_device_info *out, int max)
{
    if (load_vulkan() != VK_SUCCESS) {
        fprintf(stderr, "eddy error [device.no_vulkan]: the Vulkan loader (libvulkan.so.1) was not found; "
                        "install libvulkan1 and a driver (mesa-vulkan-drivers for lavapipe)\n");
        return -1;
    }
    VkInstance instance;
    VkResult r = create_instance(false, false, false, &instance);
    if (r != VK_SUCCESS) {
        fprintf(stderr, "eddy error [vulkan.call]: vkCreateInstance failed: %s\n", eddy_vk_result_string(r));
        return -1;
    }
    volkLoadInstanceOnly(instance);
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(instance, &n, NULL);
    VkPhysicalDevice *pds = calloc(n ? n : 1, sizeof *pds);
    if (pds)
        vkEnumeratePhysicalDevices(instance, &n, pds);
    for (uint32_t i = 0; pds && i < n && (int)i < max; i++)
        fill_info(pds[i], i, &out[i]);
    free(pds);
    vkDestroyInstance(instance, NULL);
    return (int)n;
}

int eddy_enumerate_devices(eddy_device_info *out, int max)
{
    pthread_mutex_lock(&volk_lock);
    int n = enumerate_devices(out, max);
    pthread_mutex_unlock(&volk_lock);
    return n;
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

static bool contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (!strncasecmp(hay, needle, n))
            return true;
    return false;
}

static eddy_result pick_device(eddy_engine *e, const char *want)
{
    uint32_t n = 0;
    VkResult r = vkEnumeratePhysicalDevices(e->instance, &n, NULL);
    if (r != VK_SUCCESS)
        return eddy_vk_fail(e, r, "vkEnumeratePhysicalDevices");
    if (n == 0) {
        eddy_log(e, EDDY_LOG_ERROR, "device.none", "no Vulkan device found; install mesa-vulkan-drivers "
                                    "for lavapipe (a CPU device) or a GPU driver");
        return EDDY_ERROR_NOT_FOUND;
    }
    VkPhysicalDevice *pds = calloc(n, sizeof *pds);
    if (!pds)
        return EDDY_ERROR_OUT_OF_MEMORY;
    vkEnumeratePhysicalDevices(e->instance, &n, pds);
    int chosen = -1, best_rank = -1;
    for (uint32_t i = 0; i < n; i++) {
        eddy_device_info info;
        fill_info(pds[i], i, &info);
        bool usable = info.api_version >= VK_API_VERSION_1_2 && compute_family(pds[i], NULL) >= 0;
        if (want && *want) {
            bool match = all_digits(want) ? strtoul(want, NULL, 10) == i
                                          : contains_nocase(info.name, want);
            if (match && !usable) {
                eddy_log(e, EDDY_LOG_ERROR,
                         "device.unsupported", "device %u '%s' matches '%s' but lacks Vulkan 1.2 or a compute queue",
                         i, info.name, want);
                free(pds);
                return EDDY_ERROR_UNSUPPORTED;
            }
            if (match) {
                chosen = (int)i;
                break;
            }
        } else if (usable && type_rank(info.type) > best_rank) {
            best_rank = type_rank(info.type);
            chosen = (int)i;
        }
    }
    if (chosen < 0) {
        if (want && *want)
            eddy_log(e, EDDY_LOG_ERROR,
                     "device.none", "no Vulkan device matches '%s' (an index 0..%u or part of a name; "
                     "`eddy devices` lists them)", want, n - 1);
        else
            eddy_log(e, EDDY_LOG_ERROR, "device.none", "no Vulkan 1.2 device with a compute queue found");
        free(pds);
        return EDDY_ERROR_NOT_FOUND;
    }
    e->physical_device = pds[chosen];
    fill_info(pds[chosen], (uint32_t)chosen, &e->info);
    free(pds);
    return EDDY_OK;
}

static eddy_result create_device(eddy_engine *e)
{
    int family = compute_family(e->physical_device, NULL);
    e->queue_family = (uint32_t)family;
    float priority = 1.0f;
    VkDeviceQueueCreateInfo q = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = e->queue_family,
        .queueCount = 1,
        .pQueuePriorities = &priority,
    };
    VkPhysicalDeviceVulkan12Features have12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
    };
    VkPhysicalDeviceFeatures2 have = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
        .pNext = &have12,
    };
    vkGetPhysicalDeviceFeatures2(e->physical_device, &have);
    if (!have12.timelineSemaphore) {
        eddy_log(e, EDDY_LOG_ERROR, "device.unsupported", "device '%s' lacks timeline semaphores (Vulkan 1.2)",
                 e->info.name);
        return EDDY_ERROR_UNSUPPORTED;
    }
    /* Enable what later modules' shaders may use, where the device has it. */
    VkPhysicalDeviceVulkan12Features want12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
        .timelineSemaphore = VK_TRUE,
        .scalarBlockLayout = have12.scalarBlockLayout,
        .shaderFloat16 = have12.shaderFloat16,
        .shaderInt8 = have12.shaderInt8,
        .storageBuffer8BitAccess = have12.storageBuffer8BitAccess,
        .shaderBufferInt64Atomics = have12.shaderBufferInt64Atomics,
        .hostQueryReset = have12.hostQueryReset,
    };
    VkPhysicalDeviceFeatures2 want = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
        .pNext = &want12,
        .features = {
            .shaderInt64 = have.features.shaderInt64,
            .shaderFloat64 = have.features.shaderFloat64,
            .shaderInt16 = have.features.shaderInt16,
        },
    };
    const char *exts[1];
    uint32_t ext_count = 0;
    if (has_device_extension(e->physical_device, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME)) {
        exts[ext_count++] = VK_EXT_MEMORY_BUDGET_EXTENSION_NAME;
        e->has_memory_budget = true;
    }
    VkDeviceCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = &want,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &q,
        .enabledExtensionCount = ext_count,
        .ppEnabledExtensionNames = exts,
    };
    VkResult r = vkCreateDevice(e->physical_device, &ci, NULL, &e->device);
    if (r != VK_SUCCESS)
        return eddy_vk_fail(e, r, "vkCreateDevice");
    return EDDY_OK;
}

static eddy_result create_engine_objects(eddy_engine *e)
{
    volkLoadDeviceTable(&e->vk, e->device);
    if (!e->adopted)
        e->vk.vkGetDeviceQueue(e->device, e->queue_family, 0, &e->queue);
    vkGetPhysicalDeviceMemoryProperties(e->physical_device, &e->memory);
    VkPhysicalDeviceMaintenance3Properties m3 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES,
    };
    VkPhysicalDeviceProperties2 p2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
        .pNext = &m3,
    };
    vkGetPhysicalDeviceProperties2(e->physical_device, &p2);
    e->max_allocation = m3.maxMemoryAllocationSize;
    compute_family(e->physical_device, &e->timestamp_bits);
    /* Barriers may name graphics stages only on a queue that has them. */
    uint32_t nf = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(e->physical_device, &nf, NULL);
    VkQueueFamilyProperties *fams = calloc(nf ? nf : 1, sizeof *fams);
    if (fams) {
        vkGetPhysicalDeviceQueueFamilyProperties(e->physical_device, &nf, fams);
        e->queue_graphics = e->queue_family < nf && (fams[e->queue_family].queueFlags & VK_QUEUE_GRAPHICS_BIT);
        free(fams);
    }

    VkCommandPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
        .queueFamilyIndex = e->queue_family,
    };
    VkResult r = e->vk.vkCreateCommandPool(e->device, &pci, NULL, &e->command_pool);
    if (r != VK_SUCCESS)
        return eddy_vk_fail(e, r, "vkCreateCommandPool");
    VkCommandBufferAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = e->command_pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    r = e->vk.vkAllocateCommandBuffers(e->device, &ai, &e->transfer_cb);
    if (r != VK_SUCCESS)
        return eddy_vk_fail(e, r, "vkAllocateCommandBuffers");
    VkSemaphoreTypeCreateInfo tci = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
        .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
    };
    VkSemaphoreCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &tci };
    r = e->vk.vkCreateSemaphore(e->device, &sci, NULL, &e->timeline);
    if (r != VK_SUCCESS)
        return eddy_vk_fail(e, r, "vkCreateSemaphore (timeline)");
    eddy_set_name(e, VK_OBJECT_TYPE_SEMAPHORE, (uint64_t)e->timeline, "eddy.timeline");
    return EDDY_OK;
}

static eddy_result init_own_device(eddy_engine *e, const eddy_engine_desc *desc)
{
    if (load_vulkan() != VK_SUCCESS) {
        eddy_log(e, EDDY_LOG_ERROR, "device.no_vulkan", "the Vulkan loader (libvulkan.so.1) was not found; install "
                                    "libvulkan1 and a driver (mesa-vulkan-drivers for lavapipe)");
        return EDDY_ERROR_UNSUPPORTED;
    }
    bool validation = e->validation >= EDDY_VALIDATION_ON;
    if (validation && !has_instance_layer(validation_layer)) {
        eddy_log(e, EDDY_LOG_ERROR, "validation.unavailable", "validation was asked for but %s is not installed "
                                    "(Debian: apt-get install vulkan-validationlayers)",
                 validation_layer);
        return EDDY_ERROR_UNSUPPORTED;
    }
    e->debug_utils = has_instance_extension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    VkResult r = create_instance(validation, e->validation == EDDY_VALIDATION_SYNC,
                                 e->debug_utils, &e->instance);
    if (r != VK_SUCCESS)
        return eddy_vk_fail(e, r, "vkCreateInstance");
    volkLoadInstanceOnly(e->instance);
    load_tables(e, loader_gipa);
    const char *want = desc->device;
    if (!want || !*want)
        want = getenv("EDDY_DEVICE");
    eddy_result res = pick_device(e, want);
    if (res != EDDY_OK)
        return res;
    return create_device(e);
}

static eddy_result init_adopted(eddy_engine *e, const eddy_adopt_desc *a)
{
    if (!a->instance || !a->physical_device || !a->get_instance_proc_addr || !a->queue) {
        eddy_log(e, EDDY_LOG_ERROR, "adopt.invalid", "adopting a device needs adopt.instance, "
                                    "adopt.physical_device, adopt.device, adopt.queue and "
                                    "adopt.get_instance_proc_addr (one is missing)");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (a->api_version && a->api_version < VK_API_VERSION_1_2) {
        eddy_log(e, EDDY_LOG_ERROR, "adopt.invalid", "adopted instance has Vulkan %u.%u; eddy needs 1.2",
                 VK_API_VERSION_MAJOR(a->api_version), VK_API_VERSION_MINOR(a->api_version));
        return EDDY_ERROR_UNSUPPORTED;
    }
    e->adopted = true;
    e->instance = a->instance;
    e->physical_device = a->physical_device;
    e->device = a->device;
    e->queue_family = a->queue_family;
    e->queue = a->queue;
    e->debug_utils = a->debug_utils_enabled;
    volkInitializeCustom(a->get_instance_proc_addr);
    volkLoadInstanceOnly(a->instance);
    load_tables(e, a->get_instance_proc_addr);
    /* The family is the host's word: eddy records compute work and sizes its
     * command pool by it, so check it names a family with compute. */
    uint32_t nf = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(a->physical_device, &nf, NULL);
    VkQueueFamilyProperties fam[64];
    uint32_t got = nf < 64 ? nf : 64;
    vkGetPhysicalDeviceQueueFamilyProperties(a->physical_device, &got, fam);
    if (a->queue_family >= nf) {
        eddy_log(e, EDDY_LOG_ERROR, "adopt.invalid", "adopt.queue_family is %u; expected the family of "
                 "adopt.queue, below the device's %u queue families", a->queue_family, nf);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (a->queue_family < got && !(fam[a->queue_family].queueFlags & VK_QUEUE_COMPUTE_BIT)) {
        eddy_log(e, EDDY_LOG_ERROR, "adopt.invalid", "adopt.queue_family %u has no compute (flags 0x%x); "
                 "expected a family with VK_QUEUE_COMPUTE_BIT", a->queue_family,
                 (unsigned)fam[a->queue_family].queueFlags);
        return EDDY_ERROR_UNSUPPORTED;
    }
    if (a->share_family_count > EDDY_SHARE_FAMILIES_MAX || (a->share_family_count && !a->share_families)) {
        eddy_log(e, EDDY_LOG_ERROR, "adopt.invalid", "adopt.share_family_count is %u%s; expected at most "
                 "EDDY_SHARE_FAMILIES_MAX (8) families in adopt.share_families", a->share_family_count,
                 a->share_families ? "" : " with no share_families");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    e->share_families[0] = a->queue_family;
    e->share_count = 1;
    for (uint32_t i = 0; i < a->share_family_count; i++) {
        uint32_t f = a->share_families[i];
        if (f >= nf) {
            eddy_log(e, EDDY_LOG_ERROR, "adopt.invalid", "adopt.share_families[%u] is %u; expected a queue family "
                     "below the device's %u", i, f, nf);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        bool seen = false;
        for (uint32_t k = 0; k < e->share_count; k++)
            seen |= e->share_families[k] == f;
        if (!seen)
            e->share_families[e->share_count++] = f;
    }
    /* Find the adopted device's index so `info.index` means the same as elsewhere. */
    uint32_t n = 0, index = 0;
    vkEnumeratePhysicalDevices(a->instance, &n, NULL);
    VkPhysicalDevice *pds = calloc(n ? n : 1, sizeof *pds);
    if (pds && vkEnumeratePhysicalDevices(a->instance, &n, pds) == VK_SUCCESS)
        for (uint32_t i = 0; i < n; i++)
            if (pds[i] == a->physical_device)
                index = i;
    free(pds);
    fill_info(a->physical_device, index, &e->info);
    e->info.adopted = true;
    return EDDY_OK;
}

eddy_engine *eddy_create_engine(const eddy_engine_desc *desc_in)
{
    /* NULL: the defaults. No engine yet, so a refusal goes to stderr. */
    eddy_engine_desc desc = { EDDY_SIZED(eddy_engine_desc) };
    if (desc_in && eddy_desc_read(NULL, "eddy_engine_desc", desc_in, sizeof desc, sizeof desc, &desc) != EDDY_OK)
        return NULL;
    eddy_engine *e = calloc(1, sizeof *e);
    if (!e) {
        fprintf(stderr, "eddy error [memory.host]: out of host memory creating the engine\n");
        return NULL;
    }
    e->log = desc.log;
    e->log_user = desc.log_user;
    e->verbose = desc.verbose;
    e->pipelines_keep = desc.kept_pipelines == EDDY_KEEP_NO_PIPELINES ? 0
                        : desc.kept_pipelines ? desc.kept_pipelines : 64;
    const char *fs = getenv("EDDY_FORCE_STAGING");
    e->force_staging = fs && *fs && strcmp(fs, "0") != 0;
    e->validation = desc.validation ? desc.validation : validation_from_env();
    e->buffers = EDDY_POOL(eddy_buffer_obj);
    e->kernels = EDDY_POOL(eddy_kernel_obj);
    e->graphs = EDDY_POOL(eddy_graph_obj);
    e->particles = EDDY_POOL(eddy_particles_obj);
    e->images = EDDY_POOL(eddy_image_obj);

    /* The host's device, when it hands one: a sized struct of its own, so
     * that it may grow without moving the engine desc's fields. */
    eddy_adopt_desc adopt = { EDDY_SIZED(eddy_adopt_desc) };
    if (desc.adopt && eddy_desc_read(e, "eddy_adopt_desc", desc.adopt, sizeof adopt, sizeof adopt, &adopt) != EDDY_OK) {
        eddy_destroy_engine(e);
        return NULL;
    }
    /* Until the engine has its own tables, volk's globals are this engine's. */
    pthread_mutex_lock(&volk_lock);
    eddy_result r = desc.adopt ? init_adopted(e, &adopt) : init_own_device(e, &desc);
    /* The messenger exists only where a validation layer may speak: eddy's own
     * instance with validation on, or a host instance with debug utils whose
     * host asks for eddy's messages in eddy's log (else its own messenger
     * delivers each message once). */
    if (r == EDDY_OK && e->debug_utils &&
        (e->adopted ? adopt.log_validation : e->validation >= EDDY_VALIDATION_ON)) {
        VkDebugUtilsMessengerCreateInfoEXT mci = {
            .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
            .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
            .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
            .pfnUserCallback = debug_callback,
            .pUserData = e,
        };
        if (vkCreateDebugUtilsMessengerEXT &&
            vkCreateDebugUtilsMessengerEXT(e->instance, &mci, NULL, &e->messenger) != VK_SUCCESS)
            e->messenger = VK_NULL_HANDLE;
    }
    if (r == EDDY_OK)
        r = create_engine_objects(e);
    if (r == EDDY_OK)
        r = eddy_pipeline_cache_open(e, desc.pipeline_cache_dir);
    pthread_mutex_unlock(&volk_lock);
    if (r == EDDY_OK)
        r = eddy_rings_create(e);
    if (r != EDDY_OK) {
        eddy_destroy_engine(e);
        return NULL;
    }
    eddy_log(e, EDDY_LOG_DEBUG, "device.chosen", "device %u: %s%s (validation %s)", e->info.index, e->info.name,
             e->adopted ? ", adopted" : "",
             e->validation == EDDY_VALIDATION_SYNC ? "with synchronization"
             : e->validation == EDDY_VALIDATION_ON ? "on" : "off");
    return e;
}

eddy_result eddy_engine_on_destroy(eddy_engine *e, eddy_engine_teardown_fn fn, void *user)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    if (!fn) {
        eddy_log(e, EDDY_LOG_ERROR, "api.null", "eddy_engine_on_destroy: fn is NULL");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    eddy_engine_forget(e, user);
    if (e->teardown_count == e->teardown_cap) {
        uint32_t cap = e->teardown_cap ? 2 * e->teardown_cap : 8;
        void *grown = realloc(e->teardowns, cap * sizeof *e->teardowns);
        if (!grown) {
            eddy_log(e, EDDY_LOG_ERROR, "memory.host", "eddy_engine_on_destroy: out of host memory");
            return EDDY_ERROR_OUT_OF_MEMORY;
        }
        e->teardowns = grown;
        e->teardown_cap = cap;
    }
    e->teardowns[e->teardown_count].fn = fn;
    e->teardowns[e->teardown_count++].user = user;
    return EDDY_OK;
}

void eddy_engine_forget(eddy_engine *e, void *user)
{
    EDDY_ENGINE_GUARD(e, return);
    for (uint32_t i = 0; i < e->teardown_count; i++)
        if (e->teardowns[i].user == user) {
            memmove(&e->teardowns[i], &e->teardowns[i + 1], (e->teardown_count - i - 1) * sizeof *e->teardowns);
            e->teardown_count--;
            return;
        }
}

void eddy_destroy_engine(eddy_engine *e)
{
    if (!e)
        return;
    /* Those who keep objects of the engine let go first, newest first; each
     * may still call the engine (and may forget others). */
    while (e->teardown_count) {
        uint32_t last = --e->teardown_count;
        e->teardowns[last].fn(e->teardowns[last].user);
    }
    free(e->teardowns);
    e->teardowns = NULL;
    if (e->device && e->vk.vkDestroyCommandPool) {
        /* Eddy's own work (its timeline) and the host recordings it was told
         * of, never the whole queue: an adopted one carries the host's work. */
        eddy_release_deferred(e);
        eddy_destroy_all_graphs(e);
        eddy_destroy_all_particles(e);
        eddy_destroy_all_kernels(e);
        eddy_destroy_all_buffers(e);
        eddy_destroy_all_images(e);
        eddy_release_deferred(e);
        eddy_rings_destroy(e);
        eddy_mem_release_all(e);
        eddy_pipeline_cache_close(e);
        if (e->timeline)
            e->vk.vkDestroySemaphore(e->device, e->timeline, NULL);
        if (e->command_pool)
            e->vk.vkDestroyCommandPool(e->device, e->command_pool, NULL);
    }
    eddy_release_modules(e);
    eddy_release_prims(e);
    eddy_release_shaderc(e);
    eddy_pool_release(&e->buffers);
    eddy_pool_release(&e->kernels);
    eddy_pool_release(&e->graphs);
    eddy_pool_release(&e->particles);
    eddy_pool_release(&e->images);
    if (e->messenger && e->vki.vkDestroyDebugUtilsMessengerEXT)
        e->vki.vkDestroyDebugUtilsMessengerEXT(e->instance, e->messenger, NULL);
    if (!e->adopted) {
        if (e->device)
            e->vk.vkDestroyDevice(e->device, NULL);
        if (e->instance && e->vki.vkDestroyInstance)
            e->vki.vkDestroyInstance(e->instance, NULL);
    }
    free(e);
}

const eddy_device_info *eddy_engine_device(const eddy_engine *e)
{
    EDDY_ENGINE_GUARD(e, return NULL);
    return &e->info;
}

eddy_vk_objects eddy_engine_vk(const eddy_engine *e)
{
    EDDY_ENGINE_GUARD(e, return (eddy_vk_objects){ 0 });
    return (eddy_vk_objects){ e->instance, e->physical_device, e->device, e->queue,
                              e->queue_family };
}

VkSemaphore eddy_engine_timeline(const eddy_engine *e)
{
    return e->timeline;
}

