#!/usr/bin/env bash
# Builds eddy and runs the whole test suite (on the default Vulkan device:
# lavapipe on a machine without a GPU), with validation and synchronization
# validation on. Ends with the line "N passed, N failed" (", N skipped" after
# it when tests skipped: exit 77, no Vulkan device; the line before names them).
set -uo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }
# Tests that need a Vulkan device skip (exit 77) where there is none, so a
# machine without lavapipe would pass with the GPU tests unrun: refuse it
# unless EDDY_ALLOW_NO_LAVAPIPE=1 (a machine with only a GPU driver, or none,
# on purpose). CI (.ci/run) also fails on any skipped test.
if [ "${EDDY_ALLOW_NO_LAVAPIPE:-}" != 1 ]; then
    devices=$(build/tools/eddy/eddy devices 2>&1)
    if ! grep -qiE '^[* ] [0-9]+: .*(llvmpipe|lavapipe)' <<<"$devices"; then
        echo "tools/test.sh: no lavapipe (llvmpipe) Vulkan device, so the GPU tests would be skipped;"
        echo "tools/test.sh: 'eddy devices' says:"
        sed 's/^/    /' <<<"$devices"
        echo "tools/test.sh: install it (mesa-vulkan-drivers: tools/install-deps.sh), or set" \
             "EDDY_ALLOW_NO_LAVAPIPE=1 to run on the devices there are (tests needing one skip without)"
        echo "0 passed, 1 failed"
        exit 1
    fi
fi
meson test -C build --num-processes 2 --print-errorlogs --no-suite validation --no-suite experiment
status=$?
python3 - build/meson-logs/testlog.json <<'PY'
import json, sys
passed = failed = skipped = 0
names = []
for line in open(sys.argv[1]):
    t = json.loads(line)
    r = t["result"]
    if r in ("OK", "EXPECTEDFAIL"):
        passed += 1
    elif r == "SKIP":
        skipped += 1
        names.append(t["name"])
    else:
        failed += 1
if names:
    print("skipped (no Vulkan device?): " + ", ".join(names))
print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
PY
exit $status
