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
#include "view.h"

#include "eddy/eddy.h"
#include "eddy/eddy_output.h"
#include "eddy/eddy_builtin.h"
#include "eddy/eddy_module.h"
#include "eddy/eddy_scene.h"

#include "paths.h"
#include "view_events.h"
#include "view_solids.h"

#ifdef EDDY_HAVE_GLFW
#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>
#else
#include <vulkan/vulkan.h>
#endif

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const uint32_t sphere_vert[] =
#include "sphere.vert.spv.inc"
    ;
static const uint32_t sphere_frag[] =
#include "sphere.frag.spv.inc"
    ;
static const uint32_t mesh_vert[] =
#include "mesh.vert.spv.inc"
    ;
static const uint32_t mesh_frag[] =
#include "mesh.frag.spv.inc"
    ;

enum { MAX_IMAGES = 8, MAX_SETS = 64, BAR_MAX = 9 * 2 + 4, SOLID_VERTICES_MAX = 1 << 18 };
static const VkFormat COLOUR_FORMAT = VK_FORMAT_B8G8R8A8_UNORM, DEPTH_FORMAT = VK_FORMAT_D32_SFLOAT;

typedef struct push_view {
    float view[16];
    float proj[4]; /* f / aspect, -f, and depth = proj[2] z + proj[3] (Vulkan clip, w = -z) */
    float colour[4]; /* mode, range min, range max, set index */
    float extra[4];  /* radius when position.w is 0 */
} push_view;

typedef struct view_opts {
    const char *scene, *offscreen, *screenshot, *events, *log;
    uint32_t width, height;
    uint64_t frames;          /* 0: until the window closes */
    uint32_t steps_per_frame; /* default 1 */
    int colour;               /* 0 speed, 1 density, 2 set, 3 phase */
    bool colour_set;          /* --color given (else the scene's output.images) */
    double range[2];
    bool range_set;
    int validation;           /* 0 off, 1 on, 2 sync */
    bool no_bodies;           /* rigid bodies from "position", not their transforms */
    bool no_solids;           /* the scene's solids left out */
} view_opts;

typedef struct viewer {
    view_opts o;
    /* Vulkan, the viewer's own */
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice pd;
    VkDevice dev;
    VkQueue queue;
    uint32_t family;
    uint32_t messages;
    /* eddy's errors (a system that fails every frame makes the viewer's
     * exit status non-zero); none counted while the viewer probes. */
    uint32_t errors;
    bool probing;
    VkSurfaceKHR surface;
    VkSwapchainKHR swapchain;
    uint32_t image_count;
    VkImage images[MAX_IMAGES];
    VkImageView views[MAX_IMAGES];
    VkFramebuffer framebuffers[MAX_IMAGES];
    VkSemaphore rendered[MAX_IMAGES];
    VkSemaphore acquired, timeline;
    VkImage offscreen, depth;
    VkDeviceMemory offscreen_mem, depth_mem, readback_mem, bar_mem;
    VkImageView depth_view;
    VkBuffer readback, bar, tool;         /* tool: the tool as one sphere instance */
    VkDeviceMemory tool_mem;
    VkBuffer solids;                      /* the scene's solids as triangles (view_solids.c) */
    VkDeviceMemory solids_mem;
    void *solids_map;
    uint32_t solid_vertices;
    void *readback_map, *bar_map, *tool_map;
    VkRenderPass pass;
    VkPipelineLayout layout;
    VkPipeline spheres, bodies, meshes;
    VkDescriptorSetLayout set_layout;  /* the rigid bodies' matrices (a storage buffer) */
    VkDescriptorPool descriptor_pool;
    VkDescriptorSet descriptors[MAX_SETS + 1]; /* per particle set; the last: the tool's */
    VkCommandPool pool;
    VkCommandBuffer cb;
    uint32_t width, height;
#ifdef EDDY_HAVE_GLFW
    GLFWwindow *window;
#endif
    /* eddy */
    eddy_engine *e;
    eddy_scene *scene;
    const char *tool_system, *tool_input, *tool_output, *tool_radius;
    /* view and input */
    double target[3], distance, yaw, pitch; /* orbit camera, m and radians */
    double fov;                             /* vertical field of view, radians */
    double mouse[2], press_mouse[2];
    int dragging; /* 0 none, 1 orbit, 2 pan, 3 tool */
    double tool_at_press[3], plane_at_press[3];
    bool paused, step_once, reset, quit;
    uint32_t body_sets; /* sets the last frame placed by their bodies' transforms */
    uint32_t mesh_draws; /* triangle element sets the last frame drew */
    uint64_t frame;
    double frame_ms_sum, last_rate;
    double force[3];
    bool has_force;
    view_event *events;
    uint32_t event_count, next_event;
    FILE *log;
} viewer;

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
static void camera(const viewer *v, double eye[3], double s[3], double u[3], double f[3])
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
    camera(v, eye, s, u, f);
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
    camera(v, eye, s, u, f);
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
        camera(v, eye, s, u, f);
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

/* ------------------------------------------------------------------ Vulkan */

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT types,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    (void)types;
    if (severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) {
        ((viewer *)user)->messages++;
        fprintf(stderr, "eddy warning [validation.reported]: view: %s\n", data->pMessage);
    }
    return VK_FALSE;
}

static bool vk_ok(VkResult r, const char *what)
{
    if (r != VK_SUCCESS)
        fprintf(stderr, "eddy error [vulkan.call]: view: %s failed (VkResult %d)\n", what, (int)r);
    return r == VK_SUCCESS;
}
#define VKV(call) vk_ok((call), #call)

static bool memory(viewer *v, VkMemoryRequirements req, VkMemoryPropertyFlags want, VkDeviceMemory *out)
{
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(v->pd, &mp);
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
        if ((req.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) {
            VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                                        .memoryTypeIndex = i };
            return VKV(vkAllocateMemory(v->dev, &ai, NULL, out));
        }
    fprintf(stderr, "eddy error [device.unsupported]: view: no memory type with flags 0x%x\n", want);
    return false;
}

static bool make_image(viewer *v, VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect,
                       VkImage *image, VkDeviceMemory *mem, VkImageView *view)
{
    VkImageCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                             .format = format, .extent = { v->width, v->height, 1 }, .mipLevels = 1,
                             .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
                             .usage = usage };
    if (!VKV(vkCreateImage(v->dev, &ci, NULL, image)))
        return false;
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(v->dev, *image, &req);
    if (!memory(v, req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, mem) || !VKV(vkBindImageMemory(v->dev, *image, *mem, 0)))
        return false;
    VkImageViewCreateInfo vci = { .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = *image,
                                  .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = format,
                                  .subresourceRange = { aspect, 0, 1, 0, 1 } };
    return VKV(vkCreateImageView(v->dev, &vci, NULL, view));
}

static bool make_buffer(viewer *v, VkDeviceSize size, VkBufferUsageFlags usage, VkBuffer *b, VkDeviceMemory *mem,
                        void **map)
{
    VkBufferCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size, .usage = usage };
    if (!VKV(vkCreateBuffer(v->dev, &ci, NULL, b)))
        return false;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(v->dev, *b, &req);
    return memory(v, req, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, mem) &&
           VKV(vkBindBufferMemory(v->dev, *b, *mem, 0)) && VKV(vkMapMemory(v->dev, *mem, 0, VK_WHOLE_SIZE, 0, map));
}

static bool make_device(viewer *v, bool windowed)
{
    const char *exts[8];
    uint32_t n_ext = 0;
#ifdef EDDY_HAVE_GLFW
    if (windowed) {
        uint32_t n = 0;
        const char **req = glfwGetRequiredInstanceExtensions(&n);
        for (uint32_t i = 0; req && i < n && n_ext < 6; i++)
            exts[n_ext++] = req[i];
    }
#endif
    if (v->o.validation)
        exts[n_ext++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    const char *layer = "VK_LAYER_KHRONOS_validation";
    VkValidationFeatureEnableEXT sync = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    VkValidationFeaturesEXT features = { .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
                                         .enabledValidationFeatureCount = 1, .pEnabledValidationFeatures = &sync };
    VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "eddy view",
                              .apiVersion = VK_API_VERSION_1_2 };
    VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                 .pNext = v->o.validation == 2 ? &features : NULL, .pApplicationInfo = &app,
                                 .enabledLayerCount = v->o.validation ? 1 : 0, .ppEnabledLayerNames = &layer,
                                 .enabledExtensionCount = n_ext, .ppEnabledExtensionNames = exts };
    if (!VKV(vkCreateInstance(&ici, NULL, &v->instance)))
        return false;
    if (v->o.validation) {
        VkDebugUtilsMessengerCreateInfoEXT mci = {
            .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
            .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
            .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
            .pfnUserCallback = on_message, .pUserData = v };
        PFN_vkCreateDebugUtilsMessengerEXT create =
            (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(v->instance, "vkCreateDebugUtilsMessengerEXT");
        if (!create || !VKV(create(v->instance, &mci, NULL, &v->messenger)))
            return false;
    }
#ifdef EDDY_HAVE_GLFW
    if (windowed && !VKV(glfwCreateWindowSurface(v->instance, v->window, NULL, &v->surface)))
        return false;
#endif
    /* The first device with a family that does graphics and compute (and
     * presents to the window). */
    VkPhysicalDevice pds[16];
    uint32_t n_pd = 16;
    VkResult er = vkEnumeratePhysicalDevices(v->instance, &n_pd, pds);
    if (er != VK_SUCCESS && er != VK_INCOMPLETE)
        return vk_ok(er, "vkEnumeratePhysicalDevices");
    v->family = UINT32_MAX;
    for (uint32_t d = 0; d < n_pd && v->family == UINT32_MAX; d++) {
        VkQueueFamilyProperties fams[16];
        uint32_t nf = 16;
        vkGetPhysicalDeviceQueueFamilyProperties(pds[d], &nf, fams);
        for (uint32_t i = 0; i < nf && v->family == UINT32_MAX; i++) {
            VkBool32 present = VK_TRUE;
            if (v->surface)
                vkGetPhysicalDeviceSurfaceSupportKHR(pds[d], i, v->surface, &present);
            const VkQueueFlags gc = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
            if ((fams[i].queueFlags & gc) == gc && present)
                v->pd = pds[d], v->family = i;
        }
    }
    if (v->family == UINT32_MAX) {
        fprintf(stderr, "eddy error [device.none]: view: no Vulkan device with a queue that draws, computes%s\n",
                v->surface ? " and presents to the window" : "");
        return false;
    }
    float priority = 1;
    VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = v->family,
                                    .queueCount = 1, .pQueuePriorities = &priority };
    VkPhysicalDeviceVulkan12Features f12 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                             .timelineSemaphore = VK_TRUE };
    const char *swapchain = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
    VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f12,
                               .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci,
                               .enabledExtensionCount = v->surface ? 1 : 0, .ppEnabledExtensionNames = &swapchain };
    if (!VKV(vkCreateDevice(v->pd, &dci, NULL, &v->dev)))
        return false;
    vkGetDeviceQueue(v->dev, v->family, 0, &v->queue);
    return true;
}

static bool make_swapchain(viewer *v)
{
    VkSurfaceCapabilitiesKHR caps;
    if (!VKV(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(v->pd, v->surface, &caps)))
        return false;
    VkSurfaceFormatKHR formats[64];
    uint32_t nf = 64;
    vkGetPhysicalDeviceSurfaceFormatsKHR(v->pd, v->surface, &nf, formats);
    bool found = false;
    for (uint32_t i = 0; i < nf; i++)
        found |= formats[i].format == COLOUR_FORMAT && formats[i].colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR;
    const VkImageUsageFlags usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                    VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    if (!found || (caps.supportedUsageFlags & usage) != usage) {
        fprintf(stderr, "eddy error [device.unsupported]: view: the window's surface offers no B8G8R8A8_UNORM "
                "swapchain with colour attachment and transfer use\n");
        return false;
    }
    if (caps.currentExtent.width != UINT32_MAX)
        v->width = caps.currentExtent.width, v->height = caps.currentExtent.height;
    uint32_t count = caps.minImageCount + 1;
    if (caps.maxImageCount && count > caps.maxImageCount)
        count = caps.maxImageCount;
    VkSwapchainCreateInfoKHR sci = { .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR, .surface = v->surface,
                                     .minImageCount = count, .imageFormat = COLOUR_FORMAT,
                                     .imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR,
                                     .imageExtent = { v->width, v->height }, .imageArrayLayers = 1,
                                     .imageUsage = usage, .preTransform = caps.currentTransform,
                                     .compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
                                     .presentMode = VK_PRESENT_MODE_FIFO_KHR, .clipped = VK_TRUE };
    if (!VKV(vkCreateSwapchainKHR(v->dev, &sci, NULL, &v->swapchain)))
        return false;
    v->image_count = MAX_IMAGES;
    return VKV(vkGetSwapchainImagesKHR(v->dev, v->swapchain, &v->image_count, v->images));
}

static bool make_targets(viewer *v)
{
    if (!v->surface) {
        v->image_count = 1;
        if (!make_image(v, COLOUR_FORMAT, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                        VK_IMAGE_USAGE_TRANSFER_DST_BIT, VK_IMAGE_ASPECT_COLOR_BIT, &v->offscreen, &v->offscreen_mem,
                        &v->views[0]))
            return false;
        v->images[0] = v->offscreen;
    } else {
        for (uint32_t i = 0; i < v->image_count; i++) {
            VkImageViewCreateInfo vci = { .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = v->images[i],
                                          .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = COLOUR_FORMAT,
                                          .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 } };
            if (!VKV(vkCreateImageView(v->dev, &vci, NULL, &v->views[i])))
                return false;
        }
    }
    if (!make_image(v, DEPTH_FORMAT, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_IMAGE_ASPECT_DEPTH_BIT, &v->depth,
                    &v->depth_mem, &v->depth_view))
        return false;
    VkSemaphoreCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO };
    for (uint32_t i = 0; i < v->image_count; i++) {
        VkImageView att[2] = { v->views[i], v->depth_view };
        VkFramebufferCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO, .renderPass = v->pass,
                                        .attachmentCount = 2, .pAttachments = att, .width = v->width,
                                        .height = v->height, .layers = 1 };
        if (!VKV(vkCreateFramebuffer(v->dev, &fci, NULL, &v->framebuffers[i])) ||
            (v->surface && !VKV(vkCreateSemaphore(v->dev, &sci, NULL, &v->rendered[i]))))
            return false;
    }
    return make_buffer(v, 4ull * v->width * v->height, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &v->readback,
                       &v->readback_mem, &v->readback_map) &&
           make_buffer(v, 4ull * v->width * BAR_MAX, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &v->bar, &v->bar_mem,
                       &v->bar_map) &&
           make_buffer(v, 64, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &v->tool,
                       &v->tool_mem, &v->tool_map) &&
           make_buffer(v, 16ull * SOLID_VERTICES_MAX, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &v->solids, &v->solids_mem,
                       &v->solids_map);
}

static VkShaderModule shader(viewer *v, const uint32_t *code, size_t size)
{
    VkShaderModuleCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size,
                                    .pCode = code };
    VkShaderModule m = VK_NULL_HANDLE;
    VKV(vkCreateShaderModule(v->dev, &ci, NULL, &m));
    return m;
}

static bool make_pipelines(viewer *v)
{
    VkAttachmentDescription att[2] = {
        { .format = COLOUR_FORMAT, .samples = VK_SAMPLE_COUNT_1_BIT, .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
          .storeOp = VK_ATTACHMENT_STORE_OP_STORE, .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
          .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
          .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL },
        { .format = DEPTH_FORMAT, .samples = VK_SAMPLE_COUNT_1_BIT, .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
          .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
          .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
          .finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL },
    };
    VkAttachmentReference colour = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
    VkAttachmentReference depth = { 1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL };
    VkSubpassDescription sub = { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .colorAttachmentCount = 1,
                                 .pColorAttachments = &colour, .pDepthStencilAttachment = &depth };
    /* Before: the last frame's copies out of and into the image, its depth
     * writes, and the acquire's wait (colour output). After: the text bar's
     * copy into the image. */
    const VkPipelineStageFlags frag = VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                                      VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
    VkSubpassDependency deps[2] = {
        { VK_SUBPASS_EXTERNAL, 0,
          VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT | frag,
          VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | frag,
          VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
          VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
              VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, 0 },
        { 0, VK_SUBPASS_EXTERNAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, 0 },
    };
    VkRenderPassCreateInfo rpci = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, .attachmentCount = 2,
                                    .pAttachments = att, .subpassCount = 1, .pSubpasses = &sub,
                                    .dependencyCount = 2, .pDependencies = deps };
    if (!VKV(vkCreateRenderPass(v->dev, &rpci, NULL, &v->pass)))
        return false;
    VkDescriptorSetLayoutBinding matrices = { 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT,
                                              NULL };
    VkDescriptorSetLayoutCreateInfo dslci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                              .bindingCount = 1, .pBindings = &matrices };
    VkDescriptorPoolSize pool_size = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, MAX_SETS + 1 };
    VkDescriptorPoolCreateInfo dpci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                        .maxSets = MAX_SETS + 1, .poolSizeCount = 1, .pPoolSizes = &pool_size };
    if (!VKV(vkCreateDescriptorSetLayout(v->dev, &dslci, NULL, &v->set_layout)) ||
        !VKV(vkCreateDescriptorPool(v->dev, &dpci, NULL, &v->descriptor_pool)))
        return false;
    VkDescriptorSetLayout layouts[MAX_SETS + 1];
    for (int i = 0; i <= MAX_SETS; i++)
        layouts[i] = v->set_layout;
    VkDescriptorSetAllocateInfo dsai = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                         .descriptorPool = v->descriptor_pool, .descriptorSetCount = MAX_SETS + 1,
                                         .pSetLayouts = layouts };
    VkPushConstantRange range = { VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(push_view) };
    VkPipelineLayoutCreateInfo plci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                        .setLayoutCount = 1, .pSetLayouts = &v->set_layout,
                                        .pushConstantRangeCount = 1, .pPushConstantRanges = &range };
    if (!VKV(vkAllocateDescriptorSets(v->dev, &dsai, v->descriptors)) ||
        !VKV(vkCreatePipelineLayout(v->dev, &plci, NULL, &v->layout)))
        return false;
    /* Spheres: position, velocity, phase and density, one of each per
     * instance, from the set's buffers as they are. */
    VkVertexInputBindingDescription sb[5] = { { 0, 16, VK_VERTEX_INPUT_RATE_INSTANCE },
                                              { 1, 16, VK_VERTEX_INPUT_RATE_INSTANCE },
                                              { 2, 4, VK_VERTEX_INPUT_RATE_INSTANCE },
                                              { 3, 4, VK_VERTEX_INPUT_RATE_INSTANCE },
                                              { 4, 16, VK_VERTEX_INPUT_RATE_INSTANCE } };
    VkVertexInputAttributeDescription sa[5] = { { 0, 0, VK_FORMAT_R32G32B32A32_SFLOAT, 0 },
                                                { 1, 1, VK_FORMAT_R32G32B32A32_SFLOAT, 0 },
                                                { 2, 2, VK_FORMAT_R32_UINT, 0 },
                                                { 3, 3, VK_FORMAT_R32_SFLOAT, 0 },
                                                { 4, 4, VK_FORMAT_R32G32B32A32_SFLOAT, 0 } };
    VkVertexInputBindingDescription mb = { 0, 16, VK_VERTEX_INPUT_RATE_VERTEX };
    VkPipelineVertexInputStateCreateInfo vin[2] = {
        { .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO, .vertexBindingDescriptionCount = 5,
          .pVertexBindingDescriptions = sb, .vertexAttributeDescriptionCount = 5, .pVertexAttributeDescriptions = sa },
        { .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO, .vertexBindingDescriptionCount = 1,
          .pVertexBindingDescriptions = &mb, .vertexAttributeDescriptionCount = 1, .pVertexAttributeDescriptions = sa },
    };
    VkPipelineInputAssemblyStateCreateInfo ia = { .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
                                                  .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST };
    VkPipelineViewportStateCreateInfo vp = { .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
                                             .viewportCount = 1, .scissorCount = 1 };
    VkDynamicState dyn[2] = { VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR };
    VkPipelineDynamicStateCreateInfo ds = { .sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
                                            .dynamicStateCount = 2, .pDynamicStates = dyn };
    VkPipelineRasterizationStateCreateInfo rs = { .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
                                                  .polygonMode = VK_POLYGON_MODE_FILL, .lineWidth = 1 };
    VkPipelineMultisampleStateCreateInfo ms = { .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
                                                .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT };
    VkPipelineDepthStencilStateCreateInfo dss = { .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
                                                  .depthTestEnable = VK_TRUE, .depthWriteEnable = VK_TRUE,
                                                  .depthCompareOp = VK_COMPARE_OP_LESS };
    VkPipelineColorBlendAttachmentState blend = { .colorWriteMask = 0xf };
    VkPipelineColorBlendStateCreateInfo cbs = { .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
                                                .attachmentCount = 1, .pAttachments = &blend };
    VkShaderModule mods[4] = { shader(v, sphere_vert, sizeof sphere_vert), shader(v, sphere_frag, sizeof sphere_frag),
                               shader(v, mesh_vert, sizeof mesh_vert), shader(v, mesh_frag, sizeof mesh_frag) };
    bool ok = mods[0] && mods[1] && mods[2] && mods[3];
    /* Three pipelines: spheres, spheres placed by their bodies' transforms
     * (the specialization constant BODIES), surfaces. */
    VkPipeline *out[3] = { &v->spheres, &v->bodies, &v->meshes };
    for (int p = 0; ok && p < 3; p++) {
        int m = p == 2; /* the mesh shaders for the last */
        VkBool32 bodies = p == 1;
        VkSpecializationMapEntry entry = { 0, 0, sizeof bodies };
        VkSpecializationInfo spec = { 1, &entry, sizeof bodies, &bodies };
        VkPipelineShaderStageCreateInfo st[2] = {
            { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
              .module = mods[2 * m], .pName = "main", .pSpecializationInfo = m ? NULL : &spec },
            { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
              .module = mods[2 * m + 1], .pName = "main" },
        };
        VkGraphicsPipelineCreateInfo gp = { .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, .stageCount = 2,
                                            .pStages = st, .pVertexInputState = &vin[m], .pInputAssemblyState = &ia,
                                            .pViewportState = &vp, .pRasterizationState = &rs,
                                            .pMultisampleState = &ms, .pDepthStencilState = &dss,
                                            .pColorBlendState = &cbs, .pDynamicState = &ds, .layout = v->layout,
                                            .renderPass = v->pass };
        ok = VKV(vkCreateGraphicsPipelines(v->dev, VK_NULL_HANDLE, 1, &gp, NULL, out[p]));
    }
    for (int i = 0; i < 4; i++)
        vkDestroyShaderModule(v->dev, mods[i], NULL);
    return ok;
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
    v->fov = FOV_Y;
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
            return vk_ok(r, "vkAcquireNextImageKHR");
    }
    if (!VKV(vkResetCommandPool(v->dev, v->pool, 0)))
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
            return vk_ok(r, "vkQueuePresentKHR");
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

/* The readback (BGRA) as an RGBA PNG. */
static bool write_png(viewer *v, const char *path)
{
    uint8_t *rgba = malloc(4ull * v->width * v->height);
    if (!rgba)
        return false;
    const uint8_t *src = v->readback_map;
    for (size_t i = 0; i < (size_t)v->width * v->height; i++) {
        rgba[4 * i] = src[4 * i + 2];
        rgba[4 * i + 1] = src[4 * i + 1];
        rgba[4 * i + 2] = src[4 * i];
        rgba[4 * i + 3] = 255;
    }
    bool ok = eddy_write_png(v->e, path, rgba, v->width, v->height) == EDDY_OK;
    free(rgba);
    return ok;
}

static void destroy(viewer *v)
{
    if (v->dev)
        vkDeviceWaitIdle(v->dev); /* the viewer's own device: nobody else's work on it */
    eddy_destroy_scene(v->scene);
    eddy_destroy_engine(v->e);
    if (v->dev) {
        VkDevice d = v->dev;
        vkDestroyPipeline(d, v->spheres, NULL);
        vkDestroyPipeline(d, v->meshes, NULL);
        vkDestroyPipeline(d, v->bodies, NULL);
        vkDestroyDescriptorPool(d, v->descriptor_pool, NULL);
        vkDestroyDescriptorSetLayout(d, v->set_layout, NULL);
        vkDestroyPipelineLayout(d, v->layout, NULL);
        for (uint32_t i = 0; i < MAX_IMAGES; i++) {
            vkDestroyFramebuffer(d, v->framebuffers[i], NULL);
            vkDestroyImageView(d, v->views[i], NULL);
            vkDestroySemaphore(d, v->rendered[i], NULL);
        }
        vkDestroyRenderPass(d, v->pass, NULL);
        vkDestroyImageView(d, v->depth_view, NULL);
        vkDestroyImage(d, v->depth, NULL);
        vkDestroyImage(d, v->offscreen, NULL);
        vkDestroyBuffer(d, v->readback, NULL);
        vkDestroyBuffer(d, v->bar, NULL);
        vkDestroyBuffer(d, v->tool, NULL);
        vkDestroyBuffer(d, v->solids, NULL);
        VkDeviceMemory mems[6] = { v->depth_mem, v->offscreen_mem, v->readback_mem, v->bar_mem, v->tool_mem,
                                   v->solids_mem };
        for (int i = 0; i < 6; i++)
            vkFreeMemory(d, mems[i], NULL);
        vkDestroySemaphore(d, v->acquired, NULL);
        vkDestroySemaphore(d, v->timeline, NULL);
        vkDestroyCommandPool(d, v->pool, NULL);
        if (v->swapchain)
            vkDestroySwapchainKHR(d, v->swapchain, NULL);
        vkDestroyDevice(d, NULL);
    }
    if (v->surface)
        vkDestroySurfaceKHR(v->instance, v->surface, NULL);
    if (v->messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT fn = (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
            v->instance, "vkDestroyDebugUtilsMessengerEXT");
        fn(v->instance, v->messenger, NULL);
    }
    if (v->instance)
        vkDestroyInstance(v->instance, NULL);
#ifdef EDDY_HAVE_GLFW
    if (v->window)
        glfwDestroyWindow(v->window);
#endif
    if (v->log)
        fclose(v->log);
    free(v->events);
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
    bool ok = make_device(&v, windowed) && (!windowed || make_swapchain(&v)) && make_pipelines(&v) &&
              make_targets(&v);
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
                windowed ? "window" : "offscreen", v.fov != FOV_Y ? "the scene's" : "the default",
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
        ok = write_png(&v, png);
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
    destroy(&v);
#ifdef EDDY_HAVE_GLFW
    if (windowed)
        glfwTerminate();
#endif
    (void)start;
    return ok ? 0 : 1;
}
