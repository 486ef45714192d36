#!/usr/bin/env bash
# Checkpoint and restart through `eddy run`: one case per invocation.
# usage: checkpoint_test.sh EDDY_BINARY SOURCE_ROOT CASE [OLD_MODULE]
# A resume case runs a scene N steps uninterrupted (A), again writing a
# checkpoint every E seconds (B: checkpointing must not change a byte),
# then resumes a copy of B's folder from its checkpoint nearest N/2 (a step
# between frames) and runs to N: every output file (all but the
# checkpoints) must equal A's bitwise. Any validation message fails.
set -u
eddy=$1 root=$2 case=$3 old_module=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export EDDY_VALIDATION=sync
# Debian's Python, which has Debian's h5py (python3-h5py).
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
fail() { echo "FAIL ($case): $*"; echo "--- stderr:"; cat "$tmp/err" 2>/dev/null; exit 1; }
. "$root/tests/require_device.sh"
require_device "$eddy"

run() { # run DIR ARGS...: eddy run with output in DIR; stderr to $tmp/err
    local dir=$1; shift
    "$eddy" run "$@" --out "$dir" --quiet >"$tmp/outlog" 2>"$tmp/err"
}
same_outputs() { # same_outputs A C: every output file of A is in C, bitwise
    local n=0
    for f in "$1"/*; do
        case $f in *.h5) continue;; esac
        cmp -s "$f" "$2/$(basename "$f")" || fail "$(basename "$f") differs from the uninterrupted run"
        n=$((n + 1))
    done
    for f in "$2"/*; do
        case $f in *.h5) continue;; esac
        [ -e "$1/$(basename "$f")" ] || fail "$(basename "$f") is extra"
    done
    [ $n -ge 3 ] || fail "only $n files"
    echo "$n"
}
short_scene() { # short_scene NAME SECONDS: the example scene with that duration, as $tmp/scene.json
    $py - "$root/scenes/$1.json" "$2" "$tmp/scene.json" <<'PY' || fail "cannot write the scene"
import json, sys
s = json.load(open(sys.argv[1]))
s["duration"] = float(sys.argv[2])
json.dump(s, open(sys.argv[3], "w"), indent=1)
PY
}
no_validation() { ! grep -q "validation message" "$tmp/err" || fail "validation messages"; }

# A hostile checkpoint is refused with its identifier and changes no file.
hostile() { # hostile NAME ID [SCENE]: resume $tmp/H/NAME; expect ID
    local before after
    before=$(cd "$tmp/H" && ls -l --time-style=+%s.%N | md5sum)
    "$eddy" run ${3:+"$3"} --resume "$tmp/H/$1" --quiet >"$tmp/outlog" 2>"$tmp/err"
    local rc=$?
    [ $rc -ne 0 ] || fail "$1: exit status 0"
    grep -q "\[$2\]" "$tmp/err" || fail "$1: no [$2] message"
    [ "$(grep -c 'error \[' "$tmp/err")" -eq 1 ] || fail "$1: expected one message"
    after=$(cd "$tmp/H" && ls -l --time-style=+%s.%N | md5sum)
    [ "$before" = "$after" ] || fail "$1: the folder changed"
    echo "  $1 refused: $(grep -m1 'error \[' "$tmp/err")"
}

resume_case() { # resume_case SCENE N EVERY
    local scene=$root/scenes/$1.json steps=$2 every=$3
    run "$tmp/A" "$scene" --steps "$steps" || fail "uninterrupted run: exit $?"
    no_validation
    run "$tmp/B" "$scene" --steps "$steps" --checkpoint-every "$every" --checkpoint-keep 64 ||
        fail "checkpointed run: exit $?"
    no_validation
    local n
    n=$(same_outputs "$tmp/A" "$tmp/B") || { echo "$n"; exit 1; }
    local all=("$tmp"/B/checkpoint_*.h5) mid
    [ ${#all[@]} -ge 2 ] || fail "expected 2 checkpoints or more, got ${#all[@]}"
    mid=${all[$(( (${#all[@]} - 1) / 2 ))]}
    local k=$((10#$(basename "$mid" .h5 | sed 's/checkpoint_//')))
    cp -r "$tmp/B" "$tmp/C"
    for f in "$tmp"/C/checkpoint_*.h5; do
        [ $((10#$(basename "$f" .h5 | sed 's/checkpoint_//'))) -gt $k ] && rm "$f"
    done
    run "$tmp/C" --resume "$tmp/C/$(basename "$mid")" --steps $((steps - k)) || fail "resumed run: exit $?"
    no_validation
    n=$(same_outputs "$tmp/A" "$tmp/C") || { echo "$n"; exit 1; }
    echo "ok ($case): resumed at step $k of $steps, $n files bitwise equal"
}

case $case in
resume_sph) resume_case sph_dam_break 90 0.013;;
resume_iisph) resume_case sph_martin_moyce_iisph 40 0.011;;
resume_dfsph) resume_case sph_martin_moyce_dfsph 40 0.022;;
resume_pbf_tool) resume_case pbf_tool_5k 40 0.055;;
resume_rigid) resume_case rigid_drop 300 0.0105;;
resume_granular) resume_case granular_pile 200 0.0102;;
resume_couple) resume_case couple_tank 12 0.0161;;
resume_cloth) resume_case deform_cloth_sphere 40 0.055;;
resume_cloth_water) resume_case deform_cloth_water 16 0.0201;;
resume_handle) resume_case deform_handle_drag 30 0.11;;
resume_volume) resume_case volume_torus 30 0.11;;
sigterm)
    # SIGTERM in a run: a checkpoint at the next step, exit status 75, and
    # the resumed run ends bitwise as one never stopped.
    short_scene granular_pile 0.05
    scene=$tmp/scene.json
    run "$tmp/A" "$scene" || fail "uninterrupted run: exit $?"
    "$eddy" run "$scene" --out "$tmp/B" --quiet >"$tmp/outlog" 2>"$tmp/err" &
    pid=$!
    for _ in $(seq 100); do [ -e "$tmp/B/stats.jsonl.tmp" ] && break; sleep 0.05; done
    sleep 0.3
    kill -TERM $pid
    wait $pid
    rc=$?
    [ $rc -eq 75 ] || fail "exit status $rc after SIGTERM, expected 75"
    ls "$tmp"/B/checkpoint_*.h5 >/dev/null 2>&1 || fail "no checkpoint after SIGTERM"
    grep -q "stopped by a signal at step" "$tmp/err" || fail "no stop line"
    at=$(grep -o "step [0-9]*" "$tmp/err" | tail -1)
    "$eddy" run --resume "$tmp/B" --quiet >"$tmp/outlog" 2>"$tmp/err" || fail "resume: exit $?"
    no_validation
    n=$(same_outputs "$tmp/A" "$tmp/B") || { echo "$n"; exit 1; }
    echo "ok ($case): stopped at $at with status 75, resumed: $n files bitwise equal";;
kill9)
    # kill -9 at 20 random moments of a run writing checkpoints: each time
    # --resume finds a valid one and ends bitwise as the uninterrupted run.
    short_scene bounce 2.0
    scene=$tmp/scene.json
    run "$tmp/A" "$scene" || fail "uninterrupted run: exit $?"
    for k in $(seq 20); do
        rm -rf "$tmp/B"
        "$eddy" run "$scene" --checkpoint-every 0.013 --out "$tmp/B" --quiet >/dev/null 2>"$tmp/err" &
        pid=$!
        for _ in $(seq 200); do ls "$tmp"/B/checkpoint_*.h5 >/dev/null 2>&1 && break; sleep 0.01; done
        sleep "0.$(printf '%03d' $((RANDOM % 400)))"
        kill -9 $pid 2>/dev/null
        wait $pid 2>/dev/null
        "$eddy" run --resume "$tmp/B" --quiet >"$tmp/outlog" 2>"$tmp/err" || fail "kill $k: resume: exit $?"
        no_validation
        n=$(same_outputs "$tmp/A" "$tmp/B") || { echo "$n"; exit 1; }
        from=$(grep -o 'checkpoint_[0-9]*' "$tmp/err" | head -1)
        echo "  kill $k: resumed from $from: bitwise equal"
    done
    echo "ok ($case): 20 kills, 20 bitwise resumes";;
h5py)
    # A checkpoint is plain HDF5: h5py reads its positions and attributes.
    run "$tmp/B" "$root/scenes/bounce.json" --steps 40 --checkpoint-every 0.02 || fail "run: exit $?"
    $py - "$tmp/B/checkpoint_000000000040.h5" <<'PY' || fail "h5py could not read the checkpoint"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    x = f["sets/balls/position"][:, :3]
    assert f["sets/balls/position"].attrs["unit"] in (b"m", "m")
    assert int(f.attrs["step"]) == 40 and abs(float(f.attrs["time"]) - 0.04) < 1e-12
    assert x.shape == (8000, 3) and np.isfinite(x).all(), x.shape
    print("  h5py: %d positions, mean height %.4f m at t = %g s" % (len(x), x[:, 1].mean(), f.attrs["time"]))
PY
    h5dump -A "$tmp/B/checkpoint_000000000040.h5" | grep -q 'eddy checkpoint' || fail "h5dump shows no format"
    echo "ok ($case): h5py and h5dump read the checkpoint";;
hostile)
    run "$tmp/H" "$root/scenes/bounce.json" --steps 40 --checkpoint-every 0.02 || fail "run: exit $?"
    good=$tmp/H/checkpoint_000000000040.h5
    size=$(stat -c %s "$good")
    head -c $((size / 2)) "$good" >"$tmp/H/truncated.h5"
    $py - "$good" "$tmp/H" <<'PY' || fail "could not make the hostile files"
import shutil, struct, sys, zlib, h5py
good, d = sys.argv[1], sys.argv[2]
def reseal(path):
    # What eddy writes in the 512-byte user block: "EDDYCKPT", version 1,
    # the CRC-32 of the whole file with this CRC field as zeros, the length.
    data = bytearray(open(path, "rb").read())
    data[0:24] = b"EDDYCKPT" + struct.pack("<IIQ", 1, 0, len(data))
    data[12:16] = struct.pack("<I", zlib.crc32(bytes(data)))
    open(path, "wb").write(bytes(data))
def variant(name, edit, sealed=True):
    shutil.copy(good, f"{d}/{name}")
    with h5py.File(f"{d}/{name}", "r+") as f:
        edit(f)
    if sealed:
        reseal(f"{d}/{name}")
def flip(name):
    shutil.copy(good, f"{d}/{name}")
    with h5py.File(f"{d}/{name}", "r") as f:
        off = f["sets/balls/position"].id.get_chunk_info(0).byte_offset + 1000
    with open(f"{d}/{name}", "r+b") as raw:
        raw.seek(off); b = raw.read(1); raw.seek(off); raw.write(bytes([b[0] ^ 0x10]))
flip("flipped.h5")
flip("flipped_resealed.h5")
reseal(f"{d}/flipped_resealed.h5")
variant("edited_unsealed.h5", lambda f: f.attrs.modify("step", 41), sealed=False)
def newer(f):
    # A fixed-length string, as eddy writes it.
    del f.attrs["eddy_version"]; f.attrs.create("eddy_version", b"9.0.0", dtype="S6")
variant("newer.h5", newer)
def variable_text(f):
    # h5py's own string (variable-length, kept in a global heap): not a
    # structure eddy writes, so never handed to libhdf5.
    del f.attrs["eddy_version"]; f.attrs.create("eddy_version", b"1.4.0")
variant("variable_text.h5", variable_text)
def huge(f):
    del f["sets/balls/position"]
    f.create_dataset("sets/balls/position", shape=(1 << 40, 4), dtype="f4", chunks=(1024, 4))
variant("huge.h5", huge)
def wide_chunks(f):
    # Chunks wider than the dataset: libhdf5 1.10.8 copies past its
    # buffers reading them (found by fuzz_checkpoint's resealed run).
    v = f["sets/balls/velocity"][:]
    del f["sets/balls/velocity"]
    f.create_dataset("sets/balls/velocity", data=v, chunks=(64, 8), maxshape=(None, None), fletcher32=True)
variant("wide_chunks.h5", wide_chunks)
def huge_text(f):
    path = f["scene/text"].attrs["path"]
    del f["scene/text"]
    f.create_dataset("scene/text", shape=(1 << 40, 1), dtype="u1", chunks=(4096, 1))
variant("huge_text.h5", huge_text)
def long_continuation(name):
    # The root group's object header continued in a block that claims a
    # terabyte: libhdf5 1.10.8 tries to allocate it (found by
    # fuzz_checkpoint's resealed run), so eddy's walk refuses it first.
    shutil.copy(good, f"{d}/{name}")
    data = bytearray(open(f"{d}/{name}", "rb").read())
    base = struct.unpack_from("<Q", data, 512 + 24)[0]
    header = base + struct.unpack_from("<Q", data, 512 + 64)[0]
    at, end = header + 16, header + 16 + struct.unpack_from("<I", data, header + 8)[0]
    while struct.unpack_from("<H", data, at)[0] != 0x10:
        at += 8 + struct.unpack_from("<H", data, at + 2)[0]
        assert at < end, "no continuation in the root group's header"
    struct.pack_into("<Q", data, at + 16, (1 << 40) + struct.unpack_from("<Q", data, at + 16)[0])
    open(f"{d}/{name}", "wb").write(bytes(data))
    reseal(f"{d}/{name}")
long_continuation("long_continuation.h5")
PY
    hostile truncated.h5 checkpoint.invalid
    hostile flipped.h5 checkpoint.invalid
    hostile flipped_resealed.h5 checkpoint.mismatch
    hostile edited_unsealed.h5 checkpoint.invalid
    hostile newer.h5 checkpoint.version
    hostile huge.h5 checkpoint.mismatch
    hostile huge_text.h5 checkpoint.invalid
    hostile wide_chunks.h5 checkpoint.mismatch
    hostile variable_text.h5 checkpoint.invalid
    hostile long_continuation.h5 checkpoint.invalid
    hostile checkpoint_000000000040.h5 checkpoint.foreign "$root/scenes/granular_pile.json"
    echo "ok ($case): eleven hostile checkpoints refused";;
unsupported)
    # A module built for module ABI 4.0 declares no state: a run with it
    # still works, one asking for checkpoints is refused before it writes
    # anything, naming the module.
    cat >"$tmp/scene.json" <<'JSON'
{ "name": "old_module", "dt": 0.001, "duration": 0.02, "box": { "min": [0, 0, 0], "max": [1, 1, 1] },
  "particle_sets": [ { "name": "balls", "spacing": 0.05, "radius": 0.01,
      "fill": { "shape": "box", "min": [0.2, 0.2, 0.2], "max": [0.5, 0.5, 0.5] } } ],
  "systems": [ { "name": "fall", "module": "ballistic", "set": "balls" },
               { "name": "slow", "module": "test_damping_4_0", "set": "balls" } ] }
JSON
    run "$tmp/A" "$tmp/scene.json" --module "$old_module" || fail "the run without checkpoints: exit $?"
    run "$tmp/B" "$tmp/scene.json" --module "$old_module" --checkpoint-every 0.005 && fail "exit status 0"
    grep -q "\[checkpoint.unsupported\].*system 'slow': module 'test_damping_4_0' (module ABI 4.0)" "$tmp/err" ||
        fail "no checkpoint.unsupported message naming the module"
    [ ! -e "$tmp/B" ] || fail "the refused run wrote $tmp/B"
    echo "ok ($case): $(grep -m1 'error \[' "$tmp/err")";;
wall)
    # Checkpoints by wall-clock time (--checkpoint-wall, minutes), the
    # newest --checkpoint-keep kept, each one a valid start. An interval of
    # 6 microseconds passes within any step on any machine: a checkpoint
    # after every stretch of steps, and the newest 3 of them kept.
    run "$tmp/B" "$root/scenes/bounce.json" --steps 400 --checkpoint-wall 0.0000001 --checkpoint-keep 3 ||
        fail "run: exit $?"
    n=$(ls "$tmp"/B/checkpoint_*.h5 | wc -l)
    [ "$n" -eq 3 ] || fail "$n checkpoints, expected the 3 kept"
    ls "$tmp"/B/*.tmp >/dev/null 2>&1 && fail "a .tmp file stayed"
    oldest=$(ls "$tmp"/B/checkpoint_*.h5 | head -1)
    run "$tmp/B" --resume "$oldest" --steps 10 || fail "resume from the oldest kept: exit $?"
    echo "ok ($case): $n checkpoints kept by wall-clock time, the oldest resumes";;
*) echo "unknown case $case"; exit 2;;
esac
