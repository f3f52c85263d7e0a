// Based on: glTF 2.0 §3.5.2–3.5.3 (local TRS = T × R × S; world = parent world × local) and §3.7.3
// (joint matrices). Nodes are visited in Asset::hierarchy_order, parents first, so one forward
// loop suffices.
#include <glm/gtc/matrix_transform.hpp>

#include "gltf_crowd/pose.hpp"

namespace gltf_crowd {

void compute_world_matrices(const Asset& asset, const PoseView& pose, const glm::mat4& root,
                            std::span<glm::mat4> world) noexcept {
  for (std::uint32_t n : asset.hierarchy_order) {
    const Node& node = asset.nodes[n];
    glm::mat4 local;
    if (node.has_matrix) {
      local = node.matrix;
    } else {
      local = glm::mat4_cast(pose.rotations[n]);
      const glm::vec3 s = pose.scales[n];
      local[0] *= s.x;
      local[1] *= s.y;
      local[2] *= s.z;
      local[3] = glm::vec4(pose.translations[n], 1.0f);
    }
    world[n] = (node.parent >= 0 ? world[static_cast<std::size_t>(node.parent)] : root) * local;
  }
}

void write_palette(const Skin& skin, std::span<const glm::mat4> world, const glm::mat4& inverse_mesh_world,
                   glm::vec4* rows) noexcept {
  for (std::size_t j = 0; j < skin.joints.size(); ++j)
    write_affine_rows(inverse_mesh_world * world[skin.joints[j]] * skin.inverse_bind_matrices[j], rows + 3 * j);
}

}  // namespace gltf_crowd
