#!/usr/bin/env bash
# Fresh Debian 12 → crowd.png: installs what is missing, builds, renders the built-in crowd.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --tool
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGLTF_CROWD_TESTS=OFF -DGLTF_CROWD_BENCH=OFF
cmake --build build --target gltf-crowd
./build/gltf-crowd render --actors 100 --seconds 2 --out crowd.png --stats crowd.json "$@"
echo "wrote $(pwd)/crowd.png and crowd.json"
