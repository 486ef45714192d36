/* eddy_prims.h: shared GPU building blocks that add passes to a graph:
 * prefix scan, stable radix sort, the uniform-grid neighbour search with
 * reorder, and deterministic reductions. The GLSL lives in shaders/; the
 * kernels are created once per engine, at the first primitive created.
 *
 * Every result is deterministic: integer work is exact, and float
 * reductions combine values in a fixed tree order (no float atomics), so the
 * same input gives bitwise identical output on every run.
 *
 * Each primitive object owns its scratch buffers. Recording the same object
 * twice into one graph is allowed (the graph orders the uses); recording it
 * into two graphs that run at the same time is not. Counts are fixed when
 * recorded (graphs are recorded once and replayed). Threading as eddy.h.
 */
#ifndef EDDY_PRIMS_H
#define EDDY_PRIMS_H

#include "eddy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ scan */

typedef struct eddy_scan eddy_scan;
typedef struct eddy_scan_desc {
    uint32_t struct_size; /* required: sizeof(eddy_scan_desc), EDDY_SIZED(eddy_scan_desc) */
    const char *label;  /* names the scratch buffer; default "scan" */
    uint32_t max_count; /* largest count recorded, required; at most 1024 x the
                           device's maxComputeWorkGroupCount[0] (67,107,840 on lavapipe) */
} eddy_scan_desc;

EDDY_API eddy_scan *eddy_create_scan(eddy_engine *e, const eddy_scan_desc *desc);
EDDY_API void eddy_destroy_scan(eddy_engine *e, eddy_scan *s);
/* Adds the passes that write the prefix sums of count uint32 of `in` (from
 * element in_offset) to `out` (from out_offset); sums wrap modulo 2^32.
 * Inclusive: out[i] = in[0] + ... + in[i]; exclusive: out[i] = in[0] + ... +
 * in[i-1], out[0] = 0. in and out may be the same buffer and range.
 * count 0 adds nothing. */
EDDY_API eddy_result eddy_scan_record(eddy_engine *e, eddy_scan *s, eddy_graph g, eddy_buffer in,
                             uint32_t in_offset, eddy_buffer out, uint32_t out_offset,
                             uint32_t count, bool inclusive);

/* ------------------------------------------------------------------ sort */

typedef struct eddy_sort eddy_sort;
typedef struct eddy_sort_desc {
    uint32_t struct_size; /* required: sizeof(eddy_sort_desc), EDDY_SIZED(eddy_sort_desc) */
    const char *label;  /* default "sort" */
    uint32_t max_count; /* required; limits as eddy_scan_desc */
} eddy_sort_desc;

EDDY_API eddy_sort *eddy_create_sort(eddy_engine *e, const eddy_sort_desc *desc);
EDDY_API void eddy_destroy_sort(eddy_engine *e, eddy_sort *s);
/* Adds the passes of a stable LSD radix sort (4-bit digits) of count
 * (key, value) uint32 pairs, in place in `keys` and `values`, by the low
 * key_bits bits of the keys (0 = 32; higher bits must be zero). Equal keys
 * keep their input order. */
EDDY_API eddy_result eddy_sort_record(eddy_engine *e, eddy_sort *s, eddy_graph g, eddy_buffer keys,
                             eddy_buffer values, uint32_t count, uint32_t key_bits);

/* ------------------------------------------------------------------ grid */

typedef struct eddy_grid eddy_grid;
typedef struct eddy_grid_desc {
    uint32_t struct_size; /* required: sizeof(eddy_grid_desc), EDDY_SIZED(eddy_grid_desc) */
    const char *label;   /* names the grid's buffers; default "grid" */
    float origin[3];     /* m: the corner of cell (0, 0, 0) */
    float cell;          /* m, > 0: cell edge; usually the interaction radius h */
    uint32_t dims[3];    /* cells along x, y, z, each >= 1; the product's start and end
                            tables (4 bytes a cell each) must fit maxStorageBufferRange */
    uint32_t max_count;  /* particles, required */
} eddy_grid_desc;

EDDY_API eddy_grid *eddy_create_grid(eddy_engine *e, const eddy_grid_desc *desc);
EDDY_API void eddy_destroy_grid(eddy_engine *e, eddy_grid *grid);
/* Adds the passes that bin count particles (position: vec4 xyz per particle)
 * into cells, sort them by cell (stable: the same order every run) and fill
 * the cell tables. Particles outside the grid are clamped into its border
 * cells (so their neighbours still find them) and counted. */
EDDY_API eddy_result eddy_grid_record_build(eddy_engine *e, eddy_grid *grid, eddy_graph g,
                                   eddy_buffer position, uint32_t count);
/* Reorders count elements of `words` uint32 each: gather writes
 * dst[i] = src[sorted_index[i]] (into cell order), scatter writes
 * dst[sorted_index[i]] = src[i] (back). src and dst must differ. */
EDDY_API eddy_result eddy_grid_record_gather(eddy_engine *e, eddy_grid *grid, eddy_graph g,
                                    eddy_buffer src, eddy_buffer dst, uint32_t words,
                                    uint32_t count);
EDDY_API eddy_result eddy_grid_record_scatter(eddy_engine *e, eddy_grid *grid, eddy_graph g,
                                     eddy_buffer src, eddy_buffer dst, uint32_t words,
                                     uint32_t count);

typedef struct eddy_grid_buffers {
    eddy_buffer cell_start;   /* uint per cell: first sorted index, 0xffffffff when empty */
    eddy_buffer cell_end;     /* uint per cell: one past the last (valid where start is) */
    eddy_buffer cell_key;     /* uint per particle, sorted: its linear cell x + dx (y + dy z) */
    eddy_buffer sorted_index; /* uint per particle: original index of the i-th sorted particle */
    eddy_buffer outside;      /* uint[1]: particles outside the grid at the last build */
} eddy_grid_buffers;
EDDY_API eddy_grid_buffers eddy_grid_get_buffers(const eddy_grid *grid);
EDDY_API uint64_t eddy_grid_cell_count(const eddy_grid *grid);

/* ------------------------------------------------------------------ reductions */

typedef enum eddy_reduce_op {
    EDDY_REDUCE_SUM = 0,
    EDDY_REDUCE_MIN = 1,
    EDDY_REDUCE_MAX = 2,
} eddy_reduce_op;

typedef struct eddy_reduce eddy_reduce;
typedef struct eddy_reduce_desc {
    uint32_t struct_size; /* required: sizeof(eddy_reduce_desc), EDDY_SIZED(eddy_reduce_desc) */
    const char *label;  /* default "reduce" */
    uint32_t max_count; /* elements, required */
} eddy_reduce_desc;

EDDY_API eddy_reduce *eddy_create_reduce(eddy_engine *e, const eddy_reduce_desc *desc);
EDDY_API void eddy_destroy_reduce(eddy_engine *e, eddy_reduce *r);
/* Adds the passes that combine count elements of `comps` (1..4) floats,
 * `stride` floats apart (1 for float, 3 for packed vec3, 4 for vec4), with op,
 * into the vec4 out[out_index] (unused components 0; the identity for
 * count 0). Fixed tree order: bitwise the same every run. */
EDDY_API eddy_result eddy_reduce_record(eddy_engine *e, eddy_reduce *r, eddy_graph g, eddy_buffer in,
                               uint32_t count, uint32_t stride, uint32_t comps,
                               eddy_reduce_op op, eddy_buffer out, uint32_t out_index);
/* Segmented: out[s] (vec4) combines elements [offsets[s], offsets[s+1]) of
 * `in` for s < segments (offsets: segments + 1 ascending uints), e.g. the
 * force sum of each rigid body's particles. `elements` (offsets[segments])
 * picks the method: under 32 a segment on average, a thread per segment
 * sums in order; else a workgroup per segment (a fixed tree). */
EDDY_API eddy_result eddy_segmented_reduce_record(eddy_engine *e, eddy_graph g, eddy_buffer in,
                                         uint32_t stride, uint32_t comps, eddy_buffer offsets,
                                         uint32_t segments, uint32_t elements, eddy_reduce_op op,
                                         eddy_buffer out);

/* A fill pass: count uints of buf from element offset set to value (refused when
 * they run past the buffer's end). */
EDDY_API eddy_result eddy_fill_record(eddy_engine *e, eddy_graph g, eddy_buffer buf, uint32_t offset,
                             uint32_t count, uint32_t value);

#ifdef __cplusplus
}
#endif
#endif
