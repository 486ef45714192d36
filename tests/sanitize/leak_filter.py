#!/usr/bin/env python3
"""The sanitized suite's leak filter (tests/sanitize/run.sh): a LeakSanitizer
report's blocks, one a leak ("Direct/Indirect leak of ..." then its frames),
and the blocks with a frame of eddy's own source (engine, scene, modules,
shaders, tests, tools, examples under the source tree) fail the test; the
others, the Vulkan stack's, are counted and ignored.
usage: leak_filter.py LOG SOURCE_ROOT"""
import re, sys
text = open(sys.argv[1], errors="replace").read()
root = sys.argv[2].rstrip("/") + "/"
blocks = re.split(r"\n(?=(?:Direct|Indirect) leak of )", text)
# A frame of eddy's source: "in FUNCTION ROOT/engine/src/x.c:LINE" (the
# interceptor's frame names the binary under ROOT/build-san: not a source).
# Sources compiled from the build folder show as ROOT/build-san/../engine/...
mine = re.compile(r" in \S+ " + re.escape(root) + r"(?:[^/\s]+/\.\./)?(engine|scene|modules|shaders|tests|tools|examples)/")
ours = [b for b in blocks if re.match(r"(Direct|Indirect) leak of ", b)
        and any(mine.search(line) for line in b.splitlines()[1:])]
others = sum(1 for b in blocks if re.match(r"(Direct|Indirect) leak of ", b)) - len(ours)
for b in ours:
    sys.stderr.write("--- LeakSanitizer: a leak from eddy's code:\n" + b.strip() + "\n")
if others:
    sys.stderr.write(f"(sanitize: {others} leak report(s) without an eddy frame ignored: the Vulkan stack's)\n")
sys.exit(1 if ours else 0)
