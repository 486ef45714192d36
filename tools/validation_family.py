#!/usr/bin/env python3
"""The dam-break family's table and plot for docs/validation.md.

Reads the tables the validation runs wrote (build/validation/
dam_family_<solver>_<member>.csv: T, Martin and Moyce's Z, eddy's Z; see
tests/physics/test_dam_family.c), and rewrites the section between the
markers "<!-- dam family -->" and "<!-- /dam family -->" of
docs/validation.md: a table of the mean relative front error of every
solver on every member, and docs/images/dam_family.png, one panel per
member with the data and each solver's front. The plot needs matplotlib
(Debian: python3-matplotlib); without it the table is written and the
plot left as it was. Usage: tools/validation_family.py [BUILD_DIR]
"""
import csv
import os
import sys

SOLVERS = [("sph", "weakly compressible SPH (Tait), 0.2 ms"), ("iisph", "IISPH, 1 ms"),
           ("dfsph", "DFSPH, 2 ms"), ("pbf", "PBF, 4 iterations, 2 ms")]
MEMBERS = [("square", "square, a = 0.1 m, 8 thick"), ("tall", "tall (n^2 = 2), a = 0.1 m, 8 thick"),
           ("small", "square, a = 0.05 m, 8 thick"), ("thick", "square, a = 0.1 m, 16 thick (3D)")]
GOAL = {"sph": 2.5, "iisph": 2.5, "dfsph": 2.5, "pbf": 3.0}


def read(path):
    rows = []
    with open(path) as f:
        for r in csv.reader(line for line in f if not line.startswith("#")):
            if r and r[0] != "T":
                rows.append(tuple(float(x) for x in r))
    return rows


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build")
    tables = {}
    for s, _ in SOLVERS:
        for m, _ in MEMBERS:
            path = os.path.join(build, "validation", "dam_family_%s_%s.csv" % (s, m))
            if os.path.exists(path):
                tables[(s, m)] = read(path)
    if not tables:
        print("validation_family: no dam_family tables under %s/validation (run tools/validate.sh)" % build)
        return 1
    lines = ["| solver, step | " + " | ".join(label for _, label in MEMBERS) + " |",
             "| --- |" + " ---: |" * len(MEMBERS)]
    for s, label in SOLVERS:
        cells = []
        for m, _ in MEMBERS:
            t = tables.get((s, m))
            if not t:
                cells.append("—")
                continue
            err = 100 * sum(abs(z - zd) / zd for _, zd, z in t) / len(t)
            cells.append("%.2f%%%s" % (err, "" if err <= GOAL[s] else " (goal %.1f%%)" % GOAL[s]))
        lines.append("| %s | %s |" % (label, " | ".join(cells)))
    plotted = False
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, len(MEMBERS), figsize=(4 * len(MEMBERS), 3.6), sharey=False)
        for ax, (m, label) in zip(axes, MEMBERS):
            first = next((tables[(s, m)] for s, _ in SOLVERS if (s, m) in tables), None)
            if first:
                ax.plot([r[0] for r in first], [r[1] for r in first], "ko", label="Martin and Moyce 1952")
            for s, slabel in SOLVERS:
                t = tables.get((s, m))
                if t:
                    ax.plot([r[0] for r in t], [r[2] for r in t], "-", label=slabel)
            ax.set_title(label, fontsize=9)
            ax.set_xlabel("T = n t sqrt(g / a)")
            ax.set_ylabel("Z = z / a")
            ax.grid(True, alpha=0.3)
        axes[0].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(root, "docs", "images", "dam_family.png"), dpi=90)
        plotted = True
    except ImportError:
        print("validation_family: no matplotlib (python3-matplotlib): the plot is left as it was")
    doc = os.path.join(root, "docs", "validation.md")
    text = open(doc).read()
    start, end = "<!-- dam family -->", "<!-- /dam family -->"
    body = "\n".join([start, "", *lines, "", "![The front against Martin and Moyce's data, one panel per "
                      "member](images/dam_family.png)", "", end])
    if start in text and end in text:
        text = text[:text.index(start)] + body + text[text.index(end) + len(end):]
    else:
        text = text.rstrip("\n") + "\n\n" + body + "\n"
    tmp = doc + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, doc)
    print("validation_family: %d tables -> docs/validation.md%s" % (len(tables), " and docs/images/dam_family.png"
                                                                    if plotted else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
