/* Sized descs: every desc a host passes starts with struct_size, which eddy
 * checks. A missing (0) or larger size (a program built against a newer
 * eddy) is refused with desc.size and creates nothing; a smaller struct of
 * an older minor version is read with the fields it lacks at zero (their
 * defaults); the sized engine desc is checked before there is an engine. */
#include "gpu_test.h"

/* Version 1 of a desc and its grown version 2 (one field appended). */
typedef struct v1_desc {
    uint32_t struct_size;
    uint32_t a;
} v1_desc;
typedef struct v2_desc {
    uint32_t struct_size;
    uint32_t a;
    uint64_t appended;
} v2_desc;

static void grown_struct(eddy_engine *e)
{
    v2_desc out;
    memset(&out, 0xab, sizeof out);
    v1_desc old = { sizeof old, 7 };
    CHECK(eddy_desc_read(e, "v2_desc", &old, sizeof(v1_desc), sizeof out, &out) == EDDY_OK);
    CHECKF(out.a == 7 && out.appended == 0, "an older struct read as a = %u, appended = %llu", out.a,
           (unsigned long long)out.appended);
    v2_desc now = { sizeof now, 8, 9 };
    CHECK(eddy_desc_read(e, "v2_desc", &now, sizeof(v1_desc), sizeof out, &out) == EDDY_OK);
    CHECK(out.a == 8 && out.appended == 9);
    uint32_t bad_sizes[] = { 0, 4, sizeof(v2_desc) + 8 };
    for (size_t i = 0; i < sizeof bad_sizes / sizeof *bad_sizes; i++) {
        struct { v2_desc d; uint64_t newer; } big = { { bad_sizes[i], 1, 2 }, 3 };
        test_clear_error();
        CHECK(eddy_desc_read(e, "v2_desc", &big, sizeof(v1_desc), sizeof out, &out) == EDDY_ERROR_ABI);
        CHECKF(!strcmp(test_last_id, "desc.size") && strstr(test_last_error, "v2_desc"), "size %u: [%s] %s",
               bad_sizes[i], test_last_id, test_last_error);
    }
    test_clear_error();
    CHECK(eddy_desc_read(e, "v2_desc", NULL, sizeof(v1_desc), sizeof out, &out) == EDDY_ERROR_ABI);
    CHECK(!strcmp(test_last_id, "desc.size"));
}

static void refused_creates(eddy_engine *e)
{
    uint64_t before = eddy_engine_get_counters(e).buffer_bytes;
    test_clear_error();
    CHECK(!eddy_create_buffer(e, &(eddy_buffer_desc){ .size = 64 }).id); /* no EDDY_SIZED */
    CHECKF(!strcmp(test_last_id, "desc.size") && strstr(test_last_error, "eddy_buffer_desc"), "[%s] %s",
           test_last_id, test_last_error);
    test_clear_error();
    eddy_buffer_desc newer = { EDDY_SIZED(eddy_buffer_desc), .size = 64 };
    newer.struct_size += 8;
    struct { eddy_buffer_desc d; uint64_t more; } padded = { newer, 0 };
    CHECK(!eddy_create_buffer(e, &padded.d).id);
    CHECK(!strcmp(test_last_id, "desc.size"));
    test_clear_error();
    CHECK(!eddy_create_graph(e, &(eddy_graph_desc){ .label = "unsized" }).id);
    CHECK(!strcmp(test_last_id, "desc.size"));
    test_clear_error();
    CHECK(!eddy_load_scene(e, &(eddy_scene_desc){ .json = "{}" }));
    CHECK(!strcmp(test_last_id, "desc.size"));
    CHECK(eddy_engine_get_counters(e).buffer_bytes == before);
    /* Sized, the same calls work; a NULL graph desc is the defaults. */
    eddy_buffer b = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 64 });
    CHECK(b.id);
    eddy_graph g = eddy_create_graph(e, NULL);
    CHECK(g.id);
    eddy_destroy_graph(e, g);
    eddy_destroy_buffer(e, b);
}

int main(void)
{
    test_require_device();
    /* No engine without a sized engine desc (the message goes to stderr). */
    CHECK(!eddy_create_engine(&(eddy_engine_desc){ .log = test_log }));
    eddy_engine *e = test_engine();
    grown_struct(e);
    refused_creates(e);
    printf("desc_size: unsized, oversized and NULL descs refused with desc.size and nothing created; an older "
           "smaller struct read with its appended fields at zero\n");
    test_finish(e);
    return test_report("desc_size");
}
