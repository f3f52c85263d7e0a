// Threshold band of one actor with hysteresis (docs/spec.md §7 "Thresholds", "Hysteresis").
// Bands index the thresholds; band == thresholds.size() means culled, so entering and leaving
// the culled state obeys the same dead band as any other level change.
#include <cassert>

#include "gltf_crowd/lod.hpp"

namespace gltf_crowd {

std::uint32_t select_band(float coverage, std::span<const float> thresholds, std::uint32_t current,
                          float hysteresis) noexcept {
  assert(!thresholds.empty());
  const auto count = static_cast<std::uint32_t>(thresholds.size());
  std::uint32_t plain = 0;
  while (plain < count && !(coverage >= thresholds[plain])) ++plain;
  if (current == kNoBand || current > count || plain == current) return plain;
  if (plain > current) return coverage < thresholds[current] * (1.0f - hysteresis) ? plain : current;
  for (std::uint32_t j = plain; j < current; ++j)
    if (coverage >= thresholds[j] * (1.0f + hysteresis)) return j;
  return current;
}

}  // namespace gltf_crowd
