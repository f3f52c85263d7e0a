// Based on: docs/spec.md §3 "Pose" — weighted sums, sign-aligned normalized quaternion sums (a cheap,
// order-independent approximation of a weighted slerp that is exact for one contributor).
#include <cassert>

#include "gltf_crowd/pose.hpp"

namespace gltf_crowd {

void accumulate_pose(const PoseView& source, float weight, bool first, std::span<const glm::quat> reference,
                     const PoseView& acc) noexcept {
  const std::size_t n = source.translations.size();
  assert(acc.translations.size() >= n && reference.size() >= n);
  if (first) {
    for (std::size_t i = 0; i < n; ++i) {
      acc.translations[i] = source.translations[i] * weight;
      acc.rotations[i] = source.rotations[i] * weight;
      acc.scales[i] = source.scales[i] * weight;
    }
    for (std::size_t i = 0; i < source.weights.size(); ++i) acc.weights[i] = source.weights[i] * weight;
    return;
  }
  for (std::size_t i = 0; i < n; ++i) {
    acc.translations[i] += source.translations[i] * weight;
    const glm::quat q = source.rotations[i];
    const float sign = glm::dot(q, reference[i]) < 0.0f ? -weight : weight;
    acc.rotations[i] = acc.rotations[i] + q * sign;
    acc.scales[i] += source.scales[i] * weight;
  }
  for (std::size_t i = 0; i < source.weights.size(); ++i) acc.weights[i] += source.weights[i] * weight;
}

void normalize_rotations(const PoseView& pose) noexcept {
  for (glm::quat& q : pose.rotations) {
    const float len = glm::length(q);
    q = len > 0.0f ? q / len : glm::quat(1.0f, 0.0f, 0.0f, 0.0f);
  }
}

}  // namespace gltf_crowd
