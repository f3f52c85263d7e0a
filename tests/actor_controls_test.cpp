// Actor controls of docs/spec.md §3: each takes effect at once and re-evaluates the packed pose, even for
// paused and finished actors; seek moves only the incoming clip of a crossfade; finished actors
// hold their last pose and restart on play(). "The pose shown" is compared byte for byte with a
// fresh actor created at the expected clip and time, so no expected pose comes from the code
// path under test. Most tests run on the built-in character (Walking 1.2 s, Wave 2 s, Idle 3 s).
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"
#include "gltf_crowd/pose.hpp"
#include "gltf_crowd/sampling.hpp"
#include "scalar_pose.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

std::shared_ptr<const Asset> character() {
  static const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  return asset;
}

float duration(const Asset& asset, const char* clip) {
  return asset.clips[static_cast<std::size_t>(asset.find_clip(clip))].duration_seconds;
}

// Every packed value of one slot: instance rows, palette rows and morph weights of every stream.
std::vector<float> packed(const Crowd& crowd, std::size_t slot) {
  std::vector<float> out;
  const auto append = [&](const float* data, std::size_t count) { out.insert(out.end(), data, data + count); };
  for (const NodeStream& s : crowd.node_streams()) {
    append(&s.transforms[slot * 3].x, 12);
    if (!s.palette.empty()) append(&s.palette[slot * 3 * s.joint_count].x, 12 * s.joint_count);
    append(s.weights.data() + slot * s.weight_stride, s.weight_stride);
  }
  return out;
}

// What a fresh, paused actor at `clip` and `seconds` shows.
std::vector<float> fresh_pose(const char* clip, float seconds) {
  Crowd crowd(character(), {.capacity = 1});
  crowd.add_actor({.clip = clip, .time = seconds, .playing = false});
  return packed(crowd, 0);
}

::testing::AssertionResult same_pose(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return ::testing::AssertionFailure() << "sizes " << a.size() << " vs " << b.size();
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::abs(a[i] - b[i]) > 1e-5f * std::max(1.0f, std::abs(b[i])))
      return ::testing::AssertionFailure() << "value " << i << ": " << a[i] << " vs " << b[i];
  return ::testing::AssertionSuccess();
}

TEST(ActorControlsTest, ReadBackOfEveryField) {
  Crowd crowd(character(), {.capacity = 2});
  Actor a = crowd.add_actor({.id = "a",
                             .clip = "Wave",
                             .time = 0.5f,
                             .phase = 0.9f,
                             .speed = 1.5f,
                             .loop = LoopMode::ping_pong,
                             .repetitions = 3,
                             .playing = false});
  EXPECT_EQ(a.id(), "a");
  EXPECT_EQ(a.active_clip(), "Wave");
  EXPECT_FLOAT_EQ(a.time(), 0.5f);  // time wins over phase
  EXPECT_FLOAT_EQ(a.phase(), 0.25f);
  EXPECT_FLOAT_EQ(a.speed(), 1.5f);
  EXPECT_EQ(a.loop(), LoopMode::ping_pong);
  EXPECT_EQ(a.repetitions(), 3u);
  EXPECT_FALSE(a.playing());
  EXPECT_FALSE(a.finished());
  const std::vector<Contributor> c = a.contributors();
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].clip, static_cast<std::uint32_t>(character()->find_clip("Wave")));
  EXPECT_FLOAT_EQ(c[0].seconds, 0.5f);
  EXPECT_EQ(c[0].weight, 1.0f);
  const Actor b = crowd.add_actor({.clip = "Idle", .phase = 0.5f});
  EXPECT_FLOAT_EQ(b.time(), 0.5f * duration(*character(), "Idle"));
  EXPECT_TRUE(b.playing());
}

TEST(ActorControlsTest, SeekDuringACrossfadeMovesOnlyTheIncomingClip) {
  Crowd crowd(character(), {.capacity = 1});
  Actor a = crowd.add_actor({.clip = "Walking", .time = 0.1f});
  a.select_clip("Wave", {.crossfade_seconds = 1.0f});
  crowd.update(0.25f);
  const std::vector<Contributor> before = a.contributors();
  ASSERT_EQ(before.size(), 2u);
  a.seek(1.5f);
  std::vector<Contributor> after = a.contributors();
  ASSERT_EQ(after.size(), 2u);
  EXPECT_FLOAT_EQ(after[0].seconds, 1.5f);
  EXPECT_FLOAT_EQ(a.time(), 1.5f);
  EXPECT_EQ(after[1].seconds, before[1].seconds) << "the outgoing clip did not move";
  EXPECT_EQ(after[0].weight, before[0].weight);
  EXPECT_EQ(after[1].weight, before[1].weight);
  a.set_phase(0.25f);
  after = a.contributors();
  EXPECT_FLOAT_EQ(after[0].seconds, 0.25f * duration(*character(), "Wave"));
  EXPECT_EQ(after[1].seconds, before[1].seconds);
}

TEST(ActorControlsTest, SelectClipOnAPausedActorShowsTheNewPoseAtOnce) {
  Crowd crowd(character(), {.capacity = 1});
  Actor a = crowd.add_actor({.clip = "Walking", .time = 0.3f});
  a.pause();
  EXPECT_TRUE(same_pose(packed(crowd, 0), fresh_pose("Walking", 0.3f)));
  a.select_clip("Wave", {.time = 0.5f});
  EXPECT_EQ(a.active_clip(), "Wave");
  EXPECT_TRUE(same_pose(packed(crowd, 0), fresh_pose("Wave", 0.5f)));
  EXPECT_FALSE(same_pose(packed(crowd, 0), fresh_pose("Walking", 0.3f)));
  crowd.update(0.2f);  // paused: nothing moves
  EXPECT_FLOAT_EQ(a.time(), 0.5f);
  EXPECT_TRUE(same_pose(packed(crowd, 0), fresh_pose("Wave", 0.5f)));
  // seek, set_phase and set_transform re-evaluate a paused actor too.
  a.seek(1.25f);
  EXPECT_TRUE(same_pose(packed(crowd, 0), fresh_pose("Wave", 1.25f)));
  a.set_phase(0.75f);
  EXPECT_TRUE(same_pose(packed(crowd, 0), fresh_pose("Wave", 1.5f)));
  a.set_transform(glm::translate(glm::mat4(1.0f), glm::vec3(5.0f, 0.0f, 0.0f)));
  EXPECT_FLOAT_EQ(crowd.node_streams()[0].transforms[0].w - 5.0f, fresh_pose("Wave", 1.5f)[3]);
}

TEST(ActorControlsTest, FinishedOnceActorHoldsItsLastPoseAndPlayRestartsIt) {
  const float d = duration(*character(), "Walking");
  Crowd crowd(character(), {.capacity = 1});
  Actor a = crowd.add_actor({.clip = "Walking", .loop = LoopMode::once});
  crowd.update(0.5f);
  EXPECT_FALSE(a.finished());
  crowd.update(d);  // runs past the end
  EXPECT_TRUE(a.finished());
  EXPECT_FALSE(a.playing());
  EXPECT_FLOAT_EQ(a.time(), d);
  const std::vector<float> last = fresh_pose("Walking", d);
  EXPECT_TRUE(same_pose(packed(crowd, 0), last));
  crowd.update(0.3f);
  EXPECT_TRUE(a.finished());
  EXPECT_FLOAT_EQ(a.time(), d);
  EXPECT_TRUE(same_pose(packed(crowd, 0), last)) << "holds its final pose";
  EXPECT_EQ(crowd.frame_stats().actors_evaluated, 0u);
  a.play();
  EXPECT_FALSE(a.finished());
  EXPECT_TRUE(a.playing());
  EXPECT_FLOAT_EQ(a.time(), 0.0f) << "play() restarts from the start";
  EXPECT_TRUE(same_pose(packed(crowd, 0), fresh_pose("Walking", 0.0f)));
  crowd.update(0.25f);
  EXPECT_FLOAT_EQ(a.time(), 0.25f);
}

TEST(ActorControlsTest, OnceBackwardFromPhaseZeroIsFinishedAndPlayRestartsFromTheEnd) {
  const float d = duration(*character(), "Walking");
  Crowd crowd(character(), {.capacity = 1});
  // docs/spec.md §3: once is finished when e <= 0 with negative speed; phase 0 is already there.
  Actor a = crowd.add_actor({.clip = "Walking", .speed = -1.0f, .loop = LoopMode::once});
  EXPECT_TRUE(a.finished());
  EXPECT_FLOAT_EQ(a.time(), 0.0f);
  crowd.update(0.25f);
  EXPECT_FLOAT_EQ(a.time(), 0.0f);
  a.play();  // restarts from D for negative speed
  EXPECT_FALSE(a.finished());
  EXPECT_FLOAT_EQ(a.time(), d);
  crowd.update(0.25f);
  EXPECT_NEAR(a.time(), d - 0.25f, 1e-6f);
  crowd.update(d);
  EXPECT_TRUE(a.finished());
  EXPECT_FLOAT_EQ(a.time(), 0.0f);
  EXPECT_TRUE(same_pose(packed(crowd, 0), fresh_pose("Walking", 0.0f)));
}

TEST(ActorControlsTest, SeekAndSetPhaseOnAFinishedActorMoveItAndClearFinished) {
  const float d = duration(*character(), "Wave");
  Crowd crowd(character(), {.capacity = 1});
  Actor a = crowd.add_actor({.clip = "Wave", .loop = LoopMode::once});
  crowd.update(5.0f);
  ASSERT_TRUE(a.finished());
  a.seek(0.5f);
  EXPECT_FALSE(a.finished());
  EXPECT_TRUE(a.playing());
  EXPECT_FLOAT_EQ(a.time(), 0.5f);
  EXPECT_TRUE(same_pose(packed(crowd, 0), fresh_pose("Wave", 0.5f)));
  crowd.update(0.25f);
  EXPECT_FLOAT_EQ(a.time(), 0.75f) << "it plays again";
  crowd.update(5.0f);
  ASSERT_TRUE(a.finished());
  a.set_phase(0.25f);
  EXPECT_FALSE(a.finished());
  EXPECT_FLOAT_EQ(a.time(), 0.25f * d);
  EXPECT_TRUE(same_pose(packed(crowd, 0), fresh_pose("Wave", 0.25f * d)));
}

TEST(ActorControlsTest, SetSpeedAndSetLoopTakeEffectAtOnce) {
  const float d = duration(*character(), "Wave");
  Crowd crowd(character(), {.capacity = 1});
  Actor a = crowd.add_actor({.clip = "Wave", .loop = LoopMode::once});
  crowd.update(d + 0.4f);
  ASSERT_TRUE(a.finished());
  // Backward, `once` finishes at 0, not at D: the held end is now a start.
  a.set_speed(-1.0f);
  EXPECT_FALSE(a.finished());
  EXPECT_TRUE(a.playing());
  EXPECT_FLOAT_EQ(a.speed(), -1.0f);
  crowd.update(0.25f);
  EXPECT_NEAR(a.time(), d - 0.25f, 1e-6f) << "no dead time from the overshoot past D";
  // repeat at elapsed 1.5·D, then each loop mode in turn.
  a.set_speed(1.0f);
  a.set_loop(LoopMode::repeat);
  a.seek(1.5f * d);
  EXPECT_FLOAT_EQ(a.time(), 0.5f * d);
  a.set_loop(LoopMode::ping_pong);
  EXPECT_FLOAT_EQ(a.time(), 0.5f * d);  // k = 1: D − 0.5·D
  EXPECT_FALSE(a.finished());
  a.set_loop(LoopMode::repeat, 1);
  EXPECT_TRUE(a.finished());
  EXPECT_FLOAT_EQ(a.time(), d);
  EXPECT_EQ(a.repetitions(), 1u);
  EXPECT_TRUE(same_pose(packed(crowd, 0), fresh_pose("Wave", d)));
  a.set_loop(LoopMode::once);
  EXPECT_TRUE(a.finished());
  EXPECT_EQ(a.loop(), LoopMode::once);
  a.set_loop(LoopMode::repeat);
  EXPECT_FALSE(a.finished());
}

TEST(ActorControlsTest, SelectingTheActiveClipAgainWithoutACrossfadeRestartsIt) {
  Crowd crowd(character(), {.capacity = 1});
  Actor a = crowd.add_actor({.clip = "Walking"});
  crowd.update(0.5f);
  a.select_clip("Walking");
  EXPECT_FLOAT_EQ(a.time(), 0.0f);
  ASSERT_EQ(a.contributors().size(), 1u);
  // A hard switch in the middle of a crossfade replaces every contributor.
  a.select_clip("Wave", {.crossfade_seconds = 1.0f});
  crowd.update(0.5f);
  ASSERT_EQ(a.contributors().size(), 2u);
  a.select_clip("Idle", {.time = 1.0f});
  const std::vector<Contributor> c = a.contributors();
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].weight, 1.0f);
  EXPECT_TRUE(same_pose(packed(crowd, 0), fresh_pose("Idle", 1.0f)));
}

TEST(ActorControlsTest, PauseStopsTheClockAndPlayResumesWhereItWas) {
  Crowd crowd(character(), {.capacity = 1});
  Actor a = crowd.add_actor({.clip = "Idle"});
  crowd.update(0.5f);
  a.pause();
  EXPECT_FALSE(a.playing());
  crowd.update(1.0f);
  EXPECT_FLOAT_EQ(a.time(), 0.5f);
  a.play();
  EXPECT_TRUE(a.playing());
  EXPECT_FLOAT_EQ(a.time(), 0.5f) << "play() on a paused, unfinished actor does not restart it";
  crowd.update(0.25f);
  EXPECT_FLOAT_EQ(a.time(), 0.75f);
}

// A crossfade keeps moving the pose even when its incoming `once` clip already reached its end:
// the actor finishes when the fade completes, not earlier with weights frozen half-way.
TEST(ActorControlsTest, OnceClipEndingDuringItsCrossfadeFinishesWhenTheFadeDoes) {
  const float walking = duration(*character(), "Walking");
  Crowd crowd(character(), {.capacity = 1});
  Actor a = crowd.add_actor({.clip = "Idle", .loop = LoopMode::once});
  a.select_clip("Walking", {.crossfade_seconds = 2.0f});
  crowd.update(1.5f);
  EXPECT_FLOAT_EQ(a.time(), walking);
  EXPECT_FALSE(a.finished());
  EXPECT_TRUE(a.playing());
  EXPECT_NEAR(a.contributors()[0].weight, 0.75f, 1e-6f);
  crowd.update(0.25f);
  EXPECT_NEAR(a.contributors()[0].weight, 0.875f, 1e-6f);
  crowd.update(0.25f);
  EXPECT_TRUE(a.finished());
  ASSERT_EQ(a.contributors().size(), 1u);
  EXPECT_TRUE(same_pose(packed(crowd, 0), fresh_pose("Walking", walking)));
}

// Interrupting crossfades again and again stays bounded and keeps the weights summing to 1.
TEST(ActorControlsTest, ManyInterruptionsKeepWeightsSummingToOne) {
  Crowd crowd(character(), {.capacity = 1});
  Actor a = crowd.add_actor({.clip = "Idle"});
  const char* clips[] = {"Walking", "Running", "Wave", "Dance", "Idle"};
  for (int i = 0; i < 40; ++i) {
    a.select_clip(clips[i % 5], {.crossfade_seconds = 1.0f});
    crowd.update(0.05f);
    float sum = 0.0f;
    for (const Contributor& c : a.contributors()) {
      EXPECT_GE(c.weight, 0.0f);
      sum += c.weight;
    }
    EXPECT_NEAR(sum, 1.0f, 1e-5f) << "interruption " << i;
    EXPECT_LE(a.contributors().size(), 8u);
  }
}

TEST(ActorControlsTest, BadArgumentsNameTheArgumentAndChangeNothing) {
  Crowd crowd(character(), {.capacity = 1});
  Actor a = crowd.add_actor({.clip = "Walking", .time = 0.4f});
  const std::vector<float> before = packed(crowd, 0);
  try {
    a.select_clip("Moonwalk", {.crossfade_seconds = 0.5f});
    ADD_FAILURE() << "accepted an unknown clip";
  } catch (const Error& e) {
    EXPECT_EQ(e.path(), "select_clip.name");
    EXPECT_EQ(e.rule(), "unknown_clip");
    EXPECT_NE(std::string(e.what()).find("Moonwalk"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("Running"), std::string::npos) << "lists the available clips";
  }
  try {
    a.set_loop(static_cast<LoopMode>(7));
    ADD_FAILURE() << "accepted an invalid loop mode";
  } catch (const Error& e) {
    EXPECT_EQ(e.path(), "set_loop.mode");
    EXPECT_EQ(e.rule(), "loop_mode");
  }
  EXPECT_EQ(a.active_clip(), "Walking");
  EXPECT_EQ(a.loop(), LoopMode::repeat);
  EXPECT_FLOAT_EQ(a.time(), 0.4f);
  EXPECT_EQ(a.contributors().size(), 1u);
  EXPECT_TRUE(same_pose(packed(crowd, 0), before));
}

// FNV-1a over every array of the asset that animation could touch.
std::uint64_t asset_hash(const Asset& asset) {
  std::uint64_t h = 1469598103934665603ull;
  const auto mix = [&](const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
  };
  for (const Node& n : asset.nodes) {
    mix(&n.translation, sizeof n.translation);
    mix(&n.rotation, sizeof n.rotation);
    mix(&n.scale, sizeof n.scale);
    mix(&n.matrix, sizeof n.matrix);
    mix(n.weights.data(), n.weights.size() * sizeof(float));
  }
  for (const Clip& c : asset.clips) {
    mix(c.times.data(), c.times.size() * sizeof(float));
    mix(c.values.data(), c.values.size() * sizeof(float));
  }
  for (const Skin& s : asset.skins)
    mix(s.inverse_bind_matrices.data(), s.inverse_bind_matrices.size() * sizeof(glm::mat4));
  for (const Mesh& m : asset.meshes) {
    mix(m.weights.data(), m.weights.size() * sizeof(float));
    for (const Primitive& p : m.primitives) {
      mix(p.positions.data(), p.positions.size() * sizeof(glm::vec3));
      for (const MorphTarget& t : p.targets) mix(t.positions.data(), t.positions.size() * sizeof(glm::vec3));
    }
  }
  mix(asset.rest_weights.data(), asset.rest_weights.size() * sizeof(float));
  return h;
}

TEST(ActorControlsTest, TwoRobotsWithDifferentClipsHaveTheirOwnPalettesAndLeaveTheAssetUnchanged) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto asset = std::make_shared<const Asset>(load_asset(test::asset_path("threejs/RobotExpressive.glb")));
  const std::uint64_t hash = asset_hash(*asset);
  Crowd crowd(asset, {.capacity = 2});
  Actor wave = crowd.add_actor({.id = "wave", .clip = "Wave", .phase = 0.3f});
  Actor punch = crowd.add_actor({.id = "punch", .clip = "Punch", .phase = 0.3f});
  for (int f = 0; f < 20; ++f) crowd.update(1.0f / 60.0f);
  wave.select_clip("Yes", {.crossfade_seconds = 0.5f});
  for (int f = 0; f < 20; ++f) crowd.update(1.0f / 60.0f);
  int skinned = 0;
  for (const NodeStream& s : crowd.node_streams()) {
    if (s.joint_count == 0 || s.palette.empty()) continue;  // the second hand shares the first's
    ++skinned;
    const std::size_t rows = 3 * s.joint_count;
    EXPECT_NE(std::memcmp(s.palette.data(), s.palette.data() + rows, rows * sizeof(glm::vec4)), 0)
        << "node " << s.node << ": the two palettes differ";
  }
  EXPECT_EQ(skinned, 1);  // two skinned nodes, one palette: both hands bind the same joints
  // Every weights channel of RobotExpressive holds 0 at every key (its accessor data), so both
  // actors' Head weights are 0; per-actor morph weights are shown on morph assets below.
  for (const Actor& a : {wave, punch})
    for (const float w : a.morph_weights()) EXPECT_EQ(w, 0.0f);
  EXPECT_EQ(asset_hash(*asset), hash) << "the shared asset is unchanged";
}

// Morph weights are per actor: two actors on different clips (or times) of an asset whose clips
// animate its weights show different weights, each the one its own clip gives at its own time.
void expect_own_morph_weights(const std::shared_ptr<const Asset>& asset, const char* first, const char* second) {
  SCOPED_TRACE(first);
  const std::uint64_t hash = asset_hash(*asset);
  Crowd crowd(asset, {.capacity = 2});
  Actor a = crowd.add_actor({.clip = first, .phase = 0.3f});
  Actor b = crowd.add_actor({.clip = second, .phase = 0.6f});
  for (int f = 0; f < 10; ++f) crowd.update(1.0f / 30.0f);
  ASSERT_GT(asset->total_weights, 0u);
  EXPECT_NE(std::memcmp(a.morph_weights().data(), b.morph_weights().data(), asset->total_weights * sizeof(float)), 0);
  for (const Actor& actor : {a, b}) {
    const test::ScalarPose want = test::scalar_clip_pose(
        *asset, asset->clips[static_cast<std::size_t>(asset->find_clip(actor.active_clip()))], actor.time());
    for (std::size_t k = 0; k < asset->total_weights; ++k)
      EXPECT_NEAR(actor.morph_weights()[k], want.weights[k], 1e-6f);
  }
  bool packed_differ = false;
  for (const NodeStream& s : crowd.node_streams())
    if (s.weight_stride > 0)
      packed_differ |=
          std::memcmp(s.weights.data(), s.weights.data() + s.weight_stride, s.weight_stride * sizeof(float)) != 0;
  EXPECT_TRUE(packed_differ) << "the packed morph weights differ";
  EXPECT_EQ(asset_hash(*asset), hash) << "the shared asset is unchanged";
}

TEST(ActorControlsTest, MorphWeightsArePerActor) {
  expect_own_morph_weights(character(), "Wave", "Dance");
  GLTF_CROWD_REQUIRE_ASSETS();
  expect_own_morph_weights(
      std::make_shared<const Asset>(load_asset(test::asset_path("khronos/MorphStressTest/MorphStressTest.gltf"))),
      "Individuals", "TheWave");
}

}  // namespace
}  // namespace gltf_crowd
