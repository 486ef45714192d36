/* Storage and sampled images (1D/2D/3D), beside buffers.
 *
 * Between submissions every image is in VK_IMAGE_LAYOUT_GENERAL: creation
 * (and adoption) moves it there, uploads and downloads (through the
 * transfer rings) switch to TRANSFER_*_OPTIMAL and back, and a
 * graph's barriers move it to SHADER_READ_ONLY_OPTIMAL for sampling passes
 * and back (graph.c, graph_sync.c). */
#include "internal.h"

#include <inttypes.h>

eddy_image_obj *eddy_image_get(eddy_engine *e, eddy_image im)
{
    return eddy_pool_get(&e->images, im.id);
}

static const struct {
    VkFormat vk;
    uint32_t bytes;
    const char *name;
} formats[] = {
    [EDDY_FORMAT_R32F] = { VK_FORMAT_R32_SFLOAT, 4, "r32f (VK_FORMAT_R32_SFLOAT)" },
    [EDDY_FORMAT_RG32F] = { VK_FORMAT_R32G32_SFLOAT, 8, "rg32f (VK_FORMAT_R32G32_SFLOAT)" },
    [EDDY_FORMAT_RGBA32F] = { VK_FORMAT_R32G32B32A32_SFLOAT, 16, "rgba32f (VK_FORMAT_R32G32B32A32_SFLOAT)" },
    [EDDY_FORMAT_RGBA16F] = { VK_FORMAT_R16G16B16A16_SFLOAT, 8, "rgba16f (VK_FORMAT_R16G16B16A16_SFLOAT)" },
    [EDDY_FORMAT_RGBA8] = { VK_FORMAT_R8G8B8A8_UNORM, 4, "rgba8 (VK_FORMAT_R8G8B8A8_UNORM)" },
    [EDDY_FORMAT_R32UI] = { VK_FORMAT_R32_UINT, 4, "r32ui (VK_FORMAT_R32_UINT)" },
};

static bool format_known(eddy_format f)
{
    return (uint32_t)f >= EDDY_FORMAT_R32F && (uint32_t)f <= EDDY_FORMAT_R32UI;
}

uint32_t eddy_format_texel_bytes(eddy_format f)
{
    return format_known(f) ? formats[f].bytes : 0;
}

/* The features the usage needs, checked on optimal tiling; logs the first
 * one missing. */
static bool check_features(eddy_engine *e, const char *label, eddy_format f, uint32_t usage,
                           eddy_filter filter)
{
    VkFormatProperties fp = { 0 };
    e->vki.vkGetPhysicalDeviceFormatProperties(e->physical_device, formats[f].vk, &fp);
    VkFormatFeatureFlags have = fp.optimalTilingFeatures;
    struct {
        bool wanted;
        VkFormatFeatureFlags bit;
        const char *name;
    } need[] = {
        { usage & EDDY_IMAGE_STORAGE, VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT, "STORAGE_IMAGE (for EDDY_IMAGE_STORAGE)" },
        { usage & EDDY_IMAGE_SAMPLED, VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT, "SAMPLED_IMAGE (for EDDY_IMAGE_SAMPLED)" },
        { (usage & EDDY_IMAGE_SAMPLED) && filter == EDDY_FILTER_LINEAR,
          VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT, "SAMPLED_IMAGE_FILTER_LINEAR (for EDDY_FILTER_LINEAR)" },
        { true, VK_FORMAT_FEATURE_TRANSFER_SRC_BIT, "TRANSFER_SRC (for downloads)" },
        { true, VK_FORMAT_FEATURE_TRANSFER_DST_BIT, "TRANSFER_DST (for uploads)" },
    };
    for (size_t i = 0; i < sizeof need / sizeof *need; i++)
        if (need[i].wanted && !(have & need[i].bit)) {
            eddy_log(e, EDDY_LOG_ERROR, "image.unsupported", "image '%s': format %s lacks the feature %s with optimal tiling "
                     "on device '%s'; pick another format or usage", label, formats[f].name, need[i].name,
                     e->info.name);
            return false;
        }
    return true;
}

/* A layout change of the whole image in a one-shot transfer, against
 * everything before and after it. */
static void transition(eddy_engine *e, VkCommandBuffer cb, VkImage image, VkImageLayout from, VkImageLayout to)
{
    VkImageMemoryBarrier ib = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
        .oldLayout = from,
        .newLayout = to,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .image = image,
        .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
    };
    e->vk.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0,
                               NULL, 0, NULL, 1, &ib);
}

/* One-shot: layout from `old` to GENERAL, with zeros when `clear`. */
static eddy_result initialise(eddy_engine *e, eddy_image_obj *im, VkImageLayout old, bool clear)
{
    VkCommandBuffer cb;
    eddy_result r = eddy_begin_transfer(e, &cb);
    if (r != EDDY_OK)
        return r;
    if (clear) {
        VkImageSubresourceRange range = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
        VkClearColorValue zero = { { 0 } };
        transition(e, cb, im->image, old, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
        e->vk.vkCmdClearColorImage(cb, im->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &zero, 1, &range);
        old = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    }
    transition(e, cb, im->image, old, VK_IMAGE_LAYOUT_GENERAL);
    uint64_t v;
    r = eddy_end_transfer_value(e, &v);
    if (r == EDDY_OK)
        eddy_use_merge(&im->use, (eddy_use){ v, 0 });
    return r;
}

static void destroy_objects(eddy_engine *e, eddy_image_obj *im, bool now)
{
    eddy_deferred d = { .use = im->use, .image = im->adopted ? VK_NULL_HANDLE : im->image, .view = im->view,
                        .sampler = im->sampler, .alloc = im->alloc };
    if (now) {
        if (d.sampler)
            e->vk.vkDestroySampler(e->device, d.sampler, NULL);
        if (d.view)
            e->vk.vkDestroyImageView(e->device, d.view, NULL);
        if (d.image)
            e->vk.vkDestroyImage(e->device, d.image, NULL);
        eddy_mem_free(e, &d.alloc);
    } else {
        eddy_defer(e, &d);
    }
}

eddy_image eddy_create_image(eddy_engine *e, const eddy_image_desc *desc)
{
    EDDY_ENGINE_GUARD(e, return (eddy_image){ 0 });
    EDDY_TAKE_DESC(e, eddy_image_desc, desc, return (eddy_image){ 0 });
    eddy_image none = { 0 };
    const char *label = desc && desc->label && *desc->label ? desc->label : "(unnamed)";
    if (!desc || !format_known(desc->format)) {
        eddy_log(e, EDDY_LOG_ERROR, "image.invalid", "image '%s': format must be one of EDDY_FORMAT_R32F, RG32F, RGBA32F, "
                 "RGBA16F, RGBA8, R32UI (got %d)", label, desc ? (int)desc->format : 0);
        return none;
    }
    uint32_t ext[3] = { desc->width, desc->height ? desc->height : 1, desc->depth ? desc->depth : 1 };
    uint32_t dims = desc->dimensions ? desc->dimensions : ext[2] > 1 ? 3 : ext[1] > 1 ? 2 : 1;
    uint32_t usage = desc->usage ? desc->usage : EDDY_IMAGE_STORAGE | EDDY_IMAGE_SAMPLED;
    if (dims > 3 || ext[0] == 0 || (dims < 3 && ext[2] != 1) || (dims < 2 && ext[1] != 1) ||
        (usage & ~(uint32_t)(EDDY_IMAGE_STORAGE | EDDY_IMAGE_SAMPLED)) ||
        (uint32_t)desc->filter > EDDY_FILTER_LINEAR) {
        eddy_log(e, EDDY_LOG_ERROR, "image.invalid", "image '%s': %u-dimensional %ux%ux%u with usage 0x%x and filter %d is not "
                 "valid (width > 0; height 1 below 2D, depth 1 below 3D; usage EDDY_IMAGE_STORAGE | "
                 "EDDY_IMAGE_SAMPLED; filter nearest or linear)", label, dims, ext[0], ext[1], ext[2], usage,
                 (int)desc->filter);
        return none;
    }
    VkPhysicalDeviceProperties props;
    e->vki.vkGetPhysicalDeviceProperties(e->physical_device, &props);
    uint32_t limit = dims == 1 ? props.limits.maxImageDimension1D
                   : dims == 2 ? props.limits.maxImageDimension2D : props.limits.maxImageDimension3D;
    for (uint32_t a = 0; a < dims; a++)
        if (ext[a] > limit) {
            eddy_log(e, EDDY_LOG_ERROR, "image.too_large", "image '%s': %s of %u texels exceeds the device's maxImageDimension%uD "
                     "of %u (device '%s')", label, a == 0 ? "width" : a == 1 ? "height" : "depth", ext[a], dims,
                     limit, e->info.name);
            return none;
        }
    if (!check_features(e, label, desc->format, usage, desc->filter))
        return none;
    uint64_t bytes = (uint64_t)ext[0] * ext[1] * ext[2] * formats[desc->format].bytes;
    if (bytes > e->info.device_local_bytes) {
        eddy_log(e, EDDY_LOG_ERROR, "image.too_large", "image '%s': %" PRIu64 " bytes exceed the device-local heap of %" PRIu64,
                 label, bytes, e->info.device_local_bytes);
        return none;
    }
    static const VkImageType types[] = { VK_IMAGE_TYPE_1D, VK_IMAGE_TYPE_2D, VK_IMAGE_TYPE_3D };
    static const VkImageViewType view_types[] = { VK_IMAGE_VIEW_TYPE_1D, VK_IMAGE_VIEW_TYPE_2D,
                                                  VK_IMAGE_VIEW_TYPE_3D };
    eddy_image_obj tmp = { 0 };
    tmp.vk_format = formats[desc->format].vk;
    tmp.format = desc->format;
    tmp.usage = usage;
    tmp.dimensions = dims;
    memcpy(tmp.extent, ext, sizeof ext);
    eddy_copy_label(tmp.label, sizeof tmp.label, desc->label, "(unnamed)");
    VkResult vr = VK_SUCCESS;
    eddy_result res = EDDY_OK;
    if (desc->adopt_image) {
        tmp.image = desc->adopt_image;
        tmp.adopted = true;
    } else {
        VkImageCreateInfo ci = {
            .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
            .imageType = types[dims - 1],
            .format = tmp.vk_format,
            .extent = { ext[0], ext[1], ext[2] },
            .mipLevels = 1,
            .arrayLayers = 1,
            .samples = VK_SAMPLE_COUNT_1_BIT,
            .tiling = VK_IMAGE_TILING_OPTIMAL,
            .usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                     ((usage & EDDY_IMAGE_STORAGE) ? VK_IMAGE_USAGE_STORAGE_BIT : 0) |
                     ((usage & EDDY_IMAGE_SAMPLED) ? VK_IMAGE_USAGE_SAMPLED_BIT : 0),
            .sharingMode = e->share_count > 1 ? VK_SHARING_MODE_CONCURRENT : VK_SHARING_MODE_EXCLUSIVE,
            .queueFamilyIndexCount = e->share_count > 1 ? e->share_count : 0,
            .pQueueFamilyIndices = e->share_families,
            .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
        };
        vr = e->vk.vkCreateImage(e->device, &ci, NULL, &tmp.image);
        if (vr != VK_SUCCESS) {
            eddy_log(e, EDDY_LOG_ERROR, "vulkan.call", "image '%s': vkCreateImage failed: %s", label, eddy_vk_result_string(vr));
            return none;
        }
        VkMemoryRequirements req;
        e->vk.vkGetImageMemoryRequirements(e->device, tmp.image, &req);
        res = eddy_mem_alloc(e, &req, EDDY_MEM_DEVICE, true, label, &tmp.alloc);
        if (res == EDDY_OK) {
            vr = e->vk.vkBindImageMemory(e->device, tmp.image, tmp.alloc.memory, tmp.alloc.offset);
            if (vr != VK_SUCCESS)
                res = eddy_vk_fail(e, vr, "vkBindImageMemory");
        }
    }
    if (res == EDDY_OK) {
        VkImageViewCreateInfo vi = {
            .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
            .image = tmp.image,
            .viewType = view_types[dims - 1],
            .format = tmp.vk_format,
            .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
        };
        vr = e->vk.vkCreateImageView(e->device, &vi, NULL, &tmp.view);
        if (vr != VK_SUCCESS)
            res = eddy_vk_fail(e, vr, "vkCreateImageView");
    }
    if (res == EDDY_OK) {
        VkFilter f = desc->filter == EDDY_FILTER_LINEAR ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
        VkSamplerCreateInfo si = {
            .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
            .magFilter = f,
            .minFilter = f,
            .mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
            .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
            .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
            .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
            .maxLod = 0.0f,
        };
        vr = e->vk.vkCreateSampler(e->device, &si, NULL, &tmp.sampler);
        if (vr != VK_SUCCESS)
            res = eddy_vk_fail(e, vr, "vkCreateSampler");
    }
    uint32_t id = 0;
    eddy_image_obj *im = res == EDDY_OK ? eddy_pool_alloc(&e->images, &id) : NULL;
    if (!im) {
        if (res == EDDY_OK)
            eddy_log(e, EDDY_LOG_ERROR, "memory.host", "image '%s': out of host memory", label);
        destroy_objects(e, &tmp, true);
        return none;
    }
    eddy_slot slot = im->slot;
    *im = tmp;
    im->slot = slot;
    if (!tmp.adopted)
        eddy_set_name(e, VK_OBJECT_TYPE_IMAGE, (uint64_t)tmp.image, im->label);
    eddy_image h = { id };
    VkImageLayout old = tmp.adopted ? desc->adopt_layout : VK_IMAGE_LAYOUT_UNDEFINED;
    res = initialise(e, im, old, !tmp.adopted && !desc->data);
    if (res == EDDY_OK && desc->data)
        res = eddy_image_upload(e, h, NULL, desc->data);
    if (res != EDDY_OK) {
        eddy_destroy_image(e, h);
        return none;
    }
    return h;
}

void eddy_destroy_image(eddy_engine *e, eddy_image h)
{
    EDDY_ENGINE_GUARD(e, return);
    eddy_image_obj *im = eddy_image_get(e, h);
    if (!im)
        return;
    destroy_objects(e, im, false);
    eddy_pool_free(&e->images, h.id);
    e->destroys++;
}

/* At engine destruction, after eddy_release_deferred: nothing runs. */
void eddy_destroy_all_images(eddy_engine *e)
{
    for (uint32_t i = 0; i < e->images.count; i++) {
        eddy_image_obj *im = (eddy_image_obj *)(e->images.items + (size_t)i * e->images.elem_size);
        if (im->slot.live) {
            destroy_objects(e, im, true);
            im->slot.live = false;
        }
    }
}

typedef struct image_copy {
    eddy_image_obj *im;
    bool upload;
    uint32_t off[3], ext[3];
    uint64_t value; /* set once a chunk was recorded */
} image_copy;

/* Rows [first, first + count) of the region (row r: y = r % height, z =
 * r / height), one box per slice they cross. Images are in GENERAL outside
 * graphs and go back there; the copies run in the transfer layout. */
static eddy_result record_image_copy(eddy_engine *e, VkCommandBuffer cb, VkBuffer ring, uint64_t ring_offset,
                                     uint64_t first, uint64_t count, void *user)
{
    image_copy *c = user;
    uint64_t h = c->ext[1], row = (uint64_t)c->ext[0] * formats[c->im->format].bytes;
    uint64_t boxes = (first % h + count + h - 1) / h + 1;
    VkBufferImageCopy *copies = calloc(boxes, sizeof *copies);
    if (!copies)
        return EDDY_ERROR_OUT_OF_MEMORY;
    uint32_t n = 0;
    for (uint64_t r = first; r < first + count;) {
        uint64_t y = r % h, z = r / h, rows = h - y < first + count - r ? h - y : first + count - r;
        copies[n++] = (VkBufferImageCopy){
            .bufferOffset = ring_offset + (r - first) * row,
            .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
            .imageOffset = { (int32_t)c->off[0], (int32_t)(c->off[1] + y), (int32_t)(c->off[2] + z) },
            .imageExtent = { c->ext[0], (uint32_t)rows, 1 },
        };
        r += rows;
    }
    VkImageLayout layout = c->upload ? VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    transition(e, cb, c->im->image, VK_IMAGE_LAYOUT_GENERAL, layout);
    if (c->upload)
        e->vk.vkCmdCopyBufferToImage(cb, ring, c->im->image, layout, n, copies);
    else
        e->vk.vkCmdCopyImageToBuffer(cb, c->im->image, layout, ring, n, copies);
    transition(e, cb, c->im->image, layout, VK_IMAGE_LAYOUT_GENERAL);
    free(copies);
    c->value = 1;
    return EDDY_OK;
}

static eddy_result transfer(eddy_engine *e, eddy_image h, const eddy_image_region *region, void *data,
                            bool upload)
{
    const char *what = upload ? "image_upload" : "image_download";
    eddy_image_obj *im = eddy_image_get(e, h);
    if (!im || !data) {
        eddy_log(e, EDDY_LOG_ERROR, "image.range", "%s: not a live image handle, or no data", what);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    eddy_image_region r = region ? *region : (eddy_image_region){ 0 };
    if (!r.width && !r.height && !r.depth && !r.x && !r.y && !r.z)
        r = (eddy_image_region){ 0, 0, 0, im->extent[0], im->extent[1], im->extent[2] };
    uint32_t off[3] = { r.x, r.y, r.z }, ext[3] = { r.width, r.height, r.depth };
    for (int a = 0; a < 3; a++)
        if (ext[a] == 0 || off[a] > im->extent[a] || ext[a] > im->extent[a] - off[a]) {
            eddy_log(e, EDDY_LOG_ERROR, "image.range", "%s: region at (%u, %u, %u) of %ux%ux%u texels lies outside image '%s' "
                     "(%ux%ux%u)", what, r.x, r.y, r.z, r.width, r.height, r.depth, im->label, im->extent[0],
                     im->extent[1], im->extent[2]);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
    image_copy c = { im, upload, { off[0], off[1], off[2] }, { ext[0], ext[1], ext[2] }, 0 };
    /* Through the transfer rings, a texel row at a time unit: no staging
     * allocation per transfer. */
    uint64_t row = (uint64_t)ext[0] * formats[im->format].bytes;
    eddy_result res = eddy_ring_chunks(e, upload, data, row, (uint64_t)ext[1] * ext[2], record_image_copy, &c);
    if (c.value)
        eddy_use_merge(&im->use, (eddy_use){ e->timeline_value, 0 });
    return res;
}

eddy_result eddy_image_upload(eddy_engine *e, eddy_image im, const eddy_image_region *region,
                              const void *data)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    return transfer(e, im, region, (void *)data, true);
}

eddy_result eddy_image_download(eddy_engine *e, eddy_image im, const eddy_image_region *region, void *data)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    return transfer(e, im, region, data, false);
}

eddy_result eddy_image_vk(eddy_engine *e, eddy_image h, eddy_vk_image *out)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    eddy_image_obj *im = eddy_image_get(e, h);
    if (!im || !out) {
        eddy_log(e, EDDY_LOG_ERROR, "handle.invalid", "image_vk: not a live image handle");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    *out = (eddy_vk_image){ im->image, im->view, im->sampler, im->vk_format,
                            { im->extent[0], im->extent[1], im->extent[2] }, VK_IMAGE_LAYOUT_GENERAL };
    return EDDY_OK;
}
