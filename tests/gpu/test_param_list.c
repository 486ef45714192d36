/* List parameters (EDDY_PARAM_LIST): a registered module with one list of
 * entries of 3 numbers (at most 4, each in [0, 1]) gets what a scene gives
 * in ctx->lists, in order, or no entries when the scene leaves it out; a
 * list of the wrong shape is refused naming the field, and a descriptor
 * whose list has no valid shape is refused at registration. */
#include "gpu_test.h"
#include "eddy/eddy_module.h"

#include <math.h>

/* What the last create received: the module must copy it, since the scene
 * frees the numbers when create returns. */
static struct {
    int creates;
    bool has_lists;
    uint32_t count, scalar_count;
    double values[4 * 3];
    double gain;
} got;

enum { P_GAIN, P_TF, P_COUNT };
static const eddy_param_info params[P_COUNT] = {
    [P_GAIN] = { "gain", EDDY_PARAM_FLOAT, "1", { 2 }, 0, 10, "a scalar beside the list" },
    [P_TF] = { "tf", EDDY_PARAM_LIST, "1", { 3, 4 }, 0, 1,
               "entries [s, a, b]; none: the module's own default" },
};

static eddy_result create(const eddy_system_ctx *ctx, void **state)
{
    got.creates++;
    got.has_lists = EDDY_SYSTEM_CTX_HAS(ctx, lists) && ctx->lists != NULL;
    if (!got.has_lists)
        return EDDY_ERROR_INVALID_ARGUMENT;
    got.scalar_count = ctx->lists[P_GAIN].count;
    got.count = ctx->lists[P_TF].count;
    got.gain = ctx->params[P_GAIN].v[0];
    if (got.count > 4 || (got.count && !ctx->lists[P_TF].values))
        return EDDY_ERROR_INVALID_ARGUMENT;
    memcpy(got.values, ctx->lists[P_TF].values, got.count * 3 * sizeof *got.values);
    *state = malloc(1);
    return *state ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
}

static void destroy(void *state)
{
    free(state);
}

static eddy_result declare_step(void *state, eddy_graph step)
{
    (void)state, (void)step;
    return EDDY_OK;
}

static const eddy_module_desc desc = {
    EDDY_MODULE_DESC_VERSION,
    .name = "test_list",
    .version = "1",
    .summary = "test module: takes a list parameter",
    .params = params,
    .param_count = P_COUNT,
    .create = create,
    .destroy = destroy,
    .declare_step = declare_step,
};

/* Loads a scene whose one system has `params` (a JSON object's inside). */
static eddy_scene *load(eddy_engine *e, const char *params)
{
    char scene[2048];
    snprintf(scene, sizeof scene,
        "{ \"name\": \"lists\", \"dt\": 0.01, \"duration\": 0.1,"
        "  \"box\": { \"min\": [-1, -1, -1], \"max\": [1, 1, 1] },"
        "  \"particle_sets\": [ { \"name\": \"p\", \"radius\": 0.01, \"points\": [[0, 0, 0]] } ],"
        "  \"systems\": [ { \"module\": \"test_list\", \"set\": \"p\", \"params\": { %s } } ] }", params);
    memset(&got, 0, sizeof got);
    test_clear_error();
    return eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .json = scene, .no_output = true });
}

/* A list the scene refuses: no create, scene.field naming `field`, and the
 * message holding `says`. */
static void refused(eddy_engine *e, const char *params, const char *field, const char *says)
{
    eddy_scene *s = load(e, params);
    CHECKF(s == NULL, "params { %s } were taken", params);
    if (s)
        eddy_destroy_scene(s);
    CHECKF(got.creates == 0, "params { %s }: create ran", params);
    char named[128];
    snprintf(named, sizeof named, "%s: ", field);
    CHECKF(!strcmp(test_last_id, "scene.field") && strstr(test_last_error, named) && strstr(test_last_error, says),
           "params { %s }: want [scene.field] naming '%s' and saying '%s'; message was: [%s] %s", params, field,
           says, test_last_id, test_last_error);
}

/* A descriptor whose list has the shape def[0], def[1]: refused with
 * module.invalid naming the parameter, nothing registered. */
static void bad_shape(eddy_engine *e, double group, double most)
{
    eddy_param_info p = params[P_TF];
    p.def[0] = group;
    p.def[1] = most;
    eddy_module_desc d = desc;
    d.name = "test_list_bad";
    d.params = &p;
    d.param_count = 1;
    test_clear_error();
    uint32_t before = eddy_module_count(e);
    CHECKF(eddy_register_module(e, &d) == EDDY_ERROR_INVALID_ARGUMENT, "shape %g, %g was registered", group, most);
    CHECKF(!strcmp(test_last_id, "module.invalid") && strstr(test_last_error, "'tf'") &&
               strstr(test_last_error, "1..16") && strstr(test_last_error, "1..65536"),
           "shape %g, %g: message was: [%s] %s", group, most, test_last_id, test_last_error);
    CHECK(eddy_module_count(e) == before && eddy_find_module(e, "test_list_bad") == NULL);
}

int main(void)
{
    eddy_engine *e = test_engine();
    REQUIRE(eddy_register_module(e, &desc) == EDDY_OK);

    /* Left out: no entries, and none for the scalar either. */
    eddy_scene *s = load(e, "\"gain\": 3");
    REQUIRE(s != NULL);
    CHECK(got.creates == 1 && got.has_lists && got.count == 0 && got.scalar_count == 0 && got.gain == 3);
    eddy_destroy_scene(s);

    /* Given: the entries in order, entry-major. */
    s = load(e, "\"tf\": [[0, 0.5, 1], [1, 1, 1]]");
    REQUIRE(s != NULL);
    CHECK(got.creates == 1 && got.count == 2 && got.scalar_count == 0 && got.gain == 2);
    static const double want[6] = { 0, 0.5, 1, 1, 1, 1 };
    for (int i = 0; i < 6; i++)
        CHECKF(got.values[i] == want[i], "value %d: %g, want %g", i, got.values[i], want[i]);
    eddy_destroy_scene(s);

    /* The most entries, at the ends of the range. */
    s = load(e, "\"tf\": [[0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 0, 1]]");
    REQUIRE(s != NULL);
    CHECK(got.count == 4 && got.values[9] == 1 && got.values[10] == 0 && got.values[11] == 1);
    eddy_destroy_scene(s);

    const char *shape = "an array of entries (3 numbers each), at most 4, every number in [0, 1]";
    refused(e, "\"tf\": {\"s\": 0}", "systems[0].params.tf", shape);
    refused(e, "\"tf\": 0.5", "systems[0].params.tf", "got a number");
    refused(e, "\"tf\": []", "systems[0].params.tf", "empty array");
    refused(e, "\"tf\": [[0, 0, 0], [0, 0.5], [1, 1, 1]]", "systems[0].params.tf[1]",
            "expected an entry of 3 numbers, got an array of 2 numbers");
    refused(e, "\"tf\": [[0, 0, 0], [0, 0, 0, 0]]", "systems[0].params.tf[1]", "got an array of 4 numbers");
    refused(e, "\"tf\": [0, 0, 0]", "systems[0].params.tf[0]", "got a number");
    refused(e, "\"tf\": [[0, 0, 0], [0, 0, 0], [0, 1.5, 0]]", "systems[0].params.tf[2]",
            "element 1: expected a finite number in [0, 1]; got 1.5, out of range");
    refused(e, "\"tf\": [[0, -0.25, 0]]", "systems[0].params.tf[0]", "got -0.25, out of range");
    refused(e, "\"tf\": [[0, 0, 0], [\"a\", 0, 0]]", "systems[0].params.tf[1]",
            "element 0: expected a finite number in [0, 1]; got a string");
    refused(e, "\"tf\": [[0, 0, null]]", "systems[0].params.tf[0]", "element 2");
    /* JSON has no NaN; a number too large for a double reads as infinite. */
    refused(e, "\"tf\": [[0, 1e999, 0]]", "systems[0].params.tf[0]", "element 1: expected a finite number");
    refused(e, "\"tf\": [[0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]", "systems[0].params.tf",
            "got 5 entries");
    /* A list's error after another param's, and a scalar's after a list:
     * the scene still frees what it parsed (the sanitized build checks). */
    refused(e, "\"tf\": [[0, 0, 0]], \"gain\": 11", "systems[0].params.gain", "out of range");

    /* The scene still loads after all those refusals. */
    s = load(e, "\"tf\": [[0.25, 0.5, 0.75]]");
    REQUIRE(s != NULL);
    CHECK(got.count == 1 && got.values[0] == 0.25 && got.values[1] == 0.5 && got.values[2] == 0.75);
    eddy_destroy_scene(s);

    bad_shape(e, 0, 4);
    bad_shape(e, 17, 4);
    bad_shape(e, 2.5, 4);
    bad_shape(e, NAN, 4);
    bad_shape(e, 3, 0);
    bad_shape(e, 3, 65537);
    bad_shape(e, 3, 1.5);
    /* The largest shape registers. */
    eddy_param_info big = params[P_TF];
    big.def[0] = EDDY_PARAM_LIST_MAX_GROUP;
    big.def[1] = EDDY_PARAM_LIST_MAX_ENTRIES;
    eddy_module_desc d = desc;
    d.name = "test_list_big";
    d.params = &big;
    d.param_count = 1;
    CHECK(eddy_register_module(e, &d) == EDDY_OK);

    test_finish(e);
    return test_report("param_list");
}
