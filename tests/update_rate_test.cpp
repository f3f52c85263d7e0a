// Animation update-rate LOD (issue 9): clocks stay exactly those of an every-frame crowd, the
// schedule is staggered, deferred actors catch up, and every evaluation packs the same rows an
// every-frame crowd packs. Deterministic: frame counts and bit equality, no timing.
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"

namespace gltf_crowd {
namespace {

std::shared_ptr<const Asset> character() {
  static const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  return asset;
}

// 90° vertical field of view, square 512 × 512 viewport, looking down -z from the origin.
LodView camera() { return {glm::mat4(1.0f), glm::perspective(glm::radians(90.0f), 1.0f, 0.1f, 1000.0f), 512, 512}; }

CrowdOptions options(std::size_t capacity, bool update_rate) {
  CrowdOptions o;
  o.capacity = capacity;
  o.lod.enabled = true;
  o.lod.auto_generate = true;
  o.update_rate.enabled = update_rate;
  return o;
}

// Actors in a row going away from the camera: near ones cover much of the screen, far ones
// little, so all bands of the default policy are populated. Varied clips, phases and speeds,
// every third one crossfading, one paused.
std::vector<ActorOptions> row(std::size_t n) {
  const Asset& asset = *character();
  std::vector<ActorOptions> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    out[i].clip = asset.clips[i % asset.clips.size()].name;
    out[i].phase = static_cast<float>(i % 7) / 7.0f;
    out[i].speed = 0.5f + 0.25f * static_cast<float>(i % 4);
    out[i].playing = i != 5;
    out[i].transform = glm::translate(glm::mat4(1.0f), glm::vec3(0.0f, -1.0f, -3.0f - 4.0f * static_cast<float>(i)));
  }
  return out;
}

// Every packed row of `slot` in every stream, as bytes.
std::vector<std::uint8_t> packed(const Crowd& crowd, std::uint32_t slot) {
  std::vector<std::uint8_t> out;
  const auto append = [&out](const void* p, std::size_t bytes) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    out.insert(out.end(), b, b + bytes);
  };
  for (const NodeStream& s : crowd.node_streams()) {
    append(&s.transforms[std::size_t{slot} * 3], 48);
    if (!s.palette.empty()) append(&s.palette[std::size_t{slot} * 3 * s.joint_count], 48ull * s.joint_count);
    if (s.weight_stride > 0) append(&s.weights[std::size_t{slot} * s.weight_stride], 4ull * s.weight_stride);
  }
  return out;
}

TEST(UpdateRateTest, ClocksAreExactAndEvaluatedRowsMatchAnEveryFrameCrowd) {
  constexpr std::size_t kActors = 40;
  Crowd every(character(), options(kActors, false));
  Crowd sparse(character(), options(kActors, true));
  std::vector<Actor> a = every.add_actors(row(kActors));
  std::vector<Actor> b = sparse.add_actors(row(kActors));
  for (std::size_t i = 0; i < kActors; i += 3) {
    const std::string clip = character()->clips[(i + 1) % character()->clips.size()].name;
    a[i].select_clip(clip, {.crossfade_seconds = 0.7f});
    b[i].select_clip(clip, {.crossfade_seconds = 0.7f});
  }
  const LodView view = camera();
  std::uint32_t total_evaluated = 0, total_advanced = 0;
  for (int frame = 0; frame < 240; ++frame) {
    const float delta = (frame % 5 == 0) ? 1.0f / 30.0f : 1.0f / 60.0f + 0.001f * static_cast<float>(frame % 3);
    every.update(delta, view);
    sparse.update(delta, view);
    for (std::size_t i = 0; i < kActors; ++i) {
      ASSERT_EQ(a[i].time(), b[i].time()) << "actor " << i << " frame " << frame;
      ASSERT_EQ(a[i].finished(), b[i].finished());
    }
    const FrameStats& fs = sparse.frame_stats();
    const FrameStats& fe = every.frame_stats();
    // Every advanced actor is either evaluated or deferred; the every-frame crowd evaluates all.
    EXPECT_EQ(fe.actors_deferred, 0u);
    total_evaluated += fs.actors_evaluated;
    total_advanced += fe.actors_evaluated;
    // An actor evaluated this frame packed exactly what the every-frame crowd packed.
    for (std::uint32_t slot = 0; slot < kActors; ++slot) {
      if (sparse.slot_generations()[slot] != sparse.packed_generation()) continue;
      ASSERT_EQ(packed(sparse, slot), packed(every, slot)) << "slot " << slot << " frame " << frame;
    }
  }
  // The policy saved work: far actors were deferred (the row spans all bands).
  EXPECT_LT(total_evaluated, total_advanced * 3 / 4);
  EXPECT_GT(total_evaluated, 0u);
  // Turning it off evaluates every deferred actor that is drawn at once, the others by the next
  // update: then all rows agree again.
  sparse.set_update_rate({});
  for (std::uint32_t slot = 0; slot < kActors; ++slot) {
    const bool drawn = std::any_of(
        sparse.primitive_groups().begin(), sparse.primitive_groups().end(), [slot](const PrimitiveGroup& g) {
          return std::find(g.instances.begin(), g.instances.end(), slot) != g.instances.end();
        });
    if (drawn) {
      EXPECT_EQ(packed(sparse, slot), packed(every, slot)) << "drawn slot " << slot << " is stale";
    }
  }
  every.update(0.0f, view);
  sparse.update(0.0f, view);
  EXPECT_EQ(sparse.frame_stats().actors_deferred, 0u);
  for (std::uint32_t slot = 0; slot < kActors; ++slot) EXPECT_EQ(packed(sparse, slot), packed(every, slot)) << slot;
}

TEST(UpdateRateTest, OneBandIsStaggeredEvenlyAndNoActorWaitsAWholePeriod) {
  constexpr std::size_t kActors = 64;
  CrowdOptions o = options(kActors, true);
  o.update_rate.coverage = {1e9f};  // every actor is in the band
  o.update_rate.periods = {4};
  Crowd crowd(character(), o);
  std::vector<ActorOptions> actors = row(kActors);
  for (ActorOptions& actor : actors) {
    actor.playing = true;
    actor.transform = glm::translate(glm::mat4(1.0f), glm::vec3(0.0f, 0.0f, -10.0f));
  }
  crowd.add_actors(actors);
  const LodView view = camera();
  crowd.update(1.0f / 60.0f, view);  // first frame: rows from add_actors are 1 frame old
  std::vector<std::uint64_t> last(kActors, crowd.packed_generation());
  for (int frame = 0; frame < 40; ++frame) {
    crowd.update(1.0f / 60.0f, view);
    EXPECT_EQ(crowd.frame_stats().actors_evaluated, kActors / 4) << frame;
    EXPECT_EQ(crowd.frame_stats().actors_deferred, kActors - kActors / 4) << frame;
    for (std::uint32_t slot = 0; slot < kActors; ++slot) {
      if (crowd.slot_generations()[slot] == crowd.packed_generation()) last[slot] = crowd.packed_generation();
      EXPECT_LT(crowd.packed_generation() - last[slot], 4u) << "slot " << slot << " waited a whole period";
    }
  }
}

// A control's actor is due at the next update even where the schedule would defer it
// (docs/spec.md §3.4, §11): after set_speed on a whole band of period 4, that update evaluates
// every actor, packing the rows an every-frame crowd packs, and the schedule then resumes.
TEST(UpdateRateTest, AControlledActorIsEvaluatedByTheNextUpdate) {
  constexpr std::uint32_t kActors = 16;
  CrowdOptions o = options(kActors, true);
  o.update_rate.coverage = {1e9f};  // every actor is in the band
  o.update_rate.periods = {4};
  Crowd crowd(character(), o);
  Crowd every(character(), options(kActors, false));
  std::vector<ActorOptions> actors = row(kActors);
  for (ActorOptions& actor : actors) {
    actor.playing = true;
    actor.transform = glm::translate(glm::mat4(1.0f), glm::vec3(0.0f, 0.0f, -10.0f));
  }
  crowd.add_actors(actors);
  every.add_actors(actors);
  const LodView view = camera();
  for (int frame = 0; frame < 6; ++frame) {
    crowd.update(1.0f / 60.0f, view);
    every.update(1.0f / 60.0f, view);
  }
  ASSERT_EQ(crowd.frame_stats().actors_evaluated, kActors / 4);
  for (Crowd* c : {&crowd, &every})
    for (Actor a : c->actors()) a.set_speed(1.25f);
  crowd.update(1.0f / 60.0f, view);
  every.update(1.0f / 60.0f, view);
  EXPECT_EQ(crowd.frame_stats().actors_evaluated, kActors);
  EXPECT_EQ(crowd.frame_stats().actors_deferred, 0u);
  for (std::uint32_t slot = 0; slot < kActors; ++slot) {
    EXPECT_EQ(crowd.slot_generations()[slot], crowd.packed_generation()) << slot;
    EXPECT_EQ(packed(crowd, slot), packed(every, slot)) << slot;
  }
  crowd.update(1.0f / 60.0f, view);
  EXPECT_EQ(crowd.frame_stats().actors_evaluated, kActors / 4);
}

TEST(UpdateRateTest, AnActorCulledForLongIsCurrentAsSoonAsALodControlShowsIt) {
  // One actor behind the camera (culled) for a second, then the camera turns to it.
  std::vector<ActorOptions> one = row(1);
  one[0].transform = glm::translate(glm::mat4(1.0f), glm::vec3(0.0f, -1.0f, 6.0f));
  Crowd every(character(), options(1, false));
  Crowd sparse(character(), options(1, true));
  every.add_actors(one);
  sparse.add_actors(one);
  const LodView ahead = camera();
  for (int frame = 0; frame < 60; ++frame) {
    every.update(1.0f / 60.0f, ahead);
    sparse.update(1.0f / 60.0f, ahead);
  }
  ASSERT_EQ(sparse.lod_stats().culled_actors, 1u);
  EXPECT_EQ(sparse.frame_stats().actors_evaluated, 0u);
  LodView behind = ahead;
  behind.view = glm::rotate(glm::mat4(1.0f), glm::radians(180.0f), glm::vec3(0, 1, 0));
  every.set_lod_view(behind);
  sparse.set_lod_view(behind);
  ASSERT_EQ(sparse.lod_stats().visible_actors, 1u);
  EXPECT_EQ(packed(sparse, 0), packed(every, 0)) << "drawn with the pose from before it was culled";
}

TEST(UpdateRateTest, WithoutAnActiveLodViewEveryActorIsEvaluated) {
  Crowd crowd(character(), options(8, true));  // no view set
  crowd.add_actors(row(8));
  crowd.update(1.0f / 60.0f);
  EXPECT_EQ(crowd.frame_stats().actors_evaluated, 7u);  // actor 5 is paused
  EXPECT_EQ(crowd.frame_stats().actors_deferred, 0u);
}

TEST(UpdateRateTest, InvalidPoliciesAreRejectedAndChangeNothing) {
  Crowd crowd(character(), options(4, true));
  const UpdateRateOptions before = crowd.update_rate();
  const auto expect_error = [&](UpdateRateOptions bad, const char* path, const char* rule) {
    try {
      crowd.set_update_rate(bad);
      ADD_FAILURE() << "accepted " << path;
    } catch (const Error& e) {
      EXPECT_EQ(e.path(), path);
      EXPECT_EQ(e.rule(), rule);
    }
    EXPECT_EQ(crowd.update_rate().coverage, before.coverage);
    EXPECT_EQ(crowd.update_rate().periods, before.periods);
  };
  expect_error({true, {0.1f}, {2, 4}}, "update_rate", "update_rate");
  expect_error({true, {0.1f, 0.2f}, {2, 4}}, "update_rate.coverage[1]", "update_rate_coverage");
  expect_error({true, {0.0f}, {2}}, "update_rate.coverage[0]", "update_rate_coverage");
  expect_error({true, {std::numeric_limits<float>::quiet_NaN()}, {2}}, "update_rate.coverage[0]",
               "update_rate_coverage");
  expect_error({true, {0.1f}, {0}}, "update_rate.periods[0]", "update_rate_period");
  expect_error({true, {0.1f}, {65}}, "update_rate.periods[0]", "update_rate_period");
  EXPECT_THROW(Crowd(character(), CrowdOptions{.update_rate = {true, {0.1f}, {0}}}), Error);
}

}  // namespace
}  // namespace gltf_crowd
