#!/usr/bin/env python3
"""Before/after `gltf-crowd bench` in one run on one machine (docs/benchmarks.md).

Usage: scripts/bench_compare.py BEFORE_TOOL AFTER_TOOL ASSETS_DIR [REPS]   (THREADS=1,2 by default)

For RobotExpressive and CesiumMan, 1,000 and 10,000 actors, 1 and 2 threads, one clip and
crossfade, runs the two gltf-crowd binaries REPS times each (default 5), alternating which goes
first, and prints a Markdown row per configuration: median µs per actor before, after, change."""
import json
import os
import statistics
import subprocess
import sys

before, after, assets_dir = sys.argv[1], sys.argv[2], sys.argv[3]
REPS = int(sys.argv[4]) if len(sys.argv) > 4 else 5
assets = [("RobotExpressive", "threejs/RobotExpressive.glb"), ("CesiumMan", "khronos/CesiumMan.glb")]
rows = []
for name, rel in assets:
    for actors in (1000, 10000):
        for threads in [int(t) for t in os.environ.get("THREADS", "1,2").split(",")]:
            for cross in (False, True):
                frames = 300 if actors == 1000 else 40
                args = [f"{assets_dir}/{rel}", "--actors", str(actors), "--threads", str(threads),
                        "--frames", str(frames), "--json"] + (["--crossfade"] if cross else [])
                res = {"before": [], "after": []}
                for r in range(REPS):
                    for label, exe in (("before", before), ("after", after)) if r % 2 == 0 else (("after", after), ("before", before)):
                        out = subprocess.run([exe, "bench"] + args, capture_output=True, text=True, check=True).stdout
                        res[label].append(json.loads(out)["us_per_actor"])
                b, a = statistics.median(res["before"]), statistics.median(res["after"])
                rows.append((name, actors, threads, "crossfade" if cross else "one clip", b, a, (a / b - 1) * 100))
                print(f"| {rows[-1][0]} | {actors:,} | {threads} | {rows[-1][3]} | {b:.3f} | {a:.3f} | {rows[-1][6]:+.1f} % |", flush=True)
