// The packed instance transform and palette skin a vertex exactly as glTF 2.0 §3.7.3 says:
// v' = Σ wᵢ · world(jointᵢ) · IBMᵢ · v, with the pose sampled and world() recomputed by the test's
// own scalar code (scalar_pose.hpp), not by the library's sampling or hierarchy.
#include <functional>
#include <memory>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include "gltf_crowd/crowd.hpp"
#include "scalar_pose.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

glm::vec3 apply_rows(const glm::vec4* rows, const glm::vec4& p) {
  return {glm::dot(rows[0], p), glm::dot(rows[1], p), glm::dot(rows[2], p)};
}

void check_packed_skinning(const std::string& file) {
  auto asset = std::make_shared<const Asset>(load_asset(test::asset_path(file)));
  Crowd crowd(asset, {.capacity = 8});
  std::vector<ActorOptions> options;
  for (int i = 0; i < 5; ++i) {
    ActorOptions o;
    o.clip = asset->clips[static_cast<std::size_t>(i) % asset->clips.size()].name;
    o.phase = 0.17f * static_cast<float>(i);
    o.speed = 0.7f + 0.2f * static_cast<float>(i);
    o.transform =
        glm::translate(glm::mat4(1.0f), glm::vec3(2.0f * static_cast<float>(i), 0.0f, -1.0f * static_cast<float>(i))) *
        glm::rotate(glm::mat4(1.0f), 0.3f * static_cast<float>(i), glm::vec3(0, 1, 0));
    options.push_back(o);
  }
  crowd.add_actors(options);
  for (int f = 0; f < 7; ++f) crowd.update(1.0f / 30.0f);
  const auto actors = crowd.actors();
  int checked = 0;
  for (const PrimitiveGroup& group : crowd.primitive_groups()) {
    const NodeStream& stream = crowd.node_streams()[group.stream];
    const Node& node = asset->nodes[group.node];
    const Primitive& prim = asset->meshes[group.mesh].primitives[group.primitive];
    for (std::uint32_t slot = 0; slot < actors.size(); ++slot) {
      // The test's own pose: rest + the active clip sampled at the actor's time (scalar_pose.hpp).
      const int clip = asset->find_clip(actors[slot].active_clip());
      const test::ScalarPose pose =
          test::scalar_clip_pose(*asset, asset->clips[static_cast<std::size_t>(clip)], actors[slot].time());
      const auto world_of = [&](std::int32_t n, const glm::mat4& root) {
        return test::scalar_world(*asset, pose, n, root);
      };
      const glm::mat4& placement = options[slot].transform;
      const glm::vec4* instance = stream.transforms.data() + slot * 3;
      for (std::size_t v = 0; v < prim.vertex_count(); v += std::max<std::size_t>(1, prim.vertex_count() / 25)) {
        const glm::vec4 p(prim.positions[v], 1.0f);
        glm::vec3 want(0.0f), got(0.0f);
        if (group.palette_kind == PaletteKind::skinned) {
          const Skin& skin = asset->skins[static_cast<std::size_t>(node.skin)];
          glm::vec4 skinned_local(0.0f);
          for (int k = 0; k < 4; ++k) {
            const float w = prim.weights0[v][k];
            const std::uint32_t j = prim.joints0[v][k];
            want += w * glm::vec3(world_of(static_cast<std::int32_t>(skin.joints[j]), placement) *
                                  skin.inverse_bind_matrices[j] * p);
            const NodeStream& owner = crowd.node_streams()[stream.palette_stream];  // shared or own
            const glm::vec4* rows = owner.palette.data() + (std::size_t{slot} * stream.joint_count + j) * 3;
            skinned_local += w * glm::vec4(apply_rows(rows, p), 0.0f);
          }
          got = apply_rows(instance, glm::vec4(glm::vec3(skinned_local), 1.0f));
        } else {
          want = glm::vec3(world_of(static_cast<std::int32_t>(group.node), placement) * p);
          got = apply_rows(instance, p);
        }
        for (int c = 0; c < 3; ++c)
          ASSERT_NEAR(got[c], want[c], 1e-4f * std::max(1.0f, std::abs(want[c])))
              << file << " group node " << group.node << " slot " << slot << " vertex " << v;
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 50);
}

TEST(PackingTest, SimpleSkinPaletteMatchesSpecSkinning) {
  GLTF_CROWD_REQUIRE_ASSETS();
  check_packed_skinning("lumagl/SimpleSkin.gltf");
}

TEST(PackingTest, CesiumManPaletteMatchesSpecSkinning) {
  GLTF_CROWD_REQUIRE_ASSETS();
  check_packed_skinning("khronos/CesiumMan.glb");
}

TEST(PackingTest, RobotExpressiveSkinnedAndRigidMatchSpec) {
  GLTF_CROWD_REQUIRE_ASSETS();
  check_packed_skinning("threejs/RobotExpressive.glb");
}

TEST(PackingTest, PlacementIsTheInstanceTranslationOfARootMesh) {
  GLTF_CROWD_REQUIRE_ASSETS();
  auto asset = std::make_shared<const Asset>(load_asset(test::asset_path("lumagl/SimpleSkin.gltf")));
  Crowd crowd(asset);
  ActorOptions a, b;
  a.id = "left";
  a.transform = glm::translate(glm::mat4(1.0f), glm::vec3(-3.0f, 1.0f, 2.0f));
  b.id = "right";
  b.transform = glm::translate(glm::mat4(1.0f), glm::vec3(4.0f, 0.0f, 0.0f));
  crowd.add_actors(std::vector{a, b});
  ASSERT_EQ(crowd.primitive_groups().size(), 1u);
  EXPECT_EQ(crowd.primitive_groups()[0].instance_count, 2u);
  const NodeStream& s = crowd.node_streams()[0];
  // SimpleSkin's mesh node is a root with identity transform: the translation column is placement.
  EXPECT_FLOAT_EQ(s.transforms[0].w, -3.0f);
  EXPECT_FLOAT_EQ(s.transforms[1].w, 1.0f);
  EXPECT_FLOAT_EQ(s.transforms[2].w, 2.0f);
  EXPECT_FLOAT_EQ(s.transforms[3].w, 4.0f);
}

}  // namespace
}  // namespace gltf_crowd
