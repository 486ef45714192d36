/* The scene parser's JSON helpers and its one message: scene_fail (the
 * first problem of a scene, with its identifier, file and field), the typed
 * field readers (numbers, vectors, strings, booleans, whole numbers, names),
 * the unknown-key and duplicate-key checks, and reading the file itself
 * (regular files only, at most 64 MiB) with the line and column of a JSON
 * error. Used by every other scene_*.c file that reads the scene. */
#include "scene_internal.h"

#include <errno.h>
#include <math.h>
#include <sys/stat.h>

bool scene_fail(parse_ctx *c, const char *id, const char *field, const char *fmt, ...)
{
    if (c->failed)
        return false; /* one message per scene: the first problem */
    c->failed = true;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    eddy_log(c->e, EDDY_LOG_ERROR, id, "%s: %s%s%s", c->file, field ? field : "", field ? ": " : "",
             msg);
    return false;
}

const char *scene_json_type(const cJSON *j)
{
    if (!j)
        return "nothing";
    if (cJSON_IsNumber(j))
        return "a number";
    if (cJSON_IsString(j))
        return "a string";
    if (cJSON_IsBool(j))
        return "a boolean";
    if (cJSON_IsArray(j))
        return "an array";
    if (cJSON_IsObject(j))
        return "an object";
    if (cJSON_IsNull(j))
        return "null";
    return "something else";
}

bool scene_check_keys(parse_ctx *c, const cJSON *obj, const char *path, const char *const *keys)
{
    for (const cJSON *it = obj->child; it; it = it->next) {
        bool known = false;
        for (const char *const *k = keys; *k; k++)
            known |= !strcmp(it->string, *k);
        if (!known) {
            char expected[512] = "";
            for (const char *const *k = keys; *k; k++)
                snprintf(expected + strlen(expected), sizeof expected - strlen(expected), "%s%s",
                         k == keys ? "" : ", ", *k);
            char field[512];
            snprintf(field, sizeof field, "%s%s%s", path, *path ? "." : "", it->string);
            return scene_fail(c, "scene.unknown_field", field, "unknown field; expected one of: %s", expected);
        }
    }
    return true;
}

bool scene_get_number(parse_ctx *c, const cJSON *obj, const char *key, const char *path,
                      bool required, double def, double min, double max, double *out)
{
    char field[512];
    snprintf(field, sizeof field, "%s%s%s", path, *path ? "." : "", key);
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!j) {
        if (required)
            return scene_fail(c, "scene.missing_field", field, "missing; expected a number in [%g, %g]", min, max);
        *out = def;
        return true;
    }
    if (!cJSON_IsNumber(j))
        return scene_fail(c, "scene.field", field, "expected a number in [%g, %g], got %s", min, max, scene_json_type(j));
    if (!isfinite(j->valuedouble))
        return scene_fail(c, "scene.field", field, "expected a finite number in [%g, %g], got %g", min, max,
                          j->valuedouble);
    if (j->valuedouble < min || j->valuedouble > max)
        return scene_fail(c, "scene.field", field, "%g is out of range; expected a number in [%g, %g]", j->valuedouble,
                          min, max);
    *out = j->valuedouble;
    return true;
}

bool scene_get_vec3(parse_ctx *c, const cJSON *j, const char *field, double min, double max,
                    double out[3])
{
    if (cJSON_IsArray(j) && cJSON_GetArraySize(j) != 3)
        return scene_fail(c, "scene.field", field, "expected an array of 3 numbers, got an array of %d element%s",
                          cJSON_GetArraySize(j), cJSON_GetArraySize(j) == 1 ? "" : "s");
    if (!cJSON_IsArray(j))
        return scene_fail(c, "scene.field", field, "expected an array of 3 numbers, got %s", scene_json_type(j));
    for (int i = 0; i < 3; i++) {
        const cJSON *x = cJSON_GetArrayItem(j, i);
        if (!cJSON_IsNumber(x))
            return scene_fail(c, "scene.field", field, "element %d: expected a number, got %s", i, scene_json_type(x));
        if (!isfinite(x->valuedouble))
            return scene_fail(c, "scene.field", field, "element %d: expected a finite number, got %g", i,
                              x->valuedouble);
        if (x->valuedouble < min || x->valuedouble > max)
            return scene_fail(c, "scene.field", field, "element %d = %g is out of range [%g, %g]", i, x->valuedouble,
                              min, max);
        out[i] = x->valuedouble;
    }
    return true;
}

bool scene_get_vec3_key(parse_ctx *c, const cJSON *obj, const char *key, const char *path,
                        bool required, const double def[3], double out[3])
{
    char field[512];
    snprintf(field, sizeof field, "%s%s%s", path, *path ? "." : "", key);
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!j) {
        if (required)
            return scene_fail(c, "scene.missing_field", field, "missing; expected an array of 3 numbers");
        memcpy(out, def, 3 * sizeof *out);
        return true;
    }
    return scene_get_vec3(c, j, field, -1e30, 1e30, out);
}

bool scene_get_string(parse_ctx *c, const cJSON *obj, const char *key, const char *path,
                      bool required, const char **out)
{
    char field[512];
    snprintf(field, sizeof field, "%s%s%s", path, *path ? "." : "", key);
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!j) {
        if (required)
            return scene_fail(c, "scene.missing_field", field, "missing; expected a string");
        *out = NULL;
        return true;
    }
    if (!cJSON_IsString(j))
        return scene_fail(c, "scene.field", field, "expected a non-empty string, got %s", scene_json_type(j));
    if (!*j->valuestring)
        return scene_fail(c, "scene.field", field, "expected a non-empty string, got an empty one");
    *out = j->valuestring;
    return true;
}

bool scene_get_bool(parse_ctx *c, const cJSON *obj, const char *key, const char *path, bool def,
                    bool *out)
{
    char field[512];
    snprintf(field, sizeof field, "%s%s%s", path, *path ? "." : "", key);
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!j) {
        *out = def;
        return true;
    }
    if (!cJSON_IsBool(j))
        return scene_fail(c, "scene.field", field, "expected true or false, got %s", scene_json_type(j));
    *out = cJSON_IsTrue(j);
    return true;
}

/* A whole number in [min, max] (counts, indices): a fraction is refused, not cut. */
bool scene_get_whole(parse_ctx *c, const cJSON *obj, const char *key, const char *path, double def,
                     double min, double max, double *out)
{
    if (!scene_get_number(c, obj, key, path, false, def, min, max, out))
        return false;
    if (*out != floor(*out)) {
        char field[512];
        snprintf(field, sizeof field, "%s%s%s", path, *path ? "." : "", key);
        return scene_fail(c, "scene.field", field, "%g is not a whole number; expected a whole number in [%g, %g]", *out, min, max);
    }
    return true;
}

/* Fails with the reason when `name` (from `field`) cannot be part of a file name. */
bool scene_check_name(parse_ctx *c, const char *field, const char *name, size_t max)
{
    const char *why = eddy_name_problem(name, max);
    if (!why)
        return true;
    char shown[96];
    eddy_printable(name, strlen(name), shown, sizeof shown);
    return scene_fail(c, "scene.name", field, "'%s' cannot name output files: %s; expected at most %zu bytes of UTF-8 without "
                      "'/', '\\', \"..\" or control characters", shown, why, max);
}

bool scene_get_name(parse_ctx *c, const cJSON *obj, const char *key, const char *path, bool required,
                    size_t max, const char **out)
{
    if (!scene_get_string(c, obj, key, path, required, out))
        return false;
    char field[512];
    snprintf(field, sizeof field, "%s%s%s", path, *path ? "." : "", key);
    return !*out || scene_check_name(c, field, *out, max);
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* JSON allows a key twice and cJSON keeps both, reading the first: a
 * scene that says two things in one object is refused, naming the key. */
bool scene_check_duplicates(parse_ctx *c, const cJSON *j, const char *path)
{
    if (cJSON_IsArray(j)) {
        int i = 0;
        for (const cJSON *it = j->child; it; it = it->next, i++) {
            if (!cJSON_IsObject(it) && !cJSON_IsArray(it))
                continue;
            char field[512];
            snprintf(field, sizeof field, "%s[%d]", path, i);
            if (!scene_check_duplicates(c, it, field))
                return false;
        }
        return true;
    }
    if (!cJSON_IsObject(j))
        return true;
    size_t n = 0;
    for (const cJSON *it = j->child; it; it = it->next)
        n++;
    const cJSON **keys = malloc((n ? n : 1) * sizeof *keys);
    if (!keys)
        return scene_fail(c, "memory.host", path, "out of host memory");
    n = 0;
    for (const cJSON *it = j->child; it; it = it->next)
        keys[n++] = it;
    qsort(keys, n, sizeof *keys, cmp_key);
    for (size_t i = 1; i < n; i++)
        if (!strcmp(keys[i - 1]->string, keys[i]->string)) {
            char field[512], shown[128];
            eddy_printable(keys[i]->string, strlen(keys[i]->string), shown, sizeof shown);
            snprintf(field, sizeof field, "%s%s%s", path, *path ? "." : "", shown);
            free(keys);
            return scene_fail(c, "scene.json", field, "given twice in one object; expected each key once");
        }
    free(keys);
    for (const cJSON *it = j->child; it; it = it->next) {
        if (!cJSON_IsObject(it) && !cJSON_IsArray(it))
            continue;
        char field[512], shown[128];
        eddy_printable(it->string, strlen(it->string), shown, sizeof shown);
        snprintf(field, sizeof field, "%s%s%s", path, *path ? "." : "", shown);
        if (!scene_check_duplicates(c, it, field))
            return false;
    }
    return true;
}

void scene_dir_of(const char *path, char *out, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(out, cap, ".");
    else
        snprintf(out, cap, "%.*s", (int)(slash - path), path);
}

char *scene_read_file(const char *path, char *err, size_t cap)
{
    /* A device or a pipe would be read forever or block the open itself. */
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, cap, "cannot open: %s", strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, cap, "not a regular file (expected a JSON scene file)");
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, cap, "cannot open: %s", strerror(errno));
        return NULL;
    }
    size_t len = 0, size = 4096;
    char *buf = malloc(size);
    while (buf) {
        size_t n = fread(buf + len, 1, size - len - 1, f);
        len += n;
        if (len + 1 < size)
            break;
        char *grown = size < (64u << 20) ? realloc(buf, size * 2) : NULL;
        if (!grown) {
            free(buf);
            buf = NULL;
            snprintf(err, cap, "larger than 64 MiB or out of memory");
            break;
        }
        buf = grown;
        size *= 2;
    }
    if (buf && ferror(f)) {
        snprintf(err, cap, "read error: %s", strerror(errno));
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf)
        buf[len] = 0;
    return buf;
}

void scene_line_col(const char *text, const char *at, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (const char *p = text; p < at && *p; p++) {
        if (*p == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}
