# Sourced by the GPU machine's scripts (tools/gpu_check.sh, tools/gpu_fluids.sh):
# the Vulkan loader and validation layers from .gl, the driver's headless
# entry, $b (the build, first argument), $out (OUT, else DEFAULT_OUT) with an
# empty summary.txt, and check NAME COMMAND...: one line a check there.
b=${1:-build-gpu}
out=${OUT:-${DEFAULT_OUT:-/tmp/gpu-check}}
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
