#!/usr/bin/env bash
# The ABI of eddy's three libraries against the last release's (abi/*.abi,
# written with libabigail's abidw from a build of that release):
#   tools/abi.sh check BUILD_DIR   compare (abidiff); fails on a change that
#                                  breaks programs built against the release
#                                  unless the major version (the soname) has
#                                  changed since; compatible additions pass
#                                  with a note
#   tools/abi.sh dump BUILD_DIR    write abi/*.abi and abi/VERSION for a release
# Only the public headers' types count (abi/eddy.suppr: the opaque handles'
# insides are private). Needs abigail-tools (tools/install-deps.sh). Ends
# with "abi: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
mode=${1:-}
build=${2:-build}
libs=(libeddy libeddy-scene libeddy-modules)
if [ "$mode" != check ] && [ "$mode" != dump ]; then
    echo "usage: tools/abi.sh check|dump BUILD_DIR" >&2
    exit 2
fi
for tool in abidw abidiff; do
    command -v "$tool" >/dev/null || { echo "abi: $tool not found: install abigail-tools (tools/install-deps.sh)"; echo "abi: 0 passed, 1 failed"; exit 1; }
done
headers=$(mktemp -d "${TMPDIR:-/tmp}/eddy-abi.XXXXXX") || exit 1
trap 'rm -rf "$headers"' EXIT
cp engine/include/eddy/*.h scene/include/eddy/*.h modules/include/eddy/*.h "$headers/"
version=$(sed -n "s/^  version : '\([0-9.]*\)',$/\1/p" meson.build)
major=${version%%.*}
# The header's version macros (what `eddy --version` and a host see) are
# meson.build's version.
header=$(sed -n 's/^#define EDDY_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' engine/include/eddy/eddy.h | paste -sd.)
if [ "$mode" != dump ] && [ "$header" != "$version" ]; then
    echo "abi: FAILED: eddy.h's EDDY_VERSION_MAJOR.MINOR.PATCH is $header, meson.build's version $version"
    echo "abi: 0 passed, 1 failed"
    exit 1
fi

if [ "$mode" = dump ]; then
    for lib in "${libs[@]}"; do
        abidw --headers-dir "$headers" --drop-private-types --no-corpus-path --short-locs \
              --out-file "abi/$lib.abi" "$build/$lib.so" || { echo "abi: abidw failed on $build/$lib.so"; exit 1; }
    done
    echo "$version" >abi/VERSION
    echo "abi: wrote abi/*.abi for eddy $version"
    exit 0
fi

base=$(cat abi/VERSION)
passed=0
failed=0
for lib in "${libs[@]}"; do
    soname=$(readelf -d "$build/$lib.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
    if [ "$soname" != "$lib.so.$major" ]; then
        echo "abi: FAILED: $lib's soname is '$soname', expected $lib.so.$major (version $version)"
        failed=$((failed + 1))
        continue
    fi
    out=$(abidiff --suppressions abi/eddy.suppr --headers-dir2 "$headers" --drop-private-types \
                  "abi/$lib.abi" "$build/$lib.so" 2>&1)
    rc=$?
    # abidiff's exit status is a bit field: 1 error, 2 usage, 4 a change,
    # 8 an incompatible change.
    if (( rc & 3 )); then
        echo "abi: FAILED: abidiff could not compare $lib (status $rc):"
        echo "$out" | sed 's/^/    /'
        failed=$((failed + 1))
    # libabigail marks only removed or retyped symbols incompatible (8); a
    # changed type behind a function (a moved field, a removed enumerator)
    # is "a change" (4) and breaks programs as surely, so anything removed
    # or changed counts, after the suppressions (the opaque handles' insides,
    # sized descs grown at their end). Added functions are compatible.
    elif { (( rc & 8 )) || grep -qE '[1-9][0-9]* (Removed|Changed)' <<<"$out"; } && [ "${base%%.*}" = "$major" ]; then
        echo "abi: FAILED: $lib breaks the ABI of eddy $base without a new major version (now $version):"
        echo "$out" | sed 's/^/    /'
        echo "    either keep the old layout (append fields to sized descs, add functions) or raise the"
        echo "    major version in meson.build and eddy.h, note it in CHANGELOG.md, and dump abi/ anew"
        failed=$((failed + 1))
    elif (( rc & 4 )); then
        echo "abi: ok: $lib changed compatibly since $base (record it in CHANGELOG.md):"
        echo "$out" | sed 's/^/    /' | head -40
        passed=$((passed + 1))
    else
        echo "abi: ok: $lib has the ABI of eddy $base"
        passed=$((passed + 1))
    fi
done
echo "abi: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
