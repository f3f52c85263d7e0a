// Checks a crowd's packed instance transforms and palettes against glTF 2.0 §3.7.3 skinning,
// v' = placement × Σ wᵢ · world(jointᵢ) · IBMᵢ · v, with world() walked by the test's own
// scalar code (scalar_pose.hpp) over a pose the test supplies per slot. Header-only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>

#include <glm/glm.hpp>
#include <gtest/gtest.h>

#include "gltf_crowd/crowd.hpp"
#include "scalar_pose.hpp"

namespace gltf_crowd::test {

inline glm::vec3 apply_rows(const glm::vec4* rows, const glm::vec4& p) {
  return {glm::dot(rows[0], p), glm::dot(rows[1], p), glm::dot(rows[2], p)};
}

// For every group and live slot, about 25 vertices of the group's primitive transformed by the
// packed rows against the same vertices skinned with `pose_of(slot)`; relative tolerance 1e-4.
// Returns the number of vertices compared.
inline int expect_packed_skinning(const Crowd& crowd, const std::function<ScalarPose(std::uint32_t)>& pose_of) {
  const Asset& asset = crowd.asset();
  const auto actors = crowd.actors();
  int checked = 0;
  for (std::uint32_t slot = 0; slot < actors.size(); ++slot) {
    const ScalarPose pose = pose_of(slot);
    const glm::mat4& placement = actors[slot].transform();
    for (const PrimitiveGroup& group : crowd.primitive_groups()) {
      const NodeStream& stream = crowd.node_streams()[group.stream];
      const Node& node = asset.nodes[group.node];
      const Primitive& prim = asset.meshes[group.mesh].primitives[group.primitive];
      const glm::vec4* instance = stream.transforms.data() + std::size_t{slot} * 3;
      for (std::size_t v = 0; v < prim.vertex_count(); v += std::max<std::size_t>(1, prim.vertex_count() / 25)) {
        const glm::vec4 p(prim.positions[v], 1.0f);
        glm::vec3 want(0.0f), got(0.0f);
        if (group.palette_kind == PaletteKind::skinned) {
          const Skin& skin = asset.skins[static_cast<std::size_t>(node.skin)];
          glm::vec4 skinned_local(0.0f);
          for (int k = 0; k < 4; ++k) {
            const float w = prim.weights0[v][k];
            const std::uint32_t j = prim.joints0[v][k];
            want += w * glm::vec3(scalar_world(asset, pose, static_cast<std::int32_t>(skin.joints[j]), placement) *
                                  skin.inverse_bind_matrices[j] * p);
            const NodeStream& owner = crowd.node_streams()[stream.palette_stream];  // shared or own
            const glm::vec4* rows = owner.palette.data() + (std::size_t{slot} * stream.joint_count + j) * 3;
            skinned_local += w * glm::vec4(apply_rows(rows, p), 0.0f);
          }
          got = apply_rows(instance, glm::vec4(glm::vec3(skinned_local), 1.0f));
        } else {
          want = glm::vec3(scalar_world(asset, pose, static_cast<std::int32_t>(group.node), placement) * p);
          got = apply_rows(instance, p);
        }
        for (int c = 0; c < 3; ++c) {
          EXPECT_NEAR(got[c], want[c], 1e-4f * std::max(1.0f, std::abs(want[c])))
              << "group node " << group.node << " slot " << slot << " vertex " << v;
          if (std::abs(got[c] - want[c]) > 1e-4f * std::max(1.0f, std::abs(want[c]))) return checked;
        }
        ++checked;
      }
    }
  }
  return checked;
}

}  // namespace gltf_crowd::test
