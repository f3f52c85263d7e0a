// Crowd::update evaluates due actors in batches of eight, their hierarchy and palettes one pose
// per lane (docs/architecture.md "Evaluation"), and must pack exactly what each actor evaluated
// alone packs: a crowd of 13 actors (a batch of 8, then one of 5, on the caller's thread) and one
// of 70 (chunks of 32 over the worker threads) against as many crowds of one actor each
// (evaluated one by one), with crossfades, an application-driven pose and placements: instance
// transforms, palettes and morph weights compared bit for bit.
#include <cstring>
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

bool same_bits(const float* a, const float* b, std::size_t count) { return std::memcmp(a, b, 4 * count) == 0; }

void expect_batches_pack_as_one_by_one(const std::shared_ptr<const Asset>& asset, std::size_t actors) {
  SCOPED_TRACE(::testing::Message() << actors << " actors");
  Crowd together(asset, {.capacity = actors});
  std::vector<std::unique_ptr<Crowd>> alone;
  for (std::size_t i = 0; i < actors; ++i) {
    drive(*asset, i, together.add_actor(options_of(*asset, i)));
    alone.push_back(std::make_unique<Crowd>(asset, CrowdOptions{.capacity = 1}));
    drive(*asset, i, alone[i]->add_actor(options_of(*asset, i)));
  }
  for (int frame = 0; frame < 4; ++frame) {
    together.update(1.0f / 30.0f);
    for (auto& crowd : alone) crowd->update(1.0f / 30.0f);
  }
  const auto streams = together.node_streams();
  for (std::size_t i = 0; i < actors; ++i) {
    const auto own = alone[i]->node_streams();
    ASSERT_EQ(own.size(), streams.size());
    for (std::size_t d = 0; d < streams.size(); ++d) {
      const NodeStream& a = streams[d];
      const NodeStream& b = own[d];
      ASSERT_TRUE(same_bits(&a.transforms[3 * i].x, &b.transforms[0].x, 12)) << "actor " << i << ", stream " << d;
      const std::size_t rows = 3 * std::size_t{a.joint_count};
      if (!a.palette.empty()) {
        ASSERT_TRUE(same_bits(&a.palette[rows * i].x, &b.palette[0].x, 4 * rows)) << "actor " << i << ", stream " << d;
      }
      if (a.weight_stride > 0) {
        ASSERT_TRUE(same_bits(&a.weights[a.weight_stride * i], &b.weights[0], a.weight_stride))
            << "actor " << i << ", stream " << d;
      }
    }
  }
}

TEST(BatchEvaluation, BuiltInCharacterPacksAsOneByOne) {
  const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  for (std::size_t actors : {13, 70}) expect_batches_pack_as_one_by_one(asset, actors);
}

TEST(BatchEvaluation, RobotExpressivePacksAsOneByOne) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto asset = std::make_shared<const Asset>(load_asset(test::asset_path("threejs/RobotExpressive.glb")));
  for (std::size_t actors : {13, 70}) expect_batches_pack_as_one_by_one(asset, actors);
}

TEST(BatchEvaluation, CesiumManPacksAsOneByOne) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto asset = std::make_shared<const Asset>(load_asset(test::asset_path("khronos/CesiumMan.glb")));
  for (std::size_t actors : {13, 70}) expect_batches_pack_as_one_by_one(asset, actors);
}

}  // namespace
}  // namespace gltf_crowd
