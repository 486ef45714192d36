/* eddy: a Vulkan compute engine for physically based simulation.
 *
 * Conventions (for every function here):
 *  - One *_desc struct per create; a zero field means its documented default.
 *  - Resources are small handles ({ uint32_t id }); id 0 is "none". Destroying
 *    a zero or stale handle does nothing. Destruction frees the resource once
 *    the GPU is done with it, without waiting (the release is deferred).
 *  - The creator destroys. Vulkan objects handed in through adoption are never
 *    destroyed by eddy.
 *  - Functions that create return a handle (zero on failure); functions that
 *    do work return eddy_result. Every failure logs one message that says what
 *    was wrong and what to do.
 *  - Threading: an engine and everything created from it may be used from one
 *    thread at a time (the caller serialises). Different engines are
 *    independent.
 *  - Units: SI (metres, seconds, kilograms) unless a field says otherwise.
 *  - Waiting: a call blocks the calling thread on the GPU only where its
 *    comment says "Waits". It then waits for eddy's own submitted work (its
 *    timeline semaphore, never the whole queue) and, where it says so, for
 *    the command buffers of a host eddy recorded into (through their
 *    done_semaphore): the host must have submitted those first, or the wait
 *    never ends. Every other call returns without waiting; the getters of
 *    a recording host (eddy_poll_idle, eddy_scene_collect, eddy_scene_input,
 *    eddy_scene_output) never wait.
 */
#ifndef EDDY_H
#define EDDY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eddy_api.h"

/* The few Vulkan types eddy's API names, declared here as Vulkan's headers
 * declare them (identical typedefs may repeat in C11), so that eddy.h may
 * come before or after <vulkan/vulkan.h> or <volk.h>, with or without
 * VK_NO_PROTOTYPES: eddy.h never includes vulkan_core.h itself, and never
 * decides whether the program gets Vulkan's prototypes. Vulkan's enums and
 * structs appear in eddy's structs as plain integers of the same size. */
#include <vulkan/vk_platform.h>
#ifndef VULKAN_CORE_H_
#if defined(__LP64__) || defined(_WIN64) || (defined(__x86_64__) && !defined(__ILP32__)) || defined(_M_X64) || \
    defined(__ia64) || defined(_M_IA64) || defined(__aarch64__) || defined(__powerpc64__) ||                   \
    (defined(__riscv) && __riscv_xlen == 64)
#define EDDY_VK_HANDLE64(name) typedef struct name##_T *name;
#else
#define EDDY_VK_HANDLE64(name) typedef uint64_t name;
#endif
typedef struct VkInstance_T *VkInstance;
typedef struct VkPhysicalDevice_T *VkPhysicalDevice;
typedef struct VkDevice_T *VkDevice;
typedef struct VkQueue_T *VkQueue;
typedef struct VkCommandBuffer_T *VkCommandBuffer;
EDDY_VK_HANDLE64(VkSemaphore)
EDDY_VK_HANDLE64(VkBuffer)
EDDY_VK_HANDLE64(VkImage)
EDDY_VK_HANDLE64(VkImageView)
EDDY_VK_HANDLE64(VkSampler)
#undef EDDY_VK_HANDLE64
typedef uint64_t VkDeviceSize;
typedef void(VKAPI_PTR *PFN_vkVoidFunction)(void);
typedef PFN_vkVoidFunction(VKAPI_PTR *PFN_vkGetInstanceProcAddr)(VkInstance instance, const char *pName);
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define EDDY_VERSION_MAJOR 1
#define EDDY_VERSION_MINOR 9
#define EDDY_VERSION_PATCH 0

typedef enum eddy_result {
    EDDY_TIMEOUT = 1,                 /* not an error: eddy_wait's time ran out first (wait again) */
    EDDY_OK = 0,
    EDDY_ERROR_INVALID_ARGUMENT = -1, /* a parameter or field has a bad value */
    EDDY_ERROR_VULKAN = -2,           /* a Vulkan call failed */
    EDDY_ERROR_OUT_OF_MEMORY = -3,    /* host or device memory exhausted */
    EDDY_ERROR_LIMIT = -4,            /* a request exceeds a device limit */
    EDDY_ERROR_IO = -5,               /* a file could not be read or written */
    EDDY_ERROR_PARSE = -6,            /* a file has bad syntax or content */
    EDDY_ERROR_NOT_FOUND = -7,        /* a named thing (module, set, device) does not exist */
    EDDY_ERROR_ABI = -8,              /* a module was built for another ABI */
    EDDY_ERROR_UNSUPPORTED = -9,      /* the device or build lacks a feature */
} eddy_result;

/* A short English name of a result ("invalid argument", ...). */
EDDY_API const char *eddy_result_string(eddy_result r);

typedef struct eddy_engine eddy_engine;
typedef struct eddy_buffer { uint32_t id; } eddy_buffer;
typedef struct eddy_image { uint32_t id; } eddy_image;
typedef struct eddy_kernel { uint32_t id; } eddy_kernel;
typedef struct eddy_graph { uint32_t id; } eddy_graph;
typedef struct eddy_particles { uint32_t id; } eddy_particles;

/* ------------------------------------------------------------------ log */

typedef enum eddy_log_level {
    EDDY_LOG_DEBUG = 0,
    EDDY_LOG_INFO = 1,
    EDDY_LOG_WARN = 2,
    EDDY_LOG_ERROR = 3,
} eddy_log_level;

/* Receives every message of an engine: eddy's own (source "eddy") and, when
 * validation is on, the validation layer's (source "vulkan"). `id` is never
 * NULL: for eddy's messages it is one of the identifiers listed below, stable
 * across versions, which a program acts on (the English text may change);
 * for the layer's messages it is the layer's own message name (a VUID such
 * as "VUID-vkCmdDispatch-None-08114", or "SYNC-HAZARD-READ-AFTER-WRITE"), or
 * "vulkan.message" when the layer gives none. May be called from a driver
 * thread for validation messages; must not call back into the engine. */
typedef void (*eddy_log_fn)(void *user, eddy_log_level level, const char *source, const char *id,
                            const char *message);

/* Message identifiers: every message eddy logs carries one ("area.what");
 * the list, with what each means and its level, is in eddy_messages.h. */
#include "eddy_messages.h"

/* While quiet, eddy's own messages below error level (debug, info,
 * warnings) are dropped instead of passed to the log callback or stderr;
 * errors, and the validation layer's messages, still are. For a program
 * that runs a call only for its side effects and has the warnings said
 * elsewhere (over MPI ranks, rank 0 speaks for all). Returns the previous
 * setting; default false. Never waits; not thread safe. */
EDDY_API bool eddy_log_quiet(eddy_engine *e, bool quiet);

/* The identifier of the last error-level message eddy itself logged on this
 * engine ("" when none): for programs that keep the default log. Valid until
 * the next call into the engine. */
EDDY_API const char *eddy_last_error(const eddy_engine *e);
/* Its text (at most 511 bytes; "" when none): what a program that passes
 * messages on (to another MPI rank, a user interface) needs besides the
 * identifier. Valid until the next call into the engine. */
EDDY_API const char *eddy_last_error_text(const eddy_engine *e);

/* Takes a caller's sized desc (see EDDY_SIZED in eddy_api.h): copies its
 * struct_size bytes into `out`, a struct of `size` bytes in this library's
 * layout, and zeroes the rest (fields an older caller's struct lacks keep
 * their defaults). Refused (EDDY_ERROR_ABI, message desc.size naming
 * `type`) when desc is NULL, struct_size is 0 or below min_size (the
 * struct's size in its first version), or above `size` (a caller built
 * against a newer eddy). For eddy's libraries and for modules that take
 * descs of their own. e may be NULL: the message then goes to stderr.
 * Never waits. */
EDDY_API eddy_result eddy_desc_read(eddy_engine *e, const char *type, const void *desc, uint32_t min_size,
                                    uint32_t size, void *out);
/* In a function taking `const type *ptr`: ptr then points at a copy in this
 * build's layout (eddy_desc_read with min_size = sizeof(type)); runs `fail`
 * after the message when refused. A struct that grows later passes the
 * offset of its first appended field as min_size instead. */
#define EDDY_TAKE_DESC(e, type, ptr, fail)                                                       \
    type ptr##_taken;                                                                           \
    if (eddy_desc_read((e), #type, (ptr), sizeof(type), sizeof(type), &ptr##_taken) != EDDY_OK) { \
        fail;                                                                                   \
    }                                                                                           \
    ptr = &ptr##_taken
/* The same where NULL is allowed (the function's own check refuses it, or
 * it means the defaults): ptr stays NULL then. */
#define EDDY_TAKE_DESC_OPTIONAL(e, type, ptr, fail)                                                         \
    type ptr##_taken;                                                                                     \
    if ((ptr) && eddy_desc_read((e), #type, (ptr), sizeof(type), sizeof(type), &ptr##_taken) != EDDY_OK) { \
        fail;                                                                                             \
    }                                                                                                     \
    ptr = (ptr) ? &ptr##_taken : NULL

/* ------------------------------------------------------------------ engine */

typedef enum eddy_validation {
    EDDY_VALIDATION_DEFAULT = 0, /* from the environment: EDDY_VALIDATION=off|on|sync; else off */
    EDDY_VALIDATION_OFF = 1,
    EDDY_VALIDATION_ON = 2,      /* Khronos validation layer */
    EDDY_VALIDATION_SYNC = 3,    /* validation layer plus synchronization validation */
} eddy_validation;

/* The start of the debug-utils name of every Vulkan object eddy creates. */
#define EDDY_OBJECT_NAME_PREFIX "eddy:"

/* Hand in a host renderer's Vulkan objects. When `device` is non-null eddy
 * creates no instance, device or queue and destroys none of these; it only
 * creates its own pools, buffers, pipelines and semaphores on the device.
 * Requirements on the host: Vulkan 1.2 or newer (api_version), the queue
 * supports compute, and the device was created with the Vulkan 1.2 feature
 * timelineSemaphore. The host must not use the queue from another thread
 * while eddy submits to it. Validation of an adopted device is the host's
 * choice (its instance layers). With VK_EXT_debug_utils on the host's
 * instance (debug_utils_enabled), eddy names every Vulkan object it creates
 * "eddy:<label>", so the host's own messenger tells eddy's objects from its
 * own; each message then reaches the host once, through its messenger. A
 * host without a messenger of its own sets log_validation: eddy then creates
 * one and routes to its log (source "vulkan") and to
 * eddy_validation_message_count only the messages that name one of eddy's
 * objects, never the host's own. */
typedef struct eddy_adopt_desc {
    uint32_t struct_size; /* required: sizeof(eddy_adopt_desc), EDDY_SIZED(eddy_adopt_desc) */
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;
    PFN_vkGetInstanceProcAddr get_instance_proc_addr; /* required when adopting */
    uint32_t api_version;     /* the instance's apiVersion; 0 = VK_API_VERSION_1_2 */
    bool debug_utils_enabled; /* the host enabled VK_EXT_debug_utils on its instance */
    bool log_validation;      /* with debug_utils_enabled: route the messages about eddy's
                                 objects to eddy's log too (default false: the host's
                                 messenger alone delivers them, once) */
    /* Async compute: the other queue families that use eddy's buffers and
     * images, typically the host's graphics family when `queue` is a
     * compute queue of another family. eddy then creates its buffers and
     * images with VK_SHARING_MODE_CONCURRENT over queue_family and these
     * (no ownership transfers; the host orders the two queues with
     * semaphores: eddy_graph_submit_after / eddy_scene_submit wait on the
     * host's, the host waits on eddy_engine_timeline). Copied; each below
     * the device's family count; queue_family itself and repeats are
     * ignored. NULL and 0 (default): eddy's family alone, exclusive
     * sharing; a queue of the same family needs nothing here. */
    const uint32_t *share_families;
    uint32_t share_family_count; /* at most EDDY_SHARE_FAMILIES_MAX */
} eddy_adopt_desc;
#define EDDY_SHARE_FAMILIES_MAX 8u

typedef struct eddy_engine_desc {
    uint32_t struct_size; /* required: sizeof(eddy_engine_desc), EDDY_SIZED(eddy_engine_desc) */
    /* Device choice: a decimal index into `eddy devices`, or a case-insensitive
     * part of the device name. NULL = the EDDY_DEVICE environment variable,
     * else the best device: discrete GPU, then integrated, then virtual, then
     * CPU (lavapipe). Ignored when adopting. */
    const char *device;
    eddy_validation validation; /* default: EDDY_VALIDATION from the environment, else off */
    eddy_log_fn log;            /* NULL = print to stderr */
    void *log_user;             /* passed to log */
    bool verbose;               /* also log debug messages; default: info and above */
    /* A host's Vulkan device to adopt (read at creation, not kept); NULL =
     * eddy creates its own instance and device. */
    const eddy_adopt_desc *adopt;
    /* Pipelines whose last kernel was destroyed are kept for reuse, so a
     * scene loaded again (an editor reloading, a test loading many) compiles
     * nothing: at most this many, the longest unused dropped first. Default
     * 64; EDDY_KEEP_NO_PIPELINES keeps none. Host memory only (a pipeline is
     * tens of KiB on most drivers). */
    uint32_t kept_pipelines;
    /* Folder of the pipeline cache on disk (one file per device and driver,
     * named by pipelineCacheUUID; loaded at creation, written back at
     * destruction when pipelines were compiled; a file from another device or
     * driver, or a damaged one, is ignored with a warning). NULL = the
     * EDDY_PIPELINE_CACHE_DIR environment variable, else
     * $XDG_CACHE_HOME/eddy, else $HOME/.cache/eddy; "" = no cache on disk. */
    const char *pipeline_cache_dir;
} eddy_engine_desc;
#define EDDY_KEEP_NO_PIPELINES UINT32_MAX

/* Creates an engine, or NULL (after logging why). */
EDDY_API eddy_engine *eddy_create_engine(const eddy_engine_desc *desc);
/* Destroys everything the engine created. NULL is ignored. Waits: for all
 * of eddy's work and every host recording (the host must have submitted
 * them). */
EDDY_API void eddy_destroy_engine(eddy_engine *e);
/* For libraries above the core that keep objects made from an engine (the
 * scene layer's scenes): fn(user) runs at the start of eddy_destroy_engine,
 * while the engine still works, in the reverse order of registration, so
 * they let go of it instead of touching it after it is gone. At most one
 * registration per user pointer (a second replaces the first).
 * eddy_engine_forget(e, user) removes it (when the object goes first).
 * Never waits; not thread safe (like every engine call). */
typedef void (*eddy_engine_teardown_fn)(void *user);
EDDY_API eddy_result eddy_engine_on_destroy(eddy_engine *e, eddy_engine_teardown_fn fn, void *user);
EDDY_API void eddy_engine_forget(eddy_engine *e, void *user);

/* Logs through the engine's log callback (printf format) with a message
 * identifier (see "Message identifiers"; a module's own under its name). */
EDDY_API void eddy_log(eddy_engine *e, eddy_log_level level, const char *id, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Messages the validation layer reported at warning or error severity since
 * the engine was created (0 when validation is off). Tests fail on any. */
EDDY_API uint32_t eddy_validation_message_count(const eddy_engine *e);

/* What the engine has done since it was created, for tests and tools that
 * check how work is shared (read any time; the caller serialises as for
 * every engine call). */
typedef struct eddy_engine_counters {
    uint64_t pipelines_created; /* compute pipelines compiled; kernels made from the same
                                   SPIR-V, entry, workgroup size and specialization
                                   constants share one */
    uint32_t pipelines_live;    /* distinct pipelines in use by live kernels now */
    uint32_t pipelines_kept;    /* pipelines of destroyed kernels kept for reuse
                                   (eddy_engine_desc.kept_pipelines) */
    uint32_t kernels_live;      /* kernel handles alive now */
    uint64_t submits;           /* queue submissions (each signals the engine's timeline) */
    uint64_t waits;             /* waits on the engine's timeline */
    uint32_t deferred;          /* released objects waiting for the GPU to finish with them */
    uint32_t memory_allocations; /* live device memory allocations (buffers share blocks) */
    uint32_t images_live;       /* image handles alive now (own and adopted) */
    uint64_t buffer_bytes;      /* bytes of the buffer handles alive now (their eddy_buffer_desc
                                   sizes), for memory per particle */
} eddy_engine_counters;
EDDY_API eddy_engine_counters eddy_engine_get_counters(const eddy_engine *e);

typedef struct eddy_pipeline_cache_info {
    const char *path;    /* the cache file (valid while the engine lives); NULL = none */
    size_t loaded_bytes; /* driver data loaded from it at creation (0: none, or ignored) */
} eddy_pipeline_cache_info;
EDDY_API eddy_pipeline_cache_info eddy_engine_pipeline_cache(const eddy_engine *e);

typedef struct eddy_device_info {
    char name[256];
    uint32_t index;              /* index in the enumeration */
    int32_t type;                /* a VkPhysicalDeviceType */
    uint32_t api_version;
    uint32_t vendor_id, device_id;
    uint64_t max_storage_buffer_range; /* bytes */
    uint64_t device_local_bytes;       /* size of the largest device-local heap */
    uint32_t subgroup_size;
    bool subgroup_arithmetic;          /* compute shaders have subgroup add/min/max */
    uint32_t max_workgroup_invocations;
    uint32_t max_workgroup_count[3];   /* workgroups per dispatch along x, y, z */
    uint32_t max_push_constants;       /* bytes */
    float timestamp_period_ns;         /* 0 = no timestamps on the compute queue */
    bool adopted;
    uint32_t max_texel_buffer_elements; /* texels a storage texel buffer binding reaches */
} eddy_device_info;

/* Lists the Vulkan devices of this machine (creates and destroys a temporary
 * instance). Returns how many were found (may exceed max); -1 when Vulkan
 * itself cannot be loaded (message on stderr). */
EDDY_API int eddy_enumerate_devices(eddy_device_info *out, int max);
/* The device the engine runs on. */
EDDY_API const eddy_device_info *eddy_engine_device(const eddy_engine *e);

/* The raw Vulkan objects, for renderers that share buffers with eddy. */
typedef struct eddy_vk_objects {
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;
} eddy_vk_objects;
EDDY_API eddy_vk_objects eddy_engine_vk(const eddy_engine *e);

/* Waits until all work eddy submitted has finished (eddy's timeline only:
 * never the whole queue, which an adopted one shares with the host; never
 * a host's recordings). */
EDDY_API eddy_result eddy_wait_idle(eddy_engine *e);
/* Never waits: EDDY_OK when all work eddy submitted and every host command
 * buffer eddy recorded into has finished (staged reads have then landed),
 * EDDY_TIMEOUT while some still runs. A recording without a done_semaphore
 * counts as running until eddy_recorded_work_done. */
EDDY_API eddy_result eddy_poll_idle(eddy_engine *e);
/* Waits until every host command buffer eddy recorded into has finished,
 * through the recordings' done_semaphores (never the host's queue; the host
 * must have submitted them). A recording without one is refused with
 * record.unfinished until eddy_recorded_work_done. */
EDDY_API eddy_result eddy_wait_recorded(eddy_engine *e);

/* ------------------------------------------------------------------ buffers */

typedef struct eddy_buffer_desc {
    uint32_t struct_size; /* required: sizeof(eddy_buffer_desc), EDDY_SIZED(eddy_buffer_desc) */
    uint64_t size;           /* bytes, required (> 0); at most maxStorageBufferRange (texel_only:
                                16 x maxTexelBufferElements) */
    const char *label;       /* debug name shown in validation messages and tools; copied */
    const void *data;        /* optional: uploaded at creation; else zero-filled */
    uint64_t data_size;      /* bytes of data to upload, <= size (the rest is zero-filled);
                                0 = size. For padded buffers whose data is shorter. */
    bool texel_only;         /* passes bind it only as a storage texel buffer (imageBuffer),
                                never as a storage buffer, so it may exceed maxStorageBufferRange;
                                a pass that binds it as a storage buffer is refused. Default false */
} eddy_buffer_desc;

/* Creates a device-local storage buffer (also usable as indirect-argument,
 * vertex and index buffer, and as transfer source/destination, so a host
 * renderer can draw from it). Refused with a message naming the size and
 * the limit when size exceeds maxStorageBufferRange, maxMemoryAllocationSize
 * or the memory left in the device-local heap.
 *
 * Memory policy: buffers are sub-allocated from 64 MiB blocks, one chain per
 * memory type (a buffer over 32 MiB gets an allocation of its own), so
 * thousands of buffers take a handful of device allocations
 * (eddy_engine_counters.memory_allocations). Simulation buffers live in
 * device-local memory; uploads go through a host-visible coherent ring,
 * downloads through a host-cached one (8 MiB each, made with the engine);
 * data the host writes or reads every step goes through those rings with
 * the step's own submission (eddy_buffer_stage_write/read). On a device whose device-local memory is also
 * host-visible (lavapipe, integrated GPUs) uploads and downloads are a copy
 * through the mapping, after the buffer's last GPU use has finished. Waits
 * only with data: for its upload. */
EDDY_API eddy_buffer eddy_create_buffer(eddy_engine *e, const eddy_buffer_desc *desc);
EDDY_API void eddy_destroy_buffer(eddy_engine *e, eddy_buffer b);
EDDY_API uint64_t eddy_buffer_size(eddy_engine *e, eddy_buffer b);
EDDY_API const char *eddy_buffer_label(eddy_engine *e, eddy_buffer b);

/* Host <-> device transfers. Waits: until the buffer's last GPU use has
 * finished (eddy's work, or a host's recording that used it: the host must
 * have submitted it; never the whole queue), and until the transfer is
 * complete. Direct memory mapping is used where the buffer's
 * memory is host-visible, the engine's transfer rings elsewhere (chunks of
 * at most 4 MiB, no allocation).
 * offset and size in bytes; offset + size must fit the buffer. */
EDDY_API eddy_result eddy_buffer_upload(eddy_engine *e, eddy_buffer b, uint64_t offset, uint64_t size,
                               const void *data);
EDDY_API eddy_result eddy_buffer_download(eddy_engine *e, eddy_buffer b, uint64_t offset,
                                 uint64_t size, void *data);
/* Fills size bytes (a multiple of 4) with a repeated 32-bit word. */
EDDY_API eddy_result eddy_buffer_fill(eddy_engine *e, eddy_buffer b, uint64_t offset, uint64_t size,
                             uint32_t value);
EDDY_API eddy_result eddy_buffer_copy(eddy_engine *e, eddy_buffer src, uint64_t src_offset,
                             eddy_buffer dst, uint64_t dst_offset, uint64_t size);

/* For renderers: the Vulkan buffer behind a handle. The VkBuffer belongs to
 * eddy and lives until eddy_destroy_buffer. The data of the eddy buffer lies
 * at [offset, offset + size) of it. */
typedef struct eddy_vk_buffer {
    VkBuffer buffer;
    VkDeviceSize offset, size;
} eddy_vk_buffer;
/* Staged transfers, for small per-step data: the bytes ride on the engine's
 * next graph submission (eddy_graph_run / eddy_graph_submit) or recording
 * into a host's command buffer (eddy_graph_record) instead of a
 * transfer of their own, through persistent staging rings (no allocation,
 * no submit; no wait unless the ring is full, then waits for the earliest
 * submission or host recording still holding it). stage_write copies `data` now; the GPU copies it
 * into the buffer at the start of that submission, in call order.
 * stage_read copies the buffer's bytes at the end of that submission into
 * `out`, which must stay valid until the submission has been waited for
 * (eddy_graph_run returns, eddy_wait on its value, eddy_wait_idle): then the
 * bytes are there. In a recording, they land once the host's command buffer
 * has finished, at the next eddy call that looks (eddy_poll_idle,
 * eddy_flush_staged, a wait); reads recorded twice into one place land in
 * call order. At most half a ring (4 MiB) queued per submission;
 * larger data goes through eddy_buffer_upload/download. A step that writes
 * its inputs and reads its results this way is one submit and one wait.
 * eddy_flush_staged submits what is queued on its own, and waits until every
 * staged read has landed (a recording's through its done_semaphore; one
 * without is refused with record.unfinished until
 * eddy_recorded_work_done); with nothing queued or in flight it returns at
 * once (no submit, no wait). */
EDDY_API eddy_result eddy_buffer_stage_write(eddy_engine *e, eddy_buffer b, uint64_t offset, uint64_t size,
                                    const void *data);
EDDY_API eddy_result eddy_buffer_stage_read(eddy_engine *e, eddy_buffer b, uint64_t offset, uint64_t size, void *out);
EDDY_API eddy_result eddy_flush_staged(eddy_engine *e);

EDDY_API eddy_result eddy_buffer_vk(eddy_engine *e, eddy_buffer b, eddy_vk_buffer *out);

/* ------------------------------------------------------------------ images */

/* Texel formats of images (every one is checked against the device's
 * optimal-tiling format features for the usage asked for). */
typedef enum eddy_format {
    EDDY_FORMAT_R32F = 1,    /* VK_FORMAT_R32_SFLOAT, 4 bytes a texel */
    EDDY_FORMAT_RG32F = 2,   /* VK_FORMAT_R32G32_SFLOAT, 8 bytes */
    EDDY_FORMAT_RGBA32F = 3, /* VK_FORMAT_R32G32B32A32_SFLOAT, 16 bytes */
    EDDY_FORMAT_RGBA16F = 4, /* VK_FORMAT_R16G16B16A16_SFLOAT, 8 bytes (IEEE half floats) */
    EDDY_FORMAT_RGBA8 = 5,   /* VK_FORMAT_R8G8B8A8_UNORM, 4 bytes */
    EDDY_FORMAT_R32UI = 6,   /* VK_FORMAT_R32_UINT, 4 bytes (uimage in shaders; never
                                linear-filtered) */
} eddy_format;

enum {
    EDDY_IMAGE_STORAGE = 1u << 0, /* bound as a storage image (imageLoad/imageStore):
                                     EDDY_READ, EDDY_WRITE, EDDY_READ_WRITE */
    EDDY_IMAGE_SAMPLED = 1u << 1, /* bound as a combined image sampler (texture()):
                                     EDDY_SAMPLE */
};

typedef enum eddy_filter {
    EDDY_FILTER_NEAREST = 0, /* default */
    EDDY_FILTER_LINEAR = 1,  /* linear in each dimension (bi-/trilinear); the format
                                must have SAMPLED_IMAGE_FILTER_LINEAR */
} eddy_filter;

/* Images live in VK_IMAGE_LAYOUT_GENERAL whenever no eddy submission is
 * running: after creation (contents zero), after upload and download, after
 * adoption and after every graph run or recording. A graph moves an image
 * to SHADER_READ_ONLY_OPTIMAL for the passes that sample it and back to
 * GENERAL for storage passes and at its end (the barrier planner's layout
 * transitions). One mip level, one array layer. */
typedef struct eddy_image_desc {
    uint32_t struct_size; /* required: sizeof(eddy_image_desc), EDDY_SIZED(eddy_image_desc) */
    uint32_t dimensions;  /* 1, 2 or 3; 0 = from the extent (3 when depth > 1, else 2
                             when height > 1, else 1) */
    uint32_t width;       /* texels, required (> 0); at most maxImageDimension1D/2D/3D */
    uint32_t height;      /* texels; 0 = 1 (must be 1 for 1D) */
    uint32_t depth;       /* texels; 0 = 1 (must be 1 for 1D and 2D) */
    eddy_format format;   /* required */
    uint32_t usage;       /* EDDY_IMAGE_* bits; 0 = EDDY_IMAGE_STORAGE | EDDY_IMAGE_SAMPLED */
    eddy_filter filter;   /* the sampler's min/mag filter; addressing is always clamp to
                             edge, coordinates normalised, no mipmaps */
    const char *label;    /* debug name; copied */
    const void *data;     /* optional: tightly packed texels (x fastest, then y, z)
                             uploaded at creation; else zero-filled */
    /* Adoption: a host's image, used by eddy but never destroyed by it (the
     * host keeps it alive until eddy_destroy_image and the GPU's last use of
     * it, see eddy_wait_idle). Needs usage matching the host's creation flags
     * (STORAGE_BIT / SAMPLED_BIT, and TRANSFER_SRC/DST for upload and
     * download), the format above, optimal tiling, one level and layer, and
     * the given extent. eddy creates its own view and sampler and moves the
     * image from adopt_layout to GENERAL at adoption. */
    VkImage adopt_image;         /* VK_NULL_HANDLE = eddy creates and owns the image */
    int32_t adopt_layout;        /* a VkImageLayout: the adopted image's current layout
                                    (VK_IMAGE_LAYOUT_UNDEFINED discards the contents) */
} eddy_image_desc;

/* Creates an image (or adopts one). Refused with a message naming the format
 * and the missing feature (STORAGE_IMAGE, SAMPLED_IMAGE,
 * SAMPLED_IMAGE_FILTER_LINEAR, TRANSFER_SRC/DST) when the device lacks it, or
 * naming the size and the limit when an extent exceeds
 * maxImageDimension1D/2D/3D. Waits only with data, or for an adopted image:
 * for the upload or the layout change. */
EDDY_API eddy_image eddy_create_image(eddy_engine *e, const eddy_image_desc *desc);
/* Deferred like buffers: the Vulkan objects go once the GPU's last use of
 * them has finished (an adopted VkImage is never destroyed). */
EDDY_API void eddy_destroy_image(eddy_engine *e, eddy_image im);

/* A box of texels: offset and extent per axis (unused axes: offset 0,
 * extent 1). A zero region (all fields 0) is the whole image. */
typedef struct eddy_image_region {
    uint32_t x, y, z;
    uint32_t width, height, depth;
} eddy_image_region;

/* Host <-> image transfers through the engine's transfer rings (in chunks
 * of texel rows, no allocation); ordered after eddy's earlier work on the
 * queue, they return when complete. data: the
 * region's texels tightly packed (x fastest), region width * height * depth
 * * texel bytes. */
EDDY_API eddy_result eddy_image_upload(eddy_engine *e, eddy_image im, const eddy_image_region *region,
                              const void *data);
EDDY_API eddy_result eddy_image_download(eddy_engine *e, eddy_image im, const eddy_image_region *region,
                                void *data);
/* Bytes of one texel of a format (0 for an unknown one). */
EDDY_API uint32_t eddy_format_texel_bytes(eddy_format f);

/* For renderers: the image behind a handle. image and view belong to eddy
 * (image: the host's, when adopted) and live until eddy_destroy_image; the
 * image is in `layout` (GENERAL) whenever eddy's work has finished. */
typedef struct eddy_vk_image {
    VkImage image;
    VkImageView view;
    VkSampler sampler;
    int32_t format;              /* a VkFormat */
    struct {
        uint32_t width, height, depth;
    } extent;                    /* texels, laid out as VkExtent3D */
    int32_t layout;              /* a VkImageLayout */
} eddy_vk_image;
EDDY_API eddy_result eddy_image_vk(eddy_engine *e, eddy_image im, eddy_vk_image *out);

/* ------------------------------------------------------------------ kernels */

#define EDDY_MAX_SPECIALIZATION 8
#define EDDY_MAX_BINDINGS 16
#define EDDY_PUSH_CONSTANT_BYTES 128 /* every kernel's push range: the minimum every device has */

typedef struct eddy_specialization {
    uint32_t id;    /* constant_id in the shader */
    uint32_t value; /* 32-bit value (int, uint or float bits) */
} eddy_specialization;

/* A compute kernel: a pipeline with its descriptor layout. Its bindings are
 * read from the SPIR-V (set 0, bindings 0..n-1: storage buffers, storage
 * images (image1D/2D/3D) and combined image samplers (sampler1D/2D/3D)) so a
 * pass must bind exactly those, each with a resource of its kind. A storage
 * texel buffer (`layout(rgba32f) readonly uniform imageBuffer`; formats r32f,
 * rg32f, rgba32f, r32i, rgba32i, r32ui, rgba32ui) binds a buffer in
 * bindings[] like a storage buffer: the engine views the whole buffer (up to
 * eddy_device_info.max_texel_buffer_elements texels) in the shader's format.
 * Some drivers load texels for all lanes at once where they load a storage
 * buffer's values lane by lane (lavapipe). Push constants: up to
 * EDDY_PUSH_CONSTANT_BYTES. The workgroup size along x is specialization
 * constant 0 when the shader declares `layout(local_size_x_id = 0) in;`. */
typedef struct eddy_kernel_desc {
    uint32_t struct_size; /* required: sizeof(eddy_kernel_desc), EDDY_SIZED(eddy_kernel_desc) */
    const char *label;         /* copied; shown in profiles and messages */
    const uint32_t *spirv;     /* SPIR-V words (EDDY_SPIRV(name) fills spirv and spirv_size) */
    size_t spirv_size;         /* bytes */
    const char *glsl;          /* or: GLSL compute source compiled now with shaderc */
    const char *glsl_name;     /* file name used in shaderc messages; default label */
    const char *entry;         /* entry point; default "main" */
    uint32_t workgroup_size;   /* local_size_x through constant 0; default 64. Ignored
                                  (with the shader's own size) when the shader has no constant 0 */
    eddy_specialization specialization[EDDY_MAX_SPECIALIZATION]; /* more constants */
    uint32_t specialization_count;
} eddy_kernel_desc;

#define EDDY_SPIRV(array) .spirv = (array), .spirv_size = sizeof(array)

/* Creates the pipeline once (never per step). Never waits (GLSL compiles on
 * the calling thread). */
EDDY_API eddy_kernel eddy_create_kernel(eddy_engine *e, const eddy_kernel_desc *desc);
EDDY_API void eddy_destroy_kernel(eddy_engine *e, eddy_kernel k);
EDDY_API uint32_t eddy_kernel_workgroup_size(eddy_engine *e, eddy_kernel k);
EDDY_API uint32_t eddy_kernel_binding_count(eddy_engine *e, eddy_kernel k);

/* ------------------------------------------------------------------ graphs */

/* Declared accesses are checked against the shader when a pass is added
 * (the barriers rest on them, and a CPU device that runs one dispatch after
 * another would never show a wrong one): EDDY_READ needs a `readonly` block
 * (NonWritable in the SPIR-V, on the variable or every member), EDDY_WRITE a
 * `writeonly` one (NonReadable), EDDY_ATOMIC one that is not readonly; a
 * binding the shader does not declare is neither read nor written. */
typedef enum eddy_access {
    EDDY_READ = 1,       /* the pass only reads the buffer */
    EDDY_WRITE = 2,      /* the pass overwrites what it touches, reads nothing of it */
    EDDY_READ_WRITE = 3, /* reads and writes */
    EDDY_ATOMIC = 4,     /* concurrent atomic writes: consecutive ATOMIC passes on one
                            buffer run without a barrier between them (buffers only) */
    EDDY_SAMPLE = 5,     /* images only: read through the image's sampler (a combined
                            image sampler binding) */
} eddy_access;

/* A storage buffer binding of a pass. */
typedef struct eddy_binding {
    eddy_buffer buffer;
    eddy_access access;
} eddy_binding;

/* An image binding of a pass (eddy_pass_desc.images). A storage image
 * binding (image1D/2D/3D in the shader) takes an image created with
 * EDDY_IMAGE_STORAGE and EDDY_READ (a `readonly` image), EDDY_WRITE
 * (`writeonly`) or EDDY_READ_WRITE; a combined image sampler (sampler1D/2D/3D)
 * an image created with EDDY_IMAGE_SAMPLED and EDDY_SAMPLE. The image's
 * dimensionality must be the shader's. One image is never sampled and bound
 * as storage in the same pass. */
typedef struct eddy_image_binding {
    eddy_image image;
    eddy_access access;
} eddy_image_binding;

typedef struct eddy_pass_desc {
    uint32_t struct_size; /* required: sizeof(eddy_pass_desc), EDDY_SIZED(eddy_pass_desc) */
    const char *label;                     /* copied; in profiles ("module.pass") */
    eddy_kernel kernel;                    /* required */
    eddy_binding bindings[EDDY_MAX_BINDINGS]; /* binding i of set 0; exactly the kernel's count:
                                              bindings[i] for its storage buffers, */
    eddy_image_binding images[EDDY_MAX_BINDINGS]; /* images[i] for its image bindings (the
                                              other array's entry i stays zero) */
    uint32_t groups[3];                    /* workgroups; 0 in y/z means 1 */
    uint32_t threads;                      /* or: threads along x; groups = ceil(threads / wg size) */
    eddy_buffer indirect;                  /* or: VkDispatchIndirectCommand read from this buffer */
    uint64_t indirect_offset;              /* bytes, multiple of 4 */
    const void *push;                      /* push constants, copied at add time */
    uint32_t push_size;                    /* bytes, multiple of 4, <= EDDY_PUSH_CONSTANT_BYTES */
} eddy_pass_desc;

typedef struct eddy_graph_desc {
    uint32_t struct_size; /* required: sizeof(eddy_graph_desc), EDDY_SIZED(eddy_graph_desc) */
    const char *label;   /* copied */
    uint32_t times;      /* the whole graph runs this often per eddy_graph_run "time"
                            (substeps), recorded into one command buffer; default 1 */
    bool timestamps;     /* measure each pass with GPU timestamps (see eddy_graph_profile) */
} eddy_graph_desc;

EDDY_API eddy_graph eddy_create_graph(eddy_engine *e, const eddy_graph_desc *desc);
EDDY_API void eddy_destroy_graph(eddy_engine *e, eddy_graph g);

/* Appends a pass; returns its index (>= 0) or a negative eddy_result. A graph
 * records its command buffer at the first run after a change. */
EDDY_API int eddy_graph_add_pass(eddy_engine *e, eddy_graph g, const eddy_pass_desc *desc);
/* Passes [first, first + count) run `times` times in a row (solver
 * iterations). Ranges of one graph must not overlap. */
EDDY_API eddy_result eddy_graph_repeat(eddy_engine *e, eddy_graph g, uint32_t first, uint32_t count,
                              uint32_t times);
EDDY_API uint32_t eddy_graph_pass_count(eddy_engine *e, eddy_graph g);

/* A name over a range of a graph's passes, for eddy_graph_describe (the
 * system that declared them). */
typedef struct eddy_pass_group {
    const char *name;     /* borrowed for the call */
    uint32_t first, count; /* passes [first, first + count) */
} eddy_pass_group;

typedef enum eddy_describe_format {
    EDDY_DESCRIBE_TEXT = 0, /* a few lines a pass: kernel, dispatch, each binding's access and label, the
                               barriers before it, the repeated ranges */
    EDDY_DESCRIBE_DOT = 1,  /* Graphviz DOT: a box a pass (a group's in a cluster), an edge from the pass that
                               last wrote a buffer to each pass reading it, a dashed edge closing a repeat */
} eddy_describe_format;

typedef struct eddy_graph_describe_desc {
    uint32_t struct_size;           /* required: EDDY_SIZED(eddy_graph_describe_desc) */
    eddy_describe_format format;    /* default EDDY_DESCRIBE_TEXT */
    const eddy_pass_group *groups;  /* optional, borrowed: named pass ranges in order, not overlapping */
    uint32_t group_count;
    const char *title;              /* optional, borrowed: the heading; default the graph's label */
    char *out;                      /* optional: the description, NUL-terminated, cut to capacity */
    size_t capacity;                /* bytes at out */
    size_t *length;                 /* required: the whole description's length, without the NUL */
} eddy_graph_describe_desc;

/* Describes a graph as it runs: its passes in order, the buffers and images
 * each reads and writes (by label), the repeated ranges, and the barriers
 * eddy's planner puts before each pass when the graph runs (the first time
 * through a repeat, and again when it repeats). *length is the full length;
 * EDDY_ERROR_LIMIT when it did not fit in capacity (call again with
 * *length + 1 bytes; out NULL only measures). Never waits; the graph is not
 * changed. Thread safety: as the engine. */
EDDY_API eddy_result eddy_graph_describe(eddy_engine *e, eddy_graph g, const eddy_graph_describe_desc *desc);

/* Runs the graph `times` times (each = desc.times substeps) on eddy's queue.
 * Waits: for that work. The recorded command buffer is replayed, not re-recorded. */
EDDY_API eddy_result eddy_graph_run(eddy_engine *e, eddy_graph g, uint32_t times);
/* Same, without waiting: signals the engine's timeline semaphore; *value
 * receives the value to wait for with eddy_wait. */
EDDY_API eddy_result eddy_graph_submit(eddy_engine *e, eddy_graph g, uint32_t times, uint64_t *value);
/* A semaphore a submission of eddy's waits on: the host's own work that
 * writes what eddy reads (or must finish before eddy writes). */
typedef struct eddy_semaphore_wait {
    VkSemaphore semaphore; /* binary or timeline; the host's, not destroyed by eddy */
    uint64_t value;        /* a timeline semaphore's value to wait for; binary: ignored */
} eddy_semaphore_wait;
#define EDDY_SUBMIT_WAITS_MAX 8u
typedef struct eddy_submit_desc {
    uint32_t struct_size; /* required: sizeof(eddy_submit_desc), EDDY_SIZED(eddy_submit_desc) */
    uint32_t times;                   /* replays of the graph (each desc.times substeps); 0 = 1 */
    const eddy_semaphore_wait *waits; /* waited on before any command of the submission (every
                                         stage: its staged copies too); copied, not kept */
    uint32_t wait_count;              /* 0..EDDY_SUBMIT_WAITS_MAX */
} eddy_submit_desc;
/* eddy_graph_submit after the host's semaphores: the replays (in one queue
 * submission, or the first of several when there are more than 256) wait on
 * desc.waits. A timeline value the host has not signalled yet is allowed
 * (wait-before-signal): the submission runs once the host signals it.
 * *value receives the value to wait for with eddy_wait. An empty graph
 * submits nothing and waits on nothing. Not thread-safe. */
EDDY_API eddy_result eddy_graph_submit_after(eddy_engine *e, eddy_graph g, const eddy_submit_desc *desc, uint64_t *value);

/* Waits until the engine's timeline reaches `value` (a value eddy_graph_submit
 * gave; an unsubmitted one is refused). timeout_ns bounds the wait: 0 polls
 * (returns at once), EDDY_WAIT_FOREVER has no bound. EDDY_OK when the value
 * is reached (staged reads have landed), EDDY_TIMEOUT when the time ran out
 * first (no message: wait or poll again), an error otherwise. Waits for
 * eddy's own work only, never for the queue. Not thread-safe (like every
 * call on one engine). */
#define EDDY_WAIT_FOREVER UINT64_MAX
EDDY_API eddy_result eddy_wait(eddy_engine *e, uint64_t value, uint64_t timeout_ns);
/* The engine's timeline semaphore (for hosts that wait on eddy's work). */
EDDY_API VkSemaphore eddy_engine_timeline(const eddy_engine *e);

/* What a host's own commands do with eddy's buffers right before or right
 * after a recorded graph (eddy_graph_record), so that the barriers eddy
 * records around it name those stages instead of all commands. stages and
 * access are masks; the use is every read and write one of the stages can do
 * whose access bit is set:
 *   stage                        reads                  writes
 *   EDDY_STAGE_COMPUTE           SHADER_READ            SHADER_WRITE
 *   EDDY_STAGE_INDIRECT          INDIRECT_READ          -
 *   EDDY_STAGE_TRANSFER          TRANSFER_READ          TRANSFER_WRITE
 *   EDDY_STAGE_VERTEX_INPUT      VERTEX_READ            -
 *   EDDY_STAGE_VERTEX_SHADER     SHADER_READ            SHADER_WRITE
 *   EDDY_STAGE_FRAGMENT_SHADER   SHADER_READ            SHADER_WRITE
 *   EDDY_STAGE_HOST              HOST_READ              HOST_WRITE
 * Examples: a renderer drawing particles after the step
 * { pos, EDDY_STAGE_VERTEX_INPUT | EDDY_STAGE_VERTEX_SHADER,
 *   EDDY_ACCESS_VERTEX_READ | EDDY_ACCESS_SHADER_READ }; parameters copied in
 * before it { params, EDDY_STAGE_TRANSFER, EDDY_ACCESS_TRANSFER_WRITE }. */
enum {
    EDDY_STAGE_COMPUTE = 1u << 0,
    EDDY_STAGE_INDIRECT = 1u << 1,
    EDDY_STAGE_TRANSFER = 1u << 2,
    EDDY_STAGE_VERTEX_INPUT = 1u << 3,
    EDDY_STAGE_VERTEX_SHADER = 1u << 4,
    EDDY_STAGE_FRAGMENT_SHADER = 1u << 5,
    EDDY_STAGE_HOST = 1u << 6,
    EDDY_STAGE_ALL = (1u << 7) - 1,
};
enum {
    EDDY_ACCESS_SHADER_READ = 1u << 0,
    EDDY_ACCESS_SHADER_WRITE = 1u << 1,
    EDDY_ACCESS_INDIRECT_READ = 1u << 2,
    EDDY_ACCESS_TRANSFER_READ = 1u << 3,
    EDDY_ACCESS_TRANSFER_WRITE = 1u << 4,
    EDDY_ACCESS_VERTEX_READ = 1u << 5,
    EDDY_ACCESS_HOST_READ = 1u << 6,
    EDDY_ACCESS_HOST_WRITE = 1u << 7,
    EDDY_ACCESS_ALL = (1u << 8) - 1,
};
typedef struct eddy_host_use {
    eddy_buffer buffer; /* one of the graph's buffers; zero (and no image): the default for the others */
    uint32_t stages;    /* EDDY_STAGE_* bits */
    uint32_t access;    /* EDDY_ACCESS_* bits; each must belong to one of the stages */
    eddy_image image;   /* or one of the graph's images (buffer zero); the host hands
                                it over and takes it back in VK_IMAGE_LAYOUT_GENERAL */
} eddy_host_use;

/* Records the graph (desc.times substeps) into a host's command buffer. */
typedef struct eddy_record_desc {
    uint32_t struct_size; /* required: sizeof(eddy_record_desc), EDDY_SIZED(eddy_record_desc) */
    /* Required: in the recording state, for a queue of the engine's queue
     * family. Not owned by eddy. */
    VkCommandBuffer command_buffer;
    /* How eddy learns that the host's command buffer has finished, so that it
     * frees nothing the recording names (descriptor sets, buffers, pipelines)
     * before then: a timeline semaphore the host's submission signals to
     * done_value when the command buffer has completed (eddy reads its
     * value, never waits on the host's queue). VK_NULL_HANDLE: the host calls
     * eddy_recorded_work_done() once everything it recorded has finished;
     * until then, destroyed resources the recording used are kept. */
    VkSemaphore done_semaphore;
    uint64_t done_value;
    /* What the host's commands before and after the recording do with the
     * graph's buffers and images. One not named takes the default: the use
     * naming neither a buffer nor an image, else "anything" (every stage,
     * read and write: always safe). { {0}, 0, 0 } as the default says the
     * host does nothing with the others. The host hands images over in
     * VK_IMAGE_LAYOUT_GENERAL and gets them back in it (the recording moves
     * them to the layouts its passes need and back). */
    const eddy_host_use *before;
    uint32_t before_count;
    const eddy_host_use *after;
    uint32_t after_count;
} eddy_record_desc;

/* The recording starts with barriers from the host's earlier accesses
 * (`before`) to the graph's first uses and ends with barriers from the
 * graph's last writes and reads to the host's later accesses (`after`), only
 * on the graph's buffers and only where a hazard exists, so the host needs no
 * barriers of its own around it. Graphics stages are dropped from the
 * barriers when the engine's queue family has no graphics (work on another
 * queue needs the host's semaphores). No timestamps. Refused (with a message
 * naming the graph, the pass and the resource) when a kernel or buffer the
 * graph binds was destroyed. */
EDDY_API eddy_result eddy_graph_record(eddy_engine *e, eddy_graph g, const eddy_record_desc *desc);
/* The host's word that every command buffer eddy recorded into without a
 * done_semaphore has finished executing. */
EDDY_API void eddy_recorded_work_done(eddy_engine *e);

typedef struct eddy_pass_time {
    const char *label;  /* valid while the graph lives */
    uint64_t calls;     /* dispatches measured */
    double total_ms;    /* summed GPU time */
} eddy_pass_time;
/* Per-pass GPU times summed over every run since the graph was created
 * (timestamps must be on). Returns the number of passes (may exceed max).
 * Never waits: runs still in flight are counted once they have finished. */
EDDY_API int eddy_graph_profile(eddy_engine *e, eddy_graph g, eddy_pass_time *out, int max);

/* ------------------------------------------------------------------ particle sets */

/* Standard buffers of every particle set (element layout in std430):
 *   "position": vec4 per particle: xyz position (m), w radius (m)
 *   "velocity": vec4 per particle: xyz velocity (m/s), w unused (0)
 *   "mass":     float per particle (kg)
 *   "phase":    uint per particle: free for modules (body id, material, ...)
 * Modules may add more named buffers, shared with every other module. One
 * name is a convention for every module that moves particles:
 *   "clamped":  uint per particle, added by the module: set nonzero when the
 *               box's hard limit at the end of a step found the particle's
 *               centre past a wall plane and put it back (the walls let it
 *               through). Modules only set it; whoever reports (the scene's
 *               stats, at each frame) counts and zeroes it.
 *   "id":       uint per particle, present when the set's particles may be
 *               reordered (a scene split over MPI ranks keeps a part of the
 *               set on each, in another order): the particle's index in
 *               the whole set as loaded, which travels with it. A module
 *               that keys memory by particle (a contact's history) keys it
 *               by id where the set has one, else by index. */
typedef struct eddy_particles_desc {
    uint32_t struct_size; /* required: sizeof(eddy_particles_desc), EDDY_SIZED(eddy_particles_desc) */
    const char *name;     /* required, unique in the engine; copied */
    uint32_t count;       /* particles in use, <= capacity */
    uint32_t capacity;    /* particles the buffers hold; default count */
} eddy_particles_desc;

EDDY_API eddy_particles eddy_create_particles(eddy_engine *e, const eddy_particles_desc *desc);
EDDY_API void eddy_destroy_particles(eddy_engine *e, eddy_particles p);
EDDY_API eddy_particles eddy_find_particles(eddy_engine *e, const char *name);
EDDY_API const char *eddy_particles_name(eddy_engine *e, eddy_particles p);
EDDY_API uint32_t eddy_particles_count(eddy_engine *e, eddy_particles p);
EDDY_API uint32_t eddy_particles_capacity(eddy_engine *e, eddy_particles p);
/* Changes the particles in use to count (<= capacity), between steps: the
 * first count elements of every buffer are the particles. The systems on
 * the set learn it through their module's set_count (eddy_module.h), and a
 * step graph recorded before holds the old count: declare it again. Waits:
 * uploads the draw counts (eddy_particles_draw). */
EDDY_API eddy_result eddy_particles_set_count(eddy_engine *e, eddy_particles p, uint32_t count);
/* A named buffer of the set, or a zero handle. */
EDDY_API eddy_buffer eddy_particles_buffer(eddy_engine *e, eddy_particles p, const char *name);
/* The name of p's named buffer `index` (in the order they were added:
 * "position", "velocity", "mass", "phase", then the modules'), or NULL past
 * the last: with eddy_particles_buffer, how a host lists what it can bind. */
EDDY_API const char *eddy_particles_buffer_name(eddy_engine *e, eddy_particles p, uint32_t index);
/* Adds (or returns the existing) named buffer of element_size bytes per
 * particle (capacity elements). An existing buffer with another element size
 * is refused. */
EDDY_API eddy_buffer eddy_particles_add_buffer(eddy_engine *e, eddy_particles p, const char *name,
                                      uint32_t element_size);
/* Marks p's named buffer as rows of the set's own (one a rigid body, say),
 * not one a particle: a run over MPI ranks does not move its rows with the
 * particles, and the module that keeps it keeps it the same on every rank.
 * Not thread safe with other calls on the set. (1.6) */
EDDY_API eddy_result eddy_particles_mark_set_rows(eddy_engine *e, eddy_particles p, const char *name);
/* Whether p has the named buffer with a row a particle (not marked with
 * eddy_particles_mark_set_rows). (1.6) */
EDDY_API bool eddy_particles_buffer_travels(eddy_engine *e, eddy_particles p, const char *name);

/* Element sets: the topology of a particle set, as named index buffers.
 * Layout (std430 uint[], tightly packed): element i's vertex k is index
 * kind * i + k, a uint32 index into the set's particles (< its capacity).
 *   EDDY_EDGES       2 indices an element
 *   EDDY_TRIANGLES   3, counter-clockwise seen from outside (the outward
 *                    normal of a closed surface is (x1-x0) x (x2-x0))
 *   EDDY_TETRAHEDRA  4, positively oriented: (x1-x0) . ((x2-x0) x (x3-x0)) > 0
 * They are shared like particle buffers: a module that moves the particles
 * and one that reads the tetrahedra bind the same buffers, and a renderer
 * draws a triangle set straight from the device: the element buffer as a
 * VK_INDEX_TYPE_UINT32 index buffer and the set's "position" buffer as a
 * vertex buffer of stride 16 (every eddy buffer may be bound as either). */
typedef enum eddy_element_kind {
    EDDY_EDGES = 2,
    EDDY_TRIANGLES = 3,
    EDDY_TETRAHEDRA = 4,
} eddy_element_kind;

typedef struct eddy_elements_desc {
    uint32_t struct_size; /* required: sizeof(eddy_elements_desc), EDDY_SIZED(eddy_elements_desc) */
    const char *name;        /* required, unique in the set, 1..63 bytes; copied */
    eddy_element_kind kind;  /* required */
    uint32_t count;          /* elements in use, <= capacity */
    uint32_t capacity;       /* elements the buffer holds; default count (at least 1) */
    const uint32_t *indices; /* kind x count indices, copied; each below the set's capacity
                                and no element naming a particle twice. NULL: count must
                                be 0 (a module fills the buffer on the device and sets
                                the count with eddy_particles_set_element_count) */
} eddy_elements_desc;

typedef struct eddy_elements {
    eddy_buffer buffer;      /* zero handle: no such element set */
    eddy_element_kind kind;
    uint32_t count, capacity;
} eddy_elements;

/* Adds an element set to the particle set; returns it (a zero buffer after a
 * message when refused). Destroyed with the particle set. */
EDDY_API eddy_elements eddy_particles_add_elements(eddy_engine *e, eddy_particles p, const eddy_elements_desc *desc);
/* The named element set of p (zero buffer when there is none). */
EDDY_API eddy_elements eddy_particles_elements(eddy_engine *e, eddy_particles p, const char *name);
/* The name of p's element set `index` (in creation order), or NULL past the last. */
EDDY_API const char *eddy_particles_elements_name(eddy_engine *e, eddy_particles p, uint32_t index);
/* Sets how many elements are in use (<= capacity): for modules that build
 * or change them on the device. The element set's draw record follows with
 * eddy's next submission or recording (eddy_flush_staged: at once). */
EDDY_API eddy_result eddy_particles_set_element_count(eddy_engine *e, eddy_particles p, const char *name, uint32_t count);

/* Draw-indirect records for renderers, kept current by eddy: buffers a host
 * passes to vkCmdDrawIndirect / vkCmdDrawIndexedIndirect (every eddy buffer
 * has INDIRECT usage), destroyed with the set. Zero handle after a message
 * for an unknown set or element set.
 *   eddy_particles_draw: two VkDrawIndirectCommand (stride 16):
 *     [0] { count, 1, 0, 0 }: the particles in use as points, a vertex each
 *         (the "position" buffer as the vertex buffer);
 *     [1] { 6, count, 0, 0 }: six vertices (two triangles) per particle
 *         instance, for sphere impostors (the "position" buffer per instance).
 *   eddy_particles_elements_draw: one VkDrawIndexedIndirectCommand
 *     { kind x count, 1, 0, 0, 0 }: the elements in use, the element buffer
 *     as the index buffer (a triangle set's surface mesh as a triangle list,
 *     edges as a line list). A module that builds elements on the GPU may
 *     write this record in its own pass instead (the sph module's live
 *     surface does). */
EDDY_API eddy_buffer eddy_particles_draw(eddy_engine *e, eddy_particles p);
EDDY_API eddy_buffer eddy_particles_elements_draw(eddy_engine *e, eddy_particles p, const char *name);

/* ------------------------------------------------------------------ modules */

typedef struct eddy_module_desc eddy_module_desc; /* eddy_module.h */

/* Registers a module (eddy_module.h) with this engine: the core knows no
 * module by name, so a program registers the ones it uses (eddy's own come
 * with their library, libeddy-modules, which registers them through this).
 * Checked like a loaded module's descriptor (ABI version, required fields, a
 * unique name); the engine keeps its own copy. */
EDDY_API eddy_result eddy_register_module(eddy_engine *e, const eddy_module_desc *desc);
/* The modules registered and loaded so far, in registration order. */
EDDY_API uint32_t eddy_module_count(eddy_engine *e);
EDDY_API const eddy_module_desc *eddy_module_at(eddy_engine *e, uint32_t index);
EDDY_API const eddy_module_desc *eddy_find_module(eddy_engine *e, const char *name);
/* Loads a module from a shared library exporting eddy_module_entry
 * (see eddy_module.h). A module built for another ABI major or a newer minor,
 * or one whose name is already registered, is refused. */
EDDY_API eddy_result eddy_load_module(eddy_engine *e, const char *path);

#ifdef __cplusplus
}
#endif
#endif
