#include "crowd/evaluation_plan.hpp"

#include <cstring>

namespace gltf_crowd {
namespace {

std::vector<bool> animated_nodes(const Asset& asset) {
  std::vector<bool> animated(asset.nodes.size(), false);
  for (const Clip& clip : asset.clips)
    for (const Channel& channel : clip.channels)
      if (channel.path != ChannelPath::weights) animated[channel.node] = true;
  return animated;
}

}  // namespace

EvaluationPlan make_evaluation_plan(const Asset& asset, const std::vector<NodeStream>& streams) {
  EvaluationPlan plan;
  std::vector<bool> needed(asset.nodes.size(), false);
  const auto mark_with_ancestors = [&](std::uint32_t n) {
    for (std::int32_t i = static_cast<std::int32_t>(n); i >= 0 && !needed[static_cast<std::size_t>(i)];
         i = asset.nodes[static_cast<std::size_t>(i)].parent)
      needed[static_cast<std::size_t>(i)] = true;
  };
  const std::vector<bool> animated = animated_nodes(asset);
  plan.palette_of_stream.assign(streams.size(), -1);
  for (std::size_t s = 0; s < streams.size(); ++s) {
    const NodeStream& stream = streams[s];
    mark_with_ancestors(stream.node);
    if (stream.joint_count == 0) continue;
    const Skin& skin = asset.skins[static_cast<std::size_t>(asset.nodes[stream.node].skin)];
    PalettePlan p;
    p.stream = static_cast<std::uint32_t>(s);
    p.joints = skin.joints;
    for (std::uint32_t j : skin.joints) mark_with_ancestors(j);
    for (const glm::mat4& ibm : skin.inverse_bind_matrices) p.inverse_binds.push_back(to_affine(ibm));
    p.static_mesh = true;
    glm::mat4 mesh_world(1.0f);
    for (std::int32_t i = static_cast<std::int32_t>(stream.node); i >= 0; i = asset.nodes[static_cast<std::size_t>(i)].parent) {
      const auto n = static_cast<std::size_t>(i);
      if (animated[n]) p.static_mesh = false;
      mesh_world = asset.local_matrix(static_cast<std::uint32_t>(n)) * mesh_world;
    }
    p.mesh_world = to_affine(mesh_world);
    p.identity_mesh = p.static_mesh && mesh_world == glm::mat4(1.0f);
    // A singular static mesh world is treated as "not static": the general path handles it.
    if (p.static_mesh && abs_determinant(p.mesh_world) <= 1e-12f) p.static_mesh = false;
    if (p.static_mesh) p.inverse_mesh_world = inverse(p.mesh_world);
    for (std::size_t q = 0; q < plan.palettes.size() && p.static_mesh; ++q) {
      const PalettePlan& other = plan.palettes[q];
      if (other.static_mesh && other.joints == p.joints &&
          std::memcmp(&other.mesh_world, &p.mesh_world, sizeof(Affine)) == 0 &&
          std::memcmp(other.inverse_binds.data(), p.inverse_binds.data(), p.inverse_binds.size() * sizeof(Affine)) == 0) {
        p.same_as = static_cast<std::int32_t>(other.stream);
        break;
      }
    }
    plan.palette_of_stream[s] = static_cast<std::int32_t>(plan.palettes.size());
    plan.palettes.push_back(std::move(p));
  }
  for (std::uint32_t n : asset.hierarchy_order)
    if (needed[n]) plan.order.push_back(n);
  return plan;
}

}  // namespace gltf_crowd
