/* eddy run's checkpoints: see run_checkpoint.h. */
#include "run_checkpoint.h"
#include "run_mpi.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

volatile sig_atomic_t run_stop = 0;

/* The first signal stops the run at the next step boundary; a second one
 * (an impatient Ctrl-C) ends the process at once, as without eddy's
 * handler. */
static void on_stop(int sig)
{
    if (run_stop) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    run_stop = 1;
}

void run_catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
}

static eddy_scene *load_from(eddy_engine *e, const options *o, const char *checkpoint, const char *out)
{
    return eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = o->scene,
        .out_dir = out, .profile = o->profile, .no_output = o->no_output, .allow_plugins = o->allow_plugins,
        .checkpoint = checkpoint, .mpi_comm = run_mpi_comm() });
}

eddy_scene *run_load_scene(eddy_engine *e, const options *o)
{
    if (!o->resume)
        return load_from(e, o, NULL, o->out);
    struct stat st;
    if (stat(o->resume, &st) != 0) {
        fprintf(stderr, "eddy error [cli.usage]: --resume: '%s' is neither a checkpoint file nor an output "
                "folder\n", o->resume);
        return NULL;
    }
    if (!S_ISDIR(st.st_mode)) {
        /* A file resumes into the folder it lies in: the run's own. */
        char dir[4096];
        const char *slash = strrchr(o->resume, '/');
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - o->resume) : 1, slash ? o->resume : ".");
        return load_from(e, o, o->resume, o->out ? o->out : dir);
    }
    char path[4200];
    for (uint32_t k = 0; eddy_checkpoint_path(o->resume, k, path, sizeof path) == EDDY_OK; k++) {
        eddy_scene *s = load_from(e, o, path, o->out ? o->out : o->resume);
        if (s) {
            fprintf(stderr, "eddy: resuming from %s\n", path);
            return s;
        }
        fprintf(stderr, "eddy: %s was refused (above); trying an older checkpoint\n", path);
    }
    fprintf(stderr, "eddy error [checkpoint.none]: --resume: no valid checkpoint_<step>.h5 in '%s'\n", o->resume);
    return NULL;
}
