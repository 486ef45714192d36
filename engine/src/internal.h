/* Engine internals shared by the engine's source files. */
#ifndef EDDY_INTERNAL_H
#define EDDY_INTERNAL_H

#include <volk.h>

#include "eddy/eddy.h"
#include "eddy/eddy_module.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ handle pools */

/* Slots addressed by generation-checked ids: id = generation << 20 | (index + 1),
 * so a stale handle (its slot freed and reused) is recognised and ignored. */
typedef struct eddy_pool {
    unsigned char *items; /* elem_size bytes each; first member of each item is eddy_slot */
    uint32_t count, cap, elem_size;
} eddy_pool;

typedef struct eddy_slot {
    uint32_t generation;
    bool live;
} eddy_slot;

#define EDDY_ID_INDEX_BITS 20u
void *eddy_pool_get(eddy_pool *p, uint32_t id);
/* Returns a zeroed live item and its id, or NULL on out of memory. The item
 * pointer is valid until the next allocation in the pool. */
void *eddy_pool_alloc(eddy_pool *p, uint32_t *id);
void eddy_pool_free(eddy_pool *p, uint32_t id);
void eddy_pool_release(eddy_pool *p);
#define EDDY_POOL(type) ((eddy_pool){ .elem_size = sizeof(type) })

/* ------------------------------------------------------------------ memory */

/* What a buffer's memory is for (memory.c picks the type). */
typedef enum eddy_mem_purpose {
    EDDY_MEM_DEVICE,   /* simulation data: device-local */
    EDDY_MEM_UPLOAD,   /* host writes, device reads: host-visible coherent, uncached */
    EDDY_MEM_READBACK, /* device writes, host reads: host-cached where the device has it */
} eddy_mem_purpose;

/* A range of device memory: in a shared block, or a dedicated allocation
 * (block NULL). mapped: the range's host address when host-visible. */
typedef struct eddy_alloc {
    struct eddy_mem_block *block;
    VkDeviceMemory memory;
    uint64_t offset, size;
    uint32_t type;
    void *mapped;
} eddy_alloc;

/* ------------------------------------------------------------------ lifetimes */

/* The last use of a resource by the GPU: eddy's own submissions (a value of
 * the engine's timeline) and host command buffers it was recorded into (the
 * host marks up to this epoch, see eddy_graph_record). Vulkan objects are
 * released only once both have finished. */
typedef struct eddy_use {
    uint64_t value;
    uint64_t host_epoch;
} eddy_use;

/* Formats a buffer can be viewed in as a storage texel buffer at once. */
#define EDDY_TEXEL_VIEWS 4

/* Vulkan objects waiting for their last use to finish; any field may be
 * null. */
typedef struct eddy_deferred {
    eddy_use use;
    VkBuffer buffer;
    VkBufferView buffer_views[EDDY_TEXEL_VIEWS];
    eddy_alloc alloc;
    struct eddy_shared_pipeline *pipeline;
    VkDescriptorPool pool;
    VkCommandBuffer cb, cb2, cb3;
    VkQueryPool queries;
    VkImage image;      /* never an adopted one */
    VkImageView view;
    VkSampler sampler;
} eddy_deferred;

/* A host command buffer eddy recorded into: finished when `semaphore`
 * reaches `value`, or (no semaphore) when the host calls
 * eddy_recorded_work_done. */
typedef struct eddy_host_mark {
    uint64_t epoch;
    VkSemaphore semaphore;
    uint64_t value;
} eddy_host_mark;

/* ------------------------------------------------------------------ objects */

typedef struct eddy_buffer_obj {
    eddy_slot slot;
    VkBuffer buffer;
    eddy_alloc alloc;
    uint64_t size;
    void *mapped; /* non-NULL where the memory is host-visible and coherent */
    eddy_use use;
    char label[96];
    VkBufferView views[EDDY_TEXEL_VIEWS]; /* texel views of the whole buffer, made at first use */
    bool texel_only; /* never bound as a storage buffer (eddy_buffer_desc.texel_only) */
    int32_t view_formats[EDDY_TEXEL_VIEWS];
} eddy_buffer_obj;

typedef struct eddy_image_obj {
    eddy_slot slot;
    VkImage image;
    VkImageView view;
    VkSampler sampler; /* every image has one (its desc's filter) */
    eddy_alloc alloc;  /* none when adopted */
    bool adopted;      /* the host's VkImage: never destroyed by eddy */
    VkFormat vk_format;
    eddy_format format;
    uint32_t usage;    /* EDDY_IMAGE_* */
    uint32_t dimensions;
    uint32_t extent[3];
    eddy_use use;
    char label[96];
} eddy_image_obj;

/* What a kernel binding is (kernel.c reads it from the SPIR-V). */
typedef enum eddy_binding_kind {
    EDDY_BIND_BUFFER = 0,  /* storage buffer (also: a binding the shader does not declare) */
    EDDY_BIND_STORAGE_IMAGE = 1,
    EDDY_BIND_SAMPLED_IMAGE = 2, /* combined image sampler */
} eddy_binding_kind;

/* One pipeline with its layouts, shared by every kernel made from the same
 * SPIR-V, entry point, workgroup size and specialization constants (two
 * systems of one module, or a scene loaded twice, compile it once). */
typedef struct eddy_shared_pipeline {
    uint64_t key[2]; /* two independent hashes of what made it */
    uint32_t refs;   /* live kernel handles on it; 0: kept for reuse */
    eddy_use use;
    uint64_t released; /* e->release_seq when refs last went to 0 */
    VkPipeline pipeline;
    VkPipelineLayout layout;
    VkDescriptorSetLayout set_layout;
    uint32_t binding_count;
    uint32_t workgroup_size;
    uint32_t no_write, no_read; /* per binding bit: NonWritable / NonReadable in the SPIR-V */
    uint8_t kinds[EDDY_MAX_BINDINGS]; /* eddy_binding_kind per binding */
    uint8_t dims[EDDY_MAX_BINDINGS];  /* image bindings: 1, 2 or 3 (0: unknown) */
    int32_t texel_formats[EDDY_MAX_BINDINGS]; /* a buffer binding's VkFormat when the shader reads it as a
                                                 storage texel buffer (imageBuffer); 0: storage buffer */
} eddy_shared_pipeline;

typedef struct eddy_kernel_obj {
    eddy_slot slot;
    eddy_shared_pipeline *shared; /* pipeline, layouts and binding facts */
    char label[96];
} eddy_kernel_obj;

typedef struct eddy_pass {
    char label[96];
    eddy_kernel kernel;
    eddy_binding bindings[EDDY_MAX_BINDINGS]; /* image bindings: access only */
    eddy_image images[EDDY_MAX_BINDINGS];     /* image bindings: the image */
    uint32_t binding_count;
    uint32_t groups[3];
    eddy_buffer indirect;
    uint64_t indirect_offset;
    char kernel_label[48];                          /* for messages after a destroy */
    char binding_labels[EDDY_MAX_BINDINGS + 1][48]; /* the last one: indirect */
    uint32_t push[EDDY_PUSH_CONSTANT_BYTES / 4];
    uint32_t push_size;
    VkDescriptorSet set;
    uint64_t calls;
    double total_ms;
} eddy_pass;

typedef struct eddy_graph_range {
    uint32_t first, count, times;
} eddy_graph_range;

typedef struct eddy_graph_obj {
    eddy_slot slot;
    char label[96];
    uint32_t times;
    bool timestamps;
    eddy_pass *passes;
    uint32_t pass_count, pass_cap;
    eddy_graph_range *ranges;
    uint32_t range_count;
    eddy_use use;
    uint64_t checked_destroys; /* e->destroys when its handles were last checked */
    /* Built at the first run after a change: */
    bool dirty;
    VkDescriptorPool pool;
    VkCommandBuffer cb;       /* the replayed body: [loop barriers] passes */
    VkCommandBuffer entry_cb; /* [entry barriers]: against anything before; NULL when none */
    VkCommandBuffer exit_cb;  /* [exit barriers]: against anything after; NULL when none */
    VkQueryPool queries;
    uint32_t query_count;
    uint32_t *query_pass; /* pass of each begin/end query pair */
} eddy_graph_obj;

typedef struct eddy_named_buffer {
    char name[64];
    eddy_buffer buffer;
    uint32_t element_size;
    bool set_rows; /* the set's own rows, not one a particle (eddy_particles_mark_set_rows) */
} eddy_named_buffer;

typedef struct eddy_element_set {
    char name[64];
    eddy_elements elements;
    eddy_buffer draw; /* VkDrawIndexedIndirectCommand of the elements in use */
} eddy_element_set;

typedef struct eddy_particles_obj {
    eddy_slot slot;
    char name[64];
    uint32_t count, capacity;
    eddy_named_buffer *buffers;
    uint32_t buffer_count;
    eddy_element_set *element_sets;
    uint32_t element_set_count;
    eddy_buffer draw; /* two VkDrawIndirectCommand: points, and a quad per particle */
} eddy_particles_obj;

eddy_particles_obj *eddy_particles_get(eddy_engine *e, eddy_particles p);

struct eddy_engine {
    eddy_log_fn log;
    void *log_user;
    bool quiet; /* eddy_log_quiet: eddy's own messages below error level are dropped */
    char last_error[64]; /* id of the last error eddy itself logged (eddy_last_error) */
    char last_error_text[512]; /* and its text, cut (eddy_last_error_text) */
    bool verbose;
    bool force_staging; /* EDDY_FORCE_STAGING=1: test the staging path on lavapipe */
    uint32_t validation_messages;
    eddy_validation validation;

    bool adopted;
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;
    uint32_t share_families[9];   /* queue_family first, then the adopt desc's others */
    uint32_t share_count;         /* > 1: buffers and images are created concurrent over these */
    bool queue_graphics;     /* the queue family has VK_QUEUE_GRAPHICS_BIT */
    VkDebugUtilsMessengerEXT messenger;
    bool debug_utils;
    struct VolkDeviceTable vk;
    /* Instance functions of this engine's own instance (volk keeps one global
     * set, which the next engine or eddy_enumerate_devices reloads): what
     * eddy calls after creation. */
    struct {
        PFN_vkGetPhysicalDeviceMemoryProperties2 vkGetPhysicalDeviceMemoryProperties2;
        PFN_vkSetDebugUtilsObjectNameEXT vkSetDebugUtilsObjectNameEXT;
        PFN_vkDestroyDebugUtilsMessengerEXT vkDestroyDebugUtilsMessengerEXT;
        PFN_vkDestroyInstance vkDestroyInstance;
        PFN_vkGetPhysicalDeviceFormatProperties vkGetPhysicalDeviceFormatProperties;
        PFN_vkGetPhysicalDeviceProperties vkGetPhysicalDeviceProperties;
    } vki;

    eddy_device_info info;
    VkPhysicalDeviceMemoryProperties memory;
    bool has_memory_budget;
    uint64_t heap_used[VK_MAX_MEMORY_HEAPS]; /* bytes eddy allocated, for devices without a budget */
    struct eddy_mem_block *blocks;          /* memory.c's blocks, every type */
    struct eddy_ring *upload_ring, *download_ring; /* ring.c */
    struct eddy_staged *staged;             /* staged writes and reads for the next submission */
    uint32_t memory_allocations;            /* live vkAllocateMemory allocations */
    uint32_t timestamp_bits;
    uint64_t max_allocation;

    VkCommandPool command_pool;
    VkCommandBuffer transfer_cb;
    VkSemaphore timeline;
    uint64_t timeline_value; /* the last value a successful submit will signal */
    /* eddy_graph_submit_after's waits, taken by the next queue submission */
    VkSemaphore submit_wait_sem[EDDY_SUBMIT_WAITS_MAX];
    uint64_t submit_wait_value[EDDY_SUBMIT_WAITS_MAX];
    uint32_t submit_wait_count;
    uint64_t completed;      /* the last value seen signalled */

    eddy_deferred *deferred; /* released once their use has finished */
    uint32_t deferred_count, deferred_cap;
    eddy_host_mark *marks;   /* host recordings not known to be finished */
    uint32_t mark_count, mark_cap;
    uint64_t host_epoch;
    uint64_t destroys;       /* buffers and kernels destroyed so far */
    uint64_t submits, waits; /* eddy_engine_counters */

    eddy_pool buffers, kernels, graphs, particles, images;

    VkPipelineCache pipeline_cache;
    char cache_path[4096];    /* the cache file; "" = none on disk */
    char cache_dir[3800];
    uint8_t cache_uuid[VK_UUID_SIZE];
    uint32_t cache_vendor, cache_device, cache_driver;
    size_t cache_loaded, cache_saved; /* bytes of driver data read at creation, written at the end */
    void *shaderc;            /* one shaderc compiler, made at the first GLSL kernel */

    eddy_shared_pipeline **pipelines; /* every shared pipeline alive, unordered */
    uint32_t pipeline_count, pipeline_cap;
    uint64_t pipelines_created; /* pipelines compiled since the engine began */
    uint32_t pipelines_keep;    /* at most this many with refs 0 */
    uint64_t release_seq;

    struct eddy_prims_kernels *prims; /* scan/sort/grid/reduce kernels, made at first use */

    /* Modules: built-in ones and those loaded from shared libraries. */
    eddy_module_desc **modules; /* the registry's own copies (older minors zero-filled) */
    void **module_libraries; /* dlopen handle per module, NULL for built-in */
    /* eddy_engine_on_destroy: what to tell before the engine goes. */
    struct { eddy_engine_teardown_fn fn; void *user; } *teardowns;
    uint32_t teardown_count, teardown_cap;
    uint32_t module_count;
};

/* ------------------------------------------------------------------ helpers */

void eddy_logv(eddy_engine *e, eddy_log_level level, const char *source, const char *id,
               const char *fmt, va_list ap);
const char *eddy_vk_result_string(VkResult r);
/* Logs a failed Vulkan call and maps it to an eddy_result. */
eddy_result eddy_vk_fail(eddy_engine *e, VkResult r, const char *what);
void eddy_set_name(eddy_engine *e, VkObjectType type, uint64_t handle, const char *name);
void eddy_copy_label(char *dst, size_t cap, const char *src, const char *fallback);

eddy_buffer_obj *eddy_buffer_get(eddy_engine *e, eddy_buffer b);
/* Storage texel buffers: bytes per texel of a format eddy views buffers in,
 * whether buffer b can be viewed in it (a message naming `what` if not),
 * and its view (made at first use, destroyed with the buffer). */
uint32_t eddy_texel_size(int32_t format);
eddy_result eddy_buffer_texel_check(eddy_engine *e, const eddy_buffer_obj *b, int32_t format, const char *what);
VkBufferView eddy_buffer_texel_view(eddy_engine *e, eddy_buffer_obj *b, int32_t format);
eddy_kernel_obj *eddy_kernel_get(eddy_engine *e, eddy_kernel k);
eddy_image_obj *eddy_image_get(eddy_engine *e, eddy_image im);
eddy_graph_obj *eddy_graph_get(eddy_engine *e, eddy_graph g);
/* graph_record.c: the barriers of a graph as eddy's own replayed recording
 * places them (graph_sync.h's plan) and the planner's resources (index:
 * the planner's id), which the caller frees with the plan. */
typedef struct eddy_res_ref {
    uint32_t id;
    bool image;
} eddy_res_ref;
struct eddy_sync_plan;
eddy_result eddy_graph_plan(eddy_engine *e, eddy_graph_obj *g, struct eddy_sync_plan *plan, eddy_res_ref **refs);
/* Drops a graph's recording (command buffers, descriptor pool, queries) once
 * its last use has finished and marks the graph dirty (graph.c; graph_record.c
 * builds the recording again at the next run). */
void eddy_graph_release_recording(eddy_engine *e, eddy_graph_obj *g);
void eddy_destroy_all_images(eddy_engine *e);

/* One-shot command buffer on the engine's queue, waited for with a fence. */
eddy_result eddy_begin_transfer(eddy_engine *e, VkCommandBuffer *cb);
eddy_result eddy_end_transfer(eddy_engine *e);

/* Submits command buffers and signals the timeline with a new value. */
eddy_result eddy_submit(eddy_engine *e, const VkCommandBuffer *cbs, uint32_t count,
                        uint64_t *value);

/* Releases what `d` holds now when its use has finished, else when it has
 * (checked at submits, waits and engine destruction). */
void eddy_defer(eddy_engine *e, const eddy_deferred *d);
/* The last timeline value seen signalled (asks the driver). */
uint64_t eddy_completed(eddy_engine *e);
/* Transfer rings and staged I/O (ring.c). */
eddy_result eddy_rings_create(eddy_engine *e);
void eddy_rings_destroy(eddy_engine *e);
eddy_result eddy_ring_transfer(eddy_engine *e, VkBuffer buffer, uint64_t offset, uint64_t size, char *host,
                               bool upload);
/* A synchronous transfer of `units` units of `unit_bytes` bytes through a
 * ring, in chunks (each submitted and waited for): `record` records the copy
 * of units [first, first + count) between the ring (at ring_offset) and the
 * device object. */
typedef eddy_result (*eddy_ring_record_fn)(eddy_engine *e, VkCommandBuffer cb, VkBuffer ring, uint64_t ring_offset,
                                           uint64_t first, uint64_t count, void *user);
eddy_result eddy_ring_chunks(eddy_engine *e, bool upload, char *host, uint64_t unit_bytes, uint64_t units,
                             eddy_ring_record_fn record, void *user);
bool eddy_staged_pending(const eddy_engine *e);
/* Submits cbs (at most EDDY_SUBMIT_MAX) with the staged writes before and
 * the staged reads after them, in one submission; *value: its timeline
 * value. */
#define EDDY_SUBMIT_MAX 260
eddy_result eddy_submit_staged(eddy_engine *e, const VkCommandBuffer *cbs, uint32_t count, uint64_t *value);
void eddy_staged_collect(eddy_engine *e);
/* Staged I/O in a host's recording (eddy_graph_record): the queued writes
 * as copies into cb (before the graph), the queued reads (after it), then
 * the host mark `epoch` that holds their ring space until it finishes. */
void eddy_staged_record_writes(eddy_engine *e, VkCommandBuffer cb);
void eddy_staged_record_reads(eddy_engine *e, VkCommandBuffer cb);
void eddy_staged_recorded(eddy_engine *e, uint64_t epoch);
void eddy_staged_forget(eddy_engine *e, uint32_t buffer);
/* Submits the one-shot transfer buffer and waits; *value: its timeline value. */
eddy_result eddy_end_transfer_value(eddy_engine *e, uint64_t *value);
/* Releases deferred objects whose use has finished. */
void eddy_collect(eddy_engine *e);
bool eddy_use_done(eddy_engine *e, eddy_use u);
/* Waits until `u` has finished (host marks without a semaphore excepted). */
eddy_result eddy_wait_use(eddy_engine *e, eddy_use u);
/* Waits for all of eddy's work, then releases every deferred object. */
void eddy_release_deferred(eddy_engine *e);
void eddy_destroy_shared_pipeline(eddy_engine *e, struct eddy_shared_pipeline *sp);
/* A host recording finishing when `semaphore` reaches `value` (no
 * semaphore: at eddy_recorded_work_done); returns its epoch, 0 when out of
 * memory. */
uint64_t eddy_host_mark_add(eddy_engine *e, VkSemaphore semaphore, uint64_t value);
static inline void eddy_use_merge(eddy_use *u, eddy_use v)
{
    if (v.value > u->value)
        u->value = v.value;
    if (v.host_epoch > u->host_epoch)
        u->host_epoch = v.host_epoch;
}

/* Full barriers at the start and end of every recorded sequence. */
void eddy_cmd_barrier_in(eddy_engine *e, VkCommandBuffer cb);
void eddy_cmd_barrier_out(eddy_engine *e, VkCommandBuffer cb);

void eddy_release_prims(eddy_engine *e);
void eddy_release_modules(eddy_engine *e);
void eddy_destroy_all_graphs(eddy_engine *e);
void eddy_destroy_all_kernels(eddy_engine *e);
void eddy_destroy_all_buffers(eddy_engine *e);
void eddy_destroy_all_particles(eddy_engine *e);

eddy_result eddy_mem_alloc(eddy_engine *e, const VkMemoryRequirements *req, eddy_mem_purpose purpose, bool optimal,
                           const char *label, eddy_alloc *out);
void eddy_mem_free(eddy_engine *e, const eddy_alloc *a);
void eddy_mem_release_all(eddy_engine *e);
bool eddy_mem_host_coherent_visible(const eddy_engine *e, const eddy_alloc *a);
uint64_t eddy_heap_free(eddy_engine *e, uint32_t heap);

/* The pipeline cache on disk (pipeline_cache.c). */
eddy_result eddy_pipeline_cache_open(eddy_engine *e, const char *dir);
void eddy_pipeline_cache_close(eddy_engine *e);

/* Shaderc: GLSL compute source to SPIR-V. *words is malloc'd. */
void eddy_release_shaderc(eddy_engine *e);
eddy_result eddy_compile_glsl(eddy_engine *e, const char *source, const char *name,
                              uint32_t **words, size_t *size);


/* Refuses a module descriptor with a missing or malformed field
 * (module.invalid, naming the module and the field): module_check.c. */
eddy_result eddy_module_check(eddy_engine *e, const eddy_module_desc *m, const char *from);

/* The C API's guards. A NULL engine cannot log through its callback: one
 * line on stderr (handle.invalid, naming the function), and the function's
 * failure value. */
void eddy_null_engine(const char *fn);
#define EDDY_ENGINE_GUARD(e, fail)    \
    do {                              \
        if (!(e)) {                   \
            eddy_null_engine(__func__); \
            fail;                     \
        }                             \
    } while (0)
/* A query's handle: the object, or NULL; a stale handle (destroyed, or
 * another engine's) is logged as handle.invalid naming the function, a
 * zero one ("none") is not. */
void *eddy_pool_query(eddy_engine *e, eddy_pool *p, uint32_t id, const char *fn, const char *kind);
#define eddy_buffer_query(e, h, fn) ((eddy_buffer_obj *)eddy_pool_query((e), &(e)->buffers, (h).id, (fn), "buffer"))
#define eddy_kernel_query(e, h, fn) ((eddy_kernel_obj *)eddy_pool_query((e), &(e)->kernels, (h).id, (fn), "kernel"))
#define eddy_graph_query(e, h, fn) ((eddy_graph_obj *)eddy_pool_query((e), &(e)->graphs, (h).id, (fn), "graph"))
#define eddy_image_query(e, h, fn) ((eddy_image_obj *)eddy_pool_query((e), &(e)->images, (h).id, (fn), "image"))
#define eddy_particles_query(e, h, fn) \
    ((eddy_particles_obj *)eddy_pool_query((e), &(e)->particles, (h).id, (fn), "particle set"))

#endif
