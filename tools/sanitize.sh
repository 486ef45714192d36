#!/usr/bin/env bash
# The sanitized suite: a clang build with AddressSanitizer and
# UndefinedBehaviorSanitizer (build-san/, also the libFuzzer build) running
# the CPU-side tests (unit, hostile input, the command line's bad-input
# cases, the fuzz harnesses' smoke runs, the sanitizer self-tests) and a
# sample of the GPU tests. Leaks count only when eddy's own code allocated
# them (tests/sanitize/run.sh). Ends with "N passed, N failed" (", N
# skipped" after it when tests skipped: no Vulkan device).
# usage: tools/sanitize.sh [meson test options]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
root=$PWD
bash tools/install-deps.sh >/dev/null || { echo "install-deps failed"; echo "0 passed, 1 failed"; exit 1; }
if [ ! -f build-san/build.ninja ]; then
    CC=clang meson setup build-san -Db_sanitize=address,undefined -Db_lundef=false \
        "-Dc_args=-fno-omit-frame-pointer -fsanitize=fuzzer-no-link" >/dev/null \
        || { echo "sanitizer build: meson setup failed"; echo "0 passed, 1 failed"; exit 1; }
fi
ninja -C build-san >/dev/null || { ninja -C build-san | tail -30; echo "0 passed, 1 failed"; exit 1; }
# The GPU sample: the engine's building blocks and every module's create,
# step and destroy on small scenes, and each physics test's short GPU-vs-CPU
# part (rigid and couple upload padded per-body scratch: where ASan found an
# over-read); the long physics parts (and the command line's resting
# bodies, 1,200 deform steps) stay in the plain suite: under the
# sanitizers they take minutes and add no host code. The GPU tests keep the
# suite's synchronization validation (EDDY_VALIDATION=sync): measured under
# ASan it adds 0 to 2 s a test (prims 5.4 s against 5.6 s off, grid 45.5
# against 45.4, sph_cpu 3.4 against 1.6, pbf_cpu 6.2 against 4.5), and the
# layer's own leaks carry no eddy frame, so run.sh ignores them. The grid
# test (32 s under ASan) is left to the plain suite: its host code (the
# grid's create and record) runs in every module test of the sample. The
# checkpoints' hostile files run here, and a sample of their families (the
# suite 'sanitize': checkpoint_sanitize). The MPI runs through the transfer
# rings (dist_run_staging) run the host code of dist_run's quick part
# (the IISPH dam with its cube on 3 ranks, and the faults), which runs here.
# eddy graph's description runs here in the graph test and its arguments in
# fuzz_cli; cli_graph (every shipped scene loaded: 12 s under ASan) stays
# in the plain suite.
gpu_sample=(roundtrip roundtrip_staging graph memory prims prims_no_subgroup render adopt module_load
            lifetime buffers images pipeline_cache api_misuse desc_size
            ballistic sph_surface pbf_haptic sph_cpu pbf_cpu pbf_tool_cpu couple_cpu couple_sheet_cpu rigid_cpu
            deform_contact_cpu checkpoint_hostile)
cli=$(meson test -C build-san --list 2>/dev/null | sed -n 's/^eddy:cli \/ //p' \
      | grep -vx -e cli_pbf_tool_experiment -e cli_bench -e cli_resting -e dist_run_staging -e cli_graph)
# shellcheck disable=SC2086
meson test -C build-san --no-rebuild --num-processes 2 --print-errorlogs \
    --wrapper "$root/tests/sanitize/run.sh" \
    --suite unit --suite hostile --suite sanitize "$@" >build-san/sanitize-a.log 2>&1
a=$?
# shellcheck disable=SC2086
meson test -C build-san --no-rebuild --num-processes 2 --print-errorlogs \
    --wrapper "$root/tests/sanitize/run.sh" "${gpu_sample[@]}" $cli "$@" >build-san/sanitize-b.log 2>&1
b=$?
# Each harness runs 3 s on one core (libFuzzer is single-threaded): two at
# a time on two cores.
meson test -C build-san --no-rebuild --num-processes 2 --print-errorlogs --suite fuzz "$@" \
    >build-san/sanitize-c.log 2>&1
c=$?
cat build-san/sanitize-a.log build-san/sanitize-b.log build-san/sanitize-c.log | grep -E "^ *[0-9]+/[0-9]+ |^(Ok|Expected Fail|Fail|Unexpected Pass|Skipped|Timeout): "
python3 - build-san/sanitize-a.log build-san/sanitize-b.log build-san/sanitize-c.log <<'PY'
import re, sys
count = {}
for f in sys.argv[1:]:
    for m in re.finditer(r"^(Ok|Expected Fail|Fail|Unexpected Pass|Skipped|Timeout):\s+(\d+)", open(f).read(), re.M):
        count[m.group(1)] = count.get(m.group(1), 0) + int(m.group(2))
passed = count.get("Ok", 0) + count.get("Expected Fail", 0)
failed = count.get("Fail", 0) + count.get("Unexpected Pass", 0) + count.get("Timeout", 0)
skipped = count.get("Skipped", 0)
print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
PY
[ $a -eq 0 ] && [ $b -eq 0 ] && [ $c -eq 0 ]
