#!/usr/bin/env bash
# Runs test_dist (tests/mpi/test_dist.c) under mpirun: the same states on
# 3 ranks as on one (oversubscribed past the cores: Open MPI's
# --oversubscribe), then a fault on one rank and a rank that dies, each of
# which must end every rank within 60 s with a non-zero status.
# usage: dist_test.sh TEST_DIST [quick]   (quick: 3 ranks and the fault only)
set -uo pipefail
bin=$1 quick=${2:-}
. "$(dirname "$0")/mpi_env.sh"
mpi() { timeout 60 mpirun --oversubscribe -np "$@"; }
# 3 ranks (an odd split): the device path's test (run_test.sh) takes 2, 3
# and 4; quick (the sanitized suite) leaves out the rank that dies.
ranks=3
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
