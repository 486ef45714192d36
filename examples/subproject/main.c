/* The smallest program on eddy, built as a meson subproject (meson.build
 * here) or from CMake through pkg-config (examples/cmake): an engine on the
 * default device, the built-in modules, a scene of 64 particles falling
 * for 0.1 s (ballistic), and its lowest particle against y0 - g t^2 / 2.
 * Prints one line; exits non-zero on any failure. */
#include "eddy/eddy.h"
#include "eddy/eddy_scene.h"
#include "eddy/eddy_builtin.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    eddy_engine *e = eddy_create_engine(&(eddy_engine_desc){ EDDY_SIZED(eddy_engine_desc) });
    if (!e || eddy_register_builtin_modules(e) != EDDY_OK)
        return 1;
    const char *json =
        "{ \"dt\": 0.001, \"duration\": 0.1, \"box\": { \"min\": [-1, -1, -1], \"max\": [1, 1, 1] },"
        "  \"particle_sets\": [ { \"name\": \"p\", \"spacing\": 0.05,"
        "      \"fill\": { \"shape\": \"box\", \"min\": [0, 0.5, 0], \"max\": [0.2, 0.7, 0.2] } } ],"
        "  \"systems\": [ { \"module\": \"ballistic\", \"set\": \"p\" } ] }";
    eddy_scene *s = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "fall.json", .json = json, .no_output = true });
    int rc = 1;
    if (s && eddy_scene_step(s, 100) == EDDY_OK) {
        eddy_particles p = eddy_scene_set(s, 0);
        uint32_t n = eddy_particles_count(e, p);
        float *x = malloc(16ull * n);
        if (x && eddy_buffer_download(e, eddy_particles_buffer(e, p, "position"), 0, 16ull * n, x) == EDDY_OK) {
            double low = 1e9, t = 0.1, expect = 0.525 - 0.5 * 9.81 * t * t;
            for (uint32_t i = 0; i < n; i++)
                low = fmin(low, x[4 * i + 1]);
            printf("eddy on %s: %u particles fell for %g s; lowest at %.4f m (free fall from 0.525 m: "
                   "%.4f m)\n", eddy_engine_device(e)->name, n, t, low, expect);
            rc = fabs(low - expect) < 0.002 ? 0 : 1;
        }
        free(x);
    }
    eddy_destroy_scene(s);
    eddy_destroy_engine(e);
    return rc;
}
