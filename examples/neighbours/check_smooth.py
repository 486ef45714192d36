#!/usr/bin/env python3
"""Checks a run of examples/neighbours/smooth.json against the physics.

usage: check_smooth.py SCENE.json OUT_DIR

Reads every frame of the smooth system's set (.vtp, VTK XML with raw
appended data, listed in <set>.pvd) and checks, frame by frame:
  momentum: the total momentum sum m v stays within 1e-6 of sum m |v| of the
            first frame (each pair's exchange is equal and opposite, and
            nothing else pushes: no gravity, no wall reached);
  energy:   the kinetic energy falls from every frame to the next (the
            smoothing only damps velocity differences).
Prints the numbers and one line per check, "ok: ..." or "FAILED: ..."; exits
with the number of failed checks."""
import json
import math
import os
import struct
import sys
import xml.etree.ElementTree as ET


def read_vtp(path):
    """{name: list of tuples} of a .vtp eddy wrote, and its TimeValue."""
    data = open(path, "rb").read()
    marker = b'<AppendedData encoding="raw">'
    head_end = data.index(marker)
    raw = data[data.index(b"_", head_end) + 1:]
    root = ET.fromstring(data[:head_end].decode() + "</VTKFile>")
    if root.get("header_type") != "UInt64" or root.get("byte_order") != "LittleEndian":
        raise ValueError(f"{path}: not a little-endian UInt64-header file")
    fmt = {"Float32": "f", "Float64": "d", "UInt32": "I", "Int64": "q"}
    arrays, time = {}, None
    for a in root.iter("DataArray"):
        if a.get("format") == "ascii":
            if a.get("Name") == "TimeValue":
                time = float(a.text)
            continue
        off = int(a.get("offset"))
        (size,) = struct.unpack_from("<Q", raw, off)
        code = fmt[a.get("type")]
        vals = struct.unpack_from(f"<{size // struct.calcsize(code)}{code}", raw, off + 8)
        k = int(a.get("NumberOfComponents", "1"))
        arrays[a.get("Name")] = [vals[i:i + k] for i in range(0, len(vals), k)]
    return arrays, time


def totals(frame):
    """Momentum (kg m/s), sum m |v| (kg m/s) and kinetic energy (J)."""
    p, scale, energy = [0.0] * 3, 0.0, 0.0
    for (m,), v in zip(frame["mass"], frame["velocity"]):
        for a in range(3):
            p[a] += m * v[a]
        speed = math.hypot(*v)
        scale += m * speed
        energy += m * speed * speed / 2
    return p, scale, energy


def main():
    scene_path, out_dir = sys.argv[1], sys.argv[2]
    scene = json.load(open(scene_path))
    smooth = next(s for s in scene["systems"] if s["module"] == "smooth")
    set_name = smooth.get("set") or smooth["sets"]["particles"]
    pvd = ET.parse(os.path.join(out_dir, set_name + ".pvd")).getroot()
    files = [d.get("file") for d in sorted(pvd.iter("DataSet"), key=lambda d: float(d.get("timestep")))]
    first, t0 = read_vtp(os.path.join(out_dir, files[0]))
    p0, scale, e0 = totals(first)
    worst_p, falls, energy, t = 0.0, True, e0, t0
    for f in files[1:]:
        frame, t = read_vtp(os.path.join(out_dir, f))
        p, _, e = totals(frame)
        worst_p = max(worst_p, math.dist(p, p0) / scale)
        falls = falls and e < energy
        energy = e
    print(f"smooth: set '{set_name}', {len(first['mass'])} particles, {len(files)} frames to t = {t:g} s: "
          f"momentum drift {worst_p:.3g} of sum m|v| = {scale:.6g} kg m/s, kinetic energy {e0:.6g} -> {energy:.6g} J")
    failed = 0
    for ok, what in ((worst_p <= 1e-6 and len(files) > 2,
                      f"momentum is conserved (drift {worst_p:.3g} of sum m|v|, at most 1e-6)"),
                     (falls and energy < e0,
                      f"kinetic energy falls every frame ({e0:.6g} -> {energy:.6g} J)")):
        print(("ok: " if ok else "FAILED: ") + what)
        failed += not ok
    return failed


if __name__ == "__main__":
    sys.exit(main())
