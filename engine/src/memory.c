/* Device memory: buffers are sub-allocated from large blocks, so thousands
 * of small buffers stay far under maxMemoryAllocationCount (4,096 on many
 * drivers) and each allocation's fixed cost is paid once a block.
 *
 * Policy (stated in eddy.h): simulation buffers live in device-local memory;
 * staging for uploads in host-visible coherent memory, for downloads in
 * host-cached memory where the device has it (per-step inputs and results
 * go through those rings, staged with the step's submission). Each (memory type, linear or optimal tiling) has its own
 * chain of blocks, so buffers and images never share one and
 * bufferImageGranularity never applies between neighbours. A request over
 * half a block gets a dedicated allocation. Host-visible blocks are mapped
 * once, persistently. */
#include "internal.h"

#include <inttypes.h>

#define BLOCK_BYTES (64ull << 20)

typedef struct free_range {
    uint64_t offset, size;
} free_range;

struct eddy_mem_block {
    VkDeviceMemory memory;
    uint32_t type, heap;
    bool optimal;          /* images with optimal tiling; buffers are linear */
    uint64_t size, used;
    void *mapped;          /* whole block, when host-visible */
    free_range *free;      /* sorted by offset, never adjacent (coalesced) */
    uint32_t free_count, free_cap;
    struct eddy_mem_block *next;
};

/* Bytes still free in a heap: the driver's budget where VK_EXT_memory_budget
 * exists, else the heap size less what eddy itself allocated there. */
uint64_t eddy_heap_free(eddy_engine *e, uint32_t heap)
{
    if (!e->has_memory_budget) {
        uint64_t size = e->memory.memoryHeaps[heap].size, used = e->heap_used[heap];
        return size > used ? size - used : 0;
    }
    VkPhysicalDeviceMemoryBudgetPropertiesEXT budget = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT,
    };
    VkPhysicalDeviceMemoryProperties2 p = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2,
        .pNext = &budget,
    };
    e->vki.vkGetPhysicalDeviceMemoryProperties2(e->physical_device, &p);
    uint64_t b = budget.heapBudget[heap], u = budget.heapUsage[heap];
    return b > u ? b - u : 0;
}

static int find_type(eddy_engine *e, uint32_t bits, VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid)
{
    for (uint32_t i = 0; i < e->memory.memoryTypeCount; i++) {
        VkMemoryPropertyFlags f = e->memory.memoryTypes[i].propertyFlags;
        if ((bits & (1u << i)) && (f & want) == want && !(f & avoid))
            return (int)i;
    }
    return -1;
}

/* The memory type for a purpose, best first, then what must do. */
static int pick_type(eddy_engine *e, uint32_t bits, eddy_mem_purpose purpose)
{
    const VkMemoryPropertyFlags visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    const VkMemoryPropertyFlags local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    int t = -1;
    switch (purpose) {
    case EDDY_MEM_DEVICE:
        t = find_type(e, bits, local, 0);
        if (t < 0)
            t = find_type(e, bits, 0, 0);
        break;
    case EDDY_MEM_UPLOAD:
        t = find_type(e, bits, visible, VK_MEMORY_PROPERTY_HOST_CACHED_BIT | local);
        if (t < 0)
            t = find_type(e, bits, visible, 0);
        break;
    case EDDY_MEM_READBACK:
        t = find_type(e, bits, visible | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 0);
        if (t < 0)
            t = find_type(e, bits, visible, 0);
        break;
    }
    return t;
}

static eddy_result new_memory(eddy_engine *e, uint32_t type, uint64_t size, const char *label,
                              VkDeviceMemory *memory, void **mapped)
{
    uint32_t heap = e->memory.memoryTypes[type].heapIndex;
    uint64_t free_bytes = eddy_heap_free(e, heap);
    if (size > free_bytes) {
        eddy_log(e, EDDY_LOG_ERROR,
                 "memory.device", "buffer '%s': %" PRIu64 " bytes requested but only %" PRIu64
                 " bytes are free in memory heap %u of device '%s'",
                 label, size, free_bytes, heap, e->info.name);
        return EDDY_ERROR_LIMIT;
    }
    VkMemoryAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .allocationSize = size,
        .memoryTypeIndex = type,
    };
    VkResult r = e->vk.vkAllocateMemory(e->device, &ai, NULL, memory);
    if (r != VK_SUCCESS) {
        eddy_log(e, EDDY_LOG_ERROR, "memory.device", "buffer '%s': allocating %" PRIu64 " bytes failed: %s", label, size,
                 eddy_vk_result_string(r));
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    *mapped = NULL;
    const VkMemoryPropertyFlags visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if ((e->memory.memoryTypes[type].propertyFlags & visible) == visible &&
        e->vk.vkMapMemory(e->device, *memory, 0, VK_WHOLE_SIZE, 0, mapped) != VK_SUCCESS)
        *mapped = NULL;
    e->heap_used[heap] += size;
    e->memory_allocations++;
    return EDDY_OK;
}

static void free_memory(eddy_engine *e, VkDeviceMemory memory, uint32_t type, uint64_t size)
{
    e->vk.vkFreeMemory(e->device, memory, NULL);
    e->heap_used[e->memory.memoryTypes[type].heapIndex] -= size;
    e->memory_allocations--;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

/* First fit in one block; true with *offset on success. */
static bool take(struct eddy_mem_block *b, uint64_t size, uint64_t alignment, uint64_t *offset)
{
    for (uint32_t i = 0; i < b->free_count; i++) {
        free_range *f = &b->free[i];
        uint64_t start = align_up(f->offset, alignment);
        if (start < f->offset || start - f->offset > f->size || f->size - (start - f->offset) < size)
            continue;
        uint64_t head = start - f->offset, tail = f->size - head - size;
        if (head && tail) {
            /* Split in two: one more range after this one. */
            if (b->free_count == b->free_cap) {
                uint32_t cap = b->free_cap ? 2 * b->free_cap : 16;
                free_range *grown = realloc(b->free, cap * sizeof *grown);
                if (!grown)
                    return false;
                b->free = grown;
                b->free_cap = cap;
                f = &b->free[i];
            }
            memmove(&b->free[i + 2], &b->free[i + 1], (b->free_count - i - 1) * sizeof *b->free);
            b->free[i + 1] = (free_range){ start + size, tail };
            b->free_count++;
            f->size = head;
        } else if (head) {
            f->size = head;
        } else if (tail) {
            f->offset = start + size;
            f->size = tail;
        } else {
            memmove(&b->free[i], &b->free[i + 1], (b->free_count - i - 1) * sizeof *b->free);
            b->free_count--;
        }
        b->used += size;
        *offset = start;
        return true;
    }
    return false;
}

/* Gives [offset, offset + size) back, merging with its neighbours. Needs room
 * for one more range at most: reserved when the range was taken (free_cap
 * grows before any split), and a give-back that cannot grow merges or
 * leaks the bytes until the block goes. */
static void give(struct eddy_mem_block *b, uint64_t offset, uint64_t size)
{
    uint32_t i = 0;
    while (i < b->free_count && b->free[i].offset < offset)
        i++;
    bool before = i > 0 && b->free[i - 1].offset + b->free[i - 1].size == offset;
    bool after = i < b->free_count && offset + size == b->free[i].offset;
    b->used -= size;
    if (before && after) {
        b->free[i - 1].size += size + b->free[i].size;
        memmove(&b->free[i], &b->free[i + 1], (b->free_count - i - 1) * sizeof *b->free);
        b->free_count--;
    } else if (before) {
        b->free[i - 1].size += size;
    } else if (after) {
        b->free[i].offset = offset;
        b->free[i].size += size;
    } else {
        if (b->free_count == b->free_cap) {
            uint32_t cap = b->free_cap ? 2 * b->free_cap : 16;
            free_range *grown = realloc(b->free, cap * sizeof *grown);
            if (!grown)
                return; /* the bytes stay taken until the block is freed */
            b->free = grown;
            b->free_cap = cap;
        }
        memmove(&b->free[i + 1], &b->free[i], (b->free_count - i) * sizeof *b->free);
        b->free[i] = (free_range){ offset, size };
        b->free_count++;
    }
}

eddy_result eddy_mem_alloc(eddy_engine *e, const VkMemoryRequirements *req, eddy_mem_purpose purpose, bool optimal,
                           const char *label, eddy_alloc *out)
{
    memset(out, 0, sizeof *out);
    int type = pick_type(e, req->memoryTypeBits, purpose);
    if (type < 0) {
        eddy_log(e, EDDY_LOG_ERROR, "device.unsupported", "buffer '%s': no suitable memory type", label);
        return EDDY_ERROR_UNSUPPORTED;
    }
    out->type = (uint32_t)type;
    out->size = req->size;
    uint64_t alignment = req->alignment ? req->alignment : 1;
    if (req->size > BLOCK_BYTES / 2) {
        eddy_result r = new_memory(e, (uint32_t)type, req->size, label, &out->memory, &out->mapped);
        return r;
    }
    struct eddy_mem_block *b;
    for (b = e->blocks; b; b = b->next)
        if (b->type == (uint32_t)type && b->optimal == optimal && b->size - b->used >= req->size &&
            take(b, req->size, alignment, &out->offset))
            break;
    if (!b) {
        b = calloc(1, sizeof *b);
        if (!b) {
            eddy_log(e, EDDY_LOG_ERROR, "memory.host", "buffer '%s': out of host memory", label);
            return EDDY_ERROR_OUT_OF_MEMORY;
        }
        /* A smaller block where the heap has less left than a whole one. */
        uint32_t heap = e->memory.memoryTypes[type].heapIndex;
        uint64_t size = BLOCK_BYTES, left = eddy_heap_free(e, heap);
        if (left < size)
            size = align_up(req->size, alignment);
        b->free = malloc(16 * sizeof *b->free);
        eddy_result r = b->free ? new_memory(e, (uint32_t)type, size, label, &b->memory, &b->mapped)
                                : EDDY_ERROR_OUT_OF_MEMORY;
        if (r != EDDY_OK) {
            free(b->free);
            free(b);
            return r;
        }
        b->free_cap = 16;
        b->free[0] = (free_range){ 0, size };
        b->free_count = 1;
        b->type = (uint32_t)type;
        b->heap = heap;
        b->optimal = optimal;
        b->size = size;
        b->next = e->blocks;
        e->blocks = b;
        if (!take(b, req->size, alignment, &out->offset)) {
            eddy_log(e, EDDY_LOG_ERROR, "memory.host", "buffer '%s': out of host memory", label);
            return EDDY_ERROR_OUT_OF_MEMORY;
        }
    }
    out->block = b;
    out->memory = b->memory;
    out->mapped = b->mapped ? (char *)b->mapped + out->offset : NULL;
    return EDDY_OK;
}

void eddy_mem_free(eddy_engine *e, const eddy_alloc *a)
{
    if (!a->memory)
        return;
    if (!a->block) {
        free_memory(e, a->memory, a->type, a->size);
        return;
    }
    struct eddy_mem_block *b = a->block;
    give(b, a->offset, a->size);
    if (b->used)
        return;
    /* An empty block goes back, unless it is the only one of its kind. */
    struct eddy_mem_block **link = &e->blocks;
    bool other = false;
    for (struct eddy_mem_block *o = e->blocks; o; o = o->next)
        other |= o != b && o->type == b->type && o->optimal == b->optimal;
    if (!other)
        return;
    while (*link != b)
        link = &(*link)->next;
    *link = b->next;
    free_memory(e, b->memory, b->type, b->size);
    free(b->free);
    free(b);
}

void eddy_mem_release_all(eddy_engine *e)
{
    while (e->blocks) {
        struct eddy_mem_block *b = e->blocks;
        e->blocks = b->next;
        free_memory(e, b->memory, b->type, b->size);
        free(b->free);
        free(b);
    }
}

bool eddy_mem_host_coherent_visible(const eddy_engine *e, const eddy_alloc *a)
{
    const VkMemoryPropertyFlags visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    return (e->memory.memoryTypes[a->type].propertyFlags & visible) == visible;
}
