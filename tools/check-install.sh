#!/usr/bin/env bash
# Checks eddy as an installed package, the way a module author meets it
# (docs/modules.md): builds eddy in build-install/ with its prefix in a
# temporary folder and installs it there (never under /usr; no root), checks
# the installed headers and pkg-config files, builds the out-of-tree example
# module examples/wind against that prefix through pkg-config alone, runs the
# INSTALLED eddy (its rpath, no LD_LIBRARY_PATH) with `--module` on the
# example scene, runs the module's own test (its kernel against its CPU
# reference) and checks the physics of the run against the exact solution
# (examples/wind/check_wind.py). Then the same for the two other
# out-of-tree examples, examples/neighbours (a neighbour loop over eddy's
# grid) and examples/rigid_push (a force on rigid bodies through
# eddy/eddy_couple.h): built with PKG_CONFIG_PATH alone, each library
# exporting eddy_module_entry and nothing else, each test under
# synchronization validation with no message, the installed eddy running
# each scene with `--module`, and each run checked by its check_*.py.
# Ends with "install: N passed, N failed" and exits non-zero on any failure. It also checks the data, scenes and shader
# headers under share/eddy, runs the installed tool under env -i, and builds
# examples/subproject (eddy as a meson subproject), examples/cmake (CMake
# through pkg-config) and examples/host (a Vulkan host drawing from eddy's
# buffers). KEEP=1 keeps the temporary folder.
# usage: tools/check-install.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
root=$PWD
passed=0
failed=0
pass() { echo "install: ok: $1"; passed=$((passed + 1)); }
fail() { echo "install: FAILED: $1"; failed=$((failed + 1)); }
finish() {
    echo "install: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
}
# Shows the end of a log after a failure.
show() { sed 's/^/    /' "$1" | tail -n "${2:-30}"; }

bash tools/install-deps.sh >/dev/null || { fail "tools/install-deps.sh"; finish; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/eddy-install.XXXXXX") || { fail "mktemp"; finish; }
if [ "${KEEP:-}" = 1 ]; then
    echo "install: keeping $tmp"
else
    trap 'rm -rf "$tmp"' EXIT
fi
prefix=$tmp/prefix
build=$root/build-install
# eddy reads its environment: no device or validation choice from outside
# changes what this checks, and no pipeline cache is written to $HOME.
export EDDY_PIPELINE_CACHE_DIR=""
unset LD_LIBRARY_PATH

# 1. Build and install into the temporary prefix: the libraries and the eddy
#    tool only (the tests are not installed, so not built here).
ok=1
if [ -f "$build/build.ninja" ]; then
    meson configure "$build" "--prefix=$prefix" >"$tmp/setup.log" 2>&1 || ok=0
else
    meson setup "$build" "--prefix=$prefix" >"$tmp/setup.log" 2>&1 || ok=0
fi
[ $ok = 1 ] || show "$tmp/setup.log"
if [ $ok = 1 ] && ! ninja -C "$build" tools/eddy/eddy >"$tmp/build.log" 2>&1; then
    ok=0
    show "$tmp/build.log"
fi
if [ $ok = 1 ] && ! meson install -C "$build" --no-rebuild >"$tmp/install.log" 2>&1; then
    ok=0
    show "$tmp/install.log"
fi
eddy=$prefix/bin/eddy
if [ $ok = 1 ] && [ -x "$eddy" ]; then
    pass "meson install into $prefix"
else
    fail "build and install into $prefix"
    finish
fi

# 2. Every public header a module or a program needs, as in the tree, and
#    pkg-config files that compile and link against them.
pcdir=$(dirname "$(find "$prefix" -name eddy.pc -print -quit)")
export PKG_CONFIG_PATH=$pcdir
errors=()
for h in engine/include/eddy/*.h scene/include/eddy/*.h modules/include/eddy/*.h; do
    cmp -s "$h" "$prefix/include/eddy/$(basename "$h")" || errors+=("$h is not installed as include/eddy/$(basename "$h")")
done
# One package for a host (eddy), one for a module author (eddy-module), each
# naming the data folders.
for pc in eddy eddy-module; do
    pkg-config --exists "$pc" || errors+=("pkg-config finds no $pc in $pcdir")
    for v in datadir pkgdatadir scenesdir glsl_includedir moduledir; do
        [ -n "$(pkg-config --variable="$v" "$pc")" ] || errors+=("$pc.pc has no variable $v")
    done
done
[ -f "$(pkg-config --variable=scenesdir eddy)/sph_dam_break.json" ] || errors+=("eddy.pc's scenesdir holds no scenes")
for g in particles.glsl grid.glsl neighbours.glsl eddy_solids.h; do
    [ -f "$(pkg-config --variable=glsl_includedir eddy-module)/$g" ] || errors+=("eddy-module.pc's glsl_includedir lacks $g")
done
# Vulkan's headers, not its loader (volk loads it at run time).
pkg-config --libs eddy 2>/dev/null | grep -q -- -lvulkan && errors+=("pkg-config --libs eddy names -lvulkan")
{
    for h in "$prefix"/include/eddy/*.h; do echo "#include <eddy/$(basename "$h")>"; done
    echo 'int main(void)'
    echo '{'
    echo '    eddy_engine *e = eddy_create_engine(&(eddy_engine_desc){ EDDY_SIZED(eddy_engine_desc) });'
    echo '    if (e)'
    echo '        eddy_register_builtin_modules(e);'
    echo '    eddy_destroy_engine(e);'
    echo '    return 0;'
    echo '}'
} >"$tmp/all_headers.c"
# shellcheck disable=SC2046
if ! cc -std=c17 -Wall -Wextra -Werror -o "$tmp/all_headers" "$tmp/all_headers.c" \
        -Wl,--no-undefined $(pkg-config --cflags --libs eddy) >"$tmp/cc.log" 2>&1; then
    errors+=("a program including every installed header does not build with pkg-config eddy alone")
    show "$tmp/cc.log" 20
fi
if [ ${#errors[@]} -eq 0 ]; then
    pass "headers and pkg-config: $(find "$prefix/include/eddy" -type f | wc -l) files in include/eddy; eddy and eddy-module name the data folders and build a program"
else
    printf '    %s\n' "${errors[@]}"
    fail "installed headers and pkg-config files"
fi

# 3. The out-of-tree module, found through pkg-config only.
wind_build=$tmp/wind-build
lib=$wind_build/libeddy_wind.so
if meson setup "$wind_build" examples/wind >"$tmp/wind-setup.log" 2>&1 \
        && ninja -C "$wind_build" >"$tmp/wind-build.log" 2>&1 \
        && nm -D --defined-only "$lib" | grep -qw eddy_module_entry; then
    pass "examples/wind built against the prefix: $(basename "$lib") exports eddy_module_entry"
else
    show "$tmp/wind-setup.log" 15
    [ -f "$tmp/wind-build.log" ] && show "$tmp/wind-build.log"
    fail "examples/wind does not build against the installed eddy"
    finish
fi

# 4. The installed tool (found libraries by its rpath) loads the module and
#    runs the example scene.
out=$tmp/out
libeddy=$(ldd "$eddy" | awk '$1 ~ /^libeddy\.so/ { print $3 }')
if [[ "$libeddy" != "$prefix"/* ]]; then
    fail "the installed eddy loads libeddy from '${libeddy:-nowhere}', not from $prefix"
    finish
fi
if "$eddy" modules --module "$lib" >"$tmp/modules.log" 2>&1 && grep -q "^wind " "$tmp/modules.log" \
        && "$eddy" run --module "$lib" examples/wind/wind.json --out "$out" --quiet >"$tmp/run.log" 2>&1; then
    pass "installed eddy ($libeddy) runs examples/wind/wind.json with --module"
    show "$tmp/run.log" 3
else
    show "$tmp/modules.log" 10
    show "$tmp/run.log"
    fail "installed eddy run --module $lib examples/wind/wind.json"
    finish
fi

# 4b. What ships beside the libraries (PREFIX/share/eddy: scenes, the meshes
#     they name, the shader headers; PREFIX/share/doc/eddy), and the
#     installed tool with no environment at all (env -i), from a folder
#     that is neither the source tree nor the prefix: an example scene by
#     name that reads a mesh relative to itself, and a bench case that
#     reads a tetrahedral mesh from the installed data.
share=$prefix/share/eddy
errors=()
for f in scenes/*.json data/meshes/* data/tets/* data/validation/*; do
    cmp -s "$f" "$share/$f" || errors+=("$f is not installed as share/eddy/$f")
done
for f in shaders/*.glsl shaders/*.h engine/include/eddy/eddy_solids.h; do
    cmp -s "$f" "$share/shaders/$(basename "$f")" || errors+=("$f is not installed in share/eddy/shaders")
done
[ -f "$prefix/share/doc/eddy/README.md" ] && [ -f "$prefix/share/doc/eddy/validation.md" ] \
    || errors+=("README.md and docs/ are not installed in share/doc/eddy")
if [ ${#errors[@]} -eq 0 ]; then
    pass "share/eddy: $(find "$share/scenes" -name '*.json' | wc -l) scenes, $(find "$share/data" -type f | wc -l) data files, $(find "$share/shaders" -type f | wc -l) shader headers; share/doc/eddy"
else
    printf '    %s\n' "${errors[@]}" | head -20
    fail "installed data, scenes, shader headers and docs"
fi
elsewhere=$tmp/elsewhere
mkdir -p "$elsewhere"
# The tool names the folders it reads: the installed ones, not the tree's.
dirs=$(cd "$elsewhere" && env -i "$eddy" version 2>&1)
if grep -qx "data: $share/data" <<<"$dirs" && grep -qx "scenes: $share/scenes" <<<"$dirs"; then
    pass "env -i eddy version: data and scenes from $share"
else
    printf '    %s\n' "$dirs"
    fail "the installed eddy does not read share/eddy (expected data: $share/data, scenes: $share/scenes)"
fi
if (cd "$elsewhere" && env -i "$eddy" run couple_tank --steps 2 --out "$elsewhere/couple_tank" --quiet) \
        >"$tmp/run-name.log" 2>&1 && [ -s "$elsewhere/couple_tank/stats.jsonl" ]; then
    pass "env -i eddy run couple_tank (by name; its bunny from share/eddy/data) from $elsewhere"
else
    show "$tmp/run-name.log"
    fail "the installed eddy runs no example scene by name with no environment"
fi
if (cd "$elsewhere" && env -i "$eddy" bench deform.bar_80 --iterations 1) >"$tmp/bench.log" 2>&1 \
        && grep -q '"case": *"deform.bar_80"' "$tmp/bench.log" && ! grep -q '"match": *false' "$tmp/bench.log"; then
    pass "env -i eddy bench deform.bar_80 reads data/tets/bar_80 from share/eddy/data"
else
    show "$tmp/bench.log"
    fail "the installed eddy bench finds no installed data"
fi
# The installed viewer with no display and no environment: an example scene
# by name rendered offscreen to a PNG.
if (cd "$elsewhere" && env -i "$eddy" view bounce --offscreen "$tmp/view.png" --frames 3 --size 160x120) \
        >"$tmp/view.log" 2>&1 && [ -s "$tmp/view.png" ]; then
    pass "env -i eddy view bounce --offscreen: $(grep -o '^view: [0-9]* frames[^,]*' "$tmp/view.log")"
else
    show "$tmp/view.log"
    fail "the installed eddy view renders no PNG offscreen"
fi

# 4c. eddy as a meson subproject (examples/subproject): the tree linked as
#     subprojects/eddy and the fallback forced (pkg-config would find the
#     prefix), so dependency('eddy') resolves through eddy's
#     meson.override_dependency; the program runs a scene and checks it.
# A consumer in three steps (configure, build, run: command strings, run by
# eval), each logged to $tmp/<tag>-<step>.log; passes with the run's output.
consumer() {
    local tag=$1 what=$2
    if eval "$3" >"$tmp/$tag-setup.log" 2>&1 && eval "$4" >"$tmp/$tag-build.log" 2>&1 \
            && eval "$5" >"$tmp/$tag-run.log" 2>&1; then
        pass "$what: $(cat "$tmp/$tag-run.log")"
    else
        for step in setup build run; do
            [ -f "$tmp/$tag-$step.log" ] && show "$tmp/$tag-$step.log" 15
        done
        fail "$what"
    fi
}
sub=$tmp/subproject
cp -r examples/subproject "$sub" && mkdir -p "$sub/subprojects" && ln -s "$root" "$sub/subprojects/eddy"
consumer sub "examples/subproject (eddy as a meson subproject)" \
    'meson setup "$sub/build" "$sub" --force-fallback-for=eddy' \
    'ninja -C "$sub/build" eddy_subproject_example' \
    '"$sub/build/eddy_subproject_example"'

# 4d. A CMake program through pkg-config alone (examples/cmake: the same
#     program as examples/subproject), run with no environment.
cm=$tmp/cmake-build
consumer cmake "examples/cmake (pkg-config eddy)" \
    'cmake -S examples/cmake -B "$cm"' \
    'cmake --build "$cm"' \
    '(cd "$tmp" && env -i "$cm/eddy_cmake_example")'

# 4e. The example Vulkan host (examples/host) through pkg-config alone: its
#     own device adopted by eddy, eddy's steps recorded into its command
#     buffers, the particles drawn from eddy's position buffer, the picture
#     checked against the particles, under synchronization validation, run
#     with no environment.
hb=$tmp/host-build
consumer host "examples/host (a Vulkan host: record, draw, PNG)" \
    'meson setup "$hb" examples/host' \
    'ninja -C "$hb"' \
    '(cd "$tmp" && env -i "$hb/eddy_host" --validate --out "$tmp/host.png" && test -s "$tmp/host.png")'

# 5. The module's own test (examples/wind/test_wind.c: the kernel against its
#    CPU reference and the exact solution, under synchronization validation).
if EDDY_VALIDATION=sync meson test -C "$wind_build" --print-errorlogs >"$tmp/wind-test.log" 2>&1 \
        && grep -qE '^Ok: +1 *$' "$tmp/wind-test.log"; then
    pass "examples/wind's test: $(grep -ho 'GPU vs CPU.*' "$wind_build/meson-logs/testlog.txt" | head -1)"
else
    show "$tmp/wind-test.log"
    fail "examples/wind's test (meson test -C $wind_build)"
fi

# 6, 7. The physics: velocities against v(t) = w + (v0 - w) exp(-t / tau),
#    positions against the step-by-step reference.
python3 examples/wind/check_wind.py examples/wind/wind.json "$out" >"$tmp/physics.log" 2>&1
sed -n 's/^wind: /install: /p' "$tmp/physics.log"
for what in velocity position; do
    line=$(grep -E "^(ok|FAILED): $what" "$tmp/physics.log")
    case $line in
        ok:*) pass "${line#ok: }" ;;
        FAILED:*) fail "${line#FAILED: }" ;;
        *) show "$tmp/physics.log"; fail "$what: examples/wind/check_wind.py gave no result" ;;
    esac
done

# 8. The other out-of-tree modules, each the way examples/wind was: built
#    against the prefix (PKG_CONFIG_PATH is all they get), the library's
#    exports, the module's own test (its kernel against its CPU reference
#    and its physics) under synchronization validation, the installed eddy
#    running its scene with --module, and the run's physics (check_*.py
#    prints "ok: ..." or "FAILED: ..." lines).
# usage: other_example DIR MODULE SCENE CHECK
other_example() {
    local dir=examples/$1 name=$2 scene=examples/$1/$3 check=examples/$1/$4
    local b=$tmp/$name-build lib=$tmp/$name-build/libeddy_$name.so out=$tmp/$name-out
    if ! { meson setup "$b" "$dir" >"$tmp/$name-setup.log" 2>&1 && ninja -C "$b" >"$tmp/$name-build.log" 2>&1; }; then
        show "$tmp/$name-setup.log" 15
        [ -f "$tmp/$name-build.log" ] && show "$tmp/$name-build.log"
        fail "$dir does not build against the installed eddy"
        return
    fi
    local exports
    exports=$(nm -D --defined-only "$lib" | awk '{ print $3 }' | tr '\n' ' ')
    if [ "$exports" = "eddy_module_entry " ]; then
        pass "$dir built against the prefix: $(basename "$lib") exports eddy_module_entry only"
    else
        fail "$dir: $(basename "$lib") exports '${exports:-nothing}', expected eddy_module_entry only"
    fi
    if EDDY_VALIDATION=sync meson test -C "$b" --print-errorlogs >"$tmp/$name-test.log" 2>&1 \
            && grep -qE '^Ok: +1 *$' "$tmp/$name-test.log" \
            && grep -q 'validation messages 0' "$b/meson-logs/testlog.txt"; then
        pass "$dir's test (EDDY_VALIDATION=sync): $(grep -hE "^$name test" "$b/meson-logs/testlog.txt" | tr '\n' ' ')"
    else
        show "$tmp/$name-test.log"
        fail "$dir's test (meson test -C $b)"
    fi
    if "$eddy" modules --module "$lib" >"$tmp/$name-modules.log" 2>&1 && grep -q "^$name " "$tmp/$name-modules.log" \
            && "$eddy" run --module "$lib" "$scene" --out "$out" --quiet >"$tmp/$name-run.log" 2>&1; then
        pass "installed eddy runs $scene with --module $(basename "$lib")"
    else
        show "$tmp/$name-modules.log" 10
        show "$tmp/$name-run.log"
        fail "installed eddy run --module $lib $scene"
        return
    fi
    python3 "$check" "$scene" "$out" >"$tmp/$name-physics.log" 2>&1
    sed -n "s/^$name: /install: $name: /p" "$tmp/$name-physics.log"
    local line results=0
    while IFS= read -r line; do
        case $line in
            ok:*) pass "$name: ${line#ok: }"; results=$((results + 1)) ;;
            FAILED:*) fail "$name: ${line#FAILED: }"; results=$((results + 1)) ;;
        esac
    done <"$tmp/$name-physics.log"
    if [ "$results" -eq 0 ]; then
        show "$tmp/$name-physics.log"
        fail "$check gave no result"
    fi
}
other_example neighbours smooth smooth.json check_smooth.py
other_example rigid_push rigid_push rigid_push.json check_rigid_push.py
finish
