/* A graph with a 10-times repeated range, run as 2 substeps a run, with a
 * kernel compiled from GLSL at run time and a dispatch whose size the GPU
 * writes itself (indirect), against the CPU reference, exactly. */
#include "gpu_test.h"

static const uint32_t ops_spv[] =
#include "ops.spv.inc"
    ;
static const uint32_t indirect_args_spv[] =
#include "indirect_args.spv.inc"
    ;

static const char *mul3_glsl =
    "#version 450\n"
    "layout(local_size_x_id = 0) in;\n"
    "layout(std430, binding = 0) buffer A { uint a[]; };\n"
    "layout(push_constant) uniform P { uint count; } pc;\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    if (i < pc.count) a[i] = a[i] * 3u + 1u;\n"
    "}\n";

enum { N = 5000, ITER = 10, SUBSTEPS = 2, RUNS = 3 };

static void cpu_substep(uint32_t *a, uint32_t *b)
{
    for (int i = 0; i < N; i++)
        a[i] = a[i] * 3u + 1u;
    for (int k = 0; k < ITER; k++) {
        for (int i = 0; i < N; i++)
            b[i] = b[i] + a[i];
        for (int i = 0; i < N; i++)
            a[i] = a[i] ^ (b[i] >> 3);
    }
    for (int i = 0; i < N; i++) /* the indirect pass */
        a[i] = a[i] * 3u + 1u;
}

static char *describe_as(eddy_engine *e, eddy_graph g, eddy_describe_format f, const eddy_pass_group *groups,
                         uint32_t group_count)
{
    size_t len = 0;
    eddy_graph_describe_desc d = { EDDY_SIZED(eddy_graph_describe_desc), .format = f, .groups = groups,
                                   .group_count = group_count, .title = "test", .length = &len };
    CHECK(eddy_graph_describe(e, g, &d) == EDDY_OK && len > 0);
    char *text = malloc(len + 1);
    REQUIRE(text);
    d.out = text, d.capacity = len + 1;
    size_t again = 0;
    d.length = &again;
    CHECK(eddy_graph_describe(e, g, &d) == EDDY_OK && again == len && strlen(text) == len);
    return text;
}

/* eddy_graph_describe on the test's graph: its passes, the barriers the
 * planner puts before them (the first time through the repeat and when it
 * repeats), the repeat; DOT's data-flow edges; a text cut to its capacity,
 * bad groups refused, labels escaped in DOT. */
static void describe(eddy_engine *e, eddy_graph g)
{
    const eddy_pass_group groups[] = { { "first", 0, 1 }, { "solver", 1, 2 }, { "tail", 3, 2 } };
    char *t = describe_as(e, g, EDDY_DESCRIBE_TEXT, groups, 3);
    CHECKF(strstr(t, "graph 'ops', 5 passes, run 2 times a step") && strstr(t, "\nsolver:\n") &&
               strstr(t, "passes #1 to #2 run 10 times in a row") && strstr(t, "#1 b+=a (kernel ops") &&
               strstr(t, "#4 mul3.indirect (kernel mul3, groups from args)") &&
               strstr(t, "reads and writes b\n      barrier before it on: a (written before)\n"
                         "      when repeated, barrier before it on: a (written before), b (written before)") &&
               strstr(t, "#2 a^=b>>3") && strstr(t, "barrier before it on: a (written before), b (written before)"),
           "text:\n%s", t);
    free(t);
    t = describe_as(e, g, EDDY_DESCRIBE_DOT, groups, 3);
    CHECKF(strstr(t, "digraph \"ops\"") && strstr(t, "subgraph cluster_1 {\n    label=\"solver\"") &&
               strstr(t, "p0 -> p1 [label=\"a\"]") && strstr(t, "p3 -> p4 [label=\"args\"]") &&
               strstr(t, "p2 -> p1 [style=dashed, constraint=false, label=\"x10\"]") && !strstr(t, "p3 -> p4 [label=\"a\"]"),
           "dot:\n%s", t);
    free(t);
    char small[10];
    size_t len = 0;
    CHECK(eddy_graph_describe(e, g, &(eddy_graph_describe_desc){ EDDY_SIZED(eddy_graph_describe_desc), .out = small,
        .capacity = sizeof small, .length = &len }) == EDDY_ERROR_LIMIT && len > sizeof small && strlen(small) == 9);
    const eddy_pass_group overlap[] = { { "x", 0, 2 }, { "y", 1, 2 } };
    test_clear_error();
    CHECK(eddy_graph_describe(e, g, &(eddy_graph_describe_desc){ EDDY_SIZED(eddy_graph_describe_desc), .groups = overlap,
        .group_count = 2, .length = &len }) == EDDY_ERROR_INVALID_ARGUMENT);
    CHECKF(!strcmp(test_last_id, "graph.invalid") && strstr(test_last_error, "groups[1]"), "[%s] %s",
           test_last_id, test_last_error);
    CHECK(eddy_graph_describe(e, g, &(eddy_graph_describe_desc){ EDDY_SIZED(eddy_graph_describe_desc),
        .format = (eddy_describe_format)7, .length = &len }) == EDDY_ERROR_INVALID_ARGUMENT);
    eddy_graph q = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "say \"hi\"\\" });
    t = describe_as(e, q, EDDY_DESCRIBE_DOT, NULL, 0);
    CHECKF(strstr(t, "digraph \"say \\\"hi\\\"\\\\\" {"), "dot:\n%s", t);
    free(t);
    eddy_destroy_graph(e, q);
}

int main(void)
{
    eddy_engine *e = test_engine();
    eddy_kernel ops = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "ops", EDDY_SPIRV(ops_spv), .workgroup_size = 32 });
    eddy_kernel mul3 = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "mul3", .glsl = mul3_glsl });
    eddy_kernel args = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "args", EDDY_SPIRV(indirect_args_spv) });
    REQUIRE(ops.id && mul3.id && args.id);
    CHECK(eddy_kernel_workgroup_size(e, ops) == 32);
    CHECK(eddy_kernel_workgroup_size(e, args) == 1); /* fixed in the shader */
    CHECK(eddy_kernel_binding_count(e, mul3) == 1);

    uint32_t a[N], b[N], ga[N], gb[N], count = N;
    uint64_t seed = 7;
    for (int i = 0; i < N; i++) {
        a[i] = test_rand(&seed);
        b[i] = test_rand(&seed);
    }
    eddy_buffer ba = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof a, .label = "a", .data = a });
    eddy_buffer bb = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof b, .label = "b", .data = b });
    eddy_buffer bc = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 4, .label = "count", .data = &count });
    eddy_buffer bargs = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 12, .label = "args" });
    REQUIRE(ba.id && bb.id && bc.id && bargs.id);

    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "ops", .times = SUBSTEPS, .timestamps = true });
    struct { uint32_t count, op; } p1 = { N, 1 }, p2 = { N, 2 };
    uint32_t pc = N;
    CHECK(eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .label = "mul3", .kernel = mul3, .threads = N,
        .bindings = { { ba, EDDY_READ_WRITE } }, .push = &pc, .push_size = 4 }) == 0);
    CHECK(eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .label = "b+=a", .kernel = ops, .threads = N,
        .bindings = { { ba, EDDY_READ_WRITE }, { bb, EDDY_READ_WRITE } }, .push = &p1, .push_size = sizeof p1 }) == 1);
    CHECK(eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .label = "a^=b>>3", .kernel = ops, .threads = N,
        .bindings = { { ba, EDDY_READ_WRITE }, { bb, EDDY_READ_WRITE } }, .push = &p2, .push_size = sizeof p2 }) == 2);
    CHECK(eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .label = "args", .kernel = args, .groups = { 1 },
        .bindings = { { bc, EDDY_READ }, { bargs, EDDY_WRITE } } }) == 3);
    CHECK(eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .label = "mul3.indirect", .kernel = mul3,
        .indirect = bargs, .bindings = { { ba, EDDY_READ_WRITE } }, .push = &pc, .push_size = 4 }) == 4);
    CHECK(eddy_graph_repeat(e, g, 1, 2, ITER) == EDDY_OK);
    /* Overlapping and empty ranges are refused. */
    CHECK(eddy_graph_repeat(e, g, 2, 2, 3) == EDDY_ERROR_INVALID_ARGUMENT);
    CHECK(eddy_graph_repeat(e, g, 0, 0, 3) == EDDY_ERROR_INVALID_ARGUMENT);
    /* A pass that binds fewer buffers than its kernel has is refused. */
    test_clear_error();
    CHECK(eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .kernel = ops, .threads = N, .bindings = { { ba, EDDY_READ_WRITE } } }) < 0);
    CHECK(!strcmp(test_last_id, "pass.binding") && strstr(test_last_error, "binding 1"));

    /* A declared access the shader's SPIR-V contradicts is refused: READ of
     * a block that is not readonly (ops writes either binding), WRITE of
     * one that is not writeonly, ATOMIC of a readonly one. */
    test_clear_error();
    CHECK(eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .label = "wrong", .kernel = ops, .threads = N,
        .bindings = { { ba, EDDY_READ }, { bb, EDDY_READ_WRITE } } }) == EDDY_ERROR_INVALID_ARGUMENT);
    CHECKF(!strcmp(test_last_id, "pass.access") && strstr(test_last_error, "'wrong'") &&
               strstr(test_last_error, "binding 0") && strstr(test_last_error, "'ops'") &&
               strstr(test_last_error, "EDDY_READ"),
           "message: [%s] %s", test_last_id, test_last_error);
    eddy_kernel ro = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "ro",
        .glsl = "#version 450\nlayout(local_size_x = 64) in;\n"
                "layout(std430, binding = 0) readonly buffer A { uint a[]; };\n"
                "layout(std430, binding = 1) writeonly buffer B { uint extra; uint b[]; };\n"
                "layout(std430, binding = 3) buffer D { uint d[]; };\n"
                "void main() { uint i = gl_GlobalInvocationID.x; b[i] = a[i]; d[i] += 1u; }\n" });
    REQUIRE(ro.id);
    CHECK(eddy_kernel_binding_count(e, ro) == 4);
    /* Each refused with pass.access, naming the binding and the declaration. */
    struct { eddy_access a[4]; const char *binding, *declared; } bad_decl[] = {
        { { EDDY_WRITE, EDDY_WRITE, EDDY_READ, EDDY_READ_WRITE }, "binding 0", "EDDY_WRITE" },
        { { EDDY_ATOMIC, EDDY_WRITE, EDDY_READ, EDDY_READ_WRITE }, "binding 0", "EDDY_ATOMIC" },
        { { EDDY_READ, EDDY_READ, EDDY_READ, EDDY_READ_WRITE }, "binding 1", "EDDY_READ" },
        { { EDDY_READ, EDDY_WRITE, EDDY_READ, EDDY_READ }, "binding 3", "EDDY_READ" },
        { { EDDY_READ, EDDY_WRITE, EDDY_READ, EDDY_WRITE }, "binding 3", "EDDY_WRITE" },
    };
    for (size_t c = 0; c < sizeof bad_decl / sizeof *bad_decl; c++) {
        test_clear_error();
        CHECK(eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .kernel = ro, .threads = N,
            .bindings = { { ba, bad_decl[c].a[0] }, { bb, bad_decl[c].a[1] }, { bc, bad_decl[c].a[2] },
                          { bargs, bad_decl[c].a[3] } } }) == EDDY_ERROR_INVALID_ARGUMENT);
        CHECKF(!strcmp(test_last_id, "pass.access") && strstr(test_last_error, bad_decl[c].binding) &&
                   strstr(test_last_error, bad_decl[c].declared) && strstr(test_last_error, "'ro'"),
               "case %zu: message: [%s] %s", c, test_last_id, test_last_error);
    }
    /* Right: binding 2 is not in the shader (neither read nor written). */
    eddy_graph gro = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "ro" });
    CHECK(eddy_graph_add_pass(e, gro, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .kernel = ro, .threads = N,
        .bindings = { { ba, EDDY_READ }, { bb, EDDY_WRITE }, { bc, EDDY_WRITE }, { bargs, EDDY_READ_WRITE } } }) == 0);
    eddy_destroy_graph(e, gro);
    eddy_destroy_kernel(e, ro);

    /* A dispatch over the device's workgroup-count limit is refused. */
    uint32_t too_many = eddy_engine_device(e)->max_workgroup_count[0];
    test_clear_error();
    if (too_many < UINT32_MAX) {
        CHECK(eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .kernel = mul3, .groups = { too_many + 1 },
            .bindings = { { ba, EDDY_READ_WRITE } } }) == EDDY_ERROR_LIMIT);
        CHECK(!strcmp(test_last_id, "dispatch.too_large") && strstr(test_last_error, "maxComputeWorkGroupCount"));
    }
    CHECK(eddy_graph_pass_count(e, g) == 5);
    describe(e, g);

    CHECK(eddy_graph_run(e, g, RUNS) == EDDY_OK);
    for (int r = 0; r < RUNS * SUBSTEPS; r++)
        cpu_substep(a, b);
    CHECK(eddy_buffer_download(e, ba, 0, sizeof ga, ga) == EDDY_OK);
    CHECK(eddy_buffer_download(e, bb, 0, sizeof gb, gb) == EDDY_OK);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += ga[i] != a[i] || gb[i] != b[i];
    CHECKF(bad == 0, "%d of %d elements differ from the CPU reference", bad, N);

    /* Per-pass timestamps: every executed dispatch counted. */
    eddy_pass_time t[8];
    CHECK(eddy_graph_profile(e, g, t, 8) == 5);
    CHECK(t[0].calls == RUNS * SUBSTEPS);
    CHECK(t[1].calls == RUNS * SUBSTEPS * ITER && t[2].calls == RUNS * SUBSTEPS * ITER);
    CHECK(t[4].calls == RUNS * SUBSTEPS && t[4].total_ms >= 0);
    CHECK(!strcmp(t[1].label, "b+=a"));

    /* Asynchronous submission on the timeline, then the same check. */
    eddy_graph g2 = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "async" });
    CHECK(eddy_graph_add_pass(e, g2, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .label = "mul3", .kernel = mul3, .threads = N,
        .bindings = { { ba, EDDY_READ_WRITE } }, .push = &pc, .push_size = 4 }) == 0);
    uint64_t v = 0;
    CHECK(eddy_graph_submit(e, g2, 4, &v) == EDDY_OK && v > 0);
    CHECK(eddy_wait(e, v, EDDY_WAIT_FOREVER) == EDDY_OK);
    for (int r = 0; r < 4; r++)
        for (int i = 0; i < N; i++)
            a[i] = a[i] * 3u + 1u;
    CHECK(eddy_buffer_download(e, ba, 0, sizeof ga, ga) == EDDY_OK);
    CHECK(memcmp(ga, a, sizeof a) == 0);

    /* A specialization constant besides the workgroup size: a = a * K + 5. */
    eddy_kernel spec = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "spec", .workgroup_size = 128,
        .glsl = "#version 450\n"
                "layout(local_size_x_id = 0) in;\n"
                "layout(constant_id = 1) const uint K = 1u;\n"
                "layout(std430, binding = 0) buffer A { uint a[]; };\n"
                "layout(push_constant) uniform P { uint count; } pc;\n"
                "void main() { uint i = gl_GlobalInvocationID.x; if (i < pc.count) a[i] = a[i] * K + 5u; }\n",
        .specialization = { { 1, 77 } }, .specialization_count = 1 });
    REQUIRE(spec.id);
    CHECK(eddy_kernel_workgroup_size(e, spec) == 128);
    eddy_graph g3 = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "spec" });
    CHECK(eddy_graph_add_pass(e, g3, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .kernel = spec, .threads = N,
        .bindings = { { ba, EDDY_READ_WRITE } }, .push = &pc, .push_size = 4 }) == 0);
    CHECK(eddy_graph_run(e, g3, 1) == EDDY_OK);
    for (int i = 0; i < N; i++)
        a[i] = a[i] * 77u + 5u;
    CHECK(eddy_buffer_download(e, ba, 0, sizeof ga, ga) == EDDY_OK);
    CHECK(memcmp(ga, a, sizeof a) == 0);
    eddy_destroy_graph(e, g3);

    /* GLSL that does not compile: refused with the compiler's message. */
    test_clear_error();
    eddy_kernel broken = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "broken",
        .glsl = "#version 450\nlayout(local_size_x = 1) in;\nvoid main() { undefined_thing = 1; }\n" });
    CHECK(broken.id == 0);
    CHECKF(!strcmp(test_last_id, "kernel.glsl") && strstr(test_last_error, "broken") &&
               strstr(test_last_error, "undefined_thing"),
           "message was: [%s] %s", test_last_id, test_last_error);

    /* Kernels from the same SPIR-V, entry, workgroup size and constants
     * share one pipeline; another workgroup size or constant is another
     * pipeline. The shared one outlives a destroyed twin: the twin's graph
     * still computes right. */
    eddy_engine_counters c0 = eddy_engine_get_counters(e);
    eddy_kernel ops2 = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "ops twin", EDDY_SPIRV(ops_spv), .workgroup_size = 32 });
    eddy_kernel ops3 = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "ops 64", EDDY_SPIRV(ops_spv), .workgroup_size = 64 });
    eddy_kernel mul3b = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "mul3 again", .glsl = mul3_glsl });
    REQUIRE(ops2.id && ops3.id && mul3b.id);
    eddy_engine_counters c1 = eddy_engine_get_counters(e);
    CHECKF(c1.pipelines_created == c0.pipelines_created + 1, "%llu pipelines compiled for 3 kernels, 2 of them twins",
           (unsigned long long)(c1.pipelines_created - c0.pipelines_created));
    CHECK(c1.kernels_live == c0.kernels_live + 3 && c1.pipelines_live == c0.pipelines_live + 1);
    eddy_destroy_kernel(e, ops);
    eddy_destroy_kernel(e, mul3);
    CHECK(eddy_engine_get_counters(e).pipelines_live == c1.pipelines_live);
    eddy_graph g4 = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "twins" });
    CHECK(eddy_graph_add_pass(e, g4, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .label = "mul3", .kernel = mul3b, .threads = N,
        .bindings = { { ba, EDDY_READ_WRITE } }, .push = &pc, .push_size = 4 }) == 0);
    CHECK(eddy_graph_add_pass(e, g4, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .label = "b+=a", .kernel = ops2, .threads = N,
        .bindings = { { ba, EDDY_READ_WRITE }, { bb, EDDY_READ_WRITE } }, .push = &p1, .push_size = sizeof p1 }) == 1);
    CHECK(eddy_graph_run(e, g4, 1) == EDDY_OK);
    for (int i = 0; i < N; i++) {
        a[i] = a[i] * 3u + 1u;
        b[i] += a[i];
    }
    CHECK(eddy_buffer_download(e, bb, 0, sizeof gb, gb) == EDDY_OK);
    CHECK(memcmp(gb, b, sizeof b) == 0);
    eddy_destroy_graph(e, g4);
    eddy_destroy_kernel(e, ops2);
    eddy_destroy_kernel(e, ops3);
    eddy_destroy_kernel(e, mul3b);
    /* Their pipelines are kept (default 64): made again, nothing compiles. */
    eddy_engine_counters c2 = eddy_engine_get_counters(e);
    CHECK(c2.pipelines_live == c0.pipelines_live - 2 && c2.pipelines_kept == c0.pipelines_kept + 3);
    eddy_kernel again = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "ops 64 again", EDDY_SPIRV(ops_spv), .workgroup_size = 64 });
    CHECK(again.id && eddy_engine_get_counters(e).pipelines_created == c1.pipelines_created);
    eddy_destroy_kernel(e, again);
    /* An engine that keeps none compiles again. */
    eddy_engine *e2 = eddy_create_engine(&(eddy_engine_desc){ EDDY_SIZED(eddy_engine_desc), .kept_pipelines = EDDY_KEEP_NO_PIPELINES, .log = test_log });
    REQUIRE(e2);
    for (int i = 0; i < 2; i++) {
        eddy_kernel k = eddy_create_kernel(e2, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "ops", EDDY_SPIRV(ops_spv) });
        CHECK(k.id);
        eddy_destroy_kernel(e2, k);
        CHECK(eddy_engine_get_counters(e2).pipelines_kept == 0);
    }
    CHECK(eddy_engine_get_counters(e2).pipelines_created == 2);
    test_finish(e2);

    eddy_destroy_graph(e, g);
    eddy_destroy_graph(e, g2);
    test_finish(e);
    return test_report("graph");
}
