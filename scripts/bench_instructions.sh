#!/usr/bin/env bash
# Instructions per actor per update of two gltf-crowd binaries, measured with callgrind, which
# does not depend on the machine's load (docs/benchmarks.md, "Instructions per actor per update"):
#   scripts/bench_instructions.sh BEFORE_TOOL AFTER_TOOL ASSETS_DIR
# For RobotExpressive and CesiumMan, one clip and mid-crossfade, 1,000 actors, one thread:
# (Ir(60 frames) − Ir(20 frames)) / (40 × 1,000), so loading and setup cancel. About 3 minutes.
# Valgrind emulates no AVX-512, so the kernel set is chosen here, not by the CPU: AVX2 + FMA
# where the CPU has them (the avx512vl set's code otherwise), else SSE2; both binaries run the
# same set, which the table's heading names.
set -euo pipefail
before=$1 after=$2 assets=$3
if grep -q -w avx2 /proc/cpuinfo && grep -q -w fma /proc/cpuinfo; then
  export GLTF_CROWD_SIMD=avx2
else
  export GLTF_CROWD_SIMD=sse2
fi
ir() {
  local log json set
  log=$(mktemp)
  if ! json=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null --log-file="$log" "$1" bench "$2" \
    --actors 1000 --threads 1 --frames "$3" --warmup 0 ${4:+"$4"} --json); then
    echo "bench_instructions.sh: $1 bench failed under valgrind:" >&2
    tail -n 20 "$log" >&2
    rm -f "$log"
    exit 1
  fi
  set=$(sed -n 's/.*"affine_kernels":"\([^"]*\)".*/\1/p' <<<"$json")
  if [ "$set" != "$kernels" ]; then
    echo "bench_instructions.sh: $1 ran the '$set' kernel set under valgrind, not '$kernels'" >&2
    rm -f "$log"
    exit 1
  fi
  sed -n 's/.*Collected : //p' "$log"
  rm -f "$log"
}
kernels=$([ "$GLTF_CROWD_SIMD" = avx2 ] && echo "avx2+fma" || echo "sse2")
echo "Kernel set under valgrind: $kernels (GLTF_CROWD_SIMD=$GLTF_CROWD_SIMD; valgrind cannot run AVX-512)"
echo
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
