/* eddy run over MPI ranks (mpirun -np N eddy run SCENE, srun): MPI is
 * started only under a launcher, each rank takes a device by its rank on
 * its node, and the ranks' messages come out as one: warnings from rank 0
 * (others' prefixed with their rank), errors held until the run ends, then
 * the first failing rank's first error, once, from rank 0. Without MPI in
 * the build every call is a no-op on one rank. */
#ifndef EDDY_TOOL_RUN_MPI_H
#define EDDY_TOOL_RUN_MPI_H

#include "eddy/eddy.h"

#include <stdbool.h>

/* Starts MPI when a launcher started this process; true with more than
 * one rank. */
bool run_mpi_begin(int *argc, char ***argv);
/* The communicator for eddy_scene_desc.mpi_comm (NULL on one rank). */
const void *run_mpi_comm(void);
int run_mpi_rank(void);
int run_mpi_size(void);
/* The device this rank takes when none is named: its rank on its node
 * modulo the node's devices, as text for eddy_engine_desc.device (NULL on
 * one rank: eddy's default choice). */
const char *run_mpi_device(void);
/* Waits for every rank (nothing on one rank). */
void run_mpi_barrier(void);
/* Rank 0's text of `cap` bytes into every rank's (nothing on one rank). */
void run_mpi_share(char *text, int cap);
/* The engine's log while more than one rank runs (eddy_engine_desc.log). */
void run_mpi_log(void *user, eddy_log_level level, const char *source, const char *id, const char *message);
/* Ends the ranks together: the exit status is the worst rank's, and rank
 * 0 prints the first failing rank's first error. MPI_Finalize. */
int run_mpi_end(int rc);

#endif
