#!/usr/bin/env bash
# Builds the libFuzzer targets (clang 14, ASan + UBSan) and runs each for a bounded time with
# fuzz/run_targets.sh: first its regressions (fuzz/regressions/<target>/, inputs that once
# failed), then fuzzing on a temporary copy of its seed corpus, so nothing is written into the
# repository. Exits non-zero on any finding; the failing input is kept under
# $GLTF_CROWD_FUZZ_ARTIFACTS (default build-fuzz/artifacts).
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET [TARGET...]]   (default: 60 s, every fuzz_* target)
# Environment: GLTF_CROWD_FUZZ_BUILD (build dir, default build-fuzz), JOBS (build jobs), FUZZ_JOBS
# (targets fuzzed at once, default the core count); each target's report is printed whole, in
# order, when all have finished.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
build=${GLTF_CROWD_FUZZ_BUILD:-build-fuzz}

CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DGLTF_CROWD_FUZZ=ON -DGLTF_CROWD_TESTS=OFF -DGLTF_CROWD_BENCH=OFF >/dev/null
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target fuzz_targets

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for source in fuzz/fuzz_*.cpp; do targets+=("$(basename "$source" .cpp)"); done
fi
exec fuzz/run_targets.sh "$build" "$seconds" "${targets[@]}"
