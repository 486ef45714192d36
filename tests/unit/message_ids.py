#!/usr/bin/env python3
"""Message identifiers: every message eddy logs carries an
identifier from the list in engine/include/eddy/eddy_messages.h, and every listed
identifier is used somewhere, so the list is the whole truth a program can
act on. Reads the sources; no device.
usage: message_ids.py SOURCE_ROOT"""
import re
import sys
from pathlib import Path

root = Path(sys.argv[1])
header = (root / "engine/include/eddy/eddy_messages.h").read_text()
block = header[header.index("/* Message identifiers"):]
block = block[:block.index("*/")]
listed = {}
for m in re.finditer(r"^ \*   ([a-z_]+\.[a-z_]+)\s+([EWID])\s", block, re.M):
    if m.group(1) in listed:
        print(f"FAIL: {m.group(1)} is listed twice")
        sys.exit(1)
    listed[m.group(1)] = m.group(2)
if len(listed) < 40:
    print(f"FAIL: only {len(listed)} identifiers parsed from eddy_messages.h; the list's format changed?")
    sys.exit(1)

sources = sorted(p for d in ("engine/src", "scene/src", "modules", "tools/eddy") for ext in ("*.c", "*.h") for p in (root / d).rglob(ext))
used = {}
problems = []
level_of = {"EDDY_LOG_ERROR": "E", "EDDY_LOG_WARN": "W", "EDDY_LOG_INFO": "I", "EDDY_LOG_DEBUG": "D"}
# eddy_log(e, LEVEL, "id", ...), the scene parser's scene_fail(c, "id", ...),
# the checkpoint's cp_fail(cp, "id", ...), and
# the tool's own "eddy error [id]: ..." lines.
patterns = [
    (re.compile(r"\beddy_log\(\s*[^,]+,\s*(EDDY_LOG_\w+),\s*([^,]+),"), "log"),
    (re.compile(r"\bscene_fail\(\s*&?c,\s*([^,]+),"), "fail"),
    # checkpoint.c's cp_fail(cp, "id", ...): one message per save or restore.
    (re.compile(r"\bcp_fail\(\s*&?cp,\s*([^,]+),"), "fail"),
    (re.compile(r'"eddy (error|warning) \[([^\]]*)\]'), "cli"),
]
for path in sources:
    text = path.read_text()
    for rx, kind in patterns:
        for m in rx.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            where = f"{path.relative_to(root)}:{line}"
            if kind == "log":
                level, arg = level_of[m.group(1)], m.group(2).strip()
            elif kind == "fail":
                level, arg = "E", m.group(1).strip()
            else:
                level, arg = "E" if m.group(1) == "error" else "W", '"' + m.group(2) + '"'
            if arg == '"%s"' and kind == "cli" and path.name == "run_mpi.c":
                continue  # another rank's message relayed: its id was checked where it was logged
            if arg.startswith('"'):
                ids = [arg.strip('"')]
            elif re.fullmatch(r'[^"?]+\?\s*"[a-z_.]+"\s*:\s*"[a-z_.]+"', arg):
                ids = re.findall(r'"([a-z_.]+)"', arg)
            elif arg == "id" and path.name in ("pipeline_cache.c", "scene_json.c", "checkpoint.c"):
                continue
            elif path.name == "core.c" and "VK_ERROR_OUT_OF_DEVICE_MEMORY" in text[m.start():m.start() + 300]:
                ids = ["memory.device", "memory.host", "vulkan.call"]
            else:
                problems.append(f"{where}: the identifier is not a string literal: {arg}")
                continue
            for i in ids:
                used.setdefault(i, []).append(where)
                if i not in listed:
                    problems.append(f"{where}: '{i}' is not listed in eddy_messages.h")
                elif listed[i] != level and kind == "log":
                    problems.append(f"{where}: '{i}' is logged at level {level} but listed as {listed[i]}")
# Identifiers chosen by code (pipeline_cache.c's `id`): the literals it assigns.
for path in sources:
    for m in re.finditer(r'\bid = "([a-z_]+\.[a-z_]+)"', path.read_text()):
        used.setdefault(m.group(1), []).append(str(path.relative_to(root)))
        if m.group(1) not in listed:
            problems.append(f"{path.relative_to(root)}: '{m.group(1)}' is not listed in eddy_messages.h")
# The engine-less messages of eddy_enumerate_devices (stderr, no engine).
for path in sources:
    for m in re.finditer(r'"eddy error \[([a-z_]+\.[a-z_]+)\]', path.read_text()):
        used.setdefault(m.group(1), []).append(str(path.relative_to(root)))
for i in listed:
    if i not in used:
        problems.append(f"'{i}' is listed in eddy_messages.h but nothing logs it")
for p in problems:
    print("FAIL:", p)
print(f"{len(listed)} identifiers listed, {sum(len(v) for v in used.values())} uses; {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
