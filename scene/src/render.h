/* The offscreen renderer (render.c): particles as spheres, deformable
 * bodies as their triangle surfaces. */
#ifndef EDDY_RENDER_H
#define EDDY_RENDER_H

#include "eddy/eddy.h"
#include "eddy/eddy_output.h"

typedef struct eddy_render_desc {
    uint32_t width, height; /* px */
    float eye[3], target[3], up[3]; /* m; up need not be orthogonal to the view */
    float fov_deg;          /* vertical field of view, degrees */
} eddy_render_desc;

typedef struct eddy_renderer eddy_renderer;
eddy_renderer *eddy_create_renderer(eddy_engine *e, const eddy_render_desc *desc);
void eddy_destroy_renderer(eddy_engine *e, eddy_renderer *r);
/* Draws n spheres (vec4: centre, radius) coloured by scalars in [0, 1] into
 * rgba (width x height x 4 bytes, rows top to bottom). */
eddy_result eddy_render(eddy_engine *e, eddy_renderer *r, const float *spheres,
                        const float *scalars, uint32_t n, uint8_t *rgba);
/* One particle set drawn straight from its device buffers: positions
 * (vec4, w radius) and the colour scalar from velocity (mode 0: speed),
 * density (1), a constant `value` (2) or phase (3), modes 0 and 1 mapped to
 * [0, 1] by (x - lo) / span. Buffers a mode does not read may be any of the
 * set's (they are bound, not read).
 *
 * A deformable body (tetrahedral mesh, cloth) gives its surface: then the
 * set is drawn as those triangles and not as spheres (the radius is unused).
 * A triangle is coloured by the mean of its three vertices' scalars and
 * shaded two-sided (its face normal turned toward the viewer: cloth is
 * open). Triangles depth-test against every sphere and triangle. A triangle
 * naming a particle at or past `count` is not drawn, nor one with a corner
 * less than 1 mm in front of the eye plane or behind it (skipped, not
 * clipped); one wider than 512 px on screen is cut to 512 px. */
typedef struct eddy_render_set {
    eddy_buffer position, velocity, density, phase;
    uint32_t count;
    uint32_t mode;
    float lo, span, value;
    /* An EDDY_TRIANGLES element buffer (eddy.h's layout: uint32, 3 indices a
     * triangle into this set's particles, counter-clockwise seen from
     * outside for a closed surface) holding at least 3 x triangle_count
     * indices; triangle_count 0 (and any buffer): drawn as spheres. */
    eddy_buffer triangles;
    uint32_t triangle_count;
} eddy_render_set;
/* Draws the sets from the device and `extra` host spheres after them (tools:
 * scalar < 0 is grey) into rgba: nothing goes up but the extra spheres
 * (staged with the frame's submission); only the image comes down. */
eddy_result eddy_render_sets(eddy_engine *e, eddy_renderer *r, const eddy_render_set *sets, uint32_t set_count,
                             const float *extra_spheres, const float *extra_scalars, uint32_t extra,
                             uint8_t *rgba);
eddy_result eddy_write_png(eddy_engine *e, const char *path, const uint8_t *rgba, uint32_t w,
                           uint32_t h);

#endif
