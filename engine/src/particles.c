/* Particle sets: named groups of per-particle buffers owned by the engine, so
 * that solver modules, coupling modules and renderers share one memory. */
#include "internal.h"

eddy_particles_obj *eddy_particles_get(eddy_engine *e, eddy_particles p)
{
    return eddy_pool_get(&e->particles, p.id);
}

static const struct {
    const char *name;
    uint32_t element_size;
} standard[] = {
    { "position", 16 },
    { "velocity", 16 },
    { "mass", 4 },
    { "phase", 4 },
};

static void free_set(eddy_engine *e, eddy_particles_obj *s)
{
    for (uint32_t i = 0; i < s->buffer_count; i++)
        eddy_destroy_buffer(e, s->buffers[i].buffer);
    free(s->buffers);
    s->buffers = NULL;
    s->buffer_count = 0;
    for (uint32_t i = 0; i < s->element_set_count; i++) {
        eddy_destroy_buffer(e, s->element_sets[i].elements.buffer);
        eddy_destroy_buffer(e, s->element_sets[i].draw);
    }
    eddy_destroy_buffer(e, s->draw);
    s->draw = (eddy_buffer){ 0 };
    free(s->element_sets);
    s->element_sets = NULL;
    s->element_set_count = 0;
    s->slot.live = false;
}

eddy_particles eddy_create_particles(eddy_engine *e, const eddy_particles_desc *d)
{
    EDDY_ENGINE_GUARD(e, return (eddy_particles){ 0 });
    EDDY_TAKE_DESC(e, eddy_particles_desc, d, return (eddy_particles){ 0 });
    eddy_particles none = { 0 };
    if (!d || !d->name || !*d->name || strlen(d->name) >= sizeof(((eddy_particles_obj *)0)->name)) {
        eddy_log(e, EDDY_LOG_ERROR, "particles.invalid", "particle set: name must be 1..63 characters");
        return none;
    }
    if (eddy_find_particles(e, d->name).id) {
        eddy_log(e, EDDY_LOG_ERROR, "particles.name_taken", "particle set '%s' exists already", d->name);
        return none;
    }
    uint32_t capacity = d->capacity ? d->capacity : d->count;
    if (capacity == 0 || d->count > capacity) {
        eddy_log(e, EDDY_LOG_ERROR, "particles.invalid", "particle set '%s': count %u and capacity %u: need "
                 "1 <= capacity and count <= capacity", d->name, d->count, capacity);
        return none;
    }
    uint32_t id;
    eddy_particles_obj *s = eddy_pool_alloc(&e->particles, &id);
    if (!s)
        return none;
    snprintf(s->name, sizeof s->name, "%s", d->name);
    s->count = d->count;
    s->capacity = capacity;
    eddy_particles h = { id };
    for (size_t i = 0; i < sizeof standard / sizeof standard[0]; i++)
        if (!eddy_particles_add_buffer(e, h, standard[i].name, standard[i].element_size).id) {
            eddy_destroy_particles(e, h);
            return none;
        }
    /* VkDrawIndirectCommand x 2: { vertexCount, instanceCount, firstVertex, firstInstance } */
    const uint32_t draws[8] = { s->count, 1, 0, 0, 6, s->count, 0, 0 };
    char label[80];
    snprintf(label, sizeof label, "%s.draw", s->name);
    s->draw = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof draws, .label = label, .data = draws,
                                                          .data_size = sizeof draws });
    if (!s->draw.id) {
        eddy_destroy_particles(e, h);
        return none;
    }
    return h;
}

eddy_buffer eddy_particles_draw(eddy_engine *e, eddy_particles p)
{
    EDDY_ENGINE_GUARD(e, return (eddy_buffer){ 0 });
    eddy_particles_obj *s = eddy_particles_get(e, p);
    if (!s)
        eddy_log(e, EDDY_LOG_ERROR, "handle.invalid", "particles_draw: not a live particle set");
    return s ? s->draw : (eddy_buffer){ 0 };
}

void eddy_destroy_particles(eddy_engine *e, eddy_particles p)
{
    EDDY_ENGINE_GUARD(e, return);
    eddy_particles_obj *s = eddy_particles_get(e, p);
    if (s)
        free_set(e, s);
}

void eddy_destroy_all_particles(eddy_engine *e)
{
    for (uint32_t i = 0; i < e->particles.count; i++) {
        eddy_particles_obj *s =
            (eddy_particles_obj *)(e->particles.items + (size_t)i * e->particles.elem_size);
        if (s->slot.live)
            free_set(e, s);
    }
}

eddy_particles eddy_find_particles(eddy_engine *e, const char *name)
{
    EDDY_ENGINE_GUARD(e, return (eddy_particles){ 0 });
    for (uint32_t i = 0; name && i < e->particles.count; i++) {
        eddy_particles_obj *s =
            (eddy_particles_obj *)(e->particles.items + (size_t)i * e->particles.elem_size);
        if (s->slot.live && !strcmp(s->name, name))
            return (eddy_particles){ (s->slot.generation << EDDY_ID_INDEX_BITS) | (i + 1) };
    }
    return (eddy_particles){ 0 };
}

const char *eddy_particles_name(eddy_engine *e, eddy_particles p)
{
    EDDY_ENGINE_GUARD(e, return NULL);
    eddy_particles_obj *s = eddy_particles_query(e, p, __func__);
    return s ? s->name : "(none)";
}

uint32_t eddy_particles_count(eddy_engine *e, eddy_particles p)
{
    EDDY_ENGINE_GUARD(e, return 0);
    eddy_particles_obj *s = eddy_particles_query(e, p, __func__);
    return s ? s->count : 0;
}

uint32_t eddy_particles_capacity(eddy_engine *e, eddy_particles p)
{
    EDDY_ENGINE_GUARD(e, return 0);
    eddy_particles_obj *s = eddy_particles_query(e, p, __func__);
    return s ? s->capacity : 0;
}

eddy_result eddy_particles_set_count(eddy_engine *e, eddy_particles p, uint32_t count)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    eddy_particles_obj *s = eddy_particles_query(e, p, __func__);
    if (!s)
        return EDDY_ERROR_INVALID_ARGUMENT;
    if (count > s->capacity) {
        eddy_log(e, EDDY_LOG_ERROR, "particles.invalid", "particle set '%s': count %u is over its capacity %u",
                 s->name, count, s->capacity);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    /* The draw counts follow, so a renderer drawing the set sees the
     * particles in use. */
    const uint32_t draws[8] = { count, 1, 0, 0, 6, count, 0, 0 };
    eddy_result r = eddy_buffer_upload(e, s->draw, 0, sizeof draws, draws);
    if (r == EDDY_OK)
        s->count = count;
    return r;
}

eddy_buffer eddy_particles_buffer(eddy_engine *e, eddy_particles p, const char *name)
{
    EDDY_ENGINE_GUARD(e, return (eddy_buffer){ 0 });
    eddy_particles_obj *s = eddy_particles_query(e, p, __func__);
    for (uint32_t i = 0; s && name && i < s->buffer_count; i++)
        if (!strcmp(s->buffers[i].name, name))
            return s->buffers[i].buffer;
    return (eddy_buffer){ 0 };
}

const char *eddy_particles_buffer_name(eddy_engine *e, eddy_particles p, uint32_t index)
{
    EDDY_ENGINE_GUARD(e, return NULL);
    eddy_particles_obj *s = eddy_particles_query(e, p, __func__);
    return s && index < s->buffer_count ? s->buffers[index].name : NULL;
}

eddy_buffer eddy_particles_add_buffer(eddy_engine *e, eddy_particles p, const char *name,
                                      uint32_t element_size)
{
    EDDY_ENGINE_GUARD(e, return (eddy_buffer){ 0 });
    eddy_buffer none = { 0 };
    eddy_particles_obj *s = eddy_particles_get(e, p);
    if (!s || !name || !*name || strlen(name) >= sizeof s->buffers[0].name || element_size == 0) {
        eddy_log(e, EDDY_LOG_ERROR, "particles.invalid", "particle buffer: needs a live set, a name of 1..63 "
                 "characters and an element size > 0");
        return none;
    }
    for (uint32_t i = 0; i < s->buffer_count; i++) {
        if (strcmp(s->buffers[i].name, name))
            continue;
        if (s->buffers[i].element_size != element_size) {
            eddy_log(e, EDDY_LOG_ERROR, "particles.invalid", "particle set '%s': buffer '%s' has %u bytes per "
                     "particle, not %u", s->name, name, s->buffers[i].element_size, element_size);
            return none;
        }
        return s->buffers[i].buffer;
    }
    char label[160];
    snprintf(label, sizeof label, "%s.%s", s->name, name);
    eddy_buffer b = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc),
        .size = (uint64_t)s->capacity * element_size, .label = label });
    if (!b.id)
        return none;
    s = eddy_particles_get(e, p); /* the pool did not move, but stay safe against future changes */
    eddy_named_buffer *grown = realloc(s->buffers, (s->buffer_count + 1) * sizeof *grown);
    if (!grown) {
        eddy_destroy_buffer(e, b);
        return none;
    }
    s->buffers = grown;
    eddy_named_buffer *nb = &s->buffers[s->buffer_count++];
    memset(nb, 0, sizeof *nb);
    snprintf(nb->name, sizeof nb->name, "%s", name);
    nb->buffer = b;
    nb->element_size = element_size;
    return b;
}

static eddy_named_buffer *named(eddy_engine *e, eddy_particles p, const char *name)
{
    eddy_particles_obj *s = eddy_particles_get(e, p);
    for (uint32_t i = 0; s && name && i < s->buffer_count; i++)
        if (!strcmp(s->buffers[i].name, name))
            return &s->buffers[i];
    return NULL;
}

eddy_result eddy_particles_mark_set_rows(eddy_engine *e, eddy_particles p, const char *name)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    eddy_named_buffer *b = named(e, p, name);
    if (!b) {
        eddy_log(e, EDDY_LOG_ERROR, "particles.invalid", "eddy_particles_mark_set_rows: no buffer '%s' in a live "
                 "particle set", name ? name : "(null)");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    b->set_rows = true;
    return EDDY_OK;
}

bool eddy_particles_buffer_travels(eddy_engine *e, eddy_particles p, const char *name)
{
    EDDY_ENGINE_GUARD(e, return false);
    eddy_named_buffer *b = named(e, p, name);
    return b && !b->set_rows;
}
