/* Compute kernels: pipelines from embedded SPIR-V or run-time GLSL. */
#include "internal.h"

#include <shaderc/shaderc.h>
#include <spirv/unified1/spirv.h>

eddy_kernel_obj *eddy_kernel_get(eddy_engine *e, eddy_kernel k)
{
    return eddy_pool_get(&e->kernels, k.id);
}

/* What eddy needs to know of a shader, read from its SPIR-V: the storage
 * buffer bindings of set 0 (so layouts follow the shader, not a second list
 * that could disagree), which of them the shader can never write
 * (NonWritable: GLSL `readonly`) or never read (NonReadable: `writeonly`),
 * and how its workgroup size is set. */
typedef struct spirv_facts {
    uint32_t binding_count;
    uint32_t no_write;       /* bit b: binding b is NonWritable (whole block or every member) */
    uint32_t no_read;        /* bit b: binding b is NonReadable */
    bool has_spec0;          /* a constant with SpecId 0 (local_size_x_id = 0) */
    uint32_t local_size_x;   /* from OpExecutionMode LocalSize, 0 when absent */
    bool other_set;          /* a binding in a set other than 0 */
    uint8_t kinds[32];       /* eddy_binding_kind per binding */
    uint8_t dims[32];        /* image bindings: 1, 2, 3 (0: other dimensionality) */
    int32_t texel_formats[32]; /* storage texel buffers: the VkFormat of the shader's format */
    int32_t bad_binding;     /* a binding of a kind eddy cannot bind (a separate texture or
                                sampler, a sampled image's Dim not 1D/2D/3D), else -1 */
} spirv_facts;

/* The VkFormat of a SPIR-V Image Format a storage texel buffer may have
 * (0: one eddy does not view buffers in). */
static int32_t texel_format(uint32_t spirv_format)
{
    switch (spirv_format) {
    case SpvImageFormatRgba32f: return VK_FORMAT_R32G32B32A32_SFLOAT;
    case SpvImageFormatR32f: return VK_FORMAT_R32_SFLOAT;
    case SpvImageFormatRg32f: return VK_FORMAT_R32G32_SFLOAT;
    case SpvImageFormatRgba32i: return VK_FORMAT_R32G32B32A32_SINT;
    case SpvImageFormatR32i: return VK_FORMAT_R32_SINT;
    case SpvImageFormatRgba32ui: return VK_FORMAT_R32G32B32A32_UINT;
    case SpvImageFormatR32ui: return VK_FORMAT_R32_UINT;
    default: return 0;
    }
}

/* Per SPIR-V id, what the scan gathers. */
typedef struct spirv_id {
    int32_t binding, set;
    uint32_t pointee;       /* OpTypePointer: the type pointed to */
    uint32_t type;          /* OpVariable: its pointer type */
    uint32_t members;       /* OpTypeStruct: member count */
    uint32_t members_nw, members_nr; /* members decorated NonWritable / NonReadable */
    bool nw, nr;            /* the id itself decorated */
    uint8_t image;          /* OpTypeImage: 1 + Sampled operand (1: texture, 2: storage);
                               OpTypeSampledImage: 4; OpTypeSampler: 5 */
    uint8_t dim;            /* OpTypeImage: 1, 2, 3 for Dim 1D/2D/3D, 4 for Buffer, else 0 */
    uint32_t format;        /* OpTypeImage: its Image Format operand */
    uint32_t image_type;    /* OpTypeSampledImage: its image type */
} spirv_id;

static bool read_spirv(const uint32_t *w, size_t words, spirv_facts *f)
{
    memset(f, 0, sizeof *f);
    f->bad_binding = -1;
    if (words < 5 || w[0] != SpvMagicNumber)
        return false;
    uint32_t bound = w[3];
    /* The id bound comes from the module: at most one id per word, else it lies. */
    if (bound > words)
        return false;
    spirv_id *id = calloc(bound ? bound : 1, sizeof *id);
    if (!id)
        return false;
    for (uint32_t i = 0; i < bound; i++)
        id[i].binding = id[i].set = -1;
    bool ok = true;
    for (size_t i = 5; i < words;) {
        uint32_t count = w[i] >> SpvWordCountShift, op = w[i] & SpvOpCodeMask;
        if (count == 0 || i + count > words) {
            ok = false;
            break;
        }
        const uint32_t *o = w + i + 1; /* operands */
        if (op == SpvOpDecorate && count >= 3 && o[0] < bound) {
            spirv_id *t = &id[o[0]];
            if (o[1] == SpvDecorationBinding && count >= 4)
                t->binding = (int32_t)o[2];
            else if (o[1] == SpvDecorationDescriptorSet && count >= 4)
                t->set = (int32_t)o[2];
            else if (o[1] == SpvDecorationSpecId && count >= 4 && o[2] == 0)
                f->has_spec0 = true;
            else if (o[1] == SpvDecorationNonWritable)
                t->nw = true;
            else if (o[1] == SpvDecorationNonReadable)
                t->nr = true;
        } else if (op == SpvOpMemberDecorate && count >= 4 && o[0] < bound) {
            if (o[2] == SpvDecorationNonWritable)
                id[o[0]].members_nw++;
            else if (o[2] == SpvDecorationNonReadable)
                id[o[0]].members_nr++;
        } else if (op == SpvOpTypeStruct && count >= 2 && o[0] < bound) {
            id[o[0]].members = count - 2;
        } else if (op == SpvOpTypeImage && count >= 9 && o[0] < bound) {
            /* Sampled: 0 (known at run time), 1 (with a sampler), 2 (storage). */
            id[o[0]].image = (uint8_t)(1 + (o[6] <= 2 ? o[6] : 0));
            /* Dim1D, Dim2D and Dim3D run 0, 1, 2; not arrayed, not multisampled. */
            id[o[0]].dim = (uint8_t)(o[2] <= SpvDim3D && !o[4] && !o[5] ? o[2] + 1 : o[2] == SpvDimBuffer ? 4 : 0);
            id[o[0]].format = o[7];
        } else if (op == SpvOpTypeSampledImage && count >= 3 && o[0] < bound) {
            id[o[0]].image = 4;
            id[o[0]].image_type = o[1];
        } else if (op == SpvOpTypeSampler && count >= 2 && o[0] < bound) {
            id[o[0]].image = 5;
        } else if (op == SpvOpTypePointer && count >= 4 && o[0] < bound) {
            id[o[0]].pointee = o[2];
        } else if (op == SpvOpVariable && count >= 4 && o[1] < bound) {
            id[o[1]].type = o[0];
        } else if (op == SpvOpExecutionMode && count >= 6 && o[1] == SpvExecutionModeLocalSize) {
            f->local_size_x = o[2];
        }
        i += count;
    }
    /* A binding index the shader does not declare (below its highest) is
     * neither read nor written. */
    uint32_t declared = 0;
    for (uint32_t i = 0; i < bound; i++)
        if (id[i].binding >= 0 && id[i].binding < 32 && id[i].set == 0)
            declared |= 1u << id[i].binding;
    f->no_write = f->no_read = ~declared;
    for (uint32_t i = 0; i < bound; i++) {
        if (id[i].binding < 0)
            continue;
        if (id[i].set != 0) {
            f->other_set = true;
            continue;
        }
        uint32_t b = (uint32_t)id[i].binding;
        if (b + 1 > f->binding_count)
            f->binding_count = b + 1;
        if (b >= 32)
            continue; /* refused by the caller (over EDDY_MAX_BINDINGS) */
        /* A decoration on the variable, or on every member of its block. */
        const spirv_id *ptr = id[i].type < bound ? &id[id[i].type] : NULL;
        const spirv_id *block = ptr && ptr->pointee < bound ? &id[ptr->pointee] : NULL;
        bool nw = id[i].nw || (block && block->members && block->members_nw >= block->members);
        bool nr = id[i].nr || (block && block->members && block->members_nr >= block->members);
        if (block && block->image == 3 && block->dim == 4) { /* storage texel buffer: a buffer */
            f->kinds[b] = EDDY_BIND_BUFFER;
            f->texel_formats[b] = texel_format(block->format);
            if (!f->texel_formats[b] && f->bad_binding < 0)
                f->bad_binding = (int32_t)b;
        } else if (block && block->image == 3) { /* storage image: decorations on the variable */
            f->kinds[b] = EDDY_BIND_STORAGE_IMAGE;
            f->dims[b] = block->dim;
            if (!block->dim && f->bad_binding < 0)
                f->bad_binding = (int32_t)b;
        } else if (block && block->image == 4) { /* combined image sampler: read only */
            const spirv_id *img = block->image_type < bound ? &id[block->image_type] : NULL;
            f->kinds[b] = EDDY_BIND_SAMPLED_IMAGE;
            f->dims[b] = img ? img->dim : 0;
            if (!f->dims[b] && f->bad_binding < 0)
                f->bad_binding = (int32_t)b;
            nw = true;
        } else if (block && block->image && f->bad_binding < 0) {
            f->bad_binding = (int32_t)b; /* a separate texture or sampler */
        }
        f->no_write |= (uint32_t)nw << b;
        f->no_read |= (uint32_t)nr << b;
    }
    free(id);
    return ok;
}

eddy_result eddy_compile_glsl(eddy_engine *e, const char *source, const char *name,
                              uint32_t **words, size_t *size)
{
    /* One compiler an engine: its start is the costly part (about 0.25 s). */
    if (!e->shaderc)
        e->shaderc = shaderc_compiler_initialize();
    shaderc_compiler_t compiler = e->shaderc;
    shaderc_compile_options_t options = shaderc_compile_options_initialize();
    if (!compiler || !options) {
        shaderc_compile_options_release(options);
        eddy_log(e, EDDY_LOG_ERROR, "memory.host", "kernel '%s': shaderc could not start", name);
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
        eddy_log(e, EDDY_LOG_ERROR, "kernel.glsl", "kernel '%s': GLSL does not compile:\n%s", name,
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
    return res;
}

void eddy_release_shaderc(eddy_engine *e)
{
    if (e->shaderc)
        shaderc_compiler_release(e->shaderc);
    e->shaderc = NULL;
}

void eddy_destroy_shared_pipeline(eddy_engine *e, eddy_shared_pipeline *sp)
{
    if (sp->pipeline)
        e->vk.vkDestroyPipeline(e->device, sp->pipeline, NULL);
    if (sp->layout)
        e->vk.vkDestroyPipelineLayout(e->device, sp->layout, NULL);
    if (sp->set_layout)
        e->vk.vkDestroyDescriptorSetLayout(e->device, sp->set_layout, NULL);
    free(sp);
}

/* 64-bit hash (FNV-1a on bytes, finished with a splitmix64 avalanche);
 * two seeds give the two halves of a pipeline's key. */
static uint64_t hash_bytes(uint64_t h, const void *data, size_t size)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < size; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t hash_finish(uint64_t h)
{
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

static void pipeline_key(const uint32_t *words, size_t size, const char *entry,
                         const VkSpecializationMapEntry *entries, const uint32_t *values, uint32_t n,
                         uint64_t key[2])
{
    for (int half = 0; half < 2; half++) {
        uint64_t h = half ? 0x84222325cbf29ce4ull : 0xcbf29ce484222325ull;
        uint64_t sz = size;
        h = hash_bytes(h, &sz, sizeof sz);
        h = hash_bytes(h, words, size);
        h = hash_bytes(h, entry, strlen(entry) + 1);
        for (uint32_t i = 0; i < n; i++) {
            h = hash_bytes(h, &entries[i].constantID, sizeof entries[i].constantID);
            h = hash_bytes(h, &values[i], sizeof values[i]);
        }
        key[half] = hash_finish(h);
    }
}

static eddy_shared_pipeline *find_shared(eddy_engine *e, const uint64_t key[2])
{
    for (uint32_t i = 0; i < e->pipeline_count; i++)
        if (e->pipelines[i]->key[0] == key[0] && e->pipelines[i]->key[1] == key[1])
            return e->pipelines[i];
    return NULL;
}

/* Builds the pipeline and its layouts; NULL (logged) on failure. */
static eddy_shared_pipeline *make_shared(eddy_engine *e, const char *label, const uint32_t *words,
                                         size_t size, const char *entry, const spirv_facts *facts,
                                         uint32_t wg, const VkSpecializationMapEntry *entries,
                                         const uint32_t *values, uint32_t n, const uint64_t key[2])
{
    if (e->pipeline_count == e->pipeline_cap) {
        uint32_t cap = e->pipeline_cap ? 2 * e->pipeline_cap : 32;
        eddy_shared_pipeline **grown = realloc(e->pipelines, cap * sizeof *grown);
        if (!grown) {
            eddy_log(e, EDDY_LOG_ERROR, "memory.host", "kernel '%s': out of host memory", label);
            return NULL;
        }
        e->pipelines = grown;
        e->pipeline_cap = cap;
    }
    eddy_shared_pipeline *sp = calloc(1, sizeof *sp);
    if (!sp) {
        eddy_log(e, EDDY_LOG_ERROR, "memory.host", "kernel '%s': out of host memory", label);
        return NULL;
    }
    memcpy(sp->key, key, sizeof sp->key);
    sp->binding_count = facts->binding_count;
    sp->workgroup_size = wg;
    sp->no_write = facts->no_write;
    sp->no_read = facts->no_read;
    memcpy(sp->kinds, facts->kinds, sizeof sp->kinds);
    memcpy(sp->dims, facts->dims, sizeof sp->dims);
    memcpy(sp->texel_formats, facts->texel_formats, sizeof sp->texel_formats);
    static const VkDescriptorType types[] = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
                                              VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER };
    VkDescriptorSetLayoutBinding bindings[EDDY_MAX_BINDINGS];
    for (uint32_t i = 0; i < sp->binding_count; i++)
        bindings[i] = (VkDescriptorSetLayoutBinding){
            .binding = i,
            .descriptorType = sp->texel_formats[i] ? VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER : types[sp->kinds[i]],
            .descriptorCount = 1,
            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        };
    VkDescriptorSetLayoutCreateInfo sli = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = sp->binding_count,
        .pBindings = bindings,
    };
    VkResult r = e->vk.vkCreateDescriptorSetLayout(e->device, &sli, NULL, &sp->set_layout);
    VkPushConstantRange push = { VK_SHADER_STAGE_COMPUTE_BIT, 0, EDDY_PUSH_CONSTANT_BYTES };
    VkPipelineLayoutCreateInfo pli = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &sp->set_layout,
        .pushConstantRangeCount = 1,
        .pPushConstantRanges = &push,
    };
    if (r == VK_SUCCESS)
        r = e->vk.vkCreatePipelineLayout(e->device, &pli, NULL, &sp->layout);
    VkShaderModule module = VK_NULL_HANDLE;
    VkShaderModuleCreateInfo smi = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = size,
        .pCode = words,
    };
    if (r == VK_SUCCESS)
        r = e->vk.vkCreateShaderModule(e->device, &smi, NULL, &module);
    VkSpecializationInfo spec = { n, entries, n * 4, values };
    VkComputePipelineCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
            .stage = VK_SHADER_STAGE_COMPUTE_BIT,
            .module = module,
            .pName = entry,
            .pSpecializationInfo = n ? &spec : NULL,
        },
        .layout = sp->layout,
    };
    if (r == VK_SUCCESS)
        r = e->vk.vkCreateComputePipelines(e->device, e->pipeline_cache, 1, &pci, NULL, &sp->pipeline);
    if (module)
        e->vk.vkDestroyShaderModule(e->device, module, NULL);
    if (r != VK_SUCCESS) {
        eddy_log(e, EDDY_LOG_ERROR, "kernel.pipeline", "kernel '%s': pipeline creation failed: %s", label,
                 eddy_vk_result_string(r));
        eddy_destroy_shared_pipeline(e, sp);
        return NULL;
    }
    eddy_set_name(e, VK_OBJECT_TYPE_PIPELINE, (uint64_t)sp->pipeline, label);
    e->pipelines[e->pipeline_count++] = sp;
    e->pipelines_created++;
    return sp;
}

/* Drops pipeline i from the table; it goes once its last use has finished. */
static void drop_shared(eddy_engine *e, uint32_t i)
{
    eddy_shared_pipeline *sp = e->pipelines[i];
    e->pipelines[i] = e->pipelines[--e->pipeline_count];
    eddy_defer(e, &(eddy_deferred){ .use = sp->use, .pipeline = sp });
}

/* The last kernel on a pipeline went: keep it for reuse, dropping the
 * longest unused one when more than pipelines_keep are kept. */
static void release_shared(eddy_engine *e, eddy_shared_pipeline *sp)
{
    if (!sp || --sp->refs)
        return;
    sp->released = ++e->release_seq;
    uint32_t kept = 0, oldest = 0;
    for (uint32_t i = 0; i < e->pipeline_count; i++)
        if (!e->pipelines[i]->refs) {
            if (!kept || e->pipelines[i]->released < e->pipelines[oldest]->released)
                oldest = i;
            kept++;
        }
    if (kept > e->pipelines_keep)
        drop_shared(e, oldest);
}

eddy_kernel eddy_create_kernel(eddy_engine *e, const eddy_kernel_desc *desc)
{
    EDDY_ENGINE_GUARD(e, return (eddy_kernel){ 0 });
    EDDY_TAKE_DESC(e, eddy_kernel_desc, desc, return (eddy_kernel){ 0 });
    eddy_kernel none = { 0 };
    const char *label = desc && desc->label && *desc->label ? desc->label : "(unnamed)";
    if (!desc || (!desc->spirv == !desc->glsl)) {
        eddy_log(e, EDDY_LOG_ERROR, "kernel.spirv", "kernel '%s': give exactly one of spirv or glsl", label);
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
        eddy_log(e, EDDY_LOG_ERROR, "kernel.spirv", "kernel '%s': not valid SPIR-V (%zu bytes)", label, size);
        free(compiled);
        return none;
    }
    if (facts.other_set || facts.binding_count > EDDY_MAX_BINDINGS || facts.bad_binding >= 0) {
        eddy_log(e, EDDY_LOG_ERROR,
                 "kernel.unsupported", "kernel '%s': bindings must be storage buffers, storage images or combined image "
                 "samplers (1D, 2D or 3D) or storage texel buffers (r32f, rg32f, rgba32f, r32i, rgba32i, r32ui, "
                 "rgba32ui) 0..%u of set 0%s", label, EDDY_MAX_BINDINGS - 1,
                 facts.bad_binding >= 0 ? "; a separate texture or sampler, another image "
                                          "dimensionality or another texel format is not supported" : "");
        free(compiled);
        return none;
    }
    uint32_t wg = facts.has_spec0 ? (desc->workgroup_size ? desc->workgroup_size : 64)
                                  : facts.local_size_x;
    if (wg == 0 || wg > e->info.max_workgroup_invocations) {
        eddy_log(e, EDDY_LOG_ERROR,
                 "kernel.workgroup", "kernel '%s': workgroup size %u outside 1..%u (maxComputeWorkGroupInvocations)",
                 label, wg, e->info.max_workgroup_invocations);
        free(compiled);
        return none;
    }
    if (desc->specialization_count > EDDY_MAX_SPECIALIZATION) {
        eddy_log(e, EDDY_LOG_ERROR, "kernel.invalid", "kernel '%s': at most %d specialization constants", label,
                 EDDY_MAX_SPECIALIZATION);
        free(compiled);
        return none;
    }
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
    const char *entry = desc->entry ? desc->entry : "main";
    uint64_t key[2];
    pipeline_key(words, size, entry, entries, values, n, key);
    eddy_shared_pipeline *sp = find_shared(e, key);
    if (!sp)
        sp = make_shared(e, label, words, size, entry, &facts, wg, entries, values, n, key);
    free(compiled);
    if (!sp)
        return none;
    uint32_t id;
    eddy_kernel_obj *slot = eddy_pool_alloc(&e->kernels, &id);
    if (!slot) {
        if (!sp->refs) {
            sp->refs = 1;
            release_shared(e, sp);
        }
        return none;
    }
    sp->refs++;
    slot->shared = sp;
    eddy_copy_label(slot->label, sizeof slot->label, desc->label, "(unnamed)");
    return (eddy_kernel){ id };
}

void eddy_destroy_kernel(eddy_engine *e, eddy_kernel h)
{
    EDDY_ENGINE_GUARD(e, return);
    eddy_kernel_obj *k = eddy_kernel_get(e, h);
    if (!k)
        return;
    release_shared(e, k->shared);
    eddy_pool_free(&e->kernels, h.id);
    e->destroys++;
}

void eddy_destroy_all_kernels(eddy_engine *e)
{
    for (uint32_t i = 0; i < e->kernels.count; i++) {
        eddy_kernel_obj *k = (eddy_kernel_obj *)(e->kernels.items + (size_t)i * e->kernels.elem_size);
        if (k->slot.live) {
            k->shared->refs--;
            k->slot.live = false;
        }
    }
    while (e->pipeline_count)
        drop_shared(e, e->pipeline_count - 1);
    free(e->pipelines);
    e->pipelines = NULL;
    e->pipeline_count = e->pipeline_cap = 0;
}

uint32_t eddy_kernel_workgroup_size(eddy_engine *e, eddy_kernel h)
{
    EDDY_ENGINE_GUARD(e, return 0);
    eddy_kernel_obj *k = eddy_kernel_query(e, h, __func__);
    return k ? k->shared->workgroup_size : 0;
}

uint32_t eddy_kernel_binding_count(eddy_engine *e, eddy_kernel h)
{
    EDDY_ENGINE_GUARD(e, return 0);
    eddy_kernel_obj *k = eddy_kernel_query(e, h, __func__);
    return k ? k->shared->binding_count : 0;
}

eddy_engine_counters eddy_engine_get_counters(const eddy_engine *e)
{
    EDDY_ENGINE_GUARD(e, return (eddy_engine_counters){ 0 });
    eddy_engine_counters c = { .pipelines_created = e->pipelines_created, .submits = e->submits,
                               .waits = e->waits, .deferred = e->deferred_count,
                               .memory_allocations = e->memory_allocations };
    for (uint32_t i = 0; i < e->pipeline_count; i++) {
        c.pipelines_live += e->pipelines[i]->refs > 0;
        c.pipelines_kept += e->pipelines[i]->refs == 0;
    }
    for (uint32_t i = 0; i < e->images.count; i++)
        c.images_live += ((const eddy_slot *)(e->images.items + (size_t)i * e->images.elem_size))->live;
    for (uint32_t i = 0; i < e->kernels.count; i++)
        c.kernels_live += ((const eddy_slot *)(e->kernels.items + (size_t)i * e->kernels.elem_size))->live;
    for (uint32_t i = 0; i < e->buffers.count; i++) {
        const eddy_buffer_obj *b = (const eddy_buffer_obj *)(e->buffers.items + (size_t)i * e->buffers.elem_size);
        c.buffer_bytes += b->slot.live ? b->size : 0;
    }
    return c;
}
