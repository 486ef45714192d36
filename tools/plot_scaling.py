#!/usr/bin/env python3
"""Scaling plot from `eddy bench` output: particle-steps per second against
particles, log-log, one line a module, as a PNG (no plotting library: the
standard library's zlib writes it, a 5x7 bitmap font labels it).

usage: tools/plot_scaling.py OUT.png [TITLE] < bench.jsonl

Each input line is one `eddy bench` JSON object; its case name's group
(the part before the dot: sph, pbf, granular, ...) names the line. Lines that
are not JSON objects with "particles" and "particle_steps_per_s" are
skipped with a note on stderr.
"""
import json
import math
import struct
import sys
import zlib

FONT = {  # 5x7, rows top to bottom, '#' = ink
    '0': '.###.#...##..###.#.###..##...#.###.', '1': '..#...##....#....#....#....#...###.',
    '2': '.###.#...#....#...#...#...#...#####', '3': '#####...#...#.....#.....##...#.###.',
    '4': '...#...##..#.#.#..#.#####...#....#.', '5': '######....####.....#....##...#.###.',
    '6': '..##..#...#....####.#...##...#.###.', '7': '#####....#...#...#...#....#....#...',
    '8': '.###.#...##...#.###.#...##...#.###.', '9': '.###.#...##...#.####....#...#..##..',
    'a': '...........###.....#.#####...#.####', 'b': '#....#....#.##.##..##...##...#####.',
    'c': '...........###.#....#....#...#.###.', 'd': '....#....#.##.##..###...##...#.####',
    'e': '...........###.#...#######.....###.', 'f': '..##..#..#.#...###...#....#....#...',
    'g': '......#####...##...#.####....#.###.', 'h': '#....#....#.##.##..##...##...##...#',
    'i': '..#........##....#....#....#...###.', 'j': '...#........##....#....#.#..#..##..',
    'k': '#....#....#..#.#.#..##...#.#..#..#.', 'l': '.##....#....#....#....#....#...###.',
    'm': '..........##.#.#.#.##.#.##...##...#', 'n': '..........#.##.##..##...##...##...#',
    'o': '...........###.#...##...##...#.###.', 'p': '..........####.#...#####.#....#....',
    'q': '...........##.##..##.####....#....#', 'r': '..........#.##.##..##....#....#....',
    's': '...........#####.....###.....#####.', 't': '.#....#...###...#....#....#..#..##.',
    'u': '..........#...##...##...##..##.##.#', 'v': '..........#...##...##...#.#.#...#..',
    'w': '..........#...##...##.#.##.#.#.#.#.', 'x': '..........#...#.#.#...#...#.#.#...#',
    'y': '..........#...##...#.####....#.###.', 'z': '..........#####...#...#...#...#####',
    '.': '..........................##...##..', '-': '...............#####...............',
    '/': '.........#...#...#...#...#.........', ' ': '...................................',
    ',': '.....................##....#...#...', '(': '...#...#...#....#....#.....#.....#.',
    ')': '.#.....#.....#....#....#...#...#...', '+': '.......#....#..#####..#....#.......',
    '=': '..........#####.....#####..........', ':': '......##...##........##...##.......',
}


def glyph(ch):
    g = FONT.get(ch, FONT[' '])
    g = (g + "." * 35)[:35]
    return [g[r * 5:(r + 1) * 5] for r in range(7)]


class Canvas:
    def __init__(self, w, h):
        self.w, self.h = w, h
        self.px = bytearray([255] * (w * h * 3))

    def dot(self, x, y, c):
        x, y = int(round(x)), int(round(y))
        if 0 <= x < self.w and 0 <= y < self.h:
            i = 3 * (y * self.w + x)
            self.px[i:i + 3] = bytes(c)

    def line(self, x0, y0, x1, y1, c, width=1):
        n = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
        for k in range(n + 1):
            t = k / n
            x, y = x0 + (x1 - x0) * t, y0 + (y1 - y0) * t
            for dx in range(-(width // 2), width - width // 2):
                for dy in range(-(width // 2), width - width // 2):
                    self.dot(x + dx, y + dy, c)

    def box(self, x, y, r, c):
        for dx in range(-r, r + 1):
            for dy in range(-r, r + 1):
                self.dot(x + dx, y + dy, c)

    def text(self, x, y, s, c=(0, 0, 0), scale=2, vertical=False):
        for k, ch in enumerate(s):
            rows = glyph(ch)
            for r in range(7):
                for col in range(5):
                    if rows[r][col] == '#':
                        for sx in range(scale):
                            for sy in range(scale):
                                if vertical:
                                    self.dot(x + r * scale + sy, y - (k * 6 + col) * scale - sx, c)
                                else:
                                    self.dot(x + (k * 6 + col) * scale + sx, y + r * scale + sy, c)

    def png(self, path):
        raw = b"".join(b"\x00" + bytes(self.px[3 * y * self.w:3 * (y + 1) * self.w]) for y in range(self.h))

        def chunk(tag, data):
            return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xffffffff)
        with open(path, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", self.w, self.h, 8, 2, 0, 0, 0)) +
                    chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def sci(v):
    e = int(math.floor(math.log10(v) + 1e-9))
    m = v / 10 ** e
    return ("%g" % round(m, 2)) + "e" + str(e)


def main():
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    out, title = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
    series = {}
    for no, line in enumerate(sys.stdin, 1):
        line = line.strip()
        if not line:
            continue
        try:
            d = json.loads(line)
            n, rate, group = float(d["particles"]), float(d["particle_steps_per_s"]), d["case"].split(".")[0]
        except (ValueError, KeyError, TypeError, AttributeError):
            sys.stderr.write("plot_scaling: line %d is not an eddy bench particle case; skipped\n" % no)
            continue
        if n > 0 and rate > 0:
            series.setdefault(group, []).append((n, rate))
    if not series:
        sys.stderr.write("plot_scaling: no particle cases in the input\n")
        return 1
    xs = [p[0] for s in series.values() for p in s]
    ys = [p[1] for s in series.values() for p in s]
    # A margin of a factor 1.5 around the data; gridlines at 1..9 times the decades.
    x0, x1 = min(xs) / 1.5, max(xs) * 1.5
    y0, y1 = min(ys) / 1.5, max(ys) * 1.5
    W, H, L, R, T, B = 900, 600, 110, 170, 50, 80
    c = Canvas(W, H)

    def px(x):
        return L + (math.log10(x) - math.log10(x0)) / (math.log10(x1) - math.log10(x0)) * (W - L - R)

    def py(y):
        return H - B - (math.log10(y) - math.log10(y0)) / (math.log10(y1) - math.log10(y0)) * (H - T - B)
    grey, black = (215, 215, 215), (0, 0, 0)
    for e in range(int(math.floor(math.log10(x0))), int(math.log10(x1)) + 1):
        for m in range(1, 10):
            x = m * 10 ** e
            if x0 <= x <= x1:
                c.line(px(x), T, px(x), H - B, grey if m > 1 else (170, 170, 170))
        if x0 <= 10 ** e <= x1:
            c.text(px(10 ** e) - 12, H - B + 10, "1e%d" % e)
    for e in range(int(math.floor(math.log10(y0))), int(math.log10(y1)) + 1):
        for m in range(1, 10):
            y = m * 10 ** e
            if y0 <= y <= y1:
                c.line(L, py(y), W - R, py(y), grey if m > 1 else (170, 170, 170))
        for m in (1, 2, 5):
            if y0 <= m * 10 ** e <= y1:
                c.text(L - 50, py(m * 10 ** e) - 7, "%de%d" % (m, e))
    c.line(L, H - B, W - R, H - B, black, 2)
    c.line(L, T, L, H - B, black, 2)
    c.text(L + (W - L - R) // 2 - 50, H - 35, "particles")
    c.text(20, H - B - 60, "particle-steps/s", vertical=True)
    if title:
        c.text(L, 15, title.lower())
    colours = [(31, 119, 180), (214, 39, 40), (44, 160, 44), (148, 103, 189), (255, 127, 14)]
    for k, (name, pts) in enumerate(sorted(series.items())):
        col = colours[k % len(colours)]
        pts.sort()
        for (a, b), (p, q) in zip(pts, pts[1:]):
            c.line(px(a), py(b), px(p), py(q), col, 3)
        for a, b in pts:
            c.box(px(a), py(b), 4, col)
        ly = T + 20 + 30 * k
        c.line(W - R + 15, ly + 7, W - R + 45, ly + 7, col, 3)
        c.text(W - R + 52, ly, name)
    c.png(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
