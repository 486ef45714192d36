#!/usr/bin/env bash
# The fluid solvers on the GPU machine (docs/gpu.md), from the project root
# with .gl and the build copied in: whether what lavapipe shows carries over
# to a GPU that runs dispatches side by side and rounds its own way.
#  - bitwise reproducibility: each solver's Martin and Moyce scene run twice,
#    every output frame compared byte for byte;
#  - still water (test_sph rest_*: the family of columns 0.1 and 0.3 m deep
#    at 800 and 1200 kg/m^3), DFSPH twice (the same figures both times);
#  - the dam-break family of every solver (test_dam_family: its fronts as
#    CSV tables under validation/);
#  - the SPH solvers' steps at 262k particles (eddy bench --particles).
# Each check's log, exit status and milliseconds go to $OUT (default
# /tmp/gpu-fluids): summary.txt has one line a check; the logs and tables
# come back in one archive.
# usage: tools/gpu_fluids.sh [BUILD_DIR]
set -u
DEFAULT_OUT=/tmp/gpu-fluids
. "$(dirname "$0")/gpu_env.sh"
"$b/tools/eddy/eddy" devices >"$out/devices.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >>"$out/devices.txt" 2>/dev/null
work=$(mktemp -d)
for scene in sph_martin_moyce sph_martin_moyce_iisph sph_martin_moyce_dfsph pbf_martin_moyce; do
    for run in 1 2; do
        check "run_${scene}_$run" "$b/tools/eddy/eddy" run "scenes/$scene.json" --out "$work/$scene.$run" --quiet
    done
    # stats.jsonl holds wall-clock times; the frames are the results.
    same=0 frames=0
    for f in "$work/$scene.1"/*.vtp; do
        frames=$((frames + 1))
        cmp -s "$f" "$work/$scene.2/$(basename "$f")" && same=$((same + 1))
    done
    printf '%-28s %d of %d frames bitwise the same\n' "repro_$scene" "$same" "$frames" | tee -a "$out/summary.txt"
done
for part in rest_dfsph rest_dfsph rest_family_sph rest_family_iisph rest_family_pbf; do
    name="sph_$part"
    [ -e "$out/$name.log" ] && name="${name}_again"
    check "$name" "$b/tests/test_sph" . "$part"
done
export EDDY_VALIDATION_OUT=$out/validation
for solver in sph iisph dfsph pbf; do
    check "dam_family_$solver" "$b/tests/test_dam_family" . "$solver"
done
unset EDDY_VALIDATION_OUT
check bench_262k "$b/tools/eddy/eddy" bench sph.16k sph.iisph16k sph.dfsph16k --particles 262144 \
    --iterations 50 --no-reference
grep "^{" "$out/bench_262k.log" >"$out/bench_262k.jsonl"
rm -rf "$work"
(cd "$out" && tar czf logs.tar.gz ./*.log devices.txt validation && rm -rf ./*.log validation)
