// The one blend of a local TRS towards a target TRS at weight w in (0, 1] (docs/spec.md §3.8,
// §3.11): application-driven poses and override layers both use it.
#pragma once

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

namespace gltf_crowd {

// Translation and scale: (1 − w)·from + w·to; rotation: the crossfade's blend (docs/spec.md §3.6),
// normalize((1 − w)·from + w·±to) with the sign making the two point the same way. w >= 1 gives
// the target exactly, whatever the signs.
inline void blend_towards(glm::vec3& t, glm::quat& r, glm::vec3& s, const glm::vec3& to_t, const glm::quat& to_r,
                          const glm::vec3& to_s, float w) noexcept {
  if (w >= 1.0f) {
    t = to_t;
    r = to_r;
    s = to_s;
    return;
  }
  t = t * (1.0f - w) + to_t * w;
  s = s * (1.0f - w) + to_s * w;
  const float sign = glm::dot(r, to_r) < 0.0f ? -1.0f : 1.0f;
  const glm::quat sum = r * (1.0f - w) + to_r * (sign * w);
  const float length = glm::length(sum);
  r = length > 0.0f ? sum / length : to_r;
}

}  // namespace gltf_crowd
