// Compiled clips (rig.hpp, ClipTracks): a channel that samples to one value at every time keeps
// that value as one key on the clip's last timeline, and still samples to exactly the authored
// value; channels that move keep their keys.
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "gltf_crowd/jobs.hpp"
#include "gltf_crowd/rig.hpp"
#include "gltf_crowd/sampling.hpp"
#include "handmade_gltf.hpp"
#include "scalar_pose.hpp"
#include "test_documents.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

bool same_bits(const float* a, const float* b, std::size_t count) { return std::memcmp(a, b, count * 4) == 0; }

// Node 0's translation and rotation, node 1's translation (CUBICSPLINE with zero tangents),
// node 2's translation (STEP) and node 3's scale (a single key) never move; node 1's scale
// (CUBICSPLINE, equal values but a tangent), node 2's rotation and node 3's translation do.
// The constant rotation is not quite unit length, as exporters write them: a slerp of it with
// itself would normalize it.
const glm::vec3 kT0{1.0f, 2.0f, 3.0f}, kT1{-0.5f, 0.25f, 7.0f}, kT2{0.1f, 0.2f, 0.3f}, kS3{2.0f, 1.5f, 0.75f};
const glm::quat kR0(0.9273618f, 0.1f, 0.2f, 0.3000001f);  // w, x, y, z

test::HandmadeClip constant_and_moving() {
  test::HandmadeClip clip{"mixed", {}};
  clip.channels.push_back({0, "translation", "LINEAR", {0, 1, 2}, {1, 2, 3, 1, 2, 3, 1, 2, 3}});
  const std::vector<float> r{kR0.x, kR0.y, kR0.z, kR0.w};
  std::vector<float> rotation;
  for (int k = 0; k < 3; ++k) rotation.insert(rotation.end(), r.begin(), r.end());
  clip.channels.push_back({0, "rotation", "LINEAR", {0, 1, 2}, rotation});
  clip.channels.push_back({1,
                           "translation",
                           "CUBICSPLINE",
                           {0, 1},
                           {0, 0, 0, -0.5f, 0.25f, 7, 0, 0, 0,  //
                            0, 0, 0, -0.5f, 0.25f, 7, 0, 0, 0}});
  clip.channels.push_back({1,
                           "scale",
                           "CUBICSPLINE",
                           {0, 1},
                           {0, 0, 0, 1, 1, 1, 0, 0.5f, 0,  //
                            0, 0, 0, 1, 1, 1, 0, 0, 0}});
  clip.channels.push_back(
      {2, "translation", "STEP", {0, 0.5f, 1}, {0.1f, 0.2f, 0.3f, 0.1f, 0.2f, 0.3f, 0.1f, 0.2f, 0.3f}});
  clip.channels.push_back({2, "rotation", "LINEAR", {0, 1}, {0, 0, 0, 1, 0, 0.6f, 0, 0.8f}});
  clip.channels.push_back({3, "scale", "LINEAR", {0.5f}, {2, 1.5f, 0.75f}});
  clip.channels.push_back({3, "translation", "LINEAR", {0, 1, 2}, {0, 0, 0, 1, 0, 0, 1, 1, 0}});
  return clip;
}

std::shared_ptr<const Asset> handmade_asset() {
  const nlohmann::json nodes =
      nlohmann::json::array({{{"name", "a"}}, {{"name", "b"}}, {{"name", "c"}}, {{"name", "d"}}});
  return std::make_shared<const Asset>(load_asset_from_memory(test::handmade_gltf(nodes, {constant_and_moving()})));
}

TEST(ClipTracks, ConstantChannelsKeepOneKeyOnTheLastTimeline) {
  const auto asset = handmade_asset();
  const Rig rig = build_rig(*asset, {}, RigOptions{.all_nodes = true});
  const ClipTracks tracks = build_clip_tracks(*asset, asset->clips[0], rig);
  EXPECT_EQ(tracks.constant_channels, 5u);
  ASSERT_EQ(tracks.channels.size(), 8u);
  // Keyed timelines: {0, 1, 2} (node 3's translation), {0, 1} (node 1's scale, node 2's
  // rotation); then the constant one.
  ASSERT_EQ(tracks.timelines.size(), 3u);
  const std::uint32_t constant = 2;
  EXPECT_EQ(tracks.timelines[constant].key_count, 1u);
  const auto rig_node = [&](std::uint32_t n) { return rig.rig_node[n]; };
  const auto find = [&](std::uint32_t node, ChannelPath path) {
    for (const BoundChannel& ch : tracks.channels)
      if (ch.target == rig_node(node) && ch.path == path) return ch;
    ADD_FAILURE() << "no channel for node " << node;
    return BoundChannel{};
  };
  for (const auto& [node, path] : {std::pair{0u, ChannelPath::translation},
                                   {0u, ChannelPath::rotation},
                                   {1u, ChannelPath::translation},
                                   {2u, ChannelPath::translation},
                                   {3u, ChannelPath::scale}}) {
    const BoundChannel ch = find(node, path);
    EXPECT_EQ(ch.timeline, constant) << "node " << node;
    EXPECT_EQ(ch.interpolation, Interpolation::linear) << "node " << node;
  }
  for (const auto& [node, path, keys] :
       {std::tuple{1u, ChannelPath::scale, 2u}, {2u, ChannelPath::rotation, 2u}, {3u, ChannelPath::translation, 3u}}) {
    const BoundChannel ch = find(node, path);
    EXPECT_NE(ch.timeline, constant) << "node " << node;
    EXPECT_EQ(tracks.timelines[ch.timeline].key_count, keys) << "node " << node;
  }
  EXPECT_EQ(find(1, ChannelPath::scale).interpolation, Interpolation::cubic_spline);
  // The constant channels' nodes are still animated: a sample writes them.
  EXPECT_EQ(tracks.animated.size(), 4u);
}

TEST(ClipTracks, ConstantChannelsSampleToTheAuthoredValueAtEveryTime) {
  const auto asset = handmade_asset();
  const Rig rig = build_rig(*asset, {}, RigOptions{.all_nodes = true});
  const ClipTracks tracks = build_clip_tracks(*asset, asset->clips[0], rig);
  const std::size_t n = rig.node_count();
  std::vector<glm::vec3> t(n), s(n);
  std::vector<glm::quat> r(n);
  std::vector<float> w;
  std::vector<std::uint16_t> cursors(tracks.timelines.size(), 0);
  std::vector<KeyPosition> keys(tracks.timelines.size());
  std::vector<std::uint32_t> mark(n, 0);
  std::uint32_t stamp = 0;
  for (const float seconds : {0.0f, 0.3f, 0.5f, 0.77f, 1.5f, 2.0f, 9.0f, 0.1f}) {
    const SampleJob job{&rig, &tracks, seconds, cursors, keys, mark, ++stamp, true, {t, r, s, w}};
    ASSERT_TRUE(job.run());
    const auto at = [&](std::uint32_t node) { return rig.rig_node[node]; };
    EXPECT_TRUE(same_bits(&t[at(0)].x, &kT0.x, 3)) << "t=" << seconds;
    EXPECT_TRUE(same_bits(&r[at(0)].x, &kR0.x, 4)) << "t=" << seconds;
    EXPECT_TRUE(same_bits(&t[at(1)].x, &kT1.x, 3)) << "t=" << seconds;
    EXPECT_TRUE(same_bits(&t[at(2)].x, &kT2.x, 3)) << "t=" << seconds;
    EXPECT_TRUE(same_bits(&s[at(3)].x, &kS3.x, 3)) << "t=" << seconds;
    // The moving channels as the glTF formulas give them.
    const test::ScalarPose want = test::scalar_clip_pose(*asset, asset->clips[0], seconds);
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(s[at(1)][i], want.scales[1][i], 1e-5f) << "t=" << seconds;
      EXPECT_NEAR(t[at(3)][i], want.translations[3][i], 1e-5f) << "t=" << seconds;
    }
    EXPECT_NEAR(std::abs(glm::dot(r[at(2)], want.rotations[2])), 1.0f, 1e-6f) << "t=" << seconds;
  }
  // Node 1's scale moves between its keys: its out-tangent makes it a curve.
  const SampleJob job{&rig, &tracks, 0.5f, cursors, keys, mark, ++stamp, true, {t, r, s, w}};
  ASSERT_TRUE(job.run());
  EXPECT_GT(s[rig.rig_node[1]].y, 1.0f);
}

// SampleJob::constants_held: over a pose that an earlier run of the clip wrote, a run that
// samples only the moving channels gives what a full run gives, bit for bit; the constant
// channels' entries are left as they are (here poisoned, to show they are not written).
TEST(ClipTracks, HeldConstantsAreNotWrittenAgain) {
  const auto asset = handmade_asset();
  const Rig rig = build_rig(*asset, {}, RigOptions{.all_nodes = true});
  const ClipTracks tracks = build_clip_tracks(*asset, asset->clips[0], rig);
  const std::size_t n = rig.node_count();
  struct Buffers {
    std::vector<glm::vec3> t, s;
    std::vector<glm::quat> r;
    std::vector<float> w;
    std::vector<std::uint16_t> cursors;
    std::vector<KeyPosition> keys;
    std::vector<std::uint32_t> mark;
  };
  const auto make = [&] {
    return Buffers{std::vector<glm::vec3>(n),
                   std::vector<glm::vec3>(n),
                   std::vector<glm::quat>(n),
                   {},
                   std::vector<std::uint16_t>(tracks.timelines.size(), 0),
                   std::vector<KeyPosition>(tracks.timelines.size()),
                   std::vector<std::uint32_t>(n, 0)};
  };
  Buffers held = make(), full = make();
  const auto run = [&](Buffers& b, float seconds, bool constants_held) {
    return SampleJob{&rig, &tracks, seconds, b.cursors, b.keys, b.mark, 1, true, {b.t, b.r, b.s, b.w}, constants_held}
        .run();
  };
  ASSERT_TRUE(run(held, 0.2f, false));
  for (const float seconds : {0.3f, 0.77f, 1.5f, 0.1f}) {
    ASSERT_TRUE(run(held, seconds, true));
    ASSERT_TRUE(run(full, seconds, false));
    EXPECT_TRUE(same_bits(&held.t[0].x, &full.t[0].x, 3 * n)) << "t=" << seconds;
    EXPECT_TRUE(same_bits(&held.r[0].x, &full.r[0].x, 4 * n)) << "t=" << seconds;
    EXPECT_TRUE(same_bits(&held.s[0].x, &full.s[0].x, 3 * n)) << "t=" << seconds;
  }
  const auto at = [&](std::uint32_t node) { return rig.rig_node[node]; };
  const glm::vec3 poison{-7.0f};
  held.t[at(0)] = poison;  // constant
  held.s[at(3)] = poison;  // constant (one key)
  held.t[at(3)] = poison;  // moving
  held.s[at(2)] = poison;  // rest: no channel of node 2's scale
  ASSERT_TRUE(run(held, 0.6f, true));
  EXPECT_EQ(held.t[at(0)], poison);
  EXPECT_EQ(held.s[at(3)], poison);
  EXPECT_EQ(held.s[at(2)], poison);
  EXPECT_NE(held.t[at(3)], poison);
}

// A property one clip holds still and another moves is sampled from its keys in both: compiled
// constant in one, it would leave its keyed group there, and the two clips, which animate the
// same properties, would no longer share a group layout (what a crossfade sampled in one pass
// needs, ChannelGroup). A property every clip holds still is constant in each, at its own value.
TEST(ClipTracks, OnlyPropertiesNoClipMovesAreConstant) {
  test::HandmadeClip still{"still", {}}, moving{"moving", {}};
  still.channels.push_back({0, "translation", "LINEAR", {0, 1}, {1, 2, 3, 1, 2, 3}});
  moving.channels.push_back({0, "translation", "LINEAR", {0, 1}, {1, 2, 3, 4, 5, 6}});
  still.channels.push_back({1, "scale", "LINEAR", {0, 1}, {2, 2, 2, 2, 2, 2}});
  moving.channels.push_back({1, "scale", "LINEAR", {0, 1}, {3, 3, 3, 3, 3, 3}});
  const nlohmann::json nodes = nlohmann::json::array({{{"name", "a"}}, {{"name", "b"}}});
  const Asset asset = load_asset_from_memory(test::handmade_gltf(nodes, {still, moving}));
  const Rig rig = build_rig(asset, {}, RigOptions{.all_nodes = true});
  const std::vector<ClipTracks> clips = build_clip_tracks(asset, rig);
  ASSERT_EQ(clips.size(), 2u);
  for (const ClipTracks& tracks : {clips[0], clips[1], build_clip_tracks(asset, asset.clips[0], rig)}) {
    EXPECT_EQ(tracks.constant_channels, 1u);  // node 1's scale
    ASSERT_EQ(tracks.timelines.size(), 2u);
    for (const BoundChannel& ch : tracks.channels)
      EXPECT_EQ(ch.timeline, ch.path == ChannelPath::scale ? 1u : 0u) << "rig node " << ch.target;
  }
  ASSERT_EQ(clips[0].groups.size(), clips[1].groups.size());
  for (std::size_t g = 0; g < clips[0].groups.size(); ++g) {
    EXPECT_EQ(clips[0].groups[g].path, clips[1].groups[g].path);
    EXPECT_EQ(clips[0].groups[g].lanes, clips[1].groups[g].lanes);
    EXPECT_EQ(clips[0].groups[g].targets[0], clips[1].groups[g].targets[0]);
  }
}

// A CUBICSPLINE weights channel of three morph weights, the first and last constant (zero
// tangents) and the middle one moving: each weight is a lane, so one channel splits between the
// constant timeline and its keyed one, and a constant lane's value lies past its in-tangent at
// the stride of the channel's three weights.
TEST(ClipTracks, AWeightsChannelSplitsIntoConstantAndMovingWeights) {
  test::Document d;
  d.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, 3, "VEC3");
  d.add_accessor(d.add_view(std::vector<std::uint16_t>{0, 1, 2}), 5123, 3, "SCALAR");
  d.add_floats({0, 0, 0, 0, 0, 0, 0, 0, 1}, 3, "VEC3");
  d.add_floats({0.0f, 1.0f, 2.0f}, 1, "SCALAR");
  // Per key: in-tangents (3), values (3), out-tangents (3).
  d.add_floats({0, 0.3f, 0, 0.25f, 0.1f, 0.75f, 0, -0.2f, 0,  //
                0, 0.5f, 0, 0.25f, 0.9f, 0.75f, 0, 0.4f,  0,  //
                0, 0.1f, 0, 0.25f, 0.3f, 0.75f, 0, 0.0f,  0},
               1, "SCALAR");
  d.json["nodes"] = {{{"name", "M"}, {"mesh", 0}}};
  d.json["scene"] = 0;
  d.json["scenes"] = {{{"nodes", {0}}}};
  const nlohmann::json target = {{"POSITION", 2}};
  d.json["meshes"] = {
      {{"primitives", {{{"attributes", {{"POSITION", 0}}}, {"indices", 1}, {"targets", {target, target, target}}}}}}};
  d.json["animations"] = {{{"samplers", {{{"input", 3}, {"output", 4}, {"interpolation", "CUBICSPLINE"}}}},
                           {"channels", {{{"sampler", 0}, {"target", {{"node", 0}, {"path", "weights"}}}}}}}};
  const Asset asset = load_asset_from_memory(d.gltf());
  const Rig rig = build_rig(asset, asset.drawn_nodes);
  const ClipTracks tracks = build_clip_tracks(asset, asset.clips[0], rig);
  EXPECT_EQ(tracks.constant_channels, 2u);
  ASSERT_EQ(tracks.timelines.size(), 2u);
  std::vector<float> weights(3);
  std::vector<std::uint16_t> cursors(2, 0);
  std::vector<KeyPosition> keys(2);
  std::vector<std::uint32_t> mark(rig.node_count(), 0);
  std::vector<glm::vec3> t(rig.node_count()), s(rig.node_count());
  std::vector<glm::quat> r(rig.node_count());
  std::uint32_t stamp = 0;
  for (const float seconds : {0.0f, 0.25f, 0.5f, 1.0f, 1.3f, 1.99f, 2.0f, 3.0f}) {
    const SampleJob job{&rig, &tracks, seconds, cursors, keys, mark, ++stamp, true, {t, r, s, weights}};
    ASSERT_TRUE(job.run());
    EXPECT_EQ(weights[0], 0.25f) << "t=" << seconds;
    EXPECT_EQ(weights[2], 0.75f) << "t=" << seconds;
    float want[3];
    sample_channel(asset.clips[0], asset.clips[0].channels[0], seconds, want);
    EXPECT_NEAR(weights[1], want[1], 1e-6f) << "t=" << seconds;
  }
}

// Exported characters key every property of every joint: RiggedFigure's 43 constant channels,
// and RobotExpressive's morph weights, which none of its 14 clips moves.
TEST(ClipTracks, RealCharactersConstantChannels) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const Asset figure = load_asset(test::asset_path("khronos/RiggedFigure.glb"));
  const Rig figure_rig = build_rig(figure, figure.drawn_nodes);
  const ClipTracks figure_tracks = build_clip_tracks(figure, figure.clips[0], figure_rig);
  EXPECT_EQ(figure_tracks.channels.size(), 57u);
  EXPECT_EQ(figure_tracks.constant_channels, 43u);
  const Asset robot = load_asset(test::asset_path("threejs/RobotExpressive.glb"));
  const Rig robot_rig = build_rig(robot, robot.drawn_nodes);
  for (const ClipTracks& tracks : build_clip_tracks(robot, robot_rig)) {
    std::uint32_t constant_weights = 0;
    for (const BoundChannel& ch : tracks.channels)
      if (ch.path == ChannelPath::weights) {
        EXPECT_EQ(ch.timeline, tracks.timelines.size() - 1);
        ++constant_weights;
      }
    EXPECT_GT(constant_weights, 0u);
  }
}

}  // namespace
}  // namespace gltf_crowd
