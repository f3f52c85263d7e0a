#!/usr/bin/env bash
# Builds the benchmarks in Release, runs the whole issue-9 suite (bench/crowd_bench.cpp) into
# JSON and draws the chart of µs per actor against actors (docs/benchmarks.md, "How to run").
#
#   scripts/bench.sh                                  # the full suite (tens of minutes on 2 cores)
#   scripts/bench.sh --benchmark_min_time=0.05        # extra arguments go to the benchmark binary
#   scripts/bench.sh --benchmark_filter='BM_Update/asset:0/'
#
# Environment: BUILD_DIR (default build-bench), JSON (default $BUILD_DIR/benchmark.json),
# CHART (default docs/images/benchmark.png), JOBS (ninja -j; default ninja's choice).
# Needs the packages of scripts/install-deps.sh, python3 and gnuplot (gnuplot-nox); run on an
# idle machine: other load inflates wall times.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
json="${JSON:-$build/benchmark.json}"
chart="${CHART:-$root/docs/images/benchmark.png}"

command -v gnuplot >/dev/null || { echo "bench.sh: gnuplot is missing (apt-get install gnuplot-nox)" >&2; exit 1; }
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGLTF_CROWD_TESTS=OFF >/dev/null
ninja -C "$build" ${JOBS:+-j "$JOBS"} gltf_crowd_bench

# Mesa's EGL chatter on stderr is not a result.
EGL_LOG_LEVEL="${EGL_LOG_LEVEL:-fatal}" "$build/bench/gltf_crowd_bench" --benchmark_counters_tabular=true \
  --benchmark_out="$json" --benchmark_out_format=json "$@"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 "$root/scripts/bench_series.py" "$json" "$work/series.dat" "$work/plot.gp"
subtitle="$(python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["context"]
print("Release, %s CPUs, %s, %s" % (c.get("num_cpus", "?"), c.get("host_name", "?"), c.get("date", "")[:10]))' "$json")"
mkdir -p "$(dirname "$chart")"
gnuplot -e "DATA='$work/series.dat'; PLOT='$work/plot.gp'; OUT='$chart'; SUBTITLE='$subtitle'" \
  "$root/scripts/bench_chart.gp"
echo "bench.sh: results in $json, chart in $chart"
