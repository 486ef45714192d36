#!/usr/bin/env bash
# The suite's fuzz smoke test: one harness for 3 seconds on its seed
# corpus (the seeds first, then mutations). Fails on any crash, sanitizer
# report, leak or timeout libFuzzer finds; prints its executions. The scene
# harness needs a Vulkan device: without one it skips (exit 77).
# usage: smoke.sh HARNESS scene|obj|tet|cache|view_events|bench_model|cli|module_desc SOURCE_ROOT
set -u
harness=$1 kind=$2 root=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash "$root/tests/fuzz/corpus.sh" "$kind" "$root" "$tmp/corpus" small || exit 1
mkdir -p "$tmp/found"
# The Vulkan stack's own leaks are not findings (tests/sanitize/lsan.supp).
export LSAN_OPTIONS="suppressions=$root/tests/sanitize/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
# ASan's quarantine holds freed memory back to catch uses after free; the
# scene harness loads volume scenes whose freed meshes would pile up past
# libFuzzer's RSS limit: a bounded quarantine keeps the check and the limit.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=64"
# The scene harness steps what it loads (small scenes only): the smoke run
# covers every module's step under the sanitizers, not only loading.
export EDDY_FUZZ_STEP=1
# Scenes name meshes relative to the working folder when fuzzed as text.
cd "$root/scenes" || exit 1
"$harness" -max_total_time=3 -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$tmp/found/" "$tmp/corpus" >"$tmp/log" 2>&1
rc=$?
# The scene harness exits 77 without a Vulkan device: a skip (meson: SKIP).
# libFuzzer's own exit status for a finding is 77 too: the line tells them apart.
if [ $rc -eq 77 ] && grep -q "^skipped: no Vulkan device" "$tmp/log"; then
    grep -m1 "^skipped: no Vulkan device" "$tmp/log"
    exit 77
fi
grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+.*DONE)" "$tmp/log"
if [ $rc -ne 0 ] || [ -n "$(ls "$tmp/found" | grep -v '^slow-unit-')" ]; then
    tail -60 "$tmp/log"
    echo "FAIL: fuzz_$kind found a problem (exit $rc): $(ls "$tmp/found")"
    exit 1
fi
echo "ok: fuzz_$kind"
