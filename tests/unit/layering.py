#!/usr/bin/env python3
"""The dependency direction of eddy's libraries, and the rules that keep its
sources easy to find one's way in:
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
  - no C function under engine/, scene/ or modules/ runs over 150 lines
    (from the first line of its definition to its closing brace), and no
    source file there over 1,000 lines;
  - no comment cites a numbered issue or item of a tracker (the tracker is
    not in the repository: a comment says what and why itself), in any C,
    GLSL, Python or shell source or meson.build outside docs/;
  - engine/src/kernel.c reads SPIR-V by spirv.h's names, not by numbers.
Reads the sources; no device. usage: layering.py SOURCE_ROOT"""
import os
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
                root / "engine/include/eddy", root / "scene/include/eddy", root / "modules/couple/shaders"]
# Generated in the build tree (modules/meson.build): which modules are built.
generated = {"eddy_builtin_config.h"}
for p in files("modules", (".c", ".h", ".glsl", ".comp")):
    text = p.read_text()
    for m in re.finditer(r'#\s*include\s+"([^"]+)"', text):
        inc = m.group(1)
        line = text.count("\n", 0, m.start()) + 1
        where = f"{p.relative_to(root)}:{line}"
        if inc.endswith(".spv.inc") or inc in generated:
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
scene_internal_pending = {}
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

# --- Sizes: functions and files -------------------------------------------

MAX_FUNCTION_LINES = 150
MAX_FILE_LINES = 1000
# Comments, string and character literals and preprocessor lines, blanked
# (newlines kept) so that braces and semicolons in them do not count.
c_noise = re.compile(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|^[ \t]*#(?:[^\n]*\\\n)*[^\n]*",
                     re.S | re.M)


def blank(m):
    return re.sub(r"[^\n]", " ", m.group(0))


def c_functions(text):
    """(name, first line, lines) of each function definition: a top-level
    brace block whose head (the text since the previous top-level ';' or
    '}') ends with a parameter list and holds no '=' outside parentheses."""
    code = c_noise.sub(blank, text)
    found, depth, head, start = [], 0, 0, None
    for m in re.finditer(r"[{};]", code):
        c, i = m.group(0), m.start()
        if c == ";":
            if depth == 0:
                head = i + 1
        elif c == "{":
            if depth == 0:
                pre = code[head:i]
                outside, inner = pre, None
                while inner != outside:  # parenthesised text removed, innermost first
                    inner, outside = outside, re.sub(r"\([^()]*\)", "", outside)
                start = None
                if pre.rstrip().endswith(")") and "=" not in outside:
                    first = head + (len(pre) - len(pre.lstrip()))
                    name = re.findall(r"(\w+)\s*\(", pre)
                    start = (name[0] if name else "?", code.count("\n", 0, first) + 1)
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                if start:
                    line = code.count("\n", 0, i) + 1
                    found.append((start[0], start[1], line - start[1] + 1))
                start, head = None, i + 1
    return found


for d in ("engine", "scene", "modules"):
    for p in sorted((root / d).rglob("*")):
        if not p.is_file() or p.suffix not in (".c", ".h", ".comp", ".glsl"):
            continue
        text = p.read_text()
        rel = p.relative_to(root)
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if lines > MAX_FILE_LINES:
            problems.append(f"{rel}: {lines} lines, over {MAX_FILE_LINES}: split the file by concern")
        if p.suffix == ".c":
            for name, line, n in c_functions(text):
                if n > MAX_FUNCTION_LINES:
                    problems.append(f"{rel}:{line}: {name} runs {n} lines, over {MAX_FUNCTION_LINES}: "
                                    "split it into helpers by concern")

# --- No tracker references in comments --------------------------------------

tracker = re.compile(r"\b(issue|item)s?\s+#?\d+", re.I)
c_comment = re.compile(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"", re.S)


def source_files():
    """Every C, GLSL, Python and shell source and meson.build of the tree,
    outside docs/, hidden folders and build folders."""
    for top, dirs, names in os.walk(root):
        here = Path(top)
        dirs[:] = sorted(n for n in dirs if not n.startswith(".") and not (here == root and n == "docs") and
                         not (here / n / "meson-private").is_dir() and not (here / n / "build.ninja").exists())
        for n in sorted(names):
            if n == "meson.build" or Path(n).suffix in (".c", ".h", ".comp", ".glsl", ".py", ".sh"):
                yield here / n


for p in source_files():
    text = p.read_text(errors="replace")
    if p.suffix in (".c", ".h", ".comp", ".glsl"):
        # The comments only: a message string may number what it lists.
        spans = [m for m in c_comment.finditer(text) if not m.group(0).startswith('"')]
    else:
        spans = [re.match(r"(?s).*", text)]
    for s in spans:
        for m in tracker.finditer(s.group(0)):
            line = text.count("\n", 0, s.start() + m.start()) + 1
            problems.append(f"{p.relative_to(root)}:{line}: a comment cites '{m.group(0)}' of a tracker that is "
                            "not in the repository: say what and why instead")

# --- kernel.c reads SPIR-V by name ----------------------------------------

kernel = root / "engine/src/kernel.c"
if kernel.exists():
    code = c_noise.sub(blank, kernel.read_text())
    if "spirv/unified1/spirv.h" not in kernel.read_text():
        problems.append("engine/src/kernel.c: does not include <spirv/unified1/spirv.h>")
    for rx in (r"0x0?7230203", r"\bop\s*[!=]=\s*\d", r"\bcase\s+\d+\s*:", r"\b(OP|DEC|MODE)_\w+\s*=\s*\d"):
        for m in re.finditer(rx, code):
            line = code.count("\n", 0, m.start()) + 1
            problems.append(f"engine/src/kernel.c:{line}: a SPIR-V number '{m.group(0)}': use spirv.h's name")

for x in problems:
    print("FAIL:", x)
print(f"modules: {', '.join(modules)}; {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
