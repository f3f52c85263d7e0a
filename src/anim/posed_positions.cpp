// Based on: glTF 2.0 §3.7.2.2 (morphed position = v + Σ wₜ · Δₜ) and §3.7.3 (skinned position =
// Σ wᵢ · world(jointᵢ) · IBMᵢ · v; the skinned node's own transform is ignored).
#include "anim/posed_positions.hpp"

#include <algorithm>

namespace gltf_crowd::detail {

void append_posed_positions(const Asset& asset, std::uint32_t node, const Primitive& primitive,
                            std::span<const glm::mat4> world, std::span<const float> weights,
                            std::vector<glm::vec3>& out) {
  const std::size_t first = out.size();
  out.insert(out.end(), primitive.positions.begin(), primitive.positions.end());
  const std::span<glm::vec3> points(out.data() + first, primitive.vertex_count());

  const std::uint32_t targets =
      std::min<std::uint32_t>(asset.weight_counts[node], static_cast<std::uint32_t>(primitive.targets.size()));
  for (std::uint32_t t = 0; t < targets; ++t) {
    const float w = weights[asset.weight_offsets[node] + t];
    const std::vector<glm::vec3>& deltas = primitive.targets[t].positions;
    if (w == 0.0f || deltas.empty()) continue;
    for (std::size_t v = 0; v < points.size(); ++v) points[v] += w * deltas[v];
  }

  const Node& n = asset.nodes[node];
  if (n.skin < 0 || primitive.joints0.empty() || primitive.weights0.empty()) {
    for (glm::vec3& p : points) p = glm::vec3(world[node] * glm::vec4(p, 1.0f));
    return;
  }
  const Skin& skin = asset.skins[static_cast<std::size_t>(n.skin)];
  std::vector<glm::mat4> joints(skin.joints.size());
  for (std::size_t j = 0; j < joints.size(); ++j) joints[j] = world[skin.joints[j]] * skin.inverse_bind_matrices[j];
  const bool eight = !primitive.joints1.empty() && !primitive.weights1.empty();
  for (std::size_t v = 0; v < points.size(); ++v) {
    const glm::vec4 p(points[v], 1.0f);
    glm::vec3 skinned(0.0f);
    const auto add = [&](const glm::u16vec4& influences, const glm::vec4& w) {
      for (int k = 0; k < 4; ++k)
        if (w[k] != 0.0f) skinned += w[k] * glm::vec3(joints[influences[k]] * p);
    };
    add(primitive.joints0[v], primitive.weights0[v]);
    if (eight) add(primitive.joints1[v], primitive.weights1[v]);
    points[v] = skinned;
  }
}

}  // namespace gltf_crowd::detail
