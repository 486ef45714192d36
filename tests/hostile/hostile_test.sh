#!/usr/bin/env bash
# Hostile input: scenes, meshes and command lines an attacker or a
# careless user could hand eddy. One case per invocation.
# usage: hostile_test.sh EDDY_BINARY SOURCE_ROOT CASE [GROWTH_MODULE [NULL_PARAM_MODULE]]
#
# Every run happens in a sandbox: a fresh folder three levels deep holding a
# copy of tests/hostile/scenes, which is also the working folder. A refused
# input passes when eddy exits non-zero, stderr has the expected message
# (file, field, what was expected) and nothing in the sandbox changed: no
# file or folder written anywhere, in the output folder, beside it or above.
set -u
eddy=$1 root=$2 case=$3 growth=${4:-} null_param=${5:-}
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
    refuse run voxel_overflow.json -- "[scene.mesh]" "voxel_overflow.json: particle_sets[0].fill.file" \
        "at most 1e9";;
voxel_overflow_cli)
    refuse voxelize meshes/thin_box.obj --diameter 1.862645149230957e-9 -- "[mesh.invalid]" "thin_box.obj" \
        "1.86265e-09" "at most 1e9";;
tiny_diameter_cli)
    # Was a float-to-integer overflow (undefined) and a wrong message.
    refuse voxelize meshes/cube.obj --diameter 1e-300 -- "[mesh.invalid]" "1e-300" "at most 1e9";;
# 3. copies x pattern wrapped past the limit; host memory grew without bound.
copies_overflow)
    refuse run copies_overflow.json -- "[scene.too_large]" "copies_overflow.json: particle_sets[0].fill:" \
        "144115188075855872";;
# 4. Endless or blocking files: refused before they are read.
endless_mesh)
    refuse run endless_mesh.json -- "[scene.mesh]" "particle_sets[0].fill.file" "/dev/zero";;
endless_cli)
    refuse voxelize /dev/zero --diameter 0.1 -- "[mesh.file]" "/dev/zero";;
fifo_mesh)
    mkfifo fifo.obj
    refuse run fifo_mesh.json -- "[scene.mesh]" "fifo.obj";;
nul_mesh)
    head -c 100000 /dev/zero > zeros.obj
    refuse run nul_mesh.json -- "[scene.mesh]" "zeros.obj:1:";;
long_line_cli)
    { printf 'v 0 0 0 #'; head -c 5000 /dev/zero | tr '\0' 'x'; printf '\n'; } > long.obj
    refuse voxelize long.obj --diameter 0.1 -- "[mesh.file]" "long.obj:1:" "4094";;
endless_scene)
    refuse run /dev/zero -- "[scene.file]" "/dev/zero";;
# 4b. Command-line numbers are digits and nothing else: strtoull alone
#     skipped blanks, took a sign and saturated, so these ran 2^64 - 1 steps.
steps_negative)
    refuse run tet_overflow.json --steps " -1" -- "[cli.usage]" "--steps" "' -1'";;
steps_wrap)
    refuse run tet_overflow.json --steps 18446744073709551616 -- "[cli.usage]" "--steps" "10^12";;
steps_too_many)
    refuse run tet_overflow.json --steps 1000000000001 -- "[cli.usage]" "--steps" "10^12";;
haptic_rate)
    # The haptic loop's limit, checked before a frame is written.
    refuse haptic tet_overflow.json --rate 1e6 -- "[cli.usage]" "--rate" "100000";;
# 4c. A tet mesh placed beyond what a float holds: refused at load, before
#     the output folder exists (it went to infinity and wrote stats.jsonl).
tet_overflow)
    printf '4 3 0 0\n1 1e38 0 0\n2 2e38 0 0\n3 1e38 1e38 0\n4 1e38 0 1e38\n' > meshes/far.node
    printf '1 4 0\n1 1 2 3 4\n' > meshes/far.ele
    refuse run tet_overflow.json -- "[scene.mesh]" "particle_sets[0].tetmesh.file" "1e30";;
# 5. Names reach file names: one path component, or refused.
name_traversal)
    refuse run name_traversal.json -- "[scene.name]" "name_traversal.json: name: '../../x'";;
set_traversal)
    refuse run set_traversal.json -- "[scene.name]" "particle_sets[0].name: '../../../x'";;
system_traversal)
    refuse run system_traversal.json -- "[scene.name]" "systems[0].name: '../../sysx'";;
set_slash)
    refuse run set_slash.json -- "[scene.name]" "particle_sets[0].name: 'a/b'";;
name_dot)
    refuse run name_dot.json -- "[scene.name]" "name: '.'";;
name_control)
    refuse run name_control.json -- "[scene.name]" "name: 'a\\x01b'";;
name_backslash)
    refuse run name_backslash.json -- "[scene.name]" "name_backslash.json: name:";;
name_utf8)
    refuse run name_utf8.json -- "[scene.name]" "name: 'bad\\xff\\xfename'";;
stem_bad)
    # An unnamed scene is named by its file's stem, under the same rules.
    sed 's/"name": "\.\.\/\.\.\/x", //' name_traversal.json > 'x..y.json'
    refuse run 'x..y.json' -- "[scene.name]" "x..y.json: name: 'x..y'";;
# 8. Too long: refused, never cut.
scene_name_long)
    refuse run scene_name_long.json -- "[scene.name]" "name: 'nnnnn" "127";;
set_name_long)
    refuse run set_name_long.json -- "[scene.name]" "particle_sets[0].name:" "63";;
system_name_long)
    refuse run system_name_long.json -- "[scene.name]" "systems[0].name:" "63";;
system_name_twice)
    refuse run system_name_twice.json -- "[scene.name]" "systems[1].name:" "'ballistic'";;
# A scene's systems are bounded (each is recorded into every substep).
too_many_systems)
    refuse run too_many_systems.json -- "[scene.field]" "too_many_systems.json: systems" "65 systems; expected at most 64";;
out_too_long)
    refuse run stats_escape.json --out "$(printf 'o%.0s' $(seq 2100))" -- "[output.write]" "2100" "2047";;
# 6. Voxeliser memory: refused before the work by the volume estimate, and
#    by the budget while crossings are collected; peak memory stays in it.
slab_memory)
    refuse voxelize meshes/slab.obj --diameter 0.00025 -- "[mesh.invalid]" "5.184e+07";;
slab_budget)
    before=$(snapshot)
    python3 - "$eddy" <<'PY' || fail "budget"
import resource, subprocess, sys
r = subprocess.run([sys.argv[1], "voxelize", "meshes/slab.obj", "--diameter", "0.00025", "--surface-only",
                    "--max-bytes", "100000000"], capture_output=True, text=True, timeout=60)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
assert r.returncode == 1, (r.returncode, r.stderr)
assert "[mesh.invalid]" in r.stderr and "100000000" in r.stderr, r.stderr
assert peak < 100000000 + 60000000, f"peak memory {peak} bytes over the 1e8 budget (+ 60 MB for the program)"
print(f"refused within the budget, peak {peak / 1e6:.1f} MB")
PY
    [ "$(snapshot)" = "$before" ] || fail "files changed"
    echo "ok ($case)";;
# 10. Smaller faults.
duplicate_key)
    refuse run duplicate_key.json -- "[scene.json]" "particle_sets[0].spacing";;
fractional_capacity)
    refuse run fractional_capacity.json -- "[scene.field]" "particle_sets[0].capacity: 100.5";;
fractional_phase)
    refuse run fractional_phase.json -- "[scene.field]" "particle_sets[0].phase: 2.5";;
pbf_relaxation_zero)
    refuse run pbf_relaxation_zero.json -- "[scene.field]" "systems[0].params.relaxation: 0";;
malformed_binary)
    refuse run malformed_binary.json -- "[scene.json]" "malformed_binary.json:1:" "'mred\\xff\\xfe, \"box\": 1 }\\x0a'"
    LC_ALL=C grep -q $'[\x01\x02\x1b\xff]' "$tmp/err" && fail "raw control or binary bytes reached the terminal"
    echo "ok ($case): no raw bytes";;
short_array)
    refuse run short_array.json -- "[scene.field]" "fill.min:";;
spin_overflow)
    refuse run spin_overflow.json -- "[scene.field]" "spin_overflow.json: particle_sets[0].fill.angular_velocity:" \
        "within 1e30 m/s";;
empty_string)
    refuse run empty_string.json -- "[scene.field]" "systems[0].module:";;
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
    [ -s out/ports_tool.csv ] || fail "first run wrote no tool log"
    : > out/stale.vtp.tmp # as a killed run leaves it
    "$eddy" run rerun_tool.json --out out --steps 1 --quiet >"$tmp/outlog" 2>"$tmp/err" || fail "second run: exit $?"
    python3 - out <<'PY' || fail "the folder holds files the second run does not describe"
import json, os, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
stats = [json.loads(l) for l in open(os.path.join(d, "stats.jsonl"))]
assert [s["step"] for s in stats] == [0, 1], stats
described = {"stats.jsonl", "p.pvd", "ports_tool.csv", ".eddy_output"}
described |= {e.get("file") for e in ET.parse(os.path.join(d, "p.pvd")).getroot().iter("DataSet")}
rows = open(os.path.join(d, "ports_tool.csv")).read().splitlines()
assert len(rows) == 2 and rows[1].startswith("1,"), rows
assert set(os.listdir(d)) == described, sorted(set(os.listdir(d)) ^ described)
print("after the rerun:", sorted(os.listdir(d)))
PY
    echo "ok ($case)";;
foreign_folder)
    mkdir mine && echo keep > mine/notes.png
    refuse run stats_escape.json --out mine -- "[output.folder_in_use]" "'mine'" "'notes.png'"
    [ "$(cat mine/notes.png)" = keep ] || fail "a foreign file was touched";;
unstable_stats)
    # A run that goes non-finite keeps the failing frame's statistics line.
    # test_growth multiplies velocities by exp(rate dt) a substep: inf within frames.
    "$eddy" run unstable.json --module "$growth" --out out --quiet >"$tmp/outlog" 2>"$tmp/err" && fail "exit status 0"
    grep -qF "[particles.not_finite]" "$tmp/err" || fail "no instability message"
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
module_null_param)
    # Every string of a module's descriptor is checked before it is kept
    # (a parameter without a name crashed the scene loader in strcmp).
    refuse modules --module "$null_param" -- "[module.invalid]" "test_null_param" "params[1]";;
plugin_refused|plugin_allowed)
    sed "s|\"systems\"|\"plugins\": [\"$growth\"], \"systems\"|" unstable.json > plugin.json
    if [ "$case" = plugin_refused ]; then
        refuse run plugin.json --out out -- "[scene.plugin_refused]" "plugin.json: plugins:"
    else
        "$eddy" run plugin.json --allow-plugins --out out --quiet >"$tmp/outlog" 2>"$tmp/err" && fail "exit status 0"
        grep -qF "[particles.not_finite]" "$tmp/err" || fail "the plugin's module did not run"
        echo "ok ($case): the plugin's module ran"
    fi;;
# Valid scenes that read past a buffer before the fix, seen only under
# AddressSanitizer (tools/sanitize.sh runs this suite): one-body sets
# uploaded 8 bytes padded to 16 (rigid), one boundary particle 4 (couple,
# found by fuzz_scene).
# A box of 5.6e13 m over 2 cm particles: the rigid module's cell count was
# converted to an int before it was bounded (undefined behaviour, found by
# fuzz_scene under UBSan); now refused as too many cells.
rigid_huge_box)
    refuse run rigid_huge_box.json -- "[system.too_large]" "axis 0";;
rigid_one_body|couple_one_boundary)
    "$eddy" run "$case.json" --out out --quiet >"$tmp/outlog" 2>"$tmp/err" || fail "exit status $?"
    grep -q "validation message" "$tmp/err" && fail "validation messages"
    [ -s out/stats.jsonl ] || fail "no stats.jsonl"
    echo "ok ($case)";;
*)
    echo "unknown case $case"; exit 1;;
esac
