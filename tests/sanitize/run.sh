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
    python3 - "$f" "$root" <<'PY' || status=1
import re, sys
text = open(sys.argv[1], errors="replace").read()
root = sys.argv[2].rstrip("/") + "/"
blocks = re.split(r"\n(?=(?:Direct|Indirect) leak of )", text)
# A frame of eddy's source: "in FUNCTION ROOT/engine/src/x.c:LINE" (the
# interceptor's frame names the binary under ROOT/build-san: not a source).
# Sources compiled from the build folder show as ROOT/build-san/../engine/...
mine = re.compile(r" in \S+ " + re.escape(root) + r"(?:[^/\s]+/\.\./)?(engine|scene|modules|shaders|tests|tools|examples)/")
ours = [b for b in blocks if re.match(r"(Direct|Indirect) leak of ", b)
        and any(mine.search(line) for line in b.splitlines()[1:])]
others = sum(1 for b in blocks if re.match(r"(Direct|Indirect) leak of ", b)) - len(ours)
for b in ours:
    sys.stderr.write("--- LeakSanitizer: a leak from eddy's code:\n" + b.strip() + "\n")
if others:
    sys.stderr.write(f"(sanitize: {others} leak report(s) without an eddy frame ignored: the Vulkan stack's)\n")
sys.exit(1 if ours else 0)
PY
done
# A skip (77: no Vulkan device) with a sanitizer finding before it is a failure.
if [ $rc -ne 0 ] && ! { [ $rc -eq 77 ] && [ $status -ne 0 ]; }; then
    exit $rc
fi
exit $status
