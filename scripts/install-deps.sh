#!/usr/bin/env bash
# Installs the Debian 12 packages gltf-crowd builds and tests with (docs/platform.md §1).
# Skips apt entirely when everything is already installed.
#   scripts/install-deps.sh          everything: the library, the tool, tests, benchmarks, sanitizers
#   scripts/install-deps.sh --tool   only what building and running the gltf-crowd tool needs
#                                    (scripts/demo.sh): no test, benchmark or video packages, no npm
set -euo pipefail
tool_only=0
usage="usage: $0 [--tool]"
[ $# -le 1 ] || { echo "$usage" >&2; exit 2; }
case "${1:-}" in
  --tool) tool_only=1 ;;
  -h | --help) echo "$usage"; exit 0 ;;
  "") ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
# What CMakeLists.txt finds with GLTF_CROWD_TESTS=OFF and GLTF_CROWD_BENCH=OFF, and Mesa's EGL
# and llvmpipe to render headless.
packages=(
  build-essential cmake ninja-build pkg-config
  libegl-dev libegl-mesa0 libgl1-mesa-dri libgl-dev libgles-dev libepoxy-dev libglfw3-dev libimgui-dev
  libtinygltf-dev libmeshoptimizer-dev libdraco-dev libglm-dev libtbb-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev libstb-dev libsqlite3-dev
)
if [ "$tool_only" -eq 0 ]; then
  packages+=(
    git xvfb xauth libgtest-dev libgmock-dev libbenchmark-dev libpng-dev gltfpack python3
    libavcodec-dev libavformat-dev libavutil-dev libswscale-dev
    pybind11-dev python3-dev python3-numpy python3-pytest
    clang libclang-rt-14-dev clang-format
  )
fi
# Not listed: python3-matplotlib, which only scripts/bench_chart.py needs (the README's chart);
# the build and the tests do not use it, so CI does not install it.
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

[ "$tool_only" -eq 0 ] || exit 0

# --- Khronos glTF-Validator (tests/gltf_validator_test.cpp) ---------------------------------
# npm package gltf-validator, installed outside the repository into $GLTF_CROWD_NODE_DIR
# (default $HOME/.cache/gltf-crowd/node); the test finds it there. Skipped when present.
node_dir="${GLTF_CROWD_NODE_DIR:-$HOME/.cache/gltf-crowd/node}"
if [ ! -f "$node_dir/node_modules/gltf-validator/package.json" ]; then
  if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends nodejs npm
  fi
  mkdir -p "$node_dir"
  npm install --prefix "$node_dir" --no-audit --no-fund --silent gltf-validator@2.0.0-dev.3.10
fi
