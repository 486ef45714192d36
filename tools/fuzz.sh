#!/usr/bin/env bash
# Runs the libFuzzer harnesses (tests/fuzz) for a given time each, in
# parallel, on their seed corpora (the shipped scenes and meshes) and prints,
# per harness, its executions, executions per second and what it found.
# Findings (crash-*, leak-*, timeout-*, oom-*) are kept in
# fuzz-out/<harness>/found/ with the log; the corpus grows in
# fuzz-out/<harness>/corpus/ and is reused by the next run.
# usage: [FUZZ_JOBS=N] tools/fuzz.sh [SECONDS] [scene|obj|tet|cache|view_events|bench_model|cli|module_desc|checkpoint|checkpoint_deep ...]   (default 60 s, all, 1 job)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
root=$PWD
seconds=${1:-60}
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(scene obj tet cache view_events bench_model cli module_desc checkpoint)
case $seconds in ''|*[!0-9]*) echo "usage: tools/fuzz.sh [SECONDS] [scene|obj|tet|cache|view_events|bench_model|cli|module_desc|checkpoint|checkpoint_deep ...]" >&2; exit 2;; esac
bash tools/install-deps.sh >/dev/null || exit 1
if [ ! -f build-san/build.ninja ]; then
    CC=clang meson setup build-san -Db_sanitize=address,undefined -Db_lundef=false \
        "-Dc_args=-fno-omit-frame-pointer -fsanitize=fuzzer-no-link" >/dev/null || exit 1
fi
ninja -C build-san tests/fuzz/fuzz_scene tests/fuzz/fuzz_obj tests/fuzz/fuzz_tet tests/fuzz/fuzz_cache tests/fuzz/fuzz_view_events tests/fuzz/fuzz_bench_model tests/fuzz/fuzz_cli tests/fuzz/fuzz_module_desc tests/fuzz/fuzz_checkpoint >/dev/null || exit 1
export LSAN_OPTIONS="suppressions=$root/tests/sanitize/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
# ASan's quarantine holds freed memory back to catch uses after free; the
# scene harness loads volume scenes whose freed meshes would pile up past
# libFuzzer's RSS limit: a bounded quarantine keeps the check and the limit.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=64"
pids=()
for h in "${harnesses[@]}"; do
    case $h in scene|obj|tet|cache|view_events|bench_model|cli|module_desc|checkpoint|checkpoint_deep) ;; *) echo "unknown harness '$h' (scene, obj, tet, cache, view_events, bench_model, cli, module_desc, checkpoint, checkpoint_deep)" >&2; exit 2;; esac
    # checkpoint_deep: fuzz_checkpoint sealing each edited file again, so
    # the edits reach eddy's walk of the HDF5 structure and, past it,
    # HDF5's parser (libhdf5 itself is fuzzed).
    bin=fuzz_$h kind=$h reseal=0
    [ "$h" = checkpoint_deep ] && bin=fuzz_checkpoint kind=checkpoint reseal=1
    dir=$root/fuzz-out/$h
    mkdir -p "$dir/found"
    bash tests/fuzz/corpus.sh "$kind" "$root" "$dir/corpus"
    rm -f "$dir"/log.*
    # FUZZ_JOBS processes per harness (default 1), each with its own seed on
    # the shared corpus. Scenes name meshes relative to the working folder
    # when fuzzed as text.
    for j in $(seq "${FUZZ_JOBS:-1}"); do
        (cd "$root/scenes" && EDDY_FUZZ_RESEAL=$reseal "$root/build-san/tests/fuzz/$bin" -max_total_time="$seconds" -timeout=30 -detect_leaks=1 \
            -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$dir/found/" "$dir/corpus" \
            >"$dir/log.$j" 2>&1) &
        pids+=("$!:$h")
    done
done
status=0
for p in "${pids[@]}"; do
    wait "${p%%:*}" || status=1
done
for h in "${harnesses[@]}"; do
    dir=$root/fuzz-out/$h
    runs=$(cat "$dir"/log.* | sed -n 's/^stat::number_of_executed_units: *//p' | awk '{s += $1} END {print s + 0}')
    rate=$(cat "$dir"/log.* | sed -n 's/^stat::average_exec_per_sec: *//p' | awk '{s += $1} END {print s + 0}')
    # slow-unit-* files are inputs over 10 s, kept to look at: not failures.
    found=$(ls "$dir/found" | grep -vc '^slow-unit-')
    echo "fuzz_$h: ${runs:-0} executions in $seconds s (${rate:-0}/s), $found finding(s)$( [ "$found" -gt 0 ] && echo ": $(ls "$dir/found" | grep -v '^slow-unit-' | tr '\n' ' ')"), logs $dir/log.*"
    [ "$found" -eq 0 ] || status=1
done
exit $status
