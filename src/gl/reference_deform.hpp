// CPU morphing and skinning of one primitive for one actor: the reference path's replacement
// for the crowd vertex shader, written from the glTF specification rather than from the
// shader, so that the two can check each other.
#pragma once

#include <span>

#include <glm/glm.hpp>

#include "gltf_crowd/asset.hpp"

namespace gltf_crowd::gl {

// One deformed vertex in world space, as the reference vertex shader reads it (40 bytes).
struct DeformedVertex {
  glm::vec3 position;
  glm::vec3 normal;   // unit length
  glm::vec4 tangent;  // xyz direction, w handedness (negated under a mirroring transform)
};

// Morphs, then skins or rigidly transforms, every vertex of `primitive` (glTF 2.0 §3.7.2.2,
// §3.7.3):
//   p = position + Σₜ weightₜ · Δpositionₜ (likewise normal and tangent xyz),
//   M = Σᵢ wᵢ · joint_matrices[jointᵢ] over the (up to 8) influences, or `world` when
//       `joint_matrices` is empty,
//   out = (M · p, normalize(cofactor(M) · n · sign det M), (M · t, w · sign det M)).
struct DeformJob {
  const Primitive* primitive = nullptr;       // borrowed
  std::span<const glm::vec3> normals;         // vertex_count(): the primitive's or generated
  std::span<const float> weights;             // morph weights; extra or missing ones count 0
  std::span<const glm::mat4> joint_matrices;  // world(jointᵢ) · IBMᵢ per skin joint; or empty
  glm::mat4 world{1.0f};                      // rigid transform when joint_matrices is empty
  std::span<DeformedVertex> out;              // vertex_count() entries

  // False, and nothing written, when the primitive is null or a span has the wrong size or a
  // joint index is out of range.
  [[nodiscard]] bool validate() const noexcept;
  // validate(), then deform; never allocates.
  bool run() const noexcept;
};

}  // namespace gltf_crowd::gl
