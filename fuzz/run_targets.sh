#!/usr/bin/env bash
# Runs built libFuzzer targets (scripts/fuzz.sh builds them, then calls this): each one first
# replays its regressions (inputs that once failed), then fuzzes for SECONDS on a temporary copy
# of its seed corpus (fuzz/seed_corpus.sh), so nothing is written into the repository. Exits
# non-zero on any finding; the failing input is kept under $GLTF_CROWD_FUZZ_ARTIFACTS (default
# BUILD_DIR/artifacts).
#
# Usage: fuzz/run_targets.sh BUILD_DIR SECONDS TARGET...
# Environment: FUZZ_JOBS (targets fuzzed at once, default the core count),
# GLTF_CROWD_FUZZ_REGRESSIONS (default fuzz/regressions: one folder of inputs per target; a
# missing or empty one replays nothing).
#
# Targets run in parallel, so each one writes everything to its own files; its report (seeds, the
# tail of a failing log) is printed under its header once all have finished, in the order given.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1 seconds=$2
shift 2
targets=("$@")
artifacts=${GLTF_CROWD_FUZZ_ARTIFACTS:-$build/artifacts}
export GLTF_CROWD_FUZZ_REGRESSIONS=${GLTF_CROWD_FUZZ_REGRESSIONS:-fuzz/regressions}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$artifacts"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# One target's run, its output going to $work/<target>.report: replays its regressions, fuzzes for
# $seconds, and writes its summary line to $work/<target>.result.
run_target() {
  local target=$1 binary="$build/fuzz/$1" corpus="$work/$1" log="$work/$1.log" result
  local regressions=()
  if [ -d "$GLTF_CROWD_FUZZ_REGRESSIONS/$target" ]; then
    mapfile -t regressions < <(find "$GLTF_CROWD_FUZZ_REGRESSIONS/$target" -maxdepth 1 -type f | sort)
  fi
  if [ ${#regressions[@]} -gt 0 ] && ! "$binary" -rss_limit_mb=2048 "${regressions[@]}" >"$log" 2>&1; then
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
  echo "fuzzing $target for ${seconds} s"
  run_target "$target" >"$work/$target.report" 2>&1 &
done
wait

status=0
for target in "${targets[@]}"; do
  echo "== $target"
  cat "$work/$target.report"
done
echo "== fuzz summary"
for target in "${targets[@]}"; do
  if [ -f "$work/$target.result" ]; then cat "$work/$target.result"; else echo "$target: no result"; fi
  grep -q "^$target: ok," "$work/$target.result" 2>/dev/null || status=1
done
exit $status
