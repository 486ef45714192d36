#!/usr/bin/env python3
"""Writes the tetrahedral-mesh fixtures of tests/unit/test_tetmesh.c: the
TetGen mesh data/tets/bar_80 (38 vertices, 84 tets, attributes 'wave' and
'dist') in the other formats eddy_load_tetmesh reads. Each must load to the
same vertices (bitwise, as floats), tets and attributes as the TetGen pair.

    python3 tests/data/tets/make_fixtures.py      (from the source root)

  bar_80_v22.msh           Gmsh 2.2 ASCII: $PhysicalNames (skipped), a point,
                           triangles and the tets (two tags each)
  bar_80_v41.msh           Gmsh 4.1 ASCII: $Entities (skipped), non-contiguous
                           node tags in three entity blocks (one parametric),
                           triangle and tet blocks
  bar_80_ascii.vtu         VTK ascii: Float32 points, Int64 connectivity, three
                           triangle cells among the tets, a 3-component point
                           array and cell data (both ignored)
  bar_80_appended_raw.vtu  appended raw, UInt64 headers, Float64 points
  bar_80_binary.vtu        inline base64, UInt32 headers; the points' header and
                           data encoded as one stream, the other arrays' apart
                           (as VTK writes them)
  bar_80_appended_b64.vtu  appended base64, UInt32 headers
"""
import base64
import os
import struct

ROOT = os.getcwd()
SRC = os.path.join(ROOT, "data", "tets", "bar_80")
OUT = os.path.join(ROOT, "tests", "data", "tets")


def rows(path):
    out = []
    for line in open(path):
        line = line.split("#")[0].split()
        if line:
            out.append(line)
    return out


node = rows(SRC + ".node")
ele = rows(SRC + ".ele")
nv, na = int(node[0][0]), int(node[0][2])
coords = [r[1:4] for r in node[1:1 + nv]]            # the text, verbatim
attrs = [[r[4 + a] for r in node[1:1 + nv]] for a in range(na)]
nt = int(ele[0][0])
tets = [[int(x) - 1 for x in r[1:5]] for r in ele[1:1 + nt]]
assert len(coords) == nv == 38 and len(tets) == nt == 84 and na == 2
# A few boundary triangles (ignored by the loader): faces of the first tets.
tris = [[t[1], t[2], t[3]] for t in tets[:3]]


def write(name, text, mode="w"):
    with open(os.path.join(OUT, name), mode) as f:
        f.write(text)


# Gmsh 2.2 ---------------------------------------------------------------
lines = ["$MeshFormat", "2.2 0 8", "$EndMeshFormat",
         "$PhysicalNames", "2", "2 1 \"skin\"", "3 2 \"bar\"", "$EndPhysicalNames",
         "$Nodes", str(nv)]
lines += ["%d %s %s %s" % (i + 1, *c) for i, c in enumerate(coords)]
lines += ["$EndNodes", "$Elements", str(1 + len(tris) + nt)]
tag = 1
lines.append("%d 15 2 0 1 1" % tag)
tag += 1
for t in tris:
    lines.append("%d 2 2 1 1 %d %d %d" % (tag, *[v + 1 for v in t]))
    tag += 1
for t in tets:
    lines.append("%d 4 2 2 1 %d %d %d %d" % (tag, *[v + 1 for v in t]))
    tag += 1
lines += ["$EndElements"]
write("bar_80_v22.msh", "\n".join(lines) + "\n")

# Gmsh 4.1 ---------------------------------------------------------------
ntag = [100 + 3 * i for i in range(nv)]              # non-contiguous
blocks = [(0, 1, 0, range(0, 8)), (2, 1, 1, range(8, 20)), (3, 1, 0, range(20, nv))]
lines = ["$MeshFormat", "4.1 0 8", "$EndMeshFormat",
         "$Entities", "1 0 1 1", "1 0 0 0 0", "1 0 0 0 4 1 1 0 0", "1 0 0 0 4 1 1 1 2 1 1", "$EndEntities",
         "$Nodes", "%d %d %d %d" % (len(blocks), nv, min(ntag), max(ntag))]
for dim, ent, param, idx in blocks:
    lines.append("%d %d %d %d" % (dim, ent, param, len(idx)))
    lines += [str(ntag[i]) for i in idx]
    for i in idx:
        lines.append(" ".join(coords[i] + ["0.25"] * (dim if param else 0)))
lines.append("$EndNodes")
etag = [7 + 5 * i for i in range(len(tris) + nt)]
lines += ["$Elements", "3 %d %d %d" % (len(tris) + nt, min(etag), max(etag))]
lines.append("2 1 2 %d" % len(tris))
for i, t in enumerate(tris):
    lines.append("%d %d %d %d" % (etag[i], *[ntag[v] for v in t]))
half = nt // 2
for first, part in ((0, tets[:half]), (half, tets[half:])):
    lines.append("3 1 4 %d" % len(part))
    for j, t in enumerate(part):
        lines.append("%d %d %d %d %d" % (etag[len(tris) + first + j], *[ntag[v] for v in t]))
lines.append("$EndElements")
write("bar_80_v41.msh", "\n".join(lines) + "\n")

# VTK ----------------------------------------------------------------------
# Cells: three triangles (type 5) among the tets (type 10).
cells = [(5, tris[0])] + [(10, t) for t in tets[:40]] + [(5, tris[1])] + \
        [(10, t) for t in tets[40:]] + [(5, tris[2])]
conn = [v for _, c in cells for v in c]
offs = []
for _, c in cells:
    offs.append((offs[-1] if offs else 0) + len(c))
types = [k for k, _ in cells]
fx = [float(x) for c in coords for x in c]
fa = [[float(x) for x in a] for a in attrs]
names = ["wave", "dist"]
FMT = {"Float32": "f", "Float64": "d", "Int32": "i", "Int64": "q", "UInt8": "B", "UInt32": "I",
       "UInt64": "Q"}


def pack(vtype, values):
    return struct.pack("<%d%s" % (len(values), FMT[vtype]), *values)


def vtu(header_type, arrays, appended=None):
    """arrays: (section, attributes, body) with section Points, Cells or PointData."""
    head = '<?xml version="1.0"?>\n<!-- written by tests/data/tets/make_fixtures.py -->\n'
    ht = ' header_type="%s"' % header_type if header_type else ""
    out = [head + '<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian"%s>' % ht,
           "  <UnstructuredGrid>",
           '    <Piece NumberOfPoints="%d" NumberOfCells="%d">' % (nv, len(cells))]
    for section in ("PointData", "CellData", "Points", "Cells"):
        sel = [a for a in arrays if a[0] == section]
        if not sel:
            continue
        out.append("      <%s>" % section)
        for _, attr, body in sel:
            if body is None:
                out.append("        <DataArray %s/>" % attr)
            else:
                out.append("        <DataArray %s>%s</DataArray>" % (attr, body))
        out.append("      </%s>" % section)
    out += ["    </Piece>", "  </UnstructuredGrid>"]
    text = "\n".join(out) + "\n"
    if appended is not None:
        enc, data = appended
        text = text.encode() + b'  <AppendedData encoding="%s">\n   _' % enc.encode() + data + \
            b"\n  </AppendedData>\n</VTKFile>\n"
        return text
    return (text + "</VTKFile>\n").encode()


# ascii
ascii_arrays = [
    ("PointData", 'type="Float32" Name="wave" format="ascii"', " ".join(attrs[0])),
    ("PointData", 'type="Float32" Name="velocity" NumberOfComponents="3" format="ascii"',
     " ".join(["0 0 0"] * nv)),
    ("PointData", 'type="Float64" Name="dist" NumberOfComponents="1" format="ascii"',
     "\n          " + "\n          ".join(attrs[1]) + "\n        "),
    ("CellData", 'type="Int32" Name="region" format="ascii"', " ".join(["1"] * len(cells))),
    ("Points", 'type="Float32" Name="Points" NumberOfComponents="3" format="ascii"',
     "\n" + "\n".join("          " + " ".join(c) for c in coords) + "\n        "),
    ("Cells", 'type="Int64" Name="connectivity" format="ascii"', " ".join(map(str, conn))),
    ("Cells", 'type="Int32" Name="offsets" format="ascii"', " ".join(map(str, offs))),
    ("Cells", 'type="UInt8" Name="types" format="ascii"', " ".join(map(str, types))),
]
write("bar_80_ascii.vtu", vtu(None, ascii_arrays), "wb")

# appended raw, UInt64 headers
spec = [("PointData", "Float32", "wave", 1, fa[0]), ("PointData", "Float64", "dist", 1, fa[1]),
        ("Points", "Float64", "Points", 3, fx), ("Cells", "Int32", "connectivity", 1, conn),
        ("Cells", "Int64", "offsets", 1, offs), ("Cells", "UInt8", "types", 1, types)]
raw, arrays = b"", []
for section, vt, name, nc, values in spec:
    data = pack(vt, values)
    arrays.append((section, 'type="%s" Name="%s" NumberOfComponents="%d" format="appended" offset="%d"'
                   % (vt, name, nc, len(raw)), None))
    raw += struct.pack("<Q", len(data)) + data
write("bar_80_appended_raw.vtu", vtu("UInt64", arrays, ("raw", raw)), "wb")

# inline base64, UInt32 headers
spec = [("PointData", "Float64", "wave", 1, fa[0]), ("PointData", "Float32", "dist", 1, fa[1]),
        ("Points", "Float32", "Points", 3, fx), ("Cells", "UInt32", "connectivity", 1, conn),
        ("Cells", "UInt64", "offsets", 1, offs), ("Cells", "UInt8", "types", 1, types)]
arrays = []
for section, vt, name, nc, values in spec:
    data = pack(vt, values)
    hdr = struct.pack("<I", len(data))
    if section == "Points":
        body = base64.b64encode(hdr + data)            # one stream
    else:
        body = base64.b64encode(hdr) + base64.b64encode(data)  # apart, as VTK
    arrays.append((section, 'type="%s" Name="%s" NumberOfComponents="%d" format="binary"' % (vt, name, nc),
                   "\n          " + body.decode() + "\n        "))
write("bar_80_binary.vtu", vtu("UInt32", arrays), "wb")

# appended base64, UInt32 headers (offsets count base64 characters)
spec = [("PointData", "Float32", "wave", 1, fa[0]), ("PointData", "Float32", "dist", 1, fa[1]),
        ("Points", "Float64", "Points", 3, fx), ("Cells", "Int64", "connectivity", 1, conn),
        ("Cells", "Int32", "offsets", 1, offs), ("Cells", "UInt8", "types", 1, types)]
text, arrays = b"", []
for section, vt, name, nc, values in spec:
    data = pack(vt, values)
    arrays.append((section, 'type="%s" Name="%s" NumberOfComponents="%d" format="appended" offset="%d"'
                   % (vt, name, nc, len(text)), None))
    text += base64.b64encode(struct.pack("<I", len(data))) + base64.b64encode(data)
write("bar_80_appended_b64.vtu", vtu("UInt32", arrays, ("base64", text)), "wb")
