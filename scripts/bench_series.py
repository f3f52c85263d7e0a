#!/usr/bin/env python3
"""Turns Google Benchmark JSON from bench/crowd_bench.cpp into gnuplot input for the chart.

Usage: bench_series.py BENCHMARK.json DATA.dat PLOT.gp

Writes DATA.dat with one block per BM_Update series (asset x threads x crossfade): a quoted
title line, then "actors us_per_actor" rows sorted by actors; blocks are separated by two blank
lines so gnuplot addresses them with `index`. Writes PLOT.gp with the matching `plot` command:
one colour per asset x threads, solid for a single clip, dashed mid-crossfade.
scripts/bench_chart.gp draws them. Standard library only (no pip).
"""
import json
import re
import sys

NAME = re.compile(r"^BM_Update/asset:(\d+)/actors:(\d+)/threads:(\d+)/crossfade:(\d+)")
ASSETS = {0: "RobotExpressive", 1: "CesiumMan", 2: "built-in"}


def runs(benchmarks):
    """The runs to plot: medians when the suite ran with repetitions, else the plain runs."""
    medians = [b for b in benchmarks if b.get("aggregate_name") == "median"]
    if medians:
        return medians
    return [b for b in benchmarks if b.get("run_type", "iteration") == "iteration" and "error_occurred" not in b]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    source, data_path, plot_path = sys.argv[1:]
    with open(source, encoding="utf-8") as f:
        report = json.load(f)
    cpus = report.get("context", {}).get("num_cpus", 0)
    series = {}  # (asset, threads, crossfade) -> {actors: us_per_actor}
    for run in runs(report.get("benchmarks", [])):
        match = NAME.match(run.get("run_name", run["name"]))
        if not match or "us_per_actor" not in run:
            continue
        asset, actors, threads, crossfade = (int(g) for g in match.groups())
        series.setdefault((asset, threads, crossfade), {})[actors] = run["us_per_actor"]
    if not series:
        sys.exit(f"{source}: no BM_Update results with a us_per_actor counter")

    # Threads 1 before all cores; single clip before crossfade, so each colour pair is adjacent.
    keys = sorted(series, key=lambda k: (k[0], k[1] == 0, k[1], k[2]))
    colours = {}
    clauses = []
    with open(data_path, "w", encoding="utf-8") as data:
        for index, (asset, threads, crossfade) in enumerate(keys):
            cores = f"all cores ({cpus})" if threads == 0 else f"{threads} thread" + ("s" if threads > 1 else "")
            title = f"{ASSETS.get(asset, asset)}, {cores}" + (", crossfade" if crossfade else "")
            data.write(f'"{title}"\n')
            for actors, us in sorted(series[(asset, threads, crossfade)].items()):
                data.write(f"{actors} {us:.6g}\n")
            data.write("\n\n")
            colour = colours.setdefault((asset, threads), len(colours) + 1)
            clauses.append(f"DATA index {index} using 1:2 with linespoints lc {colour} pt {colour} "
                           f"dt {2 if crossfade else 1} lw 2 title columnheader(1)")
    with open(plot_path, "w", encoding="utf-8") as plot:
        plot.write("plot " + ", \\\n     ".join(clauses) + "\n")


if __name__ == "__main__":
    main()
