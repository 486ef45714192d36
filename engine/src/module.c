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
    [1] = offsetof(eddy_module_desc, view),
    [2] = offsetof(eddy_module_desc, view), /* 4.2 appended to eddy_system_ctx only */
    [3] = offsetof(eddy_module_desc, checkpoint),
    [4] = offsetof(eddy_module_desc, reach),
    [5] = offsetof(eddy_module_desc, declare_parts),
    [6] = sizeof(eddy_module_desc),
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
    eddy_result r = eddy_module_check(e, m, from);
    if (r != EDDY_OK)
        return r;
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
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
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
    EDDY_ENGINE_GUARD(e, return 0);
    return e->module_count;
}

const eddy_module_desc *eddy_module_at(eddy_engine *e, uint32_t index)
{
    EDDY_ENGINE_GUARD(e, return NULL);
    return index < e->module_count ? e->modules[index] : NULL;
}

const eddy_module_desc *eddy_find_module(eddy_engine *e, const char *name)
{
    EDDY_ENGINE_GUARD(e, return NULL);
    for (uint32_t i = 0; name && i < e->module_count; i++)
        if (!strcmp(e->modules[i]->name, name))
            return e->modules[i];
    return NULL;
}

eddy_result eddy_load_module(eddy_engine *e, const char *path)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
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
