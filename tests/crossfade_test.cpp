// Crossfades of docs/spec.md §3 never pop: at every 1/60 s frame of a 1 s crossfade, and of one
// interrupted half-way by a third clip, the contributor weights sum to 1 and follow docs/spec.md's
// linear ramp, the outgoing clips keep their own clocks, and no node moves further between two
// frames than the clips themselves move it. The "no pop" bound is derived from the clips' own
// motion (twice the largest per-frame displacement of any of them playing alone), and the test
// shows that a popping variant (a hard switch, or an interruption that forgets the clip still
// fading out) exceeds it. A hard switch returns the nodes the new clip does not animate to
// their rest TRS; the blend itself is checked against a blend written out here.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <set>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>
#include <tiny_gltf.h>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/pose.hpp"
#include "gltf_crowd/sampling.hpp"
#include "handmade_gltf.hpp"
#include "scalar_pose.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

constexpr float kFrame = 1.0f / 60.0f;

std::shared_ptr<const Asset> robot() {
  static const auto asset = std::make_shared<const Asset>(load_asset(test::asset_path("threejs/RobotExpressive.glb")));
  return asset;
}

// World positions of every node of the actor's current pose.
std::vector<glm::vec3> node_positions(const Actor& actor, const Asset& asset) {
  Pose pose = actor.local_pose();
  std::vector<glm::mat4> world(asset.nodes.size());
  compute_world_matrices(asset, pose.view(), actor.transform(), world);
  std::vector<glm::vec3> out;
  for (const glm::mat4& m : world) out.emplace_back(m[3]);
  return out;
}

float largest_move(const std::vector<glm::vec3>& a, const std::vector<glm::vec3>& b) {
  float m = 0.0f;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, glm::length(a[i] - b[i]));
  return m;
}

float weight_sum(const Actor& actor) {
  float sum = 0.0f;
  for (const Contributor& c : actor.contributors()) sum += c.weight;
  return sum;
}

float clip_duration(const Asset& asset, const char* name) {
  return asset.clips[static_cast<std::size_t>(asset.find_clip(name))].duration_seconds;
}

// The largest per-frame node displacement of `clip` playing alone from `start` for `frames`.
float own_motion(const std::shared_ptr<const Asset>& asset, const char* clip, float start, int frames) {
  Crowd crowd(asset, {.capacity = 1});
  const Actor a = crowd.add_actor({.clip = clip, .time = start});
  std::vector<glm::vec3> before = node_positions(a, *asset);
  float m = 0.0f;
  for (int f = 0; f < frames; ++f) {
    crowd.update(kFrame);
    const std::vector<glm::vec3> now = node_positions(a, *asset);
    m = std::max(m, largest_move(before, now));
    before = now;
  }
  return m;
}

// Expected clip time of a clip that started at `start` and advanced `frames` frames (repeat).
float repeat_time(float start, int frames, float duration) {
  return static_cast<float>(std::fmod(static_cast<double>(start) + frames * static_cast<double>(kFrame), duration));
}

TEST(CrossfadeTest, OneSecondCrossfadeNeverPops) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto asset = robot();
  const float walking_start = 0.3f;
  // Walking alone covers frames [0, 70) of the test, Running alone the same 70 frames from 0.
  const float bound =
      2.0f * std::max(own_motion(asset, "Walking", walking_start, 70), own_motion(asset, "Running", 0.0f, 70));
  ASSERT_GT(bound, 0.0f);

  Crowd crowd(asset, {.capacity = 2});
  Actor actor = crowd.add_actor({.id = "fading", .clip = "Walking", .time = walking_start});
  Actor hard = crowd.add_actor({.id = "hard", .clip = "Walking", .time = walking_start});
  std::vector<glm::vec3> before = node_positions(actor, *asset);
  actor.select_clip("Running", {.crossfade_seconds = 1.0f});
  // The popping variant: the same switch without a crossfade.
  const std::vector<glm::vec3> hard_before = node_positions(hard, *asset);
  hard.select_clip("Running");
  EXPECT_GT(largest_move(hard_before, node_positions(hard, *asset)), bound) << "the bound must be able to see a pop";

  EXPECT_LE(largest_move(before, node_positions(actor, *asset)), bound) << "at selection";
  const int walking = asset->find_clip("Walking"), running = asset->find_clip("Running");
  const float walking_d = clip_duration(*asset, "Walking"), running_d = clip_duration(*asset, "Running");
  for (int f = 1; f <= 70; ++f) {
    crowd.update(kFrame);
    const std::vector<glm::vec3> now = node_positions(actor, *asset);
    EXPECT_LE(largest_move(before, now), bound) << "frame " << f;
    before = now;
    EXPECT_NEAR(weight_sum(actor), 1.0f, 1e-6f) << "frame " << f;
    const std::vector<Contributor> c = actor.contributors();
    const float w = std::min(1.0f, static_cast<float>(f) * kFrame / 1.0f);  // linear ramp over F = 1 s
    if (w < 1.0f - 1e-5f) {
      ASSERT_EQ(c.size(), 2u) << "frame " << f;
      EXPECT_EQ(c[0].clip, static_cast<std::uint32_t>(running));
      EXPECT_EQ(c[1].clip, static_cast<std::uint32_t>(walking));
      EXPECT_NEAR(c[0].weight, w, 1e-5f) << "frame " << f;
      EXPECT_NEAR(c[1].weight, 1.0f - w, 1e-5f) << "frame " << f;
      // The outgoing clip keeps its own clock.
      EXPECT_NEAR(c[1].seconds, repeat_time(walking_start, f, walking_d), 1e-4f) << "frame " << f;
      EXPECT_NEAR(c[0].seconds, repeat_time(0.0f, f, running_d), 1e-4f) << "frame " << f;
    } else if (f > 61) {
      ASSERT_EQ(c.size(), 1u) << "Walking is dropped once its weight reaches 0";
      EXPECT_EQ(c[0].weight, 1.0f);
    }
  }
  EXPECT_EQ(actor.active_clip(), "Running");
}

TEST(CrossfadeTest, InterruptedCrossfadeScalesTheContributorsDownWithoutAPop) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto asset = robot();
  const float bound = 2.0f * std::max({own_motion(asset, "Walking", 0.0f, 100), own_motion(asset, "Running", 0.0f, 100),
                                       own_motion(asset, "Idle", 0.0f, 100)});
  Crowd crowd(asset, {.capacity = 2});
  Actor actor = crowd.add_actor({.id = "a", .clip = "Walking"});
  Actor forgetful = crowd.add_actor({.id = "forgetful", .clip = "Walking"});
  actor.select_clip("Running", {.crossfade_seconds = 1.0f});
  forgetful.select_clip("Running", {.crossfade_seconds = 1.0f});
  std::vector<glm::vec3> before = node_positions(actor, *asset);
  for (int f = 1; f <= 30; ++f) {
    crowd.update(kFrame);
    const std::vector<glm::vec3> now = node_positions(actor, *asset);
    EXPECT_LE(largest_move(before, now), bound) << "frame " << f;
    before = now;
  }
  // Half-way: Running 0.5, Walking 0.5. Interrupt with Idle.
  std::vector<Contributor> c = actor.contributors();
  ASSERT_EQ(c.size(), 2u);
  EXPECT_NEAR(c[0].weight, 0.5f, 1e-5f);
  const float running_time = c[0].seconds;
  actor.select_clip("Idle", {.crossfade_seconds = 1.0f});
  // The popping variant restarts the fade from the active clip alone, as if Walking were gone.
  forgetful.select_clip("Running", {.time = running_time});
  forgetful.select_clip("Idle", {.crossfade_seconds = 1.0f});
  EXPECT_GT(largest_move(before, node_positions(forgetful, *asset)), bound) << "the bound must be able to see a pop";
  EXPECT_LE(largest_move(before, node_positions(actor, *asset)), bound) << "at the interruption";

  const int walking = asset->find_clip("Walking"), running = asset->find_clip("Running"),
            idle = asset->find_clip("Idle");
  c = actor.contributors();
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].clip, static_cast<std::uint32_t>(idle));
  EXPECT_EQ(c[0].weight, 0.0f);
  for (int f = 1; f <= 70; ++f) {
    crowd.update(kFrame);
    const std::vector<glm::vec3> now = node_positions(actor, *asset);
    EXPECT_LE(largest_move(before, now), bound) << "frame " << f << " after the interruption";
    before = now;
    EXPECT_NEAR(weight_sum(actor), 1.0f, 1e-6f) << "frame " << f;
    c = actor.contributors();
    const float w = static_cast<float>(f) * kFrame;
    if (w < 1.0f - 1e-5f) {
      ASSERT_EQ(c.size(), 3u);
      EXPECT_EQ(c[1].clip, static_cast<std::uint32_t>(running));
      EXPECT_EQ(c[2].clip, static_cast<std::uint32_t>(walking));
      EXPECT_NEAR(c[0].weight, w, 1e-5f);
      // Both earlier clips are scaled down together from their shares at the interruption.
      EXPECT_NEAR(c[1].weight, 0.5f * (1.0f - w), 1e-5f);
      EXPECT_NEAR(c[2].weight, 0.5f * (1.0f - w), 1e-5f);
    } else if (f > 61) {
      ASSERT_EQ(c.size(), 1u);
      EXPECT_EQ(c[0].clip, static_cast<std::uint32_t>(idle));
    }
  }
}

// The blended pose equals docs/spec.md §3's blend written out here: each contributor = rest overridden
// by its clip at its own time; translations, scales and morph weights as weighted sums;
// rotations sign-aligned to the first contributor, summed and normalized.
void expect_weighted_sum_of_contributors(const Asset& asset, const Actor& actor) {
  const std::vector<Contributor> contributors = actor.contributors();
  std::vector<test::ScalarPose> poses;  // sampled by the tests' own scalar code
  for (const Contributor& c : contributors)
    poses.push_back(test::scalar_clip_pose(asset, asset.clips[c.clip], c.seconds));
  const Pose got = actor.local_pose();
  for (std::size_t n = 0; n < asset.nodes.size(); ++n) {
    glm::vec3 t(0.0f), s(0.0f);
    glm::vec4 r(0.0f);
    const glm::quat first = poses[0].rotations[n];
    for (std::size_t i = 0; i < poses.size(); ++i) {
      const float w = contributors[i].weight;
      t += w * poses[i].translations[n];
      s += w * poses[i].scales[n];
      const glm::quat q = poses[i].rotations[n];
      const float sign = q.x * first.x + q.y * first.y + q.z * first.z + q.w * first.w < 0.0f ? -1.0f : 1.0f;
      r += sign * w * glm::vec4(q.x, q.y, q.z, q.w);
    }
    r /= std::sqrt(glm::dot(r, r));
    for (int k = 0; k < 3; ++k) {
      EXPECT_NEAR(got.translations[n][k], t[k], 1e-5f * std::max(1.0f, std::abs(t[k]))) << "node " << n;
      EXPECT_NEAR(got.scales[n][k], s[k], 1e-5f) << "node " << n;
    }
    EXPECT_NEAR(got.rotations[n].x, r.x, 1e-5f) << "node " << n;
    EXPECT_NEAR(got.rotations[n].y, r.y, 1e-5f) << "node " << n;
    EXPECT_NEAR(got.rotations[n].z, r.z, 1e-5f) << "node " << n;
    EXPECT_NEAR(got.rotations[n].w, r.w, 1e-5f) << "node " << n;
  }
  const std::vector<float> morph = actor.morph_weights();
  for (std::size_t k = 0; k < asset.total_weights; ++k) {
    float want = 0.0f;
    for (std::size_t i = 0; i < poses.size(); ++i) want += contributors[i].weight * poses[i].weights[k];
    EXPECT_NEAR(morph[k], want, 1e-5f) << "morph weight " << k;
    EXPECT_NEAR(got.weights[k], want, 1e-5f) << "morph weight " << k;
  }
}

TEST(CrossfadeTest, BlendIsTheWeightedSumOfTheContributors) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto asset = robot();
  Crowd crowd(asset, {.capacity = 1});
  Actor actor = crowd.add_actor({.clip = "Wave", .phase = 0.2f});
  actor.select_clip("Dance", {.crossfade_seconds = 0.8f});
  crowd.update(0.3f);
  actor.select_clip("Yes", {.crossfade_seconds = 1.0f, .phase = 0.5f});
  crowd.update(0.25f);
  ASSERT_EQ(actor.contributors().size(), 3u);
  ASSERT_GT(asset->total_weights, 0u);
  expect_weighted_sum_of_contributors(*asset, actor);
}

// Clips that animate the same nodes (Fox's, and a clip with itself) take the crossfade path that
// skips the union of node lists and the rest fill: the same blend.
TEST(CrossfadeTest, ClipsOnTheSameNodesBlendToTheWeightedSum) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto fox = std::make_shared<const Asset>(load_asset(test::asset_path("khronos/Fox.glb")));
  const auto nodes_of = [&](const char* clip) {
    std::set<std::uint32_t> nodes;
    for (const Channel& ch : fox->clips[static_cast<std::size_t>(fox->find_clip(clip))].channels) nodes.insert(ch.node);
    return nodes;
  };
  ASSERT_EQ(nodes_of("Walk"), nodes_of("Run"));
  Crowd crowd(fox, {.capacity = 2});
  Actor actor = crowd.add_actor({.clip = "Walk", .phase = 0.3f});
  actor.select_clip("Run", {.crossfade_seconds = 1.0f, .phase = 0.6f});
  Actor itself = crowd.add_actor({.clip = "Survey", .phase = 0.1f});
  itself.select_clip("Survey", {.crossfade_seconds = 1.0f, .phase = 0.7f});
  crowd.update(0.45f);
  ASSERT_EQ(actor.contributors().size(), 2u);
  ASSERT_EQ(itself.contributors().size(), 2u);
  expect_weighted_sum_of_contributors(*fox, actor);
  expect_weighted_sum_of_contributors(*fox, itself);
}

// q and −q are the same rotation: a 50/50 blend of a clip holding q and one holding −q must hold
// that rotation, not cancel to nothing (an unaligned sum is 0 and normalizes to garbage).
TEST(CrossfadeTest, OppositeSignQuaternionsBlendToTheSameRotation) {
  const float c = std::cos(0.6f), s = std::sin(0.6f);  // 1.2 rad about (0, 0.6, 0.8)
  const auto hold = [](const char* name, std::vector<float> q) {
    test::HandmadeChannel ch;
    ch.path = "rotation";
    ch.times = {0.0f, 1.0f};
    ch.values = q;
    ch.values.insert(ch.values.end(), q.begin(), q.end());
    return test::HandmadeClip{name, {ch}};
  };
  const auto asset = std::make_shared<const Asset>(load_asset_from_memory(
      test::handmade_gltf(nlohmann::json::array({{{"name", "joint"}}}),
                          {hold("plus", {0.0f, 0.6f * s, 0.8f * s, c}), hold("minus", {0.0f, -0.6f * s, -0.8f * s, -c}),
                           hold("other", {s, 0.0f, 0.0f, c})})));
  Crowd crowd(asset, {.capacity = 1});
  Actor actor = crowd.add_actor({.clip = "plus"});
  actor.select_clip("minus", {.crossfade_seconds = 1.0f});
  const auto expect_plus = [&](const char* when) {
    const glm::quat q = actor.local_pose().rotations[0];
    const float d = std::abs(q.x * 0.0f + q.y * 0.6f * s + q.z * 0.8f * s + q.w * c);  // |cos(half angle between)|
    EXPECT_NEAR(d, 1.0f, 1e-6f) << when;
  };
  for (int f = 0; f < 8; ++f) {
    crowd.update(0.125f);
    expect_plus("during the fade from q to -q");
  }
  // Interrupted: the incoming clip starts at weight 0 and is the first contributor; the two
  // opposite-sign clips still blend to the same rotation.
  actor.select_clip("plus", {.crossfade_seconds = 1.0f});
  crowd.update(0.5f);
  ASSERT_EQ(actor.contributors().size(), 2u);
  actor.select_clip("other", {.crossfade_seconds = 1.0f});
  expect_plus("at the interruption");
}

// After a hard switch, nodes the new clip does not animate are at their rest TRS, in the pose and
// in the packed transforms. Each InterpolationTest clip animates a different node; rest values are
// read from the file with tinygltf.
TEST(CrossfadeTest, HardSwitchReturnsUnanimatedNodesToRest) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto path = test::asset_path("khronos/InterpolationTest.glb");
  tinygltf::TinyGLTF loader;
  tinygltf::Model model;
  std::string err, warn;
  ASSERT_TRUE(loader.LoadBinaryFromFile(&model, &err, &warn, path.string())) << err;
  const auto asset = std::make_shared<const Asset>(load_asset(path));
  const auto target_of = [&](const char* clip) {
    for (const auto& a : model.animations)
      if (a.name == clip) return a.channels[0].target_node;
    return -1;
  };
  const int moved = target_of("Linear Translation"), scaled = target_of("Step Scale");
  ASSERT_GE(moved, 0);
  ASSERT_GE(scaled, 0);
  ASSERT_NE(moved, scaled);
  const auto& rest = model.nodes[static_cast<std::size_t>(moved)].translation;
  const glm::vec3 rest_translation = rest.empty() ? glm::vec3(0.0f) : glm::vec3(rest[0], rest[1], rest[2]);

  for (const float fade : {0.0f, 0.5f}) {
    SCOPED_TRACE(fade);
    Crowd crowd(asset, {.capacity = 1});
    Actor actor = crowd.add_actor({.clip = "Linear Translation", .time = 0.5f});
    const glm::vec3 animated = actor.local_pose().translations[static_cast<std::size_t>(moved)];
    ASSERT_GT(glm::length(animated - rest_translation), 0.1f) << "the clip moves the node at t = 0.5";
    actor.select_clip("Step Scale", {.crossfade_seconds = fade, .time = 0.6f});
    if (fade > 0.0f) crowd.update(1.0f);  // completes the crossfade
    ASSERT_EQ(actor.contributors().size(), 1u);
    const Pose pose = actor.local_pose();
    for (int k = 0; k < 3; ++k)
      EXPECT_FLOAT_EQ(pose.translations[static_cast<std::size_t>(moved)][k], rest_translation[k]);
    // The packed instance transform of that node is its rest matrix (a root node, identity
    // placement): its translation column is the rest translation.
    bool found = false;
    for (const NodeStream& s : crowd.node_streams()) {
      if (s.node != static_cast<std::uint32_t>(moved)) continue;
      found = true;
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(s.transforms[static_cast<std::size_t>(k)].w, rest_translation[k], 1e-6f);
    }
    EXPECT_TRUE(found);
    // The new clip's own node is animated (its STEP scale is 0 on [0.5, 1) and [1.5, 2)).
    EXPECT_NE(pose.scales[static_cast<std::size_t>(scaled)], glm::vec3(1.0f));
  }
}

}  // namespace
}  // namespace gltf_crowd
