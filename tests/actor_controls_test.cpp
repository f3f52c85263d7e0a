// Actor controls of docs/spec.md §3: each takes effect at once, and the packed pose shows it at the
// next read or update, even for paused and finished actors; the batch forms equal them; seek moves
// only the incoming clip of a crossfade; finished actors hold their last pose and restart on
// play(). "The pose shown" is compared byte for byte with a
// fresh actor created at the expected clip and time, so no expected pose comes from the code
// path under test. Most tests run on the built-in character (Walking 1.2 s, Wave 2 s, Idle 3 s).
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
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

// docs/spec.md §3.4: a control marks its actor, and the next update evaluates it with the others
// in its loop. Generations count evaluations: 16 set_speed calls and an update raise
// packed_generation() once, the update's (evaluating at each control raised it 17 times), and the
// rows are a fresh actor's at the time speed 2 gives.
TEST(ActorControlsTest, ControlsMarkTheActorAndTheNextUpdateEvaluatesIt) {
  constexpr std::size_t kActors = 16;
  Crowd crowd(character(), {.capacity = kActors});
  std::vector<ActorOptions> options(kActors, ActorOptions{.clip = "Idle"});
  for (std::size_t i = 0; i < kActors; ++i) options[i].time = 0.1f * static_cast<float>(i);
  std::vector<Actor> actors = crowd.add_actors(options);
  crowd.update(0.0f);
  const std::uint64_t before = crowd.packed_generation();
  for (Actor& a : actors) a.set_speed(2.0f);
  crowd.update(0.25f);
  EXPECT_EQ(crowd.packed_generation(), before + 1) << "the controls evaluated nothing";
  EXPECT_EQ(crowd.frame_stats().actors_evaluated, kActors);
  for (std::size_t i = 0; i < kActors; ++i) {
    EXPECT_EQ(crowd.slot_generations()[i], before + 1) << i;
    EXPECT_TRUE(same_pose(packed(crowd, i), fresh_pose("Idle", 0.1f * static_cast<float>(i) + 0.5f))) << i;
  }
}

// Before any update, the first read of packed rows or records shows a control (docs/spec.md §3.4),
// for a playing actor too, on both evaluators.
TEST(ActorControlsTest, TheFirstReadAfterAControlShowsIt) {
  for (const Animation animation : {Animation::cpu, Animation::gpu}) {
    Crowd crowd(character(), {.capacity = 2, .animation = animation});
    Actor a = crowd.add_actor({.clip = "Walking", .time = 0.3f});
    crowd.update(0.1f);
    const std::uint64_t before = crowd.packed_generation();
    a.seek(0.9f);
    if (animation == Animation::cpu) {
      EXPECT_TRUE(same_pose(packed(crowd, 0), fresh_pose("Walking", 0.9f)));
    } else {
      EXPECT_FLOAT_EQ(crowd.playback_records()[0].seconds[0], 0.9f);
    }
    EXPECT_GT(crowd.slot_generations()[0], before);
    const glm::mat4 moved = glm::translate(glm::mat4(1.0f), glm::vec3(4.0f, 0.0f, 0.0f));
    a.set_transform(moved);
    EXPECT_EQ(crowd.placement_generations()[0], crowd.packed_generation()) << "the placement counts as written";
    if (animation == Animation::cpu) {
      EXPECT_FLOAT_EQ(crowd.node_streams()[0].transforms[0].w - 4.0f, fresh_pose("Walking", 0.9f)[3]);
    }
  }
}

// The controls of a mixed crowd (playing, paused, hidden, crossfading), given three ways: one
// actor at a time, in batches, and one at a time with a read of the rows after each (what
// evaluating at each control gave). After each of a few updates the three crowds hold the same
// bytes, records, times, tints and instance lists.
TEST(ActorControlsTest, BatchControlsEqualPerActorControlsByteForByte) {
  constexpr std::size_t kActors = 40;
  const Asset& asset = *character();
  std::vector<ActorOptions> options(kActors);
  for (std::size_t i = 0; i < kActors; ++i) {
    options[i].clip = asset.clips[i % asset.clips.size()].name;
    options[i].phase = static_cast<float>(i % 9) / 9.0f;
    options[i].speed = i % 8 == 0 ? -0.75f : 1.0f;
    options[i].playing = i % 7 != 3;
    options[i].transform = glm::translate(glm::mat4(1.0f), glm::vec3(static_cast<float>(i), 0.0f, 0.0f));
  }
  // Every n-th actor from `first`.
  const auto every = [](const std::vector<Actor>& all, std::size_t first, std::size_t n) {
    std::vector<Actor> out;
    for (std::size_t i = first; i < all.size(); i += n) out.push_back(all[i]);
    return out;
  };
  enum class Way { one_by_one, batch, read_after_each };
  const auto run = [&](Way way, Animation animation) {
    Crowd crowd(character(), {.capacity = kActors, .animation = animation});
    std::vector<Actor> all = crowd.add_actors(options);
    for (std::size_t i = 4; i < kActors; i += 9) all[i].set_visible(false);
    for (std::size_t i = 0; i < kActors; i += 5) all[i].select_clip("Dance", {.crossfade_seconds = 0.5f});
    crowd.update(0.1f);
    const glm::vec4 tint(0.5f, 1.0f, 0.25f, 1.0f);
    struct Control {
      std::vector<Actor> actors;
      std::function<void(Actor&)> one;
      std::function<void(std::span<const Actor>)> batch;
    };
    const std::vector<Control> controls{
        {all, [](Actor& a) { a.set_speed(1.5f); }, [&](std::span<const Actor> s) { crowd.set_speed(s, 1.5f); }},
        {every(all, 1, 3), [](Actor& a) { a.select_clip("Wave", {.crossfade_seconds = 0.3f}); },
         [&](std::span<const Actor> s) { crowd.select_clip(s, "Wave", {.crossfade_seconds = 0.3f}); }},
        {every(all, 2, 4), [](Actor& a) { a.seek(0.4f); }, [&](std::span<const Actor> s) { crowd.seek(s, 0.4f); }},
        {every(all, 0, 6), [](Actor& a) { a.pause(); }, [&](std::span<const Actor> s) { crowd.pause(s); }},
        {every(all, 3, 7), [](Actor& a) { a.play(); }, [&](std::span<const Actor> s) { crowd.play(s); }},
        {every(all, 1, 2), [&](Actor& a) { a.set_tint(tint); },
         [&](std::span<const Actor> s) { crowd.set_tint(s, tint); }},
        {every(all, 2, 9), [](Actor& a) { a.set_visible(true); },
         [&](std::span<const Actor> s) { crowd.set_visible(s, true); }},
        {every(all, 6, 11), [](Actor& a) { a.set_visible(false); },
         [&](std::span<const Actor> s) { crowd.set_visible(s, false); }},
    };
    std::vector<std::uint8_t> bytes;
    const auto append = [&bytes](const void* p, std::size_t n) {
      bytes.insert(bytes.end(), static_cast<const std::uint8_t*>(p), static_cast<const std::uint8_t*>(p) + n);
    };
    for (int frame = 0; frame < 3; ++frame) {
      for (const Control& c : controls) {
        if (way == Way::batch) {
          c.batch(c.actors);
          continue;
        }
        for (Actor a : c.actors) {
          c.one(a);
          if (way == Way::read_after_each) crowd.slot_generations();
        }
      }
      crowd.update(1.0f / 30.0f);
      for (const NodeStream& s : crowd.node_streams()) {
        append(s.transforms.data(), s.transforms.size() * sizeof(glm::vec4));
        append(s.palette.data(), s.palette.size() * sizeof(glm::vec4));
        append(s.weights.data(), s.weights.size() * sizeof(float));
      }
      append(crowd.playback_records().data(), crowd.playback_records().size_bytes());
      append(crowd.tints().data(), crowd.tints().size_bytes());
      for (const Actor& a : all) {
        const float t = a.time();
        append(&t, sizeof t);
      }
      for (const PrimitiveGroup& g : crowd.primitive_groups()) append(g.instances.data(), g.instances.size() * 4);
    }
    return bytes;
  };
  for (const Animation animation : {Animation::cpu, Animation::gpu}) {
    SCOPED_TRACE(animation == Animation::cpu ? "cpu" : "gpu");
    const std::vector<std::uint8_t> one = run(Way::one_by_one, animation);
    EXPECT_EQ(run(Way::batch, animation), one);
    EXPECT_EQ(run(Way::read_after_each, animation), one);
  }
}

// A batch control validates every handle and its values before it changes any actor
// (docs/spec.md §3.4): a bad one names its index, and nothing changes, not even the generations.
TEST(ActorControlsTest, BatchControlsWithOneBadArgumentChangeNothing) {
  Crowd crowd(character(), {.capacity = 4});
  Crowd other(character(), {.capacity = 1});
  std::vector<Actor> actors = crowd.add_actors(std::vector<ActorOptions>(4, ActorOptions{.clip = "Walking"}));
  const Actor stranger = other.add_actor();
  crowd.update(0.2f);
  Actor removed = actors[3];
  crowd.remove_actor(removed.id());
  Actor moved_from = actors[2];
  const Actor moved_to = std::move(moved_from);
  const std::uint64_t generation = crowd.packed_generation();
  const std::vector<std::uint64_t> slot_generations(crowd.slot_generations().begin(), crowd.slot_generations().end());
  const auto expect_error = [](const std::function<void()>& call, const char* path, const char* rule) {
    try {
      call();
      ADD_FAILURE() << "no error for " << path;
    } catch (const Error& e) {
      EXPECT_EQ(e.path(), path);
      EXPECT_EQ(e.rule(), rule);
    }
  };
  const std::vector<Actor> with_removed{actors[0], removed, actors[1]};
  const std::vector<Actor> with_stranger{actors[0], actors[1], stranger};
  const std::vector<Actor> with_moved_from{actors[1], moved_from};
  const std::vector<Actor> good{actors[0], actors[1]};
  expect_error([&] { crowd.set_speed(with_removed, 2.0f); }, "set_speed.actors[1]", "stale_actor");
  expect_error([&] { crowd.pause(with_stranger); }, "pause.actors[2]", "foreign_actor");
  expect_error([&] { crowd.play(with_moved_from); }, "play.actors[1]", "stale_actor");
  expect_error([&] { crowd.seek(with_stranger, 0.5f); }, "seek.actors[2]", "foreign_actor");
  expect_error([&] { crowd.set_visible(with_removed, false); }, "set_visible.actors[1]", "stale_actor");
  expect_error([&] { crowd.set_tint(with_removed, glm::vec4(0.5f)); }, "set_tint.actors[1]", "stale_actor");
  expect_error([&] { crowd.select_clip(with_removed, "Wave"); }, "select_clip.actors[1]", "stale_actor");
  expect_error([&] { crowd.set_speed(good, std::nanf("")); }, "set_speed.speed", "not_finite");
  expect_error([&] { crowd.seek(good, INFINITY); }, "seek.seconds", "not_finite");
  expect_error([&] { crowd.select_clip(good, "Moonwalk"); }, "select_clip.name", "unknown_clip");
  expect_error([&] { crowd.select_clip(good, "Wave", {.crossfade_seconds = -1.0f}); }, "select_clip.crossfade_seconds",
               "negative");
  expect_error([&] { crowd.set_tint(good, glm::vec4(1.0f, -1.0f, 1.0f, 1.0f)); }, "set_tint.rgba", "negative");
  for (std::size_t i = 0; i < 3; ++i) {
    const Actor& a = i == 2 ? moved_to : actors[i];
    EXPECT_EQ(a.speed(), 1.0f);
    EXPECT_TRUE(a.playing());
    EXPECT_TRUE(a.visible());
    EXPECT_EQ(a.active_clip(), "Walking");
    EXPECT_FLOAT_EQ(a.time(), 0.2f);
    EXPECT_EQ(a.tint(), glm::vec4(1.0f));
  }
  EXPECT_EQ(crowd.packed_generation(), generation) << "nothing was marked";
  EXPECT_EQ(std::vector<std::uint64_t>(crowd.slot_generations().begin(), crowd.slot_generations().end()),
            slot_generations);
  crowd.set_speed(good, 2.0f);  // the same call with good handles works
  EXPECT_EQ(actors[1].speed(), 2.0f);
  EXPECT_EQ(moved_to.speed(), 1.0f);
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
