// Actor visibility (docs/spec.md §5.10): a hidden actor keeps its slot and playback, is in no
// group's instances, is not evaluated, and is current at once when shown again.
#include <algorithm>
#include <memory>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

std::shared_ptr<const Asset> character() {
  static const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  return asset;
}

// Three walkers side by side.
std::vector<Actor> add_three(Crowd& crowd) {
  std::vector<ActorOptions> options(3);
  for (std::size_t i = 0; i < 3; ++i) {
    options[i].id = "a" + std::to_string(i);
    options[i].clip = "Walking";
    options[i].phase = 0.2f * float(i);
    options[i].transform = glm::translate(glm::mat4(1.0f), glm::vec3(float(i) * 2.0f, 0.0f, 0.0f));
  }
  return crowd.add_actors(options);
}

bool drawn(const Crowd& crowd, std::uint32_t slot) {
  bool any = false;
  for (const PrimitiveGroup& g : crowd.primitive_groups()) {
    const bool in = std::find(g.instances.begin(), g.instances.end(), slot) != g.instances.end();
    EXPECT_EQ(g.instance_count, g.instances.size());
    any = any || in;
  }
  return any;
}

// The slot's rows in every stream (transforms, palettes, weights).
std::vector<float> rows(const Crowd& crowd, std::uint32_t slot) {
  std::vector<float> out;
  for (const NodeStream& s : crowd.node_streams()) {
    for (std::size_t r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) out.push_back(s.transforms[slot * 3 + r][c]);
    const std::size_t pj = std::size_t{s.joint_count} * 3;
    for (std::size_t r = 0; r < pj && !s.palette.empty(); ++r)
      for (int c = 0; c < 4; ++c) out.push_back(s.palette[slot * pj + r][c]);
    for (std::size_t w = 0; w < s.weight_stride; ++w) out.push_back(s.weights[slot * s.weight_stride + w]);
  }
  return out;
}

TEST(Visibility, HiddenActorDrawsNothingAndKeepsPlaying) {
  Crowd crowd(character(), {.capacity = 4});
  std::vector<Actor> actors = add_three(crowd);
  EXPECT_TRUE(actors[1].visible());
  actors[1].set_visible(false);
  EXPECT_FALSE(actors[1].visible());
  EXPECT_FALSE(drawn(crowd, 1)) << "in no group at once";
  EXPECT_TRUE(drawn(crowd, 0));
  EXPECT_TRUE(drawn(crowd, 2));
  const float before = actors[1].time();
  crowd.update(0.1f);
  EXPECT_FALSE(drawn(crowd, 1));
  EXPECT_NEAR(actors[1].time(), before + 0.1f, 1e-5f) << "its clock still advances";
  EXPECT_EQ(crowd.frame_stats().hidden_actors, 1u);
  EXPECT_EQ(crowd.frame_stats().actors_evaluated, 2u) << "not evaluated while hidden";
  EXPECT_EQ(crowd.lod_stats().visible_actors, 2u);
  EXPECT_EQ(crowd.lod_stats().culled_actors, 0u) << "hidden is not culled";
  // Controls still work on it.
  actors[1].select_clip("Running", {.crossfade_seconds = 0.5f});
  crowd.update(0.1f);
  EXPECT_EQ(actors[1].contributors().size(), 2u);
  actors[1].set_visible(false);  // idempotent
  EXPECT_EQ(crowd.frame_stats().hidden_actors, 1u);
  actors[1].set_visible(true);
  EXPECT_TRUE(drawn(crowd, 1));
  crowd.update(0.1f);
  EXPECT_EQ(crowd.frame_stats().hidden_actors, 0u);
  EXPECT_EQ(crowd.frame_stats().actors_evaluated, 3u);
}

// Shown again, its rows are those of an actor that was never hidden, before any update.
TEST(Visibility, ShownActorIsCurrentAtOnce) {
  for (Animation animation : {Animation::cpu, Animation::gpu}) {
    Crowd hidden(character(), {.capacity = 4, .animation = animation});
    Crowd shown(character(), {.capacity = 4, .animation = animation});
    std::vector<Actor> a = add_three(hidden);
    add_three(shown);
    a[1].set_visible(false);
    for (int f = 0; f < 5; ++f) {
      hidden.update(0.07f);
      shown.update(0.07f);
    }
    const std::uint64_t generation = hidden.slot_generations()[1];
    a[1].set_visible(true);
    EXPECT_GT(hidden.slot_generations()[1], generation) << "re-evaluated";
    if (animation == Animation::cpu) {
      EXPECT_EQ(rows(hidden, 1), rows(shown, 1));
    } else {
      const PlaybackRecord &x = hidden.playback_records()[1], &y = shown.playback_records()[1];
      EXPECT_EQ(x.count, y.count);
      EXPECT_EQ(x.seconds[0], y.seconds[0]);
      EXPECT_EQ(x.weights[0], y.weights[0]);
    }
  }
}

TEST(Visibility, RemovalAndLodKeepTheCountsRight) {
  CrowdOptions options{.capacity = 4};
  options.lod.enabled = true;
  options.lod.auto_generate = true;
  Crowd crowd(character(), options);
  std::vector<Actor> actors = add_three(crowd);
  actors[2].set_visible(false);
  const LodView view{glm::lookAt(glm::vec3(2, 1, 8), glm::vec3(2, 1, 0), glm::vec3(0, 1, 0)),
                     glm::perspective(glm::radians(60.0f), 1.0f, 0.1f, 100.0f), 512, 512};
  crowd.update(0.1f, view);
  EXPECT_FALSE(drawn(crowd, 2));
  EXPECT_EQ(crowd.lod_stats().visible_actors, 2u);
  EXPECT_EQ(crowd.lod_stats().culled_actors, 0u);
  EXPECT_EQ(crowd.frame_stats().hidden_actors, 1u);
  // Removing a visible actor moves the hidden one into its slot, still hidden.
  crowd.remove_actor("a0");
  EXPECT_FALSE(crowd.find_actor("a2")->visible());
  EXPECT_FALSE(drawn(crowd, 0)) << "a2 now lives in slot 0";
  EXPECT_TRUE(drawn(crowd, 1));
  // Removing the hidden one frees its slot for a visible newcomer.
  crowd.remove_actor("a2");
  Actor fresh = crowd.add_actor({.id = "new", .clip = "Idle"});
  EXPECT_TRUE(fresh.visible());
  crowd.update(0.1f, view);
  EXPECT_EQ(crowd.frame_stats().hidden_actors, 0u);
  EXPECT_TRUE(drawn(crowd, 1));
}

}  // namespace
}  // namespace gltf_crowd
