// Crowd::update evaluates due actors in batches of eight, their hierarchy and palettes one pose
// per lane (docs/architecture.md "Evaluation"), and must pack exactly what each actor evaluated
// alone packs: the same crowd of 13 actors (a batch of 8, then one of 5) against 13 crowds of
// one actor each (evaluated one by one), with crossfades, an application-driven pose and
// placements, compared float for float.
#include <memory>
#include <string>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

constexpr std::size_t kActors = 13;

ActorOptions options_of(const Asset& asset, std::size_t i) {
  ActorOptions o;
  o.clip = asset.clips[i % asset.clips.size()].name;
  o.phase = 0.071f * static_cast<float>(i);
  o.speed = 0.8f + 0.1f * static_cast<float>(i % 5);
  o.transform = glm::translate(glm::mat4(1.0f), glm::vec3(2.0f * static_cast<float>(i), 0.0f, 0.5f)) *
                glm::rotate(glm::mat4(1.0f), 0.2f * static_cast<float>(i), glm::vec3(0, 1, 0));
  return o;
}

// What every crowd goes through, actor i the same way in both.
void drive(const Asset& asset, std::size_t i, Actor actor) {
  if (i % 3 == 1)
    actor.select_clip(asset.clips[(i + 1) % asset.clips.size()].name, {.crossfade_seconds = 0.5f, .phase = 0.3f});
  if (i == 4) actor.set_local_transform(asset.hierarchy_order.back(), {.translation = {0.1f, 0.2f, 0.3f}}, 0.5f);
}

void expect_batches_pack_as_one_by_one(const std::shared_ptr<const Asset>& asset) {
  Crowd together(asset, {.capacity = kActors});
  std::vector<std::unique_ptr<Crowd>> alone;
  for (std::size_t i = 0; i < kActors; ++i) {
    drive(*asset, i, together.add_actor(options_of(*asset, i)));
    alone.push_back(std::make_unique<Crowd>(asset, CrowdOptions{.capacity = 1}));
    drive(*asset, i, alone[i]->add_actor(options_of(*asset, i)));
  }
  for (int frame = 0; frame < 4; ++frame) {
    together.update(1.0f / 30.0f);
    for (auto& crowd : alone) crowd->update(1.0f / 30.0f);
  }
  const auto streams = together.node_streams();
  for (std::size_t i = 0; i < kActors; ++i) {
    const auto own = alone[i]->node_streams();
    ASSERT_EQ(own.size(), streams.size());
    for (std::size_t d = 0; d < streams.size(); ++d) {
      const NodeStream& a = streams[d];
      const NodeStream& b = own[d];
      for (std::size_t r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c)
          ASSERT_EQ(a.transforms[3 * i + r][c], b.transforms[r][c]) << "actor " << i << ", stream " << d;
      const std::size_t rows = 3 * std::size_t{a.joint_count};
      if (a.palette.empty()) continue;
      for (std::size_t r = 0; r < rows; ++r)
        for (int c = 0; c < 4; ++c)
          ASSERT_EQ(a.palette[rows * i + r][c], b.palette[r][c])
              << "actor " << i << ", stream " << d << ", palette row " << r;
    }
  }
}

TEST(BatchEvaluation, BuiltInCharacterPacksAsOneByOne) {
  expect_batches_pack_as_one_by_one(std::make_shared<const Asset>(load_asset_from_memory(default_character_glb())));
}

TEST(BatchEvaluation, RobotExpressivePacksAsOneByOne) {
  GLTF_CROWD_REQUIRE_ASSETS();
  expect_batches_pack_as_one_by_one(
      std::make_shared<const Asset>(load_asset(test::asset_path("threejs/RobotExpressive.glb"))));
}

TEST(BatchEvaluation, CesiumManPacksAsOneByOne) {
  GLTF_CROWD_REQUIRE_ASSETS();
  expect_batches_pack_as_one_by_one(
      std::make_shared<const Asset>(load_asset(test::asset_path("khronos/CesiumMan.glb"))));
}

}  // namespace
}  // namespace gltf_crowd
