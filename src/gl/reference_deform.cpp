// Based on: glTF 2.0 §3.7.2.2 (morph targets: weighted sums of attribute deltas), §3.7.3
// (skinning: Σ wᵢ · world(jointᵢ) · IBMᵢ · v; the mesh node's own transform is ignored), and the
// rule that normals transform by the inverse transpose (here the cofactor matrix, which is
// det · inverse-transpose and stays defined for singular matrices).
#include "gl/reference_deform.hpp"

#include <algorithm>
#include <cmath>

namespace gltf_crowd::gl {
namespace {

glm::vec3 safe_normalize(const glm::vec3& v) {
  const float length2 = glm::dot(v, v);
  return length2 > 0.0f ? v / std::sqrt(length2) : glm::vec3(0.0f, 0.0f, 1.0f);
}

}  // namespace

bool DeformJob::validate() const noexcept {
  if (primitive == nullptr) return false;
  const std::size_t n = primitive->vertex_count();
  if (normals.size() != n || out.size() != n) return false;
  if (joint_matrices.empty()) return true;
  if (primitive->joints0.size() != n || primitive->weights0.size() != n) return false;
  const bool eight = !primitive->joints1.empty();
  if (eight && (primitive->joints1.size() != n || primitive->weights1.size() != n)) return false;
  for (std::size_t v = 0; v < n; ++v) {
    for (int k = 0; k < 4; ++k) {
      if (primitive->joints0[v][k] >= joint_matrices.size()) return false;
      if (eight && primitive->joints1[v][k] >= joint_matrices.size()) return false;
    }
  }
  return true;
}

bool DeformJob::run() const noexcept {
  if (!validate()) return false;
  const Primitive& prim = *primitive;
  const std::size_t n = prim.vertex_count();
  const std::size_t targets = std::min(weights.size(), prim.targets.size());
  const bool skinned = !joint_matrices.empty();
  const bool eight = skinned && !prim.joints1.empty();
  for (std::size_t v = 0; v < n; ++v) {
    glm::vec3 position = prim.positions[v];
    glm::vec3 normal = normals[v];
    glm::vec4 tangent = prim.tangents.empty() ? glm::vec4(1.0f, 0.0f, 0.0f, 1.0f) : prim.tangents[v];
    for (std::size_t t = 0; t < targets; ++t) {
      const float w = weights[t];
      if (w == 0.0f) continue;
      const MorphTarget& target = prim.targets[t];
      if (!target.positions.empty()) position += w * target.positions[v];
      if (!target.normals.empty()) normal += w * target.normals[v];
      if (!target.tangents.empty()) tangent += glm::vec4(w * target.tangents[v], 0.0f);
    }
    glm::mat4 m = world;
    if (skinned) {
      m = glm::mat4(0.0f);
      for (int k = 0; k < 4; ++k) {
        m += prim.weights0[v][k] * joint_matrices[prim.joints0[v][k]];
        if (eight) m += prim.weights1[v][k] * joint_matrices[prim.joints1[v][k]];
      }
    }
    const glm::mat3 linear(m);
    const float det = glm::determinant(linear);
    const float sign = det < 0.0f ? -1.0f : 1.0f;
    // cofactor(A) = det(A) · inverse(A)ᵀ; columns are cross products of A's columns.
    const glm::mat3 cofactor(glm::cross(linear[1], linear[2]), glm::cross(linear[2], linear[0]),
                             glm::cross(linear[0], linear[1]));
    out[v].position = glm::vec3(m * glm::vec4(position, 1.0f));
    out[v].normal = safe_normalize(sign * (cofactor * normal));
    out[v].tangent = glm::vec4(linear * glm::vec3(tangent), tangent.w * sign);
  }
  return true;
}

}  // namespace gltf_crowd::gl
