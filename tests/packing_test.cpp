// The packed instance transform and palette skin a vertex exactly as glTF 2.0 §3.7.3 says:
// v' = Σ wᵢ · world(jointᵢ) · IBMᵢ · v, with the pose sampled and world() recomputed by the test's
// own scalar code (scalar_pose.hpp), not by the library's sampling or hierarchy.
#include <memory>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include "gltf_crowd/crowd.hpp"
#include "packed_skinning.hpp"
#include "scalar_pose.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

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
  // The test's own pose: rest + the active clip sampled at the actor's time (scalar_pose.hpp).
  const int checked = test::expect_packed_skinning(crowd, [&](std::uint32_t slot) {
    const int clip = asset->find_clip(actors[slot].active_clip());
    return test::scalar_clip_pose(*asset, asset->clips[static_cast<std::size_t>(clip)], actors[slot].time());
  });
  EXPECT_GE(checked, 50) << file;
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
