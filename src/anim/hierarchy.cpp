// Based on: glTF 2.0 §3.5.2–3.5.3 (local TRS = T × R × S; world = parent world × local) and §3.7.3
// (joint matrices). Nodes come parents first, so one forward loop suffices; transforms stay in
// the 3×4 row layout the GPU reads, so palettes are written without conversion.
#include <cstring>

#include "anim/kernels.hpp"
#include "gltf_crowd/pose.hpp"

namespace gltf_crowd {

void compute_world_transforms(const Asset& asset, const PoseView& pose, const Affine& root,
                              std::span<const std::uint32_t> order, std::span<Affine> world) noexcept {
  for (std::uint32_t n : order) {
    const Node& node = asset.nodes[n];
    const Affine local = node.has_matrix ? to_affine(node.matrix)
                                         : compose_trs(pose.translations[n], pose.rotations[n], pose.scales[n]);
    world[n] = (node.parent >= 0 ? world[static_cast<std::size_t>(node.parent)] : root) * local;
  }
}

void compute_world_matrices(const Asset& asset, const PoseView& pose, const glm::mat4& root,
                            std::span<glm::mat4> world) noexcept {
  for (std::uint32_t n : asset.hierarchy_order) {
    const Node& node = asset.nodes[n];
    const glm::mat4 local = node.has_matrix ? node.matrix
                                            : to_mat4(compose_trs(pose.translations[n], pose.rotations[n], pose.scales[n]));
    world[n] = (node.parent >= 0 ? world[static_cast<std::size_t>(node.parent)] : root) * local;
  }
}

void write_palette(std::span<const std::uint32_t> joints, std::span<const Affine> inverse_binds,
                   std::span<const Affine> world, const Affine* inverse_mesh_world, glm::vec4* rows) noexcept {
  affine_kernels().palette(joints, inverse_binds, world, inverse_mesh_world, rows);
}

}  // namespace gltf_crowd
