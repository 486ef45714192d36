"""The build outputs tools/sanitize.sh needs: the executables (and what
they load) of the tests it runs: the suites unit, hostile, sanitize, fuzz
and cli, and the tests named on the command line (its GPU sample). Prints
them relative to the build folder, for ninja; the counts on stderr.
usage: targets.py BUILD_DIR [TEST ...]"""
import json, os, subprocess, sys
build, names = sys.argv[1], set(sys.argv[2:])
tests = json.loads(subprocess.check_output(["meson", "introspect", build, "--tests"]))
targets = {t["id"]: t for t in json.loads(subprocess.check_output(["meson", "introspect", build, "--targets"]))}
suites = {"eddy:unit", "eddy:hostile", "eddy:sanitize", "eddy:fuzz", "eddy:cli"}
need = set()
for t in tests:
    if names & {t["name"]} or suites & set(t["suite"]):
        for d in t["depends"]:
            for f in targets[d]["filename"]:
                need.add(os.path.relpath(f, build))
print(f"sanitize: building {len(need)} of {len(targets)} targets", file=sys.stderr)
print(" ".join(sorted(need)))
