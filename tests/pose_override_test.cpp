// Application-driven poses (docs/spec.md §3.8) on the built-in character: node transforms and
// morph weights set per actor blend over the clips' pose before the hierarchy. Expected poses
// are the test's own: the clip sampled by scalar_pose.hpp, the override blended here by the
// spec's formulas, skinned by packed_skinning.hpp; never the library's evaluation.
#include <memory>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>
#include <gtest/gtest.h>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"
#include "packed_skinning.hpp"
#include "scalar_pose.hpp"

namespace gltf_crowd {
namespace {

std::shared_ptr<const Asset> character() {
  static const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  return asset;
}

std::uint32_t node_named(const Asset& asset, const char* name) {
  const int n = asset.find_node(name);
  EXPECT_GE(n, 0) << name;
  return static_cast<std::uint32_t>(n);
}

const Clip& clip_named(const Asset& asset, const char* name) {
  return asset.clips[static_cast<std::size_t>(asset.find_clip(name))];
}

// The node with morph targets (the head mesh).
std::uint32_t morph_node(const Asset& asset) {
  for (std::uint32_t n = 0; n < asset.nodes.size(); ++n)
    if (asset.weight_counts[n] > 0) return n;
  ADD_FAILURE() << "no node with morph targets";
  return 0;
}

// The spec's override blend, written here: lerp of translation and scale, sign-aligned
// normalized lerp of the rotation; weight 1 is the override itself.
void blend_into(test::ScalarPose& pose, std::uint32_t n, const NodeTransform& o, float w) {
  if (w >= 1.0f) {
    pose.translations[n] = o.translation;
    pose.rotations[n] = glm::normalize(o.rotation);
    pose.scales[n] = o.scale;
    return;
  }
  const glm::quat to = glm::normalize(o.rotation);
  const glm::quat from = pose.rotations[n];
  pose.translations[n] = glm::mix(pose.translations[n], o.translation, w);
  pose.scales[n] = glm::mix(pose.scales[n], o.scale, w);
  pose.rotations[n] = glm::normalize(from * (1.0f - w) + (glm::dot(from, to) < 0.0f ? -to : to) * w);
}

void expect_near(const glm::vec3& a, const glm::vec3& b, const char* what) {
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(a[i], b[i], 1e-5f) << what << "[" << i << "]";
}

void expect_same_rotation(const glm::quat& a, const glm::quat& b, const char* what) {
  EXPECT_NEAR(std::abs(glm::dot(a, b)), 1.0f, 1e-5f) << what;
}

const NodeTransform kRaised{
    {0.05f, 0.02f, -0.03f}, glm::angleAxis(1.1f, glm::normalize(glm::vec3(1, 0.2f, 0))), {1.2f, 0.9f, 1.1f}};

TEST(PoseOverrideTest, FullWeightReplacesTheNodeAndMovesWhatHangsFromIt) {
  const auto asset = character();
  Crowd crowd(asset, {.capacity = 2});
  const glm::mat4 place = glm::translate(glm::mat4(1.0f), glm::vec3(2.0f, 0.0f, -1.0f));
  Actor a = crowd.add_actor({.clip = "Walking", .time = 0.3f, .playing = false, .transform = place});
  const std::uint32_t arm = node_named(*asset, "LeftUpperArm");
  a.set_local_transform("LeftUpperArm", kRaised);
  crowd.update(0.0f);  // packs the paused actor the control marked

  test::ScalarPose want = test::scalar_clip_pose(*asset, clip_named(*asset, "Walking"), 0.3f);
  blend_into(want, arm, kRaised, 1.0f);
  const Pose got = a.local_pose();
  expect_near(got.translations[arm], kRaised.translation, "translation");
  expect_same_rotation(got.rotations[arm], kRaised.rotation, "rotation");
  expect_near(got.scales[arm], kRaised.scale, "scale");
  const std::uint32_t hand = node_named(*asset, "LeftHand");
  const glm::mat4 hand_world = a.node_world(hand);
  const glm::mat4 want_world = test::scalar_world(*asset, want, static_cast<std::int32_t>(hand), place);
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 3; ++r) EXPECT_NEAR(hand_world[c][r], want_world[c][r], 1e-4f);
  EXPECT_GE(test::expect_packed_skinning(crowd, [&](std::uint32_t) { return want; }), 25);
}

TEST(PoseOverrideTest, PartialWeightBlendsAndPersistsThroughUpdates) {
  const auto asset = character();
  Crowd crowd(asset, {.capacity = 2});
  Actor a = crowd.add_actor({.clip = "Running", .time = 0.1f});
  crowd.add_actor({.clip = "Running", .time = 0.4f});  // untouched neighbour
  const std::uint32_t spine = node_named(*asset, "Spine");
  const std::uint32_t head = node_named(*asset, "Neck");  // the clip may leave it at rest
  a.set_local_transform(spine, kRaised, 0.4f);
  a.set_local_transform(head, kRaised, 0.25f);
  for (int f = 0; f < 5; ++f) crowd.update(1.0f / 30.0f);
  const Clip& running = clip_named(*asset, "Running");
  const auto pose_of = [&](std::uint32_t slot) {
    test::ScalarPose pose = test::scalar_clip_pose(*asset, running, crowd.actors()[slot].time());
    if (slot == 0) {
      blend_into(pose, spine, kRaised, 0.4f);
      blend_into(pose, head, kRaised, 0.25f);
    }
    return pose;
  };
  const test::ScalarPose want = pose_of(0);
  const Pose got = a.local_pose();
  for (std::uint32_t n : {spine, head}) {
    expect_near(got.translations[n], want.translations[n], "translation");
    expect_same_rotation(got.rotations[n], want.rotations[n], "rotation");
    expect_near(got.scales[n], want.scales[n], "scale");
  }
  EXPECT_GE(test::expect_packed_skinning(crowd, pose_of), 50);
}

TEST(PoseOverrideTest, BulkPoseEqualsNodeByNodeAndClearingRestoresTheClip) {
  const auto asset = character();
  Crowd crowd(asset, {.capacity = 3});
  Actor bulk = crowd.add_actor({.id = "bulk", .clip = "Wave", .time = 0.7f, .playing = false});
  Actor single = crowd.add_actor({.id = "single", .clip = "Wave", .time = 0.7f, .playing = false});
  Actor plain = crowd.add_actor({.id = "plain", .clip = "Wave", .time = 0.7f, .playing = false});
  std::vector<std::uint32_t> nodes;
  std::vector<NodeTransform> locals;
  for (const char* name : {"Hips", "RightUpperArm", "RightLowerArm", "Neck"}) {
    nodes.push_back(node_named(*asset, name));
    NodeTransform t = kRaised;
    t.translation += glm::vec3(0.01f * static_cast<float>(nodes.size()));
    locals.push_back(t);
  }
  for (int frame = 0; frame < 3; ++frame) bulk.set_local_pose(nodes, locals, 0.8f);  // in place after the first
  for (std::size_t i = 0; i < nodes.size(); ++i) single.set_local_transform(nodes[i], locals[i], 0.8f);
  const Pose a = bulk.local_pose(), b = single.local_pose();
  EXPECT_EQ(a.translations, b.translations);
  EXPECT_EQ(a.rotations, b.rotations);
  EXPECT_EQ(a.scales, b.scales);
  bulk.clear_local_pose();
  single.clear_local_transform(nodes[0]);
  crowd.update(0.0f);
  const Pose cleared = bulk.local_pose(), reference = plain.local_pose();
  EXPECT_EQ(cleared.translations, reference.translations);
  EXPECT_EQ(cleared.rotations, reference.rotations);
  EXPECT_EQ(single.local_pose().translations[nodes[0]], reference.translations[nodes[0]]);
  EXPECT_NE(single.local_pose().rotations[nodes[1]], reference.rotations[nodes[1]]);  // still overridden
  const NodeStream& s = crowd.node_streams()[0];
  const std::size_t rows = s.palette.empty() ? 3 : 3 * std::size_t{s.joint_count};
  const auto& data = s.palette.empty() ? s.transforms : s.palette;
  EXPECT_TRUE(std::equal(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(rows),
                         data.begin() + static_cast<std::ptrdiff_t>(2 * rows)))
      << "the cleared actor packs what the plain one does";
}

// A worker keeps the constant channels of the clip it sampled last in its scratch pose
// (SampleJob::constants_held). Overrides of every node, morph weights and an animation layer
// write over them: once cleared, the actor must pack what one never disturbed packs, bit for bit.
// (The built-in character's clips hold their constants at the same values, so a layer left
// uncleared goes unseen here; LayerTest.RealCharactersPackWhatTheSpecPredicts sees it.)
TEST(PoseOverrideTest, ClearedOverridesAndLayersLeaveNothingBehind) {
  const auto asset = character();
  Crowd disturbed(asset, {.capacity = 1}), plain(asset, {.capacity = 1});
  Actor a = disturbed.add_actor({.clip = "Wave", .time = 0.4f});
  plain.add_actor({.clip = "Wave", .time = 0.4f});
  const auto frame = [&] {
    disturbed.update(1.0f / 30.0f);
    plain.update(1.0f / 30.0f);
  };
  const auto expect_same_packing = [&](const char* after) {
    const auto x = disturbed.node_streams(), y = plain.node_streams();
    ASSERT_EQ(x.size(), y.size());
    for (std::size_t d = 0; d < x.size(); ++d) {
      EXPECT_EQ(x[d].transforms, y[d].transforms) << after << ", stream " << d;
      EXPECT_EQ(x[d].palette, y[d].palette) << after << ", stream " << d;
      EXPECT_EQ(x[d].weights, y[d].weights) << after << ", stream " << d;
    }
  };
  frame();
  const std::uint32_t morph = morph_node(*asset);
  const std::vector<float> face(asset->weight_counts[morph], 0.9f);
  for (std::uint32_t n = 0; n < asset->nodes.size(); ++n) a.set_local_transform(n, kRaised);
  a.set_morph_weights(morph, face);
  frame();
  a.clear_local_pose();
  a.clear_morph_weights(morph);
  frame();
  expect_same_packing("overrides cleared");
  a.layer(1).select_clip("Dance");
  frame();
  a.layer(1).clear();
  frame();
  expect_same_packing("layer cleared");
}

TEST(PoseOverrideTest, MorphWeightsOverrideAndBlendTheClips) {
  const auto asset = character();
  Crowd crowd(asset, {.capacity = 2});
  Actor a = crowd.add_actor({.clip = "Idle", .time = 1.0f, .playing = false});
  Actor b = crowd.add_actor({.clip = "Idle", .time = 1.0f, .playing = false});
  const std::uint32_t node = morph_node(*asset);
  const std::uint32_t offset = asset->weight_offsets[node], count = asset->weight_counts[node];
  ASSERT_GE(count, 2u);
  const std::vector<float> clip_weights = b.morph_weights();
  std::vector<float> face(count);
  for (std::uint32_t i = 0; i < count; ++i) face[i] = 0.3f + 0.2f * static_cast<float>(i);
  a.set_morph_weights(node, face);
  std::vector<float> got = a.morph_weights();
  for (std::uint32_t i = 0; i < count; ++i) EXPECT_FLOAT_EQ(got[offset + i], face[i]);
  a.set_morph_weights(node, face, 0.5f);
  crowd.update(0.0f);
  got = a.morph_weights();
  for (std::uint32_t i = 0; i < count; ++i)
    EXPECT_NEAR(got[offset + i], 0.5f * clip_weights[offset + i] + 0.5f * face[i], 1e-6f);
  // Drawn as the clips' weights are: the packed stream of the node.
  for (const NodeStream& s : crowd.node_streams()) {
    if (s.node != node) continue;
    for (std::uint32_t i = 0; i < count; ++i) EXPECT_NEAR(s.weights[i], got[offset + i], 1e-6f);
  }
  a.clear_morph_weights(node);
  EXPECT_EQ(a.morph_weights(), clip_weights);
}

TEST(PoseOverrideTest, BadArgumentsChangeNothing) {
  const auto asset = character();
  Crowd crowd(asset, {.capacity = 1});
  Actor a = crowd.add_actor({.clip = "Walking", .time = 0.5f, .playing = false});
  const std::uint32_t arm = node_named(*asset, "LeftUpperArm");
  a.set_local_transform(arm, kRaised, 0.5f);
  const Pose before = a.local_pose();
  const auto rule_of = [](auto&& call) -> std::string {
    try {
      call();
    } catch (const Error& e) {
      return e.rule();
    }
    return "none";
  };
  NodeTransform nan = kRaised;
  nan.translation.y = std::numeric_limits<float>::quiet_NaN();
  NodeTransform zero = kRaised;
  zero.rotation = glm::quat(0.0f, 0.0f, 0.0f, 0.0f);
  const auto nodes = static_cast<std::uint32_t>(asset->nodes.size());
  EXPECT_EQ(rule_of([&] { a.set_local_transform(nodes, kRaised); }), "node_index");
  EXPECT_EQ(rule_of([&] { a.set_local_transform("NoSuchBone", kRaised); }), "unknown_node");
  EXPECT_EQ(rule_of([&] { a.set_local_transform(arm, nan); }), "not_finite");
  EXPECT_EQ(rule_of([&] { a.set_local_transform(arm, zero); }), "zero_rotation");
  EXPECT_EQ(rule_of([&] { a.set_local_transform(arm, kRaised, 1.5f); }), "blend_weight");
  EXPECT_EQ(rule_of([&] { a.set_local_transform(arm, kRaised, -0.1f); }), "blend_weight");
  const std::vector<std::uint32_t> two{arm, nodes};
  const std::vector<NodeTransform> one{kRaised};
  const std::vector<NodeTransform> pair{kRaised, kRaised};
  EXPECT_EQ(rule_of([&] { a.set_local_pose(two, one); }), "pose_size");
  EXPECT_EQ(rule_of([&] { a.set_local_pose(two, pair); }), "node_index");  // the first is valid: not applied
  const std::vector<std::uint32_t> arms{arm, arm};
  const std::vector<NodeTransform> bad{kRaised, nan};
  EXPECT_EQ(rule_of([&] { a.set_local_pose(arms, bad); }), "not_finite");
  const std::uint32_t morph = morph_node(*asset);
  const std::vector<float> short_face{0.5f};
  EXPECT_EQ(rule_of([&] { a.set_morph_weights(morph, short_face); }), "morph_count");
  EXPECT_EQ(rule_of([&] { a.set_morph_weights(arm, short_face); }), "morph_count");  // no targets
  EXPECT_EQ(rule_of([&] { a.clear_local_transform(nodes); }), "node_index");
  const Pose after = a.local_pose();
  EXPECT_EQ(after.translations, before.translations);
  EXPECT_EQ(after.rotations, before.rotations);
  EXPECT_EQ(after.weights, before.weights);
}

TEST(PoseOverrideTest, OverridesTravelWithTheirActorWhenSlotsCompact) {
  const auto asset = character();
  Crowd crowd(asset, {.capacity = 3});
  crowd.add_actor({.id = "first", .clip = "Walking", .time = 0.2f, .playing = false});
  crowd.add_actor({.id = "gone", .clip = "Walking", .time = 0.2f, .playing = false});
  Actor last = crowd.add_actor({.id = "last", .clip = "Walking", .time = 0.2f, .playing = false});
  const std::uint32_t arm = node_named(*asset, "LeftUpperArm");
  crowd.find_actor("gone")->set_local_transform(arm, kRaised);
  last.set_local_transform(arm, kRaised, 0.5f);
  ASSERT_TRUE(crowd.remove_actor("gone"));  // "last" moves into slot 1
  crowd.update(0.0f);
  test::ScalarPose plain = test::scalar_clip_pose(*asset, clip_named(*asset, "Walking"), 0.2f);
  test::ScalarPose raised = plain;
  blend_into(raised, arm, kRaised, 0.5f);
  EXPECT_GE(test::expect_packed_skinning(crowd, [&](std::uint32_t slot) { return slot == 1 ? raised : plain; }), 25);
  crowd.update(0.1f);  // nothing plays: overrides still there
  expect_same_rotation(last.local_pose().rotations[arm], raised.rotations[arm], "after update");
}

}  // namespace
}  // namespace gltf_crowd
