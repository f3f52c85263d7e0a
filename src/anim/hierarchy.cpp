// Based on: glTF 2.0 §3.5.2–3.5.3 (local TRS = T × R × S; world = parent world × local). Nodes
// come parents first, so one forward loop suffices.
#include "gltf_crowd/pose.hpp"

namespace gltf_crowd {

void compute_world_matrices(const Asset& asset, const PoseView& pose, const glm::mat4& root,
                            std::span<glm::mat4> world) noexcept {
  for (std::uint32_t n : asset.hierarchy_order) {
    const Node& node = asset.nodes[n];
    const glm::mat4 local = node.has_matrix ? node.matrix
                                            : to_mat4(compose_trs(pose.translations[n], pose.rotations[n], pose.scales[n]));
    world[n] = (node.parent >= 0 ? world[static_cast<std::size_t>(node.parent)] : root) * local;
  }
}

}  // namespace gltf_crowd
