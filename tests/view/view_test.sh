#!/usr/bin/env bash
# Tests of `eddy view`, the viewer: one case per invocation.
# usage: view_test.sh EDDY_BINARY SOURCE_ROOT CASE
#   offscreen   no display: the scene rendered offscreen to a PNG that shows it
#   screenshot  under Xvfb: the window's last frame (--screenshot) equals the
#               offscreen PNG of the same frame below the text bar (the bar
#               holds a wall-clock rate)
#   drag        under Xvfb: scripted right-drag events (tests/view/drag.events,
#               through the same handlers as the window's callbacks) move the
#               pbf tool down into the water and its force goes from 0 to
#               holding it up
#   surface     a fluid's live iso-surface drawn from its GPU draw record
#   bodies      rigid bodies drawn from their per-body transforms give the
#               picture their particles' positions give
#   keys        pause, one step, steps a frame, colour, zoom, orbit and reset
#               (tests/view/keys.events) change the steps as they should
#   volume, volume_window
#               a volume system's own picture, offscreen and in a window,
#               equals the PNG the system writes
#   bad_events, bad_option, no_scene
#               refused with cli.usage, exit 2, no PNG written
# Every run is under synchronization validation (EDDY_VALIDATION=sync in the
# test environment); the viewer exits non-zero on any validation message.
set -u
eddy=$1 root=$2 case=$3
here=$root/tests/view
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL ($case): $*"; echo "--- stderr:"; cat "$tmp/err" 2>/dev/null; exit 1; }
bar=13 # the text bar's rows at 480 pixels across
size=480x300

. "$root/tests/require_device.sh"
case $case in
bad_option|no_scene|bad_events) ;;
*) require_device "$eddy";;
esac
windowed() {
    command -v xvfb-run >/dev/null || fail "xvfb-run is missing (tools/install-deps.sh installs xvfb)"
    xvfb-run -a -s "-screen 0 1024x768x24" "$eddy" view "$@"
}

case $case in
offscreen)
    "$eddy" view pbf_tool_5k --offscreen "$tmp/a.png" --frames 10 --size $size >"$tmp/out" 2>"$tmp/err" \
        || fail "exit status $?"
    python3 "$here/png_compare.py" "$tmp/a.png" --lit 5000 --skip-top $bar >"$tmp/cmp" || fail "$(cat "$tmp/cmp")"
    echo "ok ($case): $(cat "$tmp/out"); $(cat "$tmp/cmp")"
    ;;
screenshot)
    windowed pbf_tool_5k --screenshot "$tmp/window.png" --frames 20 --size $size >"$tmp/out" 2>"$tmp/err" \
        || fail "windowed run: exit status $?"
    grep -q "480x300 window" "$tmp/out" || fail "the window is not 480x300: $(cat "$tmp/out")"
    "$eddy" view pbf_tool_5k --offscreen "$tmp/offscreen.png" --frames 20 --size $size >"$tmp/out2" 2>>"$tmp/err" \
        || fail "offscreen run: exit status $?"
    python3 "$here/png_compare.py" "$tmp/window.png" "$tmp/offscreen.png" --skip-top $bar >"$tmp/cmp" \
        || fail "$(cat "$tmp/cmp")"
    python3 "$here/png_compare.py" "$tmp/window.png" --lit 5000 --skip-top $bar >>"$tmp/cmp" || fail "$(cat "$tmp/cmp")"
    echo "ok ($case): $(cat "$tmp/out"); $(tr '\n' ' ' <"$tmp/cmp")"
    ;;
drag)
    windowed pbf_tool_5k --frames 40 --size $size --events "$here/drag.events" --log "$tmp/drag.csv" \
        >"$tmp/out" 2>"$tmp/err" || fail "exit status $?"
    python3 - "$tmp/drag.csv" >"$tmp/check" <<'PY' || fail "$(cat "$tmp/check")"
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def at(frame):
    r = rows[frame - 1]
    return [float(r["tool_" + a]) for a in "xyz"], [float(r["force_" + a]) for a in "xyz"]
before, f_before = at(5)        # the path holds the tool above the water
after, _ = at(40)               # dragged down into it, held there
drop = before[1] - after[1]
mag = lambda f: math.sqrt(sum(c * c for c in f))
held = sum(mag(at(k)[1]) for k in range(21, 41)) / 20  # the water sloshes: the mean over frames 21-40
print(f"tool y {before[1]:.3f} -> {after[1]:.3f} m (down {drop:.3f} m), |F| {mag(f_before):.3f} N before, "
      f"{held:.3f} N mean over frames 21-40")
ok = len(rows) == 40 and drop > 0.1 and mag(f_before) < 1e-6 and held > 2
sys.exit(0 if ok else 1)
PY
    echo "ok ($case): $(cat "$tmp/check"); $(cat "$tmp/out")"
    ;;
surface)
    # A fluid's live iso-surface (sph surface_live: "water.surface"), drawn
    # from its GPU-written draw record in place of the particles.
    "$eddy" view "$here/live_surface.json" --offscreen "$tmp/a.png" --frames 3 --size $size >"$tmp/out" \
        2>"$tmp/err" || fail "exit status $?"
    grep -q " 1 surface mesh(es)" "$tmp/out" || fail "no surface drawn: $(cat "$tmp/out")"
    python3 "$here/png_compare.py" "$tmp/a.png" --lit 3000 --skip-top $bar >"$tmp/cmp" || fail "$(cat "$tmp/cmp")"
    echo "ok ($case): $(cat "$tmp/out"); $(cat "$tmp/cmp")"
    ;;
bodies)
    # Rigid bodies drawn from their per-body transforms (rigid.matrix x
    # rigid.rest, the default) and from their particles' positions, after
    # 0.06 s of a falling body: the same picture but for rounding (at most
    # 0.1% of the pixels).
    for b in on off; do
        "$eddy" view rigid_drop --offscreen "$tmp/$b.png" --frames 20 --steps-per-frame 20 --size $size \
            --color phase --bodies $b >"$tmp/out_$b" 2>>"$tmp/err" || fail "--bodies $b: exit status $?"
    done
    python3 "$here/png_compare.py" "$tmp/on.png" "$tmp/off.png" --skip-top $bar --max-differ 138 >"$tmp/cmp" \
        || fail "$(cat "$tmp/cmp")"
    python3 "$here/png_compare.py" "$tmp/on.png" --lit 1000 --skip-top $bar >>"$tmp/cmp" || fail "$(cat "$tmp/cmp")"
    grep -q " 1 set(s) from body transforms" "$tmp/out_on" || fail "--bodies on: $(cat "$tmp/out_on")"
    grep -q " 0 set(s) from body transforms" "$tmp/out_off" || fail "--bodies off: $(cat "$tmp/out_off")"
    echo "ok ($case): $(tr '\n' ' ' <"$tmp/cmp")"
    ;;
keys)
    # Offscreen: the same handlers as a window's keys and mouse.
    "$eddy" view pbf_tool_5k --offscreen "$tmp/a.png" --frames 14 --size $size --events "$here/keys.events" \
        --log "$tmp/keys.csv" >"$tmp/out" 2>"$tmp/err" || fail "exit status $?"
    python3 - "$tmp/keys.csv" >"$tmp/check" <<'PY' || fail "$(cat "$tmp/check")"
import csv, sys
t = [round(float(r["time"]) / 0.005) for r in csv.DictReader(open(sys.argv[1]))]
# steps done after each frame: 1 step, paused, N steps one, paused, then 2 a frame, reset before frame 13
want = [1, 1, 1, 2, 2, 2, 4, 6, 8, 10, 12, 14, 2, 4]
print(f"steps after each frame {t}, expected {want}")
sys.exit(0 if t == want else 1)
PY
    echo "ok ($case): $(cat "$tmp/check")"
    ;;
no_handle)
    # A deform body without a handle has the handle's input but nothing
    # behind it: no tool, and no error every frame (an error would make the
    # exit status 1).
    "$eddy" view deform_bar --offscreen "$tmp/a.png" --frames 3 --size $size >"$tmp/out" 2>"$tmp/err" \
        || fail "exit status $?"
    grep -q "error" "$tmp/err" && fail "errors while viewing"
    python3 "$here/png_compare.py" "$tmp/a.png" --lit 500 --skip-top $bar >"$tmp/cmp" || fail "$(cat "$tmp/cmp")"
    echo "ok ($case): $(cat "$tmp/out")"
    ;;
scene_view)
    # The scene's output.images camera and colour scale (pbf_tool_5k: speed
    # 0..0.3 m/s, fov 40), unless the command line chooses them (--color).
    "$eddy" view pbf_tool_5k --offscreen "$tmp/a.png" --frames 2 --size $size >"$tmp/out" 2>"$tmp/err" \
        || fail "exit status $?"
    grep -q "the scene's camera, colour speed 0..0.3" "$tmp/err" || fail "not the scene's view: $(head -1 "$tmp/err")"
    "$eddy" view pbf_tool_5k --offscreen "$tmp/b.png" --frames 2 --size $size --color density >"$tmp/out" \
        2>"$tmp/err" || fail "exit status $?"
    grep -q "colour density 0..0" "$tmp/err" || fail "--color did not win: $(head -1 "$tmp/err")"
    echo "ok ($case): $(head -1 "$tmp/err")"
    ;;
solids)
    # A cloth falls onto a sphere (deform_cloth_sphere): the sphere is drawn,
    # in a window as offscreen; --solids off leaves it out.
    windowed deform_cloth_sphere --screenshot "$tmp/window.png" --frames 3 --size $size >"$tmp/out" 2>"$tmp/err" \
        || fail "windowed run: exit status $?"
    "$eddy" view deform_cloth_sphere --offscreen "$tmp/off.png" --frames 3 --size $size --solids off \
        >"$tmp/out2" 2>>"$tmp/err" || fail "offscreen run: exit status $?"
    python3 "$here/png_compare.py" "$tmp/window.png" "$tmp/off.png" --skip-top $bar --differ 2000 >"$tmp/cmp" \
        || fail "$(cat "$tmp/cmp")"
    echo "ok ($case): $(cat "$tmp/cmp")"
    ;;
volume|volume_window)
    # A system's own picture (the volume module's torus, tests/view/volume_view.json,
    # whose output.images camera and background are the system's): the
    # viewer's picture, offscreen or in a window, is the PNG the system
    # writes in a run, within the rounding of the blend (2 of 255).
    "$eddy" run "$here/volume_view.json" --out "$tmp/run" --quiet >"$tmp/out" 2>"$tmp/err" || fail "run: exit status $?"
    if [ "$case" = volume ]; then
        "$eddy" view "$here/volume_view.json" --offscreen "$tmp/view.png" --frames 1 --size 320x240 \
            >"$tmp/out" 2>>"$tmp/err" || fail "exit status $?"
    else
        windowed "$here/volume_view.json" --screenshot "$tmp/view.png" --frames 1 --size 320x240 \
            >"$tmp/out" 2>>"$tmp/err" || fail "windowed run: exit status $?"
    fi
    python3 "$here/png_compare.py" "$tmp/view.png" "$tmp/run/oblique_000000.png" --skip-top 13 --tolerance 2 \
        >"$tmp/cmp" || fail "$(cat "$tmp/cmp")"
    python3 "$here/png_compare.py" "$tmp/view.png" --lit 5000 --skip-top 13 >>"$tmp/cmp" || fail "$(cat "$tmp/cmp")"
    echo "ok ($case): $(tr '\n' ' ' <"$tmp/cmp")"
    ;;
bad_events)
    printf '3 press left 10 10\n2 move 5 5\n' >"$tmp/bad.events"
    "$eddy" view pbf_tool_5k --offscreen "$tmp/a.png" --events "$tmp/bad.events" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || fail "exit status $rc, expected 2"
    grep -q "cli.usage.*bad.events: line 2" "$tmp/err" || fail "the message does not name the file and line"
    [ ! -e "$tmp/a.png" ] || fail "a PNG was written"
    echo "ok ($case): $(head -c 200 "$tmp/err")"
    ;;
bad_option)
    "$eddy" view pbf_tool_5k --size 10x10 --offscreen "$tmp/a.png" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] && grep -q "cli.usage.*--size 10x10.*expected WxH" "$tmp/err" || fail "exit $rc"
    [ ! -e "$tmp/a.png" ] || fail "a PNG was written"
    echo "ok ($case): $(head -1 "$tmp/err")"
    ;;
no_scene)
    "$eddy" view no_such_scene --offscreen "$tmp/a.png" --frames 2 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -ne 0 ] && grep -q "scene.file" "$tmp/err" || fail "exit $rc"
    [ ! -e "$tmp/a.png" ] || fail "a PNG was written"
    echo "ok ($case): $(grep -m1 error "$tmp/err")"
    ;;
*) fail "unknown case" ;;
esac
