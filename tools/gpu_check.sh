#!/usr/bin/env bash
# The GPU machine's checks (docs/gpu.md) in one run, from the project root
# with .gl and build-gpu copied in: the Vulkan loader and validation layers
# from .gl, then under synchronization validation the parts lavapipe cannot
# show (the host-recorded steps, async compute, the live surface, the volume
# renderer from outside and inside its mesh, the viewer's volume picture,
# water into cloth at 1 to 8 m/s with real parallel threads), and the GPU
# time model's check. Each check's log, exit status and seconds go to
# $OUT (default /tmp/gpu-check): summary.txt has one line a check.
# usage: tools/gpu_check.sh [BUILD_DIR]
set -u
b=${1:-build-gpu}
out=${OUT:-/tmp/gpu-check}
mkdir -p "$out"
# GPU_CHECK_LOCAL=1: this machine's own Vulkan (a dry run of the script).
if [ -z "${GPU_CHECK_LOCAL:-}" ]; then
    for f in .gl/libvulkan1*.deb; do dpkg -x "$f" /; done
    ldconfig
    mkdir -p /tmp/x
    for f in .gl/*.deb; do dpkg -x "$f" /tmp/x; done
    export LD_LIBRARY_PATH=/tmp/x/usr/lib/x86_64-linux-gnu:$PWD/$b:/usr/local/nvidia/lib64
    export VK_LAYER_PATH=/tmp/x/usr/share/vulkan/explicit_layer.d
    # The driver's own manifest names its GLX library, which gives no
    # vkCreateInstance without a display; its EGL library is the headless entry.
    printf '{"file_format_version":"1.0.1","ICD":{"library_path":"/usr/local/nvidia/lib64/libEGL_nvidia.so.0","api_version":"1.4.312"}}' >/tmp/egl.json
    export VK_DRIVER_FILES=/tmp/egl.json
fi
export EDDY_DATA=$PWD/data EDDY_SOURCE_ROOT=$PWD
: >"$out/summary.txt"
check() {
    local name=$1 start rc
    shift
    start=$(date +%s%N)
    timeout "${GPU_CHECK_TIMEOUT:-150}" "$@" >"$out/$name.log" 2>&1
    rc=$?
    printf '%-28s exit %3d  %6d ms  %s\n' "$name" "$rc" "$(( ($(date +%s%N) - start) / 1000000 ))" \
        "$(grep -m1 -E 'FAIL|check failed|validation\.reported|VUID|SYNC-' "$out/$name.log" | head -c 160)" | tee -a "$out/summary.txt"
}
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
unset EDDY_VALIDATION
GPU_CHECK_TIMEOUT=${GPU_CHECK_MODEL_TIMEOUT:-240} check model "$b/tools/eddy/eddy" bench sph pbf rigid granular deform volume --iterations 100 --no-reference \
    --model docs/data/devices/h100_sxm.json
grep "^{" "$out/model.log" >"$out/model_check.jsonl"
# What comes back from a lent machine is counted in files: the logs in one
# archive beside the summary, the model check and the pictures.
(cd "$out" && tar czf logs.tar.gz ./*.log devices.txt && rm -f ./*.log)
