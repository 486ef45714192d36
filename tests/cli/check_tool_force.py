#!/usr/bin/env python3
"""Checks a tool force log (ports_<system>.csv) of the seed-004 tool experiment
against the paper's description (section 4, fig. 6).

usage: check_tool_force.py SCENE.json ports_<system>.csv

The phases come from the scene: the tool's key frames (down, along -x, back
along +x, up) and the fluid's fill height H. Forces are averaged over 0.1 s
windows before they are compared (single steps carry the particles' noise).
Checks:
  1. going in: the upward force grows while the tool enters (touching ->
     half in -> submerged) and levels off once submerged (the 0.1 s means of
     the last 0.3 s of the descent within 15% of their mean);
  2. moving along -x at constant speed: a steady resisting force along +x
     (every 0.1 s mean in the middle 60% of the move > 0, and their spread
     below 25% of their mean); along +x back to the middle: the opposite;
  3. the axis of no motion (z): every 0.1 s mean within 5% of the largest
     |F| of the run;
  4. leaving the surface: the adhesion pulls down (its 0.1 s means below
     0.01 N, the strongest below -0.1 N) and the total is downward at some
     point while the tool comes out;
  5. after it has left (0.2 s after its bottom is h above the surface): zero.
"""
import csv
import json
import sys


def main():
    scene = json.load(open(sys.argv[1]))
    rows = list(csv.DictReader(open(sys.argv[2])))
    system = scene["systems"][0]
    R = system["params"]["tool_radius"]
    h = system["params"]["h"]
    H = scene["particle_sets"][0]["fill"]["max"][1]
    keys = system["inputs"]["tool.position"]["path"]
    t = [float(r["time"]) for r in rows]
    col = {k: [float(r[k]) for r in rows] for k in rows[0] if k != "step"}
    dt = t[1] - t[0]
    failures = []

    def mean(k, t0, t1):
        v = [x for x, tt in zip(col[k], t) if t0 <= tt < t1]
        return sum(v) / len(v) if v else 0.0

    def windows(k, t0, t1, w=0.1):
        out, a = [], t0
        while a + w <= t1 + 1e-9:
            out.append(mean(k, a, a + w))
            a += w
        return out

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    fmax = max((col["tool.force.total.x"][i] ** 2 + col["tool.force.total.y"][i] ** 2 + col["tool.force.total.z"][i] ** 2) ** 0.5
               for i in range(len(t)))
    # Phase times from the key frames: down, -x, +x, up.
    (t_down0, t_down1), (t_x0, t_x1), (t_b0, t_b1), (t_up0, t_up1) = [
        (keys[i]["t"], keys[i + 1]["t"]) for i in range(len(keys) - 5, len(keys) - 1)]

    def first(cond):
        return next(tt for tt, i in zip(t, range(len(t))) if cond(i))

    # 1. Going in.
    t_touch = first(lambda i: t[i] >= t_down0 and col["tool.centre.y"][i] - R < H)
    t_sub = first(lambda i: t[i] >= t_down0 and col["tool.centre.y"][i] + R < H)
    f_touch = mean("tool.force.total.y", t_touch, t_touch + 0.1)
    f_half = mean("tool.force.total.y", 0.5 * (t_touch + t_sub) - 0.05, 0.5 * (t_touch + t_sub) + 0.05)
    f_sub = mean("tool.force.total.y", t_sub, t_sub + 0.1)
    check(f_touch < f_half < f_sub,
          f"going in, the upward force grows: {f_touch:.3f} N as it touches (t {t_touch:.2f} s), "
          f"{f_half:.3f} N half in, {f_sub:.3f} N submerged (t {t_sub:.2f} s)")
    late = windows("tool.force.total.y", t_down1 - 0.3, t_down1)
    m = sum(late) / len(late)
    check(m > 0 and max(abs(x - m) for x in late) < 0.15 * m,
          f"submerged, it levels off: 0.1 s means {', '.join('%.3f' % x for x in late)} N "
          f"(within 15% of {m:.3f} N)")

    # 2. Along -x and back.
    for (a, b, sign, name) in [(t_x0, t_x1, 1, "along -x: resisting force along +x"),
                               (t_b0, t_b1, -1, "back along +x: resisting force along -x")]:
        w = windows("tool.force.total.x", a + 0.2 * (b - a), b - 0.2 * (b - a))
        m = sum(w) / len(w)
        spread = max(w) - min(w)
        check(all(sign * x > 0 for x in w) and spread < 0.25 * abs(m),
              f"{name}: 0.1 s means {min(w):.3f} .. {max(w):.3f} N, mean {m:.3f} N "
              f"(spread below 25% of the mean)")

    # 3. The axis of no motion.
    wz = windows("tool.force.total.z", t[0], t[-1])
    band = 0.05 * fmax
    check(max(abs(x) for x in wz) < band,
          f"z (no motion): 0.1 s means within +-{max(abs(x) for x in wz):.3f} N "
          f"(band +-{band:.3f} N = 5% of the largest |F| {fmax:.3f} N)")

    # 4. Leaving the surface.
    t_top = first(lambda i: t[i] >= t_up0 and col["tool.centre.y"][i] + R > H)
    t_out = first(lambda i: t[i] >= t_up0 and col["tool.centre.y"][i] - R > H + h)
    wa = windows("tool.force.adhesion.y", t_top, t_out)
    wt = windows("tool.force.total.y", t_top, t_out)
    check(wa and all(x < 0.01 for x in wa) and min(wa) < -0.1 and min(wt) < 0,
          f"leaving (t {t_top:.2f} .. {t_out:.2f} s): adhesion pulls down "
          f"({max(wa):.3f} .. {min(wa):.3f} N), total down to {min(wt):.3f} N")

    # 5. Gone.
    after = [i for i in range(len(t)) if t[i] >= t_out + 0.2]
    worst = max(abs(col[k][i]) for i in after for k in ("tool.force.total.x", "tool.force.total.y", "tool.force.total.z"))
    check(after and worst < 1e-6,
          f"after it has left (t >= {t_out + 0.2:.2f} s, {len(after)} steps): |F| <= {worst:.3g} N")
    print(f"{len(t)} steps of {dt * 1e3:.3g} ms: {len(failures)} check(s) failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
