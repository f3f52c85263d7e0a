// Crowd::update evaluates due actors in batches of eight, their hierarchy and palettes one pose
// per lane (docs/architecture.md "Evaluation"), and must pack exactly what each actor evaluated
// alone packs: a crowd of 13 actors (a batch of 8, then one of 5, on the caller's thread), one
// of 70 (on the caller's thread too: at most 8,192 node evaluations, src/crowd/schedule.cpp), one
// of 500 (above that for a rig of 17 nodes or more: chunks of 32 over the worker threads) and one
// of 700 built-in characters (batches
// sorted into regions of neighbouring slots, where there are two workers or more) against as
// many crowds of one actor each (evaluated one by one), with crossfades, an application-driven
// pose and placements, and again with every actor playing one clip alone (sampled across lanes):
// instance transforms, palettes and morph weights compared bit for bit.
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

// mixed: clips, crossfades and an override differ between the lanes of a batch, so each pose is
// sampled alone; one_clip: every actor plays `clip` alone at its own time, and crossfade: every
// actor crossfades from `clip` into the next clip (itself when it is the only one), so batches
// sample and blend across lanes (kernels.hpp, SampleLanes and BlendLanes).
// two_clips: the first half plays `clip` alone, the second half `second`, so that one worker
// samples a batch of one clip right after a batch of the other; clip_and_crossfade: the second
// half crossfades from `second` into `clip` instead; thirds: each third of the crowd plays one
// of three clips from `clip` on, alone.
enum class Drive { mixed, one_clip, crossfade, two_clips, clip_and_crossfade, thirds };

ActorOptions options_of(const Asset& asset, std::size_t i, Drive mode, std::size_t clip, std::size_t second,
                        std::size_t actors) {
  ActorOptions o;
  if ((mode == Drive::two_clips || mode == Drive::clip_and_crossfade) && 2 * i >= actors) clip = second;
  if (mode == Drive::thirds) clip = (clip + 3 * i / actors) % asset.clips.size();
  o.clip = asset.clips[mode == Drive::mixed ? i % asset.clips.size() : clip].name;
  o.phase = 0.071f * static_cast<float>(i);
  o.speed = 0.8f + 0.1f * static_cast<float>(i % 5);
  o.transform = glm::translate(glm::mat4(1.0f), glm::vec3(2.0f * static_cast<float>(i), 0.0f, 0.5f)) *
                glm::rotate(glm::mat4(1.0f), 0.2f * static_cast<float>(i), glm::vec3(0, 1, 0));
  return o;
}

// What every crowd goes through, actor i the same way in both.
void drive(const Asset& asset, std::size_t i, Actor actor, Drive mode, std::size_t clip, std::size_t actors) {
  if (mode == Drive::one_clip || mode == Drive::two_clips || mode == Drive::thirds) return;
  if (mode == Drive::clip_and_crossfade) {
    if (2 * i >= actors) actor.select_clip(asset.clips[clip].name, {.crossfade_seconds = 0.5f, .phase = 0.2f});
    return;
  }
  if (mode == Drive::crossfade) {
    // Into the next clip (the same one when there is one): clips that animate other nodes.
    std::size_t next = 0;
    while (asset.clips[next].name != actor.active_clip()) ++next;
    next = (next + 1) % asset.clips.size();
    actor.select_clip(asset.clips[next].name, {.crossfade_seconds = 0.5f + 0.01f * static_cast<float>(i),
                                               .phase = 0.05f * static_cast<float>(i)});
    return;
  }
  if (i % 3 == 1)
    actor.select_clip(asset.clips[(i + 1) % asset.clips.size()].name, {.crossfade_seconds = 0.5f, .phase = 0.3f});
  if (i == 4) actor.set_local_transform(asset.hierarchy_order.back(), {.translation = {0.1f, 0.2f, 0.3f}}, 0.5f);
}

bool same_bits(const float* a, const float* b, std::size_t count) { return std::memcmp(a, b, 4 * count) == 0; }

// What the crowd plays, for the failure messages.
std::string describe(const Asset& asset, Drive mode, std::size_t clip, std::size_t second) {
  const std::string& a = asset.clips[clip].name;
  const std::string& b = asset.clips[second].name;
  switch (mode) {
    case Drive::mixed: return "";
    case Drive::one_clip: return ", all playing " + a;
    case Drive::crossfade: return ", all crossfading from " + a;
    case Drive::two_clips: return ", half playing " + a + ", half " + b;
    case Drive::clip_and_crossfade: return ", half playing " + a + ", half crossfading from " + b;
    case Drive::thirds: return ", a third each playing three clips";
  }
  return "";
}

void expect_batches_pack_as_one_by_one(const std::shared_ptr<const Asset>& asset, std::size_t actors,
                                       Drive mode = Drive::mixed, std::size_t clip = 0, std::size_t second = 0) {
  SCOPED_TRACE(::testing::Message() << actors << " actors" << describe(*asset, mode, clip, second));
  Crowd together(asset, {.capacity = actors});
  std::vector<std::unique_ptr<Crowd>> alone;
  for (std::size_t i = 0; i < actors; ++i) {
    drive(*asset, i, together.add_actor(options_of(*asset, i, mode, clip, second, actors)), mode, clip, actors);
    alone.push_back(std::make_unique<Crowd>(asset, CrowdOptions{.capacity = 1}));
    drive(*asset, i, alone[i]->add_actor(options_of(*asset, i, mode, clip, second, actors)), mode, clip, actors);
  }
  for (int frame = 0; frame < 4; ++frame) {
    together.update(1.0f / 30.0f);
    for (auto& crowd : alone) crowd->update(1.0f / 30.0f);
  }
  // One clip (or crossfade) for everyone: 13 actors are one batch of 8 and one of 5, both
  // sampled across lanes; 500 actors are split between chunks, most of them so. Two clips, 16
  // actors: a batch of each.
  const std::uint32_t batched = together.frame_stats().actors_batched_by_clip;
  if (mode == Drive::thirds) {
    // A third's slots past whole batches (1 of 9, 41 or 201) go after every third, one by one: every
    // other batch plays one clip. In place, 1 slot would start a batch with the next third's 7.
    EXPECT_EQ(batched, actors / 3 / 8 * 8 * 3);
  } else if (mode != Drive::mixed) {
    if (actors == 13 || actors == 16)  // 8 + 5, or 8 + 8
      EXPECT_EQ(batched, actors);
    else
      EXPECT_GT(batched, actors / 2);
  }
  for (const auto& crowd : alone) EXPECT_EQ(crowd->frame_stats().actors_batched_by_clip, 0u);
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

// Mixed crowds of 13, 70 and 500 actors, then 13 actors playing, and crossfading from, each clip in
// turn (clips differ in which properties of their animated nodes they leave at rest), and 16
// actors in two batches: two clips, or a clip and a crossfade into it (a worker keeps the rest
// values of its last clip's batch: a batch of another clip, or a crossfade, overwrites them).
void expect_all_ways(const std::shared_ptr<const Asset>& asset) {
  for (std::size_t actors : {13, 70, 500}) expect_batches_pack_as_one_by_one(asset, actors);
  for (std::size_t clip = 0; clip < asset->clips.size(); ++clip)
    for (Drive mode : {Drive::one_clip, Drive::crossfade}) expect_batches_pack_as_one_by_one(asset, 13, mode, clip);
  for (std::size_t clip = 0; clip < asset->clips.size(); ++clip)
    for (std::size_t second = clip + 1; second < asset->clips.size(); ++second)
      for (Drive mode : {Drive::two_clips, Drive::clip_and_crossfade}) {
        expect_batches_pack_as_one_by_one(asset, 16, mode, clip, second);
        expect_batches_pack_as_one_by_one(asset, 16, mode, second, clip);
      }
  expect_batches_pack_as_one_by_one(asset, 500, Drive::one_clip, 0);
  expect_batches_pack_as_one_by_one(asset, 500, Drive::crossfade, 0);
}

TEST(BatchEvaluation, BuiltInCharacterPacksAsOneByOne) {
  const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  expect_all_ways(asset);
  // Five clips and their crossfades in one crowd: 700 due slots make five regions of 140
  // (src/crowd/schedule.cpp) on two workers or more, so batches are sorted by region.
  expect_batches_pack_as_one_by_one(asset, 700);
}

// The 27 due actors of three clips, 9 each, are batches of 8 of each clip and three actors
// evaluated one by one (on the caller's thread); 123, 41 each, are 15 batches of one clip each
// and three alone, still on the caller's thread (few node evaluations); 603, 201 each, are 75
// batches over the workers' chunks and three alone.
TEST(BatchEvaluation, AGroupsLastFewActorsGoAfterEveryGroup) {
  const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  ASSERT_GE(asset->clips.size(), 3u);
  for (std::size_t actors : {27, 123, 603}) expect_batches_pack_as_one_by_one(asset, actors, Drive::thirds);
}

// A worker's scratch keeps the constant channels and rest values of the clip it last sampled for
// one actor alone (SampleJob::constants_held); a batch across lanes then writes its own clip's
// morph weights into the same scratch. For every ordered pair of clips (a, b), one actor plays a
// and 7 play b: each frame, the 7 go as one batch across lanes on the caller's thread (lanes 0–6)
// and the one after them, alone, in lane 0's scratch. From the second frame on, that scratch held
// a before the batch. The actor must pack what it packs in a crowd of its own.
void expect_lone_sample_after_batch_as_fresh(const std::shared_ptr<const Asset>& asset) {
  const std::size_t clips = asset->clips.size();
  for (std::size_t a = 0; a < clips; ++a)
    for (std::size_t b = 0; b < clips; ++b) {
      if (a == b) continue;
      SCOPED_TRACE(asset->clips[a].name + " alone after a batch of " + asset->clips[b].name);
      Crowd crowd(asset, {.capacity = 8}), fresh(asset, {.capacity = 1});
      crowd.add_actor({.clip = asset->clips[a].name, .time = 0.3f});
      fresh.add_actor({.clip = asset->clips[a].name, .time = 0.3f});
      for (int i = 1; i < 8; ++i) crowd.add_actor({.clip = asset->clips[b].name, .time = 0.1f * static_cast<float>(i)});
      for (int frame = 0; frame < 3; ++frame) {
        crowd.update(1.0f / 30.0f);
        fresh.update(1.0f / 30.0f);
      }
      ASSERT_EQ(crowd.frame_stats().actors_batched_by_clip, 7u);
      const auto x = crowd.node_streams(), y = fresh.node_streams();
      ASSERT_EQ(x.size(), y.size());
      for (std::size_t d = 0; d < x.size(); ++d) {  // slot 0's rows
        EXPECT_TRUE(same_bits(&x[d].transforms[0].x, &y[d].transforms[0].x, 12)) << "stream " << d;
        if (!y[d].palette.empty()) {
          EXPECT_TRUE(same_bits(&x[d].palette[0].x, &y[d].palette[0].x, 12 * std::size_t{y[d].joint_count}))
              << "stream " << d;
        }
        if (y[d].weight_stride > 0) {
          EXPECT_TRUE(same_bits(x[d].weights.data(), y[d].weights.data(), y[d].weight_stride)) << "stream " << d;
        }
      }
    }
}

TEST(BatchEvaluation, ALoneSampleAfterABatchPacksAsFresh) {
  expect_lone_sample_after_batch_as_fresh(
      std::make_shared<const Asset>(load_asset_from_memory(default_character_glb())));
  GLTF_CROWD_REQUIRE_ASSETS();
  expect_lone_sample_after_batch_as_fresh(
      std::make_shared<const Asset>(load_asset(test::asset_path("threejs/RobotExpressive.glb"))));
}

TEST(BatchEvaluation, RobotExpressivePacksAsOneByOne) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto asset = std::make_shared<const Asset>(load_asset(test::asset_path("threejs/RobotExpressive.glb")));
  expect_all_ways(asset);
}

// Morph weights: one clip that animates only weights, played and crossfaded into itself.
TEST(BatchEvaluation, AnimatedMorphCubePacksAsOneByOne) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto asset = std::make_shared<const Asset>(load_asset(test::asset_path("lumagl/AnimatedMorphCube.glb")));
  expect_all_ways(asset);
}

// 43 of its 57 channels are constant (rig.hpp, ClipTracks::constant_channels): groups on a
// timeline of one key beside groups of two keys.
TEST(BatchEvaluation, RiggedFigurePacksAsOneByOne) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto asset = std::make_shared<const Asset>(load_asset(test::asset_path("khronos/RiggedFigure.glb")));
  expect_all_ways(asset);
}

// One joint's translation, rotation and scale, each a group of one channel: sampled across
// poses (sample_kernels.inl, sample_across).
TEST(BatchEvaluation, RiggedSimplePacksAsOneByOne) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto asset = std::make_shared<const Asset>(load_asset(test::asset_path("khronos/RiggedSimple.glb")));
  expect_all_ways(asset);
}

TEST(BatchEvaluation, CesiumManPacksAsOneByOne) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto asset = std::make_shared<const Asset>(load_asset(test::asset_path("khronos/CesiumMan.glb")));
  expect_all_ways(asset);
}

}  // namespace
}  // namespace gltf_crowd
