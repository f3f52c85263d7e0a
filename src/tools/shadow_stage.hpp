// The tools' shadows (`render --shadows`, the studio's Shadows toggle; docs/spec.md §8): one
// directional shadow map fitted to the crowd and a ground plane under it that receives the
// shadows, drawn around either renderer so that --reference shows the same look.
#pragma once

#include <cstdint>

#include "gltf_crowd/bounds.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/gl_shadows.hpp"

namespace gltf_crowd::tools {

class ShadowStage {
 public:
  // `crowd_bounds`: grid_layout's box (what the actors draw, grown by 5 % on every side). The
  // ground lies at the box's unpadded bottom; the map covers the box and its shadow on the
  // ground for `light_direction`. Needs the context current.
  ShadowStage(const Bounds& crowd_bounds, const glm::vec3& light_direction);

  // The depth pass from the light into the map; returns the draws it issued. Then shaded()
  // gives `camera` with Camera::shadow set. Leaves the map's framebuffer bound: bind the target.
  std::uint32_t cast(CrowdRenderer& renderer, const Crowd& crowd);
  std::uint32_t cast(ReferenceRenderer& renderer, const Crowd& crowd);
  Camera shaded(const Camera& camera) const;

  // The ground into the bound target, after its clear and before the crowd (one draw).
  void draw_ground(const Camera& camera);

 private:
  ShadowMap map_;
  GroundPlane ground_;
  GroundOptions ground_options_;
  Camera light_;
};

}  // namespace gltf_crowd::tools
