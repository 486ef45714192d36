#!/usr/bin/env python3
"""The dependency direction of eddy's libraries (issue 15, item 6):
core (engine/) <- scene layer (scene/) <- built-in modules (modules/) <- tools.
  - no file under engine/ names a built-in module or the modules folder, or
    includes a scene-layer header;
  - no file under scene/ includes a module's header or names eddy_builtin;
  - no file under modules/ includes a header from engine/src or scene/src:
    modules see public headers only (engine/include, scene/include), their
    own folder, modules/include (eddy/eddy_builtin.h), shaders/ and their
    generated SPIR-V;
  - no C file under tools/ includes a module's header ("sph/sph.h", ...) or
    compares a string with a module's name or one of its pass labels:
    tools know modules through eddy_builtin.h and eddy_bench.h, and what
    they do for one module they do for any; no file under scene/src
    includes engine/src's "internal.h": the scene layer uses the core's
    public API.
Reads the sources; no device. usage: layering.py SOURCE_ROOT"""
import re
import sys
from pathlib import Path

root = Path(sys.argv[1])
modules = sorted(p.name for p in (root / "modules").iterdir() if p.is_dir() and p.name != "common")
names = "|".join(modules)
problems = []


def files(d, exts=(".c", ".h", ".glsl", ".comp", ".build", ".md")):
    return sorted(p for p in (root / d).rglob("*") if p.is_file() and (p.suffix in exts or p.name == "meson.build"))


# Where a built-in module is named in code or paths: its folder, its C
# identifiers, its registered name as a string, or its acronym.
module_refs = [
    re.compile(r"modules/"),
    re.compile(r"\beddy_builtin\b|eddy_register_builtin_modules"),
    re.compile(rf"\beddy_({names})_\w+"),
    re.compile(rf'"({names})"'),
    re.compile(r"\b(SPH|PBF|DEM)\b"),
    re.compile(rf'#\s*include\s+"({names})/'),
]
scene_headers = re.compile(r'#\s*include\s+"(eddy/)?(eddy_scene|eddy_mesh|output|render|scene_internal)\.h"')
for p in files("engine"):
    text = p.read_text()
    for rx in module_refs + [scene_headers]:
        for m in rx.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            problems.append(f"{p.relative_to(root)}:{line}: the core names '{m.group(0)}'")

for p in files("scene"):
    text = p.read_text()
    for rx in [module_refs[1], module_refs[2], module_refs[5], re.compile(r'#\s*include\s+"[^"]*modules/')]:
        for m in rx.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            problems.append(f"{p.relative_to(root)}:{line}: the scene layer names '{m.group(0)}'")

private = {p.name for d in ("engine/src", "scene/src") for p in (root / d).glob("*.h")}
allowed_dirs = [root / "modules", root / "modules/include", root / "shaders", root / "engine/include", root / "scene/include",
                root / "engine/include/eddy", root / "scene/include/eddy"]
for p in files("modules", (".c", ".h", ".glsl", ".comp")):
    text = p.read_text()
    for m in re.finditer(r'#\s*include\s+"([^"]+)"', text):
        inc = m.group(1)
        line = text.count("\n", 0, m.start()) + 1
        where = f"{p.relative_to(root)}:{line}"
        if inc.endswith(".spv.inc"):
            continue
        found = [d for d in [p.parent] + allowed_dirs if (d / inc).exists()]
        if not found:
            problems.append(f"{where}: '{inc}' is not in the module's folder, modules/, shaders/ or the public headers")
        elif Path(inc).name in private and not (p.parent / inc).exists() and not (root / "modules" / inc).exists():
            problems.append(f"{where}: '{inc}' is a private header of engine/src or scene/src")
        if "engine/src" in inc or "scene/src" in inc:
            problems.append(f"{where}: includes '{inc}'")

# ---- tools and the scene layer see modules and the core through their
# interfaces only.
module_dirs = sorted(p.name for p in (root / "modules").iterdir() if (p / f"{p.name}.h").is_file())
module_alt = "|".join(module_dirs)
tool_rules = [
    (re.compile(rf'#\s*include\s+[<"]({module_alt})/'), "includes a module's header"),
    (re.compile(rf'\b(str(n)?(case)?cmp|memcmp)\s*\([^;]*?"({module_alt})(\.[\w.]*)?"'), "compares a module's name"),
]
for p in files("tools", (".c", ".h")):
    text = p.read_text()
    for rx, what in tool_rules:
        for m in rx.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            problems.append(f"{p.relative_to(root)}:{line}: the tool {what}: '{m.group(0)[:60]}'")
# Files that still include internal.h, each with what keeps it there; an
# entry must go once its file no longer needs it.
scene_internal_pending = {
    "scene/src/scene_internal.h": "scene_load.c reads eddy_engine's fields (info.max_storage_buffer_range, "
                                  "module_count, modules): eddy_engine_device, eddy_module_count and "
                                  "eddy_module_at give them",
}
engine_private = {p.name for p in (root / "engine/src").glob("*.h")}
for p in files("scene", (".c", ".h")):
    text = p.read_text()
    rel = str(p.relative_to(root))
    found = False
    for m in re.finditer(r'#\s*include\s+"([^"]+)"', text):
        if Path(m.group(1)).name in engine_private and not (p.parent / m.group(1)).exists():
            found = True
            if rel not in scene_internal_pending:
                line = text.count("\n", 0, m.start()) + 1
                problems.append(f"{rel}:{line}: the scene layer includes engine/src's '{m.group(1)}'")
    if rel in scene_internal_pending and not found:
        problems.append(f"{rel}: no longer includes an engine/src header: remove it from scene_internal_pending")

for x in problems:
    print("FAIL:", x)
print(f"modules: {', '.join(modules)}; {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
