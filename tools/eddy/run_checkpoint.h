/* eddy run's checkpoints: the scene loaded fresh or from a checkpoint
 * (--resume FILE, or the newest valid one of an output folder), and the
 * signals that stop a run at a step boundary with a checkpoint. */
#ifndef EDDY_RUN_CHECKPOINT_H
#define EDDY_RUN_CHECKPOINT_H

#include "cli_options.h"
#include "eddy/eddy_scene.h"

#include <signal.h>

/* The exit status of a run stopped by SIGTERM or SIGINT after writing its
 * checkpoint (EX_TEMPFAIL: a batch system may requeue it). */
#define EDDY_EXIT_STOPPED 75

/* Set by SIGTERM and SIGINT once run_catch_signals has run. */
extern volatile sig_atomic_t run_stop;
void run_catch_signals(void);

/* The scene of `eddy run`: from o->scene, or resumed (o->resume: a
 * checkpoint file, or a folder whose checkpoints are tried newest first,
 * an older one when a newer one is refused). NULL after the messages. */
eddy_scene *run_load_scene(eddy_engine *e, const options *o);

#endif
