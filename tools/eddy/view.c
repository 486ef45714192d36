/* eddy view: eddy's own viewer, and its first host. It makes its own Vulkan
 * instance and device, hands them to eddy (eddy_engine_desc.adopt), records
 * the scene's steps into its frame command buffers (eddy_scene_record) and
 * draws straight from eddy's buffers through the public API only:
 *  - particles as shaded sphere impostors (a quad per particle instance from
 *    eddy_particles_draw), coloured by speed, density, set or phase (body);
 *  - surface meshes: every element set of triangles (cloth, a tet mesh's
 *    surface) from eddy_particles_elements_draw;
 *  - a line of text on top: time, steps per second, particles, the tool's
 *    force.
 * With a window (GLFW and a swapchain): orbit (left drag), pan (middle drag
 * or shift + left), zoom (wheel), drag the scene's tool (right drag, or
 * ctrl + left: the first system's vec3 input moves on the plane facing the
 * camera), and keys: space pause, N one step, R reset, + and - steps per
 * frame, C colour, Q or Esc quit. Without one (--offscreen) the same code
 * renders into an image and writes the last frame as a PNG. --events replays
 * input (the same handlers the window's callbacks call) at given frames. */
#include "view_internal.h"

/* ------------------------------------------------------------------ small math */

static void sub3(const double a[3], const double b[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = a[i] - b[i];
}

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    double c[3] = { a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0] };
    memcpy(out, c, sizeof c);
}

static void normalize3(double v[3])
{
    double n = sqrt(dot3(v, v));
    for (int i = 0; i < 3 && n > 0; i++)
        v[i] /= n;
}

/* The camera's eye and its basis: s right, u up, f forward. */
void view_camera(const viewer *v, double eye[3], double s[3], double u[3], double f[3])
{
    double cp = cos(v->pitch), sp = sin(v->pitch), cy = cos(v->yaw), sy = sin(v->yaw);
    double back[3] = { cp * sy, sp, cp * cy };
    for (int i = 0; i < 3; i++)
        eye[i] = v->target[i] + v->distance * back[i], f[i] = -back[i];
    cross3(f, (double[3]){ 0, 1, 0 }, s);
    normalize3(s);
    cross3(s, f, u);
}

static const double FOV_Y = 0.7; /* radians, without the scene's camera */

static void matrices(const viewer *v, push_view *p)
{
    double eye[3], s[3], u[3], f[3];
    view_camera(v, eye, s, u, f);
    memset(p->view, 0, sizeof p->view);
    for (int i = 0; i < 3; i++) {
        p->view[4 * i + 0] = (float)s[i];
        p->view[4 * i + 1] = (float)u[i];
        p->view[4 * i + 2] = (float)-f[i];
    }
    p->view[12] = (float)-dot3(s, eye);
    p->view[13] = (float)-dot3(u, eye);
    p->view[14] = (float)dot3(f, eye);
    p->view[15] = 1;
    double fy = 1 / tan(v->fov / 2), aspect = (double)v->width / v->height;
    double near = v->distance * 0.01, far = v->distance * 10;
    p->proj[0] = (float)(fy / aspect);
    p->proj[1] = (float)-fy; /* Vulkan's clip y points down */
    p->proj[2] = (float)(far / (near - far));
    p->proj[3] = (float)(near * far / (near - far));
}

/* Where the ray through pixel (x, y) meets the plane through `through`
 * facing the camera. */
static void pick(const viewer *v, double x, double y, const double through[3], double out[3])
{
    double eye[3], s[3], u[3], f[3], dir[3], to[3];
    view_camera(v, eye, s, u, f);
    double fy = 1 / tan(v->fov / 2), aspect = (double)v->width / v->height;
    double nx = 2 * x / v->width - 1, ny = 2 * y / v->height - 1;
    for (int i = 0; i < 3; i++)
        dir[i] = f[i] + s[i] * nx * aspect / fy - u[i] * ny / fy;
    sub3(through, eye, to);
    double t = dot3(to, f) / dot3(dir, f);
    for (int i = 0; i < 3; i++)
        out[i] = eye[i] + t * dir[i];
}

/* ------------------------------------------------------------------ input */

static void input_press(viewer *v, int button, bool shift, bool ctrl, double x, double y)
{
    v->mouse[0] = v->press_mouse[0] = x;
    v->mouse[1] = v->press_mouse[1] = y;
    v->dragging = button == 1 || (button == 0 && ctrl) ? 3 : button == 2 || (button == 0 && shift) ? 2 : 1;
    if (v->dragging == 3) {
        if (!v->tool_system || eddy_scene_input(v->scene, v->tool_system, v->tool_input, v->tool_at_press) != EDDY_OK)
            v->dragging = 0;
        else
            pick(v, x, y, v->tool_at_press, v->plane_at_press);
    }
}

static void input_move(viewer *v, double x, double y)
{
    double dx = x - v->mouse[0], dy = y - v->mouse[1];
    v->mouse[0] = x, v->mouse[1] = y;
    if (v->dragging == 1) {
        v->yaw -= dx * 0.01;
        v->pitch = fmin(1.5, fmax(-1.5, v->pitch + dy * 0.01));
    } else if (v->dragging == 2) {
        double eye[3], s[3], u[3], f[3];
        view_camera(v, eye, s, u, f);
        double per_pixel = 2 * v->distance * tan(v->fov / 2) / v->height;
        for (int i = 0; i < 3; i++)
            v->target[i] += (-dx * s[i] + dy * u[i]) * per_pixel;
    } else if (v->dragging == 3) {
        double at[3], tool[3];
        pick(v, x, y, v->tool_at_press, at);
        for (int i = 0; i < 3; i++)
            tool[i] = v->tool_at_press[i] + at[i] - v->plane_at_press[i];
        eddy_scene_set_input(v->scene, v->tool_system, v->tool_input, tool);
    }
}

static void input_scroll(viewer *v, double clicks)
{
    v->distance *= pow(0.9, clicks);
}

static void input_key(viewer *v, const char *key)
{
    if (!strcmp(key, "space"))
        v->paused = !v->paused;
    else if (!strcmp(key, "n"))
        v->step_once = true;
    else if (!strcmp(key, "r"))
        v->reset = true;
    else if (!strcmp(key, "plus"))
        v->o.steps_per_frame = v->o.steps_per_frame < EDDY_SCENE_RECORD_MAX_STEPS / 2 ? 2 * v->o.steps_per_frame
                                                                                      : v->o.steps_per_frame;
    else if (!strcmp(key, "minus"))
        v->o.steps_per_frame = v->o.steps_per_frame > 1 ? v->o.steps_per_frame / 2 : 1;
    else if (!strcmp(key, "c"))
        v->o.colour = (v->o.colour + 1) % 4, v->o.colour_set = true, v->o.range_set = false;
    else if (!strcmp(key, "q"))
        v->quit = true;
}

#ifdef EDDY_HAVE_GLFW
static void on_button(GLFWwindow *w, int button, int action, int mods)
{
    viewer *v = glfwGetWindowUserPointer(w);
    double x, y;
    glfwGetCursorPos(w, &x, &y);
    int b = button == GLFW_MOUSE_BUTTON_LEFT ? 0 : button == GLFW_MOUSE_BUTTON_RIGHT ? 1 : 2;
    if (action == GLFW_PRESS)
        input_press(v, b, mods & GLFW_MOD_SHIFT, mods & GLFW_MOD_CONTROL, x, y);
    else
        v->dragging = 0;
}

static void on_move(GLFWwindow *w, double x, double y)
{
    input_move(glfwGetWindowUserPointer(w), x, y);
}

static void on_scroll(GLFWwindow *w, double dx, double dy)
{
    (void)dx;
    input_scroll(glfwGetWindowUserPointer(w), dy);
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods)
{
    (void)scancode, (void)mods;
    if (action != GLFW_PRESS && action != GLFW_REPEAT)
        return;
    const char *k = key == GLFW_KEY_SPACE ? "space" : key == GLFW_KEY_N ? "n" : key == GLFW_KEY_R ? "r"
                  : key == GLFW_KEY_EQUAL || key == GLFW_KEY_KP_ADD ? "plus"
                  : key == GLFW_KEY_MINUS || key == GLFW_KEY_KP_SUBTRACT ? "minus"
                  : key == GLFW_KEY_C ? "c" : key == GLFW_KEY_Q || key == GLFW_KEY_ESCAPE ? "q" : NULL;
    if (k)
        input_key(glfwGetWindowUserPointer(w), k);
}
#endif

/* The events due at this frame, through the same handlers. */
static void replay(viewer *v)
{
    while (v->next_event < v->event_count && v->events[v->next_event].frame <= v->frame) {
        const view_event *ev = &v->events[v->next_event++];
        if (!strcmp(ev->what, "press"))
            input_press(v, ev->button, false, false, ev->x, ev->y);
        else if (!strcmp(ev->what, "release"))
            v->dragging = 0;
        else if (!strcmp(ev->what, "move"))
            input_move(v, ev->x, ev->y);
        else if (!strcmp(ev->what, "scroll"))
            input_scroll(v, ev->y);
        else
            input_key(v, ev->key);
    }
}

/* The events file (view_events.h), read whole within its size limit. */
static bool read_events(viewer *v, const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text = malloc(VIEW_EVENTS_MAX_BYTES + 1);
    v->events = calloc(VIEW_EVENTS_MAX, sizeof *v->events);
    size_t size = f && text ? fread(text, 1, VIEW_EVENTS_MAX_BYTES + 1, f) : 0;
    char err[512] = "";
    int n = -1;
    if (!f)
        snprintf(err, sizeof err, "cannot read the events file (%s)", strerror(errno));
    else if (!text || !v->events)
        snprintf(err, sizeof err, "out of host memory");
    else if (ferror(f))
        snprintf(err, sizeof err, "read error");
    else
        n = view_parse_events(text, size, v->events, VIEW_EVENTS_MAX, err, sizeof err);
    if (f)
        fclose(f);
    free(text);
    if (n < 0) {
        fprintf(stderr, "eddy error [cli.usage]: view: %s: %s\n", path, err);
        return false;
    }
    v->event_count = (uint32_t)n;
    return true;
}

/* ------------------------------------------------------------------ text */

/* 5 x 7 glyphs, a row a byte (bit 4 is the left column). */
static const struct {
    char c;
    uint8_t rows[7];
} glyphs[] = {
    { '0', { 0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E } }, { '1', { 0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E } },
    { '2', { 0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F } }, { '3', { 0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E } },
    { '4', { 0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02 } }, { '5', { 0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E } },
    { '6', { 0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E } }, { '7', { 0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08 } },
    { '8', { 0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E } }, { '9', { 0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C } },
    { 'A', { 0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11 } }, { 'B', { 0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E } },
    { 'C', { 0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E } }, { 'D', { 0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C } },
    { 'E', { 0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F } }, { 'F', { 0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10 } },
    { 'G', { 0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F } }, { 'H', { 0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11 } },
    { 'I', { 0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E } }, { 'J', { 0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C } },
    { 'K', { 0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11 } }, { 'L', { 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F } },
    { 'M', { 0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11 } }, { 'N', { 0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11 } },
    { 'O', { 0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E } }, { 'P', { 0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10 } },
    { 'Q', { 0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D } }, { 'R', { 0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11 } },
    { 'S', { 0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E } }, { 'T', { 0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04 } },
    { 'U', { 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E } }, { 'V', { 0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04 } },
    { 'W', { 0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A } }, { 'X', { 0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11 } },
    { 'Y', { 0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04 } }, { 'Z', { 0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F } },
    { '.', { 0, 0, 0, 0, 0, 0x0C, 0x0C } },                { ',', { 0, 0, 0, 0, 0x0C, 0x04, 0x08 } },
    { ':', { 0, 0x0C, 0x0C, 0, 0x0C, 0x0C, 0 } },          { '=', { 0, 0, 0x1F, 0, 0x1F, 0, 0 } },
    { '/', { 0, 0x01, 0x02, 0x04, 0x08, 0x10, 0 } },       { '-', { 0, 0, 0, 0x1F, 0, 0, 0 } },
    { '+', { 0, 0x04, 0x04, 0x1F, 0x04, 0x04, 0 } },       { '(', { 0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02 } },
    { ')', { 0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08 } }, { '%', { 0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03 } },
    { '_', { 0, 0, 0, 0, 0, 0, 0x1F } },                  { '[', { 0x0E, 0x08, 0x08, 0x08, 0x08, 0x08, 0x0E } },
    { ']', { 0x0E, 0x02, 0x02, 0x02, 0x02, 0x02, 0x0E } }, { '|', { 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04 } },
};

/* The text bar: white text on dark grey, BGRA, width x bar_height(width):
 * glyphs doubled from 800 pixels across. */
static uint32_t text_scale(uint32_t width)
{
    return width >= 800 ? 2 : 1;
}

static uint32_t bar_height(uint32_t width)
{
    return 9 * text_scale(width) + 4;
}

static void draw_text(uint8_t *bgra, uint32_t width, const char *text)
{
    const uint32_t TEXT_SCALE = text_scale(width);
    for (uint32_t i = 0; i < width * bar_height(width); i++)
        memcpy(bgra + 4 * i, (uint8_t[4]){ 40, 36, 32, 255 }, 4);
    uint32_t x0 = 4;
    for (const char *p = text; *p && x0 + 5 * TEXT_SCALE < width; p++, x0 += 6 * TEXT_SCALE) {
        char c = *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
        for (size_t g = 0; g < sizeof glyphs / sizeof glyphs[0]; g++) {
            if (glyphs[g].c != c)
                continue;
            for (uint32_t row = 0; row < 7 * TEXT_SCALE; row++)
                for (uint32_t col = 0; col < 5 * TEXT_SCALE; col++)
                    if (glyphs[g].rows[row / TEXT_SCALE] >> (4 - col / TEXT_SCALE) & 1)
                        memset(bgra + 4 * ((size_t)(row + 1 + TEXT_SCALE) * width + x0 + col), 235, 3);
        }
    }
}

/* ------------------------------------------------------------------ the scene */

/* eddy's messages, as its default log prints them; an error counts against
 * the exit status unless the viewer is only probing what a system has. */
static void view_log(void *user, eddy_log_level level, const char *source, const char *id, const char *msg)
{
    viewer *v = user;
    if (v->probing)
        return;
    static const char *const names[] = { "debug", "info", "warn", "error" };
    if (level >= EDDY_LOG_INFO)
        fprintf(stderr, "eddy %s%s%s [%s]: %s\n", names[level & 3], strcmp(source, "eddy") ? " " : "",
                strcmp(source, "eddy") ? source : "", id, msg);
    if (level == EDDY_LOG_ERROR)
        v->errors++;
}

/* Whether the system's input and its radius output can be read now: a
 * deform body without a handle has the input but nothing behind it. */
static bool tool_works(viewer *v, const char *system, const char *input, const char *radius)
{
    double at[3], r[3];
    v->probing = true;
    bool ok = eddy_scene_input(v->scene, system, input, at) == EDDY_OK &&
              (!radius || eddy_scene_output(v->scene, system, radius, r) == EDDY_OK);
    v->probing = false;
    return ok;
}

/* The scene's own camera and colours (its "output.images"), as its PNG
 * frames show it, unless the command line chose the colours. The orbit
 * keeps +y up. */
static void scene_view(viewer *v)
{
    eddy_scene_view sv;
    if (eddy_scene_get_view(v->scene, &sv) != EDDY_OK || !sv.images)
        return;
    double back[3], d = 0;
    for (int i = 0; i < 3; i++)
        back[i] = sv.eye[i] - sv.target[i], d += back[i] * back[i];
    d = sqrt(d);
    if (!(d > 0))
        return;
    memcpy(v->target, sv.target, sizeof v->target);
    v->distance = d;
    v->pitch = asin(fmax(-1, fmin(1, back[1] / d)));
    v->yaw = atan2(back[0], back[2]);
    v->fov = sv.fov_deg * M_PI / 180;
    v->scene_camera = true;
    if (!v->o.colour_set) {
        v->o.colour = sv.color_by;
        if (!v->o.range_set && sv.color_by < 2)
            memcpy(v->o.range, sv.range, sizeof v->o.range), v->o.range_set = true;
    }
}

static bool load(viewer *v)
{
    v->scene = eddy_load_scene(v->e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = v->o.scene, .no_output = true });
    if (!v->scene)
        return false;
    /* The tool: the first system with a vec3 input; its force: that
     * system's first vec3 output named "*.total", else its first in N. */
    v->tool_system = v->tool_input = v->tool_output = v->tool_radius = NULL;
    for (uint32_t i = 0; !v->tool_system && eddy_scene_system_name(v->scene, i); i++) {
        const char *name = eddy_scene_system_name(v->scene, i);
        const eddy_module_desc *m = eddy_scene_system_module(v->scene, name);
        for (uint32_t k = 0; m && k < m->input_count && !v->tool_input; k++)
            if (m->inputs[k].type == EDDY_PORT_VEC3)
                v->tool_system = name, v->tool_input = m->inputs[k].name;
        for (uint32_t k = 0; v->tool_input && k < m->output_count; k++) {
            const eddy_port_info *p = &m->outputs[k];
            size_t n = strlen(p->name);
            if (p->type == EDDY_PORT_VEC3 && !strcmp(p->unit, "N") &&
                (!v->tool_output || (n > 6 && !strcmp(p->name + n - 6, ".total"))))
                v->tool_output = p->name;
            if (p->type == EDDY_PORT_FLOAT && !strcmp(p->unit, "m") && n > 7 && !strcmp(p->name + n - 7, ".radius"))
                v->tool_radius = p->name;
        }
        if (v->tool_system && !tool_works(v, v->tool_system, v->tool_input, v->tool_radius))
            v->tool_system = v->tool_input = v->tool_output = v->tool_radius = NULL;
    }
    double lo[3], hi[3];
    eddy_scene_box(v->scene, lo, hi);
    double diag = 0;
    for (int i = 0; i < 3; i++) {
        v->target[i] = (lo[i] + hi[i]) / 2;
        diag += (hi[i] - lo[i]) * (hi[i] - lo[i]);
    }
    /* The solids, once a load: nothing of the last frame reads the buffer
     * any more (the viewer waits for each frame). */
    uint32_t solid_count = 0;
    const eddy_solid *solids = eddy_scene_solids(v->scene, &solid_count);
    v->solid_vertices = v->o.no_solids || !solids ? 0
                        : view_tessellate_solids(solids, solid_count, lo, hi, v->solids_map, SOLID_VERTICES_MAX);
    view_volumes_find(v);
    v->fov = FOV_Y;
    v->scene_camera = false;
    v->distance = 1.2 * sqrt(diag) / tan(FOV_Y / 2) / 2 + 1e-6;
    v->yaw = 0.5;
    v->pitch = 0.35;
    scene_view(v);
    return true;
}

/* What the frame's draws read of eddy's buffers, before and after the recorded steps. */
static const eddy_host_use draw_use[] = {
    { .stages = EDDY_STAGE_VERTEX_INPUT | EDDY_STAGE_VERTEX_SHADER | EDDY_STAGE_INDIRECT,
      .access = EDDY_ACCESS_VERTEX_READ | EDDY_ACCESS_SHADER_READ | EDDY_ACCESS_INDIRECT_READ } };

/* Points the set's descriptor at a buffer: the bodies' matrices, or any
 * live storage buffer where the pipeline reads none. The last frame has
 * finished (one frame in flight), so the set is free to change. */
static void bind_matrices(viewer *v, VkCommandBuffer cb, uint32_t index, VkBuffer buffer, VkDeviceSize offset)
{
    VkDescriptorBufferInfo bi = { buffer, offset, VK_WHOLE_SIZE };
    VkWriteDescriptorSet w = { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = v->descriptors[index],
                               .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                               .pBufferInfo = &bi };
    vkUpdateDescriptorSets(v->dev, 1, &w, 0, NULL);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, v->layout, 0, 1, &v->descriptors[index], 0, NULL);
}

/* The set's triangle element sets over its positions, from their draw
 * records; whether it has any. */
static bool draw_meshes(viewer *v, VkCommandBuffer cb, eddy_particles p, const push_view *pv)
{
    eddy_vk_buffer pos;
    if (eddy_buffer_vk(v->e, eddy_particles_buffer(v->e, p, "position"), &pos) != EDDY_OK)
        return false;
    bool meshed = false;
    for (uint32_t k = 0; eddy_particles_elements_name(v->e, p, k); k++) {
        const char *name = eddy_particles_elements_name(v->e, p, k);
        eddy_elements el = eddy_particles_elements(v->e, p, name);
        eddy_vk_buffer ib, ed;
        if (el.kind != EDDY_TRIANGLES || eddy_buffer_vk(v->e, el.buffer, &ib) != EDDY_OK ||
            eddy_buffer_vk(v->e, eddy_particles_elements_draw(v->e, p, name), &ed) != EDDY_OK)
            continue;
        if (!meshed) {
            vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, v->meshes);
            vkCmdPushConstants(cb, v->layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                               sizeof *pv, pv);
            vkCmdBindVertexBuffers(cb, 0, 1, &pos.buffer, &pos.offset);
        }
        vkCmdBindIndexBuffer(cb, ib.buffer, ib.offset, VK_INDEX_TYPE_UINT32);
        vkCmdDrawIndexedIndirect(cb, ed.buffer, ed.offset, 1, 20);
        meshed = true;
        v->mesh_draws++;
    }
    return meshed;
}

static void record_draws(viewer *v, VkCommandBuffer cb, uint32_t image)
{
    VkClearValue clear[2] = { { .color = { { 0.93f, 0.93f, 0.9f, 1 } } }, { .depthStencil = { 1, 0 } } };
    VkRenderPassBeginInfo rbi = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO, .renderPass = v->pass,
                                  .framebuffer = v->framebuffers[image],
                                  .renderArea = { { 0, 0 }, { v->width, v->height } }, .clearValueCount = 2,
                                  .pClearValues = clear };
    vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
    VkViewport viewport = { 0, 0, (float)v->width, (float)v->height, 0, 1 };
    VkRect2D scissor = { { 0, 0 }, { v->width, v->height } };
    vkCmdSetViewport(cb, 0, 1, &viewport);
    vkCmdSetScissor(cb, 0, 1, &scissor);
    push_view pv;
    matrices(v, &pv);
    v->body_sets = v->mesh_draws = 0;
    static const double defaults[4][2] = { { 0, 1 }, { 900, 1100 }, { 0, 1 }, { 0, 1 } };
    const double *range = v->o.range_set ? v->o.range : defaults[v->o.colour];
    pv.colour[0] = (float)v->o.colour, pv.colour[1] = (float)range[0], pv.colour[2] = (float)range[1];
    for (uint32_t si = 0; si < MAX_SETS; si++) {
        eddy_particles p = eddy_scene_set(v->scene, si);
        if (!p.id)
            break;
        if (view_volumes_show(v, p))
            continue;
        eddy_vk_buffer b[6], draw;
        eddy_buffer density = eddy_particles_buffer(v->e, p, "density");
        eddy_buffer rest = eddy_particles_buffer(v->e, p, "rigid.rest");
        eddy_buffer matrix = eddy_particles_buffer(v->e, p, "rigid.matrix");
        bool bodies = rest.id && matrix.id && !v->o.no_bodies;
        eddy_buffer src[6] = { eddy_particles_buffer(v->e, p, "position"), eddy_particles_buffer(v->e, p, "velocity"),
                               eddy_particles_buffer(v->e, p, "phase"),
                               density.id ? density : eddy_particles_buffer(v->e, p, "mass"),
                               bodies ? rest : eddy_particles_buffer(v->e, p, "position"),
                               bodies ? matrix : eddy_particles_buffer(v->e, p, "position") };
        bool ok = eddy_buffer_vk(v->e, eddy_particles_draw(v->e, p), &draw) == EDDY_OK;
        for (int k = 0; k < 6; k++)
            ok = ok && eddy_buffer_vk(v->e, src[k], &b[k]) == EDDY_OK;
        if (!ok)
            continue;
        /* Surface meshes: the set's triangle element sets, and a fluid's
         * live iso-surface (the sph module's "<set>.surface", surface_live). */
        bool meshed = draw_meshes(v, cb, p, &pv);
        char live[96];
        snprintf(live, sizeof live, "%s.surface", eddy_particles_name(v->e, p));
        eddy_particles surface = eddy_find_particles(v->e, live);
        if (surface.id)
            meshed |= draw_meshes(v, cb, surface, &pv);
        if (meshed)
            continue; /* a meshed set shows its surface, not its particles */
        pv.colour[3] = (float)si;
        pv.extra[0] = 0.005f;
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, bodies ? v->bodies : v->spheres);
        v->body_sets += bodies;
        vkCmdPushConstants(cb, v->layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof pv, &pv);
        bind_matrices(v, cb, si, b[5].buffer, b[5].offset);
        VkBuffer bufs[5] = { b[0].buffer, b[1].buffer, b[2].buffer, b[3].buffer, b[4].buffer };
        VkDeviceSize offs[5] = { b[0].offset, b[1].offset, b[2].offset, b[3].offset, b[4].offset };
        vkCmdBindVertexBuffers(cb, 0, 5, bufs, offs);
        /* eddy's record [1]: six vertices for each particle in use. */
        vkCmdDrawIndirect(cb, draw.buffer, draw.offset + 16, 1, 16);
    }
    /* The scene's solids: triangles from the viewer's own buffer. */
    if (v->solid_vertices) {
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, v->meshes);
        vkCmdPushConstants(cb, v->layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof pv, &pv);
        VkDeviceSize zero = 0;
        vkCmdBindVertexBuffers(cb, 0, 1, &v->solids, &zero);
        vkCmdDraw(cb, v->solid_vertices, 1, 0, 0);
    }
    view_volumes_draw(v, cb, &pv);
    /* The tool (a system's "*.radius" output and its vec3 input) as one
     * sphere from the viewer's own buffer: position, velocity, phase,
     * density at bytes 0, 16, 32, 48. */
    double at[3], radius[3];
    if (v->tool_radius && eddy_scene_input(v->scene, v->tool_system, v->tool_input, at) == EDDY_OK &&
        eddy_scene_output(v->scene, v->tool_system, v->tool_radius, radius) == EDDY_OK && radius[0] > 0) {
        float data[16] = { (float)at[0], (float)at[1], (float)at[2], (float)radius[0] };
        memcpy(v->tool_map, data, sizeof data);
        pv.colour[0] = 2, pv.colour[3] = 40;
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, v->spheres);
        vkCmdPushConstants(cb, v->layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof pv, &pv);
        bind_matrices(v, cb, MAX_SETS, v->tool, 0);
        VkBuffer bufs[5] = { v->tool, v->tool, v->tool, v->tool, v->tool };
        VkDeviceSize offs[5] = { 0, 16, 32, 48, 0 };
        vkCmdBindVertexBuffers(cb, 0, 5, bufs, offs);
        vkCmdDraw(cb, 6, 1, 0, 0);
    }
    vkCmdEndRenderPass(cb);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The bar's line: time, rate, particles, steps a frame, the tool's force. */
static void status_line(viewer *v, char *line, size_t cap)
{
    eddy_scene_info info = eddy_scene_get_info(v->scene);
    int n = snprintf(line, cap, "T %.3f S  %.0f STEPS/S  %u PARTICLES  %u/FRAME%s", info.time, v->last_rate,
                     info.particle_count, v->o.steps_per_frame, v->paused ? "  PAUSED" : "");
    if (v->has_force && n > 0 && (size_t)n < cap)
        snprintf(line + n, cap - (size_t)n, "  F (%.3f, %.3f, %.3f) N", v->force[0], v->force[1], v->force[2]);
}

static void barrier(VkCommandBuffer cb, VkImage image, VkImageLayout from, VkImageLayout to, VkAccessFlags src,
                    VkAccessFlags dst, VkPipelineStageFlags src_stage, VkPipelineStageFlags dst_stage)
{
    VkImageMemoryBarrier b = { .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .srcAccessMask = src,
                               .dstAccessMask = dst, .oldLayout = from, .newLayout = to,
                               .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                               .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .image = image,
                               .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 } };
    vkCmdPipelineBarrier(cb, src_stage, dst_stage, 0, 0, NULL, 0, NULL, 1, &b);
}

/* One frame: steps recorded, draws, the text bar, (a copy for the PNG),
 * submitted and (with a window) presented; waits for the frame's end. */
static bool frame(viewer *v, bool capture)
{
    uint32_t image = 0;
    if (v->surface) {
        VkResult r = vkAcquireNextImageKHR(v->dev, v->swapchain, UINT64_MAX, v->acquired, VK_NULL_HANDLE, &image);
        if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR)
            return view_vk_ok(r, "vkAcquireNextImageKHR");
    }
    if (!VKV(vkResetCommandPool(v->dev, v->pool, 0)) || !view_volumes_prepare(v))
        return false;
    VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                    .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
    VkCommandBuffer cb = v->cb;
    if (!VKV(vkBeginCommandBuffer(cb, &bi)))
        return false;
    uint64_t value = v->frame + 1;
    if (!v->paused || v->step_once) {
        uint32_t steps = v->paused ? 1 : v->o.steps_per_frame;
        if (eddy_scene_record(v->scene, &(eddy_scene_record_desc){ EDDY_SIZED(eddy_scene_record_desc),
                .command_buffer = cb, .done_semaphore = v->timeline, .done_value = value, .steps = steps,
                .before = draw_use, .before_count = 1, .after = draw_use, .after_count = 1 }) != EDDY_OK)
            return false;
        v->step_once = false;
    }
    if (!view_volumes_record(v, cb, value))
        return false;
    record_draws(v, cb, image);
    char line[256];
    status_line(v, line, sizeof line);
    draw_text(v->bar_map, v->width, line);
    VkBufferImageCopy bar = { .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                              .imageExtent = { v->width, bar_height(v->width), 1 } };
    vkCmdCopyBufferToImage(cb, v->bar, v->images[image], VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &bar);
    VkImageLayout last = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    if (capture || !v->surface) {
        barrier(cb, v->images[image], last, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT,
                VK_ACCESS_TRANSFER_READ_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
        VkBufferImageCopy copy = { .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                                   .imageExtent = { v->width, v->height, 1 } };
        vkCmdCopyImageToBuffer(cb, v->images[image], VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, v->readback, 1, &copy);
        VkMemoryBarrier host = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                 .dstAccessMask = VK_ACCESS_HOST_READ_BIT };
        vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &host, 0, NULL, 0,
                             NULL);
        last = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    }
    if (v->surface)
        barrier(cb, v->images[image], last, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, VK_ACCESS_TRANSFER_WRITE_BIT, 0,
                VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
    if (!VKV(vkEndCommandBuffer(cb)))
        return false;
    uint64_t values[2] = { value, 0 };
    VkSemaphore signal[2] = { v->timeline, v->rendered[image] };
    VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    VkTimelineSemaphoreSubmitInfo ts = { .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                         .signalSemaphoreValueCount = v->surface ? 2 : 1,
                                         .pSignalSemaphoreValues = values };
    VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .pNext = &ts,
                        .waitSemaphoreCount = v->surface ? 1 : 0, .pWaitSemaphores = &v->acquired,
                        .pWaitDstStageMask = &wait_stage, .commandBufferCount = 1, .pCommandBuffers = &cb,
                        .signalSemaphoreCount = v->surface ? 2 : 1, .pSignalSemaphores = signal };
    if (!VKV(vkQueueSubmit(v->queue, 1, &si, VK_NULL_HANDLE)))
        return false;
    if (v->surface) {
        VkPresentInfoKHR pi = { .sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR, .waitSemaphoreCount = 1,
                                .pWaitSemaphores = &v->rendered[image], .swapchainCount = 1,
                                .pSwapchains = &v->swapchain, .pImageIndices = &image };
        VkResult r = vkQueuePresentKHR(v->queue, &pi);
        if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR)
            return view_vk_ok(r, "vkQueuePresentKHR");
    }
    /* One frame in flight: the next frame's command buffer and the scene's
     * outputs wait for this one (on the viewer's own timeline). */
    VkSemaphoreWaitInfo wi = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1,
                               .pSemaphores = &v->timeline, .pValues = &value };
    if (!VKV(vkWaitSemaphores(v->dev, &wi, UINT64_MAX)))
        return false;
    v->frame = value;
    eddy_result r = eddy_scene_collect(v->scene);
    v->has_force = v->tool_output && r == EDDY_OK &&
                   eddy_scene_output(v->scene, v->tool_system, v->tool_output, v->force) == EDDY_OK;
    return r == EDDY_OK;
}

/* ------------------------------------------------------------------ main */

static const char *usage_text =
    "usage: eddy view SCENE.json|NAME [options]\n"
    "  a window that runs the scene live (GLFW and a Vulkan swapchain), or without one:\n"
    "  --offscreen FILE.png  no window: render --frames frames (default 60), write the last\n"
    "  --frames N            stop after N frames (window: default until closed)\n"
    "  --screenshot FILE.png with a window: the last frame as presented, as a PNG\n"
    "  --size WxH            pixels (default 960x600; a window may get another size)\n"
    "  --steps-per-frame K   simulation steps a frame (default 1; + and - change it)\n"
    "  --color MODE          speed, density, set or phase (body); default: the scene's output.images, else speed\n"
    "  --range MIN,MAX       the colour scale (default: the scene's, else speed 0,1 m/s, density 900,1100 kg/m^3)\n"
    "  --events FILE         input replayed at given frames (see docs/viewer.md)\n"
    "  --log FILE.csv        a line a frame: frame, time, tool position, tool force\n"
    "  --solids on|off       the scene's solids (planes, spheres, capsules, glasses; default on)\n"
    "  --bodies on|off       rigid bodies placed by their transforms (default on), or their\n"
    "                        particles' positions\n"
    "  --validation V        off, on or sync (default: EDDY_VALIDATION, else off); any message\n"
    "                        fails the run\n"
    "mouse: left drag orbit, middle (or shift + left) pan, wheel zoom, right (or ctrl + left)\n"
    "drag the scene's tool; keys: space pause, N step, R reset, + - steps a frame, C colour,\n"
    "Q or Esc quit\n";

static bool parse(int argc, char **argv, view_opts *o)
{
    *o = (view_opts){ .width = 960, .height = 600, .steps_per_frame = 1 };
    const char *env = getenv("EDDY_VALIDATION");
    o->validation = env && !strcmp(env, "sync") ? 2 : env && !strcmp(env, "on") ? 1 : 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL, *expect = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_text, stdout);
            exit(0);
        }
        if (a[0] != '-') {
            if (o->scene) {
                fprintf(stderr, "eddy error [cli.usage]: view: two scenes given ('%s', '%s'); expected one\n",
                        o->scene, a);
                return false;
            }
            o->scene = a;
            continue;
        }
        if (!strcmp(a, "--offscreen") || !strcmp(a, "--screenshot") || !strcmp(a, "--events") || !strcmp(a, "--log")) {
            expect = "a file name";
            if (val && *val)
                *(!strcmp(a, "--offscreen") ? &o->offscreen : !strcmp(a, "--screenshot") ? &o->screenshot
                  : !strcmp(a, "--events") ? &o->events : &o->log) = val, expect = NULL;
        } else if (!strcmp(a, "--frames")) {
            char *end;
            unsigned long long n = val ? strtoull(val, &end, 10) : 0;
            expect = "a whole number of frames, 0 to 100000000";
            if (val && *val >= '0' && *val <= '9' && !*end && n <= 100000000ull)
                o->frames = n, expect = NULL;
        } else if (!strcmp(a, "--steps-per-frame")) {
            char *end;
            unsigned long n = val ? strtoul(val, &end, 10) : 0;
            expect = "a whole number of steps, 1 to 1000";
            if (val && *val >= '1' && *val <= '9' && !*end && n <= EDDY_SCENE_RECORD_MAX_STEPS)
                o->steps_per_frame = (uint32_t)n, expect = NULL;
        } else if (!strcmp(a, "--size")) {
            unsigned w, h;
            char tail;
            expect = "WxH, each 64 to 8192 pixels";
            if (val && sscanf(val, "%ux%u%c", &w, &h, &tail) == 2 && w >= 64 && h >= 64 && w <= 8192 && h <= 8192)
                o->width = w, o->height = h, expect = NULL;
        } else if (!strcmp(a, "--color")) {
            const char *modes[4] = { "speed", "density", "set", "phase" };
            expect = "speed, density, set or phase";
            for (int k = 0; val && k < 4; k++)
                if (!strcmp(val, modes[k]))
                    o->colour = k, o->colour_set = true, expect = NULL;
        } else if (!strcmp(a, "--range")) {
            char tail;
            expect = "MIN,MAX with MIN < MAX, finite";
            if (val && sscanf(val, "%lf,%lf%c", &o->range[0], &o->range[1], &tail) == 2 && isfinite(o->range[0]) &&
                isfinite(o->range[1]) && o->range[1] > o->range[0])
                o->range_set = true, expect = NULL;
        } else if (!strcmp(a, "--solids")) {
            expect = "on or off";
            if (val && (!strcmp(val, "on") || !strcmp(val, "off")))
                o->no_solids = !strcmp(val, "off"), expect = NULL;
        } else if (!strcmp(a, "--bodies")) {
            expect = "on or off";
            if (val && (!strcmp(val, "on") || !strcmp(val, "off")))
                o->no_bodies = !strcmp(val, "off"), expect = NULL;
        } else if (!strcmp(a, "--validation")) {
            expect = "off, on or sync";
            if (val && (!strcmp(val, "off") || !strcmp(val, "on") || !strcmp(val, "sync")))
                o->validation = !strcmp(val, "sync") ? 2 : !strcmp(val, "on") ? 1 : 0, expect = NULL;
        } else {
            fprintf(stderr, "eddy error [cli.usage]: view: unknown option '%s'\n%s", a, usage_text);
            return false;
        }
        if (expect) {
            fprintf(stderr, "eddy error [cli.usage]: view: %s %s: expected %s\n", a, val ? val : "(nothing)", expect);
            return false;
        }
        i++;
    }
    if (!o->scene) {
        fprintf(stderr, "eddy error [cli.usage]: view: no scene given\n%s", usage_text);
        return false;
    }
    if (o->offscreen && o->screenshot) {
        fprintf(stderr, "eddy error [cli.usage]: view: --screenshot is for a window; --offscreen writes its own PNG\n");
        return false;
    }
    if (o->offscreen && !o->frames)
        o->frames = 60;
    return true;
}

int eddy_view_main(int argc, char **argv)
{
    viewer v = { 0 };
    if (!parse(argc, argv, &v.o))
        return 2;
    static char found[4352];
    if (eddy_tool_find_scene(v.o.scene, found, sizeof found))
        v.o.scene = found;
    if (v.o.events && !read_events(&v, v.o.events)) {
        free(v.events);
        return 2;
    }
    v.width = v.o.width, v.height = v.o.height;
    bool windowed = !v.o.offscreen;
#ifdef EDDY_HAVE_GLFW
    if (windowed) {
        if (!glfwInit()) {
            fprintf(stderr, "eddy error [view.no_display]: view: no display for a window (GLFW could not start); "
                    "use --offscreen FILE.png\n");
            free(v.events);
            return 1;
        }
        glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
        glfwWindowHint(GLFW_RESIZABLE, GLFW_FALSE);
        v.window = glfwCreateWindow((int)v.width, (int)v.height, "eddy view", NULL, NULL);
        if (!v.window) {
            fprintf(stderr, "eddy error [view.no_display]: view: the window could not be created; use --offscreen\n");
            glfwTerminate();
            free(v.events);
            return 1;
        }
        glfwSetWindowUserPointer(v.window, &v);
        glfwSetMouseButtonCallback(v.window, on_button);
        glfwSetCursorPosCallback(v.window, on_move);
        glfwSetScrollCallback(v.window, on_scroll);
        glfwSetKeyCallback(v.window, on_key);
    }
#else
    if (windowed) {
        fprintf(stderr, "eddy error [view.no_display]: view: this eddy was built without GLFW; use --offscreen "
                "FILE.png\n");
        free(v.events);
        return 1;
    }
#endif
    bool ok = view_make_device(&v, windowed) && (!windowed || view_make_swapchain(&v)) && view_make_pipelines(&v) &&
              view_make_targets(&v);
    VkSemaphoreTypeCreateInfo tci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                      .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE };
    VkSemaphoreCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &tci };
    VkSemaphoreCreateInfo bsci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO };
    VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = v.family };
    ok = ok && VKV(vkCreateSemaphore(v.dev, &sci, NULL, &v.timeline)) &&
         VKV(vkCreateSemaphore(v.dev, &bsci, NULL, &v.acquired)) && VKV(vkCreateCommandPool(v.dev, &pci, NULL, &v.pool));
    VkCommandBufferAllocateInfo cai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = v.pool,
                                        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1 };
    ok = ok && VKV(vkAllocateCommandBuffers(v.dev, &cai, &v.cb));
    if (ok) {
        v.e = eddy_create_engine(&(eddy_engine_desc){ EDDY_SIZED(eddy_engine_desc),
            .adopt = &(eddy_adopt_desc){ EDDY_SIZED(eddy_adopt_desc), .instance = v.instance, .physical_device = v.pd, .device = v.dev, .queue = v.queue,
                       .queue_family = v.family, .get_instance_proc_addr = vkGetInstanceProcAddr,
                       .api_version = VK_API_VERSION_1_2, .debug_utils_enabled = v.o.validation != 0 },
            .log = view_log, .log_user = &v });
        ok = v.e && eddy_register_builtin_modules(v.e) == EDDY_OK && load(&v);
    }
    if (ok && v.o.log) {
        v.log = fopen(v.o.log, "w");
        if (!v.log)
            fprintf(stderr, "eddy error [output.write]: view: %s: %s\n", v.o.log, strerror(errno));
        else
            fprintf(v.log, "frame,time,tool_x,tool_y,tool_z,force_x,force_y,force_z\n");
        ok = v.log != NULL;
    }
    if (ok)
        fprintf(stderr, "eddy view: '%s' on %s, %ux%u %s, %s camera, colour %s %g..%g\n",
                eddy_scene_get_info(v.scene).name, eddy_engine_device(v.e)->name, v.width, v.height,
                windowed ? "window" : "offscreen", v.scene_camera ? "the scene's" : "the default",
                (const char *[]){ "speed", "density", "set", "phase" }[v.o.colour & 3],
                v.o.range_set ? v.o.range[0] : 0, v.o.range_set ? v.o.range[1] : 0);
    double start = now_s(), rate_t = start;
    uint64_t rate_steps = 0;
    while (ok && !v.quit && (!v.o.frames || v.frame < v.o.frames)) {
#ifdef EDDY_HAVE_GLFW
        if (v.window) {
            glfwPollEvents();
            if (glfwWindowShouldClose(v.window))
                break;
        }
#endif
        replay(&v);
        if (v.reset) {
            eddy_destroy_scene(v.scene); /* eddy keeps what the GPU may still use */
            ok = load(&v);
            v.reset = false;
            if (!ok)
                break;
        }
        uint64_t before = eddy_scene_get_info(v.scene).steps_done;
        double t0 = now_s();
        bool last = v.o.frames && v.frame + 1 == v.o.frames;
        ok = frame(&v, last && (v.o.screenshot || v.o.offscreen));
        v.frame_ms_sum += 1e3 * (now_s() - t0);
        rate_steps += eddy_scene_get_info(v.scene).steps_done - before;
        if (now_s() - rate_t > 0.5) {
            v.last_rate = (double)rate_steps / (now_s() - rate_t);
            rate_t = now_s(), rate_steps = 0;
        }
        if (ok && v.log) {
            double tool[3] = { 0, 0, 0 };
            if (v.tool_system)
                eddy_scene_input(v.scene, v.tool_system, v.tool_input, tool);
            fprintf(v.log, "%" PRIu64 ",%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", v.frame,
                    eddy_scene_get_info(v.scene).time, tool[0], tool[1], tool[2], v.has_force ? v.force[0] : 0,
                    v.has_force ? v.force[1] : 0, v.has_force ? v.force[2] : 0);
        }
    }
    const char *png = v.o.offscreen ? v.o.offscreen : v.o.screenshot;
    if (ok && png && v.o.frames && v.frame == v.o.frames)
        ok = view_write_png(&v, png);
    if (v.scene) {
        eddy_scene_info info = eddy_scene_get_info(v.scene);
        printf("view: %" PRIu64 " frames, %.2f ms a frame (mean, wall), t = %.4g s, %" PRIu64 " steps, %u particles, "
               "%u set(s) from body transforms, %u surface mesh(es), %ux%u %s%s%s, %u validation messages\n", v.frame,
               v.frame ? v.frame_ms_sum / (double)v.frame : 0.0, info.time, info.steps_done, info.particle_count,
               v.body_sets, v.mesh_draws, v.width, v.height, windowed ? "window" : "offscreen", png && ok ? ", wrote " : "",
               png && ok ? png : "", v.messages);
    }
    if (v.errors)
        fprintf(stderr, "eddy error [view.failed]: view: %u error(s) from eddy while viewing\n", v.errors);
    ok = ok && v.messages == 0 && v.errors == 0 && (!v.e || eddy_validation_message_count(v.e) == 0);
    view_destroy(&v);
#ifdef EDDY_HAVE_GLFW
    if (windowed)
        glfwTerminate();
#endif
    (void)start;
    return ok ? 0 : 1;
}
