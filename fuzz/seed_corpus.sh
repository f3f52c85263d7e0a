#!/usr/bin/env bash
# Copies the seed corpus of one fuzz target into a directory (which libFuzzer then grows).
# Usage: fuzz/seed_corpus.sh TARGET OUT_DIR
#  fuzz_load:  every .glb/.gltf of ../shared/assets up to 64 KiB (larger ones slow every
#              mutation down and are covered by the loader tests), every .glb/.gltf under
#              tests/ (the malformed files of the loader tests, and tests/policy_seeds: the
#              loading-policy documents of tests/policy_documents.hpp, kept in step by
#              LoadingPolicy.SeedFilesMatchTheDocuments), fuzz/seeds/fuzz_load (files no sample
#              asset provides, e.g. a Draco-compressed mesh, written by the test
#              Draco.DISABLED_WriteFuzzSeed) and fuzz/regressions/fuzz_load.
#  others:     fuzz/seeds/TARGET (the trajectory targets' CSV files and SQLite databases) and
#              fuzz/regressions/TARGET; the other targets' inputs are operation scripts, not files.
# GLTF_CROWD_FUZZ_REGRESSIONS names another regressions folder (fuzz/run_targets.sh). Missing or
# empty folders add nothing.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target=$1
out=$2
mkdir -p "$out"
if [ "$target" = fuzz_load ]; then
  for dir in "$root/../shared/assets" "$root/tests"; do
    [ -d "$dir" ] || continue
    find "$dir" -type f \( -name '*.glb' -o -name '*.gltf' \) -size -65537c -print0 |
      while IFS= read -r -d '' file; do
        # Name by content so equal files from two folders collapse into one seed.
        cp "$file" "$out/seed-$(sha1sum < "$file" | cut -c1-16)"
      done
  done
fi
for dir in "$root/fuzz/seeds/$target" "${GLTF_CROWD_FUZZ_REGRESSIONS:-$root/fuzz/regressions}/$target"; do
  if [ -d "$dir" ]; then find "$dir" -maxdepth 1 -type f -exec cp {} "$out"/ \;; fi
done
chmod -R u+w "$out"
echo "$target: $(find "$out" -type f | wc -l) seed files"
