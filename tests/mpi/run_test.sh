#!/usr/bin/env bash
# `eddy run` over MPI ranks (mpirun --oversubscribe on this machine's
# cores): each scene's (IISPH and DFSPH coupled with a cube, PBF, granular
# material with friction, weakly compressible SPH coupled with rigid bodies
# that lie across the ranks and with a soft ball every rank holds whole,
# PBF coupled with a cube and a soft ball, a cloth catching PBF water, a
# PBF tool driven along a path, adaptive substeps; the ports logged)
# last frame on
# 2, 3 and 4 ranks, gathered by particle id from
# the ranks' pieces, is bitwise the one-rank run's, and so are the
# statistics lines; particles migrate and the split moves; VTK's parallel
# reader opens a frame and finds every particle once; a rank fed an
# unstable configuration stops every rank with one message naming it; a
# checkpoint of 2 ranks (with bodies) resumes on 3 and on 1 with the same
# bits.
# usage: run_test.sh EDDY SOURCE_ROOT GROWTH_MODULE [quick|rings]
# (quick, for the sanitized suite: the IISPH scene with its cube on 3
# ranks, whose iterations are parts of the substep, and the faults; rings,
# for the run through the transfer rings: that scene alone)
set -uo pipefail
eddy=$1 root=$2 growth=$3 quick=${4:-}
here=$root/tests/mpi
. "$here/mpi_env.sh"
mpi() { timeout 120 mpirun --oversubscribe -np "$@"; }
clean() { ! grep -q 'validation' "$tmp/err" || fail "$1: validation messages"; }
# After a run that must fail (its exit status rc): a non-zero status that is
# not timeout's (124: a rank hung), and in $tmp/err exactly one message,
# which matches the pattern (grep -E).
one_error() { # label rc pattern
    [ "$2" -ne 0 ] && [ "$2" -ne 124 ] || fail "$1: exit $2 (124: a rank hung)"
    [ "$(grep -c '^eddy error' "$tmp/err")" -eq 1 ] || fail "$1: expected one message"
    grep -qE "$3" "$tmp/err" || fail "$1: the message does not match '$3'"
    echo "$1: exit $2: $(grep '^eddy error' "$tmp/err")"
}
# scene:set:checks[:ranks] (--moves: particles migrate and the split moves;
# --spanning: a body lies across ranks; a scene's second set reuses its
# runs; ranks 2, 3 and 4 unless given, joined by _). IISPH's dam and
# DFSPH's (IISPH's pattern twice), each with a cube, on 3 ranks (the
# uncoupled solvers' passes are the same but for the boundary's terms;
# IISPH's uncoupled in the adaptive dam): the weakly compressible
# dam with bodies covers the sph module on 2, 3 and 4, and the adaptive
# dam IISPH again on 3 and 4. PBF's dam on 2 and 4, its coupled dam (a
# cube and a soft ball) on 3, the cloth catching water and the tool on
# 3. The adaptive dam (IISPH with few
# iterations beside a weakly compressible column: its substeps go from 3
# to 10 as the solves stop unconverged, and on 3 and 4 ranks one rank
# holds no IISPH particles for a while) on 3 (by hand on 4 too).
runs="iisph_dam:water:-:3 iisph_dam:cube:-:3 dfsph_dam:water:--moves:3 dfsph_dam:cube:-:3 pbf_dam:water:--moves:2_4 granular_pile:sand:--moves
      couple_dam:water:- couple_dam:bodies:--spanning couple_dam:ball:--spanning
      pbf_couple:water:-:3 pbf_couple:cube:-:3 pbf_couple:ball:--spanning:3
      cloth_water:water:-:3 cloth_water:sheet:--spanning:3 pbf_tool:water:-:3 adaptive_dam:water:--moves:3 adaptive_dam:oil:-:3"
[ "$quick" = quick ] || [ "$quick" = rings ] && runs="iisph_dam:water:-:3 iisph_dam:cube:-:3"
for run in $runs; do
    IFS=: read -r scene set checks ranks <<<"$run"
    [ "$checks" = - ] && checks=""
    ranks=${ranks:-2 3 4}
    ranks=${ranks//_/ }
    json=$here/dist_$scene.json
    # The sanitized and ring runs look at the host code, not the dynamics:
    # the IISPH dam's first 20 steps.
    if [ -n "$quick" ] && [ ! -f "$tmp/dist_$scene.json" ]; then
        sed 's/"duration": 0.05,/"duration": 0.02,/' "$json" >"$tmp/dist_$scene.json"
        grep -q '"duration": 0.02,' "$tmp/dist_$scene.json" || fail "$scene: no duration to shorten"
    fi
    [ -n "$quick" ] && json=$tmp/dist_$scene.json
    if [ ! -d "$tmp/$scene.1" ]; then
        "$eddy" run "$json" --out "$tmp/$scene.1" --quiet >"$tmp/out" 2>"$tmp/err" || fail "$scene, 1 rank: exit $?"
        clean "$scene, 1 rank"
    fi
    for n in $ranks; do
        if [ ! -d "$tmp/$scene.$n" ]; then
            mpi "$n" "$eddy" run "$json" --out "$tmp/$scene.$n" --quiet >"$tmp/out" 2>"$tmp/err" ||
                fail "$scene, $n ranks: exit $?"
            clean "$scene, $n ranks"
        fi
        python3 "$here/compare_runs.py" "$tmp/$scene.1" "$tmp/$scene.$n" "$set" $checks || fail "$scene, $n ranks"
    done
done
# The PBF tool's ports (its path, the fluid's force on it: sums over the
# whole fluid, each particle's rows gathered by id), logged by rank 0 each
# step, are the one-rank run's to the bit.
# So are the soft ball's handle ports in the dam with bodies (the handle
# pushing it into the water; the force sums vertices every rank holds).
if [ -z "$quick" ]; then
    cmp "$tmp/pbf_tool.1/ports_tool.csv" "$tmp/pbf_tool.3/ports_tool.csv" || fail "pbf_tool: ports_tool.csv differs"
    [ "$(wc -l <"$tmp/pbf_tool.3/ports_tool.csv")" -eq 41 ] || fail "pbf_tool: expected 40 logged steps"
    echo "pbf_tool: ports_tool.csv on 3 ranks is the one-rank run's, 40 steps"
    for n in 2 3 4; do
        cmp "$tmp/couple_dam.1/ports_ball.csv" "$tmp/couple_dam.$n/ports_ball.csv" ||
            fail "couple_dam: ports_ball.csv differs on $n ranks"
    done
    [ "$(wc -l <"$tmp/couple_dam.4/ports_ball.csv")" -eq 126 ] || fail "couple_dam: expected 125 logged steps"
    echo "couple_dam: the ball's handle ports on 2, 3 and 4 ranks are the one-rank run's, 125 steps"
fi
[ "$quick" = rings ] && { echo "ok: dist_run (rings)"; exit 0; }
# ParaView's reader (python3-vtk9): the pieces make one dataset.
vtkpy=""
for py in python3 /usr/bin/python3; do
    "$py" -c 'import vtk' 2>/dev/null && { vtkpy=$py; break; }
done
if [ -n "$vtkpy" ]; then
    "$vtkpy" "$here/pvtp_read.py" "$tmp/iisph_dam.3" water 4500 >"$tmp/out" 2>"$tmp/err" || fail "pvtp: $(cat "$tmp/out")"
    cat "$tmp/out"
else
    echo "pvtp: not read (python3-vtk9 is not installed; tools/install-deps.sh installs it)"
fi
# Rank 2 runs the scene with a substep over the solver's stability bound:
# every rank stops at once with rank 2's message, once.
sed 's/"dt": 0.0005/"dt": 0.01/' "$here/dist_sph_dam.json" >"$tmp/unstable.json"
start=$(date +%s)
timeout 60 mpirun --oversubscribe -np 2 "$eddy" run "$here/dist_sph_dam.json" --out "$tmp/fault" --quiet : \
    -np 1 "$eddy" run "$tmp/unstable.json" --out "$tmp/fault" --quiet >"$tmp/out" 2>"$tmp/err"
rc=$?
one_error "fault (after $(( $(date +%s) - start )) s)" $rc '^eddy error \[system\.unstable\]: rank 2: '
# Mid-run: rank 2 alone adds test_growth (tests/modules/damping_module.c)
# at a rate whose factor overflows, so its particles go non-finite in the
# first substep while the others' stay finite: rank 2 finds it and every
# rank stops at that substep with its message.
python3 - "$here/dist_sph_dam.json" "$tmp/grow.json" <<'PY'
import json, sys
scene = json.load(open(sys.argv[1]))
scene["systems"].append({"name": "grow", "module": "test_growth", "set": "water", "params": {"rate": 1e6}})
json.dump(scene, open(sys.argv[2], "w"))
PY
start=$(date +%s)
timeout 60 mpirun --oversubscribe -np 2 "$eddy" run "$here/dist_sph_dam.json" --out "$tmp/fault2" --quiet : \
    -np 1 "$eddy" run "$tmp/grow.json" --module "$growth" --out "$tmp/fault2" --quiet >"$tmp/out" 2>"$tmp/err"
rc=$?
one_error "mid-run fault (after $(( $(date +%s) - start )) s)" $rc \
    "^eddy error \[particles\.not_finite\]: rank 2: particle set 'water': particle [0-9]* has a non-finite position or velocity in step 1:"
[ "$quick" = quick ] && { echo "ok: dist_run (quick)"; exit 0; }
# Checkpoints over ranks: the dam with bodies saved on 2 ranks at step 50
# (one file, gathered to rank 0; the bodies' rows as they are on every
# rank), resumed on 3 ranks and on 1: both end on the one-rank run's last
# frame, bit for bit, water, bodies and the soft ball. (The WCSPH dam alone is the water
# of this scene.)
cd_json=$here/dist_couple_dam.json
mpi 2 "$eddy" run "$cd_json" --out "$tmp/ck" --quiet --steps 50 --checkpoint-every 0.04 >"$tmp/out" 2>"$tmp/err" ||
    fail "checkpoint on 2 ranks: exit $?"
ls "$tmp/ck"/checkpoint_000000000050.h5 >/dev/null 2>&1 || fail "checkpoint on 2 ranks: no checkpoint_000000000050.h5"
cp -r "$tmp/ck" "$tmp/ck1"
mpi 3 "$eddy" run --resume "$tmp/ck" --quiet >"$tmp/out" 2>"$tmp/err" || fail "resume on 3 ranks: exit $?"
clean "resume on 3 ranks"
"$eddy" run --resume "$tmp/ck1" --quiet >"$tmp/out" 2>"$tmp/err" || fail "resume on 1 rank: exit $?"
for set in water bodies ball; do
    python3 "$here/compare_runs.py" "$tmp/couple_dam.1" "$tmp/ck" $set || fail "resume on 3 ranks ($set)"
    python3 "$here/compare_runs.py" "$tmp/couple_dam.1" "$tmp/ck1" $set || fail "resume on 1 rank ($set)"
done
# What does not run over ranks yet is refused before anything runs.
# (The iso-surface of a fluid: it is extracted from the whole set.)
sed -e 's/"front_axis": 0/"front_axis": 0, "surface_mesh": true/' -e "s#\.\./\.\./data/#$root/data/#" \
    "$here/dist_couple_dam.json" >"$tmp/refused.json"
mpi 2 "$eddy" run "$tmp/refused.json" --out "$tmp/refused" --quiet >"$tmp/out" 2>"$tmp/err"
one_error refusal $? '^eddy error \[dist\.unsupported\]: rank 0: '
[ ! -e "$tmp/refused" ] || fail "refusal: an output folder was made"
# PBF moves particles within the substep: at five times its dt the dam's
# front outruns the reach its halos were cut for, and the run stops with
# one message rather than step with particles missing.
sed 's/"dt": 0.004/"dt": 0.02/' "$here/dist_pbf_dam.json" >"$tmp/fast.json"
mpi 2 "$eddy" run "$tmp/fast.json" --out "$tmp/fast" --quiet >"$tmp/out" 2>"$tmp/err"
one_error "too fast" $? '^eddy error \[dist\.too_fast\]: rank [0-9]: '
echo "ok: dist_run"
