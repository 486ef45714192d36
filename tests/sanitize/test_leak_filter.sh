#!/usr/bin/env bash
# The leak filter (leak_filter.py) on LeakSanitizer reports made up for it:
# a leak whose only eddy frames are in one library folder (engine, scene,
# modules) or in an example module fails; one with only the Vulkan stack's
# frames (and a build folder's binary) passes.
# usage: test_leak_filter.sh SOURCE_ROOT
set -u
root=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
report() { # FRAME_FILE -> a one-leak report whose frame 1 is in FRAME_FILE
    printf '=================================================================\n'
    printf '==1==ERROR: LeakSanitizer: detected memory leaks\n\n'
    printf 'Direct leak of 64 byte(s) in 1 object(s) allocated from:\n'
    printf '    #0 0x4a in malloc (%s/build-san/tests/test_x+0x4a)\n' "$root"
    printf '    #1 0x5b in some_function %s:12:5\n' "$1"
    printf '    #2 0x6c in <unknown module>\n'
}
status=0
for where in engine/src/buffer.c scene/src/scene_load.c modules/sph/sph.c examples/wind/wind.c \
             build-san/../scene/src/output.c; do
    report "$root/$where" >"$tmp/log"
    if python3 "$root/tests/sanitize/leak_filter.py" "$tmp/log" "$root" 2>/dev/null; then
        echo "FAIL: a leak allocated in $where passed the filter"
        status=1
    fi
done
report "/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so" >"$tmp/log"
if ! python3 "$root/tests/sanitize/leak_filter.py" "$tmp/log" "$root" 2>/dev/null; then
    echo "FAIL: the Vulkan stack's leak failed the filter"
    status=1
fi
[ $status -eq 0 ] && echo "ok: leaks with frames in engine/, scene/, modules/ and examples/ fail; the driver's pass"
exit $status
