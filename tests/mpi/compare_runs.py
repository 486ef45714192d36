#!/usr/bin/env python3
"""Compares the last frame of a run over N ranks with a one-rank run's,
particle by particle (by id), bit for bit, and the statistics lines' sets.

usage: compare_runs.py ONE_RANK_DIR N_RANK_DIR SET [--moves] [--spanning]

--moves: particles must have migrated and the load balancer moved the
split at least once (a dam break).
--spanning: a body (a phase: a rigid body, a soft body) must have had particles on two ranks or
more in a frame after the first (which splits the set by index).

Reads eddy's own .vtp layout (raw appended data, UInt64 block headers);
the N-rank frame is the .pvtp's pieces. Prints one line of figures and
exits 1 on any difference."""
import json
import os
import re
import struct
import sys


def read_vtp(path):
    data = open(path, 'rb').read()
    head, _, raw = data.partition(b'<AppendedData encoding="raw">')
    raw = raw[raw.index(b'_') + 1:]
    arrays = {}
    for m in re.finditer(rb'<DataArray type="(\w+)" Name="(\w+)" NumberOfComponents="(\d+)" '
                         rb'format="appended" offset="(\d+)"', head):
        kind, name, comps, off = m.group(1).decode(), m.group(2).decode(), int(m.group(3)), int(m.group(4))
        size = struct.unpack_from('<Q', raw, off)[0]
        arrays[name] = (kind, comps, raw[off + 8:off + 8 + size])
    n = int(re.search(rb'NumberOfPoints="(\d+)"', head).group(1))
    ids = struct.unpack_from('<%dI' % n, arrays['id'][2])
    rows = {}
    for k, i in enumerate(ids):
        rows[i] = tuple(arrays[a][2][k * 4 * arrays[a][1]:(k + 1) * 4 * arrays[a][1]]
                        for a in ('position', 'velocity', 'mass', 'phase'))
    return rows


def last_frame(folder, set_name):
    pvd = open(os.path.join(folder, set_name + '.pvd')).read()
    return os.path.join(folder, re.findall(r'file="([^"]+)"', pvd)[-1])


def bodies_spanning(folder, set_name):
    """Frames after the first in which some phase lies in two pieces or more."""
    pvd = open(os.path.join(folder, set_name + '.pvd')).read()
    count = 0
    for name in re.findall(r'file="([^"]+)"', pvd)[1:]:
        where = {}
        for k, p in enumerate(re.findall(r'<Piece Source="([^"]+)"', open(os.path.join(folder, name)).read())):
            for row in read_vtp(os.path.join(folder, p)).values():
                where.setdefault(row[3], set()).add(k)
        count += any(len(v) > 1 for v in where.values())
    return count


def main():
    one, many, set_name = sys.argv[1:4]
    need_moves = '--moves' in sys.argv[4:]
    a = read_vtp(last_frame(one, set_name))
    frame = last_frame(many, set_name)
    # A run over ranks ends on a .pvtp of pieces; one resumed on one rank on a .vtp.
    pieces = re.findall(r'<Piece Source="([^"]+)"', open(frame).read()) if frame.endswith('.pvtp') else \
        [os.path.basename(frame)]
    b = {}
    for p in pieces:
        rows = read_vtp(os.path.join(many, p))
        twice = set(rows) & set(b)
        if twice:
            print('particles in two pieces:', sorted(twice)[:5])
            return 1
        b.update(rows)
    differ = [i for i in a if a[i] != b.get(i)]
    missing = len(set(a) ^ set(b))
    la = [json.loads(x) for x in open(os.path.join(one, 'stats.jsonl'))]
    lb = [json.loads(x) for x in open(os.path.join(many, 'stats.jsonl'))]
    stats_differ = sum(x['sets'] != y['sets'] for x, y in zip(la, lb)) + abs(len(la) - len(lb))
    ranks = lb[-1].get('ranks', {})
    migrations = sum(sum(x.get('ranks', {}).get('migrations', [0])) for x in lb)
    moves = ranks.get('split_moves', 0)
    print('%s: %d particles in %d pieces, %d differ, %d missing or extra; statistics lines differing: %d; '
          'migrations %d, split moves %d' % (many, len(a), len(pieces), len(differ), missing, stats_differ,
                                             migrations, moves))
    if need_moves and (migrations == 0 or moves == 0):
        print('expected migrations and a moved split')
        return 1
    if '--spanning' in sys.argv[4:]:
        spans = bodies_spanning(many, set_name)
        print('%s: frames with a body across ranks: %d' % (many, spans))
        if spans == 0:
            return 1
    return 1 if differ or missing or stats_differ or (frame.endswith('.pvtp') and len(pieces) < 2) else 0


if __name__ == '__main__':
    sys.exit(main())
