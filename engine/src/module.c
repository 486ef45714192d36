/* Module registry: modules the program registers (eddy_register_module; eddy's
 * own through their library, libeddy-modules) and modules from shared
 * libraries. The core knows no module by name. */
#include "internal.h"

#include <dlfcn.h>
#include <stddef.h>

static eddy_result check_and_add(eddy_engine *e, eddy_module_desc *m, void *library, const char *from);

/* The descriptor size of each minor version of this major: a module of an
 * older minor has at least its own version's size. */
static const size_t desc_size_of_minor[EDDY_MODULE_ABI_MINOR + 1] = {
    [0] = offsetof(eddy_module_desc, inputs),
    [1] = sizeof(eddy_module_desc),
    [2] = sizeof(eddy_module_desc), /* 4.2 appended to eddy_system_ctx only */
};

static eddy_result add_module(eddy_engine *e, const eddy_module_desc *given, void *library,
                              const char *from)
{
    /* Only the version fields are read before the layout is known. */
    if (given->abi_major != EDDY_MODULE_ABI_MAJOR || given->abi_minor > EDDY_MODULE_ABI_MINOR) {
        eddy_log(e, EDDY_LOG_ERROR, "module.abi", "module %s was built for eddy module ABI %u.%u, but this eddy "
                 "has ABI %u.%u: %s", from, given->abi_major, given->abi_minor, EDDY_MODULE_ABI_MAJOR,
                 EDDY_MODULE_ABI_MINOR,
                 given->abi_major == EDDY_MODULE_ABI_MAJOR ? "update eddy, or build the module against this one"
                                                          : "rebuild the module against this eddy");
        return EDDY_ERROR_ABI;
    }
    size_t least = desc_size_of_minor[given->abi_minor];
    if (given->struct_size < least || given->struct_size > sizeof(eddy_module_desc) ||
        (given->abi_minor == EDDY_MODULE_ABI_MINOR && given->struct_size != sizeof(eddy_module_desc))) {
        eddy_log(e, EDDY_LOG_ERROR, "module.abi", "module %s (ABI %u.%u) has a descriptor of %u bytes, but "
                 "that version's eddy_module_desc has %zu: the module was not built from eddy's headers",
                 from, given->abi_major, given->abi_minor, given->struct_size,
                 given->abi_minor == EDDY_MODULE_ABI_MINOR ? sizeof(eddy_module_desc) : least);
        return EDDY_ERROR_ABI;
    }
    /* An older minor: what it has, and zeros (absent) for what came later. */
    eddy_module_desc *m = calloc(1, sizeof *m);
    if (!m) {
        eddy_log(e, EDDY_LOG_ERROR, "memory.host", "module %s: out of host memory", from);
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    memcpy(m, given, given->struct_size);
    m->struct_size = sizeof *m;
    eddy_result r = check_and_add(e, m, library, from);
    if (r != EDDY_OK)
        free(m);
    return r;
}

static eddy_result check_and_add(eddy_engine *e, eddy_module_desc *m, void *library, const char *from)
{
    if (!m->name || !*m->name || !m->create || !m->destroy || !m->declare_step ||
        (m->param_count && !m->params)) {
        eddy_log(e, EDDY_LOG_ERROR, "module.invalid", "module %s: the descriptor lacks a name, create, destroy, "
                 "declare_step or its params", from);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    /* A list's def is its shape, which sizes what the scene parser accepts
     * and allocates: a bad one is the module's bug, refused here rather than
     * met as an odd message in some scene. */
    for (uint32_t i = 0; i < m->param_count; i++) {
        const eddy_param_info *pi = &m->params[i];
        if (pi->type != EDDY_PARAM_LIST)
            continue;
        double group = pi->def[0], most = pi->def[1];
        if (!(group >= 1 && group <= EDDY_PARAM_LIST_MAX_GROUP && group == (double)(uint32_t)group &&
              most >= 1 && most <= EDDY_PARAM_LIST_MAX_ENTRIES && most == (double)(uint32_t)most)) {
            eddy_log(e, EDDY_LOG_ERROR, "module.invalid", "module %s: list parameter '%s' needs def[0], the "
                     "numbers an entry, a whole number in 1..%d, and def[1], the most entries, a whole number "
                     "in 1..%d; it has def[0] = %g, def[1] = %g", from, pi->name ? pi->name : "?",
                     EDDY_PARAM_LIST_MAX_GROUP, EDDY_PARAM_LIST_MAX_ENTRIES, group, most);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
    }
    bool ports_ok = (!m->input_count || (m->inputs && m->set_input && m->get_input)) &&
                    (!m->output_count || (m->outputs && m->read_outputs)) && m->input_count <= EDDY_MAX_PORTS &&
                    m->output_count <= EDDY_MAX_PORTS;
    for (uint32_t i = 0; ports_ok && i < m->input_count + m->output_count; i++) {
        const eddy_port_info *pi = i < m->input_count ? &m->inputs[i] : &m->outputs[i - m->input_count];
        ports_ok = pi->name && *pi->name && strlen(pi->name) < 64 &&
                   (pi->type == EDDY_PORT_FLOAT || pi->type == EDDY_PORT_VEC3);
    }
    if (!ports_ok) {
        eddy_log(e, EDDY_LOG_ERROR, "module.invalid", "module %s: its ports need names of 1..63 bytes, a type "
                 "(EDDY_PORT_FLOAT or EDDY_PORT_VEC3), at most %d inputs and %d outputs, set_input and get_input "
                 "with inputs, read_outputs with outputs", from, EDDY_MAX_PORTS, EDDY_MAX_PORTS);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    bool slots_ok = m->slot_count <= EDDY_MAX_SLOTS && (!m->slot_count || m->slots);
    for (uint32_t i = 0; slots_ok && i < m->slot_count; i++) {
        const eddy_slot_info *si = &m->slots[i];
        slots_ok = si->name && *si->name && si->max >= 1 && si->max <= EDDY_MAX_SLOT_SETS && si->min <= si->max &&
                   (i > 0 || si->min >= 1);
        for (uint32_t j = 0; slots_ok && j < i; j++)
            slots_ok = strcmp(m->slots[j].name, si->name) != 0;
    }
    if (!slots_ok) {
        eddy_log(e, EDDY_LOG_ERROR, "module.invalid", "module %s: its slots must be at most %d, named uniquely, each "
                 "taking min..max sets with 1 <= max <= %d and min <= max, the first at least one", from,
                 EDDY_MAX_SLOTS, EDDY_MAX_SLOT_SETS);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (eddy_find_module(e, m->name)) {
        eddy_log(e, EDDY_LOG_ERROR, "module.name_taken", "module %s: a module named '%s' is registered already",
                 from, m->name);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    eddy_module_desc **mods = realloc(e->modules, (e->module_count + 1) * sizeof *mods);
    if (mods)
        e->modules = mods;
    void **libs = mods ? realloc(e->module_libraries, (e->module_count + 1) * sizeof *libs) : NULL;
    if (!libs) {
        eddy_log(e, EDDY_LOG_ERROR, "memory.host", "module %s: out of host memory", from);
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    e->module_libraries = libs;
    e->modules[e->module_count] = m;
    e->module_libraries[e->module_count] = library;
    e->module_count++;
    return EDDY_OK;
}

eddy_result eddy_register_module(eddy_engine *e, const eddy_module_desc *desc)
{
    if (!desc) {
        eddy_log(e, EDDY_LOG_ERROR, "module.invalid", "register_module: no descriptor given");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    char from[96];
    snprintf(from, sizeof from, "'%.64s' (registered)", desc->abi_major == EDDY_MODULE_ABI_MAJOR && desc->name
                                                          ? desc->name : "?");
    return add_module(e, desc, NULL, from);
}

void eddy_release_modules(eddy_engine *e)
{
    for (uint32_t i = 0; i < e->module_count; i++) {
        free(e->modules[i]);
        if (e->module_libraries[i])
            dlclose(e->module_libraries[i]);
    }
    free(e->modules);
    free(e->module_libraries);
    e->modules = NULL;
    e->module_libraries = NULL;
    e->module_count = 0;
}

uint32_t eddy_module_count(eddy_engine *e)
{
    return e->module_count;
}

const eddy_module_desc *eddy_module_at(eddy_engine *e, uint32_t index)
{
    return index < e->module_count ? e->modules[index] : NULL;
}

const eddy_module_desc *eddy_find_module(eddy_engine *e, const char *name)
{
    for (uint32_t i = 0; name && i < e->module_count; i++)
        if (!strcmp(e->modules[i]->name, name))
            return e->modules[i];
    return NULL;
}

eddy_result eddy_load_module(eddy_engine *e, const char *path)
{
    if (!path || !*path) {
        eddy_log(e, EDDY_LOG_ERROR, "module.load", "load_module: no path given");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        eddy_log(e, EDDY_LOG_ERROR, "module.load", "module '%s' could not be loaded: %s", path, dlerror());
        return EDDY_ERROR_NOT_FOUND;
    }
    eddy_module_entry_fn entry;
    /* POSIX allows this conversion; ISO C does not know function pointers in void *. */
    *(void **)&entry = dlsym(lib, EDDY_MODULE_ENTRY_SYMBOL);
    const eddy_module_desc *m = entry ? entry() : NULL;
    if (!m) {
        eddy_log(e, EDDY_LOG_ERROR, "module.load", "module '%s' exports no %s() returning a descriptor", path,
                 EDDY_MODULE_ENTRY_SYMBOL);
        dlclose(lib);
        return EDDY_ERROR_NOT_FOUND;
    }
    char from[1200];
    snprintf(from, sizeof from, "'%s'", path);
    eddy_result r = add_module(e, m, lib, from);
    if (r != EDDY_OK) {
        dlclose(lib);
        return r;
    }
    eddy_log(e, EDDY_LOG_DEBUG, "module.loaded", "loaded module '%s' from %s", m->name, path);
    return EDDY_OK;
}
