#!/usr/bin/python3
"""Draws the README's benchmark chart (docs/images/benchmark.png) from one run of the ozz anchor.

Usage: scripts/bench_chart.py RUNS.jsonl [OUT.png]      (OUT default: docs/images/benchmark.png)

RUNS.jsonl is what ../shared/anchors/ozz-bench/run.sh writes to $OUT: one JSON line per timed
run (`gltf-crowd bench --json` or ozz_bench, tagged "program") and "# ..." comment lines. The
chart has one panel per asset x {single clip, crossfade}: µs per actor per frame (median of the
reps, bar = min-max) against actors (log x), gltf-crowd beside ozz-animation, solid for 1 thread,
dashed for 2 threads when the run has them. The caption takes the date and CPU from the run's
"# date" line, the load from its "# uptime" lines, and the kernel from a "# kernel" line if
present, else from this machine: draw on the machine that ran it.

Contributor tool only: needs Debian's python3-matplotlib (apt-get install python3-matplotlib; it
serves /usr/bin/python3, hence the shebang), which scripts/install-deps.sh does not install: CI
draws no chart.
"""
import json
import os
import platform
import re
import statistics
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

ASSETS = ("RobotExpressive", "CesiumMan")
PROGRAMS = {"gltf-crowd": "tab:blue", "ozz": "tab:orange"}
LABELS = {"gltf-crowd": "gltf-crowd", "ozz": "ozz-animation 0.16"}


def read(path):
    """(runs: (asset, crossfade, threads, program) -> {actors: [µs]}, comment lines)."""
    runs = defaultdict(lambda: defaultdict(list))
    comments = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                comments.append(line[1:].strip())
            elif line.startswith("{"):
                r = json.loads(line)
                asset = os.path.basename(r["asset"]).removesuffix(".glb")
                runs[(asset, bool(r["crossfade"]), r["threads"], r["program"])][r["actors"]].append(r["us_per_actor"])
    if not runs:
        sys.exit(f"{path}: no JSON lines from run.sh")
    return runs, comments


def caption(comments):
    """'date, CPU, kernel, load' from run.sh's comment lines."""
    found = {}
    for c in comments:
        if m := re.match(r"date (\S+); cpu: (.*)", c):
            found["date"], found["cpu"] = m.group(1).replace("T", " ").replace("Z", " UTC"), m.group(2)
        elif m := re.match(r"kernel (.*)", c):
            found["kernel"] = m.group(1)
        elif m := re.match(r"uptime (before|after):.*load average: ([\d.]+)", c):
            found[m.group(1)] = m.group(2)
    kernel = found.get("kernel") or f"{platform.system()} {platform.release()}"
    load = f"; 1-min load {found['before']} before, {found['after']} after" if "before" in found else ""
    return f"{found.get('date', '?')}; {found.get('cpu', '?')}; {kernel}{load}"


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = sys.argv[2] if len(sys.argv) == 3 else os.path.join(root, "docs", "images", "benchmark.png")
    runs, comments = read(sys.argv[1])
    threads = sorted({k[2] for k in runs})
    actors = sorted({a for series in runs.values() for a in series})

    fig, axes = plt.subplots(2, 2, figsize=(10, 7.4), dpi=100, sharex=True)
    for row, asset in enumerate(ASSETS):
        for col, crossfade in enumerate((False, True)):
            ax = axes[row][col]
            top = 0.0
            for program, colour in PROGRAMS.items():
                for t in threads:
                    series = runs.get((asset, crossfade, t, program))
                    if not series:
                        continue
                    n = sorted(series)
                    med = [statistics.median(series[a]) for a in n]
                    low = [m - min(series[a]) for a, m in zip(n, med)]
                    high = [max(series[a]) - m for a, m in zip(n, med)]
                    top = max(top, max(m + h for m, h in zip(med, high)))
                    ax.errorbar(n, med, yerr=[low, high], color=colour, linestyle="-" if t == 1 else "--",
                                marker="o" if t == 1 else "s", markersize=5, capsize=3, linewidth=2,
                                label=f"{LABELS[program]}, {t} thread" + ("s" if t > 1 else ""))
            ax.set_xscale("log")
            ax.set_xticks(actors, [f"{a:,}" for a in actors])
            ax.minorticks_off()
            ax.set_ylim(0, top * 1.1 if top else 1)
            ax.set_title(f"{asset}, {'crossfade (2 clips blended)' if crossfade else 'single clip'}", fontsize=11)
            ax.grid(True, which="major", alpha=0.4)
            if col == 0:
                ax.set_ylabel("µs per actor per frame")
            if row == 1:
                ax.set_xlabel("actors")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 0.03), ncol=len(labels), fontsize=10,
               frameon=False)
    fig.suptitle("Animation update per actor per frame: sample, blend, hierarchy, skinning palettes\n"
                 "(lower is better; median of the reps, bars: min–max; one run, programs interleaved)",
                 fontsize=12)
    fig.text(0.5, 0.012, caption(comments), ha="center", fontsize=9, color="0.3")
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    fig.savefig(out)
    print(f"bench_chart.py: {out}")


if __name__ == "__main__":
    main()
