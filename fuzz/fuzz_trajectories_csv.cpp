// Fuzz target: bytes → the CSV/TSV trajectory reader (docs/spec.md §15.2, §15.3). The first byte
// picks the options (up axis, unit, heading unit, delimiter, fps), the rest is the file; every
// frame must meet trajectory_checks.hpp's invariants, every bad input be an Error.
// Seeds: fuzz/seeds/fuzz_trajectories_csv.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "trajectory_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t pick = data[0];
  constexpr char kDelimiters[] = {'\0', ',', ';', '\t'};
  const gltf_crowd::TrajectoryOptions options{
      .delimiter = kDelimiters[(pick >> 3) & 3],
      .unit = (pick & 1) != 0 ? gltf_crowd::LengthUnit::centimetres : gltf_crowd::LengthUnit::metres,
      .up = (pick & 2) != 0 ? gltf_crowd::UpAxis::y : gltf_crowd::UpAxis::z,
      .heading_unit = (pick & 4) != 0 ? gltf_crowd::AngleUnit::degrees : gltf_crowd::AngleUnit::radians,
      .fps = (pick & 32) != 0 ? 0.0 : 25.0,
  };
  gltf_crowd::fuzz::read_trajectories({reinterpret_cast<const char*>(data) + 1, size - 1}, options);
  return 0;
}
