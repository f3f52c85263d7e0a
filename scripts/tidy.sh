#!/usr/bin/env bash
# Runs clang-tidy (the checks in .clang-tidy) over the compilation database of a configured build
# (BUILD_DIR, default build; every configure exports compile_commands.json). Without arguments it
# checks src/asset, src/lod, src/gl and src/tools; otherwise the files or folders given.
# Exits non-zero when a check reports (.clang-tidy makes every warning an error). Not part of CI:
# it takes minutes per file set on a busy machine. JOBS (default nproc) files run in parallel.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc)}
[ -f "$build/compile_commands.json" ] || { echo "tidy: configure $build first (cmake -S . -B $build)" >&2; exit 1; }
if [ $# -eq 0 ]; then set -- src/asset src/lod src/gl src/tools; fi
files=()
for arg in "$@"; do
  if [ -d "$arg" ]; then
    while IFS= read -r f; do files+=("$f"); done < <(find "$arg" -name '*.cpp' | sort)
  else
    files+=("$arg")
  fi
done
# run-clang-tidy takes regular expressions; anchor each file.
patterns=()
for f in "${files[@]}"; do patterns+=("$(realpath "$f")\$"); done
run-clang-tidy -p "$build" -j "$jobs" -quiet "${patterns[@]}"
