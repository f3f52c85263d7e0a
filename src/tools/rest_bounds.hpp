// Rest-pose bounds of an asset, for laying out and framing actors.
#pragma once

#include <limits>

#include <glm/glm.hpp>

#include "gltf_crowd/asset.hpp"

namespace gltf_crowd::tools {

// An axis-aligned box; empty while min > max.
struct Bounds {
  glm::vec3 min{std::numeric_limits<float>::max()};
  glm::vec3 max{std::numeric_limits<float>::lowest()};

  bool empty() const noexcept { return min.x > max.x; }
  void add(const glm::vec3& p) noexcept {
    min = glm::min(min, p);
    max = glm::max(max, p);
  }
  glm::vec3 center() const noexcept { return (min + max) * 0.5f; }
  glm::vec3 size() const noexcept { return max - min; }
};

// Bounds, in the asset's world space, of every visible mesh primitive reachable from the
// default scene in the rest pose. Rigid primitives contribute their min/max box transformed by
// world(node); skinned ones their vertices skinned with world(joint) · IBM (glTF 2.0 §3.7.3).
// Empty when nothing is drawn.
Bounds rest_pose_bounds(const Asset& asset);

}  // namespace gltf_crowd::tools
