/* eddy view's parts, between view.c (the scene, input, drawing and the
 * frame loop) and view_vk.c (the viewer's own Vulkan device, targets,
 * pipelines and teardown). */
#ifndef EDDY_VIEW_INTERNAL_H
#define EDDY_VIEW_INTERNAL_H

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


enum { MAX_IMAGES = 8, MAX_SETS = 64, BAR_MAX = 9 * 2 + 4, SOLID_VERTICES_MAX = 1 << 18, MAX_VIEWS = 8 };
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
    /* Systems that draw their own picture (eddy_scene_system_view: the
     * volume module), composited over the scene (view_volumes.c). */
    const char *view_systems[MAX_VIEWS];
    uint32_t view_count;
    eddy_system_view views_now[MAX_VIEWS]; /* this frame's */
    VkPipeline volumes;
    VkPipelineLayout volume_layout;
    VkDescriptorSetLayout volume_set_layout;
    VkDescriptorPool volume_pool;
    VkDescriptorSet volume_sets[MAX_VIEWS];
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
    bool scene_camera;                      /* the scene's output.images camera is in use */
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

/* view_vk.c: the viewer's own Vulkan objects. */
bool view_vk_ok(VkResult r, const char *what);
#define VKV(call) view_vk_ok((call), #call)
bool view_memory(viewer *v, VkMemoryRequirements req, VkMemoryPropertyFlags want, VkDeviceMemory *out);
bool view_make_image(viewer *v, VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect, VkImage *image,
                     VkDeviceMemory *mem, VkImageView *view);
bool view_make_buffer(viewer *v, VkDeviceSize size, VkBufferUsageFlags usage, VkBuffer *b, VkDeviceMemory *mem,
                      void **map);
bool view_make_device(viewer *v, bool windowed);
bool view_make_swapchain(viewer *v);
bool view_make_targets(viewer *v);
bool view_make_pipelines(viewer *v);
VkShaderModule view_shader(viewer *v, const uint32_t *code, size_t size);
/* view.c: the orbit camera: eye (m), right s, up u, forward f (unit). */
void view_camera(const viewer *v, double eye[3], double s[3], double u[3], double f[3]);

/* view_volumes.c: the systems with a picture of their own. */
/* The scene's systems whose module has a view (at most MAX_VIEWS). */
void view_volumes_find(viewer *v);
/* Whether a system's picture shows set p (the viewer draws it no other way). */
bool view_volumes_show(const viewer *v, eddy_particles p);
/* This frame's pictures from the viewer's camera; their descriptor sets. */
bool view_volumes_prepare(viewer *v);
/* Records the pictures' graphs into cb after the steps (the frame's
 * timeline value tells eddy when cb is done). */
bool view_volumes_record(viewer *v, VkCommandBuffer cb, uint64_t value);
/* Composites the pictures inside the render pass. */
void view_volumes_draw(viewer *v, VkCommandBuffer cb, push_view *pv);
/* The pipeline (view_make_pipelines) and its teardown (view_destroy). */
bool view_volumes_pipeline(viewer *v, VkPipelineVertexInputStateCreateInfo *no_input,
                           const VkGraphicsPipelineCreateInfo *like);
void view_volumes_destroy(viewer *v);

/* The readback (BGRA) as an RGBA PNG. */
bool view_write_png(viewer *v, const char *path);
/* Everything, the scene and engine first (the viewer's own device: it
 * waits for it). */
void view_destroy(viewer *v);

#endif
