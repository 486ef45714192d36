#!/usr/bin/env bash
# `eddy bench dist.sph` over 2 MPI ranks (mpirun --oversubscribe): one JSON
# line from rank 0 with the 36,000-particle dam's time a step on 2 ranks
# and on rank 0 alone in the same run, their ratio, and a substep's split
# from the ranks' statistics (through the transfer rings: at most 8
# submissions a substep); no temporary folder left behind; and a case
# that does not run over ranks refused once, before anything runs.
# usage: bench_test.sh EDDY
set -uo pipefail
eddy=$1
. "$(dirname "$0")/mpi_env.sh"
export TMPDIR=$tmp
timeout 120 mpirun --oversubscribe -np 2 "$eddy" bench dist.sph --iterations 10 >"$tmp/out" 2>"$tmp/err" ||
    fail "bench dist.sph on 2 ranks: exit $?"
python3 - "$tmp/out" <<'PY' || fail "bench dist.sph: $(cat "$tmp/out")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
assert len(lines) == 1, "expected one line (rank 0's), got %d" % len(lines)
j = lines[0]
assert j["case"] == "dist.sph" and j["ranks"] == 2 and j["particles"] == 36000 and j["steps"] == 10, j
assert j["ms_per_step"] > 0 and j["one_rank_ms_per_step"] > 0, j
assert abs(j["ratio_to_one_rank"] - j["one_rank_ms_per_step"] / j["ms_per_step"]) < 1e-3 * j["ratio_to_one_rank"], j
split = j["per_substep_ms"]
assert all(split[k] >= 0 for k in ("compute", "pack", "exchange", "wait")) and split["compute"] > 0, j
assert 0 < j["ghosts_per_rank"] < 18000 and j["halo_bytes_per_substep"] > 0 and j["submits_per_substep"] >= 1, j
# Through the transfer rings (EDDY_FORCE_STAGING=1, as the suite runs it)
# a substep's small transfers ride on its graphs' submissions: 6.9 of them,
# and the frame's reads over 10 steps (each transfer on its own made
# 24.9). A count, not a time: it holds on any machine.
import os
if os.environ.get("EDDY_FORCE_STAGING") == "1":
    assert j["submits_per_substep"] <= 8, "%.1f submissions a substep (at most 8)" % j["submits_per_substep"]
print("bench dist.sph on 2 ranks: %.1f ms a step, %.1f on one rank; ghosts %d a rank; %.1f submissions a substep" %
      (j["ms_per_step"], j["one_rank_ms_per_step"], j["ghosts_per_rank"], j["submits_per_substep"]))
PY
[ -z "$(ls -A "$tmp" | grep eddy-bench-dist)" ] || fail "bench dist.sph left its temporary folder"
timeout 60 mpirun --oversubscribe -np 2 "$eddy" bench scan >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "bench scan on 2 ranks: exit $rc, expected 2"
[ "$(grep -c '^eddy error \[cli.usage\]: bench over 2 MPI ranks' "$tmp/err")" -eq 1 ] || fail "bench scan on 2 ranks: expected one message"
echo "refused: $(grep '^eddy error' "$tmp/err")"
echo "ok: bench dist"
