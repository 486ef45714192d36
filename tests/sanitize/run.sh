#!/usr/bin/env bash
# Runs one test of the sanitized build (meson test --wrapper): AddressSanitizer
# and UndefinedBehaviorSanitizer errors fail it at once; leaks fail it only
# when eddy's own code (a frame from this source tree) allocated them. The
# Vulkan stack (loader, lavapipe and its LLVM, the validation layer) keeps
# allocations past exit and unloads its libraries, so its leaks show as
# frames of <unknown module> or of those libraries: not eddy's to fix.
# usage: run.sh PROGRAM [ARGS...]   (SANITIZE_ROOT = the source tree)
set -u
root=${SANITIZE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1:log_path=$logs/asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS="exitcode=0:report_objects=0:suppressions=$root/tests/sanitize/lsan.supp:print_suppressions=0"
# One log for all three (log_path is a flag they share: the last one set wins).
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
"$@"
rc=$?
status=0
shopt -s nullglob
for f in "$logs"/asan.*; do
    if grep -q "ERROR: AddressSanitizer\|runtime error:" "$f"; then
        echo "--- AddressSanitizer / UndefinedBehaviorSanitizer:" >&2
        cat "$f" >&2
        status=1
        continue
    fi
    # Leak reports: one block per leak, "Direct/Indirect leak of ..." then
    # frames. A block with a frame in this tree is eddy's leak.
    python3 "$root/tests/sanitize/leak_filter.py" "$f" "$root" || status=1
done
# A skip (77: no Vulkan device) with a sanitizer finding before it is a failure.
if [ $rc -ne 0 ] && ! { [ $rc -eq 77 ] && [ $status -ne 0 ]; }; then
    exit $rc
fi
exit $status
