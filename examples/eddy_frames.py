"""The frames a run of eddy wrote, for the example modules' physics checks
(examples/*/check_*.py): a set's .vtp files in time order (from its .pvd)
and one file's arrays. eddy writes VTK XML PolyData with raw appended data,
UInt64 headers, little endian."""
import os
import struct
import xml.etree.ElementTree as ET


def frame_files(out_dir, set_name):
    """The set's frame files (paths), in time order, as its .pvd lists them."""
    pvd = ET.parse(os.path.join(out_dir, set_name + ".pvd")).getroot()
    sets = sorted(pvd.iter("DataSet"), key=lambda d: float(d.get("timestep")))
    return [os.path.join(out_dir, d.get("file")) for d in sets]


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
        n = size // struct.calcsize(code)
        vals = struct.unpack_from(f"<{n}{code}", raw, off + 8)
        k = int(a.get("NumberOfComponents", "1"))
        arrays[a.get("Name")] = [vals[i:i + k] for i in range(0, n, k)]
    return arrays, time
