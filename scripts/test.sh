#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the normal build, the install and
# packaging checks (scripts/package_test.sh), the whole suite
# again under AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer included), then every
# libFuzzer target for a bounded time (GLTF_CROWD_FUZZ_SECONDS each, default 60).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's wall time, printed as it ends and as a table at the end (docs/benchmarks.md, "The
# test command").
phases=()
phase_start=$(date +%s)
run_start=$phase_start
phase_done() {
  local now
  now=$(date +%s)
  phases+=("$(printf '%-28s %5d s' "$1" $((now - phase_start)))")
  echo "== test.sh: $1 took $((now - phase_start)) s"
  phase_start=$now
}
scripts/install-deps.sh
jobs=$(nproc)
# Debian's python3, for which install-deps.sh installed pybind11, numpy and pytest (a pyenv or
# virtualenv python3 earlier on PATH may lack them): the Python module is built and tested with it.
python=/usr/bin/python3
# Formatting first: it takes a second, and a difference fails the run (.clang-format).
scripts/format.sh --check
phase_done "packages and formatting"

# Options are given explicitly: `build` may hold scripts/demo.sh's cache (tests off, Release),
# and an empty test run must fail rather than pass. Line tables only (-g1): backtraces and perf
# keep file and line, and the build is shorter than with -g (docs/benchmarks.md, "The test command").
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DGLTF_CROWD_TESTS=ON -DGLTF_CROWD_BENCH=ON -DGLTF_CROWD_SANITIZE=OFF -DGLTF_CROWD_WERROR=ON \
  -DGLTF_CROWD_PYTHON=ON -DPython3_EXECUTABLE="$python"
cmake --build build -j "$jobs"
phase_done "build"
ctest --test-dir build --output-on-failure --no-tests=error -j "$jobs"
phase_done "tests"
# The Python module's tests (tests/python), here only: a sanitizer build does not make the module.
PYTHONPATH=build/python PYTHONDONTWRITEBYTECODE=1 GLTF_CROWD_TOOL=build/gltf-crowd \
  "$python" -m pytest -q -p no:cacheprovider tests/python
phase_done "python tests"

# The library as users get it: install, find_package, add_subdirectory, Debian packages.
BUILD_DIR=build JOBS=$jobs scripts/package_test.sh
phase_done "package test"

# Sanitizers at -O1 with line tables, as AddressSanitizer's authors advise: the suite runs much
# faster than at -O0 for a somewhat longer build (docs/benchmarks.md, "The test command").
# Warnings are the normal build's job (-Werror there): GCC 12 warns falsely under
# -fsanitize=address with optimization (-Wstringop-overflow and the like).
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DGLTF_CROWD_TESTS=ON \
  -DGLTF_CROWD_SANITIZE=ON -DGLTF_CROWD_BENCH=OFF -DGLTF_CROWD_WERROR=OFF
cmake --build build-asan -j "$jobs"
phase_done "ASan + UBSan build"
# intercept_tls_get_addr=0: GCC 12's LeakSanitizer guesses each dynamic TLS block's bounds from a
# header that glibc 2.25 and later (Debian 12: 2.36) no longer write; when the guess misfires it scans a bogus range and
# its tracer crashes at exit ("Tracer caught signal 11", docs/platform.md §9). Without the
# interception it scans no dynamic TLS ranges; those blocks are malloc'd, so LSan still follows
# pointers through them as heap. Should the crash still occur, the tests that hit it run once
# more, still with leak detection, when it is every failure of the run.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
asan_log=build-asan/ctest-output.txt
if ! ctest --test-dir build-asan --output-on-failure --no-tests=error -j "$jobs" 2>&1 | tee "$asan_log"; then
  failed=$(wc -l <build-asan/Testing/Temporary/LastTestsFailed.log)
  tracer=$(grep -c 'LeakSanitizer has encountered a fatal error' "$asan_log" || true)
  if [[ "$failed" -eq 0 || "$failed" -ne "$tracer" ]]; then exit 1; fi
  echo "test.sh: $failed test(s) hit LeakSanitizer's tracer crash; running them again"
  ctest --test-dir build-asan --output-on-failure --rerun-failed
fi
unset ASAN_OPTIONS UBSAN_OPTIONS
phase_done "ASan + UBSan tests"

JOBS=$jobs scripts/fuzz.sh "${GLTF_CROWD_FUZZ_SECONDS:-60}"
phase_done "fuzzers: build and run"
echo "== test.sh: every phase passed"
printf '%s\n' "${phases[@]}"
echo "total                        $(( $(date +%s) - run_start )) s"
