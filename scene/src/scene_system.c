/* The parts of a scene that a system and the outputs are made from: a
 * system's input ports (their key-framed "path" and where a path is at a time),
 * a module's "params" checked against what the module declares, the static
 * "solids" (plane, sphere, capsule, glass) and "output.images" (the
 * renderer's size, camera and colouring). */
#include "scene_internal.h"

#include <math.h>

uint32_t scene_port_width(const eddy_port_info *p)
{
    return p->type == EDDY_PORT_FLOAT ? 1 : 3;
}

void scene_input_path_at(const scene_input *in, double t, double out[3])
{
    const path_key *k = in->keys;
    uint32_t n = in->key_count;
    if (t <= k[0].t || n == 1) {
        memcpy(out, k[0].x, sizeof k[0].x);
        return;
    }
    if (t >= k[n - 1].t) {
        memcpy(out, k[n - 1].x, sizeof k[n - 1].x);
        return;
    }
    uint32_t i = 0;
    while (t >= k[i + 1].t)
        i++;
    double T = k[i + 1].t - k[i].t, u = (t - k[i].t) / T;
    for (int a = 0; a < 3; a++) {
        double p0 = k[i].x[a], p1 = k[i + 1].x[a];
        if (!in->smooth) {
            out[a] = p0 + (p1 - p0) * u;
            continue;
        }
        /* Catmull-Rom tangents for uneven key spacing; at rest at the ends. */
        double m0 = i > 0 ? (p1 - k[i - 1].x[a]) / (k[i + 1].t - k[i - 1].t) : 0;
        double m1 = i + 2 < n ? (k[i + 2].x[a] - p0) / (k[i + 2].t - k[i].t) : 0;
        double u2 = u * u, u3 = u2 * u;
        out[a] = (2 * u3 - 3 * u2 + 1) * p0 + (u3 - 2 * u2 + u) * T * m0 + (-2 * u3 + 3 * u2) * p1 +
                 (u3 - u2) * T * m1;
    }
}

static const char *const drive_keys[] = { "path", "interpolation", NULL };
static const char *const key_keys[] = { "t", "value", NULL };

/* {"path": [{"t": 0, "value": [x, y, z] or a number}, ...], "interpolation":
 * "linear" | "smooth"}: key times strictly increasing. */
static bool parse_drive(parse_ctx *c, const cJSON *jd, const char *path, scene_input *in)
{
    char field[640];
    bool vec = in->port->type == EDDY_PORT_VEC3;
    if (!cJSON_IsObject(jd))
        return scene_fail(c, "scene.field", path, "expected an object like {\"path\": [{\"t\": 0, \"value\": %s}]}, "
                          "got %s", vec ? "[0, 0.3, 0]" : "1", scene_json_type(jd));
    if (!scene_check_keys(c, jd, path, drive_keys))
        return false;
    const cJSON *jp = cJSON_GetObjectItemCaseSensitive(jd, "path");
    snprintf(field, sizeof field, "%s.path", path);
    if (!cJSON_IsArray(jp) || cJSON_GetArraySize(jp) < 1)
        return scene_fail(c, "scene.field", field, "expected a non-empty array of key frames {\"t\": s, \"value\": "
                          "%s}, got %s", vec ? "[x, y, z]" : "a number", scene_json_type(jp));
    in->key_count = (uint32_t)cJSON_GetArraySize(jp);
    in->keys = calloc(in->key_count, sizeof *in->keys);
    if (!in->keys)
        return scene_fail(c, "memory.host", NULL, "out of host memory");
    uint32_t i = 0;
    for (const cJSON *jk = jp->child; jk; jk = jk->next, i++) {
        char kp[560];
        snprintf(kp, sizeof kp, "%s.path[%u]", path, i);
        if (!cJSON_IsObject(jk))
            return scene_fail(c, "scene.field", kp, "expected a key frame {\"t\": s, \"value\": %s}, got %s",
                              vec ? "[x, y, z]" : "a number", scene_json_type(jk));
        if (!scene_check_keys(c, jk, kp, key_keys) ||
            !scene_get_number(c, jk, "t", kp, true, 0, 0, 1e9, &in->keys[i].t))
            return false;
        if (vec ? !scene_get_vec3_key(c, jk, "value", kp, true, NULL, in->keys[i].x)
                : !scene_get_number(c, jk, "value", kp, true, 0, -1e12, 1e12, &in->keys[i].x[0]))
            return false;
        if (i > 0 && !(in->keys[i].t > in->keys[i - 1].t)) {
            snprintf(field, sizeof field, "%s.t", kp);
            return scene_fail(c, "scene.field", field, "key frames must be in time order: expected a time after "
                              "path[%u].t = %g s, got %g s", i - 1, in->keys[i - 1].t, in->keys[i].t);
        }
    }
    const char *interp = NULL;
    if (!scene_get_string(c, jd, "interpolation", path, false, &interp))
        return false;
    if (interp && strcmp(interp, "linear") && strcmp(interp, "smooth")) {
        snprintf(field, sizeof field, "%s.interpolation", path);
        return scene_fail(c, "scene.field", field, "expected \"linear\" or \"smooth\", got \"%s\"", interp);
    }
    in->smooth = interp && !strcmp(interp, "smooth");
    in->scripted = true;
    scene_input_path_at(in, 0, in->at);
    return true;
}

bool scene_parse_inputs(parse_ctx *c, const cJSON *jin, const char *path, scene_system *sys)
{
    const eddy_module_desc *m = sys->module;
    if (m->input_count) {
        sys->inputs = calloc(m->input_count, sizeof *sys->inputs);
        if (!sys->inputs)
            return scene_fail(c, "memory.host", NULL, "out of host memory");
        for (uint32_t i = 0; i < m->input_count; i++)
            sys->inputs[i].port = &m->inputs[i];
    }
    if (!jin)
        return true;
    char field[400], names[512] = "";
    for (uint32_t i = 0; i < m->input_count; i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", m->inputs[i].name);
    if (!cJSON_IsObject(jin))
        return scene_fail(c, "scene.field", path, "expected an object of input: {\"path\": [...]} (inputs: %s), "
                          "got %s", m->input_count ? names : "none", scene_json_type(jin));
    for (const cJSON *it = jin->child; it; it = it->next) {
        snprintf(field, sizeof field, "%s.%s", path, it->string);
        uint32_t k = 0;
        while (k < m->input_count && strcmp(m->inputs[k].name, it->string))
            k++;
        if (k == m->input_count)
            return scene_fail(c, "scene.unknown_field", field, "module '%s' has no input '%s'; its inputs: %s",
                              m->name, it->string, m->input_count ? names : "(none)");
        if (!parse_drive(c, it, field, &sys->inputs[k]))
            return false;
    }
    return true;
}

void scene_free_param_lists(eddy_param_list *lists, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        /* The scene made these numbers; they are const only to the module. */
        free((void *)lists[i].values);
        lists[i] = (eddy_param_list){ 0 };
    }
}

/* An EDDY_PARAM_LIST value: 1..most entries of `group` numbers each, every
 * number finite and in [min, max]. The numbers go to the heap: a list may
 * hold up to EDDY_PARAM_LIST_MAX_ENTRIES x EDDY_PARAM_LIST_MAX_GROUP of them,
 * far more than belongs on the stack. */
static bool parse_list(parse_ctx *c, const eddy_param_info *info, const cJSON *j, const char *path,
                       eddy_param_list *out)
{
    uint32_t group = (uint32_t)info->def[0], most = (uint32_t)info->def[1];
    bool unit = info->unit && strcmp(info->unit, "1");
    /* Every refusal shows the whole shape: a list is easy to get slightly
     * wrong, and the fix is to see what was wanted. */
    char shape[224];
    snprintf(shape, sizeof shape, "an array of entries (%u number%s each), at most %u, every number in "
             "[%g, %g]%s%s", group, group == 1 ? "" : "s", most, info->min, info->max, unit ? " " : "",
             unit ? info->unit : "");
    if (!cJSON_IsArray(j))
        return scene_fail(c, "scene.field", path, "expected %s; got %s", shape, scene_json_type(j));
    int n = cJSON_GetArraySize(j);
    if (n == 0)
        return scene_fail(c, "scene.field", path, "expected %s; got an empty array (leave the parameter out "
                          "for the module's default)", shape);
    if ((uint32_t)n > most)
        return scene_fail(c, "scene.field", path, "expected %s; got %d entries", shape, n);
    double *values = malloc((size_t)n * group * sizeof *values);
    if (!values)
        return scene_fail(c, "memory.host", NULL, "out of host memory");
    char field[560];
    int k = 0;
    for (const cJSON *entry = j->child; entry; entry = entry->next, k++) {
        snprintf(field, sizeof field, "%s[%d]", path, k);
        int size = cJSON_IsArray(entry) ? cJSON_GetArraySize(entry) : -1;
        if (size != (int)group) {
            char got[64];
            if (size >= 0)
                snprintf(got, sizeof got, "an array of %d number%s", size, size == 1 ? "" : "s");
            else
                snprintf(got, sizeof got, "%s", scene_json_type(entry));
            free(values);
            return scene_fail(c, "scene.field", field, "expected an entry of %u number%s, got %s; the list: %s",
                              group, group == 1 ? "" : "s", got, shape);
        }
        int e = 0;
        for (const cJSON *x = entry->child; x; x = x->next, e++) {
            bool number = cJSON_IsNumber(x), finite = number && isfinite(x->valuedouble);
            if (!finite || x->valuedouble < info->min || x->valuedouble > info->max) {
                char got[64];
                if (!number)
                    snprintf(got, sizeof got, "%s", scene_json_type(x));
                else
                    snprintf(got, sizeof got, "%g%s", x->valuedouble, finite ? ", out of range" : "");
                free(values);
                return scene_fail(c, "scene.field", field, "element %d: expected a finite number in [%g, %g]%s%s; "
                                  "got %s", e, info->min, info->max, unit ? " " : "", unit ? info->unit : "", got);
            }
            values[(size_t)k * group + (size_t)e] = x->valuedouble;
        }
    }
    *out = (eddy_param_list){ .values = values, .count = (uint32_t)n };
    return true;
}

static bool parse_params(parse_ctx *c, const eddy_module_desc *m, const cJSON *jp, const char *path,
                         eddy_param_value *values, eddy_param_list *lists)
{
    if (!jp)
        return true;
    if (!cJSON_IsObject(jp))
        return scene_fail(c, "scene.field", path, "expected an object of parameters, got %s", scene_json_type(jp));
    for (const cJSON *it = jp->child; it; it = it->next) {
        char field[512];
        snprintf(field, sizeof field, "%s.%s", path, it->string);
        const eddy_param_info *info = NULL;
        uint32_t index = 0;
        for (uint32_t i = 0; i < m->param_count; i++)
            if (!strcmp(m->params[i].name, it->string)) {
                info = &m->params[i];
                index = i;
            }
        if (!info) {
            char known[512] = "";
            for (uint32_t i = 0; i < m->param_count; i++)
                snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                         i ? ", " : "", m->params[i].name);
            return scene_fail(c, "scene.unknown_field", field, "module '%s' has no parameter '%s'; its parameters: %s",
                              m->name, it->string, m->param_count ? known : "(none)");
        }
        double *v = values[index].v;
        switch (info->type) {
        case EDDY_PARAM_LIST:
            /* A key given twice is refused before this, but never leak. */
            scene_free_param_lists(&lists[index], 1);
            if (!parse_list(c, info, it, field, &lists[index]))
                return false;
            break;
        case EDDY_PARAM_VEC3:
            if (!scene_get_vec3(c, it, field, info->min, info->max, v))
                return false;
            break;
        case EDDY_PARAM_BOOL:
            if (!cJSON_IsBool(it))
                return scene_fail(c, "scene.field", field, "expected true or false, got %s", scene_json_type(it));
            v[0] = cJSON_IsTrue(it) ? 1 : 0;
            break;
        case EDDY_PARAM_INT:
        case EDDY_PARAM_FLOAT:
            if (!cJSON_IsNumber(it))
                return scene_fail(c, "scene.field", field, "expected a number in [%g, %g], got %s", info->min,
                                  info->max, scene_json_type(it));
            if (!isfinite(it->valuedouble))
                return scene_fail(c, "scene.field", field, "expected a finite number in [%g, %g], got %g",
                                  info->min, info->max, it->valuedouble);
            if (info->type == EDDY_PARAM_INT && it->valuedouble != floor(it->valuedouble))
                return scene_fail(c, "scene.field", field, "expected an integer, got %g", it->valuedouble);
            if (it->valuedouble < info->min || it->valuedouble > info->max)
                return scene_fail(c, "scene.field", field, "%g is out of range; expected a number in [%g, %g]%s%s",
                                  it->valuedouble, info->min, info->max,
                                  info->unit && strcmp(info->unit, "1") ? " " : "",
                                  info->unit && strcmp(info->unit, "1") ? info->unit : "");
            v[0] = it->valuedouble;
            break;
        }
    }
    return true;
}

bool scene_parse_params(parse_ctx *c, const eddy_module_desc *m, const cJSON *jp,
                        const char *path, eddy_param_value *values, eddy_param_list *lists)
{
    for (uint32_t i = 0; i < m->param_count; i++) {
        memcpy(values[i].v, m->params[i].def, sizeof values[i].v);
        lists[i] = (eddy_param_list){ 0 };
    }
    if (parse_params(c, m, jp, path, values, lists))
        return true;
    scene_free_param_lists(lists, m->param_count);
    return false;
}

/* ------------------------------------------------------------------ solids */

bool scene_parse_solid(parse_ctx *c, const cJSON *j, const char *path, eddy_solid *out)
{
    static const char *const plane_keys[] = { "type", "point", "normal", NULL };
    static const char *const sphere_keys[] = { "type", "center", "radius", NULL };
    static const char *const capsule_keys[] = { "type", "a", "b", "radius", NULL };
    static const char *const glass_keys[] = { "type", "center", "axis", "radius", "height",
                                              "thickness", NULL };
    if (!cJSON_IsObject(j))
        return scene_fail(c, "scene.field", path, "expected an object with a \"type\", got %s", scene_json_type(j));
    const char *type;
    if (!scene_get_string(c, j, "type", path, true, &type))
        return false;
    memset(out, 0, sizeof *out);
    double a[3], b[3], r = 0, hgt = 0, t = 0;
    char field[160];
    if (!strcmp(type, "plane")) {
        if (!scene_check_keys(c, j, path, plane_keys) || !scene_get_vec3_key(c, j, "point", path, true, NULL, a) ||
            !scene_get_vec3_key(c, j, "normal", path, true, NULL, b))
            return false;
        out->type = EDDY_SOLID_PLANE;
    } else if (!strcmp(type, "sphere")) {
        if (!scene_check_keys(c, j, path, sphere_keys) || !scene_get_vec3_key(c, j, "center", path, true, NULL, a) ||
            !scene_get_number(c, j, "radius", path, true, 0, 1e-9, 1e9, &r))
            return false;
        out->type = EDDY_SOLID_SPHERE;
    } else if (!strcmp(type, "capsule")) {
        if (!scene_check_keys(c, j, path, capsule_keys) || !scene_get_vec3_key(c, j, "a", path, true, NULL, a) ||
            !scene_get_vec3_key(c, j, "b", path, true, NULL, b) ||
            !scene_get_number(c, j, "radius", path, true, 0, 1e-9, 1e9, &r))
            return false;
        out->type = EDDY_SOLID_CAPSULE;
    } else if (!strcmp(type, "glass")) {
        static const double up[3] = { 0, 1, 0 };
        if (!scene_check_keys(c, j, path, glass_keys) || !scene_get_vec3_key(c, j, "center", path, true, NULL, a) ||
            !scene_get_vec3_key(c, j, "axis", path, false, up, b) ||
            !scene_get_number(c, j, "radius", path, true, 0, 1e-9, 1e9, &r) ||
            !scene_get_number(c, j, "height", path, true, 0, 1e-9, 1e9, &hgt) ||
            !scene_get_number(c, j, "thickness", path, false, 0.005, 1e-9, 1e9, &t))
            return false;
        out->type = EDDY_SOLID_GLASS;
    } else {
        snprintf(field, sizeof field, "%s.type", path);
        return scene_fail(c, "scene.field", field, "unknown solid '%s'; expected \"plane\", \"sphere\", \"capsule\" "
                          "or \"glass\"", type);
    }
    if (out->type == EDDY_SOLID_PLANE || out->type == EDDY_SOLID_GLASS) {
        double len = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
        if (!(len > 1e-12)) {
            snprintf(field, sizeof field, "%s.%s", path, out->type == EDDY_SOLID_PLANE ? "normal" : "axis");
            return scene_fail(c, "scene.field", field, "expected a non-zero vector");
        }
        for (int k = 0; k < 3; k++)
            b[k] /= len;
    }
    for (int k = 0; k < 3; k++) {
        out->a[k] = (float)a[k];
        out->b[k] = out->type == EDDY_SOLID_SPHERE ? 0.0f : (float)b[k];
    }
    out->a[3] = (float)r;
    out->b[3] = (float)hgt;
    out->c[0] = (float)t;
    return true;
}

/* ------------------------------------------------------------------ images */

static const char *const image_keys[] = { "width", "height", "camera", "color_by", "range", NULL };
static const char *const camera_keys[] = { "eye", "target", "up", "fov", NULL };

/* "output.images": the renderer's size, camera and colouring. The default
 * camera looks at the box centre from the front, a little from above. */
bool scene_parse_images(parse_ctx *c, eddy_scene *s, const cJSON *j, eddy_render_desc *rd)
{
    if (!cJSON_IsObject(j))
        return scene_fail(c, "scene.field", "output.images", "expected an object, got %s", scene_json_type(j));
    double w, h, fov = 40;
    if (!scene_check_keys(c, j, "output.images", image_keys) ||
        !scene_get_number(c, j, "width", "output.images", false, 640, 16, 8192, &w) ||
        !scene_get_number(c, j, "height", "output.images", false, 480, 16, 8192, &h))
        return false;
    double center[3], ext = 0, eye[3], target[3], up[3] = { 0, 1, 0 };
    for (int a = 0; a < 3; a++) {
        center[a] = 0.5 * (s->box_min[a] + s->box_max[a]);
        double d = s->box_max[a] - s->box_min[a];
        ext += d * d;
    }
    ext = sqrt(ext);
    static const double dir[3] = { 0.35, 0.45, 1.0 };
    for (int a = 0; a < 3; a++) {
        target[a] = center[a];
        eye[a] = center[a] + 1.3 * ext * dir[a];
    }
    const cJSON *cam = cJSON_GetObjectItemCaseSensitive(j, "camera");
    if (cam) {
        if (!cJSON_IsObject(cam))
            return scene_fail(c, "scene.field", "output.images.camera", "expected an object, got %s", scene_json_type(cam));
        double e0[3], t0[3], u0[3];
        memcpy(e0, eye, sizeof e0), memcpy(t0, target, sizeof t0), memcpy(u0, up, sizeof u0);
        if (!scene_check_keys(c, cam, "output.images.camera", camera_keys) ||
            !scene_get_vec3_key(c, cam, "eye", "output.images.camera", false, e0, eye) ||
            !scene_get_vec3_key(c, cam, "target", "output.images.camera", false, t0, target) ||
            !scene_get_vec3_key(c, cam, "up", "output.images.camera", false, u0, up) ||
            !scene_get_number(c, cam, "fov", "output.images.camera", false, 40, 1, 170, &fov))
            return false;
    }
    const char *by;
    if (!scene_get_string(c, j, "color_by", "output.images", false, &by))
        return false;
    s->color_by = !by || !strcmp(by, "speed") ? 0 : !strcmp(by, "density") ? 1 : !strcmp(by, "set") ? 2
                  : !strcmp(by, "phase") ? 3 : -1;
    if (s->color_by < 0)
        return scene_fail(c, "scene.field", "output.images.color_by", "unknown '%s'; expected \"speed\", \"density\", \"set\" or \"phase\"", by);
    s->color_range[0] = s->color_by == 1 ? 900 : 0;
    s->color_range[1] = s->color_by == 1 ? 1100 : s->color_by == 0 ? 3 : 1;
    const cJSON *range = cJSON_GetObjectItemCaseSensitive(j, "range");
    if (range) {
        double r3[3];
        if (!cJSON_IsArray(range) || cJSON_GetArraySize(range) != 2)
            return scene_fail(c, "scene.field", "output.images.range", "expected [low, high], got %s", scene_json_type(range));
        for (int i = 0; i < 2; i++) {
            const cJSON *x = cJSON_GetArrayItem(range, i);
            if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
                return scene_fail(c, "scene.field", "output.images.range", "element %d: expected a finite number", i);
            r3[i] = x->valuedouble;
        }
        if (!(r3[1] > r3[0]))
            return scene_fail(c, "scene.field", "output.images.range", "high must exceed low (%g .. %g)", r3[0], r3[1]);
        s->color_range[0] = r3[0], s->color_range[1] = r3[1];
    }
    s->image_w = (uint32_t)w;
    s->image_h = (uint32_t)h;
    *rd = (eddy_render_desc){ .width = s->image_w, .height = s->image_h, .fov_deg = (float)fov };
    for (int a = 0; a < 3; a++) {
        rd->eye[a] = (float)eye[a];
        rd->target[a] = (float)target[a];
        rd->up[a] = (float)up[a];
    }
    s->images = true;
    s->view = *rd;
    return true;
}

eddy_result eddy_scene_get_view(const eddy_scene *s, eddy_scene_view *out)
{
    SCENE_GUARD(s, return EDDY_ERROR_INVALID_ARGUMENT);
    SCENE_NEED(s, out, return EDDY_ERROR_INVALID_ARGUMENT);
    *out = (eddy_scene_view){ .images = s->images, .width = s->view.width, .height = s->view.height,
                              .fov_deg = s->view.fov_deg, .color_by = s->images ? s->color_by : 0,
                              .range = { s->color_range[0], s->color_range[1] } };
    for (int a = 0; a < 3; a++) {
        out->eye[a] = s->view.eye[a];
        out->target[a] = s->view.target[a];
        out->up[a] = s->view.up[a];
    }
    return EDDY_OK;
}

/* The camera a view may take: finite, eye off the target, up off the view. */
static bool view_desc_ok(const eddy_scene *s, const char *system, const eddy_system_view_desc *d)
{
    double f[3], u[3], len = 0, cross = 0;
    bool finite = isfinite(d->fov_deg);
    for (int a = 0; a < 3; a++) {
        finite = finite && isfinite(d->eye[a]) && isfinite(d->target[a]) && isfinite(d->up[a]);
        f[a] = (double)d->target[a] - d->eye[a], u[a] = d->up[a], len += f[a] * f[a];
    }
    for (int a = 0; a < 3; a++) {
        double c = f[(a + 1) % 3] * u[(a + 2) % 3] - f[(a + 2) % 3] * u[(a + 1) % 3];
        cross += c * c;
    }
    const char *field = !finite                                      ? "eye, target, up, fov_deg (finite)"
                        : !(len > 0)                                 ? "target (not equal to eye)"
                        : !(cross > 1e-12 * len * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2])) ? "up (not along the view)"
                        : !(d->fov_deg > 0 && d->fov_deg < 179)      ? "fov_deg (in (0, 179))"
                        : d->width < 1 || d->width > 16384           ? "width (1..16384)"
                        : d->height < 1 || d->height > 16384         ? "height (1..16384)"
                                                                     : NULL;
    if (field)
        eddy_log(s->e, EDDY_LOG_ERROR, "render.invalid", "scene '%s': the view of system '%s' has a bad %s", s->name,
                 system, field);
    return !field;
}

eddy_result eddy_scene_system_view(eddy_scene *s, const char *system, const eddy_system_view_desc *desc,
                                   eddy_system_view *out)
{
    SCENE_GUARD(s, return EDDY_ERROR_INVALID_ARGUMENT);
    SCENE_NEED(s, out, return EDDY_ERROR_INVALID_ARGUMENT);
    EDDY_TAKE_DESC(s->e, eddy_system_view_desc, desc, return EDDY_ERROR_ABI);
    if (out->struct_size < sizeof *out) {
        eddy_log(s->e, EDDY_LOG_ERROR, "desc.size", "eddy_scene_system_view: out.struct_size is %u, expected at "
                 "least %zu (EDDY_SIZED(eddy_system_view))", out->struct_size, sizeof *out);
        return EDDY_ERROR_ABI;
    }
    const scene_system *sys = scene_find_system(s, system);
    if (!sys)
        return EDDY_ERROR_INVALID_ARGUMENT;
    if (!sys->module->view) {
        eddy_log(s->e, EDDY_LOG_ERROR, "scene.no_view", "scene '%s': system '%s' (module '%s') draws no picture "
                 "of its own", s->name, system, sys->module->name);
        return EDDY_ERROR_UNSUPPORTED;
    }
    if (!view_desc_ok(s, system, desc))
        return EDDY_ERROR_INVALID_ARGUMENT;
    eddy_system_view got = { EDDY_SIZED(eddy_system_view) };
    eddy_result res = sys->module->view(sys->state, desc, &got);
    if (res == EDDY_OK)
        *out = got;
    return res;
}
