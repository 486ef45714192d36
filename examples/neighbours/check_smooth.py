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
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from eddy_frames import frame_files, read_vtp  # noqa: E402 (examples/eddy_frames.py)



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
    files = frame_files(out_dir, set_name)
    first, t0 = read_vtp(files[0])
    p0, scale, e0 = totals(first)
    worst_p, falls, energy, t = 0.0, True, e0, t0
    for f in files[1:]:
        frame, t = read_vtp(f)
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
