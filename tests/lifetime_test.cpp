// Lifetime safety (issue 14, item 7): an Actor handle outliving its Crowd object throws Error
// "destroyed" instead of reading freed memory (the suite runs under AddressSanitizer in CI);
// crowds move, and handles and renderers follow the moved crowd while the moved-from one
// behaves as destroyed; morph_weights() is a copy of the current weights, unaffected by
// reserve() and by update-rate LOD deferring the packed rows.
#include <cmath>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include "crowd_model.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"
#include "gltf_crowd/gl.hpp"
#include "gltf_crowd/sampling.hpp"
#include "scalar_pose.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

using fuzz::snapshot;

std::shared_ptr<const Asset> character() {
  static const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  return asset;
}

// Two actors with non-default state: one crossfading, one mirrored and placed; updated once.
void populate(Crowd& crowd) {
  crowd.add_actor({.id = "a", .clip = "Walking", .phase = 0.25f});
  Actor b = crowd.add_actor(
      {.id = "b",
       .clip = "Wave",
       .speed = -1.5f,
       .transform = glm::scale(glm::translate(glm::mat4(1.0f), glm::vec3(2, 0, -1)), glm::vec3(-1, 1, 1))});
  b.select_clip("Dance", {.crossfade_seconds = 1.0f});
  crowd.update(0.25f);
}

// Every call of `actor` must throw Error with `rule`.
void expect_every_call_throws(const Actor& actor, const std::string& rule) {
  Actor a = actor;
  const std::vector<std::pair<const char*, std::function<void()>>> calls = {
      {"id", [&] { (void)a.id(); }},
      {"active_clip", [&] { (void)a.active_clip(); }},
      {"time", [&] { (void)a.time(); }},
      {"phase", [&] { (void)a.phase(); }},
      {"speed", [&] { (void)a.speed(); }},
      {"loop", [&] { (void)a.loop(); }},
      {"repetitions", [&] { (void)a.repetitions(); }},
      {"playing", [&] { (void)a.playing(); }},
      {"finished", [&] { (void)a.finished(); }},
      {"contributors", [&] { (void)a.contributors(); }},
      {"morph_weights", [&] { (void)a.morph_weights(); }},
      {"transform", [&] { (void)a.transform(); }},
      {"select_clip", [&] { a.select_clip("Idle"); }},
      {"seek", [&] { a.seek(0.5f); }},
      {"set_phase", [&] { a.set_phase(0.5f); }},
      {"set_speed", [&] { a.set_speed(2.0f); }},
      {"set_loop", [&] { a.set_loop(LoopMode::once); }},
      {"play", [&] { a.play(); }},
      {"pause", [&] { a.pause(); }},
      {"set_transform", [&] { a.set_transform(glm::mat4(1.0f)); }},
      {"local_pose", [&] { (void)a.local_pose(); }},
      {"node_world(index)", [&] { (void)a.node_world(0u); }},
      {"node_world(name)", [&] { (void)a.node_world("Hips"); }},
  };
  for (const auto& [name, call] : calls) {
    try {
      call();
      ADD_FAILURE() << name << " did not throw";
    } catch (const Error& e) {
      EXPECT_EQ(e.rule(), rule) << name << ": " << e.what();
    }
  }
}

TEST(LifetimeTest, ActorOutlivingItsCrowdObjectThrowsDestroyed) {
  std::vector<Actor> handles;
  {
    auto crowd = std::make_unique<Crowd>(character(), CrowdOptions{.capacity = 4});
    populate(*crowd);
    handles = crowd->actors();
    ASSERT_EQ(handles.size(), 2u);
  }  // the Crowd object and all its memory are gone
  for (const Actor& a : handles) expect_every_call_throws(a, "destroyed");
}

TEST(LifetimeTest, ActorOfADestroyedCrowdThrowsDestroyed) {
  Crowd crowd(character(), {.capacity = 4});
  populate(crowd);
  const std::vector<Actor> handles = crowd.actors();
  crowd.destroy();
  for (const Actor& a : handles) expect_every_call_throws(a, "destroyed");
}

TEST(LifetimeTest, MovedFromHandleThrowsStaleActor) {
  Crowd crowd(character(), {.capacity = 4});
  Actor a = crowd.add_actor({.id = "a"});
  Actor b = std::move(a);
  EXPECT_EQ(b.id(), "a");
  expect_every_call_throws(a, "stale_actor");  // NOLINT(bugprone-use-after-move): the point
}

// Expectations on a moved-from crowd: it behaves as destroyed and keeps its asset.
void expect_moved_from(Crowd& crowd, const Asset* asset) {
  EXPECT_TRUE(crowd.destroyed());
  EXPECT_EQ(&crowd.asset(), asset);
  EXPECT_EQ(crowd.actor_count(), 0u);
  EXPECT_EQ(crowd.capacity(), 0u);
  EXPECT_TRUE(crowd.primitive_groups().empty());
  EXPECT_TRUE(crowd.node_streams().empty());
  EXPECT_TRUE(crowd.slot_generations().empty());
  EXPECT_EQ(crowd.link(), nullptr);
  for (const auto& call : std::vector<std::function<void()>>{
           [&] { crowd.add_actor(); }, [&] { crowd.update(0.1f); }, [&] { (void)crowd.actors(); },
           [&] { (void)crowd.find_actor("a"); }, [&] { crowd.remove_actor("a"); }, [&] { crowd.reserve(8); }}) {
    try {
      call();
      ADD_FAILURE() << "a moved-from crowd accepted a call";
    } catch (const Error& e) {
      EXPECT_EQ(e.rule(), "destroyed") << e.what();
    }
  }
  crowd.destroy();  // idempotent
}

// The actors' clocks, placements and packed rows as plain values, to compare across a move.
struct Observed {
  std::vector<float> times;
  std::vector<glm::mat4> transforms;
  std::vector<std::vector<glm::vec4>> rows;
  bool operator==(const Observed&) const = default;
};

Observed observe(const std::vector<Actor>& actors, const Crowd& crowd) {
  Observed o;
  for (const Actor& a : actors) {
    o.times.push_back(a.time());
    o.transforms.push_back(a.transform());
  }
  for (const NodeStream& s : crowd.node_streams()) {
    o.rows.emplace_back(s.transforms.begin(), s.transforms.begin() + 3 * crowd.actor_count());
    o.rows.emplace_back(s.palette.begin(),
                        s.palette.begin() + (s.palette.empty() ? 0 : 3 * s.joint_count * crowd.actor_count()));
  }
  return o;
}

TEST(LifetimeTest, MoveConstructionKeepsActorsAndHandlesFollow) {
  Crowd twin(character(), {.capacity = 4});  // the same history, never moved
  populate(twin);
  Crowd source(character(), {.capacity = 4});
  populate(source);
  std::vector<Actor> handles = source.actors();
  const std::string before = snapshot(source);
  const Observed observed = observe(handles, source);
  const std::span<const PrimitiveGroup> groups = source.primitive_groups();

  Crowd moved(std::move(source));
  EXPECT_FALSE(moved.destroyed());
  EXPECT_EQ(snapshot(moved), before);
  EXPECT_TRUE(observe(handles, moved) == observed) << "the handles read the moved crowd";
  EXPECT_EQ(moved.primitive_groups().data(), groups.data()) << "the arrays moved, not copied";
  expect_moved_from(source, &moved.asset());  // NOLINT(bugprone-use-after-move): the point

  // Handles drive the moved crowd, which keeps working exactly as the unmoved twin.
  handles[0].seek(0.5f);
  twin.find_actor("a")->seek(0.5f);
  moved.update(0.1f);
  twin.update(0.1f);
  EXPECT_EQ(snapshot(moved), snapshot(twin));
  EXPECT_EQ(moved.find_actor("a")->time(), handles[0].time());
  moved.remove_actor("b");
  expect_every_call_throws(handles[1], "stale_actor");
}

TEST(LifetimeTest, MoveAssignmentKeepsActorsAndDropsTheOldOnes) {
  Crowd source(character(), {.capacity = 4});
  populate(source);
  std::vector<Actor> handles = source.actors();
  const std::string before = snapshot(source);
  Crowd target(character(), {.capacity = 2});
  const Actor old = target.add_actor({.id = "old"});

  target = std::move(source);
  EXPECT_EQ(snapshot(target), before);
  EXPECT_EQ(target.capacity(), 4u);
  EXPECT_EQ(handles[1].id(), "b");
  handles[1].set_speed(3.0f);
  EXPECT_EQ(target.find_actor("b")->speed(), 3.0f);
  expect_every_call_throws(old, "destroyed");  // target's own actors went with its old state
  expect_moved_from(source, &target.asset());  // NOLINT(bugprone-use-after-move): the point

  // A moved-from crowd can be assigned to; the handles stay with `target`.
  source = Crowd(character(), {.capacity = 2});
  EXPECT_FALSE(source.destroyed());
  source.add_actor({.id = "a"});
  EXPECT_EQ(handles[0].time(), target.find_actor("a")->time());
  handles[0].seek(0.1f);
  EXPECT_FLOAT_EQ(target.find_actor("a")->time(), 0.1f);
  EXPECT_FLOAT_EQ(source.find_actor("a")->time(), 0.0f);
}

// The morph weights `actor` should have now: its clip sampled at its time over the rest pose
// (a single contributor, no crossfade), computed by the tests' own scalar sampling.
std::vector<float> expected_weights(const Asset& asset, const Actor& actor) {
  return test::scalar_clip_pose(asset, asset.clips[static_cast<std::size_t>(asset.find_clip(actor.active_clip()))],
                                actor.time())
      .weights;
}

void expect_near(std::span<const float> got, const std::vector<float>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[k], want[k], 1e-5f) << what << ", weight " << k;
}

// morph_weights() held across reserve() (which reallocates every per-slot array) stays the
// actor's weights, and a new call after it returns the same.
void expect_weights_survive_reserve(const std::shared_ptr<const Asset>& asset, const char* clip) {
  SCOPED_TRACE(clip);
  ASSERT_GT(asset->total_weights, 0u);
  Crowd crowd(asset, {.capacity = 2});
  Actor actor = crowd.add_actor({.clip = clip, .phase = 0.3f});
  crowd.add_actor({.clip = clip});
  crowd.update(0.2f);
  const std::vector<float> want = expected_weights(*asset, actor);
  bool animated = false;
  for (std::size_t k = 0; k < want.size(); ++k) animated |= want[k] != asset->rest_weights[k];
  ASSERT_TRUE(animated) << "the clip moves the weights at this time";
  const auto held = actor.morph_weights();
  crowd.reserve(512);
  crowd.add_actors(std::vector<ActorOptions>(100));
  expect_near(held, want, "held across reserve");
  expect_near(actor.morph_weights(), want, "after reserve");
}

TEST(LifetimeTest, MorphWeightsSurviveReserve) {
  expect_weights_survive_reserve(character(), "Wave");
  GLTF_CROWD_REQUIRE_ASSETS();
  expect_weights_survive_reserve(
      std::make_shared<const Asset>(load_asset(test::asset_path("khronos/MorphStressTest/MorphStressTest.gltf"))),
      "TheWave");
}

// While update-rate LOD defers an actor, its packed weights are older than its clock; the
// handle still reports the current weights.
TEST(LifetimeTest, MorphWeightsAreCurrentWhileUpdateRateDefers) {
  CrowdOptions options{.capacity = 1};
  options.lod.enabled = true;
  options.lod.auto_generate = true;
  options.update_rate.enabled = true;
  Crowd crowd(character(), options);
  // Far enough to cover 3% of the view's height: evaluated every 4th frame.
  Actor actor = crowd.add_actor({.clip = "Wave", .transform = glm::translate(glm::mat4(1.0f), glm::vec3(0, -1, -30))});
  const LodView view{glm::mat4(1.0f), glm::perspective(glm::radians(90.0f), 1.0f, 0.1f, 1000.0f), 512, 512};
  bool deferred = false;
  for (int frame = 0; frame < 8 && !deferred; ++frame) {
    crowd.update(0.1f, view);
    deferred = crowd.frame_stats().actors_deferred == 1;
  }
  ASSERT_TRUE(deferred) << "the actor is deferred within a period";
  const std::vector<float> want = expected_weights(*character(), actor);
  expect_near(actor.morph_weights(), want, "current");
  expect_near(actor.morph_weights(), actor.local_pose().weights, "local_pose");
  // The packed rows are older, so this test distinguishes current from packed weights.
  const Asset& asset = *character();
  bool packed_differs = false;
  for (const NodeStream& s : crowd.node_streams()) {
    const std::uint32_t offset = asset.weight_offsets[s.node];
    for (std::uint32_t k = 0; k < asset.weight_counts[s.node]; ++k)
      packed_differs |= std::abs(s.weights[k] - want[offset + k]) > 1e-4f;
  }
  EXPECT_TRUE(packed_differs);
}

// Renderers follow a moved crowd as handles do: they draw the crowd it was moved into, and
// reject the moved-from object; a crowd whose object is gone is never read.
TEST(LifetimeTest, RenderersFollowAMovedCrowd) {
  HeadlessContext context;
  Framebuffer target({.width = 48, .height = 36});
  Camera camera;
  camera.view = glm::lookAt(glm::vec3(0, 1, 6), glm::vec3(0, 1, 0), glm::vec3(0, 1, 0));
  camera.projection = glm::perspective(glm::radians(45.0f), 4.0f / 3.0f, 0.1f, 50.0f);
  auto source = std::make_unique<Crowd>(character(), CrowdOptions{.capacity = 4});
  populate(*source);
  CrowdRenderer renderer(*source);
  ReferenceRenderer reference(*source);
  target.clear(glm::vec4(0, 0, 1, 1));
  renderer.draw(*source, camera);
  const std::vector<std::uint8_t> before = target.read_pixels();

  auto moved = std::make_unique<Crowd>(std::move(*source));
  target.clear(glm::vec4(0, 0, 1, 1));
  EXPECT_EQ(renderer.draw(*moved, camera), moved->primitive_groups().size());
  EXPECT_TRUE(target.read_pixels() == before) << "the same crowd, drawn after its move";
  EXPECT_GT(reference.draw(*moved, camera), 0u);
  for (const auto& draw : std::vector<std::function<void()>>{[&] { renderer.draw(*source, camera); },
                                                             [&] { reference.draw(*source, camera); }}) {
    try {
      draw();
      ADD_FAILURE() << "the moved-from crowd was drawn";
    } catch (const Error& e) {
      EXPECT_EQ(e.rule(), "wrong_crowd") << e.what();
    }
  }
  moved.reset();  // the renderers' crowd object is gone
  Crowd other(character());
  EXPECT_THROW(renderer.draw(other, camera), Error);
  EXPECT_THROW(reference.draw(other, camera), Error);
  // A renderer made for a moved-from crowd draws nothing for it, as for a destroyed crowd.
  CrowdRenderer late(*source);
  EXPECT_EQ(late.draw(*source, camera), 0u);
}

}  // namespace
}  // namespace gltf_crowd
