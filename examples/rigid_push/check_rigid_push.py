#!/usr/bin/env python3
"""Checks a run of examples/rigid_push/rigid_push.json against Newton.

usage: check_rigid_push.py SCENE.json OUT_DIR

Reads the scene (the rigid_push system's acceleration a, anchor p and
frequency f; dt) and every frame of the set (.vtp, VTK XML with raw appended
data, listed in <set>.pvd). Per body (the particles of one phase): its mass
M, centre of mass X0 and velocity V0 in the first frame, then in every frame
  centre:   X(t) = q + (X0 - q) cos(w t) + V0 / w sin(w t), q = p + a / w^2,
            w = 2 pi f (X0 + V0 t + a t^2 / 2 without a trap), within 1e-2
            of the motion's size (the amplitude, or the displacement): the
            rigid system's symplectic Euler is first order, about w dt / 2
            = 3.1e-3 of the amplitude in rigid_push.json;
  rotation: every particle's offset from its body's centre of mass stays
            within 1e-4 m of its first: the force acts through the centre
            of mass.
Prints the numbers and one line per check, "ok: ..." or "FAILED: ..."; exits
with the number of failed checks."""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from eddy_frames import frame_files, read_vtp  # noqa: E402 (examples/eddy_frames.py)



def bodies(frame):
    """{phase: (M, X, V)}: each body's mass, centre of mass and velocity."""
    acc = {}
    for m, x, v, (k,) in zip(frame["mass"], frame["position"], frame["velocity"], frame["phase"]):
        b = acc.setdefault(k, [0.0, [0.0] * 3, [0.0] * 3])
        b[0] += m[0]
        for a in range(3):
            b[1][a] += m[0] * x[a]
            b[2][a] += m[0] * v[a]
    return {k: (m, [c / m for c in x], [c / m for c in v]) for k, (m, x, v) in acc.items()}


def exact(x0, v0, a, p, w, t):
    """The centre at t, and the motion's size (m)."""
    if w == 0:
        x = [x0[i] + v0[i] * t + a[i] * t * t / 2 for i in range(3)]
        return x, math.dist(x, x0)
    q = [p[i] + a[i] / (w * w) for i in range(3)]
    x = [q[i] + (x0[i] - q[i]) * math.cos(w * t) + v0[i] / w * math.sin(w * t) for i in range(3)]
    return x, math.sqrt(sum((x0[i] - q[i]) ** 2 + (v0[i] / w) ** 2 for i in range(3)))


def main():
    scene_path, out_dir = sys.argv[1], sys.argv[2]
    scene = json.load(open(scene_path))
    push = next(s for s in scene["systems"] if s["module"] == "rigid_push")
    params = push.get("params", {})
    a = params.get("acceleration", [0, 0, 0])
    p = params.get("anchor", [0, 0, 0])
    w = 2 * math.pi * params.get("frequency", 1)
    set_name = push.get("set") or push["sets"]["bodies"]
    files = frame_files(out_dir, set_name)
    first, t0 = read_vtp(files[0])
    start = bodies(first)
    phases = [k for (k,) in first["phase"]]
    offset0 = [[x[i] - start[k][1][i] for i in range(3)] for x, k in zip(first["position"], phases)]
    worst_x = worst_r = 0.0
    for f in files[1:]:
        frame, t = read_vtp(f)
        now = bodies(frame)
        for k, (m, x0, v0) in start.items():
            x_exact, size = exact(x0, v0, a, p, w, t - t0)
            worst_x = max(worst_x, math.dist(now[k][1], x_exact) / size)
        for x, k, r0 in zip(frame["position"], phases, offset0):
            worst_r = max(worst_r, math.dist([x[i] - now[k][1][i] for i in range(3)], r0))
    print(f"rigid_push: set '{set_name}', {len(start)} bodies, {len(files)} frames to t = {t:g} s, "
          f"a = {a} m/s^2, anchor {p} m, w = {w:.6g} rad/s: centre of mass vs exact {worst_x:.3g} of the "
          f"motion's size, offsets moved {worst_r:.3g} m")
    failed = 0
    for ok, what in ((worst_x <= 1e-2 and len(files) > 2,
                      f"centres of mass follow Newton (error {worst_x:.3g} of the motion, at most 1e-2)"),
                     (worst_r <= 1e-4,
                      f"bodies do not turn (offsets from the centre of mass moved {worst_r:.3g} m, at most 1e-4)")):
        print(("ok: " if ok else "FAILED: ") + what)
        failed += not ok
    return failed


if __name__ == "__main__":
    sys.exit(main())
