#!/usr/bin/env python3
"""Opens a distributed run's last .pvtp frame with VTK's own parallel
reader (vtkXMLPPolyDataReader, what ParaView uses) and checks that it
holds every particle once: as many points as the scene's particles, and
ids 0..N-1 each once.

usage: pvtp_read.py RUN_DIR SET PARTICLES"""
import os
import re
import sys

import vtk
from vtk.util.numpy_support import vtk_to_numpy


def main():
    folder, set_name, expect = sys.argv[1], sys.argv[2], int(sys.argv[3])
    pvd = open(os.path.join(folder, set_name + '.pvd')).read()
    frame = os.path.join(folder, re.findall(r'file="([^"]+\.pvtp)"', pvd)[-1])
    reader = vtk.vtkXMLPPolyDataReader()
    reader.SetFileName(frame)
    reader.Update()
    out = reader.GetOutput()
    ids = vtk_to_numpy(out.GetPointData().GetArray('id'))
    pieces = reader.GetNumberOfPieces()
    once = len(set(ids.tolist())) == len(ids) and sorted(ids.tolist()) == list(range(expect))
    print('%s: %d pieces, %d points, %d particles expected, every id once: %s' %
          (frame, pieces, out.GetNumberOfPoints(), expect, once))
    return 0 if out.GetNumberOfPoints() == expect and once and pieces > 1 else 1


if __name__ == '__main__':
    sys.exit(main())
