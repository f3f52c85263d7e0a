#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the normal build, the install and
# packaging checks (scripts/package_test.sh), the whole suite
# again under AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer included), then every
# libFuzzer target for a bounded time (GLTF_CROWD_FUZZ_SECONDS each, default 60).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)

# Options are given explicitly: `build` may hold scripts/demo.sh's cache (tests off, Release),
# and an empty test run must fail rather than pass.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGLTF_CROWD_TESTS=ON -DGLTF_CROWD_BENCH=ON \
  -DGLTF_CROWD_SANITIZE=OFF -DGLTF_CROWD_WERROR=ON
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure --no-tests=error -j "$jobs"

# The library as users get it: install, find_package, add_subdirectory, Debian packages.
BUILD_DIR=build JOBS=$jobs scripts/package_test.sh

cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DGLTF_CROWD_TESTS=ON -DGLTF_CROWD_SANITIZE=ON \
  -DGLTF_CROWD_BENCH=OFF -DGLTF_CROWD_WERROR=ON
cmake --build build-asan -j "$jobs"
# One GL test is run without leak detection: at its exit LeakSanitizer's own tracer crashes
# ("Tracer caught signal 11", docs/platform.md §9) after the test has passed, every time. It keeps
# AddressSanitizer and UBSan; every other test runs with leak detection.
lsan_crash='Palettes/StorageTest.SkinnedVerticesFollowTheirJointThenThePlacement/storage'
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure --no-tests=error -j "$jobs" -E "$lsan_crash"
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure --no-tests=error -R "$lsan_crash"

JOBS=$jobs scripts/fuzz.sh "${GLTF_CROWD_FUZZ_SECONDS:-60}"
