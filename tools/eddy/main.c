/* eddy: the command line tool. `eddy help` lists the commands. */
#include "eddy/eddy.h"
#include <vulkan/vulkan_core.h>
#include "eddy/eddy_module.h"
#include "eddy/eddy_scene.h"
#include "eddy/eddy_bench.h"
#include "eddy/eddy_builtin.h"

#include "bench.h"
#include "bench_dist.h"
#include "cli_options.h"
#include "run_checkpoint.h"
#include "run_mpi.h"
#include "bench_model.h"
#include "paths.h"
#include "view.h"
#include "voxelize.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *usage_head =
    "usage:\n"
    "  eddy devices                      list Vulkan devices (* = the default choice)\n"
    "  eddy modules [--module LIB.so]    list modules with their parameters\n"
    "  eddy run SCENE.json [options]     run a scene (or NAME: the example scene NAME.json,\n"
    "                                    installed under PREFIX/share/eddy/scenes)\n"
    "      --out DIR          output folder (default out/<scene name>)\n"
    "      --device X         device index or part of its name (default: EDDY_DEVICE, else\n"
    "                         the best: discrete GPU, integrated, virtual, CPU)\n"
    "      --steps N          run N steps instead of the scene's duration\n"
    "      --profile          per-pass GPU times at the end\n"
    "      --module LIB.so    load a module from a shared library (repeatable)\n"
    "      --validation V     off, on or sync (default: EDDY_VALIDATION, else off)\n"
    "      --no-output        write nothing (timing runs)\n"
    "      --allow-plugins    load the module libraries the scene's \"plugins\" names\n"
    "      --quiet            no progress line\n"
    "      --checkpoint-every S  a checkpoint (HDF5, docs/checkpoint.md) in the output folder every S\n"
    "                         simulated seconds; the newest 2 are kept (--checkpoint-keep K)\n"
    "      --checkpoint-wall M   also one every M wall-clock minutes\n"
    "      --resume PATH      continue from a checkpoint file, or the newest valid one of an output\n"
    "                         folder (SCENE may then be left out); SIGTERM or SIGINT stop a run at\n"
    "                         the next step with a checkpoint and exit status 75\n"
    "  eddy graph SCENE.json... [--dot FILE] [--device X] [--module LIB.so] [--allow-plugins]\n"
    "                                    each scene's step graph: its systems' passes in order, the\n"
    "                                    buffers each reads and writes, where the barriers fall and\n"
    "                                    what repeats; --dot FILE: one scene's as Graphviz DOT\n"
    "                                    (dot -Tsvg FILE > graph.svg)\n"
    "  eddy view SCENE.json [options]    watch and steer the scene live in a window, or render it\n"
    "                                    offscreen to PNG (`eddy view --help` lists the options)\n"
    "  eddy haptic SCENE.json [options] a 1 kHz haptic loop on the scene's tool, the device\n"
    "                                    played by the scene's tool path in wall-clock time;\n"
    "                                    options of run, and:\n"
    "      --system NAME      the system with the tool path (default: the scene's first)\n"
    "      --seconds S        wall-clock seconds to run (default: the scene's duration)\n"
    "      --rate HZ          force samples per second (default 1000)\n";
/* eddy bench's lines come from its cases (bench.c). */
static const char *usage_tail =
    "  eddy voxelize MESH.obj --diameter D [--scale S] [--density RHO] [--surface-only]\n"
    "                [--max-bytes N] [--out FILE.csv|FILE.vtk]\n"
    "                                    a closed mesh to particles of diameter D (m) as the\n"
    "                                    rigid module builds bodies: count, volume, mass,\n"
    "                                    centre of mass and inertia; points to FILE; at most\n"
    "                                    N bytes of host memory (default 1 GiB)\n"
    "  eddy version                      the version, and the folders of the data and the\n"
    "                                    example scenes\n";

static void print_usage(FILE *f)
{
    fputs(usage_head, f);
    eddy_bench_usage(f);
    fputs(usage_tail, f);
}

static const char *type_name(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
    default: return "other";
    }
}

static int cmd_devices(void)
{
    eddy_device_info infos[32];
    int n = eddy_enumerate_devices(infos, 32);
    if (n < 0)
        return 1;
    if (n == 0) {
        fprintf(stderr, "eddy error [device.none]: no Vulkan device found (install mesa-vulkan-drivers for "
                        "lavapipe, or a GPU driver)\n");
        return 1;
    }
    /* The default choice, as eddy_create_engine makes it, without creating a device. */
    int best = -1, best_rank = -1;
    for (int i = 0; i < n && i < 32; i++) {
        int rank = infos[i].type == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU     ? 4
                   : infos[i].type == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ? 3
                   : infos[i].type == VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU    ? 2
                   : infos[i].type == VK_PHYSICAL_DEVICE_TYPE_CPU            ? 1
                                                                             : 0;
        if (infos[i].api_version >= VK_API_VERSION_1_2 && rank > best_rank) {
            best = i;
            best_rank = rank;
        }
    }
    for (int i = 0; i < n && i < 32; i++) {
        const eddy_device_info *d = &infos[i];
        printf("%c %d: %s (%s, Vulkan %u.%u.%u)\n", i == best ? '*' : ' ', i, d->name,
               type_name(d->type), VK_API_VERSION_MAJOR(d->api_version),
               VK_API_VERSION_MINOR(d->api_version), VK_API_VERSION_PATCH(d->api_version));
        printf("     device-local memory %.1f GiB, max storage buffer %.1f MiB, subgroup %u, "
               "max workgroup %u, push constants %u B, timestamps %s\n",
               (double)d->device_local_bytes / (1 << 30),
               (double)d->max_storage_buffer_range / (1 << 20), d->subgroup_size,
               d->max_workgroup_invocations, d->max_push_constants,
               d->timestamp_period_ns > 0 ? "yes" : "no");
    }
    const char *env = getenv("EDDY_DEVICE");
    if (env && *env)
        printf("EDDY_DEVICE=%s overrides the default choice\n", env);
    return 0;
}


static eddy_engine *make_engine(const options *o)
{
    eddy_validation v = EDDY_VALIDATION_DEFAULT;
    if (o->validation)
        v = !strcmp(o->validation, "sync") ? EDDY_VALIDATION_SYNC
            : !strcmp(o->validation, "on") ? EDDY_VALIDATION_ON
                                           : EDDY_VALIDATION_OFF;
    /* Over ranks: a device each, and the ranks' messages as one. */
    const char *device = o->device || getenv("EDDY_DEVICE") ? o->device : run_mpi_device();
    bool ranks = run_mpi_size() > 1;
    eddy_engine *e = eddy_create_engine(&(eddy_engine_desc){ EDDY_SIZED(eddy_engine_desc), .device = device,
        .validation = v, .log = ranks ? run_mpi_log : NULL });
    if (!e)
        return NULL;
    if (eddy_register_builtin_modules(e) != EDDY_OK) {
        eddy_destroy_engine(e);
        return NULL;
    }
    for (int i = 0; i < o->module_count; i++)
        if (eddy_load_module(e, o->modules[i]) != EDDY_OK) {
            eddy_destroy_engine(e);
            return NULL;
        }
    return e;
}

/* A list's type carries its shape ("list of 5": entries of 5 numbers), which
 * is what a scene author has to match; hence a buffer, not a name. */
static const char *param_type(const eddy_param_info *p, char *buf, size_t cap)
{
    switch (p->type) {
    case EDDY_PARAM_FLOAT: return "float";
    case EDDY_PARAM_INT: return "int";
    case EDDY_PARAM_BOOL: return "bool";
    case EDDY_PARAM_VEC3: return "vec3";
    case EDDY_PARAM_LIST:
        snprintf(buf, cap, "list of %u", (uint32_t)p->def[0]);
        return buf;
    }
    return "?";
}

static int cmd_modules(const options *o)
{
    eddy_engine *e = make_engine(o);
    if (!e)
        return 1;
    for (uint32_t i = 0; i < eddy_module_count(e); i++) {
        const eddy_module_desc *m = eddy_module_at(e, i);
        printf("%s %s: %s\n", m->name, m->version ? m->version : "", m->summary ? m->summary : "");
        for (uint32_t k = 0; k < m->slot_count; k++)
            printf("  slot %s (%u..%u sets): %s\n", m->slots[k].name, m->slots[k].min, m->slots[k].max,
                   m->slots[k].doc ? m->slots[k].doc : "");
        if (!m->slot_count)
            printf("  slot set (1..1 sets): the particle set it runs on\n");
        for (uint32_t k = 0; k < m->input_count + m->output_count; k++) {
            bool in = k < m->input_count;
            const eddy_port_info *p = in ? &m->inputs[k] : &m->outputs[k - m->input_count];
            printf("  %s %s (%s, %s): %s\n", in ? "input" : "output", p->name,
                   p->type == EDDY_PORT_VEC3 ? "vec3" : "float", p->unit ? p->unit : "", p->doc ? p->doc : "");
        }
        for (uint32_t k = 0; k < m->param_count; k++) {
            const eddy_param_info *p = &m->params[k];
            char def[96], type[32];
            if (p->type == EDDY_PARAM_LIST)
                snprintf(def, sizeof def, "none"); /* the module's own, in its doc */
            else if (p->type == EDDY_PARAM_VEC3)
                snprintf(def, sizeof def, "[%g, %g, %g]", p->def[0], p->def[1], p->def[2]);
            else if (p->type == EDDY_PARAM_BOOL)
                snprintf(def, sizeof def, "%s", p->def[0] ? "true" : "false");
            else
                snprintf(def, sizeof def, "%g", p->def[0]);
            printf("  %-16s %-5s %-8s default %-18s range [%g, %g]  %s\n", p->name,
                   param_type(p, type, sizeof type), p->unit ? p->unit : "", def, p->min, p->max,
                   p->doc ? p->doc : "");
        }
        if (m->shared_buffer_count) {
            printf("  shares:");
            for (uint32_t k = 0; k < m->shared_buffer_count; k++)
                printf(" %s", m->shared_buffers[k]);
            printf("\n");
        }
    }
    eddy_destroy_engine(e);
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The bench description of a system's module (eddy_bench.h), if it has one. */
static const eddy_bench_module *bench_module_of(const eddy_module_desc *m)
{
    const eddy_bench_module *bm;
    for (uint32_t k = 0; m && (bm = eddy_builtin_bench_module(k)); k++)
        if (!strcmp(bm->module()->name, m->name))
            return bm;
    return NULL;
}

/* eddy run --profile: for each system whose module can count its
 * particles' work (eddy_bench_module.system_stats), what each of its passes
 * moves and visits per particle (bench_model.h), from its particles' last
 * positions. */
static void print_system_profiles(eddy_engine *e, const eddy_scene *s, const eddy_pass_time *times, int n)
{
    bench_pass_measure pm[256];
    for (int i = 0; i < n; i++)
        pm[i] = (bench_pass_measure){ times[i].label, (double)times[i].calls, times[i].total_ms };
    for (uint32_t k = 0; eddy_scene_system_name(s, k); k++) {
        const char *name = eddy_scene_system_name(s, k);
        const eddy_module_desc *m = eddy_scene_system_module(s, name);
        const eddy_bench_module *bm = bench_module_of(m);
        uint32_t count;
        eddy_bench_stats ns;
        if (!bm || !bm->system_stats || !bm->system_stats(e, s, name, &count, &ns))
            continue;
        printf("system '%s' (%s, %u particles; the last step's positions):\n", name, m->name, count);
        char prefix[80];
        snprintf(prefix, sizeof prefix, "%s.", m->name);
        bench_print_profile_text(stdout, pm, n, count, &ns, prefix);
    }
}

static int cmd_run(const options *o)
{
    if ((!o->scene || !*o->scene) && !o->resume) {
        fprintf(stderr, "eddy error [cli.usage]: run: no scene file given\n");
        print_usage(stderr);
        return 2;
    }
    if ((o->checkpoint_every > 0 || o->checkpoint_wall > 0) && o->no_output) {
        fprintf(stderr, "eddy error [cli.usage]: run: checkpoints go to the output folder: --checkpoint-every and "
                "--checkpoint-wall need output (not --no-output)\n");
        return 2;
    }
    bool talk = run_mpi_rank() == 0; /* over ranks, rank 0 speaks for all */
    if (o->scene && access(o->scene, R_OK) != 0) {
        if (talk)
            fprintf(stderr, "eddy error [scene.file]: %s: cannot read the scene file (does it exist? the example "
                "scenes, which run by name, are in %s)\n", o->scene, eddy_tool_scenes_dir());
        return 1;
    }
    eddy_engine *e = make_engine(o);
    if (!e)
        return 1;
    const eddy_device_info *d = eddy_engine_device(e);
    eddy_scene *s = run_load_scene(e, o);
    if (!s) {
        eddy_destroy_engine(e);
        return 1;
    }
    eddy_scene_info info = eddy_scene_get_info(s);
    /* Where the run ends (a resumed one: what is left of the scene). */
    uint64_t end = o->steps ? info.steps_done + o->steps : info.steps > info.steps_done ? info.steps : info.steps_done;
    char ranks_text[64] = "";
    if (run_mpi_size() > 1)
        snprintf(ranks_text, sizeof ranks_text, " (rank 0 of %d MPI ranks, a device each)", run_mpi_size());
    if (talk)
        fprintf(stderr, "eddy: scene '%s' on %s%s: %u particles, dt %g s x %u substeps, %" PRIu64
                    " steps%s, output %s\n",
            info.name, d->name, ranks_text, info.particle_count, info.dt, info.substeps, end - info.steps_done,
            info.steps_done ? " from the checkpoint's step" : "", o->no_output ? "off" : info.out_dir);
    double t0 = now_s();
    run_catch_signals();
    eddy_result r = eddy_scene_run_with(s, &(eddy_run_desc){ EDDY_SIZED(eddy_run_desc), .max_steps = o->steps,
        .progress = !o->quiet && talk, .checkpoint_every = o->checkpoint_every, .checkpoint_wall = o->checkpoint_wall,
        .checkpoint_keep = (uint32_t)o->checkpoint_keep, .stop = &run_stop });
    /* A signal during the last step finds the run done: nothing stopped.
     * Over ranks the signal may have reached only some: a run that ended
     * early without an error was stopped, on every rank alike. */
    bool stopped = (run_stop || run_mpi_size() > 1) && r == EDDY_OK && eddy_scene_get_info(s).steps_done < end;
    /* Statistics and tool logs are renamed into place whether or not the run
     * finished: a run stopped by an unstable state keeps its record. */
    eddy_result fin = eddy_scene_finish_output(s);
    if (r == EDDY_OK)
        r = fin;
    double wall = now_s() - t0;
    info = eddy_scene_get_info(s);
    if (stopped && o->no_output) {
        if (talk)
            fprintf(stderr, "eddy error [run.stopped]: stopped by a signal at step %" PRIu64 "; output is off, so no "
                "checkpoint was written\n", info.steps_done);
        r = EDDY_ERROR_IO;
    } else if (stopped && talk) {
        fprintf(stderr, "eddy: stopped by a signal at step %" PRIu64 " (t = %.6g s); its checkpoint is in %s: "
                "continue with eddy run --resume %s\n", info.steps_done, info.time, info.out_dir, info.out_dir);
    } else if (r == EDDY_OK && talk) {
        double rate = wall > 0 ? (double)info.particle_count * (double)info.steps_done / wall : 0;
        printf("done: %" PRIu64 " steps, t = %.6g s, %u particles, %.3f s wall, %.3g particle-steps/s"
               " (with output), output in %s\n",
               info.steps_done, info.time, info.particle_count, wall, rate,
               o->no_output ? "(none)" : info.out_dir);
    } else if (r != EDDY_OK && run_mpi_size() == 1) { /* over ranks: run_mpi_end says why, once */
        fprintf(stderr, "eddy error [run.stopped]: the run stopped at step %" PRIu64 ": %s\n", info.steps_done,
                eddy_result_string(r));
    }
    if (o->profile && r == EDDY_OK) {
        eddy_pass_time times[256];
        int n = eddy_graph_profile(e, eddy_scene_graph(s), times, 256);
        printf("profile (GPU time per pass, %s):\n", d->name);
        printf("  %-32s %10s %12s %12s %6s\n", "pass", "calls", "total ms", "mean us", "share");
        double all = 0;
        for (int i = 0; i < n && i < 256; i++)
            all += times[i].total_ms;
        for (int i = 0; i < n && i < 256; i++)
            printf("  %-32s %10" PRIu64 " %12.3f %12.3f %5.1f%%\n", times[i].label, times[i].calls,
                   times[i].total_ms,
                   times[i].calls ? 1e3 * times[i].total_ms / (double)times[i].calls : 0.0,
                   all > 0 ? 100 * times[i].total_ms / all : 0.0);
        print_system_profiles(e, s, times, n < 256 ? n : 256);
    }
    uint32_t vmsg = eddy_validation_message_count(e);
    if (vmsg)
        fprintf(stderr, "eddy warning [validation.reported]: %u validation message(s)\n", vmsg);
    eddy_destroy_scene(s);
    eddy_destroy_engine(e);
    return r != EDDY_OK ? 1 : stopped ? EDDY_EXIT_STOPPED : 0;
}

typedef struct scripted_device {
    const eddy_scene *scene;
    const char *system, *input;
} scripted_device;

/* The device's hand: the scene's path of the driven input at the wall-clock time. */
static void play_path(void *user, double t, const double force[3], double position[3])
{
    (void)force;
    scripted_device *d = user;
    eddy_scene_input_path(d->scene, d->system, d->input, t, position);
}

static int cmd_haptic(const options *o)
{
    if (!o->scene) {
        fprintf(stderr, "eddy error [cli.usage]: haptic: no scene file given\n");
        print_usage(stderr);
        return 2;
    }
    if (access(o->scene, R_OK) != 0) {
        fprintf(stderr, "eddy error [scene.file]: %s: cannot read the scene file (does it exist? the example "
                "scenes, which run by name, are in %s)\n", o->scene, eddy_tool_scenes_dir());
        return 1;
    }
    eddy_engine *e = make_engine(o);
    if (!e)
        return 1;
    eddy_scene *s = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = o->scene, .out_dir = o->out,
                                                            .no_output = o->no_output,
                                                            .allow_plugins = o->allow_plugins });
    if (!s) {
        eddy_destroy_engine(e);
        return 1;
    }
    const char *system = o->system ? o->system : eddy_scene_system_name(s, 0);
    /* The device plays the path of the system's first vec3 input. */
    const eddy_module_desc *m = eddy_scene_system_module(s, system);
    const char *input = NULL;
    for (uint32_t k = 0; m && !input && k < m->input_count; k++)
        if (m->inputs[k].type == EDDY_PORT_VEC3)
            input = m->inputs[k].name;
    if (m && !input)
        fprintf(stderr, "eddy error [haptic.invalid]: haptic: system '%s' (module '%s') has no vec3 input for the "
                        "device to drive\n", system, m->name);
    double p[3];
    eddy_scene_info info = eddy_scene_get_info(s);
    int rc = 1;
    if (input && eddy_scene_input_path(s, system, input, 0, p) == EDDY_OK &&
        eddy_scene_write_frame(s) == EDDY_OK) {
        char log[4200];
        snprintf(log, sizeof log, "%s/haptic_%s.csv", info.out_dir, system);
        scripted_device dev = { s, system, input };
        double seconds = o->seconds > 0 ? o->seconds : info.duration;
        fprintf(stderr, "eddy: haptic loop on '%s' of scene '%s' for %g s at %g Hz, the device "
                        "playing the path of %s; log %s\n", system, info.name, seconds,
                o->rate > 0 ? o->rate : 1000, input, o->no_output ? "(none)" : log);
        eddy_haptic_report rep;
        eddy_result r = eddy_haptic_run(s, &(eddy_haptic_desc){ EDDY_SIZED(eddy_haptic_desc),
            .system = system, .input = input, .device = play_path, .user = &dev, .rate = o->rate,
            .duration = seconds, .log_path = o->no_output ? NULL : log }, &rep);
        if (r == EDDY_OK)
            r = eddy_scene_write_frame(s);
        eddy_result fin = eddy_scene_finish_output(s);
        if (r == EDDY_OK)
            r = fin;
        if (r == EDDY_OK) {
            printf("haptic: %" PRIu64 " samples, mean interval %.4f ms (longest %.3f ms); %" PRIu64
                   " simulation steps (%.1f Hz); largest jump between samples %.4g N (bound %.4g N), "
                   "between simulation results %.4g N\n", rep.samples, rep.mean_interval * 1e3,
                   rep.max_interval * 1e3, rep.steps, rep.steps / seconds, rep.max_jump,
                   rep.max_slope * rep.max_interval, rep.max_sim_jump);
            rc = 0;
        }
    }
    eddy_destroy_scene(s);
    eddy_destroy_engine(e);
    return rc;
}

/* The description of scene `path` into stdout (text) or dot_path (DOT,
 * written whole or not at all). */
static int graph_one(eddy_engine *e, const char *path, const char *dot_path, bool allow_plugins)
{
    eddy_scene *s = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = path,
        .no_output = true, .allow_plugins = allow_plugins });
    if (!s)
        return 1;
    eddy_describe_format f = dot_path ? EDDY_DESCRIBE_DOT : EDDY_DESCRIBE_TEXT;
    size_t len = 0;
    eddy_result r = eddy_scene_describe(s, f, NULL, 0, &len);
    char *text = r == EDDY_OK ? malloc(len + 1) : NULL;
    if (r == EDDY_OK && !text) {
        fprintf(stderr, "eddy error [memory.host]: graph: out of host memory for %zu bytes\n", len + 1);
        r = EDDY_ERROR_OUT_OF_MEMORY;
    }
    if (r == EDDY_OK)
        r = eddy_scene_describe(s, f, text, len + 1, &len);
    eddy_destroy_scene(s);
    if (r == EDDY_OK && !dot_path) {
        fputs(text, stdout);
    } else if (r == EDDY_OK) {
        char tmp[4200];
        snprintf(tmp, sizeof tmp, "%s.tmp", dot_path);
        FILE *fp = strlen(dot_path) < 4000 ? fopen(tmp, "wb") : NULL;
        bool ok = fp && fwrite(text, 1, len, fp) == len;
        ok = fp && fclose(fp) == 0 && ok;
        if (!ok || rename(tmp, dot_path) != 0) {
            fprintf(stderr, "eddy error [output.write]: graph: cannot write '%s'\n", dot_path);
            remove(tmp);
            r = EDDY_ERROR_IO;
        }
    }
    free(text);
    return r == EDDY_OK ? 0 : 1;
}

/* eddy graph SCENE.json... [--dot FILE] [--device X] [--validation V]
 * [--module LIB.so] [--allow-plugins]: each scene loaded (nothing run,
 * nothing written but the DOT file) and its step graph described. */
static int cmd_graph(int argc, char **argv)
{
    options o = { 0 };
    const char *scenes[EDDY_CLI_MAX_GRAPH_SCENES], *dot = NULL;
    int n = 0;
    if (cli_parse_graph(argc, argv, 2, &o, scenes, &n, &dot) != 0)
        return 2;
    eddy_engine *e = make_engine(&o);
    if (!e)
        return 1;
    int rc = 0;
    static char found[4352];
    for (int i = 0; i < n && rc == 0; i++)
        rc = graph_one(e, eddy_tool_find_scene(scenes[i], found, sizeof found) ? found : scenes[i], dot,
                       o.allow_plugins);
    eddy_destroy_engine(e);
    return rc;
}

static int cmd_bench(int argc, char **argv)
{
    options o = { 0 };
    uint64_t iterations = 0, particles = 0;
    bench_options bo = { 0 };
    bench_device_model model;
    char *names[64];
    int n = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--iterations") && i + 1 < argc) {
            if (cli_parse_u64(argv[++i], 100000, &iterations) != 0 || iterations == 0) {
                fprintf(stderr, "eddy error [cli.usage]: --iterations: expected a whole number in 1..100000, "
                                "got '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--particles") && i + 1 < argc) {
            if (cli_parse_u64(argv[++i], 16000000, &particles) != 0 || particles < 1000) {
                fprintf(stderr, "eddy error [cli.usage]: --particles: expected a whole number in 1000..16000000, "
                                "got '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--no-reference")) {
            bo.no_reference = true;
        } else if (!strcmp(argv[i], "--no-lists")) {
            bo.no_lists = true;
        } else if (!strcmp(argv[i], "--model") && i + 1 < argc) {
            char err[512];
            if (bench_model_load(argv[++i], &model, err, sizeof err) != 0) {
                fprintf(stderr, "eddy error [bench.model]: %s\n", err);
                return 2;
            }
            bo.model = &model;
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            o.device = argv[++i];
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "eddy error [cli.usage]: bench: unknown option '%s'\n", argv[i]);
            print_usage(stderr);
            return 2;
        } else if (n < 64) {
            names[n++] = argv[i];
        }
    }
    bo.iterations = (uint32_t)iterations;
    bo.particles = (uint32_t)particles;
    /* The distributed step's cases (bench_dist.h) run over the launch's
     * ranks; the others on one device, so not under a launch of several. */
    char *rest[64];
    int m = 0, dist = 0;
    for (int i = 0; i < n; i++) {
        if (eddy_bench_dist_case(names[i]))
            dist++;
        else
            rest[m++] = names[i];
    }
    if (run_mpi_size() > 1 && (m || !dist)) {
        if (run_mpi_rank() == 0)
            fprintf(stderr, "eddy error [cli.usage]: bench over %d MPI ranks: only the cases dist, dist.sph and "
                            "dist.pbf run over ranks; run the others without mpirun\n", run_mpi_size());
        return 2;
    }
    eddy_engine *e = make_engine(&o);
    if (!e)
        return 1;
    int rc = 0;
    for (int i = 0; i < n; i++)
        if (eddy_bench_dist_case(names[i]))
            rc |= eddy_bench_dist(e, names[i], bo.iterations);
    if (m || !dist)
        rc |= eddy_bench_main(e, m, rest, &bo);
    eddy_destroy_engine(e);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
        !strcmp(argv[1], "-h")) {
        print_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("eddy %d.%d.%d (module ABI %d.%d)\ndata: %s\nscenes: %s\n", EDDY_VERSION_MAJOR, EDDY_VERSION_MINOR,
               EDDY_VERSION_PATCH, EDDY_MODULE_ABI_MAJOR, EDDY_MODULE_ABI_MINOR, eddy_tool_data_dir(),
               eddy_tool_scenes_dir());
        return 0;
    }
    if (!strcmp(cmd, "devices"))
        return cmd_devices();
    /* Under mpirun or srun, `bench dist` starts MPI (bench_dist.h). */
    if (!strcmp(cmd, "bench")) {
        run_mpi_begin(&argc, &argv);
        return run_mpi_end(cmd_bench(argc, argv));
    }
    if (!strcmp(cmd, "voxelize"))
        return eddy_voxelize_main(argc, argv);
    if (!strcmp(cmd, "graph"))
        return cmd_graph(argc, argv);
    if (!strcmp(cmd, "view"))
        return eddy_view_main(argc, argv);
    /* Under mpirun or srun, `run` starts MPI (run_mpi.h). */
    if (!strcmp(cmd, "run"))
        run_mpi_begin(&argc, &argv);
    options o = { 0 };
    int parsed = cli_parse_options(argc, argv, 2, &o);
    if (parsed == -2)
        print_usage(stderr);
    if (parsed != 0)
        return run_mpi_end(2);
    /* `eddy run pbf_dam_break`: an example scene by name (tools/eddy/paths.h). */
    static char found[4352];
    if (o.scene && eddy_tool_find_scene(o.scene, found, sizeof found))
        o.scene = found;
    if (!strcmp(cmd, "modules"))
        return cmd_modules(&o);
    if (!strcmp(cmd, "run"))
        return run_mpi_end(cmd_run(&o));
    if (!strcmp(cmd, "haptic"))
        return cmd_haptic(&o);
    fprintf(stderr, "eddy error [cli.usage]: unknown command '%s'\n", cmd);
    print_usage(stderr);
    return 2;
}
