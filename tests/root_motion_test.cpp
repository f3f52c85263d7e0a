// Root motion (docs/spec.md §3.10): loop-aware accumulation of the root's motion, its removal from
// the pose, crossfade blending, placement, errors. Expected values come from the hand-made clips'
// formulas (a root moving 1 m in x per second, linearly) and, for the built-in character, from
// the scalar sampler of tests/scalar_pose.hpp.
#include <cmath>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "crowd/segments.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"
#include "handmade_gltf.hpp"
#include "scalar_pose.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

constexpr float kPi = std::numbers::pi_v<float>;
constexpr float kTol = 1e-4f;

// Node 0 "root". Clips (1 s each, LINEAR):
//  - walk: translation (0,0,0) → (0.5,0.1,0) → (1,0,0): 1 m/s along x, a 0.1 m bob in y;
//  - strafe: translation (0,0,0) → (0,0,2): 2 m/s along z;
//  - turn: rotation 0 → 90° about +y;
//  - still: scale only, the root does not move.
std::shared_ptr<const Asset> root_asset() {
  test::HandmadeChannel walk;
  walk.times = {0.0f, 0.5f, 1.0f};
  walk.values = {0.0f, 0.0f, 0.0f, 0.5f, 0.1f, 0.0f, 1.0f, 0.0f, 0.0f};
  test::HandmadeChannel strafe;
  strafe.times = {0.0f, 1.0f};
  strafe.values = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 2.0f};
  test::HandmadeChannel turn;
  turn.path = "rotation";
  turn.times = {0.0f, 1.0f};
  const float h = std::sin(kPi / 4.0f), c = std::cos(kPi / 4.0f);
  turn.values = {0.0f, 0.0f, 0.0f, 1.0f, 0.0f, h, 0.0f, c};
  test::HandmadeChannel still;
  still.path = "scale";
  still.times = {0.0f, 1.0f};
  still.values = {1.0f, 1.0f, 1.0f, 2.0f, 2.0f, 2.0f};
  static const auto asset = std::make_shared<const Asset>(load_asset_from_memory(
      test::handmade_gltf(nlohmann::json::array({{{"name", "root"}}}),
                          {{"walk", {walk}}, {"strafe", {strafe}}, {"turn", {turn}}, {"still", {still}}})));
  return asset;
}

CrowdOptions with_root(RootMotionOptions root) {
  CrowdOptions options;
  options.capacity = 4;
  options.root_motion = std::move(root);
  return options;
}

void expect_motion(const RootMotion& m, glm::vec3 translation, float yaw = 0.0f) {
  EXPECT_NEAR(m.translation.x, translation.x, kTol);
  EXPECT_NEAR(m.translation.y, translation.y, kTol);
  EXPECT_NEAR(m.translation.z, translation.z, kTol);
  EXPECT_NEAR(m.yaw_radians, yaw, kTol);
}

// Sum of value(t_to) - value(t_from) over the segments of one step, for value(t) = t + t².
double travel(double from, double step, float d, LoopMode loop, std::uint32_t repetitions) {
  double sum = 0.0;
  const auto value = [](double t) { return t + t * t; };
  for_each_segment(from, step, d, loop, repetitions,
                   [&](float t0, float t1, double times) { sum += times * (value(t1) - value(t0)); });
  return sum;
}

// One long step travels as far as the same interval cut into short steps, which never hold a
// whole traversal: the closed form for the traversals inside a step agrees with walking them.
TEST(RootMotionSegments, LongStepsEqualShortSteps) {
  std::mt19937 rng(20);
  std::uniform_real_distribution<double> start(-7.0, 7.0), length(-9.0, 9.0);
  for (int i = 0; i < 2000; ++i) {
    const auto loop = static_cast<LoopMode>(i % 3);
    const std::uint32_t repetitions = (i / 3) % 3 == 0 ? 0u : static_cast<std::uint32_t>(i % 4);
    const float d = i % 5 == 0 ? 0.7f : 1.0f;
    const double from = start(rng), step = length(rng);
    double short_steps = 0.0;
    const int pieces = 200;
    for (int k = 0; k < pieces; ++k)
      short_steps += travel(from + step * k / pieces, step / pieces, d, loop, repetitions);
    ASSERT_NEAR(travel(from, step, d, loop, repetitions), short_steps, 1e-3)
        << "loop " << static_cast<int>(loop) << " repetitions " << repetitions << " from " << from << " step " << step;
  }
}

TEST(RootMotionSegments, WholeLoopsInOneStep) {
  // Repeat, forward from 0 over ten loops: value(1) - value(0) = 2 per loop.
  EXPECT_NEAR(travel(0.0, 10.0, 1.0f, LoopMode::repeat, 0), 20.0, 1e-9);
  EXPECT_NEAR(travel(0.0, -10.0, 1.0f, LoopMode::repeat, 0), -20.0, 1e-9);
  // Ping-pong: every out-and-back returns.
  EXPECT_NEAR(travel(0.0, 10.0, 1.0f, LoopMode::ping_pong, 0), 0.0, 1e-9);
  EXPECT_NEAR(travel(0.0, 11.0, 1.0f, LoopMode::ping_pong, 0), 2.0, 1e-9);
  // Once stops at the end, repetitions after n loops.
  EXPECT_NEAR(travel(0.0, 10.0, 1.0f, LoopMode::once, 0), 2.0, 1e-9);
  EXPECT_NEAR(travel(0.0, 10.0, 1.0f, LoopMode::repeat, 3), 6.0, 1e-9);
  EXPECT_EQ(travel(0.5, 0.0, 1.0f, LoopMode::repeat, 0), 0.0);
  EXPECT_EQ(travel(0.5, 3.0, 0.0f, LoopMode::repeat, 0), 0.0);
}

TEST(RootMotion, TenLoopsMoveTenTimesOneLoop) {
  Crowd crowd(root_asset(), with_root({.node = "root"}));
  Actor a = crowd.add_actor({.clip = "walk"});
  for (int i = 0; i < 10; ++i) crowd.update(0.1f);
  const RootMotion one = a.take_root_motion();
  expect_motion(one, {1.0f, 0.0f, 0.0f});
  for (int i = 0; i < 100; ++i) crowd.update(0.1f);
  const RootMotion ten = a.take_root_motion();
  expect_motion(ten, 10.0f * one.translation);
  // Ten loops in one long frame move as far.
  crowd.update(10.0f);
  expect_motion(a.take_root_motion(), {10.0f, 0.0f, 0.0f});
  // Taking resets.
  expect_motion(a.take_root_motion(), {0.0f, 0.0f, 0.0f});
}

TEST(RootMotion, NoJumpAtTheWrap) {
  Crowd crowd(root_asset(), with_root({.node = "root"}));
  Actor a = crowd.add_actor({.clip = "walk", .time = 0.05f});
  // 0.3 s steps cross the wrap at different points of the step: every step moves 0.3 m.
  for (int i = 0; i < 20; ++i) {
    crowd.update(0.3f);
    expect_motion(a.take_root_motion(), {0.3f, 0.0f, 0.0f});
  }
}

TEST(RootMotion, NegativeSpeedWalksBackward) {
  Crowd crowd(root_asset(), with_root({.node = "root"}));
  Actor a = crowd.add_actor({.clip = "walk", .speed = -1.0f});
  for (int i = 0; i < 40; ++i) {
    crowd.update(0.25f);
    expect_motion(a.take_root_motion(), {-0.25f, 0.0f, 0.0f});
  }
  crowd.update(3.5f);
  expect_motion(a.take_root_motion(), {-3.5f, 0.0f, 0.0f});
}

TEST(RootMotion, PingPongReturnsOnEachOutAndBack) {
  Crowd crowd(root_asset(), with_root({.node = "root"}));
  Actor a = crowd.add_actor({.clip = "walk", .loop = LoopMode::ping_pong});
  crowd.update(0.5f);
  expect_motion(a.take_root_motion(), {0.5f, 0.0f, 0.0f});
  crowd.update(1.0f);  // 0.5 → 1, turn, 1 → 0.5
  expect_motion(a.take_root_motion(), {0.0f, 0.0f, 0.0f});
  crowd.update(0.75f);  // 0.5 → 0, turn, 0 → 0.25
  expect_motion(a.take_root_motion(), {-0.25f, 0.0f, 0.0f});
  crowd.update(20.0f);  // ten out-and-backs: net zero
  expect_motion(a.take_root_motion(), {0.0f, 0.0f, 0.0f});
}

TEST(RootMotion, OnceStopsAtTheEnd) {
  Crowd crowd(root_asset(), with_root({.node = "root"}));
  Actor a = crowd.add_actor({.clip = "walk", .loop = LoopMode::once});
  crowd.update(0.4f);
  crowd.update(5.0f);
  expect_motion(a.take_root_motion(), {1.0f, 0.0f, 0.0f});
  EXPECT_TRUE(a.finished());
  crowd.update(1.0f);
  expect_motion(a.take_root_motion(), {0.0f, 0.0f, 0.0f});
}

TEST(RootMotion, RepetitionsBoundTheMotion) {
  Crowd crowd(root_asset(), with_root({.node = "root"}));
  Actor a = crowd.add_actor({.clip = "walk", .repetitions = 3});
  crowd.update(10.0f);
  expect_motion(a.take_root_motion(), {3.0f, 0.0f, 0.0f});
}

TEST(RootMotion, CrossfadeBlendsDeltasByTheMeanWeightOfEachUpdate) {
  Crowd crowd(root_asset(), with_root({.node = "root"}));
  Actor a = crowd.add_actor({.clip = "walk"});
  a.select_clip("strafe", {.crossfade_seconds = 1.0f});
  EXPECT_EQ(a.take_root_motion().translation, glm::vec3(0.0f));  // controls move nothing
  // walk: weight 1 → 0.5 (mean 0.75) over 0.5 m; strafe: 0 → 0.5 (mean 0.25) over 1 m in z.
  crowd.update(0.5f);
  expect_motion(a.take_root_motion(), {0.375f, 0.0f, 0.25f});
  // walk: 0.5 → 0 (mean 0.25); strafe: 0.5 → 1 (mean 0.75).
  crowd.update(0.5f);
  expect_motion(a.take_root_motion(), {0.125f, 0.0f, 0.75f});
  crowd.update(0.5f);
  expect_motion(a.take_root_motion(), {0.0f, 0.0f, 1.0f});
}

TEST(RootMotion, ThePoseStaysInPlace) {
  Crowd crowd(root_asset(), with_root({.node = "root"}));
  Actor a = crowd.add_actor({.clip = "walk", .time = 0.5f, .playing = false});
  Pose pose = a.local_pose();
  EXPECT_NEAR(pose.translations[0].x, 0.0f, kTol);  // the value at clip time 0
  EXPECT_NEAR(pose.translations[0].y, 0.1f, kTol);  // y is not extracted: the bob stays
  EXPECT_NEAR(pose.translations[0].z, 0.0f, kTol);
  crowd.set_root_motion({.node = "root", .translation_xz = true, .translation_y = true});
  pose = a.local_pose();
  EXPECT_NEAR(pose.translations[0].y, 0.0f, kTol);
  crowd.set_root_motion({});
  pose = a.local_pose();
  EXPECT_NEAR(pose.translations[0].x, 0.5f, kTol);  // off again: the clip's own value
  EXPECT_NEAR(pose.translations[0].y, 0.1f, kTol);
}

TEST(RootMotion, VerticalMotionWhenAsked) {
  Crowd crowd(root_asset(), with_root({.node = "root", .translation_xz = false, .translation_y = true}));
  Actor a = crowd.add_actor({.clip = "walk"});
  crowd.update(0.5f);
  expect_motion(a.take_root_motion(), {0.0f, 0.1f, 0.0f});
  crowd.update(0.5f);
  expect_motion(a.take_root_motion(), {0.0f, -0.1f, 0.0f});
}

TEST(RootMotion, YawIsExtractedAndRemoved) {
  Crowd crowd(root_asset(), with_root({.node = "root", .translation_xz = false, .yaw = true}));
  Actor a = crowd.add_actor({.clip = "turn"});
  for (int i = 0; i < 4; ++i) crowd.update(0.25f);
  expect_motion(a.take_root_motion(), {0.0f, 0.0f, 0.0f}, kPi / 2.0f);
  crowd.update(10.0f);
  expect_motion(a.take_root_motion(), {0.0f, 0.0f, 0.0f}, 10.0f * kPi / 2.0f);
  a.seek(0.5f);
  const glm::quat q = a.local_pose().rotations[0];
  EXPECT_NEAR(std::abs(q.w), 1.0f, kTol);  // the heading stays at the clip start's (0)
}

TEST(RootMotion, ApplyToPlacementMovesTheActor) {
  Crowd crowd(root_asset(), with_root({.node = "root", .apply_to_placement = true}));
  Actor a = crowd.add_actor({.clip = "walk", .transform = glm::translate(glm::mat4(1.0f), glm::vec3(0, 0, 5))});
  const std::uint64_t before = crowd.placement_generations()[0];
  crowd.update(0.5f);
  EXPECT_GT(crowd.placement_generations()[0], before);
  crowd.update(2.0f);
  EXPECT_NEAR(a.transform()[3][0], 2.5f, kTol);
  EXPECT_NEAR(a.transform()[3][2], 5.0f, kTol);
  expect_motion(a.take_root_motion(), {0.0f, 0.0f, 0.0f});
}

TEST(RootMotion, PlacementTurnsWithYaw) {
  Crowd crowd(root_asset(), with_root({.node = "root", .yaw = true, .apply_to_placement = true}));
  Actor a = crowd.add_actor({.clip = "turn"});
  crowd.update(1.0f);
  // A quarter turn about +y: the placement's x axis now points along -z.
  EXPECT_NEAR(a.transform()[0][0], 0.0f, kTol);
  EXPECT_NEAR(a.transform()[0][2], -1.0f, kTol);
}

TEST(RootMotion, ClipsThatDoNotMoveTheRootAddNothing) {
  Crowd crowd(root_asset(), with_root({.node = "root", .yaw = true}));
  Actor a = crowd.add_actor({.clip = "still"});
  crowd.update(3.3f);
  expect_motion(a.take_root_motion(), {0.0f, 0.0f, 0.0f});
}

TEST(RootMotion, OffByDefault) {
  Crowd crowd(root_asset(), {.capacity = 2});
  Actor a = crowd.add_actor({.clip = "walk", .time = 0.5f});
  crowd.update(0.25f);
  expect_motion(a.take_root_motion(), {0.0f, 0.0f, 0.0f});
  EXPECT_NEAR(a.local_pose().translations[0].x, 0.75f, kTol);
  EXPECT_EQ(crowd.root_motion().node, "");
}

TEST(RootMotion, ErrorsChangeNothing) {
  Crowd crowd(root_asset(), with_root({.node = "root"}));
  Actor a = crowd.add_actor({.clip = "walk"});
  crowd.update(0.5f);
  try {
    crowd.set_root_motion({.node = "nope"});
    FAIL() << "expected Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "unknown_node");
    EXPECT_EQ(e.path(), "root_motion.node");
  }
  EXPECT_EQ(crowd.root_motion().node, "root");
  expect_motion(a.take_root_motion(), {0.5f, 0.0f, 0.0f});
  EXPECT_THROW({ Crowd bad(root_asset(), with_root({.node = "nope"})); }, Error);
}

// The motion comes from the clocks, which update() advances on the CPU for both evaluators
// (the GPU sample pass pins the pose: gpu_animation_test).
TEST(RootMotion, AccumulatesTheSameWithAnimationGpu) {
  CrowdOptions options = with_root({.node = "root"});
  options.animation = Animation::gpu;
  Crowd crowd(root_asset(), options);
  Actor a = crowd.add_actor({.clip = "walk"});
  crowd.update(2.5f);
  expect_motion(a.take_root_motion(), {2.5f, 0.0f, 0.0f});
  crowd.set_animation(Animation::cpu);
  crowd.set_animation(Animation::gpu);
  EXPECT_EQ(crowd.root_motion().node, "root");
}

TEST(RootMotion, RemovalMovesTheMotionAcrossSlots) {
  Crowd crowd(root_asset(), with_root({.node = "root"}));
  crowd.add_actor({.id = "first", .clip = "walk"});
  crowd.add_actor({.id = "second", .clip = "strafe"});
  crowd.update(0.5f);
  crowd.remove_actor("first");
  expect_motion(crowd.find_actor("second")->take_root_motion(), {0.0f, 0.0f, 1.0f});
}

// Slot `slot`'s instance transform in `stream` (3 rows of a 3 × 4 affine) as a 4 × 4 matrix.
glm::mat4 instance_matrix(const NodeStream& stream, std::size_t slot) {
  glm::mat4 m(1.0f);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) m[c][r] = stream.transforms[slot * 3 + static_cast<std::size_t>(r)][c];
  return m;
}

// Root motion applied to the placement of `count` actors playing `clip` (root `node`, its
// vertical motion): after every update, each actor's rows in every skinned stream are its
// placement × the rows it had at the identity placement; then the same after set_transform.
void expect_skinned_rows_follow_placement(std::shared_ptr<const Asset> asset, const std::string& node,
                                          const std::string& clip, int count, float step) {
  CrowdOptions options = with_root({.node = node, .translation_y = true, .apply_to_placement = true});
  options.capacity = 8;
  Crowd crowd(std::move(asset), options);
  std::vector<Actor> actors;
  for (int i = 0; i < count; ++i)
    actors.push_back(crowd.add_actor({.clip = clip, .phase = 0.1f * static_cast<float>(i)}));
  std::vector<std::size_t> skinned;    // streams
  std::vector<glm::mat4> at_identity;  // per skinned stream, slot 0's rows before any update
  for (std::size_t s = 0; s < crowd.node_streams().size(); ++s)
    if (crowd.node_streams()[s].joint_count > 0) {
      skinned.push_back(s);
      at_identity.push_back(instance_matrix(crowd.node_streams()[s], 0));
    }
  ASSERT_FALSE(skinned.empty());
  const auto expect_rows = [&] {
    for (std::size_t i = 0; i < skinned.size(); ++i)
      for (std::size_t slot = 0; slot < actors.size(); ++slot) {
        const glm::mat4 expected = actors[slot].transform() * at_identity[i];
        const glm::mat4 rows = instance_matrix(crowd.node_streams()[skinned[i]], slot);
        for (int c = 0; c < 4; ++c)
          for (int r = 0; r < 3; ++r)
            ASSERT_NEAR(rows[c][r], expected[c][r], kTol) << "stream " << skinned[i] << " slot " << slot;
      }
  };
  for (int frame = 0; frame < 6; ++frame) {
    crowd.update(step);
    expect_rows();
  }
  ASSERT_GT(std::abs(actors[0].transform()[3][1]), 1e-3f);  // it moved
  actors[0].set_transform(glm::translate(glm::mat4(1.0f), glm::vec3(3.0f, 0.0f, -2.0f)));
  expect_rows();
  crowd.update(step);
  expect_rows();
}

// A static skinned mesh's instance transform is the placement × the mesh's world, which no pose
// moves: root motion applied to the placement moves it in an update, set_transform at once. The
// built-in character's hips bob twice a loop (0.6 s each): 6 updates of 0.07 s. One actor is
// packed alone, six in one batch (docs/spec.md §5.8).
TEST(RootMotion, PlacementMovesStaticMeshRows) {
  const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  for (const int count : {1, 6}) {
    SCOPED_TRACE(count);
    expect_skinned_rows_follow_placement(asset, "Hips", "Walking", count, 0.07f);
  }
}

// The same where rigid nodes are drawn too, so that a batch's instance transforms run across
// lanes (instance_lanes): RobotExpressive, whose Body bobs as it runs.
TEST(RootMotion, PlacementMovesStaticMeshRowsAcrossLanes) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto asset = std::make_shared<const Asset>(load_asset(test::asset_path("threejs/RobotExpressive.glb")));
  expect_skinned_rows_follow_placement(asset, "Body", "Running", 6, 0.05f);
}

// The built-in character's Walking clip (1.2 s) with the root joint Hips: one loop moves the
// hips by value(D) - value(0) of its translation channel in x and z (tests/scalar_pose.hpp), and
// ten loops ten times that, frame by frame.
TEST(RootMotion, WalkingCharacterOverTenLoops) {
  const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  const int walking = asset->find_clip("Walking");
  const int hips = asset->find_node("Hips");
  ASSERT_GE(walking, 0);
  ASSERT_GE(hips, 0);
  const Clip& clip = asset->clips[static_cast<std::size_t>(walking)];
  const float d = clip.duration_seconds;
  const glm::vec3 start = test::scalar_clip_pose(*asset, clip, 0.0f).translations[static_cast<std::size_t>(hips)];
  const glm::vec3 end = test::scalar_clip_pose(*asset, clip, d).translations[static_cast<std::size_t>(hips)];
  const glm::vec3 loop{end.x - start.x, 0.0f, end.z - start.z};

  Crowd crowd(asset, with_root({.node = "Hips"}));
  Actor a = crowd.add_actor({.clip = "Walking"});
  const int frames = 24;  // one loop
  const float dt = d / static_cast<float>(frames);
  for (int i = 0; i < frames; ++i) crowd.update(dt);
  const RootMotion one = a.take_root_motion();
  EXPECT_NEAR(one.translation.x, loop.x, 1e-4f);
  EXPECT_NEAR(one.translation.z, loop.z, 1e-4f);
  for (int i = 0; i < 10 * frames; ++i) crowd.update(dt);
  const RootMotion ten = a.take_root_motion();
  EXPECT_NEAR(ten.translation.x, 10.0f * one.translation.x, 1e-4f);
  EXPECT_NEAR(ten.translation.z, 10.0f * one.translation.z, 1e-4f);
  EXPECT_EQ(ten.translation.y, 0.0f);

  // Every frame's motion is the hips' travel between the frame's clip times, across the wrap:
  // value(t1) - value(t0), or value(D) - value(t0) + value(t1) - value(0) when it wraps. The
  // clip's hips sway in x and z within a loop, so these are not zero even though a loop ends
  // where it starts (no stored asset walks its root forward).
  const auto hips_at = [&](float t) {
    return test::scalar_clip_pose(*asset, clip, t).translations[static_cast<std::size_t>(hips)];
  };
  float moved = 0.0f;
  for (int i = 0; i < 40; ++i) {
    const float t0 = a.time();
    crowd.update(0.07f);  // shorter than the clip: wraps at most once
    const float t1 = a.time();
    const glm::vec3 want = t1 >= t0 ? hips_at(t1) - hips_at(t0) : (end - hips_at(t0)) + (hips_at(t1) - start);
    const RootMotion got = a.take_root_motion();
    EXPECT_NEAR(got.translation.x, want.x, 1e-5f) << "frame " << i;
    EXPECT_NEAR(got.translation.z, want.z, 1e-5f) << "frame " << i;
    moved += std::abs(want.x) + std::abs(want.z);
  }
  EXPECT_GT(moved, 0.01f);

  // The hips stay at their clip-start x and z in the pose at any time.
  a.seek(0.37f * d);
  const glm::vec3 posed = a.local_pose().translations[static_cast<std::size_t>(hips)];
  EXPECT_NEAR(posed.x, start.x, 1e-5f);
  EXPECT_NEAR(posed.z, start.z, 1e-5f);
  const glm::vec3 sampled =
      test::scalar_clip_pose(*asset, clip, 0.37f * d).translations[static_cast<std::size_t>(hips)];
  EXPECT_NEAR(posed.y, sampled.y, 1e-5f);
}

}  // namespace
}  // namespace gltf_crowd
