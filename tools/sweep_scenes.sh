#!/usr/bin/env bash
# Runs shipped scenes and reads every frame of their stats.jsonl for
# particles outside the box ("outside": a centre past a wall plane at a
# frame) and particles the box limit put back ("clamped": their walls let
# them through within a step), which the walls are meant to prevent.
# Prints one line per scene and ends with "sweep: N scenes, N with
# particles outside, N clamped".
#   tools/sweep_scenes.sh [--steps N] [SCENE.json ...]   (default: scenes/*.json)
# --steps N runs each scene's first N steps only (default: its duration).
set -uo pipefail
cd "$(dirname "$0")/.."
steps=()
if [ "${1:-}" = --steps ]; then
    steps=(--steps "$2")
    shift 2
fi
scenes=("$@")
[ ${#scenes[@]} -gt 0 ] || scenes=(scenes/*.json)
eddy=build/tools/eddy/eddy
[ -x "$eddy" ] || bash tools/build.sh >/dev/null || { echo "build failed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
total=0 outside=0 clamped=0 failed=0
for scene in "${scenes[@]}"; do
    total=$((total + 1))
    out="$tmp/$(basename "$scene" .json)"
    start=$(date +%s)
    if ! "$eddy" run "$scene" --out "$out" "${steps[@]}" >"$tmp/log" 2>&1; then
        echo "$scene: failed: $(grep -m1 error "$tmp/log")"
        failed=$((failed + 1))
        continue
    fi
    read -r o c frames <<<"$(python3 - "$out/stats.jsonl" <<'PY'
import json, sys
o = c = n = 0
for line in open(sys.argv[1]):
    f = json.loads(line)
    n += 1
    for s in f["sets"].values():
        o = max(o, s.get("outside", 0))
        c += s.get("clamped", 0)
print(o, c, n)
PY
)"
    [ "$o" -gt 0 ] && outside=$((outside + 1))
    [ "$c" -gt 0 ] && clamped=$((clamped + 1))
    echo "$scene: $frames frames in $(( $(date +%s) - start )) s: most particles outside at a frame $o, clamped by the box limit $c"
done
echo "sweep: $total scenes, $failed failed, $outside with particles outside, $clamped clamped"
[ "$failed" = 0 ] && [ "$outside" = 0 ]
