#!/usr/bin/env bash
# Runs across MPI ranks on the GPU machine (docs/gpu.md), from the project
# root with .gl (Open MPI's Debian packages under .gl/mpi) and build-gpu
# copied in. All ranks share the machine's one GPU, whose queues overlap
# dispatches as lavapipe's do not: under synchronization validation the
# MPI tests (tests/mpi/run_test.sh: every scene on 2, 3 and 4 ranks bit for
# bit against one rank, the checkpoint resumed on other rank counts, the
# faults), then tools/bench_dist.sh's dam breaks at 36,000 and 288,000
# particles. Logs and summary.txt in $OUT (default /tmp/gpu-dist).
# usage: tools/gpu_dist.sh [BUILD_DIR]
set -u
DEFAULT_OUT=/tmp/gpu-dist . "$(dirname "$0")/gpu_env.sh"
# Open MPI has its paths built in (/usr, /etc/openmpi): its packages go to
# the root, and only where the machine has no MPI of its own (an H200
# machine had Open MPI 4.1.6, whose mpirun crashes on Debian's libpmix:
# eddy's libmpi.so.40 is the same ABI from either).
if [ -z "${GPU_CHECK_LOCAL:-}" ] && ! command -v mpirun >/dev/null; then
    for f in .gl/mpi/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi
"$b/tools/eddy/eddy" devices >"$out/devices.txt" 2>&1
mpirun --version >>"$out/devices.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >>"$out/devices.txt" 2>/dev/null
export EDDY_VALIDATION=sync
GPU_CHECK_TIMEOUT=400 check dist_run bash tests/mpi/run_test.sh "$b/tools/eddy/eddy" "$PWD" \
    "$b/tests/libeddy_test_growth.so"
unset EDDY_VALIDATION
for scale in 1 2; do
    EDDY_BENCH_SCALE=$scale EDDY_BENCH_STEPS=100 GPU_CHECK_TIMEOUT=300 \
        check "bench_dist_x$scale" bash tools/bench_dist.sh "$b/tools/eddy/eddy" 1 2 4
done
(cd "$out" && tar czf logs.tar.gz ./*.log devices.txt && rm -f ./*.log)
