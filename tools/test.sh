#!/usr/bin/env bash
# Builds eddy and runs the whole test suite (on the default Vulkan device:
# lavapipe on a machine without a GPU), with validation and synchronization
# validation on. Ends with the line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }
meson test -C build --num-processes 2 --print-errorlogs --no-suite validation
status=$?
python3 - build/meson-logs/testlog.json <<'PY'
import json, sys
passed = failed = skipped = 0
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    if r in ("OK", "EXPECTEDFAIL"):
        passed += 1
    elif r == "SKIP":
        skipped += 1
    else:
        failed += 1
print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
PY
exit $status
