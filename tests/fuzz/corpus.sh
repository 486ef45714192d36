#!/usr/bin/env bash
# Gathers the seed corpus of a fuzz harness into DIR from the shipped files.
# usage: corpus.sh scene|obj|tet|cache|view_events|bench_model|cli|module_desc SOURCE_ROOT DIR [small]
#   scene: scene files (with "small", only the test scenes: quick to load)
#   obj:   meshes
#   tet:   tetrahedral meshes in fuzz_tet's form (a format byte, then the file)
#   cache: pipeline-cache files
#   view_events: eddy view's events files
#   bench_model: eddy bench --model's device files
#   cli: command lines (eddy run, eddy haptic and eddy graph options)
#   module_desc: module descriptors built from bytes
#   checkpoint: edits of fuzz_checkpoint's base checkpoint (a cut length, then
#               offset and xor byte groups)
set -eu
kind=$1 root=$2 dir=$3 size=${4:-all}
mkdir -p "$dir"
case $kind in
checkpoint)
    # Whole, cut in half (about), and a few bytes flipped in the header,
    # the superblock and the data.
    printf '\000\000\000\000' >"$dir/whole"
    printf '\000\100\000\000' >"$dir/cut"
    printf '\000\000\000\000\010\000\000\001' >"$dir/seal"
    printf '\000\000\000\000\000\002\000\004\000\003\000\200' >"$dir/superblock"
    printf '\000\000\000\000\000\100\000\020\000\200\000\001' >"$dir/data"
    exit 0;;
scene)
    files=("$root"/tests/cli/scenes/*.json "$root"/tests/hostile/scenes/*.json "$root"/scenes/bounce.json)
    [ "$size" = small ] || files+=("$root"/scenes/*.json)
    ;;
obj)
    files=("$root"/data/meshes/*.obj "$root"/tests/cli/scenes/meshes/*.obj "$root"/tests/hostile/scenes/meshes/*.obj)
    ;;
tet)
    # fuzz_tet's input: a format byte (0 TetGen pair, 1 .vtu, 2 .msh; bit 7
    # reorient), then the file; a TetGen pair is .node, a 0xff byte, .ele.
    for stem in bar_80 sphere_80; do
        { printf '\000'; cat "$root/data/tets/$stem.node"; printf '\377'; cat "$root/data/tets/$stem.ele"; } \
            >"$dir/tet_$stem"
    done
    { printf '\203'; cat "$root/data/tets/bar_80.node"; printf '\377'; cat "$root/data/tets/bar_80.ele"; } \
        >"$dir/tet_bar_80_reorient"
    for f in "$root"/tests/data/tets/*.vtu; do
        { printf '\001'; cat "$f"; } >"$dir/tet_$(basename "$f")"
    done
    for f in "$root"/tests/data/tets/*.msh; do
        { printf '\002'; cat "$f"; } >"$dir/tet_$(basename "$f")"
    done
    exit 0;;
cache)
    # Pipeline-cache files for fuzz_cache's identity, written here (the
    # 64-bit checksum is out of a mutator's reach): whole ones with and
    # without Vulkan's own 32-byte header, one whose Vulkan header names
    # another device, one of another driver, and a truncated one.
    python3 - "$dir" <<'PY'
import os, struct, sys
def h64(b):
    h = 0xcbf29ce484222325
    for x in b:
        h = ((h ^ x) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h ^ (h >> 29)
uuid = bytes(range(1, 17))
def cache(data, vendor=0x10005, device=0, driver=0x5803003):
    return (b"EDDYPC01" + struct.pack("<IIII", vendor, device, driver, 0) + uuid +
            struct.pack("<QQ", len(data), h64(data)) + data)
vk = struct.pack("<IIII", 32, 1, 0x10005, 0) + uuid + b"driver data" * 3
other = struct.pack("<IIII", 32, 1, 0x10de, 7) + uuid
seeds = {"whole": cache(vk), "small": cache(b"tiny"), "empty": cache(b""), "vk_other": cache(other),
         "driver_other": cache(vk, driver=1), "truncated": cache(vk)[:-5]}
for name, b in seeds.items():
    open(os.path.join(sys.argv[1], "cache_" + name), "wb").write(b)
PY
    exit 0;;
view_events)
    files=("$root"/tests/view/*.events)
    ;;
bench_model)
    files=("$root"/docs/data/devices/*.json)
    ;;
cli)
    # Argument lists, NUL-separated, as the tests' command lines use them.
    printf -- '--steps\x005\x00--out\x00/tmp/x' >"$dir/cli_steps"
    printf -- '--steps\x00 -1' >"$dir/cli_negative"
    printf -- '--steps\x0018446744073709551616' >"$dir/cli_wrap"
    printf -- '--rate\x001e6\x00--seconds\x002\x00--system\x00tool' >"$dir/cli_haptic"
    printf -- '--validation\x00sync\x00--profile\x00--quiet\x00--no-output\x00scene.json' >"$dir/cli_flags"
    printf -- 'a.json\x00b.json\x00--module\x00m.so\x00--allow-plugins' >"$dir/cli_graph"
    printf -- 'a.json\x00--dot\x00g.dot\x00--device\x000' >"$dir/cli_graph_dot"
    printf -- '--module\x00a.so\x00--allow-plugins\x00--device\x000' >"$dir/cli_module"
    exit 0;;
module_desc)
    # Descriptors from bytes: a few shapes, the rest is mutation.
    head -c 512 /dev/zero >"$dir/desc_zero"
    printf 'sph\x00\x01\x00abc' >"$dir/desc_short"
    python3 -c "import sys; sys.stdout.buffer.write(bytes(range(256)) * 4)" >"$dir/desc_ramp"
    exit 0;;
*)
    echo "corpus.sh: unknown harness '$kind'" >&2
    exit 2;;
esac
for f in "${files[@]}"; do
    # Flat names: the folder's name keeps seeds from two folders apart.
    cp "$f" "$dir/$(basename "$(dirname "$f")")_$(basename "$f")"
done
