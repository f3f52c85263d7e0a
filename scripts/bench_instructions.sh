#!/usr/bin/env bash
# Instructions per actor per update of two gltf-crowd binaries, measured with callgrind, which
# does not depend on the machine's load (docs/benchmarks.md, issue 16):
#   scripts/bench_instructions.sh BEFORE_TOOL AFTER_TOOL ASSETS_DIR
# For RobotExpressive and CesiumMan, one clip and mid-crossfade, 1,000 actors, one thread:
# (Ir(60 frames) − Ir(20 frames)) / (40 × 1,000), so loading and setup cancel. About 3 minutes.
set -euo pipefail
before=$1 after=$2 assets=$3
ir() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" bench "$2" --actors 1000 --threads 1 --frames "$3" \
    --warmup 0 ${4:+"$4"} --json 2>&1 | sed -n 's/.*Collected : //p'
}
echo "| asset | mode | before | after | change |"
echo "|---|---|---:|---:|---:|"
for asset in threejs/RobotExpressive.glb khronos/CesiumMan.glb; do
  for mode in "" --crossfade; do
    counts=()
    for exe in "$before" "$after"; do
      a=$(ir "$exe" "$assets/$asset" 20 "$mode")
      b=$(ir "$exe" "$assets/$asset" 60 "$mode")
      counts+=($(((b - a) / 40000)))
    done
    change=$(python3 -c "print(f'{(${counts[1]} / ${counts[0]} - 1) * 100:+.1f} %')")
    name=${asset##*/}
    label=${mode:+crossfade}
    echo "| ${name%.glb} | ${label:-one clip} | ${counts[0]} | ${counts[1]} | $change |"
  done
done
