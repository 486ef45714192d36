#!/usr/bin/env python3
"""Checks that a .vtp written by eddy is well-formed VTK XML with raw appended
data (the layout ParaView reads): every DataArray's offset points at a block
whose UInt64 byte count matches NumberOfPoints x components x type size, and the
.pvd lists existing files. Usage: check_vtp.py FILE.vtp [FILE.pvd]"""
import struct, sys, os
import xml.etree.ElementTree as ET

SIZES = {"Float32": 4, "Float64": 8, "UInt32": 4, "Int32": 4, "Int64": 8, "UInt64": 8}

def check_vtp(path):
    data = open(path, "rb").read()
    marker = data.index(b'<AppendedData encoding="raw">')
    start = data.index(b"_", marker) + 1
    header = data[:marker].decode() + "</VTKFile>"
    root = ET.fromstring(header.replace("<AppendedData", "<X"))
    assert root.get("type") == "PolyData" and root.get("header_type") == "UInt64"
    piece = root.find("PolyData/Piece")
    n = int(piece.get("NumberOfPoints"))
    assert int(piece.get("NumberOfVerts")) == n
    arrays = root.iter("DataArray")
    count = 0
    for a in arrays:
        if a.get("format") != "appended":
            continue
        comps = int(a.get("NumberOfComponents", "1"))
        want = n * comps * SIZES[a.get("type")]
        off = start + int(a.get("offset"))
        (got,) = struct.unpack_from("<Q", data, off)
        assert got == want, f"{a.get('Name')}: block of {got} bytes, expected {want}"
        if a.get("Name") == "offsets" and n:
            last = struct.unpack_from("<q", data, off + 8 + 8 * (n - 1))[0]
            assert last == n, f"last vertex offset {last}, expected {n}"
        count += 1
    assert count >= 8, f"only {count} appended arrays"
    assert data.rstrip().endswith(b"</VTKFile>")
    return n

def check_pvd(path):
    root = ET.parse(path).getroot()
    assert root.get("type") == "Collection"
    sets = root.findall("Collection/DataSet")
    assert sets, "empty collection"
    times = [float(d.get("timestep")) for d in sets]
    assert times == sorted(times), "time steps out of order"
    for d in sets:
        f = os.path.join(os.path.dirname(path), d.get("file"))
        assert os.path.exists(f), f"{f} listed but missing"
    return len(sets)

n = check_vtp(sys.argv[1])
print(f"{sys.argv[1]}: {n} points, arrays consistent")
if len(sys.argv) > 2:
    print(f"{sys.argv[2]}: {check_pvd(sys.argv[2])} frames")
