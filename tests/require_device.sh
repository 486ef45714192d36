# shellcheck shell=bash
# Sourced by the shell tests (cli, hostile): `require_device EDDY` returns
# when `EDDY devices` lists a Vulkan device. When it finds none, or Vulkan
# cannot be loaded (`eddy devices` exits 1 with its message), it prints one
# "skipped: no Vulkan device (...)" line and exits 77, which meson counts as
# SKIP. Any other outcome (a crash, exit 0 without a device line) fails.
# A skip never hides the suite: tools/test.sh refuses to run without
# lavapipe, and CI (.ci/run) fails on any skipped test.
require_device() {
    local out rc
    out=$("$1" devices 2>&1)
    rc=$?
    if [ $rc -eq 0 ] && grep -q '^[* ] [0-9][0-9]*: ' <<<"$out"; then
        return 0
    fi
    if [ $rc -eq 1 ]; then
        echo "skipped: no Vulkan device (eddy devices: $(grep -m1 . <<<"$out"))"
        exit 77
    fi
    echo "FAIL: '$1 devices' exited $rc without listing a device: $out"
    exit 1
}
