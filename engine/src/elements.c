/* Element sets: a particle set's topology (edges, triangles, tetrahedra) as
 * named index buffers beside its particle buffers (layout in eddy.h). The
 * indices come from files and scenes, so they are checked here, on the host,
 * before anything reaches the device: a kernel that follows a bad index
 * reads another set's memory or past the buffer. */
#include "internal.h"

static const char *kind_name(eddy_element_kind k)
{
    return k == EDDY_EDGES ? "edge" : k == EDDY_TRIANGLES ? "triangle" : "tetrahedron";
}

static eddy_element_set *find(eddy_particles_obj *s, const char *name)
{
    for (uint32_t i = 0; name && i < s->element_set_count; i++)
        if (!strcmp(s->element_sets[i].name, name))
            return &s->element_sets[i];
    return NULL;
}

/* The first problem of the indices, written to msg; false when there is one. */
static bool check_indices(const eddy_particles_obj *s, const eddy_elements_desc *d, char *msg, size_t cap)
{
    uint32_t k = (uint32_t)d->kind;
    for (uint32_t i = 0; i < d->count; i++) {
        const uint32_t *v = d->indices + (uint64_t)k * i;
        for (uint32_t a = 0; a < k; a++) {
            if (v[a] >= s->capacity) {
                snprintf(msg, cap, "%s %u: vertex %u is particle %u, but the set holds %u (indices from 0)",
                         kind_name(d->kind), i, a, v[a], s->capacity);
                return false;
            }
            for (uint32_t b = 0; b < a; b++)
                if (v[a] == v[b]) {
                    snprintf(msg, cap, "%s %u names particle %u twice (vertices %u and %u): degenerate",
                             kind_name(d->kind), i, v[a], b, a);
                    return false;
                }
        }
    }
    return true;
}

eddy_elements eddy_particles_add_elements(eddy_engine *e, eddy_particles p, const eddy_elements_desc *d)
{
    EDDY_ENGINE_GUARD(e, return (eddy_elements){ 0 });
    EDDY_TAKE_DESC(e, eddy_elements_desc, d, return (eddy_elements){ 0 });
    eddy_elements none = { 0 };
    eddy_particles_obj *s = eddy_particles_get(e, p);
    if (!s || !d) {
        eddy_log(e, EDDY_LOG_ERROR, "handle.invalid", "add_elements: not a live particle set, or no description");
        return none;
    }
    const char *name = d->name ? d->name : "";
    uint32_t capacity = d->capacity ? d->capacity : (d->count ? d->count : 1);
    if (!*name || strlen(name) >= sizeof s->element_sets[0].name ||
        (d->kind != EDDY_EDGES && d->kind != EDDY_TRIANGLES && d->kind != EDDY_TETRAHEDRA) ||
        d->count > capacity || (!d->indices && d->count)) {
        eddy_log(e, EDDY_LOG_ERROR, "particles.invalid", "particle set '%s': element set '%.63s' needs a name of "
                 "1..63 bytes, a kind (EDDY_EDGES, EDDY_TRIANGLES or EDDY_TETRAHEDRA; got %d), count <= capacity "
                 "(%u, %u) and indices for its count", s->name, name, (int)d->kind, d->count, capacity);
        return none;
    }
    if (find(s, name)) {
        eddy_log(e, EDDY_LOG_ERROR, "particles.name_taken", "particle set '%s': an element set named '%s' exists "
                 "already", s->name, name);
        return none;
    }
    char msg[256];
    if (d->indices && !check_indices(s, d, msg, sizeof msg)) {
        eddy_log(e, EDDY_LOG_ERROR, "particles.invalid", "particle set '%s': element set '%s': %s", s->name, name,
                 msg);
        return none;
    }
    char label[160];
    snprintf(label, sizeof label, "%s.%s", s->name, name);
    /* uint32 count x 4 indices x 4 bytes cannot overflow 64 bits; the buffer
     * checks the device's limits. */
    uint64_t bytes = (uint64_t)capacity * (uint64_t)d->kind * 4u;
    eddy_buffer b = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc),
        .size = bytes, .label = label, .data = d->indices,
        .data_size = d->indices ? (uint64_t)d->count * (uint64_t)d->kind * 4u : 0 });
    if (!b.id)
        return none;
    /* VkDrawIndexedIndirectCommand: { indexCount, instanceCount, firstIndex, vertexOffset, firstInstance } */
    const uint32_t draw[5] = { d->count * (uint32_t)d->kind, 1, 0, 0, 0 };
    snprintf(label, sizeof label, "%s.%s.draw", s->name, name);
    eddy_buffer db = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof draw, .label = label, .data = draw,
                                                                 .data_size = sizeof draw });
    if (!db.id) {
        eddy_destroy_buffer(e, b);
        return none;
    }
    s = eddy_particles_get(e, p);
    eddy_element_set *grown = realloc(s->element_sets, (s->element_set_count + 1) * sizeof *grown);
    if (!grown) {
        eddy_destroy_buffer(e, b);
        eddy_destroy_buffer(e, db);
        eddy_log(e, EDDY_LOG_ERROR, "memory.host", "particle set '%s': out of host memory", s->name);
        return none;
    }
    s->element_sets = grown;
    eddy_element_set *es = &s->element_sets[s->element_set_count++];
    memset(es, 0, sizeof *es);
    snprintf(es->name, sizeof es->name, "%s", name);
    es->elements = (eddy_elements){ .buffer = b, .kind = d->kind, .count = d->count, .capacity = capacity };
    es->draw = db;
    return es->elements;
}

eddy_buffer eddy_particles_elements_draw(eddy_engine *e, eddy_particles p, const char *name)
{
    EDDY_ENGINE_GUARD(e, return (eddy_buffer){ 0 });
    eddy_particles_obj *s = eddy_particles_get(e, p);
    eddy_element_set *es = s ? find(s, name) : NULL;
    if (!es)
        eddy_log(e, EDDY_LOG_ERROR, "particles.invalid", "elements_draw: particle set '%s' has no element set '%s'",
                 s ? s->name : "?", name ? name : "(null)");
    return es ? es->draw : (eddy_buffer){ 0 };
}

eddy_elements eddy_particles_elements(eddy_engine *e, eddy_particles p, const char *name)
{
    EDDY_ENGINE_GUARD(e, return (eddy_elements){ 0 });
    eddy_particles_obj *s = eddy_particles_query(e, p, __func__);
    eddy_element_set *es = s ? find(s, name) : NULL;
    return es ? es->elements : (eddy_elements){ 0 };
}

const char *eddy_particles_elements_name(eddy_engine *e, eddy_particles p, uint32_t index)
{
    EDDY_ENGINE_GUARD(e, return NULL);
    eddy_particles_obj *s = eddy_particles_query(e, p, __func__);
    return s && index < s->element_set_count ? s->element_sets[index].name : NULL;
}

eddy_result eddy_particles_set_element_count(eddy_engine *e, eddy_particles p, const char *name, uint32_t count)
{
    EDDY_ENGINE_GUARD(e, return EDDY_ERROR_INVALID_ARGUMENT);
    eddy_particles_obj *s = eddy_particles_get(e, p);
    eddy_element_set *es = s ? find(s, name) : NULL;
    if (!es) {
        eddy_log(e, EDDY_LOG_ERROR, "particles.invalid", "set_element_count: particle set '%s' has no element set "
                 "'%s'", s ? s->name : "?", name ? name : "(null)");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (count > es->elements.capacity) {
        eddy_log(e, EDDY_LOG_ERROR, "particles.invalid", "set_element_count: particle set '%s', element set '%s': "
                 "%u elements are over its capacity of %u", s->name, es->name, count, es->elements.capacity);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    es->elements.count = count;
    /* In the stream of eddy's work, so a draw recorded after eddy's next
     * submission or recording reads the new count, never a half-written one. */
    uint32_t index_count = count * (uint32_t)es->elements.kind;
    return eddy_buffer_stage_write(e, es->draw, 0, sizeof index_count, &index_count);
}
