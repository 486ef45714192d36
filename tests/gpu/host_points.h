/* A host's offscreen point renderer for the tests that play a renderer:
 * particles as points from a vec4-per-particle vertex buffer (eddy's
 * "position" layout, stride 16), a front view (x right, y up), into a
 * W x H RGBA8 image copied to host memory; and the picture check of
 * examples/host: every particle in view lights the pixel under its centre,
 * every lit pixel has a particle centre within 2 pixels. Shaders:
 * examples/host/points.{vert,frag}. */
#ifndef EDDY_TEST_HOST_POINTS_H
#define EDDY_TEST_HOST_POINTS_H

#include "host_vk.h"

#include <stdlib.h>
#include <string.h>

static const uint32_t host_points_vert[] =
#include "points.vert.spv.inc"
    ;
static const uint32_t host_points_frag[] =
#include "points.frag.spv.inc"
    ;

enum { HOST_W = 320, HOST_H = 240 };

typedef struct host_points {
    VkImage image;
    VkImageView view;
    VkDeviceMemory image_mem, readback_mem;
    VkBuffer readback;
    VkRenderPass pass;
    VkFramebuffer framebuffer;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    struct { float clip[16], size; } push;
} host_points;

static inline uint32_t host_memory_type(const host_vk *h, uint32_t bits, VkMemoryPropertyFlags want)
{
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(h->pd, &mp);
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want)
            return i;
    REQUIRE(!"no memory type");
    return 0;
}

static inline VkDeviceMemory host_memory(const host_vk *h, VkMemoryRequirements req, VkMemoryPropertyFlags want)
{
    VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                                .memoryTypeIndex = host_memory_type(h, req.memoryTypeBits, want) };
    VkDeviceMemory mem;
    VK(vkAllocateMemory(h->device, &ai, NULL, &mem));
    return mem;
}

/* The view: the box's x-y rectangle, centred, with 5% margin. */
static inline void host_points_create(host_points *r, const host_vk *h, const double box_min[3],
                                      const double box_max[3])
{
    memset(r, 0, sizeof *r);
    VkDevice dev = h->device;
    VkImageCreateInfo imci = { .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                               .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = { HOST_W, HOST_H, 1 }, .mipLevels = 1,
                               .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT,
                               .tiling = VK_IMAGE_TILING_OPTIMAL,
                               .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT };
    VK(vkCreateImage(dev, &imci, NULL, &r->image));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(dev, r->image, &req);
    r->image_mem = host_memory(h, req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    VK(vkBindImageMemory(dev, r->image, r->image_mem, 0));
    VkImageViewCreateInfo vci = { .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = r->image,
                                  .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = imci.format,
                                  .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 } };
    VK(vkCreateImageView(dev, &vci, NULL, &r->view));
    VkBufferCreateInfo rbci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = 4ull * HOST_W * HOST_H,
                                .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT };
    VK(vkCreateBuffer(dev, &rbci, NULL, &r->readback));
    vkGetBufferMemoryRequirements(dev, r->readback, &req);
    r->readback_mem = host_memory(h, req, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    VK(vkBindBufferMemory(dev, r->readback, r->readback_mem, 0));

    VkAttachmentDescription colour = { .format = imci.format, .samples = VK_SAMPLE_COUNT_1_BIT,
                                       .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                       .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
                                       .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
                                       .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
                                       .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL };
    VkAttachmentReference ref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
    VkSubpassDescription sub = { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .colorAttachmentCount = 1,
                                 .pColorAttachments = &ref };
    /* The last frame's draw and copy out come before this frame's clear;
     * the vertex buffer's last transfer write before the draw reads it. */
    VkSubpassDependency deps[2] = {
        { VK_SUBPASS_EXTERNAL, 0,
          VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
          VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_VERTEX_INPUT_BIT,
          VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
          VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT, 0 },
        { 0, VK_SUBPASS_EXTERNAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT, 0 },
    };
    VkRenderPassCreateInfo rpci = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, .attachmentCount = 1,
                                    .pAttachments = &colour, .subpassCount = 1, .pSubpasses = &sub,
                                    .dependencyCount = 2, .pDependencies = deps };
    VK(vkCreateRenderPass(dev, &rpci, NULL, &r->pass));
    VkFramebufferCreateInfo fbci = { .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO, .renderPass = r->pass,
                                     .attachmentCount = 1, .pAttachments = &r->view, .width = HOST_W,
                                     .height = HOST_H, .layers = 1 };
    VK(vkCreateFramebuffer(dev, &fbci, NULL, &r->framebuffer));
    VkPushConstantRange range = { VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof r->push };
    VkPipelineLayoutCreateInfo plci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                        .pushConstantRangeCount = 1, .pPushConstantRanges = &range };
    VK(vkCreatePipelineLayout(dev, &plci, NULL, &r->layout));
    VkShaderModule mods[2];
    const uint32_t *code[2] = { host_points_vert, host_points_frag };
    size_t size[2] = { sizeof host_points_vert, sizeof host_points_frag };
    for (int i = 0; i < 2; i++) {
        VkShaderModuleCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size[i],
                                        .pCode = code[i] };
        VK(vkCreateShaderModule(dev, &ci, NULL, &mods[i]));
    }
    VkPipelineShaderStageCreateInfo stages[2] = {
        { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
          .module = mods[0], .pName = "main" },
        { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
          .module = mods[1], .pName = "main" },
    };
    VkVertexInputBindingDescription binding = { 0, 16, VK_VERTEX_INPUT_RATE_VERTEX };
    VkVertexInputAttributeDescription attribute = { 0, 0, VK_FORMAT_R32G32B32_SFLOAT, 0 };
    VkPipelineVertexInputStateCreateInfo vin = { .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
                                                 .vertexBindingDescriptionCount = 1,
                                                 .pVertexBindingDescriptions = &binding,
                                                 .vertexAttributeDescriptionCount = 1,
                                                 .pVertexAttributeDescriptions = &attribute };
    VkPipelineInputAssemblyStateCreateInfo ia = { .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
                                                  .topology = VK_PRIMITIVE_TOPOLOGY_POINT_LIST };
    VkViewport viewport = { 0, 0, HOST_W, HOST_H, 0, 1 };
    VkRect2D scissor = { { 0, 0 }, { HOST_W, HOST_H } };
    VkPipelineViewportStateCreateInfo vp = { .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
                                             .viewportCount = 1, .pViewports = &viewport, .scissorCount = 1,
                                             .pScissors = &scissor };
    VkPipelineRasterizationStateCreateInfo rs = { .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
                                                  .polygonMode = VK_POLYGON_MODE_FILL, .lineWidth = 1 };
    VkPipelineMultisampleStateCreateInfo ms = { .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
                                                .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT };
    VkPipelineColorBlendAttachmentState blend = { .colorWriteMask = 0xf };
    VkPipelineColorBlendStateCreateInfo cbs = { .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
                                                .attachmentCount = 1, .pAttachments = &blend };
    VkGraphicsPipelineCreateInfo gpci = { .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, .stageCount = 2,
                                          .pStages = stages, .pVertexInputState = &vin, .pInputAssemblyState = &ia,
                                          .pViewportState = &vp, .pRasterizationState = &rs,
                                          .pMultisampleState = &ms, .pColorBlendState = &cbs, .layout = r->layout,
                                          .renderPass = r->pass };
    VK(vkCreateGraphicsPipelines(dev, VK_NULL_HANDLE, 1, &gpci, NULL, &r->pipeline));
    vkDestroyShaderModule(dev, mods[0], NULL);
    vkDestroyShaderModule(dev, mods[1], NULL);

    double cx = (box_min[0] + box_max[0]) / 2, cy = (box_min[1] + box_max[1]) / 2;
    double half = ((box_max[0] - box_min[0]) / 2 * HOST_H / HOST_W > (box_max[1] - box_min[1]) / 2
                       ? (box_max[0] - box_min[0]) / 2 * HOST_H / HOST_W
                       : (box_max[1] - box_min[1]) / 2) * 1.05;
    double sx = 1 / (half * HOST_W / HOST_H), sy = -1 / half;
    r->push.clip[0] = (float)sx;
    r->push.clip[5] = (float)sy;
    r->push.clip[12] = (float)(-cx * sx);
    r->push.clip[13] = (float)(-cy * sy);
    r->push.clip[14] = 0.5f;
    r->push.clip[15] = 1;
    r->push.size = h->large_points ? 3 : 1;
}

/* The draw of count points from vb into the image (or of what the draw
 * record at `record` says, an eddy_particles_draw buffer, when given), and
 * its copy to the readback buffer, made visible to the host. */
static inline void host_points_draw(host_points *r, VkCommandBuffer cb, VkBuffer vb, VkDeviceSize offset,
                                    uint32_t count, const eddy_vk_buffer *record)
{
    VkClearValue clear = { .color = { { 0.97f, 0.97f, 0.95f, 1 } } };
    VkRenderPassBeginInfo rbi = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO, .renderPass = r->pass,
                                  .framebuffer = r->framebuffer, .renderArea = { { 0, 0 }, { HOST_W, HOST_H } },
                                  .clearValueCount = 1, .pClearValues = &clear };
    vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, r->pipeline);
    vkCmdPushConstants(cb, r->layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof r->push, &r->push);
    vkCmdBindVertexBuffers(cb, 0, 1, &vb, &offset);
    if (record)
        vkCmdDrawIndirect(cb, record->buffer, record->offset, 1, 16);
    else
        vkCmdDraw(cb, count, 1, 0, 0);
    vkCmdEndRenderPass(cb);
    VkBufferImageCopy copy = { .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                               .imageExtent = { HOST_W, HOST_H, 1 } };
    vkCmdCopyImageToBuffer(cb, r->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, r->readback, 1, &copy);
    VkMemoryBarrier to_host = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                .dstAccessMask = VK_ACCESS_HOST_READ_BIT };
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, NULL, 0,
                         NULL);
}

/* The last drawn picture against the particles x (vec4 each): the number
 * of particles in view left unlit plus lit pixels far from every particle
 * (0 for a right picture); *lit receives the lit pixels. */
static inline uint32_t host_points_check(host_points *r, const host_vk *h, const float *x, uint32_t count,
                                         uint8_t *rgba, uint32_t *lit)
{
    void *mapped;
    VK(vkMapMemory(h->device, r->readback_mem, 0, VK_WHOLE_SIZE, 0, &mapped));
    memcpy(rgba, mapped, 4ull * HOST_W * HOST_H);
    vkUnmapMemory(h->device, r->readback_mem);
    uint8_t *near = calloc((size_t)HOST_W * HOST_H, 1);
    REQUIRE(near);
    uint32_t bad = 0;
    *lit = 0;
#define HOST_BACKGROUND(p) ((p)[0] > 200 && (p)[1] > 200 && (p)[2] > 200)
    for (uint32_t i = 0; i < count; i++) {
        double px = ((x[4 * i] * r->push.clip[0] + r->push.clip[12]) * 0.5 + 0.5) * HOST_W;
        double py = ((x[4 * i + 1] * r->push.clip[5] + r->push.clip[13]) * 0.5 + 0.5) * HOST_H;
        if (px < 0 || py < 0 || px >= HOST_W || py >= HOST_H)
            continue;
        bad += HOST_BACKGROUND(rgba + 4 * ((size_t)(int)py * HOST_W + (int)px));
        for (int dy = -2; dy <= 2; dy++)
            for (int dx = -2; dx <= 2; dx++) {
                int qx = (int)px + dx, qy = (int)py + dy;
                if (qx >= 0 && qy >= 0 && qx < HOST_W && qy < HOST_H)
                    near[(size_t)qy * HOST_W + qx] = 1;
            }
    }
    for (size_t k = 0; k < (size_t)HOST_W * HOST_H; k++) {
        bool on = !HOST_BACKGROUND(rgba + 4 * k);
        *lit += on;
        bad += on && !near[k];
    }
#undef HOST_BACKGROUND
    free(near);
    return bad;
}

static inline void host_points_destroy(host_points *r, const host_vk *h)
{
    VkDevice dev = h->device;
    vkDestroyPipeline(dev, r->pipeline, NULL);
    vkDestroyPipelineLayout(dev, r->layout, NULL);
    vkDestroyFramebuffer(dev, r->framebuffer, NULL);
    vkDestroyRenderPass(dev, r->pass, NULL);
    vkDestroyImageView(dev, r->view, NULL);
    vkDestroyImage(dev, r->image, NULL);
    vkFreeMemory(dev, r->image_mem, NULL);
    vkDestroyBuffer(dev, r->readback, NULL);
    vkFreeMemory(dev, r->readback_mem, NULL);
}

#endif
