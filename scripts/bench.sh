#!/usr/bin/env bash
# Builds the benchmarks in Release and runs the whole issue-9 suite (bench/crowd_bench.cpp) into
# JSON (docs/benchmarks.md, "How to rerun"). The README's chart (docs/images/benchmark.png) is
# scripts/bench_chart.py's, drawn from the ozz anchor's run (README, "Benchmark chart").
#
#   scripts/bench.sh                                  # the full suite (tens of minutes on 2 cores)
#   scripts/bench.sh --benchmark_min_time=0.05        # extra arguments go to the benchmark binary
#   scripts/bench.sh --benchmark_filter='BM_Update/asset:0/'
#
# Environment: BUILD_DIR (default build-bench), JSON (default $BUILD_DIR/benchmark.json),
# JOBS (ninja -j; default ninja's choice).
# Needs the packages of scripts/install-deps.sh; run on an idle machine: other load inflates
# wall times.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
json="${JSON:-$build/benchmark.json}"

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGLTF_CROWD_TESTS=OFF >/dev/null
ninja -C "$build" ${JOBS:+-j "$JOBS"} gltf_crowd_bench

# Mesa's EGL chatter on stderr is not a result.
EGL_LOG_LEVEL="${EGL_LOG_LEVEL:-fatal}" "$build/bench/gltf_crowd_bench" --benchmark_counters_tabular=true \
  --benchmark_out="$json" --benchmark_out_format=json "$@"

echo "bench.sh: results in $json"
