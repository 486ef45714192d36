#!/usr/bin/env bash
# The validation runs: long experiments kept out of the default suite (each
# takes minutes on lavapipe): the tank experiments (couple_held_*,
# couple_float, couple_sink, pbf_tool_buoyancy), the still-water families
# (sph_rest_family_*) and the dam-break family of every fluid solver
# (dam_family_*), whose table and plot go into docs/validation.md
# (tools/validation_family.py).
# The longest experiments (suite 'experiment': the PBF tool experiment on
# the 5k scene, cli_pbf_tool_experiment; the weakly compressible tanks at
# 0.5 ms, the 6-across floating cubes, the held IISPH cubes, PBF tilted,
# the held cubes tilted in the IISPH and DFSPH tanks,
# the tool's buoyancy, the weakly compressible and PBF float families, the
# floating cube at several rates, still water with unclamped pressure; most
# a minute or more each) run too, unless the first argument is --ci: CI
# runs the suite 'validation' alone after the test suite, to stay within
# its 15 minutes.
# Ends with "validation: N passed, N failed" (", N skipped" after it when
# tests skipped: no Vulkan device).
set -uo pipefail
cd "$(dirname "$0")/.."
suites=(--suite validation --suite experiment)
if [ "${1:-}" = --ci ]; then
    suites=(--suite validation)
    shift
fi
bash tools/build.sh >/dev/null || { echo "build failed"; echo "validation: 0 passed, 1 failed"; exit 1; }
meson test -C build --no-rebuild "${suites[@]}" --num-processes 2 --print-errorlogs "$@" >build/validate.log 2>&1
status=$?
grep -E "^ *[0-9]+/[0-9]+ " build/validate.log
# Each check's figure against its reference (docs/validation.md), and the
# dam-break family's table and plot written into it.
ls build/validation/*.csv 2>/dev/null | sed 's/^/validation table: /'
python3 tools/validation_family.py build || echo "validation: the dam-break family's table was not written"
python3 - build/validate.log <<'PY'
import re, sys
text = open(sys.argv[1]).read()
n = lambda k: sum(int(x) for x in re.findall(r"^%s:\s+(\d+)" % k, text, re.M))
skipped = n('Skipped')
print(f"validation: {n('Ok') + n('Expected Fail')} passed, {n('Fail') + n('Unexpected Pass') + n('Timeout')} failed"
      + (f", {skipped} skipped" if skipped else ""))
PY
exit $status
