/* eddy view's part for systems that draw a picture of their own (the
 * volume module's ray caster): each frame the system draws from the
 * viewer's camera at the viewer's size (eddy_scene_system_view), its graph
 * is recorded after the steps, and a full-screen triangle composites the
 * picture over the scene at the depth of its first hit. The set such a
 * system shows is drawn no other way (its boundary surface would hide the
 * inside). */
#include "view_internal.h"

static const uint32_t volume_vert[] =
#include "volume.vert.spv.inc"
    ;
static const uint32_t volume_frag[] =
#include "volume.frag.spv.inc"
    ;

void view_volumes_find(viewer *v)
{
    v->view_count = 0;
    for (uint32_t i = 0; v->view_count < MAX_VIEWS && eddy_scene_system_name(v->scene, i); i++) {
        const char *name = eddy_scene_system_name(v->scene, i);
        const eddy_module_desc *m = eddy_scene_system_module(v->scene, name);
        if (m && m->view)
            v->view_systems[v->view_count++] = name;
    }
}

bool view_volumes_show(const viewer *v, eddy_particles p)
{
    for (uint32_t k = 0; k < v->view_count; k++)
        if (eddy_scene_system_set(v->scene, v->view_systems[k]).id == p.id)
            return true;
    return false;
}

bool view_volumes_prepare(viewer *v)
{
    double eye[3], s[3], u[3], f[3];
    view_camera(v, eye, s, u, f);
    eddy_system_view_desc d = { EDDY_SIZED(eddy_system_view_desc), .fov_deg = (float)(v->fov * 180 / M_PI),
                                .width = v->width, .height = v->height };
    for (int a = 0; a < 3; a++)
        d.eye[a] = (float)eye[a], d.target[a] = (float)(eye[a] + f[a]), d.up[a] = (float)u[a];
    for (uint32_t k = 0; k < v->view_count; k++) {
        eddy_system_view *out = &v->views_now[k], was = *out;
        *out = (eddy_system_view){ EDDY_SIZED(eddy_system_view) };
        if (eddy_scene_system_view(v->scene, v->view_systems[k], &d, out) != EDDY_OK)
            return false;
        if (out->color.id == was.color.id && out->depth.id == was.depth.id)
            continue; /* the same images: the set still names them */
        eddy_vk_image c, dp;
        if (eddy_image_vk(v->e, out->color, &c) != EDDY_OK || eddy_image_vk(v->e, out->depth, &dp) != EDDY_OK)
            return false;
        /* The last frame has finished (one frame in flight): the set is free. */
        VkDescriptorImageInfo ii[2] = { { VK_NULL_HANDLE, c.view, VK_IMAGE_LAYOUT_GENERAL },
                                        { VK_NULL_HANDLE, dp.view, VK_IMAGE_LAYOUT_GENERAL } };
        VkWriteDescriptorSet w = { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = v->volume_sets[k],
                                   .descriptorCount = 2, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
                                   .pImageInfo = ii };
        vkUpdateDescriptorSets(v->dev, 1, &w, 0, NULL);
    }
    return true;
}

bool view_volumes_record(viewer *v, VkCommandBuffer cb, uint64_t value)
{
    for (uint32_t k = 0; k < v->view_count; k++) {
        /* After: the composite's reads of the two images; nothing else of
         * the graph's (the default, named by neither). Before: unnamed,
         * "anything" (the steps recorded just before write the positions). */
        const eddy_system_view *sv = &v->views_now[k];
        eddy_host_use after[3] = {
            { .image = sv->color, .stages = EDDY_STAGE_FRAGMENT_SHADER, .access = EDDY_ACCESS_SHADER_READ },
            { .image = sv->depth, .stages = EDDY_STAGE_FRAGMENT_SHADER, .access = EDDY_ACCESS_SHADER_READ },
            { .stages = 0 },
        };
        if (eddy_graph_record(v->e, sv->graph, &(eddy_record_desc){ EDDY_SIZED(eddy_record_desc),
                .command_buffer = cb, .done_semaphore = v->timeline, .done_value = value, .after = after,
                .after_count = 3 }) != EDDY_OK)
            return false;
    }
    return true;
}

void view_volumes_draw(viewer *v, VkCommandBuffer cb, push_view *pv)
{
    if (!v->view_count)
        return;
    pv->extra[1] = (float)v->width, pv->extra[2] = (float)v->height;
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, v->volumes);
    vkCmdPushConstants(cb, v->volume_layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                       sizeof *pv, pv);
    for (uint32_t k = 0; k < v->view_count; k++) {
        vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, v->volume_layout, 0, 1, &v->volume_sets[k], 0,
                                NULL);
        vkCmdDraw(cb, 3, 1, 0, 0);
    }
}

bool view_volumes_pipeline(viewer *v, VkPipelineVertexInputStateCreateInfo *no_input,
                           const VkGraphicsPipelineCreateInfo *like)
{
    VkDescriptorSetLayoutBinding b[2] = {
        { 0, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_FRAGMENT_BIT, NULL },
        { 1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_FRAGMENT_BIT, NULL },
    };
    VkDescriptorSetLayoutCreateInfo dslci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                              .bindingCount = 2, .pBindings = b };
    VkDescriptorPoolSize size = { VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 2 * MAX_VIEWS };
    VkDescriptorPoolCreateInfo dpci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                        .maxSets = MAX_VIEWS, .poolSizeCount = 1, .pPoolSizes = &size };
    VkPushConstantRange range = { VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(push_view) };
    if (!VKV(vkCreateDescriptorSetLayout(v->dev, &dslci, NULL, &v->volume_set_layout)) ||
        !VKV(vkCreateDescriptorPool(v->dev, &dpci, NULL, &v->volume_pool)))
        return false;
    VkPipelineLayoutCreateInfo plci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
                                        .pSetLayouts = &v->volume_set_layout, .pushConstantRangeCount = 1,
                                        .pPushConstantRanges = &range };
    VkDescriptorSetLayout layouts[MAX_VIEWS];
    for (int i = 0; i < MAX_VIEWS; i++)
        layouts[i] = v->volume_set_layout;
    VkDescriptorSetAllocateInfo dsai = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                         .descriptorPool = v->volume_pool, .descriptorSetCount = MAX_VIEWS,
                                         .pSetLayouts = layouts };
    if (!VKV(vkCreatePipelineLayout(v->dev, &plci, NULL, &v->volume_layout)) ||
        !VKV(vkAllocateDescriptorSets(v->dev, &dsai, v->volume_sets)))
        return false;
    VkShaderModule vs = view_shader(v, volume_vert, sizeof volume_vert),
                   fs = view_shader(v, volume_frag, sizeof volume_frag);
    VkPipelineShaderStageCreateInfo st[2] = {
        { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
          .module = vs, .pName = "main" },
        { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
          .module = fs, .pName = "main" },
    };
    /* Tested against the scene's depth, not written: a translucent layer. */
    VkPipelineDepthStencilStateCreateInfo dss = { .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
                                                  .depthTestEnable = VK_TRUE, .depthCompareOp = VK_COMPARE_OP_LESS };
    VkPipelineColorBlendAttachmentState blend = {
        .blendEnable = VK_TRUE, .srcColorBlendFactor = VK_BLEND_FACTOR_ONE,
        .dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA, .colorBlendOp = VK_BLEND_OP_ADD,
        .srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE, .dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
        .alphaBlendOp = VK_BLEND_OP_ADD, .colorWriteMask = 0xf };
    VkPipelineColorBlendStateCreateInfo cbs = { .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
                                                .attachmentCount = 1, .pAttachments = &blend };
    VkGraphicsPipelineCreateInfo gp = *like;
    gp.pStages = st;
    gp.pVertexInputState = no_input;
    gp.pDepthStencilState = &dss;
    gp.pColorBlendState = &cbs;
    gp.layout = v->volume_layout;
    bool ok = vs && fs && VKV(vkCreateGraphicsPipelines(v->dev, VK_NULL_HANDLE, 1, &gp, NULL, &v->volumes));
    vkDestroyShaderModule(v->dev, vs, NULL);
    vkDestroyShaderModule(v->dev, fs, NULL);
    return ok;
}

void view_volumes_destroy(viewer *v)
{
    vkDestroyPipeline(v->dev, v->volumes, NULL);
    vkDestroyPipelineLayout(v->dev, v->volume_layout, NULL);
    vkDestroyDescriptorPool(v->dev, v->volume_pool, NULL);
    vkDestroyDescriptorSetLayout(v->dev, v->volume_set_layout, NULL);
}
