#!/usr/bin/env bash
# The distributed step measured: a dam break of 36,000 particles run with
# `eddy run` on 1, 2 and 4 MPI ranks (mpirun --oversubscribe: past this
# machine's cores the ranks share them, which the figures show), with the
# sph module's weakly compressible solver and with pbf (4 iterations, each
# a part of the substep over ranks), the time a step takes (the difference
# of two runs' wall times over their difference in steps, so start-up and
# the first frame cancel), and from the ranks' statistics the split of a
# step into compute (the graph runs), pack (staging, uploads, downloads,
# declaring the graph), exchange (migration, ghosts and the parts' syncs
# over MPI) and wait (in the agreements), the ghosts and the halo bytes a
# substep.
# usage: tools/bench_dist.sh [EDDY] [RANKS...]   (default build/tools/eddy/eddy, 1 2 4)
#        EDDY_BENCH_MODULES="sph pbf" (the default) picks the modules;
#        EDDY_BENCH_SCALE=S (default 1) divides the spacing, h and dt by S:
#        S^3 times the particles (2: 288,000); EDDY_BENCH_STEPS=N (default
#        30) the steps measured.
# Prints a Markdown table per module and a JSON line per rank count.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
eddy=${1:-build/tools/eddy/eddy}
shift || true
ranks=${*:-1 2 4}
# Open MPI's settings for this machine, and $tmp, as the MPI tests have them.
. tests/mpi/mpi_env.sh
# 36,000 particles (a 0.3 x 0.4 x 0.3 m column at 1 cm), h = 2 cm, at
# scale 1.
s=${EDDY_BENCH_SCALE:-1}
scene() { # module dt params
    cat <<JSON
{ "name": "bench_dist_$1", "dt": $2, "duration": 1.0,
  "box": { "min": [0, 0, 0], "max": [1.0, 0.6, 0.3] },
  "particle_sets": [ { "name": "water", "spacing": $(python3 -c "print(0.01 / $s)"),
    "fill": { "shape": "box", "min": [0, 0, 0], "max": [0.3, 0.4, 0.3] } } ],
  "systems": [ { "name": "fluid", "module": "$1", "set": "water", "params": $3 } ],
  "output": { "frame_interval": $(python3 -c "print(10 * $2)") } }
JSON
}
short=10 long=$(( 10 + ${EDDY_BENCH_STEPS:-30} ))
wall() { # ranks steps -> seconds of the run (the "done:" line)
    local n=$1 steps=$2 out=$tmp/run_${module}_$1_$2
    if [ "$n" = 1 ]; then
        "$eddy" run "$tmp/scene.json" --steps "$steps" --out "$out" --quiet 2>/dev/null
    else
        mpirun --oversubscribe -np "$n" "$eddy" run "$tmp/scene.json" --steps "$steps" --out "$out" --quiet 2>/dev/null
    fi | sed -n 's/.* \([0-9.]*\) s wall.*/\1/p'
}
for module in ${EDDY_BENCH_MODULES:-sph pbf}; do
if [ "$module" = pbf ]; then
    scene pbf "$(python3 -c "print(0.002 / $s)")" \
        "{ \"h\": $(python3 -c "print(0.02 / $s)"), \"iterations\": 4, \"xsph\": 0.05 }" >"$tmp/scene.json"
else
    scene sph "$(python3 -c "print(0.0004 / $s)")" \
        "{ \"h\": $(python3 -c "print(0.02 / $s)"), \"stiffness\": 400, \"viscosity\": 10, \"restitution\": 0.1 }" \
        >"$tmp/scene.json"
fi
echo
echo "$module:"
echo "| ranks | particles | ms a step | compute | pack | exchange | wait | ghosts a rank | halo MB a substep, all ranks | particle-steps/s |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in $ranks; do
    a=$(wall "$n" $short) b=$(wall "$n" $long)
    python3 - "$n" "$a" "$b" "$short" "$long" "$tmp/run_${module}_${n}_$long/stats.jsonl" "$module" <<'PY'
import json, sys
n, a, b, s0, s1, stats, module = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6], sys.argv[7]
lines = [json.loads(x) for x in open(stats)]
count = lines[-1]["sets"]["water"]["count"]
ms = 1e3 * (b - a) / (s1 - s0)
split = {k: 0.0 for k in ("compute_s", "pack_s", "exchange_s", "wait_s")}
ghosts = halo = subs = 0.0
for l in lines:
    r = l.get("ranks")
    if not r:
        continue
    for k in split:  # the slowest rank's, per frame
        split[k] += max(r[k])
    subs += max(r["substeps"])
    ghosts += sum(g * s for g, s in zip(r["ghosts"], r["substeps"])) / len(r["ghosts"])
    halo += sum(h * s for h, s in zip(r["halo_bytes"], r["substeps"]))
cell = lambda k: "%.1f ms" % (1e3 * split[k] / subs) if subs else "-"
print("| %d | %d | %.1f | %s | %s | %s | %s | %s | %s | %.3g |" % (
    n, count, ms, cell("compute_s"), cell("pack_s"), cell("exchange_s"), cell("wait_s"),
    "%.0f" % (ghosts / subs) if subs else "-", "%.2f" % (halo / subs / 1e6) if subs else "-", count / (ms / 1e3)))
print(json.dumps({"module": module, "ranks": n, "particles": count, "ms_per_step": ms,
                  "per_substep_ms": {k: 1e3 * v / subs for k, v in split.items()} if subs else None,
                  "ghosts_per_rank": ghosts / subs if subs else 0, "halo_bytes_per_substep": halo / subs if subs else 0}),
      file=sys.stderr)
PY
done
done
