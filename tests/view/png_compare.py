#!/usr/bin/env python3
"""Reads eddy's PNGs (8-bit RGBA) with the standard library alone.

  png_compare.py A.png B.png --skip-top N [--max-differ K | --differ K] [--tolerance T]
                                            the two pictures equal below row N
                                            (at most K pixels differ; default 0;
                                            --differ: at least K do); a pixel
                                            differs when a channel does by more
                                            than T (default 0)
  png_compare.py A.png --lit MIN --skip-top N
                                            at least MIN pixels below row N
                                            differ from the background (the
                                            top-left pixel below the bar)
Prints one line; exits 1 when the check fails, 2 on an unreadable file."""
import struct
import sys
import zlib


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour != 6:
                raise ValueError(f"{path}: expected 8-bit RGBA, got depth {depth} colour type {colour}")
        elif kind == b"IDAT":
            idat += body
    raw, stride, rows, prev = zlib.decompress(idat), 4 * width, [], bytearray(4 * width)
    for y in range(height):
        line = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        filt, cur = line[0], bytearray(line[1:])
        for x in range(stride):
            a = cur[x - 4] if x >= 4 else 0
            b = prev[x]
            c = prev[x - 4] if x >= 4 else 0
            if filt == 1:
                cur[x] = (cur[x] + a) & 255
            elif filt == 2:
                cur[x] = (cur[x] + b) & 255
            elif filt == 3:
                cur[x] = (cur[x] + (a + b) // 2) & 255
            elif filt == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                cur[x] = (cur[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(cur))
        prev = cur
    return width, height, rows


def main(argv):
    args, skip, lit, max_differ, min_differ, tolerance = [], 0, None, 0, None, 0
    i = 1
    while i < len(argv):
        if argv[i] == "--skip-top":
            skip, i = int(argv[i + 1]), i + 2
        elif argv[i] == "--max-differ":
            max_differ, i = int(argv[i + 1]), i + 2
        elif argv[i] == "--differ":
            min_differ, i = int(argv[i + 1]), i + 2
        elif argv[i] == "--tolerance":
            tolerance, i = int(argv[i + 1]), i + 2
        elif argv[i] == "--lit":
            lit, i = int(argv[i + 1]), i + 2
        else:
            args.append(argv[i])
            i += 1
    try:
        pictures = [read_png(p) for p in args]
    except (OSError, ValueError, zlib.error, struct.error) as e:
        print(f"png_compare: {e}")
        return 2
    w, h, rows = pictures[0]
    if lit is not None:
        background = rows[skip][:4]
        count = sum(1 for y in range(skip, h) for x in range(w) if rows[y][4 * x:4 * x + 4] != background)
        print(f"png_compare: {args[0]}: {w}x{h}, {count} pixels below row {skip} differ from the background "
              f"(at least {lit} expected)")
        return 0 if count >= lit else 1
    w2, h2, rows2 = pictures[1]
    if (w, h) != (w2, h2):
        print(f"png_compare: sizes differ: {w}x{h} and {w2}x{h2}")
        return 1
    differ = sum(1 for y in range(skip, h) for x in range(w)
                 if max(abs(a - b) for a, b in zip(rows[y][4 * x:4 * x + 4], rows2[y][4 * x:4 * x + 4])) > tolerance)
    if min_differ is not None:
        print(f"png_compare: {args[0]} and {args[1]}: {differ} of {w * (h - skip)} pixels below row {skip} differ "
              f"(at least {min_differ})")
        return 0 if differ >= min_differ else 1
    print(f"png_compare: {args[0]} and {args[1]}: {differ} of {w * (h - skip)} pixels below row {skip} differ "
          f"by more than {tolerance} (at most {max_differ})")
    return 0 if differ <= max_differ else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
