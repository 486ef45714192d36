/* Compute kernels: pipelines from embedded SPIR-V or run-time GLSL. */
#include "internal.h"

#include <shaderc/shaderc.h>

eddy_kernel_obj *eddy_kernel_get(eddy_engine *e, eddy_kernel k)
{
    return eddy_pool_get(&e->kernels, k.id);
}

/* What eddy needs to know of a shader, read from its SPIR-V: the storage
 * buffer bindings of set 0 (so layouts follow the shader, not a second list
 * that could disagree) and how its workgroup size is set. */
typedef struct spirv_facts {
    uint32_t binding_count;
    bool has_spec0;          /* a constant with SpecId 0 (local_size_x_id = 0) */
    uint32_t local_size_x;   /* from OpExecutionMode LocalSize, 0 when absent */
    bool other_set;          /* a binding in a set other than 0 */
} spirv_facts;

enum {
    OP_EXECUTION_MODE = 16,
    OP_DECORATE = 71,
    DEC_SPEC_ID = 1,
    DEC_BINDING = 33,
    DEC_DESCRIPTOR_SET = 34,
    MODE_LOCAL_SIZE = 17,
};

static bool read_spirv(const uint32_t *w, size_t words, spirv_facts *f)
{
    memset(f, 0, sizeof *f);
    if (words < 5 || w[0] != 0x07230203u)
        return false;
    /* Bindings and sets arrive as separate decorations of the same id. */
    uint32_t bound = w[3];
    int32_t *binding = calloc(bound ? bound : 1, sizeof *binding);
    int32_t *set = calloc(bound ? bound : 1, sizeof *set);
    if (!binding || !set) {
        free(binding);
        free(set);
        return false;
    }
    for (uint32_t i = 0; i < bound; i++)
        binding[i] = set[i] = -1;
    bool ok = true;
    for (size_t i = 5; i < words;) {
        uint32_t count = w[i] >> 16, op = w[i] & 0xffffu;
        if (count == 0 || i + count > words) {
            ok = false;
            break;
        }
        if (op == OP_DECORATE && count >= 4 && w[i + 1] < bound) {
            if (w[i + 2] == DEC_BINDING)
                binding[w[i + 1]] = (int32_t)w[i + 3];
            else if (w[i + 2] == DEC_DESCRIPTOR_SET)
                set[w[i + 1]] = (int32_t)w[i + 3];
            else if (w[i + 2] == DEC_SPEC_ID && w[i + 3] == 0)
                f->has_spec0 = true;
        } else if (op == OP_EXECUTION_MODE && count >= 6 && w[i + 2] == MODE_LOCAL_SIZE) {
            f->local_size_x = w[i + 3];
        }
        i += count;
    }
    for (uint32_t i = 0; i < bound; i++) {
        if (binding[i] < 0)
            continue;
        if (set[i] != 0)
            f->other_set = true;
        else if ((uint32_t)binding[i] + 1 > f->binding_count)
            f->binding_count = (uint32_t)binding[i] + 1;
    }
    free(binding);
    free(set);
    return ok;
}

eddy_result eddy_compile_glsl(eddy_engine *e, const char *source, const char *name,
                              uint32_t **words, size_t *size)
{
    shaderc_compiler_t compiler = shaderc_compiler_initialize();
    shaderc_compile_options_t options = shaderc_compile_options_initialize();
    if (!compiler || !options) {
        shaderc_compile_options_release(options);
        shaderc_compiler_release(compiler);
        eddy_log(e, EDDY_LOG_ERROR, "kernel '%s': shaderc could not start", name);
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    shaderc_compile_options_set_target_env(options, shaderc_target_env_vulkan,
                                           shaderc_env_version_vulkan_1_2);
    shaderc_compile_options_set_optimization_level(options,
                                                   shaderc_optimization_level_performance);
    shaderc_compilation_result_t result = shaderc_compile_into_spv(
        compiler, source, strlen(source), shaderc_compute_shader, name, "main", options);
    eddy_result res = EDDY_OK;
    if (shaderc_result_get_compilation_status(result) != shaderc_compilation_status_success) {
        eddy_log(e, EDDY_LOG_ERROR, "kernel '%s': GLSL does not compile:\n%s", name,
                 shaderc_result_get_error_message(result));
        res = EDDY_ERROR_PARSE;
    } else {
        *size = shaderc_result_get_length(result);
        *words = malloc(*size);
        if (*words)
            memcpy(*words, shaderc_result_get_bytes(result), *size);
        else
            res = EDDY_ERROR_OUT_OF_MEMORY;
    }
    shaderc_result_release(result);
    shaderc_compile_options_release(options);
    shaderc_compiler_release(compiler);
    return res;
}

static void destroy_kernel_objects(eddy_engine *e, eddy_kernel_obj *k)
{
    if (k->pipeline)
        e->vk.vkDestroyPipeline(e->device, k->pipeline, NULL);
    if (k->layout)
        e->vk.vkDestroyPipelineLayout(e->device, k->layout, NULL);
    if (k->set_layout)
        e->vk.vkDestroyDescriptorSetLayout(e->device, k->set_layout, NULL);
}

eddy_kernel eddy_create_kernel(eddy_engine *e, const eddy_kernel_desc *desc)
{
    eddy_kernel none = { 0 };
    const char *label = desc && desc->label && *desc->label ? desc->label : "(unnamed)";
    if (!desc || (!desc->spirv == !desc->glsl)) {
        eddy_log(e, EDDY_LOG_ERROR, "kernel '%s': give exactly one of spirv or glsl", label);
        return none;
    }
    uint32_t *compiled = NULL;
    const uint32_t *words = desc->spirv;
    size_t size = desc->spirv_size;
    if (desc->glsl) {
        if (eddy_compile_glsl(e, desc->glsl, desc->glsl_name ? desc->glsl_name : label,
                              &compiled, &size) != EDDY_OK)
            return none;
        words = compiled;
    }
    spirv_facts facts;
    if (size % 4 || !read_spirv(words, size / 4, &facts)) {
        eddy_log(e, EDDY_LOG_ERROR, "kernel '%s': not valid SPIR-V (%zu bytes)", label, size);
        free(compiled);
        return none;
    }
    if (facts.other_set || facts.binding_count > EDDY_MAX_BINDINGS) {
        eddy_log(e, EDDY_LOG_ERROR,
                 "kernel '%s': bindings must be storage buffers 0..%u of set 0", label,
                 EDDY_MAX_BINDINGS - 1);
        free(compiled);
        return none;
    }
    uint32_t wg = facts.has_spec0 ? (desc->workgroup_size ? desc->workgroup_size : 64)
                                  : facts.local_size_x;
    if (wg == 0 || wg > e->info.max_workgroup_invocations) {
        eddy_log(e, EDDY_LOG_ERROR,
                 "kernel '%s': workgroup size %u outside 1..%u (maxComputeWorkGroupInvocations)",
                 label, wg, e->info.max_workgroup_invocations);
        free(compiled);
        return none;
    }
    if (desc->specialization_count > EDDY_MAX_SPECIALIZATION) {
        eddy_log(e, EDDY_LOG_ERROR, "kernel '%s': at most %d specialization constants", label,
                 EDDY_MAX_SPECIALIZATION);
        free(compiled);
        return none;
    }

    eddy_kernel_obj k = { 0 };
    eddy_copy_label(k.label, sizeof k.label, desc->label, "(unnamed)");
    k.binding_count = facts.binding_count;
    k.workgroup_size = wg;
    VkDescriptorSetLayoutBinding bindings[EDDY_MAX_BINDINGS];
    for (uint32_t i = 0; i < k.binding_count; i++)
        bindings[i] = (VkDescriptorSetLayoutBinding){
            .binding = i,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .descriptorCount = 1,
            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        };
    VkDescriptorSetLayoutCreateInfo sli = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = k.binding_count,
        .pBindings = bindings,
    };
    VkResult r = e->vk.vkCreateDescriptorSetLayout(e->device, &sli, NULL, &k.set_layout);
    VkPushConstantRange push = { VK_SHADER_STAGE_COMPUTE_BIT, 0, EDDY_PUSH_CONSTANT_BYTES };
    VkPipelineLayoutCreateInfo pli = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &k.set_layout,
        .pushConstantRangeCount = 1,
        .pPushConstantRanges = &push,
    };
    if (r == VK_SUCCESS)
        r = e->vk.vkCreatePipelineLayout(e->device, &pli, NULL, &k.layout);
    VkShaderModule module = VK_NULL_HANDLE;
    VkShaderModuleCreateInfo smi = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = size,
        .pCode = words,
    };
    if (r == VK_SUCCESS)
        r = e->vk.vkCreateShaderModule(e->device, &smi, NULL, &module);
    VkSpecializationMapEntry entries[EDDY_MAX_SPECIALIZATION + 1];
    uint32_t values[EDDY_MAX_SPECIALIZATION + 1];
    uint32_t n = 0;
    if (facts.has_spec0) {
        entries[n] = (VkSpecializationMapEntry){ 0, n * 4, 4 };
        values[n++] = wg;
    }
    for (uint32_t i = 0; i < desc->specialization_count; i++) {
        entries[n] = (VkSpecializationMapEntry){ desc->specialization[i].id, n * 4, 4 };
        values[n++] = desc->specialization[i].value;
    }
    VkSpecializationInfo spec = { n, entries, n * 4, values };
    VkComputePipelineCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
            .stage = VK_SHADER_STAGE_COMPUTE_BIT,
            .module = module,
            .pName = desc->entry ? desc->entry : "main",
            .pSpecializationInfo = n ? &spec : NULL,
        },
        .layout = k.layout,
    };
    if (r == VK_SUCCESS)
        r = e->vk.vkCreateComputePipelines(e->device, VK_NULL_HANDLE, 1, &pci, NULL, &k.pipeline);
    if (module)
        e->vk.vkDestroyShaderModule(e->device, module, NULL);
    free(compiled);
    if (r != VK_SUCCESS) {
        eddy_log(e, EDDY_LOG_ERROR, "kernel '%s': pipeline creation failed: %s", label,
                 eddy_vk_result_string(r));
        destroy_kernel_objects(e, &k);
        return none;
    }
    eddy_set_name(e, VK_OBJECT_TYPE_PIPELINE, (uint64_t)k.pipeline, k.label);
    uint32_t id;
    eddy_kernel_obj *slot = eddy_pool_alloc(&e->kernels, &id);
    if (!slot) {
        destroy_kernel_objects(e, &k);
        return none;
    }
    k.slot = slot->slot;
    *slot = k;
    return (eddy_kernel){ id };
}

void eddy_destroy_kernel(eddy_engine *e, eddy_kernel h)
{
    eddy_kernel_obj *k = eddy_kernel_get(e, h);
    if (!k)
        return;
    e->vk.vkQueueWaitIdle(e->queue);
    destroy_kernel_objects(e, k);
    eddy_pool_free(&e->kernels, h.id);
}

void eddy_destroy_all_kernels(eddy_engine *e)
{
    for (uint32_t i = 0; i < e->kernels.count; i++) {
        eddy_kernel_obj *k = (eddy_kernel_obj *)(e->kernels.items + (size_t)i * e->kernels.elem_size);
        if (k->slot.live) {
            destroy_kernel_objects(e, k);
            k->slot.live = false;
        }
    }
}

uint32_t eddy_kernel_workgroup_size(eddy_engine *e, eddy_kernel h)
{
    eddy_kernel_obj *k = eddy_kernel_get(e, h);
    return k ? k->workgroup_size : 0;
}

uint32_t eddy_kernel_binding_count(eddy_engine *e, eddy_kernel h)
{
    eddy_kernel_obj *k = eddy_kernel_get(e, h);
    return k ? k->binding_count : 0;
}
