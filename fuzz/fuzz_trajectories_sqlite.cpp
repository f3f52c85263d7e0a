// Fuzz target: bytes → the JuPedSim SQLite trajectory reader (docs/spec.md §15.1, §15.3), read
// from memory through sqlite3_deserialize. The first 16 bytes are set to SQLite's magic so every
// input reaches the database reader; every frame must meet trajectory_checks.hpp's invariants,
// every bad input be an Error. Seeds: fuzz/seeds/fuzz_trajectories_sqlite, databases of versions
// 1–3 written with JuPedSim's SQL for each (PRAGMA page_size=512, then VACUUM, to stay small).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "trajectory_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr char kMagic[] = "SQLite format 3";  // with its terminating '\0': 16 bytes
  if (size < sizeof kMagic) return 0;
  std::string bytes(reinterpret_cast<const char*>(data), size);
  std::memcpy(bytes.data(), kMagic, sizeof kMagic);
  gltf_crowd::fuzz::read_trajectories(bytes, {});
  return 0;
}
