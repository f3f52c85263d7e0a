#!/usr/bin/env bash
# Formats gltf-crowd's C++ with the repository's .clang-format (clang-format 14, Debian 12).
#   scripts/format.sh           rewrites every tracked C++ file that differs
#   scripts/format.sh --check   changes nothing; lists each difference and fails when there is one
#                               (scripts/test.sh runs this first)
set -euo pipefail
cd "$(dirname "$0")/.."
format=$(command -v clang-format-14 || command -v clang-format || true)
[ -n "$format" ] || { echo "format.sh: clang-format not found (apt-get install clang-format)" >&2; exit 1; }
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.inl' '*.h')
case "${1:-}" in
  --check)
    if ! "$format" --dry-run -Werror "${files[@]}"; then
      echo "format.sh: the files above differ from .clang-format; run scripts/format.sh" >&2
      exit 1
    fi ;;
  "") "$format" -i "${files[@]}" ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac
