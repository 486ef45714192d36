#!/usr/bin/env bash
# Hostile input (issue 13): scenes, meshes and command lines an attacker or a
# careless user could hand eddy. One case per invocation.
# usage: hostile_test.sh EDDY_BINARY SOURCE_ROOT CASE [GROWTH_MODULE]
#
# Every run happens in a sandbox: a fresh folder three levels deep holding a
# copy of tests/hostile/scenes, which is also the working folder. A refused
# input passes when eddy exits non-zero, stderr has the expected message
# (file, field, what was expected) and nothing in the sandbox changed: no
# file or folder written anywhere, in the output folder, beside it or above.
set -u
eddy=$1 root=$2 case=$3 growth=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
box=$tmp/a/b/c
mkdir -p "$box"
cp -r "$root/tests/hostile/scenes/." "$box/"
cd "$box" || exit 1

fail() { echo "FAIL ($case): $*"; echo "--- stderr:"; cat "$tmp/err" 2>/dev/null; exit 1; }
snapshot() { (cd "$tmp" && find . -path ./err -prune -o -path ./outlog -prune -o -print | sort); }

# refuse ARGS... -- PATTERN...: `eddy ARGS` must fail with every pattern in
# stderr, within the time limit, and write nothing.
refuse() {
    local args=() pats=() seen=0
    for a in "$@"; do
        if [ "$a" = "--" ]; then seen=1; elif [ $seen = 0 ]; then args+=("$a"); else pats+=("$a"); fi
    done
    local before
    before=$(snapshot)
    timeout 60 "$eddy" "${args[@]}" >"$tmp/outlog" 2>"$tmp/err" </dev/null
    local rc=$?
    [ $rc -ne 124 ] || fail "eddy did not return within 60 s"
    [ $rc -ne 0 ] || fail "exit status 0, expected non-zero"
    [ $rc -lt 128 ] || fail "eddy died with signal $((rc - 128))"
    for p in "${pats[@]}"; do
        grep -qF -- "$p" "$tmp/err" || fail "stderr lacks '$p'"
    done
    grep -q "validation message" "$tmp/err" && fail "validation messages"
    [ "$(snapshot)" = "$before" ] || fail "files changed: $(diff <(echo "$before") <(snapshot))"
    echo "ok ($case): exit $rc, message: $(grep -m1 error "$tmp/err")"
}

# `eddy run` makes its engine before it reads the scene: those cases need a
# Vulkan device and skip (exit 77) without one; the voxeliser's cases
# (`eddy voxelize`, host only) run anyway.
. "$root/tests/require_device.sh"
case $case in
voxel_overflow_cli|tiny_diameter_cli|endless_cli|long_line_cli|slab_memory|slab_budget) ;;
*) require_device "$eddy";;
esac

case $case in
# 1. The voxel grid's size product wrapped to 0 (2^51 x 64 x 128 voxels at a
#    spacing of 2^-29 m) and the fill wrote past a calloc(0): now each axis
#    is bounded before the product, which is checked too.
voxel_overflow)
    refuse run voxel_overflow.json -- "voxel_overflow.json: particle_sets[0].fill.file" \
        "is too small for this mesh" "voxels along axis 0 (at most 1e9)";;
voxel_overflow_cli)
    refuse voxelize meshes/thin_box.obj --diameter 1.862645149230957e-9 -- "thin_box.obj: diameter 1.86265e-09 m is too small" \
        "voxels along axis 0 (at most 1e9)";;
tiny_diameter_cli)
    # Was a float-to-integer overflow (undefined) and a wrong message.
    refuse voxelize meshes/cube.obj --diameter 1e-300 -- "diameter 1e-300 m is too small" "at most 1e9";;
# 3. copies x pattern wrapped past the limit; host memory grew without bound.
copies_overflow)
    refuse run copies_overflow.json -- "copies_overflow.json: particle_sets[0].fill:" \
        "144115188075855872 copies of 128 particles would make the set hold more than";;
# 4. Endless or blocking files: refused before they are read.
endless_mesh)
    refuse run endless_mesh.json -- "particle_sets[0].fill.file" "/dev/zero: not a regular file";;
endless_cli)
    refuse voxelize /dev/zero --diameter 0.1 -- "/dev/zero: not a regular file";;
fifo_mesh)
    mkfifo fifo.obj
    refuse run fifo_mesh.json -- "fifo.obj: not a regular file";;
nul_mesh)
    head -c 100000 /dev/zero > zeros.obj
    refuse run nul_mesh.json -- "zeros.obj:1: a NUL byte: not a text file";;
long_line_cli)
    { printf 'v 0 0 0 #'; head -c 5000 /dev/zero | tr '\0' 'x'; printf '\n'; } > long.obj
    refuse voxelize long.obj --diameter 0.1 -- "long.obj:1: line longer than 4094 characters";;
endless_scene)
    refuse run /dev/zero -- "/dev/zero: not a regular file";;
# 5. Names reach file names: one path component, or refused.
name_traversal)
    refuse run name_traversal.json -- "name_traversal.json: name: '../../x' cannot name output files" "contains \"..\"";;
set_traversal)
    refuse run set_traversal.json -- "particle_sets[0].name: '../../../x' cannot name output files";;
system_traversal)
    refuse run system_traversal.json -- "systems[0].name: '../../sysx' cannot name output files";;
set_slash)
    refuse run set_slash.json -- "particle_sets[0].name: 'a/b' cannot name output files" "contains a '/'";;
name_dot)
    refuse run name_dot.json -- "name: '.' cannot name output files";;
name_control)
    refuse run name_control.json -- "name: 'a\\x01b' cannot name output files: it contains a control character";;
name_backslash)
    refuse run name_backslash.json -- "cannot name output files: it contains a '/' or '\\'";;
name_utf8)
    refuse run name_utf8.json -- "name: 'bad\\xff\\xfename' cannot name output files: it is not valid UTF-8";;
stem_bad)
    # An unnamed scene is named by its file's stem, under the same rules.
    sed 's/"name": "\.\.\/\.\.\/x", //' name_traversal.json > 'x..y.json'
    refuse run 'x..y.json' -- "x..y.json: name: 'x..y' cannot name output files";;
# 8. Too long: refused, never cut.
scene_name_long)
    refuse run scene_name_long.json -- "name: 'nnnnn" "it is too long; expected at most 127 bytes";;
set_name_long)
    refuse run set_name_long.json -- "particle_sets[0].name:" "it is too long; expected at most 63 bytes";;
system_name_long)
    refuse run system_name_long.json -- "systems[0].name:" "it is too long; expected at most 63 bytes";;
system_name_twice)
    refuse run system_name_twice.json -- "systems[1].name: a system named 'ballistic' exists already";;
out_too_long)
    refuse run stats_escape.json --out "$(printf 'o%.0s' $(seq 2100))" -- "(--out) is 2100 bytes long; at most 2047";;
# 6. Voxeliser memory: refused before the work by the volume estimate, and
#    by the budget while crossings are collected; peak memory stays in it.
slab_memory)
    refuse voxelize meshes/slab.obj --diameter 0.00025 -- "about 5.184e+07 particles" "more than the limit";;
slab_budget)
    before=$(snapshot)
    python3 - "$eddy" <<'PY' || fail "budget"
import resource, subprocess, sys
r = subprocess.run([sys.argv[1], "voxelize", "meshes/slab.obj", "--diameter", "0.00025", "--surface-only",
                    "--max-bytes", "100000000"], capture_output=True, text=True, timeout=60)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
assert r.returncode == 1, (r.returncode, r.stderr)
assert "over the voxeliser's host memory budget of 100000000 bytes" in r.stderr, r.stderr
assert peak < 100000000 + 60000000, f"peak memory {peak} bytes over the 1e8 budget (+ 60 MB for the program)"
print(f"refused within the budget, peak {peak / 1e6:.1f} MB")
PY
    [ "$(snapshot)" = "$before" ] || fail "files changed"
    echo "ok ($case)";;
# 10. Smaller faults.
duplicate_key)
    refuse run duplicate_key.json -- "particle_sets[0].spacing: given twice in one object";;
fractional_capacity)
    refuse run fractional_capacity.json -- "particle_sets[0].capacity: 100.5 is not a whole number";;
fractional_phase)
    refuse run fractional_phase.json -- "particle_sets[0].phase: 2.5 is not a whole number";;
pbf_relaxation_zero)
    refuse run pbf_relaxation_zero.json -- "systems[0].params.relaxation: 0 is out of range";;
malformed_binary)
    refuse run malformed_binary.json -- "malformed_binary.json:1:" "malformed JSON near 'mred\\xff\\xfe, \"box\": 1 }\\x0a'"
    LC_ALL=C grep -q $'[\x01\x02\x1b\xff]' "$tmp/err" && fail "raw control or binary bytes reached the terminal"
    echo "ok ($case): no raw bytes";;
short_array)
    refuse run short_array.json -- "fill.min: expected an array of 3 numbers, got an array of 2 elements";;
empty_string)
    refuse run empty_string.json -- "systems[0].module: expected a non-empty string, got an empty one";;
# 7. Any accepted name gives valid JSON lines and XML.
stats_escape)
    "$eddy" run stats_escape.json --out out --quiet >"$tmp/outlog" 2>"$tmp/err" || fail "exit status $?"
    python3 - out <<'PY' || fail "stats.jsonl or .pvd does not parse"
import json, os, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
lines = [json.loads(l) for l in open(os.path.join(d, "stats.jsonl"), encoding="utf-8")]
assert len(lines) == 4, len(lines)
assert list(lines[-1]["sets"]) == ['set "q" <&>'], lines[-1]["sets"].keys()
assert list(lines[-1]["systems"]) == ['sys "r" &'], lines[-1]["systems"].keys()
files = [e.get("file") for e in ET.parse(os.path.join(d, 'set "q" <&>.pvd')).getroot().iter("DataSet")]
assert files == ['set "q" <&>_%06d.vtp' % i for i in range(4)], files
assert all(os.path.exists(os.path.join(d, f)) for f in files)
print("stats.jsonl: 4 JSON lines; .pvd: 4 files named with quotes and <&>")
PY
    echo "ok ($case)";;
# 9. A rerun into a used folder leaves only what its .pvd and stats.jsonl
#    describe; a foreign folder is refused untouched.
rerun)
    "$eddy" run rerun_tool.json --out out --quiet >"$tmp/outlog" 2>"$tmp/err" || fail "first run: exit $?"
    [ -s out/tool_tool.csv ] || fail "first run wrote no tool log"
    : > out/stale.vtp.tmp # as a killed run leaves it
    "$eddy" run rerun_tool.json --out out --steps 1 --quiet >"$tmp/outlog" 2>"$tmp/err" || fail "second run: exit $?"
    python3 - out <<'PY' || fail "the folder holds files the second run does not describe"
import json, os, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
stats = [json.loads(l) for l in open(os.path.join(d, "stats.jsonl"))]
assert [s["step"] for s in stats] == [0, 1], stats
described = {"stats.jsonl", "p.pvd", "tool_tool.csv", ".eddy_output"}
described |= {e.get("file") for e in ET.parse(os.path.join(d, "p.pvd")).getroot().iter("DataSet")}
rows = open(os.path.join(d, "tool_tool.csv")).read().splitlines()
assert len(rows) == 2 and rows[1].startswith("1,"), rows
assert set(os.listdir(d)) == described, sorted(set(os.listdir(d)) ^ described)
print("after the rerun:", sorted(os.listdir(d)))
PY
    echo "ok ($case)";;
foreign_folder)
    mkdir mine && echo keep > mine/notes.png
    refuse run stats_escape.json --out mine -- "output folder 'mine' holds other files ('notes.png', ...)" \
        "give a new or empty folder"
    [ "$(cat mine/notes.png)" = keep ] || fail "a foreign file was touched";;
unstable_stats)
    # A run that goes non-finite keeps the failing frame's statistics line.
    # test_growth multiplies velocities by exp(rate dt) a substep: inf within frames.
    "$eddy" run unstable.json --module "$growth" --out out --quiet >"$tmp/outlog" 2>"$tmp/err" && fail "exit status 0"
    grep -q "non-finite position or velocity" "$tmp/err" || fail "no instability message"
    python3 - out <<'PY' || fail "stats.jsonl lacks the failing frame"
import json, os, sys
lines = [json.loads(l) for l in open(os.path.join(sys.argv[1], "stats.jsonl"))]
assert lines[-1]["sets"]["p"]["non_finite"] > 0, lines[-1]
assert all(l["sets"]["p"]["non_finite"] == 0 for l in lines[:-1])
assert not [f for f in os.listdir(sys.argv[1]) if f.endswith(".tmp")]
print(f"{len(lines)} lines, the last with {lines[-1]['sets']['p']['non_finite']} non-finite particles")
PY
    echo "ok ($case)";;
# A scene's "plugins" run their code in eddy's process: a scene file alone
# must not load them (the growth module would have loaded and the run
# succeeded before); --allow-plugins loads them.
plugin_refused|plugin_allowed)
    sed "s|\"systems\"|\"plugins\": [\"$growth\"], \"systems\"|" unstable.json > plugin.json
    if [ "$case" = plugin_refused ]; then
        refuse run plugin.json --out out -- "plugin.json: plugins: the scene loads module libraries" \
            "refused unless allowed (eddy run --allow-plugins"
    else
        "$eddy" run plugin.json --allow-plugins --out out --quiet >"$tmp/outlog" 2>"$tmp/err" && fail "exit status 0"
        grep -q "non-finite position or velocity" "$tmp/err" || fail "the plugin's module did not run"
        echo "ok ($case): the plugin's module ran"
    fi;;
# Valid scenes that read past a buffer before the fix, seen only under
# AddressSanitizer (tools/sanitize.sh runs this suite): one-body sets
# uploaded 8 bytes padded to 16 (rigid), one boundary particle 4 (couple,
# found by fuzz_scene).
rigid_one_body|couple_one_boundary)
    "$eddy" run "$case.json" --out out --quiet >"$tmp/outlog" 2>"$tmp/err" || fail "exit status $?"
    grep -q "validation message" "$tmp/err" && fail "validation messages"
    [ -s out/stats.jsonl ] || fail "no stats.jsonl"
    echo "ok ($case)";;
*)
    echo "unknown case $case"; exit 1;;
esac
