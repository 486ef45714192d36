/* Loading a scene file (JSON): the top-level fields, box, output, plugins,
 * solids, particle sets and systems, in that order, through load();
 * eddy_load_scene and eddy_destroy_scene; and the scene's info and getters.
 * Everything is parsed and checked before anything is written, so a bad
 * scene leaves no output behind. See README.md, "Scene files". */
#include "scene_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>

static const char *const scene_keys[] = { "name", "dt", "substeps", "adaptive", "balance", "duration", "box",
                                          "particle_sets", "systems", "output", "plugins",
                                          "description", "solids", NULL };

static const char *const system_keys[] = { "name", "module", "set", "sets", "params", "inputs", "log", "substeps",
                                           NULL };

/* A system's own substeps per scene substep: "substeps": N (1 ..
 * EDDY_MAX_SYSTEM_SUBSTEPS) or "stable" (as many as its stable step needs,
 * at least 1). 0 in *n means "stable". */
#define EDDY_MAX_SYSTEM_SUBSTEPS 4096
static bool parse_rate(parse_ctx *c, const cJSON *js, const char *path, uint32_t *n)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(js, "substeps");
    char field[160];
    snprintf(field, sizeof field, "%s.substeps", path);
    *n = 1;
    if (!j)
        return true;
    if (cJSON_IsString(j) && !strcmp(j->valuestring, "stable")) {
        *n = 0;
        return true;
    }
    double v;
    if (!cJSON_IsNumber(j))
        return scene_fail(c, "scene.field", field, "expected a whole number in [1, %d] or \"stable\", got %s",
                          EDDY_MAX_SYSTEM_SUBSTEPS, scene_json_type(j));
    if (!scene_get_whole(c, js, "substeps", path, 1, 1, EDDY_MAX_SYSTEM_SUBSTEPS, &v))
        return false;
    *n = (uint32_t)v;
    return true;
}

/* Systems in one scene (each is recorded into every substep). */
#define EDDY_SCENE_MAX_SYSTEMS 64

/* The one slot of a module that declares none. */
static const eddy_slot_info default_slot = { "set", "the particle set the system runs on", 1, 1 };

/* The set a system entry runs on (its first slot's first set), resolved
 * without messages (bind_slots reports what is wrong); none if unresolved. */
static eddy_particles first_set(eddy_engine *e, const cJSON *js)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(js, "module");
    const eddy_module_desc *md = cJSON_IsString(m) ? eddy_find_module(e, m->valuestring) : NULL;
    const cJSON *one = cJSON_GetObjectItemCaseSensitive(js, "set"), *many = cJSON_GetObjectItemCaseSensitive(js, "sets");
    if (!md)
        return (eddy_particles){ 0 };
    if (cJSON_IsObject(many)) {
        one = cJSON_GetObjectItemCaseSensitive(many, md->slot_count ? md->slots[0].name : default_slot.name);
        if (cJSON_IsArray(one))
            one = one->child;
    }
    return cJSON_IsString(one) ? eddy_find_particles(e, one->valuestring) : (eddy_particles){ 0 };
}

/* Binds the scene's sets to the module's slots: "set" (the first slot) or
 * "sets" ({"slot": "set" or ["set", ...]}), each set at most once per
 * system, every slot within its min..max. */
static bool bind_slots(parse_ctx *c, const cJSON *js, const char *path, const eddy_module_desc *m,
                       eddy_particles sets[EDDY_MAX_SLOTS][EDDY_MAX_SLOT_SETS], eddy_slot_sets *bound)
{
    const eddy_slot_info *slots = m->slot_count ? m->slots : &default_slot;
    uint32_t n = m->slot_count ? m->slot_count : 1;
    char field[160], names[512] = "";
    for (uint32_t i = 0; i < n; i++) {
        bound[i] = (eddy_slot_sets){ sets[i], 0 };
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s\"%s\"", i ? ", " : "", slots[i].name);
    }
    const cJSON *one = cJSON_GetObjectItemCaseSensitive(js, "set");
    const cJSON *many = cJSON_GetObjectItemCaseSensitive(js, "sets");
    if (cJSON_GetObjectItemCaseSensitive(js, "tool")) {
        snprintf(field, sizeof field, "%s.tool", path);
        return scene_fail(c, "scene.unknown_field", field, "\"tool\" is replaced by ports: a path drives an input, "
                          "e.g. \"inputs\": {\"tool.position\": {\"path\": [{\"t\": 0, \"value\": [x, y, z]}], "
                          "\"interpolation\": \"smooth\"}}, and \"log\": true writes ports_<system>.csv "
                          "(`eddy modules` lists each module's inputs and outputs)");
    }
    if (cJSON_GetObjectItemCaseSensitive(js, "with")) {
        snprintf(field, sizeof field, "%s.with", path);
        char example[160];
        snprintf(example, sizeof example, n > 1 ? "{\"%s\": \"water\", \"%s\": \"cube\"}" : "{\"%s\": \"water\"}",
                 slots[0].name, n > 1 ? slots[1].name : "");
        return scene_fail(c, "scene.unknown_field", field, "\"with\" is replaced by slots: bind sets by slot name, "
                          "e.g. \"sets\": %s; module '%s' has the slots %s", example, m->name, names);
    }
    if (!one == !many) {
        snprintf(field, sizeof field, "%s.%s", path, one ? "sets" : "set");
        return scene_fail(c, one ? "scene.field" : "scene.missing_field", field,
                          "expected either \"set\" (a set for the slot \"%s\") or \"sets\" (an object of "
                          "slot: set or [sets], slots %s), not %s", slots[0].name, names, one ? "both" : "neither");
    }
    if (one) {
        const char *name;
        if (!scene_get_string(c, js, "set", path, true, &name))
            return false;
        snprintf(field, sizeof field, "%s.set", path);
        sets[0][0] = eddy_find_particles(c->e, name);
        if (!sets[0][0].id)
            return scene_fail(c, "scene.unknown_set", field, "no particle set named '%s' in particle_sets", name);
        bound[0].count = 1;
    } else {
        snprintf(field, sizeof field, "%s.sets", path);
        if (!cJSON_IsObject(many))
            return scene_fail(c, "scene.field", field, "expected an object of slot: set or [sets] (slots %s), got %s",
                              names, scene_json_type(many));
        for (const cJSON *it = many->child; it; it = it->next) {
            snprintf(field, sizeof field, "%s.sets.%s", path, it->string);
            uint32_t k = 0;
            while (k < n && strcmp(slots[k].name, it->string))
                k++;
            if (k == n)
                return scene_fail(c, "scene.unknown_field", field, "module '%s' has no slot '%s'; its slots: %s",
                                  m->name, it->string, names);
            const cJSON *list = cJSON_IsArray(it) ? it->child : it;
            for (const cJSON *x = list; x; x = cJSON_IsArray(it) ? x->next : NULL) {
                if (!cJSON_IsString(x) || !*x->valuestring)
                    return scene_fail(c, "scene.field", field, "expected a set name or an array of set names, got %s",
                                      scene_json_type(x));
                if (bound[k].count == slots[k].max)
                    return scene_fail(c, "scene.field", field, "more than %u set%s; the slot takes %u..%u",
                                      slots[k].max, slots[k].max == 1 ? "" : "s", slots[k].min, slots[k].max);
                eddy_particles h = eddy_find_particles(c->e, x->valuestring);
                if (!h.id)
                    return scene_fail(c, "scene.unknown_set", field, "no particle set named '%s' in particle_sets",
                                      x->valuestring);
                sets[k][bound[k].count++] = h;
            }
        }
    }
    for (uint32_t k = 0; k < n; k++) {
        snprintf(field, sizeof field, "%s.sets.%s", path, slots[k].name);
        if (bound[k].count < slots[k].min)
            return scene_fail(c, "scene.missing_field", field, "the slot needs %u..%u set%s (%s); got %u", slots[k].min,
                              slots[k].max, slots[k].max == 1 ? "" : "s", slots[k].doc ? slots[k].doc : "",
                              bound[k].count);
        /* A set twice in one system would be its own boundary, or counted twice. */
        for (uint32_t i = 0; i < bound[k].count; i++)
            for (uint32_t l = 0; l <= k; l++)
                for (uint32_t j = 0; j < (l == k ? i : bound[l].count); j++)
                    if (sets[k][i].id == sets[l][j].id)
                        return scene_fail(c, "scene.field", field, "set '%s' is bound twice in this system; "
                                          "expected each set once", eddy_particles_name(c->e, sets[k][i]));
    }
    return true;
}

/* A system entry's checks between its params and its creation: its name
 * (unique in the scene; use is the name it gets, given_name whether the
 * entry gave it) and its own substeps (*rate, 0 for "stable"). Apart so that
 * the caller has one way out to free the params' lists. */
static bool check_system(parse_ctx *c, const eddy_scene *s, const cJSON *js, const char *path,
                         const eddy_module_desc *m, const char *use, bool given_name, const eddy_slot_sets *bound,
                         uint32_t *rate)
{
    char field[128];
    snprintf(field, sizeof field, "%s.name", path);
    if (!given_name && !scene_check_name(c, field, use, EDDY_NAME_MAX))
        return false;
    for (uint32_t i = 0; i < s->system_count; i++)
        if (!strcmp(s->systems[i].name, use))
            return scene_fail(c, "scene.name", field, "a system named '%s' exists already; expected a \"name\" of its own",
                              use);
    if (!parse_rate(c, js, path, rate))
        return false;
    snprintf(field, sizeof field, "%s.substeps", path);
    if (*rate != 1 && s->adaptive)
        return scene_fail(c, "scene.field", field, "a system's own substeps and the scene's \"adaptive\" "
                          "cannot be combined yet; expected one of them");
    if (*rate == 0 && (!m->stable_dt || !m->set_dt))
        return scene_fail(c, "scene.field", field, "module '%s' does not report a stable step (no stable_dt): "
                          "expected a number of substeps", m->name);
    /* A system's sets beyond its first slot are other systems' (a
     * fluid's boundary): what it writes on them each of its substeps
     * would reach them only from its last one. */
    for (uint32_t k = 1; *rate != 1 && k < (m->slot_count ? m->slot_count : 1); k++)
        if (bound[k].count)
            return scene_fail(c, "scene.field", field, "a system with its own substeps cannot take sets in "
                              "its slot '%s' yet (what it puts on them would hold for its last substep "
                              "only); expected 1 substep, or give the other system the substeps",
                              m->slots[k].name);
    return true;
}

/* The scene's name (or the file's stem), its step, duration and adaptive
 * substeps. */
static bool load_header(parse_ctx *c, eddy_scene *s, const cJSON *root)
{
    if (!cJSON_IsObject(root))
        return scene_fail(c, "scene.json", NULL, "the scene must be a JSON object, not %s", scene_json_type(root));
    if (!scene_check_keys(c, root, "", scene_keys))
        return false;
    if (!scene_check_duplicates(c, root, ""))
        return false;
    const char *name;
    if (!scene_get_name(c, root, "name", "", false, EDDY_SCENE_NAME_MAX, &name))
        return false;
    if (!name) {
        /* The file's stem names an unnamed scene, under the same rules. */
        const char *base = strrchr(s->path, '/');
        base = base ? base + 1 : s->path;
        const char *dot = strrchr(base, '.');
        size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
        char stem[EDDY_SCENE_NAME_MAX + 2];
        snprintf(stem, sizeof stem, "%.*s", (int)(len < sizeof stem - 1 ? len : sizeof stem - 1), base);
        if (!scene_check_name(c, "name", stem, EDDY_SCENE_NAME_MAX))
            return scene_fail(c, "scene.field", "name", "the file name's stem names a scene without \"name\"");
        snprintf(s->name, sizeof s->name, "%.*s", EDDY_SCENE_NAME_MAX, stem); /* checked: fits */
    } else {
        snprintf(s->name, sizeof s->name, "%s", name);
    }
    double substeps;
    if (!scene_get_number(c, root, "dt", "", true, 0, 1e-9, 10, &s->dt) ||
        !scene_get_number(c, root, "substeps", "", false, 1, 1, 10000, &substeps) ||
        !scene_get_number(c, root, "duration", "", true, 0, 0, 1e9, &s->duration))
        return false;
    if (substeps != floor(substeps))
        return scene_fail(c, "scene.field", "substeps", "expected an integer, got %g", substeps);
    s->substeps = (uint32_t)substeps;
    /* "adaptive": {"max_substeps": N}: each frame the step is split into as
     * many substeps as the systems' stability bounds need (at least
     * `substeps`), so a fast flow takes smaller steps; the graph is
     * re-recorded only when that number changes. */
    const cJSON *ad = cJSON_GetObjectItemCaseSensitive(root, "adaptive");
    if (ad) {
        static const char *const adaptive_keys[] = { "max_substeps", NULL };
        double maxs;
        if (!cJSON_IsObject(ad))
            return scene_fail(c, "scene.field", "adaptive", "expected an object like {\"max_substeps\": 100}, got %s",
                              scene_json_type(ad));
        if (!scene_check_keys(c, ad, "adaptive", adaptive_keys) ||
            !scene_get_number(c, ad, "max_substeps", "adaptive", false, 100, 1, 10000, &maxs))
            return false;
        s->adaptive = true;
        s->max_substeps = (uint32_t)maxs;
    }
    /* "balance": {"by": "particles" | "time", "threshold": 0.1}: over MPI
     * ranks, when the split moves (a rank's particles, or its measured
     * compute time, above the mean by the threshold). */
    s->balance_threshold = 0.10;
    const cJSON *bal = cJSON_GetObjectItemCaseSensitive(root, "balance");
    if (bal) {
        static const char *const balance_keys[] = { "by", "threshold", NULL };
        const char *by = NULL;
        if (!cJSON_IsObject(bal))
            return scene_fail(c, "scene.field", "balance", "expected an object like {\"by\": \"time\", \"threshold\": "
                              "0.1}, got %s", scene_json_type(bal));
        if (!scene_check_keys(c, bal, "balance", balance_keys) ||
            !scene_get_string(c, bal, "by", "balance", false, &by) ||
            !scene_get_number(c, bal, "threshold", "balance", false, 0.10, 0.01, 10, &s->balance_threshold))
            return false;
        if (by && strcmp(by, "particles") && strcmp(by, "time"))
            return scene_fail(c, "scene.field", "balance.by", "expected \"particles\" or \"time\", got \"%s\"", by);
        s->balance_time = by && !strcmp(by, "time");
    }
    double steps = ceil(s->duration / s->dt - 1e-9);
    if (steps > 1e12)
        return scene_fail(c, "scene.too_large", "duration", "%g s at dt %g s is %g steps; at most 1e12", s->duration, s->dt,
                          steps);
    s->steps = (uint64_t)(steps > 0 ? steps : 0);
    return true;
}

static const char *const box_keys[] = { "min", "max", NULL };
static const char *const output_keys[] = { "frame_interval", "vtk", "stats", "images", NULL };

static bool load_box(parse_ctx *c, eddy_scene *s, const cJSON *root)
{
    const cJSON *box = cJSON_GetObjectItemCaseSensitive(root, "box");
    if (!box)
        return scene_fail(c, "scene.missing_field", "box", "missing; expected {\"min\": [x, y, z], \"max\": [x, y, z]} (m)");
    if (!cJSON_IsObject(box))
        return scene_fail(c, "scene.field", "box", "expected an object, got %s", scene_json_type(box));
    double bmin[3], bmax[3];
    if (!scene_check_keys(c, box, "box", box_keys) ||
        !scene_get_vec3_key(c, box, "min", "box", true, NULL, bmin) ||
        !scene_get_vec3_key(c, box, "max", "box", true, NULL, bmax))
        return false;
    for (int a = 0; a < 3; a++) {
        if (!(bmax[a] > bmin[a]))
            return scene_fail(c, "scene.field", "box", "max must exceed min along every axis (axis %d: %g .. %g)", a,
                              bmin[a], bmax[a]);
        s->box_min[a] = (float)bmin[a];
        s->box_max[a] = (float)bmax[a];
    }
    return true;
}

/* What is written per frame, how often, and the renderer for images. */
static bool load_output(parse_ctx *c, eddy_scene *s, const cJSON *root)
{
    const cJSON *out = cJSON_GetObjectItemCaseSensitive(root, "output");
    double frame_interval = 1.0 / 30.0;
    s->vtk = s->stats = true;
    if (out) {
        if (!cJSON_IsObject(out))
            return scene_fail(c, "scene.field", "output", "expected an object, got %s", scene_json_type(out));
        if (!scene_check_keys(c, out, "output", output_keys) ||
            !scene_get_number(c, out, "frame_interval", "output", false, 1.0 / 30.0, 1e-9, 1e9,
                              &frame_interval) ||
            !scene_get_bool(c, out, "vtk", "output", true, &s->vtk) ||
            !scene_get_bool(c, out, "stats", "output", true, &s->stats))
            return false;
        const cJSON *images = cJSON_GetObjectItemCaseSensitive(out, "images");
        if (images) {
            eddy_render_desc rd;
            if (!scene_parse_images(c, s, images, &rd))
                return false;
            s->renderer = eddy_create_renderer(s->e, &rd);
            if (!s->renderer)
                return scene_fail(c, "scene.system", "output.images", "the renderer could not be created (see above)");
        }
    }
    double every = floor(frame_interval / s->dt + 0.5);
    s->frame_every = every < 1 ? 1 : every > 4e9 ? 4000000000u : (uint32_t)every;
    return true;
}

/* Module libraries the scene loads, when the caller allows it. */
static bool load_plugins(parse_ctx *c, eddy_scene *s, const cJSON *root, const eddy_scene_desc *desc)
{
    const cJSON *plugins = cJSON_GetObjectItemCaseSensitive(root, "plugins");
    if (!plugins)
        return true;
    if (!cJSON_IsArray(plugins))
        return scene_fail(c, "scene.field", "plugins", "expected an array of shared library paths, got %s",
                          scene_json_type(plugins));
    /* A library runs its code when loaded: a scene file alone (from
     * anyone) must not be able to do that. */
    if (!desc->allow_plugins && cJSON_GetArraySize(plugins) > 0)
        return scene_fail(c, "scene.plugin_refused", "plugins", "the scene loads module libraries, which run their own code; "
                          "refused unless allowed (eddy run --allow-plugins, or "
                          "eddy_scene_desc.allow_plugins; --module LIB.so loads one by hand)");
    char dir[4096];
    scene_dir_of(s->path, dir, sizeof dir);
    int i = 0;
    for (const cJSON *p = plugins->child; p; p = p->next, i++) {
        char field[64];
        snprintf(field, sizeof field, "plugins[%d]", i);
        if (!cJSON_IsString(p))
            return scene_fail(c, "scene.field", field, "expected a path string, got %s", scene_json_type(p));
        char full[4096];
        int len = p->valuestring[0] == '/' ? snprintf(full, sizeof full, "%s", p->valuestring)
                                           : snprintf(full, sizeof full, "%s/%s", dir, p->valuestring);
        if (len < 0 || (size_t)len >= sizeof full)
            return scene_fail(c, "scene.field", field, "the path is longer than %zu bytes", sizeof full - 1);
        if (eddy_load_module(s->e, full) != EDDY_OK)
            return scene_fail(c, "scene.system", field, "module '%s' could not be loaded (see above)", full);
    }
    return true;
}

static bool load_solids(parse_ctx *c, eddy_scene *s, const cJSON *root)
{
    const cJSON *solids = cJSON_GetObjectItemCaseSensitive(root, "solids");
    if (!solids)
        return true;
    if (!cJSON_IsArray(solids))
        return scene_fail(c, "scene.field", "solids", "expected an array of solids, got %s", scene_json_type(solids));
    int n = cJSON_GetArraySize(solids);
    s->solids = calloc((size_t)n + 1, sizeof *s->solids);
    if (!s->solids)
        return scene_fail(c, "memory.host", NULL, "out of host memory");
    int i = 0;
    for (const cJSON *js = solids->child; js; js = js->next, i++) {
        char path[64];
        snprintf(path, sizeof path, "solids[%d]", i);
        if (!scene_parse_solid(c, js, path, &s->solids[s->solid_count]))
            return false;
        s->solid_count++;
    }
    return true;
}

/* A set's particles from the host into its buffers, with a tetmesh's
 * topology and scalar, a cloth's triangles and the pins. */
static eddy_result upload_set(eddy_engine *e, eddy_particles p, const host_particles *h)
{
    eddy_result r = eddy_buffer_upload(e, eddy_particles_buffer(e, p, "position"), 0,
                                       h->count * 16, h->position);
    if (r == EDDY_OK)
        r = eddy_buffer_upload(e, eddy_particles_buffer(e, p, "velocity"), 0, h->count * 16,
                               h->velocity);
    if (r == EDDY_OK)
        r = eddy_buffer_upload(e, eddy_particles_buffer(e, p, "mass"), 0, h->count * 4, h->mass);
    if (r == EDDY_OK)
        r = eddy_buffer_upload(e, eddy_particles_buffer(e, p, "phase"), 0, h->count * 4,
                               h->phase);
    if (r == EDDY_OK && h->tets) {
        if (!eddy_particles_add_elements(e, p, &(eddy_elements_desc){ EDDY_SIZED(eddy_elements_desc), .name = "tets", .kind = EDDY_TETRAHEDRA,
                                                                      .count = h->tet_count, .indices = h->tets })
                 .buffer.id ||
            !eddy_particles_add_elements(e, p, &(eddy_elements_desc){ EDDY_SIZED(eddy_elements_desc), .name = "surface", .kind = EDDY_TRIANGLES,
                                                                      .count = h->surface_count,
                                                                      .indices = h->surface })
                 .buffer.id)
            r = EDDY_ERROR_OUT_OF_MEMORY;
        eddy_buffer sb = r == EDDY_OK ? eddy_particles_add_buffer(e, p, "scalar", 4) : (eddy_buffer){ 0 };
        r = !sb.id ? EDDY_ERROR_OUT_OF_MEMORY : eddy_buffer_upload(e, sb, 0, h->count * 4, h->scalar);
    }
    if (r == EDDY_OK && h->triangles &&
        !eddy_particles_add_elements(e, p, &(eddy_elements_desc){ EDDY_SIZED(eddy_elements_desc), .name = "triangles", .kind = EDDY_TRIANGLES,
                                                                  .count = h->triangle_count,
                                                                  .indices = h->triangles })
             .buffer.id)
        r = EDDY_ERROR_OUT_OF_MEMORY;
    if (r == EDDY_OK && h->pinned) {
        eddy_buffer pb = eddy_particles_add_buffer(e, p, "pinned", 4);
        r = !pb.id ? EDDY_ERROR_OUT_OF_MEMORY : eddy_buffer_upload(e, pb, 0, h->count * 4, h->pinned);
    }
    return r;
}

/* The particle sets: each parsed (its fill) on the host, then made and
 * uploaded. */
static bool load_sets(parse_ctx *c, eddy_scene *s, const cJSON *root)
{
    eddy_engine *e = s->e;
    const cJSON *sets = cJSON_GetObjectItemCaseSensitive(root, "particle_sets");
    if (!cJSON_IsArray(sets) || cJSON_GetArraySize(sets) == 0)
        return scene_fail(c, "scene.field", "particle_sets", "expected a non-empty array of particle sets, got %s",
                          scene_json_type(sets));
    int set_n = cJSON_GetArraySize(sets);
    s->sets = calloc((size_t)set_n, sizeof *s->sets);
    if (!s->sets)
        return scene_fail(c, "memory.host", NULL, "out of host memory");
    uint64_t limit = eddy_engine_device(e)->max_storage_buffer_range / 16;
    int index = 0;
    for (const cJSON *js = sets->child; js; js = js->next, index++) {
        host_particles h = { 0 };
        uint32_t capacity = 0;
        char sname[EDDY_NAME_MAX + 1];
        if (!scene_parse_set(c, s, js, index, limit, &h, &capacity, sname)) {
            scene_host_free(&h);
            return false;
        }
        /* Frames and the scene's info count all sets in 32 bits. */
        uint64_t all = h.count;
        for (uint32_t i = 0; i < s->set_count; i++)
            all += s->sets[i].count;
        if (all > UINT32_MAX) {
            scene_host_free(&h);
            char field[64];
            snprintf(field, sizeof field, "particle_sets[%d]", index);
            return scene_fail(c, "scene.too_large", field, "the scene's sets would hold %" PRIu64 " particles together; at most %u",
                              all, UINT32_MAX);
        }
        eddy_particles p = eddy_create_particles(e, &(eddy_particles_desc){ EDDY_SIZED(eddy_particles_desc),
            .name = sname, .count = (uint32_t)h.count, .capacity = capacity });
        if (!p.id) {
            scene_host_free(&h);
            char field[64];
            snprintf(field, sizeof field, "particle_sets[%d]", index);
            return scene_fail(c, "scene.system", field, "the set's buffers could not be created (see above)");
        }
        scene_set *ss = &s->sets[s->set_count++];
        ss->handle = p;
        ss->count = (uint32_t)h.count;
        snprintf(ss->name, sizeof ss->name, "%s", sname);
        eddy_result r = upload_set(e, p, &h);
        scene_host_free(&h);
        if (r != EDDY_OK)
            return scene_fail(c, "scene.system", NULL, "uploading particle set '%s' failed", sname);
    }
    return true;
}

/* A system created at the scene's substep that asked for "stable" substeps:
 * as many of its own as its stable step needs. */
static bool stable_rate(parse_ctx *c, const eddy_scene *s, scene_system *sys, const char *path, uint32_t *rate)
{
    const eddy_module_desc *m = sys->module;
    char field[128];
    snprintf(field, sizeof field, "%s.substeps", path);
    double sub = s->dt / s->substeps, stable = m->stable_dt(sys->state);
    double need = stable > 0 ? ceil(sub / stable - 1e-9) : INFINITY;
    if (!(need <= EDDY_MAX_SYSTEM_SUBSTEPS))
        return scene_fail(c, "scene.field", field, "module '%s' needs a substep of %g s, more than %d of "
                          "the scene's %g s substep", m->name, stable, EDDY_MAX_SYSTEM_SUBSTEPS, sub);
    *rate = need < 1 ? 1 : (uint32_t)need;
    if (m->set_dt(sys->state, sub / *rate) != EDDY_OK)
        return scene_fail(c, "scene.system", path, "module '%s' could not take its substep (see above)",
                          m->name);
    return true;
}

/* A created system's inputs (paths that drive them) and whether its ports
 * are logged. */
static bool system_ports(parse_ctx *c, eddy_scene *s, scene_system *sys, const cJSON *js, const char *path)
{
    const eddy_module_desc *m = sys->module;
    char field[128];
    snprintf(field, sizeof field, "%s.inputs", path);
    if (!scene_parse_inputs(c, cJSON_GetObjectItemCaseSensitive(js, "inputs"), field, sys))
        return false;
    bool scripted = false;
    for (uint32_t k = 0; k < m->input_count; k++)
        scripted = scripted || sys->inputs[k].scripted;
    /* The scene's paths are logged unless "log" says otherwise. */
    if (!scene_get_bool(c, js, "log", path, scripted, &sys->log))
        return false;
    if (sys->log && !m->input_count && !m->output_count) {
        snprintf(field, sizeof field, "%s.log", path);
        return scene_fail(c, "scene.field", field, "module '%s' has no ports to log", m->name);
    }
    if ((scripted || sys->log) && scene_activate_ports(s, sys) != EDDY_OK)
        return scene_fail(c, "scene.system", path, "module '%s' could not take its inputs (see above)", m->name);
    return true;
}

/* The module a system entry names; an unknown one is refused with the
 * known ones listed. */
static const eddy_module_desc *system_module(parse_ctx *c, eddy_engine *e, const cJSON *js, const char *path,
                                             const char **mname)
{
    if (!scene_get_string(c, js, "module", path, true, mname))
        return NULL;
    const eddy_module_desc *m = eddy_find_module(e, *mname);
    if (!m) {
        char known[512] = "", field[128];
        for (uint32_t i = 0; i < eddy_module_count(e); i++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                     i ? ", " : "", eddy_module_at(e, i)->name);
        snprintf(field, sizeof field, "%s.module", path);
        scene_fail(c, "scene.unknown_module", field, "unknown module '%s'; known modules: %s (`eddy modules` "
                   "lists them)", *mname, known);
    }
    return m;
}

/* System entry `index`: its module, sets, name, params and substeps
 * checked, then the system created and its ports set up. owner[o] is
 * system o's own set (for who moves whose sets), of sys_n systems. */
static bool create_system(parse_ctx *c, eddy_scene *s, const cJSON *js, int index, const eddy_particles *owner,
                          int sys_n)
{
    eddy_engine *e = s->e;
    char path[64];
    snprintf(path, sizeof path, "systems[%d]", index);
    if (!cJSON_IsObject(js))
        return scene_fail(c, "scene.field", path, "expected an object, got %s", scene_json_type(js));
    const char *mname, *sname;
    const eddy_module_desc *m = system_module(c, e, js, path, &mname);
    if (!m)
        return false;
    char field[128];
    eddy_particles slot_sets[EDDY_MAX_SLOTS][EDDY_MAX_SLOT_SETS];
    eddy_slot_sets bound[EDDY_MAX_SLOTS];
    /* "with" first: its message shows the slots that replace it. */
    if (!bind_slots(c, js, path, m, slot_sets, bound) || !scene_check_keys(c, js, path, system_keys) ||
        !scene_get_name(c, js, "name", path, false, EDDY_NAME_MAX, &sname))
        return false;
    eddy_param_value values[64];
    eddy_param_list lists[64];
    if (m->param_count > 64) {
        snprintf(field, sizeof field, "%s.module", path);
        return scene_fail(c, "scene.field", field, "module '%s' declares more than 64 parameters", m->name);
    }
    /* From here to create, every way out frees the lists' numbers. */
    snprintf(field, sizeof field, "%s.params", path);
    if (!scene_parse_params(c, m, cJSON_GetObjectItemCaseSensitive(js, "params"), field, values, lists))
        return false;
    /* A system's name is part of its files' names (tool_<name>.csv,
     * <name>_surface_*.ply): one name, one system. */
    const char *use = sname ? sname : mname;
    uint32_t rate = 1;
    if (!check_system(c, s, js, path, m, use, sname != NULL, bound, &rate)) {
        scene_free_param_lists(lists, m->param_count);
        return false;
    }
    scene_system *sys = &s->systems[s->system_count++];
    sys->module = m;
    snprintf(sys->name, sizeof sys->name, "%s", use);
    eddy_system_ctx ctx = {
        .size = sizeof(eddy_system_ctx),
        .engine = e,
        .name = sys->name,
        .particles = bound[0].sets[0],
        .slots = bound,
        .slot_count = m->slot_count ? m->slot_count : 1,
        .params = values,
        .lists = lists,
        .dt = s->dt / s->substeps / (rate ? rate : 1),
        .substeps = s->substeps * (rate ? rate : 1),
        .solids = s->solids,
        .solid_count = s->solid_count,
        /* "stable": created at the scene's substep, then set to its own. */
        .adaptive = s->adaptive || rate == 0,
    };
    for (uint32_t k = 0; k < ctx.slot_count; k++)
        for (uint32_t j = 0; j < bound[k].count; j++)
            for (int o = 0; o < sys_n; o++)
                if (o != index && owner[o].id == bound[k].sets[j].id) {
                    if (o < index)
                        ctx.moved_before[k] |= 1u << j;
                    else
                        ctx.moved_after[k] |= 1u << j;
                }
    memcpy(ctx.box_min, s->box_min, sizeof ctx.box_min);
    memcpy(ctx.box_max, s->box_max, sizeof ctx.box_max);
    eddy_result made = m->create(&ctx, &sys->state);
    scene_free_param_lists(lists, m->param_count);
    sys->set = bound[0].sets[0];
    sys->params = malloc(sizeof *sys->params * (m->param_count ? m->param_count : 1));
    if (!sys->params)
        return scene_fail(c, "memory.host", path, "out of host memory");
    memcpy(sys->params, values, sizeof *sys->params * m->param_count);
    if (made != EDDY_OK)
        return scene_fail(c, "scene.system", path, "module '%s' could not create the system (see above)", m->name);
    if (rate == 0 && !stable_rate(c, s, sys, path, &rate))
        return false;
    sys->rate = rate;
    if (s->adaptive && (!m->stable_dt || !m->set_dt))
        return scene_fail(c, "scene.field", "adaptive", "module '%s' (%s) cannot adapt its step (no stable_dt)",
                          m->name, path);
    return system_ports(c, s, sys, js, path);
}

/* The systems, in file order, into the step graph made here. */
static bool load_systems(parse_ctx *c, eddy_scene *s, const cJSON *root, const eddy_scene_desc *desc)
{
    eddy_engine *e = s->e;
    const cJSON *systems = cJSON_GetObjectItemCaseSensitive(root, "systems");
    if (!cJSON_IsArray(systems) || cJSON_GetArraySize(systems) == 0)
        return scene_fail(c, "scene.field", "systems", "expected a non-empty array of systems, got %s",
                          scene_json_type(systems));
    int sys_n = cJSON_GetArraySize(systems);
    if (sys_n > EDDY_SCENE_MAX_SYSTEMS)
        return scene_fail(c, "scene.field", "systems", "%d systems; expected at most %d", sys_n,
                          EDDY_SCENE_MAX_SYSTEMS);
    s->systems = calloc((size_t)sys_n, sizeof *s->systems);
    if (!s->systems)
        return scene_fail(c, "memory.host", NULL, "out of host memory");
    /* Each system's own set, for who moves whose sets (ctx.moved_*). */
    eddy_particles owner[EDDY_SCENE_MAX_SYSTEMS] = { { 0 } };
    int index = 0;
    for (const cJSON *js = systems->child; js; js = js->next, index++)
        owner[index] = cJSON_IsObject(js) ? first_set(e, js) : (eddy_particles){ 0 };
    s->graph = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc),
        .label = "step", .times = s->substeps, .timestamps = desc->profile });
    if (!s->graph.id)
        return scene_fail(c, "scene.system", NULL, "the step graph could not be created");
    s->generation = 1;
    index = 0;
    for (const cJSON *js = systems->child; js; js = js->next, index++)
        if (!create_system(c, s, js, index, owner, sys_n))
            return false;
    return true;
}

/* Every system declares its step once all are created: a system finds
 * what the ones after it add to a shared set (a fluid's slice of the
 * forces on a rigid set). The system's passes run `rate` times inside
 * each scene substep, in the same recorded graph; what other systems
 * write in between (a fluid's force on a boundary) holds for those
 * substeps. Then the first adaptive substep. */
static bool declare_steps(parse_ctx *c, eddy_scene *s)
{
    eddy_engine *e = s->e;
    for (uint32_t i = 0; i < s->system_count; i++) {
        scene_system *sys = &s->systems[i];
        const eddy_module_desc *m = sys->module;
        char path[64], field[128];
        snprintf(path, sizeof path, "systems[%u]", i);
        snprintf(field, sizeof field, "%s.substeps", path);
        uint32_t first = eddy_graph_pass_count(e, s->graph);
        if (m->declare_step(sys->state, s->graph) != EDDY_OK)
            return scene_fail(c, "scene.system", path, "module '%s' could not declare its step (see above)", m->name);
        uint32_t count = eddy_graph_pass_count(e, s->graph) - first;
        sys->pass_first = first, sys->pass_count = count;
        if (sys->rate > 1 && count && eddy_graph_repeat(e, s->graph, first, count, sys->rate) != EDDY_OK)
            return scene_fail(c, "scene.field", field, "module '%s' repeats passes of its own step (solver "
                              "iterations), which cannot run inside a repeat: expected 1 substep", m->name);
    }
    if (s->adaptive && scene_adapt(s) != EDDY_OK)
        return scene_fail(c, "scene.system", "adaptive", "the first adaptive substep could not be set up (see above)");
    return true;
}

/* The scene's parts in the order their checks run: a later part may name
 * an earlier one (a system its sets, a set's fill the solids). */
static bool load(parse_ctx *c, eddy_scene *s, const cJSON *root, const eddy_scene_desc *desc)
{
    return load_header(c, s, root) && load_box(c, s, root) && load_output(c, s, root) &&
           load_plugins(c, s, root, desc) && load_solids(c, s, root) && load_sets(c, s, root) &&
           load_systems(c, s, root, desc) && declare_steps(c, s);
}

static eddy_scene *load_scene(eddy_engine *e, const eddy_scene_desc *desc);

eddy_scene *eddy_load_scene(eddy_engine *e, const eddy_scene_desc *desc)
{
    if (!e) {
        fprintf(stderr, "eddy error [handle.invalid]: eddy_load_scene: the engine is NULL\n");
        return NULL;
    }
    EDDY_TAKE_DESC_OPTIONAL(e, eddy_scene_desc, desc, return NULL);
    eddy_scene *s = load_scene(e, desc);
    /* Over ranks every rank comes here, loaded or not, and they agree. */
    return desc && desc->mpi_comm ? scene_dist_attach(e, s, desc->mpi_comm) : s;
}

/* eddy_load_scene on one rank: e checked and desc taken by the caller. */
static eddy_scene *load_scene(eddy_engine *e, const eddy_scene_desc *desc)
{
    if (!desc || (!desc->path && !desc->json && !desc->checkpoint)) {
        eddy_log(e, EDDY_LOG_ERROR, "scene.invalid", "load_scene: give a path, the JSON text or a checkpoint");
        return NULL;
    }
    eddy_scene *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->e = e;
    s->no_output = desc->no_output;
    s->profile = desc->profile;
    parse_ctx c = { e, desc->path ? desc->path : "(scene text)", false,
                    desc->host_budget ? desc->host_budget : EDDY_SCENE_DEFAULT_HOST_BUDGET };
    /* Paths too long for eddy's buffers are refused, never cut (a cut path
     * names another file or folder). */
    if (desc->path && strlen(desc->path) >= sizeof s->path) {
        scene_fail(&c, "scene.file", NULL, "the scene file's path is longer than %zu bytes", sizeof s->path - 1);
        free(s);
        return NULL;
    }
    if (desc->out_dir && strlen(desc->out_dir) > EDDY_OUT_DIR_MAX) {
        scene_fail(&c, "output.write", NULL, "the output folder's path (--out) is %zu bytes long; at most %d", strlen(desc->out_dir),
                   EDDY_OUT_DIR_MAX);
        free(s);
        return NULL;
    }
    snprintf(s->path, sizeof s->path, "%s", desc->path ? desc->path : "(scene text)");
    c.file = s->path;
    char *text = NULL;
    if (desc->checkpoint && !desc->json && !desc->path) {
        text = scene_checkpoint_text(e, desc->checkpoint, s->path, sizeof s->path);
        if (!text) {
            free(s);
            return NULL;
        }
        c.file = s->path;
    } else if (desc->json) {
        text = strdup(desc->json);
    } else {
        char err[256];
        text = scene_read_file(desc->path, err, sizeof err);
        if (!text) {
            scene_fail(&c, "scene.file", NULL, "%s", err);
            free(s);
            return NULL;
        }
    }
    if (!text) {
        free(s);
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
    if (!root) {
        int line, col;
        const char *at = end ? end : cJSON_GetErrorPtr();
        scene_line_col(text, at ? at : text, &line, &col);
        char near[96];
        if (at && *at)
            eddy_printable(at, strnlen(at, 20), near, sizeof near);
        eddy_log(e, EDDY_LOG_ERROR, "scene.json", "%s:%d:%d: malformed JSON near '%s'", s->path, line, col,
                 at && *at ? near : "(end of file)");
        free(text);
        free(s);
        return NULL;
    }
    bool ok = load(&c, s, root, desc);
    cJSON_Delete(root);
    s->text = text;
    if (!ok) {
        eddy_destroy_scene(s);
        return NULL;
    }
    if (desc->out_dir && *desc->out_dir)
        snprintf(s->out_dir, sizeof s->out_dir, "%s", desc->out_dir);
    else
        snprintf(s->out_dir, sizeof s->out_dir, "out/%s", s->name);
    if (desc->checkpoint && !scene_restore(s, desc->checkpoint)) {
        eddy_destroy_scene(s);
        return NULL;
    }
    /* A program that destroys the engine first leaves the scene an empty
     * shell, not a use after free. */
    if (eddy_engine_on_destroy(e, scene_engine_gone, s) != EDDY_OK) {
        eddy_destroy_scene(s);
        return NULL;
    }
    return s;
}

/* Everything the scene made from its engine and its modules: the output
 * closed, the graph, renderer, systems and sets destroyed, the arrays that
 * hold them freed. The scene struct stays (its engine is NULL after). */
static void scene_release(eddy_scene *s)
{
    eddy_engine *e = s->e;
    scene_close_output(s);
    scene_dist_free(s);
    eddy_destroy_graph(e, s->graph);
    eddy_destroy_renderer(e, s->renderer);
    for (uint32_t i = 0; i < s->system_count; i++) {
        s->systems[i].module->destroy(s->systems[i].state);
        for (uint32_t k = 0; s->systems[i].inputs && k < s->systems[i].module->input_count; k++)
            free(s->systems[i].inputs[k].keys);
        free(s->systems[i].inputs);
        free(s->systems[i].outputs);
        free(s->systems[i].text);
        free(s->systems[i].params);
    }
    for (uint32_t i = 0; i < s->set_count; i++)
        eddy_destroy_particles(e, s->sets[i].handle);
    for (uint32_t i = 0; i < s->pvd_count; i++)
        free((char *)s->pvd[i].file);
    free(s->pvd);
    free(s->text);
    free(s->resume_bytes);
    s->text = NULL, s->resume_bytes = NULL;
    free(s->solids);
    free(s->systems);
    free(s->sets);
    s->pvd = NULL, s->solids = NULL, s->systems = NULL, s->sets = NULL, s->renderer = NULL;
    s->pvd_count = s->solid_count = s->system_count = s->set_count = 0;
    s->graph = (eddy_graph){ 0 };
    s->e = NULL;
}

/* The engine goes first (eddy_engine_on_destroy): the scene lets go of it
 * and of its modules (whose libraries the engine unloads), and stays an
 * empty shell that eddy_destroy_scene frees. */
void scene_engine_gone(void *scene)
{
    scene_release(scene);
}

void eddy_destroy_scene(eddy_scene *s)
{
    if (!s)
        return;
    if (s->e) {
        eddy_engine_forget(s->e, s);
        scene_release(s);
    }
    free(s);
}

eddy_scene_info eddy_scene_get_info(const eddy_scene *s)
{
    SCENE_GUARD(s, return (eddy_scene_info){ 0 });
    uint32_t particles = 0;
    for (uint32_t i = 0; i < s->set_count; i++)
        particles += s->sets[i].count;
    return (eddy_scene_info){
        .name = s->name,
        .dt = s->dt,
        .substeps = s->adaptive ? s->current_substeps : s->substeps,
        .duration = s->duration,
        .steps = s->steps,
        .steps_done = s->steps_done,
        .time = (double)s->steps_done * s->dt,
        .frame_every = s->frame_every,
        .particle_count = particles,
        .out_dir = s->out_dir,
        .graph_generation = s->generation,
    };
}

scene_system *scene_find_system(const eddy_scene *s, const char *name)
{
    for (uint32_t i = 0; s && name && i < s->system_count; i++)
        if (!strcmp(s->systems[i].name, name))
            return &s->systems[i];
    if (s)
        eddy_log(s->e, EDDY_LOG_ERROR, "scene.unknown_system", "scene '%s' has no system named '%s'", s->name,
                 name ? name : "(null)");
    return NULL;
}

const eddy_module_desc *eddy_scene_system_module(const eddy_scene *s, const char *name)
{
    SCENE_GUARD(s, return NULL);
    const scene_system *sys = scene_find_system(s, name);
    return sys ? sys->module : NULL;
}

eddy_result eddy_scene_system_param(const eddy_scene *s, const char *system, const char *param, double value[3])
{
    SCENE_GUARD(s, return EDDY_ERROR_INVALID_ARGUMENT);
    SCENE_NEED(s, value, return EDDY_ERROR_INVALID_ARGUMENT);
    const scene_system *sys = scene_find_system(s, system);
    if (!sys)
        return EDDY_ERROR_INVALID_ARGUMENT;
    const eddy_module_desc *m = sys->module;
    for (uint32_t k = 0; sys->params && param && k < m->param_count; k++)
        if (!strcmp(m->params[k].name, param)) {
            memcpy(value, sys->params[k].v, 3 * sizeof *value);
            return EDDY_OK;
        }
    eddy_log(s->e, EDDY_LOG_ERROR, "scene.unknown_param", "scene '%s': system '%s' (module '%s') has no parameter "
             "'%s' (`eddy modules` lists them)", s->name, system, m->name, param ? param : "(null)");
    return EDDY_ERROR_INVALID_ARGUMENT;
}

eddy_particles eddy_scene_system_set(const eddy_scene *s, const char *system)
{
    SCENE_GUARD(s, return (eddy_particles){ 0 });
    const scene_system *sys = scene_find_system(s, system);
    return sys ? sys->set : (eddy_particles){ 0 };
}

eddy_engine *eddy_scene_engine(const eddy_scene *s)
{
    return s->e;
}

eddy_graph eddy_scene_graph(const eddy_scene *s)
{
    SCENE_GUARD(s, return (eddy_graph){ 0 });
    return s->graph;
}

eddy_particles eddy_scene_set(const eddy_scene *s, uint32_t index)
{
    SCENE_GUARD(s, return (eddy_particles){ 0 });
    return s && index < s->set_count ? s->sets[index].handle : (eddy_particles){ 0 };
}

const eddy_solid *eddy_scene_solids(const eddy_scene *s, uint32_t *count)
{
    SCENE_GUARD(s, return NULL);
    SCENE_NEED(s, count, return NULL);
    *count = s->solid_count;
    return s->solids;
}

void eddy_scene_box(const eddy_scene *s, double min[3], double max[3])
{
    SCENE_GUARD(s, return);
    SCENE_NEED(s, max, return);
    SCENE_NEED(s, min, return);
    for (int a = 0; a < 3; a++) {
        min[a] = s ? s->box_min[a] : 0;
        max[a] = s ? s->box_max[a] : 0;
    }
}

const char *eddy_scene_system_name(const eddy_scene *s, uint32_t index)
{
    SCENE_GUARD(s, return NULL);
    return s && index < s->system_count ? s->systems[index].name : NULL;
}
