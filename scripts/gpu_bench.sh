#!/usr/bin/env bash
# The GPU benchmarks of issues 17 and 21, for a machine with a GPU (docs/benchmarks.md "On an
# H200").
#
#   scripts/gpu_bench.sh prepare   here (Debian 12): builds the Release tool, the benchmark suite
#                                  and the GL tests, bundles them with the shared libraries they
#                                  need and the assets (.gpubench/), and downloads the GL loaders
#                                  (.gl/), both ignored by git through .git/info/exclude
#   scripts/gpu_bench.sh run       on the GPU machine, in the repository root, with .gpubench and
#                                  .gl carried there: unpacks the loaders, then prints one JSON
#                                  row per line as each finishes (issue 17). GPU_BENCH_ACTORS=
#                                  "100 200" replaces the actor counts (a smoke test on llvmpipe).
#   scripts/gpu_bench.sh passes    on the GPU machine: bench/crowd_bench.cpp's BM_Pass (the main
#                                  and depth passes and animate, with and without the
#                                  skinned-vertex cache; issue 21), as Google Benchmark's table.
#                                  GPU_BENCH_PASS_FILTER replaces its filter.
#   scripts/gpu_bench.sh frames    on the GPU machine: BM_GpuFrame, steady frames of 10⁴–10⁶
#                                  GPU-animated actors at 1920×1080 with and without generated
#                                  levels (issue 17's 60 fps row).
#   scripts/gpu_bench.sh gl-tests  on the GPU machine: the GL test binary (every test that opens
#                                  a context) against the vendor's driver; further arguments go
#                                  to it (--gtest_filter=…).
#
# The device machine has no Debian packages and nothing can be fetched there, so everything is
# built here and its libraries travel with it (device notes, /work/.library/device/README.md).
# The suite and the tests find the assets at the absolute ../shared/assets they were built
# with; on the GPU machine a link there points into .gpubench/assets.
# Rows of `run`: RobotExpressive at 10k, 100k and 1M actors, one clip and mid-crossfade:
#  - bench --animation gpu: CPU µs per actor of the update and of CrowdRenderer::animate, bytes
#    uploaded per frame, GPU ms of the compute passes (GL_TIME_ELAPSED) in all and by pass;
#  - render --animation gpu at 1920×1080 after 2 s of updates, with and without --lod: the render
#    tool's draw_ms, the wall ms of its one draw (the first: setup, uploads and compute passes
#    included; `frames` measures steady frames) with the default shadow pass, ended by glFinish.
# A configuration the GPU refuses (e.g. palette_too_large past GL_MAX_SHADER_STORAGE_BLOCK_SIZE)
# is a row with its error, not a failure of the script.
set -euo pipefail
cd "$(dirname "$0")/.."
ASSETS=${GLTF_CROWD_ASSETS:-../shared/assets}

prepare() {
  scripts/install-deps.sh
  # No video: FFmpeg and its codecs would bring 150 MB of libraries, over the 64 MiB that travels.
  cmake -S . -B build-gpubench -G Ninja -DCMAKE_BUILD_TYPE=Release -DGLTF_CROWD_TESTS=ON -DGLTF_CROWD_BENCH=ON \
    -DGLTF_CROWD_VIDEO=OFF
  cmake --build build-gpubench --target gltf-crowd gltf_crowd_bench gltf_crowd_gl_tests
  rm -rf .gpubench && mkdir -p .gpubench/lib
  local binaries=(build-gpubench/gltf-crowd build-gpubench/bench/gltf_crowd_bench build-gpubench/tests/gltf_crowd_gl_tests)
  cp "${binaries[@]}" .gpubench/
  cp -r "$ASSETS" .gpubench/assets
  # The path the suite and the tests were built with (GLTF_CROWD_ASSETS_DIR), for setup().
  echo "$PWD/../shared/assets" >.gpubench/assets_dir
  # Every library but glibc's own and the GL/EGL loaders (those come from .gl, for NVIDIA's driver).
  for binary in "${binaries[@]}"; do ldd "$binary"; done | awk '$3 ~ /^\// {print $3}' | sort -u |
    grep -Ev '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*)\.so|/lib(GL|EGL|GLX|OpenGL|GLdispatch)' |
    xargs -I{} cp -L {} .gpubench/lib/
  local exclude
  exclude=$(git rev-parse --git-path info/exclude)
  mkdir -p "$(dirname "$exclude")"
  grep -qx '/.gpubench/' "$exclude" 2>/dev/null || echo /.gpubench/ >>"$exclude"
  grep -qx '/.gl/' "$exclude" 2>/dev/null || echo /.gl/ >>"$exclude"
  mkdir -p .gl /tmp/amd64/partial
  local o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  # shellcheck disable=SC2086
  apt-get $o update >/dev/null
  # shellcheck disable=SC2086
  (cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 >/dev/null)
  du -sh .gpubench .gl
  echo "run on the GPU machine: scripts/gpu_bench.sh run | passes | frames | gl-tests   (carry .gpubench and .gl)"
}

# The loaders (only where the machine has no EGL loader: unpacked into /, they would replace a
# development machine's own), the bundled libraries, NVIDIA's EGL vendor file where there is
# one, and the assets where the binaries look for them.
setup() {
  if [[ ! -f .gpubench/assets_dir ]]; then
    echo "gpu_bench.sh: .gpubench is missing or incomplete: run 'scripts/gpu_bench.sh prepare' first" >&2
    exit 1
  fi
  if compgen -G '.gl/*.deb' >/dev/null && ! ldconfig -p | grep -q 'libEGL\.so\.1 '; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
  fi
  export LD_LIBRARY_PATH="$PWD/.gpubench/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  if [[ -f /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json ]]; then
    export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  fi
  local built_with
  built_with=$(cat .gpubench/assets_dir)
  if [[ ! -e "$built_with" ]]; then
    mkdir -p "$(dirname "$built_with")"
    ln -s "$PWD/.gpubench/assets" "$built_with"
  fi
}

passes() {
  setup
  .gpubench/gltf_crowd_bench \
    --benchmark_filter="${GPU_BENCH_PASS_FILTER:-BM_Pass/asset:[012]/actors:(1000|10000)/pass:[013]/cache:[01]/size:(512|2048)}" \
    --benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=true --benchmark_counters_tabular=true
}

frames() {
  setup
  .gpubench/gltf_crowd_bench --benchmark_filter=BM_GpuFrame --benchmark_min_time=0.5 --benchmark_counters_tabular=true
}

gl_tests() {
  setup
  .gpubench/gltf_crowd_gl_tests --gtest_brief=1 "$@"
}

run() {
  setup
  local tool=.gpubench/gltf-crowd asset=.gpubench/assets/threejs/RobotExpressive.glb
  local out err=/tmp/gpu_bench.err
  for actors in ${GPU_BENCH_ACTORS:-10000 100000 1000000}; do
    for fade in "" --crossfade; do
      frames=$((actors >= 1000000 ? 20 : 60))
      if out=$("$tool" bench "$asset" --animation gpu --actors "$actors" --frames "$frames" --warmup 5 $fade --json 2>"$err"); then
        row "{\"kind\":\"evaluate\",\"result\":$out}"
      else
        row "{\"kind\":\"evaluate\",\"actors\":$actors,\"crossfade\":$([[ -n $fade ]] && echo true || echo false),\"error\":$(json_string "$err")}"
      fi
    done
    # --min-coverage 0: with the whole crowd framed, 100,000 actors each cover less than the
    # default 0.01 and would all be culled; this draws every one at the level its coverage picks.
    for lod in "" "--lod --min-coverage 0"; do
      # shellcheck disable=SC2086  # $lod is zero or three words
      if "$tool" render "$asset" --animation gpu --actors "$actors" --width 1920 --height 1080 $lod \
        --out /tmp/gpu_bench.png --stats /tmp/gpu_bench.json >/dev/null 2>"$err"; then
        row "{\"kind\":\"draw\",\"actors\":$actors,\"lod\":$([[ -n $lod ]] && echo true || echo false),\"stats\":$(scalar_stats /tmp/gpu_bench.json)}"
      else
        row "{\"kind\":\"draw\",\"actors\":$actors,\"lod\":$([[ -n $lod ]] && echo true || echo false),\"error\":$(json_string "$err")}"
      fi
    done
  done
}

# A file's text as one JSON string (a failed row's error: the tool's stderr).
json_string() {
  python3 -c 'import json, sys; print(json.dumps(open(sys.argv[1]).read().strip()))' "$1"
}

# The render tool's stats without its per-actor lists (clips, tints, …: megabytes at 1M actors).
scalar_stats() {
  python3 -c 'import json, sys
print(json.dumps({k: v for k, v in json.load(open(sys.argv[1])).items() if not isinstance(v, list) or len(v) <= 8}))' "$1"
}

# One row per line as soon as it is known, so a run stopped by a time limit keeps its rows.
row() { printf '%s' "$1" | python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)))'; }

case "${1:-}" in
  prepare) prepare ;;
  run) run ;;
  passes) passes ;;
  frames) frames ;;
  gl-tests) shift && gl_tests "$@" ;;
  *)
    echo "usage: scripts/gpu_bench.sh prepare | run | passes | frames | gl-tests" >&2
    exit 2
    ;;
esac
