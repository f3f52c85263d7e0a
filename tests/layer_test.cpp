// Animation layers (docs/spec.md §3.11) on the built-in character: override and additive layers,
// bone masks, weight fades, crossfades within a layer, layer order, events and errors. Expected
// poses are the test's own: clips sampled by scalar_pose.hpp, layers combined here by the spec's
// formulas, masks walked here from the asset's children lists, skinned by packed_skinning.hpp;
// never the library's evaluation.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <glm/gtc/quaternion.hpp>
#include <gtest/gtest.h>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"
#include "packed_skinning.hpp"
#include "scalar_pose.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

std::shared_ptr<const Asset> character() {
  static const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  return asset;
}

const Clip& clip_named(const Asset& asset, const char* name) {
  return asset.clips[static_cast<std::size_t>(asset.find_clip(name))];
}

std::uint32_t node_named(const Asset& asset, const char* name) {
  const int n = asset.find_node(name);
  EXPECT_GE(n, 0) << name;
  return static_cast<std::uint32_t>(n);
}

// A mask as the spec defines it, walked here: each branch sets its node and descendants.
std::vector<float> scalar_mask(const Asset& asset, const std::vector<std::pair<const char*, float>>& branches) {
  std::vector<float> mask(asset.nodes.size(), 0.0f);
  for (const auto& [name, weight] : branches) {
    std::vector<std::uint32_t> todo{node_named(asset, name)};
    while (!todo.empty()) {
      const std::uint32_t n = todo.back();
      todo.pop_back();
      mask[n] = weight;
      for (std::uint32_t c : asset.nodes[n].children) todo.push_back(c);
    }
  }
  return mask;
}

// One layer as the test applies it.
struct ScalarLayer {
  test::ScalarPose pose;                      // the layer's clips blended over rest
  std::set<std::uint32_t> nodes;              // nodes its clips animate (TRS)
  std::set<std::uint32_t> weights;            // flat morph weights its clips animate
  std::optional<test::ScalarPose> reference;  // additive: what it subtracts
  float weight = 1.0f;
  std::vector<float> mask;  // per node; empty = 1 everywhere
};

void add_animated(const Asset& asset, const Clip& clip, ScalarLayer& layer) {
  for (const Channel& ch : clip.channels) {
    if (ch.path != ChannelPath::weights) {
      layer.nodes.insert(ch.node);
      continue;
    }
    for (std::uint32_t c = 0; c < ch.components; ++c) layer.weights.insert(asset.weight_offsets[ch.node] + c);
  }
}

ScalarLayer one_clip_layer(const Asset& asset, const char* clip, float seconds) {
  ScalarLayer layer;
  layer.pose = test::scalar_clip_pose(asset, clip_named(asset, clip), seconds);
  add_animated(asset, clip_named(asset, clip), layer);
  return layer;
}

float mask_of(const ScalarLayer& layer, std::uint32_t node) { return layer.mask.empty() ? 1.0f : layer.mask[node]; }

// The node whose mesh flat morph weight i belongs to.
std::uint32_t weight_node(const Asset& asset, std::uint32_t i) {
  std::uint32_t node = 0;
  while (!(i >= asset.weight_offsets[node] && i < asset.weight_offsets[node] + asset.weight_counts[node])) ++node;
  return node;
}

// Override: lerp translation, scale and weights; rotation normalize((1 − w)·a + w·±b).
void apply_override(const Asset& asset, const ScalarLayer& layer, test::ScalarPose& pose) {
  for (std::uint32_t n : layer.nodes) {
    const float w = layer.weight * mask_of(layer, n);
    if (w <= 0.0f) continue;
    const glm::quat a = pose.rotations[n], b = layer.pose.rotations[n];
    pose.translations[n] = glm::mix(pose.translations[n], layer.pose.translations[n], w);
    pose.scales[n] = glm::mix(pose.scales[n], layer.pose.scales[n], w);
    pose.rotations[n] = glm::normalize(a * (1.0f - w) + (glm::dot(a, b) < 0.0f ? -b : b) * w);
  }
  for (std::uint32_t i : layer.weights) {
    const float w = layer.weight * mask_of(layer, weight_node(asset, i));
    if (w > 0.0f) pose.weights[i] = glm::mix(pose.weights[i], layer.pose.weights[i], w);
  }
}

// Additive: Δ = layer ⊖ reference; t + w·Δt, s·(1 + w·(Δs − 1)), r · normalize(mix(1, Δr, w)).
void apply_additive(const Asset& asset, const ScalarLayer& layer, test::ScalarPose& pose) {
  const test::ScalarPose& ref = *layer.reference;
  for (std::uint32_t n : layer.nodes) {
    const float w = layer.weight * mask_of(layer, n);
    if (w <= 0.0f) continue;
    pose.translations[n] += w * (layer.pose.translations[n] - ref.translations[n]);
    pose.scales[n] *= glm::vec3(1.0f) + w * (layer.pose.scales[n] / ref.scales[n] - glm::vec3(1.0f));
    glm::quat d = glm::inverse(ref.rotations[n]) * layer.pose.rotations[n];
    if (d.w < 0.0f) d = -d;
    const glm::quat part = glm::normalize(glm::quat(1.0f, 0.0f, 0.0f, 0.0f) * (1.0f - w) + d * w);
    pose.rotations[n] = glm::normalize(pose.rotations[n] * part);
  }
  for (std::uint32_t i : layer.weights)
    pose.weights[i] += layer.weight * mask_of(layer, weight_node(asset, i)) * (layer.pose.weights[i] - ref.weights[i]);
}

void expect_pose_near(const Pose& got, const test::ScalarPose& want, float tolerance = 2e-5f) {
  for (std::size_t n = 0; n < want.translations.size(); ++n) {
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(got.translations[n][c], want.translations[n][c], tolerance) << "node " << n;
      EXPECT_NEAR(got.scales[n][c], want.scales[n][c], tolerance) << "node " << n;
    }
    EXPECT_NEAR(std::abs(glm::dot(got.rotations[n], want.rotations[n])), 1.0f, tolerance) << "node " << n;
  }
  ASSERT_EQ(got.weights.size(), want.weights.size());
  for (std::size_t i = 0; i < want.weights.size(); ++i) EXPECT_NEAR(got.weights[i], want.weights[i], tolerance);
}

// How much two poses differ, so a test can show its layer changed something.
float difference(const test::ScalarPose& a, const test::ScalarPose& b) {
  float d = 0.0f;
  for (std::size_t n = 0; n < a.rotations.size(); ++n)
    d = std::max({d, glm::length(a.translations[n] - b.translations[n]),
                  1.0f - std::abs(glm::dot(a.rotations[n], b.rotations[n]))});
  return d;
}

const MaskBranch kUpperBody[] = {{"Spine", 1.0f}, {"Neck", 0.5f}};

TEST(LayerTest, MaskedOverrideLayerBlendsTheUpperBodyOnly) {
  const auto asset = character();
  Crowd crowd(asset, {.capacity = 3});
  crowd.add_mask("upper", kUpperBody);
  Actor a = crowd.add_actor({.clip = "Walking", .time = 0.3f, .playing = false});
  crowd.add_actor({.clip = "Walking", .time = 0.3f, .playing = false});  // no layer
  ActorLayer upper = a.layer(1);
  upper.select_clip("Wave", {.time = 0.7f});
  upper.set_mask("upper");
  upper.set_weight(0.8f);
  EXPECT_EQ(upper.mask(), "upper");
  EXPECT_EQ(upper.active_clip(), "Wave");

  ScalarLayer layer = one_clip_layer(*asset, "Wave", 0.7f);
  layer.weight = 0.8f;
  layer.mask = scalar_mask(*asset, {{"Spine", 1.0f}, {"Neck", 0.5f}});
  const std::vector<float> mask(crowd.mask_weights("upper").begin(), crowd.mask_weights("upper").end());
  EXPECT_EQ(mask, layer.mask);
  const test::ScalarPose base = test::scalar_clip_pose(*asset, clip_named(*asset, "Walking"), 0.3f);
  test::ScalarPose want = base;
  apply_override(*asset, layer, want);
  EXPECT_GT(difference(want, base), 0.05f) << "the layer must move the pose for the test to mean anything";
  expect_pose_near(a.local_pose(), want);
  // Legs are outside the mask: exactly the walk.
  const std::uint32_t leg = node_named(*asset, "LeftUpperLeg");
  EXPECT_EQ(a.local_pose().rotations[leg], crowd.actors()[1].local_pose().rotations[leg]);
  EXPECT_GE(test::expect_packed_skinning(crowd, [&](std::uint32_t slot) { return slot == 0 ? want : base; }), 50);
}

TEST(LayerTest, AdditiveLayerAddsItsDifferenceFromTheFirstKey) {
  const auto asset = character();
  Crowd crowd(asset, {.capacity = 2});
  Actor a = crowd.add_actor({.clip = "Running", .time = 0.5f, .playing = false});
  ActorLayer breathe = a.layer(2);  // layer 1 stays empty: it changes nothing
  breathe.set_mode(LayerMode::additive);
  breathe.select_clip("Dance", {.time = 1.3f});
  breathe.set_weight(0.6f);

  ScalarLayer layer = one_clip_layer(*asset, "Dance", 1.3f);
  layer.weight = 0.6f;
  layer.reference = test::scalar_clip_pose(*asset, clip_named(*asset, "Dance"), 0.0f);
  const test::ScalarPose base = test::scalar_clip_pose(*asset, clip_named(*asset, "Running"), 0.5f);
  test::ScalarPose want = base;
  apply_additive(*asset, layer, want);
  EXPECT_GT(difference(want, base), 0.01f);
  expect_pose_near(a.local_pose(), want);
  EXPECT_GE(test::expect_packed_skinning(crowd, [&](std::uint32_t) { return want; }), 25);

  // At the reference time itself the difference is the identity: the base pose comes back.
  breathe.seek(0.0f);
  expect_pose_near(a.local_pose(), base, 1e-5f);
}

TEST(LayerTest, AdditiveLayerWithANamedReferenceFrame) {
  const auto asset = character();
  Crowd crowd(asset, {.capacity = 1});
  Actor a = crowd.add_actor({.clip = "Walking", .time = 0.9f, .playing = false});
  ActorLayer lean = a.layer(1);
  lean.set_mode(LayerMode::additive);
  lean.set_additive_reference("Dance", 0.4f);
  lean.select_clip("Wave", {.time = 0.25f});

  ScalarLayer layer = one_clip_layer(*asset, "Wave", 0.25f);
  layer.reference = test::scalar_clip_pose(*asset, clip_named(*asset, "Dance"), 0.4f);
  test::ScalarPose want = test::scalar_clip_pose(*asset, clip_named(*asset, "Walking"), 0.9f);
  apply_additive(*asset, layer, want);
  expect_pose_near(a.local_pose(), want);
}

TEST(LayerTest, LayersApplyInOrderAndTheirWeightsFade) {
  const auto asset = character();
  Crowd crowd(asset, {.capacity = 1});
  crowd.add_mask("arms", std::vector<MaskBranch>{{"LeftShoulder"}, {"RightShoulder"}});
  Actor a = crowd.add_actor({.clip = "Walking", .time = 0.2f, .playing = false});
  ActorLayer first = a.layer(1), second = a.layer(2);
  first.select_clip("Dance", {.time = 1.0f});
  first.pause();
  second.set_mode(LayerMode::additive);
  second.set_mask("arms");
  second.select_clip("Wave", {.time = 0.5f});
  second.pause();
  second.set_weight(0.0f, 2.0f);  // from 1 to 0 over 2 s of update time
  crowd.update(0.5f);
  EXPECT_FLOAT_EQ(second.weight(), 0.75f);
  EXPECT_FLOAT_EQ(second.target_weight(), 0.0f);

  ScalarLayer dance = one_clip_layer(*asset, "Dance", 1.0f);
  ScalarLayer wave = one_clip_layer(*asset, "Wave", 0.5f);
  wave.reference = test::scalar_clip_pose(*asset, clip_named(*asset, "Wave"), 0.0f);
  wave.weight = 0.75f;
  wave.mask = scalar_mask(*asset, {{"LeftShoulder", 1.0f}, {"RightShoulder", 1.0f}});
  test::ScalarPose want = test::scalar_clip_pose(*asset, clip_named(*asset, "Walking"), 0.2f);
  apply_override(*asset, dance, want);
  apply_additive(*asset, wave, want);
  expect_pose_near(a.local_pose(), want);
  EXPECT_GE(test::expect_packed_skinning(crowd, [&](std::uint32_t) { return want; }), 25);

  crowd.update(10.0f);  // the fade ends at 0: the second layer no longer contributes
  EXPECT_EQ(second.weight(), 0.0f);
  test::ScalarPose without = test::scalar_clip_pose(*asset, clip_named(*asset, "Walking"), 0.2f);
  apply_override(*asset, dance, without);
  expect_pose_near(a.local_pose(), without);
}

TEST(LayerTest, CrossfadeWithinALayer) {
  const auto asset = character();
  Crowd crowd(asset, {.capacity = 1});
  Actor a = crowd.add_actor({.clip = "Idle", .time = 0.0f, .playing = false});
  ActorLayer layer = a.layer(1);
  layer.select_clip("Walking", {.time = 0.1f});
  layer.set_weight(0.7f);
  layer.select_clip("Running", {.crossfade_seconds = 1.0f, .time = 0.2f});
  crowd.update(0.25f);  // the base is paused; the layer plays
  const std::vector<Contributor> c = layer.contributors();
  ASSERT_EQ(c.size(), 2u);
  EXPECT_NEAR(c[0].weight, 0.25f, 1e-6f);

  // The layer's pose: its two clips blended as a crossfade is (docs/spec.md §3.6).
  const test::ScalarPose run = test::scalar_clip_pose(*asset, clip_named(*asset, "Running"), c[0].seconds);
  const test::ScalarPose walk = test::scalar_clip_pose(*asset, clip_named(*asset, "Walking"), c[1].seconds);
  ScalarLayer blended;
  blended.pose = run;
  for (std::size_t n = 0; n < run.rotations.size(); ++n) {
    const glm::quat q0 = run.rotations[n], q1 = walk.rotations[n];
    blended.pose.translations[n] = run.translations[n] * c[0].weight + walk.translations[n] * c[1].weight;
    blended.pose.scales[n] = run.scales[n] * c[0].weight + walk.scales[n] * c[1].weight;
    blended.pose.rotations[n] = glm::normalize(q0 * c[0].weight + (glm::dot(q0, q1) < 0.0f ? -q1 : q1) * c[1].weight);
  }
  for (std::size_t i = 0; i < run.weights.size(); ++i)
    blended.pose.weights[i] = run.weights[i] * c[0].weight + walk.weights[i] * c[1].weight;
  add_animated(*asset, clip_named(*asset, "Running"), blended);
  add_animated(*asset, clip_named(*asset, "Walking"), blended);
  blended.weight = 0.7f;
  test::ScalarPose want = test::scalar_clip_pose(*asset, clip_named(*asset, "Idle"), 0.0f);
  apply_override(*asset, blended, want);
  expect_pose_near(a.local_pose(), want);
}

TEST(LayerTest, LayerMarkersReportTheirLayer) {
  const auto asset = character();
  Crowd crowd(asset, {.capacity = 1});
  crowd.add_marker("Wave", "hand_up", 0.5f);
  Actor a = crowd.add_actor({.clip = "Walking"});
  a.layer(3).select_clip("Wave", {.time = 0.4f});
  a.layer(3).set_weight(0.5f);
  crowd.update(0.2f);
  ASSERT_EQ(crowd.events().size(), 1u);
  const ClipEvent& e = crowd.events()[0];
  EXPECT_EQ(e.layer, 3u);
  EXPECT_EQ(e.name, "hand_up");
  EXPECT_FLOAT_EQ(e.weight, 0.5f);
}

TEST(LayerTest, LayersTravelWithTheirActorWhenSlotsCompact) {
  const auto asset = character();
  Crowd crowd(asset, {.capacity = 3});
  crowd.add_actor({.id = "gone", .clip = "Walking", .playing = false});
  Actor kept = crowd.add_actor({.id = "kept", .clip = "Walking", .time = 0.3f, .playing = false});
  kept.layer(1).select_clip("Dance", {.time = 0.6f});
  const Pose before = kept.local_pose();
  crowd.remove_actor("gone");
  crowd.update(0.0f);
  const Pose after = kept.local_pose();
  EXPECT_EQ(before.rotations, after.rotations);
  EXPECT_EQ(kept.layer(1).active_clip(), "Dance");
}

TEST(LayerTest, BadArgumentsChangeNothing) {
  const auto asset = character();
  Crowd crowd(asset, {.capacity = 1});
  crowd.add_mask("upper", kUpperBody);
  Actor a = crowd.add_actor({.clip = "Walking", .time = 0.5f, .playing = false});
  a.layer(1).select_clip("Wave", {.time = 0.3f});
  a.layer(1).set_weight(0.5f);
  const Pose before = a.local_pose();
  const auto rule_of = [](auto&& call) -> std::string {
    try {
      call();
    } catch (const Error& e) {
      return e.rule();
    }
    return "none";
  };
  EXPECT_EQ(rule_of([&] { a.layer(0); }), "layer_index");
  EXPECT_EQ(rule_of([&] { a.layer(kMaxLayers + 1); }), "layer_index");
  EXPECT_EQ(rule_of([&] { a.layer(1).select_clip("Nope"); }), "unknown_clip");
  EXPECT_EQ(rule_of([&] { a.layer(1).set_weight(1.5f); }), "blend_weight");
  EXPECT_EQ(rule_of([&] { a.layer(1).set_weight(std::nanf("")); }), "blend_weight");
  EXPECT_EQ(rule_of([&] { a.layer(1).set_weight(0.2f, -1.0f); }), "negative");
  EXPECT_EQ(rule_of([&] { a.layer(1).set_mask("lower"); }), "unknown_mask");
  EXPECT_EQ(rule_of([&] { a.layer(1).set_mode(static_cast<LayerMode>(7)); }), "layer_mode");
  EXPECT_EQ(rule_of([&] { a.layer(1).set_additive_reference("Dance", 99.0f); }), "reference_time");
  EXPECT_EQ(rule_of([&] { a.layer(1).seek(std::nanf("")); }), "not_finite");
  EXPECT_EQ(rule_of([&] { crowd.add_mask("upper", kUpperBody); }), "mask_name");
  EXPECT_EQ(rule_of([&] { crowd.add_mask("", kUpperBody); }), "mask_name");
  EXPECT_EQ(rule_of([&] { crowd.add_mask("x", std::vector<MaskBranch>{{"NoSuchNode"}}); }), "unknown_node");
  EXPECT_EQ(rule_of([&] { crowd.add_mask("x", std::vector<MaskBranch>{{"Spine", 2.0f}}); }), "blend_weight");
  EXPECT_TRUE(crowd.mask_weights("x").empty());
  // Not an error: the GPU evaluator runs layers too (its records appear with the switch), and
  // switching back re-evaluates the same pose.
  crowd.set_animation(Animation::gpu);
  EXPECT_EQ(crowd.layer_records().size(), kMaxLayers);
  EXPECT_EQ(crowd.layer_records()[0].weight, 0.5f);
  crowd.set_animation(Animation::cpu);
  EXPECT_TRUE(crowd.layer_records().empty());
  const Pose after = a.local_pose();
  EXPECT_EQ(before.translations, after.translations);
  EXPECT_EQ(before.rotations, after.rotations);
  EXPECT_EQ(a.layer(1).weight(), 0.5f);
  EXPECT_EQ(a.layer(1).mode(), LayerMode::override);
  EXPECT_EQ(a.layer(1).mask(), "");
}

TEST(LayerTest, AnEmptyOrWeightlessLayerChangesNothing) {
  const auto asset = character();
  Crowd crowd(asset, {.capacity = 2});
  Actor a = crowd.add_actor({.clip = "Walking", .time = 0.5f, .playing = false});
  Actor b = crowd.add_actor({.clip = "Walking", .time = 0.5f, .playing = false});
  a.layer(4).set_mode(LayerMode::additive);  // still empty
  EXPECT_EQ(a.local_pose().rotations, b.local_pose().rotations);
  a.layer(4).select_clip("Dance");
  EXPECT_NE(a.local_pose().rotations, b.local_pose().rotations);
  a.layer(4).set_weight(0.0f);
  EXPECT_EQ(a.local_pose().rotations, b.local_pose().rotations);
  a.layer(4).set_weight(1.0f);
  a.layer(4).clear();
  EXPECT_EQ(a.layer(4).active_clip(), "");
  EXPECT_EQ(a.local_pose().rotations, b.local_pose().rotations);
}

// Real characters: a masked override layer and an additive layer over the base clip, packed
// for drawing, against the test's own sampling, layering and skinning.
TEST(LayerTest, RealCharactersPackWhatTheSpecPredicts) {
  GLTF_CROWD_REQUIRE_ASSETS();
  for (const char* file :
       {"threejs/RobotExpressive.glb", "khronos/CesiumMan.glb", "khronos/Fox.glb", "khronos/RiggedFigure.glb"}) {
    SCOPED_TRACE(file);
    const auto asset = std::make_shared<const Asset>(load_asset(test::asset_path(file)));
    ASSERT_FALSE(asset->clips.empty());
    ASSERT_FALSE(asset->skins.empty());
    const std::size_t clips = asset->clips.size();
    const Clip& base_clip = asset->clips[0];
    const Clip& over_clip = asset->clips[1 % clips];
    const Clip& add_clip = asset->clips[2 % clips];
    const std::vector<std::uint32_t>& joints = asset->skins[0].joints;
    const std::uint32_t mask_root = joints[joints.size() / 3];
    Crowd crowd(asset, {.capacity = 2});
    crowd.add_mask("part", std::vector<MaskBranch>{{.index = mask_root}});
    const float t0 = 0.2f * base_clip.duration_seconds, t1 = 0.37f * over_clip.duration_seconds,
                t2 = 0.61f * add_clip.duration_seconds;
    Actor a = crowd.add_actor({.clip = base_clip.name, .time = t0, .playing = false});
    crowd.add_actor({.clip = base_clip.name, .time = t0, .playing = false});
    ActorLayer over = a.layer(1), add = a.layer(2);
    over.select_clip(over_clip.name, {.time = t1});
    over.set_mask("part");
    over.set_weight(0.7f);
    add.set_mode(LayerMode::additive);
    add.select_clip(add_clip.name, {.time = t2});
    add.set_weight(0.5f);

    ScalarLayer o = one_clip_layer(*asset, over_clip.name.c_str(), t1);
    o.weight = 0.7f;
    o.mask.assign(asset->nodes.size(), 0.0f);
    for (std::vector<std::uint32_t> todo{mask_root}; !todo.empty();) {
      const std::uint32_t n = todo.back();
      todo.pop_back();
      o.mask[n] = 1.0f;
      for (std::uint32_t c : asset->nodes[n].children) todo.push_back(c);
    }
    ScalarLayer d = one_clip_layer(*asset, add_clip.name.c_str(), t2);
    d.weight = 0.5f;
    d.reference = test::scalar_clip_pose(*asset, add_clip, 0.0f);
    const test::ScalarPose base = test::scalar_clip_pose(*asset, base_clip, t0);
    test::ScalarPose want = base;
    apply_override(*asset, o, want);
    apply_additive(*asset, d, want);
    EXPECT_GT(test::expect_packed_skinning(crowd, [&](std::uint32_t slot) { return slot == 0 ? want : base; }), 25);
  }
}

// Every call that takes a node name resolves it as docs/spec.md §2.3 says, on RobotExpressive,
// whose joint Torso (node 10, child of Abdomen) shares its name with a mesh node (7, child of
// Body): the name alone is ambiguous_node everywhere and changes nothing; the path and the index
// name the joint. Expected mask weights are walked here from the file's hierarchy.
TEST(LayerTest, SharedNodeNamesAreErrorsAndPathsOrIndicesNameTheJoint) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto robot = std::make_shared<const Asset>(load_asset(test::asset_path("threejs/RobotExpressive.glb")));
  Crowd crowd(robot, {.capacity = 2});
  Actor a = crowd.add_actor({.clip = "Idle", .time = 0.4f, .playing = false});
  const auto error_of = [](auto&& call) -> std::pair<std::string, std::string> {
    try {
      call();
    } catch (const Error& e) {
      return {e.rule(), e.path()};
    }
    return {"none", ""};
  };
  const std::pair<std::string, std::string> ambiguous_mask{"ambiguous_node", "add_mask.branches[1].node"};
  EXPECT_EQ(error_of([&] { crowd.add_mask("m", std::vector<MaskBranch>{{"Neck"}, {"Torso"}}); }), ambiguous_mask);
  EXPECT_TRUE(crowd.mask_weights("m").empty());
  EXPECT_EQ(error_of([&] { (void)a.node_world("Head"); }),
            (std::pair<std::string, std::string>{"ambiguous_node", "node_world.node"}));
  EXPECT_EQ(error_of([&] { a.set_local_transform("Head", {}); }),
            (std::pair<std::string, std::string>{"ambiguous_node", "set_local_transform.node"}));
  EXPECT_EQ(error_of([&] { crowd.set_root_motion({.node = "Torso"}); }),
            (std::pair<std::string, std::string>{"ambiguous_node", "root_motion.node"}));
  EXPECT_EQ(crowd.root_motion().node, "");
  EXPECT_EQ(crowd.root_motion_node(), -1);
  EXPECT_EQ(error_of([&] { crowd.add_mask("m", std::vector<MaskBranch>{{.node = "Torso", .index = 10}}); }),
            (std::pair<std::string, std::string>{"ambiguous_node", "add_mask.branches[0].index"}));
  EXPECT_EQ(error_of([&] { crowd.add_mask("m", std::vector<MaskBranch>{{.index = 74}}); }),
            (std::pair<std::string, std::string>{"node_index", "add_mask.branches[0].index"}));

  // The joint by path and by index: it and every node below it (the arms, neck and head).
  std::vector<float> want(robot->nodes.size(), 0.0f);
  for (std::vector<std::uint32_t> todo{10}; !todo.empty();) {
    const std::uint32_t n = todo.back();
    todo.pop_back();
    want[n] = 1.0f;
    for (const std::uint32_t c : robot->nodes[n].children) todo.push_back(c);
  }
  ASSERT_EQ(want[40], 1.0f) << "Palm2.R is below the joint Torso";
  crowd.add_mask("by_path", std::vector<MaskBranch>{{"Abdomen/Torso"}});
  crowd.add_mask("by_index", std::vector<MaskBranch>{{.index = 10}});
  const std::span<const float> by_path = crowd.mask_weights("by_path"), by_index = crowd.mask_weights("by_index");
  EXPECT_EQ(std::vector<float>(by_path.begin(), by_path.end()), want);
  EXPECT_EQ(std::vector<float>(by_index.begin(), by_index.end()), want);
  EXPECT_EQ(a.node_world("Neck/Head"), a.node_world(12u));
  crowd.set_root_motion({.node = "Bone/Foot.L"});
  EXPECT_EQ(crowd.root_motion_node(), 3);
}

}  // namespace
}  // namespace gltf_crowd
