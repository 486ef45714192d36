#!/usr/bin/env bash
# The GPU machine's checks (docs/gpu.md) in one run, from the project root
# with .gl and build-gpu copied in: the Vulkan loader and validation layers
# from .gl, then under synchronization validation the parts lavapipe cannot
# show (the host-recorded steps, async compute, the live surface, the volume
# renderer from outside and inside its mesh, the viewer's volume picture,
# water into cloth at 1 to 8 m/s with real parallel threads, the fluids'
# pressure solvers and their coupling against their C twins), the solvers'
# runs at equal accuracy, and the GPU time model's check. Each check's
# log, exit status and seconds go to $OUT (default /tmp/gpu-check):
# summary.txt has one line a check.
# usage: tools/gpu_check.sh [BUILD_DIR]
set -u
. "$(dirname "$0")/gpu_env.sh"
"$b/tools/eddy/eddy" devices >"$out/devices.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >>"$out/devices.txt" 2>/dev/null
export EDDY_VALIDATION=sync
for part in tool adaptive unannounced async getters; do
    check "host_record_$part" "$b/tests/test_host_record" . "$part"
done
check sph_surface "$b/tests/test_sph_surface"
for part in twin inside deformed; do
    check "volume_$part" "$b/tests/test_volume" . "$part"
done
check api_misuse "$b/tests/test_api_misuse" .
for setup in block ball; do
    for speed in 1 2 4 8; do
        check "cloth_tunnel_${setup}_$speed" "$b/tests/test_cloth_tunnel" "$setup" "$speed"
    done
done
check view_volume "$b/tools/eddy/eddy" view tests/view/volume_view.json --offscreen "$out/view_volume.png" \
    --frames 30 --size 960x600
check view_bunny "$b/tools/eddy/eddy" view volume_bunny_drop --offscreen "$out/view_bunny.png" \
    --frames 120 --size 960x600
# The fluids' pressure solvers and their coupling to bodies (the added mass,
# DFSPH with boundary sets) on a GPU that overlaps dispatches: each against
# its C twin, at rest, in the dam break and floating.
for part in cpu rest_dfsph dam_break_iisph dam_break_dfsph; do
    check "sph_$part" "$b/tests/test_sph" . "$part"
done
for part in cpu_iisph cpu_dfsph momentum shared; do
    check "couple_$part" "$b/tests/test_couple" "$part"
done
for part in float_family_iisph float_family_dfsph held_tilted_solvers float_multirate; do
    check "couple_$part" "$b/tests/test_couple_float" "$part"
done
unset EDDY_VALIDATION
# The solvers at equal accuracy (docs/benchmarks.md): simulated seconds per
# wall second of Martin and Moyce's column, each at its own step.
for scene in sph_martin_moyce sph_martin_moyce_iisph sph_martin_moyce_dfsph pbf_martin_moyce; do
    check "run_$scene" "$b/tools/eddy/eddy" run "scenes/$scene.json" --no-output
done
GPU_CHECK_TIMEOUT=${GPU_CHECK_MODEL_TIMEOUT:-240} check model "$b/tools/eddy/eddy" bench sph pbf rigid granular deform volume --iterations 100 --no-reference \
    --model docs/data/devices/h100_sxm.json
grep "^{" "$out/model.log" >"$out/model_check.jsonl"
# What comes back from a lent machine is counted in files: the logs in one
# archive beside the summary, the model check and the pictures.
(cd "$out" && tar czf logs.tar.gz ./*.log devices.txt && rm -f ./*.log)
