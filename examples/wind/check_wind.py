#!/usr/bin/env python3
"""Checks a run of examples/wind/wind.json against the physics.

usage: check_wind.py SCENE.json OUT_DIR

Reads the scene (wind w and time constant tau of the "wind" system, dt) and
the particle set's first and last frames (.vtp, VTK XML with raw appended
data, listed in <set>.pvd), then compares per particle:
  velocity: v(t) = w + (v0 - w) exp(-t / tau), the exact solution of
            dv/dt = (w - v) / tau (no gravity, no wall touched), relative
            error |v - v_exact| / |v_exact| <= 1e-3;
  position: the step-by-step reference of the two systems (ballistic first:
            x += v dt with the velocity before the wind's update, then
            v <- w + (v - w) exp(-dt / tau)), relative to the displacement,
            <= 1e-4; the continuous x(t) = x0 + w t + (v0 - w) tau (1 -
            exp(-t / tau)) is printed beside it (it differs by O(dt / tau)).
Prints the numbers and one line per check, "ok: ..." or "FAILED: ..."; exits
with the number of failed checks."""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from eddy_frames import frame_files, read_vtp  # noqa: E402 (examples/eddy_frames.py)



def main():
    scene_path, out_dir = sys.argv[1], sys.argv[2]
    scene = json.load(open(scene_path))
    dt = scene["dt"] / scene.get("substeps", 1)
    wind = next(s for s in scene["systems"] if s["module"] == "wind")
    params = wind.get("params", {})
    w = params.get("velocity", [2, 0, 0])
    tau = params.get("time_constant", 0.5)
    sets = wind.get("sets", {})
    set_name = wind.get("set") or (sets.get("particles") if isinstance(sets.get("particles"), str)
                                   else sets["particles"][0])
    files = frame_files(out_dir, set_name)
    first, t0 = read_vtp(files[0])
    last, t = read_vtp(files[-1])
    steps = round((t - t0) / dt)
    d = math.exp(-dt / tau)
    print(f"wind: set '{set_name}', {len(last['velocity'])} particles, w = {w} m/s, tau = {tau} s, "
          f"dt = {dt} s; frames at t = {t0:g} s and t = {t:g} s ({steps} steps)")
    worst_v = worst_x = 0.0
    worst_vi = worst_xi = 0
    for i, (v0, v, x0, x) in enumerate(zip(first["velocity"], last["velocity"],
                                           first["position"], last["position"])):
        e = math.exp(-(t - t0) / tau)
        v_exact = [w[a] + (v0[a] - w[a]) * e for a in range(3)]
        err = math.dist(v, v_exact) / math.hypot(*v_exact)
        if err >= worst_v:
            worst_v, worst_vi = err, i
        # Step by step: ballistic moves with v_k, then the wind relaxes v_k.
        x_ref = [x0[a] + dt * (steps * w[a] + (v0[a] - w[a]) * (1 - d ** steps) / (1 - d)) for a in range(3)]
        disp = math.dist(x_ref, x0)
        xerr = math.dist(x, x_ref) / disp
        if xerr >= worst_x:
            worst_x, worst_xi = xerr, i
    i = worst_vi
    v0, v = first["velocity"][i], last["velocity"][i]
    e = math.exp(-(t - t0) / tau)
    v_exact = [w[a] + (v0[a] - w[a]) * e for a in range(3)]
    fmt3 = lambda p: "(" + ", ".join(f"{c:.7g}" for c in p) + ")"
    print(f"wind: velocity, worst particle {i}: v0 = {fmt3(v0)}, eddy v = {fmt3(v)}, "
          f"w + (v0 - w) exp(-t/tau) = {fmt3(v_exact)} m/s, relative error {worst_v:.3g}")
    i = worst_xi
    x0, x = first["position"][i], last["position"][i]
    x_ref = [x0[a] + dt * (steps * w[a] + (v0[a] - w[a]) * (1 - d ** steps) / (1 - d)) for a in range(3)]
    v0 = first["velocity"][i]
    x_cont = [x0[a] + w[a] * (t - t0) + (v0[a] - w[a]) * tau * (1 - e) for a in range(3)]
    print(f"wind: position, worst particle {i}: x0 = {fmt3(x0)}, eddy x = {fmt3(x)}, "
          f"step-by-step reference {fmt3(x_ref)}, continuous {fmt3(x_cont)} m, "
          f"relative error {worst_x:.3g} (of the displacement)")
    failed = 0
    for ok, what in ((worst_v <= 1e-3 and steps > 0,
                      f"velocity matches the exact solution (relative error {worst_v:.3g}, at most 1e-3)"),
                     (worst_x <= 1e-4 and steps > 0,
                      f"position matches the step-by-step reference (relative error {worst_x:.3g}, at most 1e-4)")):
        print(("ok: " if ok else "FAILED: ") + what)
        failed += not ok
    return failed


if __name__ == "__main__":
    sys.exit(main())
