// Gait matched to speed and the foot-slip measure (docs/spec.md §15.5, §15.6): locomotion analysis
// (feet, ground speeds, contacts), the gait bands and rates, the SlipMeter, their errors, and the
// planted-foot slip of a walk under naive and matched playback. Expected values come from a
// hand-made biped whose speeds and contacts follow from its keys, and, for the shared assets and
// the built-in character, from foot positions sampled here with AssetPose.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"
#include "gltf_crowd/error.hpp"
#include "gltf_crowd/gait.hpp"
#include "gltf_crowd/pose.hpp"
#include "handmade_gltf.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

// A biped of four root nodes: Hips (0, 0.9, 0), Foot.L (0.1, 0, 0.3), Foot.R (-0.1, 0, -0.3),
// Head (0, 1.7, 0): height span 1.7, so the band is 0.051 and the speed floor 0.17/s. Clips:
//  - Walk (1 s, in place): each foot slides back 0.6 m on the ground in 0.5 s (1.2 m/s; Foot.L
//    over [0, 0.5], Foot.R over [0.5, 1]) and swings forward 0.15 high in the other half;
//  - Run (0.6 s, in place): back 1 m in 0.3 s (3.333 m/s), the same pattern;
//  - Idle (2 s): only the hips bob;
//  - WalkForward (1 s, root motion): Walk with the body moving 1.2 m along +z, planted feet still.
std::vector<std::uint8_t> biped_gltf(bool with_idle = true, bool with_run = true) {
  const nlohmann::json nodes = {{{"name", "Hips"}, {"translation", {0.0, 0.9, 0.0}}},
                                {{"name", "Foot.L"}, {"translation", {0.1, 0.0, 0.3}}},
                                {{"name", "Foot.R"}, {"translation", {-0.1, 0.0, -0.3}}},
                                {{"name", "Head"}, {"translation", {0.0, 1.7, 0.0}}}};
  const auto stride = [](float period, float reach, float lift) {
    const float half = period / 2, quarter = period / 4;
    return std::vector<test::HandmadeChannel>{{1,
                                               "translation",
                                               "LINEAR",
                                               {0, half, half + quarter, period},
                                               {0.1f, 0, reach, 0.1f, 0, -reach, 0.1f, lift, 0, 0.1f, 0, reach}},
                                              {2,
                                               "translation",
                                               "LINEAR",
                                               {0, quarter, half, period},
                                               {-0.1f, 0, -reach, -0.1f, lift, 0, -0.1f, 0, reach, -0.1f, 0, -reach}}};
  };
  std::vector<test::HandmadeClip> clips;
  clips.push_back({"Walk", stride(1.0f, 0.3f, 0.15f)});
  if (with_run) clips.push_back({"Run", stride(0.6f, 0.5f, 0.2f)});
  if (with_idle) {
    clips.push_back({"Idle", {{0, "translation", "LINEAR", {0, 1, 2}, {0, 0.9f, 0, 0, 0.88f, 0, 0, 0.9f, 0}}}});
  }
  test::HandmadeClip forward{"WalkForward", {}};
  forward.channels.push_back({0, "translation", "LINEAR", {0, 1}, {0, 0.9f, 0, 0, 0.9f, 1.2f}});
  forward.channels.push_back({3, "translation", "LINEAR", {0, 1}, {0, 1.7f, 0, 0, 1.7f, 1.2f}});
  forward.channels.push_back({1,
                              "translation",
                              "LINEAR",
                              {0, 0.5f, 0.75f, 1},
                              {0.1f, 0, 0.3f, 0.1f, 0, 0.3f, 0.1f, 0.15f, 0.9f, 0.1f, 0, 1.5f}});
  forward.channels.push_back({2,
                              "translation",
                              "LINEAR",
                              {0, 0.25f, 0.5f, 1},
                              {-0.1f, 0, -0.3f, -0.1f, 0.15f, 0.3f, -0.1f, 0, 0.9f, -0.1f, 0, 0.9f}});
  clips.push_back(forward);
  return test::handmade_gltf(nodes, clips);
}

// A clip that holds node 0 at (0.1, 0, 0), for documents that need one.
test::HandmadeClip still_clip() { return {"Still", {{0, "translation", "LINEAR", {0, 1}, {0.1f, 0, 0, 0.1f, 0, 0}}}}; }

Asset biped(bool with_idle = true, bool with_run = true) {
  return load_asset_from_memory(biped_gltf(with_idle, with_run));
}

std::size_t clip_index(const Asset& asset, const char* name) { return static_cast<std::size_t>(asset.find_clip(name)); }

template <typename Call>
void expect_error(Call call, const std::string& rule, const std::string& path) {
  try {
    call();
    ADD_FAILURE() << "no error; expected " << rule;
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), rule) << e.what();
    EXPECT_EQ(e.path(), path) << e.what();
  }
}

TEST(Gait, BipedGroundSpeedsFollowFromItsKeys) {
  const Asset asset = biped();
  const Locomotion loc = analyze_locomotion(asset);
  ASSERT_EQ(loc.feet.size(), 2u);
  EXPECT_EQ(asset.nodes[loc.feet[0]].name, "Foot.L");  // +x
  EXPECT_EQ(asset.nodes[loc.feet[1]].name, "Foot.R");
  EXPECT_NEAR(loc.height, 1.7f, 1e-5f);
  EXPECT_NEAR(loc.band, 0.051f, 1e-5f);
  EXPECT_NEAR(loc.speed_threshold, 0.17f, 1e-5f);

  const ClipLocomotion& walk = loc.clips[clip_index(asset, "Walk")];
  EXPECT_NEAR(walk.ground_speed, 1.2f, 1e-4f);
  EXPECT_FALSE(walk.root_motion);
  EXPECT_EQ(walk.root_node, -1);
  EXPECT_TRUE(walk.locomotion);
  EXPECT_EQ(walk.segments, 240u);
  EXPECT_NEAR(walk.distance.back(), 1.2f, 1e-4f);  // one foot planted at 1.2 m/s throughout

  const ClipLocomotion& run = loc.clips[clip_index(asset, "Run")];
  EXPECT_NEAR(run.ground_speed, 1.0f / 0.3f, 1e-3f);
  EXPECT_TRUE(run.locomotion);

  const ClipLocomotion& idle = loc.clips[clip_index(asset, "Idle")];
  EXPECT_EQ(idle.ground_speed, 0.0f);
  EXPECT_FALSE(idle.locomotion);

  const ClipLocomotion& forward = loc.clips[clip_index(asset, "WalkForward")];
  EXPECT_TRUE(forward.root_motion);
  EXPECT_NEAR(forward.ground_speed, 1.2f, 1e-4f);
  EXPECT_NEAR(forward.direction.x, 0.0f, 1e-5f);
  EXPECT_NEAR(forward.direction.y, 1.0f, 1e-5f);
  EXPECT_EQ(forward.root_node, 0);  // Hips: the lowest index among the moving roots
}

TEST(Gait, BipedContactsAreItsStancePhases) {
  const Asset asset = biped();
  const Locomotion loc = analyze_locomotion(asset);
  for (const char* name : {"Walk", "WalkForward"}) {
    SCOPED_TRACE(name);
    const std::size_t c = clip_index(asset, name);
    for (float t = 0.005f; t < 1.0f; t += 0.01f) {
      const bool left_stance = t < 0.5f;
      EXPECT_EQ(loc.planted(c, 0, t), left_stance) << t;
      EXPECT_EQ(loc.planted(c, 1, t), !left_stance) << t;
    }
  }
  const std::size_t idle = clip_index(asset, "Idle");
  EXPECT_TRUE(loc.planted(idle, 0, 1.0f));  // still feet on the ground
  EXPECT_FALSE(loc.planted(idle, 2, 1.0f));
  EXPECT_FALSE(loc.planted(99, 0, 1.0f));
}

TEST(Gait, NamedFeetAndTheirErrors) {
  const Asset asset = biped();
  const Locomotion loc = analyze_locomotion(asset, {.feet = {"Foot.R"}});
  ASSERT_EQ(loc.feet.size(), 1u);
  EXPECT_NEAR(loc.clips[clip_index(asset, "Walk")].ground_speed, 1.2f, 1e-4f);

  expect_error(
      [&] {
        analyze_locomotion(asset, {.feet = {"Foot.L", "Nope"}});
      },
      "unknown_node", "LocomotionOptions::feet[1]");
  expect_error(
      [&] {
        analyze_locomotion(asset, {.feet = {"Foot.L", "Foot.L"}});
      },
      "gait_feet", "LocomotionOptions::feet[1]");
  expect_error([&] { analyze_locomotion(asset, {.feet = std::vector<std::string>(9, "Foot.L")}); }, "gait_option",
               "LocomotionOptions::feet");
  // Nothing left of the midline (x = 0): no foot to detect.
  const Asset one_sided = load_asset_from_memory(test::handmade_gltf(
      {{{"name", "A"}, {"translation", {0.1, 0.0, 0.0}}}, {{"name", "B"}, {"translation", {0.1, 1.0, 0.0}}}},
      {still_clip()}));
  expect_error([&] { analyze_locomotion(one_sided); }, "gait_feet", "LocomotionOptions::feet");
  // A skeleton without height.
  const Asset flat = load_asset_from_memory(test::handmade_gltf(
      {{{"name", "A"}, {"translation", {0.1, 0.0, 0.0}}}, {{"name", "B"}, {"translation", {-0.1, 0.0, 0.0}}}},
      {still_clip()}));
  expect_error([&] { analyze_locomotion(flat); }, "gait_feet", "LocomotionOptions::feet");
}

TEST(Gait, ClipsAreChosenByNameAndSpeed) {
  const Asset asset = biped();
  const Locomotion loc = analyze_locomotion(asset);
  const GaitSet gait(asset, loc);
  EXPECT_EQ(gait.clip(Gait::idle), clip_index(asset, "Idle"));
  EXPECT_EQ(gait.clip(Gait::walk), clip_index(asset, "Walk"));  // shorter than WalkForward
  EXPECT_EQ(gait.clip(Gait::run), clip_index(asset, "Run"));
  EXPECT_NEAR(gait.ground_speed(Gait::walk), 1.2f, 1e-4f);

  const GaitSet named(asset, loc, {.clips = {.idle = "Idle", .walk = "WalkForward", .run = "Run"}});
  EXPECT_EQ(named.clip(Gait::walk), clip_index(asset, "WalkForward"));

  // Without idle and run: idle holds the walk at rate 0, run is the walk.
  const Asset walk_only = biped(false, false);
  const GaitSet bare(walk_only, analyze_locomotion(walk_only));
  EXPECT_FALSE(bare.has_idle());
  EXPECT_FALSE(bare.has_run());
  EXPECT_EQ(bare.clip(Gait::idle), bare.clip(Gait::walk));
  EXPECT_EQ(bare.rate(Gait::idle, 0.0f, 0.0f, 0.1f), 0.0f);
  EXPECT_TRUE(std::isinf(bare.bands().run_up));
}

TEST(Gait, BandsHaveHysteresis) {
  const Asset asset = biped();
  const GaitSet gait(asset, analyze_locomotion(asset));
  // Walk 1.2 m/s, run 1 / 0.3 m/s: stop 0.09, start 0.18, run above 1.1 × 2 and below 2 / 1.1.
  const float between = std::sqrt(1.2f / 0.3f);
  EXPECT_NEAR(gait.bands().stop, 0.09f, 1e-5f);
  EXPECT_NEAR(gait.bands().start, 0.18f, 1e-5f);
  EXPECT_NEAR(gait.bands().run_up, between * 1.1f, 1e-4f);
  EXPECT_NEAR(gait.bands().run_down, between / 1.1f, 1e-4f);

  struct Step {
    float speed;
    Gait gait;
  };
  const Step steps[] = {{0.0f, Gait::idle},  {0.15f, Gait::idle}, {0.2f, Gait::walk}, {0.1f, Gait::walk},
                        {0.05f, Gait::idle}, {2.1f, Gait::walk},  {2.3f, Gait::run},  {1.9f, Gait::run},
                        {1.7f, Gait::walk},  {3.0f, Gait::run},   {0.0f, Gait::idle}, {2.5f, Gait::run}};
  GaitState state;
  for (const Step& step : steps) {
    const Gait before = state.gait;
    EXPECT_EQ(gait.choose(state, step.speed), before != step.gait) << step.speed;
    EXPECT_EQ(state.gait, step.gait) << step.speed;
  }
  // Bands scale with the character.
  const GaitSet doubled(asset, analyze_locomotion(asset), {.scale = 2.0f});
  EXPECT_NEAR(doubled.bands().start, 0.36f, 1e-5f);
  EXPECT_NEAR(doubled.ground_speed(Gait::walk), 2.4f, 1e-4f);
}

TEST(Gait, RateMatchesTheAgentWithinItsLimits) {
  const Asset asset = biped();
  const Locomotion loc = analyze_locomotion(asset);
  const GaitSet mean(asset, loc, {.matching = RateMatching::mean});
  const GaitSet phase(asset, loc);
  EXPECT_NEAR(mean.rate(Gait::walk, 0.6f, 0.3f, 1.0f / 30), 0.5f, 1e-5f);
  EXPECT_NEAR(mean.rate(Gait::run, 5.0f, 0.3f, 1.0f / 30), 1.5f, 1e-4f);
  EXPECT_EQ(mean.rate(Gait::walk, 0.001f, 0.3f, 1.0f / 30), 0.05f);  // min_rate
  EXPECT_EQ(mean.rate(Gait::walk, 100.0f, 0.3f, 1.0f / 30), 4.0f);   // max_rate
  EXPECT_EQ(mean.rate(Gait::idle, 1.0f, 0.3f, 1.0f / 30), 1.0f);
  // The biped's walk covers ground at 1.2 m/s at every phase, so phase matching gives the mean rate,
  // across a loop too.
  for (const float t : {0.0f, 0.25f, 0.5f, 0.99f, 1.0f}) {
    EXPECT_NEAR(phase.rate(Gait::walk, 0.6f, t, 1.0f / 30), 0.5f, 1e-3f) << t;
    EXPECT_NEAR(phase.rate(Gait::walk, 2.4f, t, 1.0f), 2.0f, 1e-3f) << t;  // two loops
  }
  EXPECT_NEAR(phase.rate(Gait::walk, 0.6f, 0.3f, 0.0f), 0.5f, 1e-5f);  // no step: the mean rate
}

TEST(Gait, BadInputIsAnErrorNamingIt) {
  const Asset asset = biped();
  const Locomotion loc = analyze_locomotion(asset);
  expect_error([&] { GaitSet(asset, loc, {.clips = {.walk = "Stroll"}}); }, "unknown_clip", "GaitOptions::clips.walk");
  expect_error([&] { GaitSet(asset, loc, {.clips = {.idle = "Nap"}}); }, "unknown_clip", "GaitOptions::clips.idle");
  expect_error([&] { GaitSet(asset, loc, {.clips = {.walk = "Idle"}}); }, "gait_no_locomotion",
               "GaitOptions::clips.walk");
  expect_error([&] { GaitSet(asset, loc, {.clips = {.walk = "Run", .run = "Walk"}}); }, "gait_speeds",
               "GaitOptions::clips.run");
  expect_error([&] { GaitSet(asset, loc, {.scale = 0.0f}); }, "gait_option", "GaitOptions::scale");
  expect_error([&] { GaitSet(asset, loc, {.min_rate = std::numeric_limits<float>::quiet_NaN()}); }, "gait_option",
               "GaitOptions::min_rate");
  expect_error([&] { GaitSet(asset, loc, {.min_rate = 2.0f, .max_rate = 1.0f}); }, "gait_option",
               "GaitOptions::max_rate");
  // A character whose only clip stands still.
  const Asset still = load_asset_from_memory(
      test::handmade_gltf({{{"name", "L"}, {"translation", {0.1, 0.0, 0.0}}},
                           {{"name", "R"}, {"translation", {-0.1, 0.0, 0.0}}},
                           {{"name", "Head"}, {"translation", {0.0, 1.7, 0.0}}}},
                          {{"Idle", {{2, "translation", "LINEAR", {0, 1}, {0, 1.7f, 0, 0, 1.6f, 0}}}}}));
  expect_error([&] { GaitSet(still, analyze_locomotion(still)); }, "gait_no_locomotion", "GaitOptions::clips.walk");

  const GaitSet gait(asset, loc);
  GaitState state;
  expect_error([&] { gait.choose(state, std::numeric_limits<float>::quiet_NaN()); }, "not_finite", "speed");
  expect_error([&] { gait.choose(state, -1.0f); }, "negative", "speed");
  EXPECT_EQ(state.gait, Gait::idle);
  expect_error([&] { gait.rate(Gait::walk, std::numeric_limits<float>::infinity(), 0.0f, 0.1f); }, "not_finite",
               "speed");
  expect_error([&] { gait.rate(Gait::walk, 1.0f, std::numeric_limits<float>::quiet_NaN(), 0.1f); }, "not_finite",
               "clip_seconds");
  expect_error([&] { gait.rate(Gait::walk, 1.0f, 0.0f, -0.1f); }, "negative", "dt");
}

TEST(FootSlip, MeterReportsPlantedHorizontalSpeeds) {
  // One foot moving 1..100 cm/s in x and 5 cm/s in y (not counted) for 100 frames 0.1 s apart.
  std::vector<glm::vec3> positions(101);
  for (std::size_t k = 1; k < positions.size(); ++k) {
    positions[k] = positions[k - 1] + glm::vec3(0.001f * static_cast<float>(k), 0.005f, 0.0f);
  }
  std::vector<std::uint8_t> planted(positions.size(), 1);
  SlipMeter meter;
  meter.add_trajectory(positions, planted, 0.1f);
  SlipStats stats = meter.stats();
  EXPECT_EQ(stats.steps, 100u);
  EXPECT_NEAR(stats.mean, 50.5, 1e-3);
  EXPECT_NEAR(stats.p95, 95.0, SlipMeter::bin_width + 1e-3);  // the 95th of 100 steps
  EXPECT_NEAR(stats.max, 100.0, 1e-3);

  // A step counts only when planted at both ends: unplanting frame 50 drops steps 50 and 51.
  planted[50] = 0;
  SlipMeter partial;
  partial.add_trajectory(positions, planted, 0.1f);
  EXPECT_EQ(partial.stats().steps, 98u);
  EXPECT_NEAR(partial.stats().mean, (5050.0 - 50 - 51) / 98, 1e-3);

  partial.merge(meter);
  EXPECT_EQ(partial.stats().steps, 198u);
  EXPECT_TRUE(meter.add_step({0, 0, 0}, {0, 0, 30}, 1.0f));  // 3000 cm/s: the last bin, exact max
  EXPECT_EQ(meter.stats().max, 3000.0);
  EXPECT_FALSE(meter.add_step({0, 0, 0}, {0, 0, 1}, 0.0f));
  EXPECT_FALSE(meter.add_step({0, 0, 0}, {std::numeric_limits<float>::quiet_NaN(), 0, 0}, 0.1f));
  EXPECT_EQ(SlipMeter().stats().steps, 0u);

  SlipMeter untouched;
  expect_error([&] { untouched.add_trajectory(positions, std::vector<std::uint8_t>(3, 1), 0.1f); }, "foot_slip_input",
               "planted");
  expect_error([&] { untouched.add_trajectory(positions, planted, 0.0f); }, "foot_slip_input", "dt");
  positions[7].z = std::numeric_limits<float>::infinity();
  expect_error([&] { untouched.add_trajectory(positions, planted, 0.1f); }, "not_finite", "positions[7]");
  EXPECT_EQ(untouched.stats().steps, 0u);
}

// The mean backward speed of `feet` over the segments where a foot is within 0.03 H of its lowest
// point and moves backward (-z), from `samples` poses: the ground speed of an in-place clip,
// computed here from positions, H the skin joints' height span at rest.
float sampled_ground_speed(const Asset& asset, std::size_t clip, const std::vector<std::uint32_t>& feet, int samples) {
  AssetPose pose(asset);
  std::vector<glm::mat4> world(asset.nodes.size());
  pose.set_rest();
  pose.world_matrices(glm::mat4(1.0f), world);
  float low = 1e30f, high = -1e30f;
  for (const Skin& skin : asset.skins) {
    for (const std::uint32_t j : skin.joints) {
      low = std::min(low, world[j][3].y);
      high = std::max(high, world[j][3].y);
    }
  }
  const float band = 0.03f * (high - low);
  const float duration = asset.clips[clip].duration_seconds;
  std::vector<std::vector<glm::vec3>> track(feet.size());
  for (int i = 0; i <= samples; ++i) {
    pose.set_clip(clip, duration * static_cast<float>(i) / static_cast<float>(samples));
    pose.world_matrices(glm::mat4(1.0f), world);
    for (std::size_t f = 0; f < feet.size(); ++f) track[f].emplace_back(world[feet[f]][3]);
  }
  double distance = 0.0, time = 0.0;
  for (const auto& p : track) {
    float lowest = 1e30f;
    for (const glm::vec3& q : p) lowest = std::min(lowest, q.y);
    for (int i = 0; i < samples; ++i) {
      const float dz = p[static_cast<std::size_t>(i) + 1].z - p[static_cast<std::size_t>(i)].z;
      if (p[static_cast<std::size_t>(i)].y <= lowest + band && p[static_cast<std::size_t>(i) + 1].y <= lowest + band &&
          dz < 0.0f) {
        distance -= dz;
        time += static_cast<double>(duration) / samples;
      }
    }
  }
  return static_cast<float>(distance / time);
}

struct Character {
  const char* label;
  std::shared_ptr<const Asset> asset;
  float scale;  // to about a person's size
  const char* left;
  const char* right;
};

std::vector<Character> characters() {
  return {
      {"RobotExpressive", std::make_shared<const Asset>(load_asset(test::asset_path("threejs/RobotExpressive.glb"))),
       0.4f, "Foot.L", "Foot.R"},
      {"built-in", std::make_shared<const Asset>(load_asset_from_memory(default_character_glb())), 1.0f, "LeftToes",
       "RightToes"},
      {"CesiumMan", std::make_shared<const Asset>(load_asset(test::asset_path("khronos/CesiumMan.glb"))), 1.0f,
       "leg_joint_L_5", "leg_joint_R_5"},
  };
}

TEST(Gait, SharedCharactersWalkSlowerThanTheyRun) {
  GLTF_CROWD_REQUIRE_ASSETS();
  for (const Character& c : characters()) {
    SCOPED_TRACE(c.label);
    const Asset& asset = *c.asset;
    const Locomotion loc = analyze_locomotion(asset);
    ASSERT_EQ(loc.feet.size(), 2u);
    EXPECT_EQ(asset.nodes[loc.feet[0]].name, c.left);
    EXPECT_EQ(asset.nodes[loc.feet[1]].name, c.right);
    const GaitSet gait(asset, loc);
    const std::size_t walk = gait.clip(Gait::walk);
    EXPECT_TRUE(loc.clips[walk].locomotion);
    EXPECT_FALSE(loc.clips[walk].root_motion);  // all three walk in place
    const float measured = sampled_ground_speed(asset, walk, loc.feet, 2000);
    EXPECT_NEAR(loc.clips[walk].ground_speed, measured, 0.02f * measured);
    std::printf("[ speeds   ] %-15s walk %-10s %.3f units/s (sampled %.3f)", c.label, asset.clips[walk].name.c_str(),
                loc.clips[walk].ground_speed, measured);
    if (gait.has_run()) {
      const std::size_t run = gait.clip(Gait::run);
      const float run_measured = sampled_ground_speed(asset, run, loc.feet, 2000);
      EXPECT_NEAR(loc.clips[run].ground_speed, run_measured, 0.02f * run_measured);
      EXPECT_GT(run_measured, measured);
      std::printf(", run %s %.3f (sampled %.3f)", asset.clips[run].name.c_str(), loc.clips[run].ground_speed,
                  run_measured);
    }
    std::printf("\n");
    if (gait.has_idle()) {
      EXPECT_FALSE(loc.clips[gait.clip(Gait::idle)].locomotion);
    }
  }
}

TEST(Gait, SharedCharactersChooseTheirClips) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto all = characters();
  const auto name = [](const Character& c, const GaitSet& g, Gait gait) { return c.asset->clips[g.clip(gait)].name; };
  for (std::size_t i = 0; i < 2; ++i) {
    const GaitSet gait(*all[i].asset, analyze_locomotion(*all[i].asset));
    EXPECT_EQ(name(all[i], gait, Gait::idle), "Idle");
    EXPECT_EQ(name(all[i], gait, Gait::walk), "Walking");
    EXPECT_EQ(name(all[i], gait, Gait::run), "Running");
  }
  // CesiumMan's one clip has no name: it walks by its speed, with neither idle nor run.
  const GaitSet cesium(*all[2].asset, analyze_locomotion(*all[2].asset));
  EXPECT_EQ(cesium.clip(Gait::walk), 0u);
  EXPECT_FALSE(cesium.has_idle());
  EXPECT_FALSE(cesium.has_run());
}

enum class Playback { naive, mean, phase };

// An agent walking along +z at `speed` for 10 s at 30 fps with the character's walk clip in a
// Crowd: the world slip of its planted feet (node_world), rate 1 (naive) or matched.
SlipStats walk_slip(const Character& c, const Locomotion& loc, float speed, Playback playback) {
  const GaitSet gait(
      *c.asset, loc,
      {.scale = c.scale, .matching = playback == Playback::mean ? RateMatching::mean : RateMatching::phase});
  const std::uint32_t clip = gait.clip(Gait::walk);
  Crowd crowd(c.asset);
  Actor actor = crowd.add_actor({.clip = c.asset->clips[clip].name});
  const float dt = 1.0f / 30.0f;
  SlipMeter meter;
  std::vector<glm::vec3> previous(loc.feet.size());
  std::vector<bool> was_planted(loc.feet.size(), false);
  for (int k = 0; k <= 300; ++k) {
    if (k > 0) {
      actor.set_speed(playback == Playback::naive ? 1.0f : gait.rate(Gait::walk, speed, actor.time(), dt));
      crowd.update(dt);
    }
    const glm::mat4 placement = glm::translate(glm::mat4(1.0f), {0.0f, 0.0f, speed * dt * static_cast<float>(k)});
    actor.set_transform(glm::scale(placement, glm::vec3(c.scale)));
    for (std::size_t f = 0; f < loc.feet.size(); ++f) {
      const glm::vec3 at(actor.node_world(loc.feet[f])[3]);
      const bool planted = loc.planted(clip, f, actor.time());
      if (k > 0 && planted && was_planted[f]) meter.add_step(previous[f], at, dt);
      previous[f] = at;
      was_planted[f] = planted;
    }
  }
  return meter.stats();
}

// Issue 61's target, matched mean slip <= 25 % of naive and <= 3 cm/s at 0.8-1.6 m/s, asserted on
// RobotExpressive; the built-in character and CesiumMan are reported (their walks' planted feet
// drift sideways in the clip, which no playback rate removes).
TEST(FootSlip, MatchingTheRateReducesWalkSlip) {
  GLTF_CROWD_REQUIRE_ASSETS();
  for (const Character& c : characters()) {
    const Locomotion loc = analyze_locomotion(*c.asset);
    for (const float speed : {0.8f, 1.2f, 1.6f}) {
      SCOPED_TRACE(std::string(c.label) + " at " + std::to_string(speed));
      const SlipStats naive = walk_slip(c, loc, speed, Playback::naive);
      const SlipStats mean = walk_slip(c, loc, speed, Playback::mean);
      const SlipStats phase = walk_slip(c, loc, speed, Playback::phase);
      std::printf(
          "[ slip     ] %-15s %.1f m/s  naive %5.1f (p95 %5.1f, %3llu steps)  mean-rate %5.1f (p95 %5.1f)  "
          "phase-rate %5.2f (p95 %5.1f, max %5.1f, %3llu steps) cm/s\n",
          c.label, speed, naive.mean, naive.p95, static_cast<unsigned long long>(naive.steps), mean.mean, mean.p95,
          phase.mean, phase.p95, phase.max, static_cast<unsigned long long>(phase.steps));
      ASSERT_GT(naive.steps, 0u);
      ASSERT_GT(phase.steps, 0u);
      EXPECT_LT(phase.mean, naive.mean);
      if (c.label == std::string("RobotExpressive")) {
        EXPECT_LE(phase.mean, 0.25 * naive.mean);
        EXPECT_LE(phase.mean, 3.0);
      }
    }
  }
}

}  // namespace
}  // namespace gltf_crowd
