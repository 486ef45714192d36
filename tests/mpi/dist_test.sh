#!/usr/bin/env bash
# Runs test_dist (tests/mpi/test_dist.c) under mpirun: the same states on
# 2, 3 and 4 ranks as on one (oversubscribed past the cores: Open MPI's
# --oversubscribe), then a fault on one rank and a rank that dies, each of
# which must end every rank within 60 s with a non-zero status.
# usage: dist_test.sh TEST_DIST [quick]   (quick: 3 ranks and the fault only)
set -uo pipefail
bin=$1 quick=${2:-}
# CI runs as root; Open MPI refuses that unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Shared memory and self only: no network is needed or reachable.
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
# More ranks than cores, beside other tests: a rank waiting in a collective
# yields its core instead of spinning, and no rank is pinned to a core.
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_hwloc_base_binding_policy=none
# In the sanitized suite AddressSanitizer and UBSan still check every
# access, but leaks are not looked for: Open MPI 4.1 leaks at exit from
# components it has already unloaded, whose frames no suppression can name.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/err" 2>/dev/null; exit 1; }
mpi() { timeout 60 mpirun --oversubscribe -np "$@"; }
ranks="2 3 4"
[ "$quick" = quick ] && ranks=3
for n in $ranks; do
    mpi "$n" "$bin" same >"$tmp/out" 2>"$tmp/err" || fail "$n ranks: exit $?"
    cat "$tmp/out"
done
mpi 3 "$bin" fault >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "fault: exit $rc, expected 1"
[ "$(grep -c 'eddy error \[dist.failed\]' "$tmp/err")" -eq 1 ] || fail "fault: expected one message"
grep -q 'rank 2: particle [0-9]*: its velocity is not finite at step 3' "$tmp/err" || fail "fault: the message names no rank or cause"
echo "fault: $(cat "$tmp/err")"
[ "$quick" = quick ] && { echo "ok: dist (quick)"; exit 0; }
mpi 3 "$bin" crash >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "crash: exit $rc (124: a rank hung)"
echo "crash: every rank ended, exit status $rc"
echo "ok: dist"
