/* The offscreen renderer against a CPU reference of the same image (ray
 * against every sphere per pixel, nearest hit, ties to the lowest id, the same
 * shading): at most 0.5% of pixels may differ by more than 2 levels (edges
 * where float rounding decides hit or miss). Also: a lone sphere's disc has
 * the radius the pinhole projection gives, the picture is the same on a
 * second render, and the PNG file decodes to the same pixels. */
#include "gpu_test.h"
#include "render.h"

#include <math.h>
#include <png.h>
#include <unistd.h>

enum { W = 160, H = 120, N = 60 };

static void sub(const float *a, const float *b, float *o) { o[0] = a[0] - b[0], o[1] = a[1] - b[1], o[2] = a[2] - b[2]; }
static float dot(const float *a, const float *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void norm(float *v) { float l = sqrtf(dot(v, v)); v[0] /= l, v[1] /= l, v[2] /= l; }
static void cross(const float *a, const float *b, float *o)
{
    o[0] = a[1] * b[2] - a[2] * b[1], o[1] = a[2] * b[0] - a[0] * b[2], o[2] = a[0] * b[1] - a[1] * b[0];
}

static void cpu_render(const eddy_render_desc *d, const float *sp, const float *sc, int n, uint8_t *img)
{
    float f[3], r[3], u[3];
    sub(d->target, d->eye, f);
    norm(f);
    cross(f, d->up, r);
    norm(r);
    cross(r, f, u);
    float tanh = tanf(d->fov_deg * 0.5f * 3.14159265f / 180.0f), aspect = (float)W / H;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float px = ((x + 0.5f) / W * 2 - 1) * tanh * aspect, py = (1 - (y + 0.5f) / H * 2) * tanh;
            float dir[3] = { f[0] + px * r[0] + py * u[0], f[1] + px * r[1] + py * u[1], f[2] + px * r[2] + py * u[2] };
            norm(dir);
            float best = INFINITY;
            int id = -1;
            for (int i = 0; i < n; i++) {
                float oc[3];
                sub(d->eye, sp + 4 * i, oc);
                float b = dot(oc, dir), q = dot(oc, oc) - sp[4 * i + 3] * sp[4 * i + 3], disc = b * b - q;
                if (disc < 0)
                    continue;
                float t = -b - sqrtf(disc);
                if (t > 0 && t < best)
                    best = t, id = i;
            }
            float g = 0.92f - 0.25f * y / H, c[3] = { g, g, g + 0.03f };
            if (id >= 0) {
                float p[3] = { d->eye[0] + best * dir[0], d->eye[1] + best * dir[1], d->eye[2] + best * dir[2] }, nn[3];
                sub(p, sp + 4 * id, nn);
                norm(nn);
                float l[3] = { -f[0] + 0.6f * u[0] + 0.3f * r[0], -f[1] + 0.6f * u[1] + 0.3f * r[1], -f[2] + 0.6f * u[2] + 0.3f * r[2] };
                norm(l);
                float lam = fmaxf(dot(nn, l), 0), t = fminf(fmaxf(sc[id], 0), 1);
                float ramp[3] = { 1.5f - fabsf(4 * t - 3), 1.5f - fabsf(4 * t - 2), 1.5f - fabsf(4 * t - 1) };
                for (int k = 0; k < 3; k++)
                    c[k] = (sc[id] < 0 ? 0.8f : fminf(fmaxf(ramp[k], 0), 1)) * (0.3f + 0.7f * lam);
            }
            for (int k = 0; k < 3; k++)
                img[4 * (y * W + x) + k] = (uint8_t)(fminf(fmaxf(c[k], 0), 1) * 255 + 0.5f);
            img[4 * (y * W + x) + 3] = 255;
        }
}

int main(void)
{
    eddy_engine *e = test_engine();
    eddy_render_desc d = { .width = W, .height = H, .eye = { 0.5f, 0.8f, 2.0f }, .target = { 0.5f, 0.4f, 0.5f },
                           .up = { 0, 1, 0 }, .fov_deg = 40 };
    eddy_renderer *r = eddy_create_renderer(e, &d);
    REQUIRE(r);
    static float sp[4 * N], sc[N];
    uint64_t seed = 21;
    for (int i = 0; i < N; i++) {
        for (int a = 0; a < 3; a++)
            sp[4 * i + a] = 0.2f + 0.6f * (float)test_rand(&seed) / 4294967296.0f;
        sp[4 * i + 3] = 0.03f + 0.05f * (float)test_rand(&seed) / 4294967296.0f;
        sc[i] = i % 10 == 0 ? -1.0f : (float)i / N; /* every tenth grey, as tools are */
    }
    static uint8_t gpu[4 * W * H], again[4 * W * H], cpu[4 * W * H];
    CHECK(eddy_render(e, r, sp, sc, N, gpu) == EDDY_OK);
    CHECK(eddy_render(e, r, sp, sc, N, again) == EDDY_OK);
    CHECK(!memcmp(gpu, again, sizeof gpu));
    cpu_render(&d, sp, sc, N, cpu);
    int differ = 0, lit = 0;
    for (int p = 0; p < W * H; p++) {
        int worst = 0;
        for (int k = 0; k < 3; k++)
            worst = abs((int)gpu[4 * p + k] - (int)cpu[4 * p + k]) > worst ? abs((int)gpu[4 * p + k] - (int)cpu[4 * p + k]) : worst;
        differ += worst > 2;
        lit += gpu[4 * p] != gpu[4 * (p % W)]; /* not the background of its row... roughly */
    }
    CHECKF(differ <= W * H / 200, "%d of %d pixels differ from the CPU reference by more than 2 levels", differ, W * H);
    CHECKF(lit > W * H / 10, "only %d pixels show spheres", lit);

    /* From the device (eddy_render_sets, as scene frames draw): two sets in
     * device buffers, coloured by speed and by phase in a compute pass, and
     * host "tool" spheres after them, against the CPU reference of the same
     * spheres with the scalars computed in C. */
    {
        enum { A = 30, B = N - A - 6 };
        static float pos[4 * N], vel[4 * N], rho[N], sc2[N];
        static uint32_t ph[N];
        float lo = 0.1f, span = 2.0f;
        for (int i = 0; i < N; i++) {
            memcpy(pos + 4 * i, sp + 4 * i, 16);
            for (int a = 0; a < 3; a++)
                vel[4 * i + a] = (float)test_rand(&seed) / 4294967296.0f - 0.25f;
            vel[4 * i + 3] = 0;
            rho[i] = 1000.0f + i;
            ph[i] = (uint32_t)(i * 7);
            float speed = sqrtf(vel[4 * i] * vel[4 * i] + vel[4 * i + 1] * vel[4 * i + 1] + vel[4 * i + 2] * vel[4 * i + 2]);
            float f = (float)ph[i] * 0.6180339887498949f;
            sc2[i] = i < A ? (speed - lo) / span : i < A + B ? 0.05f + 0.9f * (f - floorf(f)) : -1.0f;
        }
        eddy_buffer bp = eddy_create_buffer(e, &(eddy_buffer_desc){ .size = sizeof pos, .data = pos, .label = "pos" });
        eddy_buffer bv = eddy_create_buffer(e, &(eddy_buffer_desc){ .size = sizeof vel, .data = vel, .label = "vel" });
        eddy_buffer bd = eddy_create_buffer(e, &(eddy_buffer_desc){ .size = sizeof rho, .data = rho, .label = "rho" });
        eddy_buffer bh = eddy_create_buffer(e, &(eddy_buffer_desc){ .size = sizeof ph, .data = ph, .label = "phase" });
        /* The second set is the tail of the same buffers: its own buffers. */
        eddy_buffer bp2 = eddy_create_buffer(e, &(eddy_buffer_desc){ .size = 16 * B, .data = pos + 4 * A, .label = "pos2" });
        eddy_buffer bh2 = eddy_create_buffer(e, &(eddy_buffer_desc){ .size = 4 * B, .data = ph + A, .label = "phase2" });
        REQUIRE(bp.id && bv.id && bd.id && bh.id && bp2.id && bh2.id);
        eddy_render_set sets[2] = {
            { .position = bp, .velocity = bv, .density = bd, .phase = bh, .count = A, .mode = 0, .lo = lo, .span = span },
            { .position = bp2, .velocity = bp2, .density = bp2, .phase = bh2, .count = B, .mode = 3 },
        };
        static uint8_t dev[4 * W * H], ref[4 * W * H];
        CHECK(eddy_render_sets(e, r, sets, 2, sp + 4 * (A + B), sc2 + A + B, 6, dev) == EDDY_OK);
        cpu_render(&d, sp, sc2, N, ref);
        int off = 0;
        for (int p = 0; p < W * H; p++) {
            int worst = 0;
            for (int k = 0; k < 3; k++)
                worst = abs((int)dev[4 * p + k] - (int)ref[4 * p + k]) > worst ? abs((int)dev[4 * p + k] - (int)ref[4 * p + k]) : worst;
            off += worst > 2;
        }
        CHECKF(off <= W * H / 200, "from the device: %d of %d pixels differ from the CPU reference by more than 2 levels",
               off, W * H);
        printf("render from device buffers: %d pixels differ from the CPU reference by more than 2 levels\n", off);
        eddy_buffer all[] = { bp, bv, bd, bh, bp2, bh2 };
        for (int i = 0; i < 6; i++)
            eddy_destroy_buffer(e, all[i]);
    }

    /* One sphere straight ahead: a disc of radius f r / sqrt(z^2 - r^2) in pixels. */
    eddy_render_desc d1 = { .width = W, .height = H, .eye = { 0, 0, 2 }, .target = { 0, 0, 0 }, .up = { 0, 1, 0 }, .fov_deg = 40 };
    eddy_renderer *r1 = eddy_create_renderer(e, &d1);
    REQUIRE(r1);
    float one[4] = { 0, 0, 0, 0.25f }, s0 = 0.5f;
    CHECK(eddy_render(e, r1, one, &s0, 1, gpu) == EDDY_OK);
    int across = 0;
    for (int x = 0; x < W; x++)
        across += gpu[4 * (H / 2 * W + x)] != gpu[4 * (H / 2 * W)];
    double focal = (H / 2.0) / tan(20 * M_PI / 180), want = 2 * focal * 0.25 / sqrt(4 - 0.0625);
    CHECKF(fabs(across - want) <= 2, "disc %d px across, projection gives %.1f", across, want);

    /* The PNG decodes to the pixels rendered. */
    char path[] = "/tmp/eddy-render-XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    CHECK(eddy_write_png(e, path, gpu, W, H) == EDDY_OK);
    png_image img = { .version = PNG_IMAGE_VERSION };
    CHECK(png_image_begin_read_from_file(&img, path));
    img.format = PNG_FORMAT_RGBA;
    CHECK(img.width == W && img.height == H);
    CHECK(png_image_finish_read(&img, NULL, again, 0, NULL));
    CHECK(!memcmp(gpu, again, sizeof gpu));
    remove(path);
    printf("render: %d x %d, %d spheres: %d pixels differ from the CPU reference by more than 2 levels; disc %d px (projection %.1f)\n",
           W, H, N, differ, across, want);
    eddy_destroy_renderer(e, r);
    eddy_destroy_renderer(e, r1);
    test_finish(e);
    return test_report("render");
}
