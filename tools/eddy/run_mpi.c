/* eddy run over MPI ranks: see run_mpi.h. */
#include "run_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef EDDY_MPI

bool run_mpi_begin(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    return false;
}
const void *run_mpi_comm(void)
{
    return NULL;
}
int run_mpi_rank(void)
{
    return 0;
}
int run_mpi_size(void)
{
    return 1;
}
const char *run_mpi_device(void)
{
    return NULL;
}
void run_mpi_barrier(void)
{
}
void run_mpi_share(char *text, int cap)
{
    (void)text, (void)cap;
}
void run_mpi_log(void *user, eddy_log_level level, const char *source, const char *id, const char *message)
{
    (void)user, (void)level, (void)source, (void)id, (void)message;
}
int run_mpi_end(int rc)
{
    return rc;
}

#else

#include <mpi.h>

static struct {
    bool started;
    int rank, size, local_rank;
    MPI_Comm comm;
    char device[16];
    /* This rank's first error. */
    bool failed, echoed; /* echoed: a dist.failed, another rank's cause */
    char id[64], text[1024];
} g = { .size = 1 };

bool run_mpi_begin(int *argc, char ***argv)
{
    /* Started by a launcher: Open MPI's mpirun, or a PMI/PMIx one (MPICH's
     * hydra, Slurm's srun). A plain `eddy run` never starts MPI. */
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK") && !getenv("PMI_RANK"))
        return false;
    if (MPI_Init(argc, argv) != MPI_SUCCESS)
        return false;
    g.started = true;
    g.comm = MPI_COMM_WORLD;
    MPI_Comm_rank(g.comm, &g.rank);
    MPI_Comm_size(g.comm, &g.size);
    MPI_Comm node;
    MPI_Comm_split_type(g.comm, MPI_COMM_TYPE_SHARED, g.rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &g.local_rank);
    MPI_Comm_free(&node);
    return g.size > 1;
}

const void *run_mpi_comm(void)
{
    return g.size > 1 ? &g.comm : NULL;
}

int run_mpi_rank(void)
{
    return g.rank;
}

int run_mpi_size(void)
{
    return g.size;
}

const char *run_mpi_device(void)
{
    if (g.size < 2)
        return NULL;
    eddy_device_info infos[32];
    int n = eddy_enumerate_devices(infos, 32);
    if (n < 1)
        return NULL;
    snprintf(g.device, sizeof g.device, "%d", g.local_rank % (n < 32 ? n : 32));
    return g.device;
}

void run_mpi_log(void *user, eddy_log_level level, const char *source, const char *id, const char *message)
{
    (void)user;
    bool eddy = !strcmp(source, "eddy");
    if (level == EDDY_LOG_ERROR && eddy) {
        /* The cause, not the echo: a rank's own error wins over another's
         * relayed to it (dist.failed). */
        bool echo = !strcmp(id, "dist.failed");
        if (!g.failed || (g.echoed && !echo)) {
            snprintf(g.id, sizeof g.id, "%s", id);
            snprintf(g.text, sizeof g.text, "%s", message);
            g.failed = true, g.echoed = echo;
        }
        return;
    }
    if (level == EDDY_LOG_DEBUG || (level == EDDY_LOG_INFO && g.rank != 0))
        return;
    static const char *const names[] = { "debug", "info", "warning", "error" };
    const char *lv = names[level >= EDDY_LOG_DEBUG && level <= EDDY_LOG_ERROR ? level - EDDY_LOG_DEBUG : 3];
    char who[32] = "";
    if (g.rank)
        snprintf(who, sizeof who, "rank %d: ", g.rank);
    if (eddy)
        fprintf(stderr, "eddy %s [%s]: %s%s\n", lv, id, who, message);
    else
        fprintf(stderr, "eddy %s %s [%s]: %s%s\n", lv, source, id, who, message);
}

void run_mpi_barrier(void)
{
    if (g.size > 1)
        MPI_Barrier(g.comm);
}

void run_mpi_share(char *text, int cap)
{
    if (g.size > 1)
        MPI_Bcast(text, cap, MPI_CHAR, 0, g.comm);
}

int run_mpi_end(int rc)
{
    if (!g.started)
        return rc;
    if (g.size > 1) {
        /* Lowest rank with a cause of its own, else the lowest with any. */
        int mine = !g.failed ? 2 * g.size : g.echoed ? g.size + g.rank : g.rank, first = 0, worst = 0;
        MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, g.comm);
        MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, g.comm);
        if (first < 2 * g.size) {
            int from = first % g.size;
            MPI_Bcast(g.id, (int)sizeof g.id, MPI_CHAR, from, g.comm);
            MPI_Bcast(g.text, (int)sizeof g.text, MPI_CHAR, from, g.comm);
            if (g.rank == 0)
                fprintf(stderr, "eddy error [%s]: rank %d: %s\n", g.id, from, g.text);
        }
        rc = worst ? worst : first < 2 * g.size ? 1 : 0;
    }
    MPI_Finalize();
    return rc;
}

#endif
