#!/usr/bin/env python3
"""The network part of eddy's GPU time model: a predicted SPH step over MPI
ranks, one H100 each, on nodes of 8 linked at 200 Gb/s. PREDICTIONS: no
cluster has run eddy; every constant is stated below and in
docs/benchmarks.md.

A rank's substep (scene_dist.c, deep halos):
  compute   the one-GPU step of its owned and ghost particles (ghosts are
            stepped too: the price of one exchange a substep);
  staging   what crosses PCIe: as built, the positions and velocities of
            the rank's particles down (the host decides who goes where), the
            rows sent down and those received up, and a new step graph; with
            the decisions on the device too (planned), only the rows;
  exchange  one message to each neighbouring rank: latency plus the ghost
            rows over the link (NVLink inside a node, the node's share of
            200 Gb/s between nodes);
  agree     one allreduce a substep (log2 P latencies).
The one-GPU step is the GPU time model's (tools/eddy/bench_model.h) for the
sph case on docs/data/devices/h100_sxm.json at 300k and 1M particles
(0.402 ms and 1.01 ms, docs/benchmarks.md), as a line a + b n.

usage: tools/dist_model.py [--markdown]"""
import math
import sys

# One GPU: the model's sph step, a + b n (s).
A_STEP, B_STEP = 0.141e-3, 0.869e-9
# A particle's row (bytes): position 16, velocity 16, mass 4, phase 4,
# density 4, normal 16, clamped 4, id 4, and its id in the exchange.
ROW = 72
# Reach: two support radii, h = 2 spacings (the scenes' ratio): 4 spacings.
REACH_SPACINGS = 4.0
GPUS_PER_NODE = 8
NVLINK_GBPS = 300.0          # GB/s a GPU reaches another in its node (H100 SXM: 450 each way; MPI's share)
NODE_LINK_GBPS = 200 / 8.0   # 200 Gb/s a node, shared by its 8 GPUs when all exchange at once
LATENCY = 3e-6               # s a message (MPI over NVLink or InfiniBand)
PCIE_GBPS = 25.0             # GB/s host staging each way (PCIe 5 x16, half its peak)
DECLARE = 0.3e-3             # s to declare a new step graph (host; lavapipe measures about this)


def ghosts_per_rank(n_local, ranks):
    """Ghosts of a cube of n_local particles, a layer REACH_SPACINGS deep on
    each face that borders another rank: recursive bisection of a cube
    over 2^k ranks cuts each box along k planes, so up to k of its faces
    (6 at most) border another box."""
    if ranks == 1:
        return 0.0
    side = n_local ** (1.0 / 3.0)
    faces = min(math.ceil(math.log2(ranks)), 6)
    return faces * side * side * REACH_SPACINGS


def neighbours(ranks):
    return 0 if ranks == 1 else min(ranks - 1, 26)


def step(n_total, ranks, packed):
    """Predicted seconds of one substep on `ranks` GPUs, and its parts."""
    n = n_total / ranks
    g = ghosts_per_rank(n, ranks)
    compute = A_STEP + B_STEP * (n + g)
    migrants = 0.01 * g  # a flowing case moves about 1% of a layer a substep
    rows = 2 * (g + migrants) * ROW / (PCIE_GBPS * 1e9)
    if ranks == 1:
        staging = 0.0
    elif packed:
        staging = rows
    else:
        staging = rows + (n + g) * 32 / (PCIE_GBPS * 1e9) + DECLARE
    across_nodes = ranks > GPUS_PER_NODE
    link = NODE_LINK_GBPS if across_nodes else NVLINK_GBPS
    exchange = neighbours(ranks) * LATENCY + (g + migrants) * ROW / (link * 1e9) if ranks > 1 else 0.0
    agree = LATENCY * math.ceil(math.log2(ranks)) if ranks > 1 else 0.0
    return compute + staging + exchange + agree, dict(compute=compute, staging=staging, exchange=exchange,
                                                      agree=agree, ghosts=g)


def split(parts):
    return "%.2f, %.2f, %.2f" % (1e3 * parts["compute"], 1e3 * parts["staging"], 1e3 * (parts["exchange"] + parts["agree"]))


def table(title, rows, markdown):
    if markdown:
        print(f"\n{title}\n")
        print("| GPUs | particles | ghosts a GPU | ms a substep, as built | efficiency | ms, decided on the device "
              "| efficiency | of which compute, staging, exchange (ms) |")
        print("|---:|---:|---:|---:|---:|---:|---:|---|")
        for r in rows:
            print("| %d | %.3g | %.3g | %.3f | %.0f%% | %.3f | %.0f%% | %s |" % r)
    else:
        print(title)
        for r in rows:
            print("  %3d GPUs  %.3g particles  ghosts %.3g  built %.3f ms (%.0f%%)  on the device %.3f ms (%.0f%%)  [%s]" % r)


def main():
    markdown = "--markdown" in sys.argv[1:]
    gpus = [1, 2, 4, 8, 16, 32, 64]
    strong, weak = [], []
    n_strong = 1.0e8
    t1 = step(n_strong, 1, False)[0]
    for p in gpus:
        built, parts = step(n_strong, p, False)
        packed, pp = step(n_strong, p, True)
        strong.append((p, n_strong, parts["ghosts"], 1e3 * built, 100 * t1 / (p * built), 1e3 * packed,
                       100 * t1 / (p * packed), split(pp)))
    n_weak = 1.5e7
    w1 = step(n_weak, 1, False)[0]
    for p in gpus:
        built, parts = step(n_weak * p, p, False)
        packed, pp = step(n_weak * p, p, True)
        weak.append((p, n_weak * p, parts["ghosts"], 1e3 * built, 100 * w1 / built, 1e3 * packed, 100 * w1 / packed,
                     split(pp)))
    table("Strong scaling, 10^8 particles (predicted)", strong, markdown)
    table("Weak scaling, 1.5 x 10^7 particles a GPU (predicted)", weak, markdown)


if __name__ == "__main__":
    main()
