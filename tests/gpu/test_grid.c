/* The uniform-grid neighbour search against brute force: for 20k random
 * particles (some outside the grid) and a clustered case (hundreds per cell),
 * the set of neighbour pairs within h found through the grid equals the
 * brute-force set exactly (pairs whose squared distance lies within 1e-6 of h^2
 * may go either way: the device may fuse the multiply-adds; they are counted
 * and reported). Also: the outside count, gather/scatter round trip, grid size
 * limits, the poly6 density against its CPU reference, and determinism: five
 * runs of grid build + density on 50k particles give bitwise identical output
 * (the suite runs lavapipe with two threads). */
#include "gpu_test.h"
#include "eddy/eddy_prims.h"

#include <math.h>

static const uint32_t neighbors_spv[] =
#include "neighbors.spv.inc"
    ;
static const uint32_t density_spv[] =
#include "poly6_density.spv.inc"
    ;

typedef struct push_t {
    float origin_inv_cell[4];
    int32_t dims[4];
    float h;
    uint32_t count, mode;
} push_t;

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static float dist2(const float *a, const float *b)
{
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
}

static void neighbour_case(eddy_engine *e, eddy_kernel kn, const char *name, const float *pos,
                           uint32_t n, const float origin[3], float h, const uint32_t dims[3])
{
    eddy_grid *grid = eddy_create_grid(e, &(eddy_grid_desc){ EDDY_SIZED(eddy_grid_desc), .label = name, .origin = { origin[0], origin[1], origin[2] },
                                                             .cell = h, .dims = { dims[0], dims[1], dims[2] }, .max_count = n });
    REQUIRE(grid);
    eddy_grid_buffers gb = eddy_grid_get_buffers(grid);
    eddy_buffer bp = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 16ull * n, .label = "pos", .data = pos });
    eddy_buffer bs = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 16ull * n, .label = "pos.sorted" });
    eddy_buffer bc = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 4ull * n, .label = "counts" });
    eddy_buffer bo = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 4ull * n, .label = "offsets" });
    REQUIRE(bp.id && bs.id && bc.id && bo.id);
    eddy_scan *scan = eddy_create_scan(e, &(eddy_scan_desc){ EDDY_SIZED(eddy_scan_desc), .max_count = n });
    push_t push = { { origin[0], origin[1], origin[2], 1.0f / h }, { (int)dims[0], (int)dims[1], (int)dims[2], 0 }, h, n, 0 };
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "count" });
    CHECK(eddy_grid_record_build(e, grid, g, bp, n) == EDDY_OK);
    CHECK(eddy_grid_record_gather(e, grid, g, bp, bs, 4, n) == EDDY_OK);
    CHECK(eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .label = "neighbours.count", .kernel = kn, .threads = n,
        .bindings = { { bs, EDDY_READ }, { gb.cell_start, EDDY_READ }, { gb.cell_end, EDDY_READ },
                      { gb.sorted_index, EDDY_READ }, { bc, EDDY_READ_WRITE }, { bo, EDDY_WRITE } },
        .push = &push, .push_size = sizeof push }) >= 0);
    CHECK(eddy_scan_record(e, scan, g, bc, 0, bo, 0, n, false) == EDDY_OK);
    CHECK(eddy_graph_run(e, g, 1) == EDDY_OK);
    uint32_t *cnt = malloc(4ull * n), *off = malloc(4ull * n), *idx = malloc(4ull * n), outside = 0;
    REQUIRE(cnt && off && idx);
    CHECK(eddy_buffer_download(e, bc, 0, 4ull * n, cnt) == EDDY_OK);
    CHECK(eddy_buffer_download(e, bo, 0, 4ull * n, off) == EDDY_OK);
    CHECK(eddy_buffer_download(e, gb.sorted_index, 0, 4ull * n, idx) == EDDY_OK);
    CHECK(eddy_buffer_download(e, gb.outside, 0, 4, &outside) == EDDY_OK);
    uint64_t total = n ? (uint64_t)off[n - 1] + cnt[n - 1] : 0;
    eddy_buffer bl = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = total ? 4 * total : 4, .label = "lists" });
    eddy_graph g2 = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "lists" });
    push.mode = 1;
    CHECK(eddy_graph_add_pass(e, g2, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .label = "neighbours.list", .kernel = kn, .threads = n,
        .bindings = { { bs, EDDY_READ }, { gb.cell_start, EDDY_READ }, { gb.cell_end, EDDY_READ },
                      { gb.sorted_index, EDDY_READ }, { bo, EDDY_READ_WRITE }, { bl, EDDY_WRITE } },
        .push = &push, .push_size = sizeof push }) >= 0);
    CHECK(eddy_graph_run(e, g2, 1) == EDDY_OK);
    uint32_t *lists = malloc(4 * total + 4);
    REQUIRE(lists);
    CHECK(eddy_buffer_download(e, bl, 0, 4 * total, lists) == EDDY_OK);

    /* The permutation is one: every particle appears once. */
    uint32_t *seen = calloc(n, 4);
    int perm_bad = 0;
    for (uint32_t i = 0; i < n; i++)
        perm_bad += idx[i] >= n || seen[idx[i]]++;
    CHECKF(perm_bad == 0, "%s: sorted_index is not a permutation", name);

    /* Brute force, particle by particle, against the GPU list of the same particle. */
    uint32_t true_outside = 0, mismatched = 0, ambiguous = 0;
    uint32_t *mine = malloc(4ull * n), *want = malloc(4ull * n);
    uint32_t *where = malloc(4ull * n);
    for (uint32_t s = 0; s < n; s++)
        where[idx[s]] = s;
    float h2 = h * h;
    for (uint32_t i = 0; i < n; i++) {
        const float *p = pos + 4 * i;
        for (int a = 0; a < 3; a++) {
            float c = floorf((p[a] - origin[a]) * (1.0f / h));
            if (c < 0 || c >= (float)dims[a]) {
                true_outside++;
                break;
            }
        }
        uint32_t s = where[i], nm = cnt[s], nw = 0;
        memcpy(mine, lists + off[s], 4ull * nm);
        qsort(mine, nm, 4, cmp_u32);
        for (uint32_t j = 0; j < n; j++) {
            if (j == i)
                continue;
            float r2 = dist2(p, pos + 4 * j);
            if (fabsf(r2 - h2) <= 1e-6f * h2) {
                /* Either answer is right: drop it from the GPU list if present. */
                ambiguous++;
                uint32_t *hit = bsearch(&j, mine, nm, 4, cmp_u32);
                if (hit) {
                    memmove(hit, hit + 1, (size_t)(mine + nm - hit - 1) * 4);
                    nm--;
                }
            } else if (r2 < h2) {
                want[nw++] = j;
            }
        }
        if (nm != nw || memcmp(mine, want, 4ull * nw))
            mismatched++;
    }
    CHECKF(mismatched == 0, "%s: %u of %u particles have a neighbour set unlike brute force", name, mismatched, n);
    CHECKF(outside == true_outside, "%s: %u particles counted outside, %u really are", name, outside, true_outside);
    printf("%s: %u particles, %llu neighbour entries, all sets equal to brute force (%u pairs within 1e-6 of h), %u outside the grid counted\n",
           name, n, (unsigned long long)total, ambiguous / 2, outside);

    /* Gather then scatter gives back the input, bit for bit. */
    eddy_graph g3 = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "roundtrip" });
    eddy_buffer back = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 16ull * n, .label = "pos.back" });
    CHECK(eddy_grid_record_scatter(e, grid, g3, bs, back, 4, n) == EDDY_OK);
    CHECK(eddy_graph_run(e, g3, 1) == EDDY_OK);
    float *pb = malloc(16ull * n);
    CHECK(eddy_buffer_download(e, back, 0, 16ull * n, pb) == EDDY_OK);
    CHECKF(!memcmp(pb, pos, 16ull * n), "%s: scatter(gather(x)) != x", name);
    free(pb), free(cnt), free(off), free(idx), free(lists), free(seen), free(mine), free(want), free(where);
    eddy_destroy_graph(e, g);
    eddy_destroy_graph(e, g2);
    eddy_destroy_graph(e, g3);
    eddy_destroy_buffer(e, back);
    eddy_destroy_buffer(e, bl);
    eddy_destroy_buffer(e, bp);
    eddy_destroy_buffer(e, bs);
    eddy_destroy_buffer(e, bc);
    eddy_destroy_buffer(e, bo);
    eddy_destroy_scan(e, scan);
    eddy_destroy_grid(e, grid);
}

/* Grid build + gather + poly6 density, once; returns density and order. */
static void density_run(eddy_engine *e, eddy_kernel kd, const float *pos, uint32_t n, float h,
                        float *density, uint32_t *order)
{
    const uint32_t dims[3] = { 32, 32, 32 };
    eddy_grid *grid = eddy_create_grid(e, &(eddy_grid_desc){ EDDY_SIZED(eddy_grid_desc), .label = "dgrid", .cell = h, .dims = { dims[0], dims[1], dims[2] }, .max_count = n });
    REQUIRE(grid);
    eddy_grid_buffers gb = eddy_grid_get_buffers(grid);
    eddy_buffer bp = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 16ull * n, .label = "pos", .data = pos });
    eddy_buffer bs = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 16ull * n, .label = "pos.sorted" });
    eddy_buffer bd = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 4ull * n, .label = "density" });
    const float mass = 0.02f;
    struct { float oc[4]; int32_t dims[4]; float h, coef; uint32_t count; } push = {
        { 0, 0, 0, 1.0f / h }, { 32, 32, 32, 0 }, h, (float)(mass * 315.0 / (64.0 * M_PI * pow(h, 9))), n };
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "density" });
    CHECK(eddy_grid_record_build(e, grid, g, bp, n) == EDDY_OK);
    CHECK(eddy_grid_record_gather(e, grid, g, bp, bs, 4, n) == EDDY_OK);
    CHECK(eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .label = "density", .kernel = kd, .threads = n,
        .bindings = { { bs, EDDY_READ }, { gb.cell_start, EDDY_READ }, { gb.cell_end, EDDY_READ }, { bd, EDDY_WRITE } },
        .push = &push, .push_size = sizeof push }) >= 0);
    CHECK(eddy_graph_run(e, g, 1) == EDDY_OK);
    CHECK(eddy_buffer_download(e, bd, 0, 4ull * n, density) == EDDY_OK);
    CHECK(eddy_buffer_download(e, gb.sorted_index, 0, 4ull * n, order) == EDDY_OK);
    eddy_destroy_graph(e, g);
    eddy_destroy_buffer(e, bp);
    eddy_destroy_buffer(e, bs);
    eddy_destroy_buffer(e, bd);
    eddy_destroy_grid(e, grid);
}

int main(void)
{
    eddy_engine *e = test_engine();
    eddy_kernel kn = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "neighbours", EDDY_SPIRV(neighbors_spv) });
    eddy_kernel kd = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "poly6_density", EDDY_SPIRV(density_spv) });
    REQUIRE(kn.id && kd.id);
    uint64_t seed = 4;
    enum { N = 20000, NC = 6000, ND = 50000 };
    float *pos = malloc(16ull * ND);
    REQUIRE(pos);

    /* 20k random particles in [0, 1]^3, 1% of them outside the grid. */
    for (uint32_t i = 0; i < N; i++) {
        bool out = i % 100 == 7;
        for (int a = 0; a < 3; a++)
            pos[4 * i + a] = out ? -0.4f + 1.8f * (float)test_rand(&seed) / 4294967296.0f
                                 : (float)test_rand(&seed) / 4294967296.0f;
        pos[4 * i + 3] = 0.0f;
    }
    const float origin[3] = { 0, 0, 0 };
    const uint32_t dims[3] = { 20, 20, 20 };
    neighbour_case(e, kn, "random 20k", pos, N, origin, 0.05f, dims);

    /* Clustered: most particles packed into a few cells, the rest spread. */
    for (uint32_t i = 0; i < NC; i++) {
        float span = i < 5000 ? 0.12f : 1.0f, base = i < 5000 ? 0.4f : 0.0f;
        for (int a = 0; a < 3; a++)
            pos[4 * i + a] = base + span * (float)test_rand(&seed) / 4294967296.0f;
        pos[4 * i + 3] = 0.0f;
    }
    neighbour_case(e, kn, "clustered", pos, NC, origin, 0.05f, dims);

    /* Size limits: a 256^3 grid fits (two 64 MiB tables); 512^3 is refused. */
    eddy_grid *big = eddy_create_grid(e, &(eddy_grid_desc){ EDDY_SIZED(eddy_grid_desc), .label = "g256", .cell = 0.01f, .dims = { 256, 256, 256 }, .max_count = 1000 });
    CHECK(big != NULL);
    if (big) {
        eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "g256" });
        eddy_buffer bp = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 16000, .label = "few", .data = pos });
        CHECK(eddy_grid_record_build(e, big, g, bp, 1000) == EDDY_OK);
        CHECK(eddy_graph_run(e, g, 1) == EDDY_OK);
        eddy_destroy_graph(e, g);
        eddy_destroy_buffer(e, bp);
        eddy_destroy_grid(e, big);
    }
    test_clear_error();
    CHECK(eddy_create_grid(e, &(eddy_grid_desc){ EDDY_SIZED(eddy_grid_desc), .label = "g512", .cell = 0.01f, .dims = { 512, 512, 512 }, .max_count = 1000 }) == NULL);
    CHECKF(!strcmp(test_last_id, "grid.too_large") && strstr(test_last_error, "maxStorageBufferRange") &&
               strstr(test_last_error, "134217728 cells"),
           "message was: [%s] %s", test_last_id, test_last_error);

    /* Density: 50k particles at rest spacing with jitter; h = 2 spacings. */
    uint32_t side = 37, n = 0; /* 37^3 = 50,653 */
    float s = 0.02f, h = 0.04f;
    for (uint32_t z = 0; z < side; z++)
        for (uint32_t y = 0; y < side; y++)
            for (uint32_t x = 0; x < side && n < ND; x++, n++) {
                pos[4 * n] = 0.1f + s * x + 0.002f * ((float)test_rand(&seed) / 4294967296.0f - 0.5f);
                pos[4 * n + 1] = 0.1f + s * y + 0.002f * ((float)test_rand(&seed) / 4294967296.0f - 0.5f);
                pos[4 * n + 2] = 0.1f + s * z + 0.002f * ((float)test_rand(&seed) / 4294967296.0f - 0.5f);
                pos[4 * n + 3] = 0.0f;
            }
    float *d0 = malloc(4ull * n), *d1 = malloc(4ull * n);
    uint32_t *o0 = malloc(4ull * n), *o1 = malloc(4ull * n);
    REQUIRE(d0 && d1 && o0 && o1);
    density_run(e, kd, pos, n, h, d0, o0);
    for (int run = 1; run < 5; run++) {
        density_run(e, kd, pos, n, h, d1, o1);
        CHECKF(!memcmp(d0, d1, 4ull * n) && !memcmp(o0, o1, 4ull * n), "run %d differs from run 0", run);
    }
    /* CPU reference of the density, summing in the same (sorted) order. */
    double coef = 0.02 * 315.0 / (64.0 * M_PI * pow(h, 9)), worst = 0;
    for (uint32_t i = 0; i < n; i++) {
        const float *p = pos + 4 * o0[i];
        double sum = 0;
        for (uint32_t j = 0; j < n; j++) {
            const float *q = pos + 4 * o0[j];
            if (fabsf(p[0] - q[0]) >= h || fabsf(p[1] - q[1]) >= h || fabsf(p[2] - q[2]) >= h)
                continue;
            double r2 = dist2(p, q);
            if (r2 < (double)h * h)
                sum += pow((double)h * h - r2, 3);
        }
        worst = fmax(worst, fabs(d0[i] - coef * sum) / (coef * sum));
    }
    CHECKF(worst <= 1e-4, "density differs from the CPU reference by %.3g (relative, tolerance 1e-4)", worst);
    printf("density: %u particles, 5 runs bitwise identical, largest relative difference to the CPU reference %.3g\n", n, worst);
    free(d0), free(d1), free(o0), free(o1), free(pos);
    test_finish(e);
    return test_report("grid");
}
