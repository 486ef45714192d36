#!/usr/bin/env bash
# Gathers the seed corpus of a fuzz harness into DIR from the shipped files.
# usage: corpus.sh scene|obj SOURCE_ROOT DIR [small]
#   scene: scene files (with "small", only the test scenes: quick to load)
#   obj:   meshes
set -eu
kind=$1 root=$2 dir=$3 size=${4:-all}
mkdir -p "$dir"
case $kind in
scene)
    files=("$root"/tests/cli/scenes/*.json "$root"/tests/hostile/scenes/*.json "$root"/scenes/bounce.json)
    [ "$size" = small ] || files+=("$root"/scenes/*.json)
    ;;
obj)
    files=("$root"/data/meshes/*.obj "$root"/tests/cli/scenes/meshes/*.obj "$root"/tests/hostile/scenes/meshes/*.obj)
    ;;
*)
    echo "corpus.sh: unknown harness '$kind'" >&2
    exit 2;;
esac
for f in "${files[@]}"; do
    # Flat names: the folder's name keeps seeds from two folders apart.
    cp "$f" "$dir/$(basename "$(dirname "$f")")_$(basename "$f")"
done
