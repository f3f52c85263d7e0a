// The crowd API of docs/spec.md §5, in the shape of the reference library's crowd tests.
#include <cstring>
#include <limits>
#include <memory>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>
#include <tbb/global_control.h>
#include <tbb/info.h>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"
#include "gltf_crowd/pose.hpp"
#include "scalar_pose.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

std::shared_ptr<const Asset> load_shared(const std::string& file) {
  return std::make_shared<const Asset>(load_asset(test::asset_path(file)));
}

ActorOptions with_id(std::string id, glm::vec3 at = glm::vec3(0.0f)) {
  ActorOptions o;
  o.id = std::move(id);
  o.transform = glm::translate(glm::mat4(1.0f), at);
  return o;
}

// Everything observable about a crowd, for before/after comparisons.
struct Snapshot {
  std::size_t count = 0;
  std::vector<std::string> ids;
  std::vector<std::vector<glm::vec4>> transforms, palettes;
  std::vector<std::uint32_t> instance_counts;
  std::vector<std::uint64_t> serials;
  std::uint64_t membership = 0;
  bool operator==(const Snapshot&) const = default;
};

Snapshot snapshot(const Crowd& crowd) {
  Snapshot s;
  s.count = crowd.actor_count();
  for (const Actor& a : crowd.actors()) s.ids.push_back(a.id());
  for (const NodeStream& n : crowd.node_streams()) {
    s.transforms.emplace_back(n.transforms.begin(), n.transforms.begin() + static_cast<std::ptrdiff_t>(s.count * 3));
    s.palettes.emplace_back(
        n.palette.begin(),
        n.palette.begin() + static_cast<std::ptrdiff_t>(n.palette.empty() ? 0 : s.count * 3 * n.joint_count));
  }
  for (const PrimitiveGroup& g : crowd.primitive_groups()) s.instance_counts.push_back(g.instance_count);
  s.serials.assign(crowd.actor_serials().begin(), crowd.actor_serials().end());
  s.membership = crowd.membership_generation();
  return s;
}

TEST(CrowdTest, TwoSimpleSkinActorsShareOneGroupWithIndependentPalettes) {
  GLTF_CROWD_REQUIRE_ASSETS();
  Crowd crowd(load_shared("lumagl/SimpleSkin.gltf"));
  auto actors = crowd.add_actors(std::vector{with_id("a"), with_id("b")});
  actors[1].seek(1.5f);
  crowd.update(0.25f);
  ASSERT_EQ(crowd.primitive_groups().size(), 1u);
  const PrimitiveGroup& g = crowd.primitive_groups()[0];
  EXPECT_EQ(g.instance_count, 2u);
  EXPECT_EQ(g.joint_count, 2u);
  EXPECT_EQ(g.palette_kind, PaletteKind::skinned);
  const NodeStream& s = crowd.node_streams()[g.stream];
  // Joint 1 bends over time in SimpleSkin, so the two actors' second joints differ.
  EXPECT_NE(std::memcmp(&s.palette[3], &s.palette[9], 48), 0);
}

TEST(CrowdTest, PausedActorFreezesAndSpeedTwoAdvancesTwiceAsFast) {
  GLTF_CROWD_REQUIRE_ASSETS();
  Crowd crowd(load_shared("lumagl/SimpleSkin.gltf"));
  auto actors = crowd.add_actors(std::vector{with_id("paused"), with_id("normal"), with_id("fast")});
  actors[0].pause();
  actors[2].set_speed(2.0f);
  crowd.update(0.5f);
  crowd.update(0.25f);
  EXPECT_FLOAT_EQ(actors[0].time(), 0.0f);
  EXPECT_FLOAT_EQ(actors[1].time(), 0.75f);
  EXPECT_FLOAT_EQ(actors[2].time(), 1.5f);
  EXPECT_FALSE(actors[0].playing());
  EXPECT_EQ(crowd.frame_stats().actors_evaluated, 2u);
}

TEST(CrowdTest, RemoveCountsKnownIdsAndCompactsSlots) {
  GLTF_CROWD_REQUIRE_ASSETS();
  Crowd crowd(load_shared("lumagl/SimpleSkin.gltf"));
  crowd.add_actors(std::vector{with_id("left", {-1, 0, 0}), with_id("middle", {0, 0, 0}), with_id("right", {1, 0, 0})});
  const std::vector<std::string> ids = {"left", "missing", "left"};
  EXPECT_EQ(crowd.remove_actors(ids), 1u);
  EXPECT_EQ(crowd.actor_count(), 2u);
  EXPECT_EQ(crowd.primitive_groups()[0].instance_count, 2u);
  // "right" moved into the hole at slot 0: its placement is now the first instance.
  const auto actors = crowd.actors();
  EXPECT_EQ(actors[0].id(), "right");
  EXPECT_EQ(actors[1].id(), "middle");
  EXPECT_FLOAT_EQ(crowd.node_streams()[0].transforms[0].w, 1.0f);
  EXPECT_FALSE(crowd.remove_actor("left"));
  EXPECT_TRUE(crowd.remove_actor("middle"));
  EXPECT_TRUE(crowd.find_actor("right").has_value());
  EXPECT_FALSE(crowd.find_actor("middle").has_value());
}

// Serials name actors, not slots: they move with compaction and are never reused; frame()
// counts updates and membership_generation() the calls that added or removed actors.
TEST(CrowdTest, SerialsFollowActorsAndFramesCountUpdates) {
  GLTF_CROWD_REQUIRE_ASSETS();
  Crowd crowd(load_shared("lumagl/SimpleSkin.gltf"));
  EXPECT_EQ(crowd.frame(), 0u);
  const std::uint64_t empty = crowd.membership_generation();
  crowd.add_actors(std::vector{with_id("a"), with_id("b"), with_id("c")});
  EXPECT_EQ(std::vector<std::uint64_t>(crowd.actor_serials().begin(), crowd.actor_serials().end()),
            (std::vector<std::uint64_t>{1, 2, 3}));
  const std::uint64_t added = crowd.membership_generation();
  EXPECT_GT(added, empty);
  crowd.update(0.1f);
  crowd.update(0.0f);
  EXPECT_EQ(crowd.frame(), 2u);
  EXPECT_EQ(crowd.membership_generation(), added) << "updates move no actor";
  EXPECT_FALSE(crowd.remove_actor("missing"));
  EXPECT_EQ(crowd.membership_generation(), added) << "nothing was removed";
  EXPECT_TRUE(crowd.remove_actor("a"));  // "c" moves into slot 0
  EXPECT_GT(crowd.membership_generation(), added);
  crowd.add_actor(with_id("d"));
  EXPECT_EQ(std::vector<std::uint64_t>(crowd.actor_serials().begin(), crowd.actor_serials().end()),
            (std::vector<std::uint64_t>{3, 2, 4}));
  EXPECT_THROW(crowd.update(std::numeric_limits<float>::quiet_NaN()), Error);
  EXPECT_EQ(crowd.frame(), 2u) << "a rejected update is no frame";
  crowd.destroy();
  EXPECT_EQ(crowd.frame(), 0u);
  EXPECT_TRUE(crowd.actor_serials().empty());
}

TEST(CrowdTest, CapacityTwoRejectsDuplicatesOverflowAndAThirdActor) {
  GLTF_CROWD_REQUIRE_ASSETS();
  Crowd crowd(load_shared("lumagl/SimpleSkin.gltf"), {.capacity = 2});
  crowd.add_actor(with_id("a"));
  try {
    crowd.add_actor(with_id("a"));
    FAIL() << "duplicate id accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "duplicate_id");
    EXPECT_NE(std::string(e.what()).find("\"a\""), std::string::npos);
  }
  try {
    crowd.add_actors(std::vector{with_id("b"), with_id("c")});
    FAIL() << "over-capacity batch accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "capacity_exceeded");
  }
  EXPECT_EQ(crowd.actor_count(), 1u);
  crowd.add_actor(with_id("b"));
  EXPECT_THROW(crowd.add_actor(with_id("c")), Error);
  EXPECT_EQ(crowd.actor_count(), 2u);
}

TEST(CrowdTest, DestroyIsIdempotentAndLeavesNothingToDraw) {
  GLTF_CROWD_REQUIRE_ASSETS();
  Crowd crowd(load_shared("lumagl/SimpleSkin.gltf"));
  Actor a = crowd.add_actor(with_id("a"));
  crowd.destroy();
  crowd.destroy();
  EXPECT_TRUE(crowd.destroyed());
  EXPECT_TRUE(crowd.primitive_groups().empty());
  EXPECT_EQ(crowd.actor_count(), 0u);
  EXPECT_THROW(crowd.add_actor(with_id("b")), Error);
  EXPECT_THROW(crowd.update(0.1f), Error);
  EXPECT_THROW(a.seek(0.1f), Error);
}

TEST(CrowdTest, FailedBatchesChangeNothing) {
  GLTF_CROWD_REQUIRE_ASSETS();
  Crowd crowd(load_shared("threejs/RobotExpressive.glb"), {.capacity = 4});
  crowd.add_actors(std::vector{with_id("x", {1, 0, 0}), with_id("y", {2, 0, 0})});
  crowd.update(0.1f);
  const Snapshot before = snapshot(crowd);
  ActorOptions unknown = with_id("u");
  unknown.clip = "Moonwalk";
  ActorOptions nan_speed = with_id("n");
  nan_speed.speed = std::numeric_limits<float>::quiet_NaN();
  const std::vector<std::vector<ActorOptions>> bad_batches = {
      {with_id("p"), with_id("p")},                // duplicate inside the batch
      {with_id("p"), unknown},                     // unknown clip
      {with_id("p"), with_id("q"), with_id("r")},  // one too many
      {with_id("p"), nan_speed},                   // NaN
      {with_id("p"), with_id("x")},                // duplicate of an existing actor
  };
  for (const auto& batch : bad_batches) {
    EXPECT_THROW(crowd.add_actors(batch), Error);
    EXPECT_EQ(snapshot(crowd), before);
  }
  try {
    crowd.add_actors(std::vector{with_id("p"), unknown});
  } catch (const Error& e) {
    EXPECT_EQ(e.path(), "add_actors[1].clip");
    EXPECT_EQ(e.rule(), "unknown_clip");
    EXPECT_NE(std::string(e.what()).find("Walking"), std::string::npos) << "lists the available clips";
  }
}

TEST(CrowdTest, AutoIdsNeverCollideWithUserIds) {
  GLTF_CROWD_REQUIRE_ASSETS();
  Crowd crowd(load_shared("lumagl/SimpleSkin.gltf"));
  crowd.add_actor(with_id("actor-0"));
  const Actor a = crowd.add_actor();
  const Actor b = crowd.add_actor();
  EXPECT_NE(a.id(), "actor-0");
  EXPECT_NE(a.id(), b.id());
  EXPECT_EQ(a.id().rfind("actor-", 0), 0u);
}

TEST(CrowdTest, RecursiveSkeletonsGives84GroupsWithDistinctTransforms) {
  GLTF_CROWD_REQUIRE_ASSETS();
  Crowd crowd(load_shared("khronos/RecursiveSkeletons.glb"));
  crowd.add_actor();
  ASSERT_EQ(crowd.primitive_groups().size(), 84u);
  // The 84 mesh nodes are identity roots (skinned meshes ignore their node transform), so what
  // tells them apart is their skin: each group's palette must differ from every other's.
  std::vector<std::array<float, 120>> transforms;
  for (const PrimitiveGroup& g : crowd.primitive_groups()) {
    EXPECT_EQ(g.palette_kind, PaletteKind::skinned);
    EXPECT_EQ(g.joint_count, 10u);
    std::array<float, 120> t;
    const NodeStream& stream = crowd.node_streams()[g.stream];
    std::memcpy(t.data(), crowd.node_streams()[stream.palette_stream].palette.data(), sizeof(t));
    transforms.push_back(t);
  }
  std::sort(transforms.begin(), transforms.end());
  EXPECT_EQ(std::unique(transforms.begin(), transforms.end()), transforms.end());
}

TEST(CrowdTest, RobotExpressiveHas19GroupsFourSkinnedWith43Joints) {
  GLTF_CROWD_REQUIRE_ASSETS();
  Crowd crowd(load_shared("threejs/RobotExpressive.glb"));
  ASSERT_EQ(crowd.primitive_groups().size(), 19u);
  int skinned = 0;
  for (const PrimitiveGroup& g : crowd.primitive_groups())
    if (g.palette_kind == PaletteKind::skinned) {
      ++skinned;
      EXPECT_EQ(g.joint_count, 43u);
    }
  EXPECT_EQ(skinned, 4);
}

TEST(CrowdTest, OneAndTwoThreadsPackIdenticalBytes) {
  GLTF_CROWD_REQUIRE_ASSETS();
  auto asset = load_shared("threejs/RobotExpressive.glb");
  auto run = [&](int threads) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
    Crowd crowd(asset, {.capacity = 1000});
    std::vector<ActorOptions> options(1000);
    for (std::size_t i = 0; i < options.size(); ++i) {
      options[i].clip = asset->clips[i % asset->clips.size()].name;
      options[i].phase = static_cast<float>(i % 97) / 97.0f;
      options[i].speed = 0.5f + static_cast<float>(i % 7) * 0.25f;
      options[i].transform = glm::translate(glm::mat4(1.0f), glm::vec3(i % 40, 0, i / 40));
    }
    crowd.add_actors(options);
    auto a = crowd.actors();
    for (std::size_t i = 0; i < a.size(); i += 3) a[i].select_clip("Dance", {.crossfade_seconds = 0.5f});
    for (int f = 0; f < 5; ++f) crowd.update(1.0f / 60.0f);
    std::vector<glm::vec4> bytes;
    for (const NodeStream& s : crowd.node_streams()) {
      bytes.insert(bytes.end(), s.transforms.begin(), s.transforms.end());
      bytes.insert(bytes.end(), s.palette.begin(), s.palette.end());
    }
    return bytes;
  };
  const auto one = run(1), two = run(2);
  ASSERT_EQ(one.size(), two.size());
  EXPECT_EQ(std::memcmp(one.data(), two.data(), one.size() * sizeof(glm::vec4)), 0);
}

// A crowd of 4,096 slots or more splits its due pass (clocks, the due slots and their groups)
// across the workers, then moves each part's due slots together: the same slots, clocks and rows
// as on one thread, with paused, hidden, finished and backward actors among them, all playing one
// clip (the due slots in slot order are the evaluation's order) or many, some crossfading (the
// groups' counts order them).
TEST(CrowdTest, ADuePassSplitAcrossWorkersFindsWhatOneThreadFinds) {
  GLTF_CROWD_REQUIRE_ASSETS();
  if (tbb::info::default_concurrency() < 2) GTEST_SKIP() << "one CPU: the crowd's arena has one worker, nothing splits";
  auto asset = load_shared("threejs/RobotExpressive.glb");
  constexpr std::size_t kActors = 4500;
  struct Run {
    std::vector<glm::vec4> bytes;
    std::vector<float> times;
    std::vector<std::uint32_t> evaluated, batched;
  };
  auto run = [&](int threads, bool one_clip) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
    Crowd crowd(asset, {.capacity = kActors});
    std::vector<ActorOptions> options(kActors);
    for (std::size_t i = 0; i < options.size(); ++i) {
      options[i].clip = one_clip ? "Walking" : asset->clips[i % asset->clips.size()].name;
      options[i].phase = static_cast<float>(i % 89) / 89.0f;
      options[i].speed = i % 11 == 0 ? -1.5f : 0.5f + static_cast<float>(i % 7) * 0.25f;
      options[i].transform = glm::translate(glm::mat4(1.0f), glm::vec3(i % 60, 0, i / 60));
    }
    crowd.add_actors(options);
    auto a = crowd.actors();
    if (!one_clip)
      for (std::size_t i = 0; i < a.size(); i += 5) a[i].select_clip("Dance", {.crossfade_seconds = 0.05f});
    for (std::size_t i = 1; i < a.size(); i += 13) a[i].pause();
    for (std::size_t i = 2; i < a.size(); i += 17) a[i].set_visible(false);
    for (std::size_t i = 3; i < a.size(); i += 19) a[i].set_loop(LoopMode::once);
    Run r;
    for (int f = 0; f < 6; ++f) {
      crowd.update(1.0f / 30.0f);
      r.evaluated.push_back(crowd.frame_stats().actors_evaluated);
      r.batched.push_back(crowd.frame_stats().actors_batched_by_clip);
    }
    for (std::size_t i = 0; i < a.size(); i += 7) a[i].set_visible(true);  // evaluated when shown
    for (const Actor& actor : crowd.actors()) r.times.push_back(actor.time());
    for (const NodeStream& s : crowd.node_streams()) {
      r.bytes.insert(r.bytes.end(), s.transforms.begin(), s.transforms.end());
      r.bytes.insert(r.bytes.end(), s.palette.begin(), s.palette.end());
    }
    return r;
  };
  for (const bool one_clip : {true, false}) {
    SCOPED_TRACE(one_clip ? "one clip" : "every clip");
    const Run one = run(1, one_clip), two = run(2, one_clip);
    // Every shown actor that plays is due: the crowd less the hidden and the paused, and less
    // those of the actors played once whose clip has ended.
    std::uint32_t shown_playing = 0, once = 0;
    for (std::size_t i = 0; i < kActors; ++i) {
      const bool still = i % 13 == 1 || i % 17 == 2;
      shown_playing += !still;
      once += !still && i % 19 == 3;
    }
    ASSERT_EQ(one.evaluated.size(), 6u);
    EXPECT_LE(one.evaluated[0], shown_playing);
    EXPECT_GE(one.evaluated[0], shown_playing - once);
    EXPECT_EQ(one.evaluated, two.evaluated);
    // Grouped by clip as well: every part's count per group reached the grouping. (Batches at the
    // two workers' chunk ends differ, hence not equal.)
    for (std::size_t f = 0; f < one.batched.size(); ++f) EXPECT_GE(two.batched[f] * 20, one.batched[f] * 19) << f;
    EXPECT_EQ(one.times, two.times);
    ASSERT_EQ(one.bytes.size(), two.bytes.size());
    EXPECT_EQ(std::memcmp(one.bytes.data(), two.bytes.data(), one.bytes.size() * sizeof(glm::vec4)), 0);
  }
}

TEST(CrowdTest, NodeWorldOfTheHandEqualsAnIndependentParentChain) {
  GLTF_CROWD_REQUIRE_ASSETS();
  auto asset = load_shared("threejs/RobotExpressive.glb");
  Crowd crowd(asset);
  ActorOptions o;
  o.clip = "Wave";
  o.phase = 0.4f;
  o.transform =
      glm::translate(glm::mat4(1.0f), glm::vec3(3, 0, -2)) * glm::rotate(glm::mat4(1.0f), 0.7f, glm::vec3(0, 1, 0));
  Actor actor = crowd.add_actor(o);
  crowd.update(0.1f);
  const int hand = asset->find_node("Palm2.R");  // the right hand's palm joint
  ASSERT_GE(hand, 0);
  const test::ScalarPose pose =
      test::scalar_clip_pose(*asset, asset->clips[static_cast<std::size_t>(asset->find_clip("Wave"))], actor.time());
  glm::mat4 want(1.0f);
  for (int n = hand; n >= 0; n = asset->nodes[static_cast<std::size_t>(n)].parent) {
    const auto i = static_cast<std::size_t>(n);
    const Node& node = asset->nodes[i];
    const glm::mat4 local = node.has_matrix
                                ? node.matrix
                                : glm::translate(glm::mat4(1.0f), pose.translations[i]) *
                                      glm::mat4_cast(pose.rotations[i]) * glm::scale(glm::mat4(1.0f), pose.scales[i]);
    want = local * want;
  }
  want = o.transform * want;
  const glm::mat4 got = actor.node_world(static_cast<std::uint32_t>(hand));
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) EXPECT_NEAR(got[c][r], want[c][r], 1e-4f);
  EXPECT_EQ(actor.node_world(asset->nodes[static_cast<std::size_t>(hand)].name), got);
  EXPECT_THROW(actor.node_world(100000u), Error);
}

// Stage times are opt-in (docs/spec.md §5.8): 0 unless asked for, measured when asked, and the
// packed rows do not depend on it.
TEST(CrowdTest, StageTimesAreMeasuredOnlyWhenAskedFor) {
  const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  const auto stage_sum = [](const FrameStats& s) {
    return s.sampling_ms + s.hierarchy_ms + s.palettes_ms + s.packing_ms;
  };
  Crowd quiet(asset, {.capacity = 200});
  Crowd timed(asset, {.capacity = 200, .time_stages = true});
  EXPECT_FALSE(quiet.stage_timing());
  EXPECT_TRUE(timed.stage_timing());
  for (Crowd* crowd : {&quiet, &timed}) {
    std::vector<ActorOptions> actors(200);
    for (std::size_t i = 0; i < actors.size(); ++i) actors[i].time = 0.01f * static_cast<float>(i);
    crowd->add_actors(actors);
  }
  for (int frame = 0; frame < 3; ++frame) {
    quiet.update(1.0f / 60.0f);
    timed.update(1.0f / 60.0f);
    const FrameStats& q = quiet.frame_stats();
    EXPECT_EQ(q.sampling_ms, 0.0);
    EXPECT_EQ(q.hierarchy_ms, 0.0);
    EXPECT_EQ(q.palettes_ms, 0.0);
    EXPECT_EQ(q.packing_ms, 0.0);
    const FrameStats& t = timed.frame_stats();
    EXPECT_GT(t.sampling_ms, 0.0);
    EXPECT_GT(stage_sum(t), 0.0);
    EXPECT_EQ(q.actors_evaluated, t.actors_evaluated);
  }
  for (std::size_t d = 0; d < quiet.node_streams().size(); ++d) {
    EXPECT_EQ(quiet.node_streams()[d].transforms, timed.node_streams()[d].transforms) << d;
    EXPECT_EQ(quiet.node_streams()[d].palette, timed.node_streams()[d].palette) << d;
  }
  // Switched off again: back to 0 from the next update.
  timed.set_stage_timing(false);
  timed.update(1.0f / 60.0f);
  EXPECT_EQ(stage_sum(timed.frame_stats()), 0.0);
  timed.destroy();
  EXPECT_FALSE(timed.stage_timing());
  EXPECT_THROW(timed.set_stage_timing(true), Error);
}

}  // namespace
}  // namespace gltf_crowd
