#!/usr/bin/env bash
# The GPU benchmark of issue 17, for a machine with a GPU (docs/benchmarks.md "GPU animation").
#
#   scripts/gpu_bench.sh prepare   here (Debian 12): builds the Release tool, bundles it with the
#                                  shared libraries it needs (.gpubench/) and downloads the GL
#                                  loaders (.gl/), both ignored by git through .git/info/exclude
#   scripts/gpu_bench.sh run       on the GPU machine, in the repository root, with .gpubench and
#                                  .gl carried there: unpacks the loaders, then prints one JSON
#                                  table (about 3 minutes on an H200). GPU_BENCH_ACTORS="100 200"
#                                  replaces the actor counts (a smoke test on llvmpipe).
#
# The device machine has no Debian packages and nothing can be fetched there, so the tool is
# built here and its libraries travel with it (device notes, /work/.library/device/README.md).
# Rows: RobotExpressive at 10k, 100k and 1M actors, one clip and mid-crossfade:
#  - bench --animation gpu: CPU µs per actor of the update and of CrowdRenderer::animate, bytes
#    uploaded per frame, GPU ms of the compute passes (GL_TIME_ELAPSED);
#  - render --animation gpu at 1920×1080, with and without --lod: wall ms of one draw including
#    its compute passes, ended by glFinish (the render tool's draw_ms).
# A configuration the GPU refuses (e.g. palette_too_large past GL_MAX_SHADER_STORAGE_BLOCK_SIZE)
# is a row with its error, not a failure of the script.
set -euo pipefail
cd "$(dirname "$0")/.."
ASSETS=${GLTF_CROWD_ASSETS:-../shared/assets}

prepare() {
  scripts/install-deps.sh
  cmake -S . -B build-gpubench -G Ninja -DCMAKE_BUILD_TYPE=Release -DGLTF_CROWD_TESTS=OFF -DGLTF_CROWD_BENCH=OFF
  cmake --build build-gpubench --target gltf-crowd
  rm -rf .gpubench && mkdir -p .gpubench/lib
  cp build-gpubench/gltf-crowd .gpubench/
  cp "$ASSETS/threejs/RobotExpressive.glb" .gpubench/
  # Every library but glibc's own and the GL/EGL loaders (those come from .gl, for NVIDIA's driver).
  ldd build-gpubench/gltf-crowd | awk '$3 ~ /^\// {print $3}' |
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
  echo "run on the GPU machine: scripts/gpu_bench.sh run   (carry .gpubench and .gl)"
}

run() {
  if compgen -G '.gl/*.deb' >/dev/null; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
  fi
  export LD_LIBRARY_PATH="$PWD/.gpubench/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  if [[ -f /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json ]]; then
    export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  fi
  local tool=.gpubench/gltf-crowd asset=.gpubench/RobotExpressive.glb
  local rows=() out
  for actors in ${GPU_BENCH_ACTORS:-10000 100000 1000000}; do
    for fade in "" --crossfade; do
      frames=$((actors >= 1000000 ? 20 : 60))
      if out=$("$tool" bench "$asset" --animation gpu --actors "$actors" --frames "$frames" --warmup 5 $fade --json 2>&1); then
        rows+=("{\"kind\":\"evaluate\",\"result\":$out}")
      else
        rows+=("{\"kind\":\"evaluate\",\"actors\":$actors,\"crossfade\":$([[ -n $fade ]] && echo true || echo false),\"error\":$(printf '%s' "$out" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().strip()))')}")
      fi
    done
    for lod in "" --lod; do
      if out=$("$tool" render "$asset" --animation gpu --actors "$actors" --width 1920 --height 1080 $lod \
        --out /tmp/gpu_bench.png --stats /tmp/gpu_bench.json 2>&1); then
        rows+=("{\"kind\":\"draw\",\"actors\":$actors,\"lod\":$([[ -n $lod ]] && echo true || echo false),\"stats\":$(cat /tmp/gpu_bench.json)}")
      else
        rows+=("{\"kind\":\"draw\",\"actors\":$actors,\"lod\":$([[ -n $lod ]] && echo true || echo false),\"error\":$(printf '%s' "$out" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().strip()))')}")
      fi
    done
  done
  local IFS=,
  printf '{"rows":[%s]}\n' "${rows[*]}" | python3 -m json.tool
}

case "${1:-}" in
  prepare) prepare ;;
  run) run ;;
  *)
    echo "usage: scripts/gpu_bench.sh prepare | run" >&2
    exit 2
    ;;
esac
