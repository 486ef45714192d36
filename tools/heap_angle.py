#!/usr/bin/env python3
"""Height and slope angle of a granular heap in an eddy particle frame (.vtp).

usage: tools/heap_angle.py FRAME.vtp [--axis X Z] [--ring R]

The heap's axis is vertical (+y) through X Z (default: the particles' mean
x and z). The surface is the highest particle per ring of width R (m,
default the particle diameter from the 'radius' array); the slope is a
least-squares line through the rings outside the peak whose top lies between
20% and 80% of the peak height (the same measure as tests/physics/test_rigid.c).
"""
import math
import re
import struct
import sys


def read_vtp(path):
    data = open(path, "rb").read()
    head, _, raw = data.partition(b"<AppendedData encoding=\"raw\">")
    raw = raw[raw.index(b"_") + 1:]
    text = head.decode()
    n = int(re.search(r'NumberOfPoints="(\d+)"', text).group(1))
    arrays = {}
    for m in re.finditer(r'<DataArray type="(\w+)" Name="(\w+)" NumberOfComponents="(\d+)" format="appended" offset="(\d+)"', text):
        typ, name, comps, off = m.group(1), m.group(2), int(m.group(3)), int(m.group(4))
        if typ != "Float32":
            continue
        size = struct.unpack_from("<Q", raw, off)[0]
        vals = struct.unpack_from("<%df" % (size // 4), raw, off + 8)
        arrays[name] = [vals[i * comps:(i + 1) * comps] for i in range(n)]
    return n, arrays


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    n, a = read_vtp(argv[1])
    pos = a["position"]
    cx = sum(p[0] for p in pos) / n
    cz = sum(p[2] for p in pos) / n
    ring = 2 * a["radius"][0][0]
    if "--axis" in argv:
        i = argv.index("--axis")
        cx, cz = float(argv[i + 1]), float(argv[i + 2])
    if "--ring" in argv:
        ring = float(argv[argv.index("--ring") + 1])
    floor = min(p[1] for p in pos) - a["radius"][0][0]
    top = {}
    for p in pos:
        k = int(math.hypot(p[0] - cx, p[2] - cz) / ring)
        top[k] = max(top.get(k, 0.0), p[1] - floor)
    peak = max(top.values())
    kpeak = max(k for k in top if top[k] == peak)
    pts = [((k + 0.5) * ring, top[k]) for k in sorted(top) if k >= kpeak and 0.2 * peak < top[k] < 0.8 * peak]
    if len(pts) < 3:
        sys.exit("heap_angle: fewer than 3 rings on the slope; is this a heap?")
    m = len(pts)
    sx = sum(r for r, _ in pts)
    sy = sum(h for _, h in pts)
    sxx = sum(r * r for r, _ in pts)
    sxy = sum(r * h for r, h in pts)
    slope = (m * sxy - sx * sy) / (m * sxx - sx * sx)
    print("%s: %d particles, heap %.3f m high, slope %.1f degrees (%d rings of %.3f m about x %.3f z %.3f)"
          % (argv[1], n, peak, math.degrees(math.atan(-slope)), m, ring, cx, cz))


if __name__ == "__main__":
    main(sys.argv)
