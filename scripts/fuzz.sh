#!/usr/bin/env bash
# Builds the libFuzzer targets (clang 14, ASan + UBSan) and runs each for a bounded time on a
# temporary copy of its seed corpus, so nothing is written into the repository. First replays
# fuzz/regressions/<target>/ (inputs that once failed). Exits non-zero on any finding; the
# failing input is kept under $GLTF_CROWD_FUZZ_ARTIFACTS (default build-fuzz/artifacts).
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET [TARGET...]]   (default: 60 s, every fuzz_* target)
# Environment: GLTF_CROWD_FUZZ_BUILD (build dir, default build-fuzz), JOBS (build jobs), FUZZ_JOBS
# (targets fuzzed at once, default the core count).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
build=${GLTF_CROWD_FUZZ_BUILD:-build-fuzz}
artifacts=${GLTF_CROWD_FUZZ_ARTIFACTS:-$build/artifacts}

CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DGLTF_CROWD_FUZZ=ON -DGLTF_CROWD_TESTS=OFF -DGLTF_CROWD_BENCH=OFF >/dev/null
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target fuzz_targets

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for source in fuzz/fuzz_*.cpp; do targets+=("$(basename "$source" .cpp)"); done
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$artifacts"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# One target's run: replays its regressions, fuzzes for $seconds, and writes its summary line to
# $work/<target>.result (and the log's tail on a failure). The targets run FUZZ_JOBS at a time
# (default: the core count), each a single process, so a 2-core machine fuzzes two at once.
run_target() {
  local target=$1 binary="$build/fuzz/$1" corpus="$work/$1" log="$work/$1.log" result
  if [ -d "fuzz/regressions/$target" ] &&
     ! "$binary" -rss_limit_mb=2048 fuzz/regressions/"$target"/* >"$log" 2>&1; then
    tail -n 60 "$log"
    echo "$target: regression FAILED" >"$work/$target.result"
    return
  fi
  fuzz/seed_corpus.sh "$target" "$corpus"
  local options=(-max_total_time="$seconds" -rss_limit_mb=2048 -timeout=30 -print_final_stats=1
                 -artifact_prefix="$artifacts/$target-")
  case "$target" in
    fuzz_load) options+=(-max_len=65536 -dict=fuzz/gltf.dict) ;;
    # Operation scripts and meshes: long inputs from the start (no slow length ramp).
    fuzz_crowd) options+=(-max_len=1024 -len_control=0) ;;
    # CSV text, and SQLite databases of 4-5 KiB (512-byte pages).
    fuzz_trajectories_*) options+=(-max_len=8192 -len_control=0 -dict=fuzz/trajectories.dict) ;;
    *) options+=(-max_len=4096 -len_control=0) ;;
  esac
  if "$binary" "${options[@]}" "$corpus" >"$log" 2>&1; then
    result=ok
  else
    result=FAILED
    tail -n 60 "$log"
  fi
  local executions
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  echo "$target: $result, ${executions:-?} executions in ${seconds} s, corpus $(find "$corpus" -type f | wc -l) files" \
    >"$work/$target.result"
}

parallel=${FUZZ_JOBS:-$(nproc)}
for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  echo "== $target: ${seconds} s"
  run_target "$target" &
done
wait

echo "== fuzz summary"
status=0
for target in "${targets[@]}"; do
  if [ -f "$work/$target.result" ]; then cat "$work/$target.result"; else echo "$target: no result"; fi
  grep -q "^$target: ok," "$work/$target.result" 2>/dev/null || status=1
done
exit $status
