#!/usr/bin/env python3
"""Each of eddy's libraries exports exactly the functions its installed
headers declare with EDDY_API, no more (no internals, no glslang, SPIRV-Tools
or volk, no unprefixed helpers) and no fewer (every declared function links).
  libeddy          engine/include/eddy/*.h
  libeddy-scene    scene/include/eddy/*.h
  libeddy-modules  modules/include/eddy/*.h
Reads the dynamic symbol tables with nm; no device.
usage: symbols.py SOURCE_ROOT LIBEDDY LIBEDDY_SCENE LIBEDDY_MODULES"""
import re
import subprocess
import sys
from pathlib import Path

root = Path(sys.argv[1])
libs = dict(zip(("engine", "scene", "modules"), sys.argv[2:5]))
problems = []
for part, lib in libs.items():
    declared = set()
    for h in sorted((root / part / "include" / "eddy").glob("*.h")):
        text = re.sub(r"/\*.*?\*/", "", h.read_text(), flags=re.S)
        for m in re.finditer(r"^EDDY_API\b[^;{]*?\b(\w+)\s*\(", text, re.M):
            declared.add(m.group(1))
        # a declaration that lost its EDDY_API would go unexported: find them
        for m in re.finditer(r"^(?!EDDY_API|typedef|static|#|\s)[A-Za-z_][\w \*]*?\b(eddy_\w+)\s*\([^;{]*\);", text, re.M):
            problems.append(f"{h.relative_to(root)}: {m.group(1)} is declared without EDDY_API")
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    exported = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TtWDdBbRrVvi":
            exported.add(f[2].split("@")[0])
    extra = sorted(exported - declared)
    missing = sorted(declared - exported)
    if extra:
        problems.append(f"{Path(lib).name} exports {len(extra)} symbol(s) no header of {part}/include declares: "
                        + ", ".join(extra[:20]) + (" ..." if len(extra) > 20 else ""))
    if missing:
        problems.append(f"{Path(lib).name} lacks {len(missing)} function(s) its headers declare: " + ", ".join(missing))
    print(f"{Path(lib).name}: {len(exported)} exported, {len(declared)} declared")
for p in problems:
    print("FAIL:", p)
sys.exit(1 if problems else 0)
