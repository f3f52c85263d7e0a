#include "tools/rest_bounds.hpp"

#include <cstdint>
#include <vector>

namespace gltf_crowd::tools {
namespace {

void add_rigid(Bounds& bounds, const glm::mat4& world, const Primitive& primitive) {
  if (primitive.positions.empty()) return;
  for (int corner = 0; corner < 8; ++corner) {
    glm::vec3 p((corner & 1) ? primitive.max.x : primitive.min.x,
                (corner & 2) ? primitive.max.y : primitive.min.y,
                (corner & 4) ? primitive.max.z : primitive.min.z);
    bounds.add(glm::vec3(world * glm::vec4(p, 1.0f)));
  }
}

void add_skinned(Bounds& bounds, const std::vector<glm::mat4>& joint_matrices,
                 const Primitive& primitive) {
  const bool eight = !primitive.joints1.empty() && !primitive.weights1.empty();
  for (std::size_t v = 0; v < primitive.vertex_count(); ++v) {
    glm::mat4 skin(0.0f);
    for (int k = 0; k < 4; ++k) {
      skin += primitive.weights0[v][k] * joint_matrices[primitive.joints0[v][k]];
      if (eight) skin += primitive.weights1[v][k] * joint_matrices[primitive.joints1[v][k]];
    }
    bounds.add(glm::vec3(skin * glm::vec4(primitive.positions[v], 1.0f)));
  }
}

}  // namespace

Bounds rest_pose_bounds(const Asset& asset) {
  std::vector<glm::mat4> world(asset.nodes.size(), glm::mat4(1.0f));
  for (std::uint32_t n : asset.hierarchy_order) {
    const int parent = asset.nodes[n].parent;
    world[n] = parent >= 0 ? world[static_cast<std::size_t>(parent)] * asset.local_matrix(n)
                           : asset.local_matrix(n);
  }

  Bounds bounds;
  std::vector<std::uint32_t> pending(asset.scene_roots.rbegin(), asset.scene_roots.rend());
  std::vector<glm::mat4> joint_matrices;
  while (!pending.empty()) {
    const std::uint32_t n = pending.back();
    pending.pop_back();
    const Node& node = asset.nodes[n];
    if (!node.visible) continue;  // KHR_node_visibility hides the whole subtree
    pending.insert(pending.end(), node.children.rbegin(), node.children.rend());
    if (node.mesh < 0) continue;
    const Mesh& mesh = asset.meshes[static_cast<std::size_t>(node.mesh)];
    const Skin* skin = node.skin >= 0 ? &asset.skins[static_cast<std::size_t>(node.skin)] : nullptr;
    if (skin != nullptr) {
      joint_matrices.resize(skin->joints.size());
      for (std::size_t j = 0; j < skin->joints.size(); ++j) {
        joint_matrices[j] = world[skin->joints[j]] * skin->inverse_bind_matrices[j];
      }
    }
    for (const Primitive& primitive : mesh.primitives) {
      if (skin != nullptr && !primitive.joints0.empty() && !primitive.weights0.empty()) {
        add_skinned(bounds, joint_matrices, primitive);
      } else {
        add_rigid(bounds, world[n], primitive);
      }
    }
  }
  return bounds;
}

}  // namespace gltf_crowd::tools
