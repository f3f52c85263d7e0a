#include "tools/shadow_stage.hpp"

#include <algorithm>
#include <cmath>

namespace gltf_crowd::tools {
namespace {

// grid_layout grows the actors' box by 5 % of its size on every side: the feet are that far up.
float ground_height(const Bounds& padded) { return padded.min.y + (padded.max.y - padded.min.y) * (0.05f / 1.1f); }

// The crowd's box with its shadow on the ground plane: each corner projected along the light
// onto y = ground (a light parallel to the ground casts no shadow there to fit).
Bounds with_shadow(const Bounds& box, const glm::vec3& light, float ground) {
  Bounds all = box;
  if (!(light.y < -1e-3f)) return all;
  for (int corner = 0; corner < 8; ++corner) {
    const glm::vec3 p(corner & 1 ? box.max.x : box.min.x, corner & 2 ? box.max.y : box.min.y,
                      corner & 4 ? box.max.z : box.min.z);
    all.add(p + light * ((p.y - ground) / -light.y));
  }
  return all;
}

}  // namespace

ShadowStage::ShadowStage(const Bounds& crowd_bounds, const glm::vec3& light_direction) {
  const float ground = ground_height(crowd_bounds);
  Bounds box = with_shadow(crowd_bounds, light_direction, ground);
  box.min.y = std::min(box.min.y, ground);
  light_ = map_.fit(light_direction, box.min, box.max);
  // Wide enough to reach the horizon of the tools' framings (25° above, the crowd filling the view).
  const glm::vec3 size = box.max - box.min;
  ground_options_.center = glm::vec3(0.5f * (box.min.x + box.max.x), ground, 0.5f * (box.min.z + box.max.z));
  ground_options_.half_extent = 2.0f * std::max({size.x, size.z, size.y, 1e-3f});
}

std::uint32_t ShadowStage::cast(CrowdRenderer& renderer, const Crowd& crowd) {
  map_.begin();
  const std::uint32_t draws = renderer.draw_depth(crowd, light_);
  map_.end();
  return draws;
}

std::uint32_t ShadowStage::cast(ReferenceRenderer& renderer, const Crowd& crowd) {
  map_.begin();
  const std::uint32_t draws = renderer.draw_depth(crowd, light_);
  map_.end();
  return draws;
}

Camera ShadowStage::shaded(const Camera& camera) const {
  Camera lit = camera;
  lit.shadow = map_.sampling();
  return lit;
}

void ShadowStage::draw_ground(const Camera& camera) { ground_.draw(camera, ground_options_); }

}  // namespace gltf_crowd::tools
