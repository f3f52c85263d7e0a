// Screen coverage and frustum culling of one actor (docs/spec.md §7).
// Based on: docs/spec.md §7 "Coverage"; Gribb & Hartmann, "Fast Extraction of Viewing Frustum Planes
// from the World-View-Projection Matrix" (2001).
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "asset/checks.hpp"
#include "gltf_crowd/error.hpp"
#include "gltf_crowd/lod.hpp"

namespace gltf_crowd {
namespace {

glm::vec4 row(const glm::mat4& m, int r) noexcept { return {m[0][r], m[1][r], m[2][r], m[3][r]}; }

}  // namespace

void validate_lod_view(const LodView& view, std::string_view where) {
  // Called every frame: the paths are built only for an error.
  if (!detail::is_finite(view.view)) detail::check_finite(view.view, fmt::format("{}.view", where));
  if (!detail::is_finite(view.projection)) detail::check_finite(view.projection, fmt::format("{}.projection", where));
  // Without a y scale (or any inverse) coverage and the frustum planes mean nothing.
  if (view.projection[1][1] == 0.0f || !(std::abs(glm::determinant(view.projection)) > 0.0f))
    throw Error(fmt::format("{}.projection", where), Rule::singular_projection, "the projection matrix is singular");
  if (view.width == 0)
    throw Error(fmt::format("{}.width", where), Rule::viewport_size, "the viewport width must be > 0");
  if (view.height == 0)
    throw Error(fmt::format("{}.height", where), Rule::viewport_size, "the viewport height must be > 0");
}

float max_axis_scale(const glm::mat4& placement) noexcept {
  return std::sqrt(std::max({glm::dot(glm::vec3(placement[0]), glm::vec3(placement[0])),
                             glm::dot(glm::vec3(placement[1]), glm::vec3(placement[1])),
                             glm::dot(glm::vec3(placement[2]), glm::vec3(placement[2]))}));
}

float lod_coverage(const Sphere& rest_sphere, const glm::mat4& placement, const LodView& view, float bias) noexcept {
  const glm::vec4 center = placement * glm::vec4(rest_sphere.center, 1.0f);
  const float w_clip = (view.projection * (view.view * center)).w;
  if (!(w_clip > 0.0f)) return std::numeric_limits<float>::infinity();
  const float width = static_cast<float>(view.width), height = static_cast<float>(view.height);
  return rest_sphere.radius * max_axis_scale(placement) * std::abs(view.projection[1][1]) / w_clip *
         (height / std::min(width, height)) * bias;
}

std::array<glm::vec4, 6> frustum_planes(const LodView& view) noexcept {
  const glm::mat4 m = view.projection * view.view;
  const glm::vec4 r0 = row(m, 0), r1 = row(m, 1), r2 = row(m, 2), r3 = row(m, 3);
  std::array<glm::vec4, 6> planes{r3 + r0, r3 - r0, r3 + r1, r3 - r1, r3 + r2, r3 - r2};
  for (glm::vec4& p : planes) {
    const float length = glm::length(glm::vec3(p));
    if (length > 0.0f) p /= length;
  }
  return planes;
}

bool outside_frustum(std::span<const glm::vec4, 6> planes, const Sphere& sphere) noexcept {
  for (const glm::vec4& p : planes)
    if (glm::dot(glm::vec3(p), sphere.center) + p.w < -sphere.radius) return true;
  return false;
}

}  // namespace gltf_crowd
