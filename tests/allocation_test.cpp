// update() makes no heap allocation after warm-up (docs/spec.md §5, docs/architecture.md "Nothing in update
// allocates"). Counts every operator new in the process while the measured region runs.
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <new>
#include <span>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <tbb/global_control.h>
#include <tbb/info.h>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"
#include "gltf_crowd/gait.hpp"
#include "gltf_crowd/trajectories.hpp"
#include "test_support.hpp"

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
}  // namespace

// Every replacement allocates with malloc, so free() below is the matching release; GCC cannot
// see that through the replaced operator new.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t size) {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
// The nothrow forms too: Mesa's LLVM allocates with them and frees with plain delete, which the
// replacement below turns into free(); ASan reports a mismatch unless both sides are malloc.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept { return operator new(size, tag); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace gltf_crowd {
namespace {

TEST(AllocationTest, UpdateAllocatesNothingAfterWarmUp) {
  GLTF_CROWD_REQUIRE_ASSETS();
  auto asset = std::make_shared<const Asset>(load_asset(test::asset_path("threejs/RobotExpressive.glb")));
  Crowd crowd(asset, {.capacity = 300});
  std::vector<ActorOptions> options(300);
  for (std::size_t i = 0; i < options.size(); ++i) {
    options[i].clip = asset->clips[i % asset->clips.size()].name;
    options[i].phase = static_cast<float>(i) / 300.0f;
    options[i].transform = glm::translate(glm::mat4(1.0f), glm::vec3(i % 20, 0, i / 20));
  }
  auto actors = crowd.add_actors(options);
  for (std::size_t i = 0; i < actors.size(); i += 2) actors[i].select_clip("Running", {.crossfade_seconds = 2.0f});
  for (int f = 0; f < 10; ++f) crowd.update(1.0f / 60.0f);  // warm-up: per-thread scratch
  counting = true;
  for (int f = 0; f < 60; ++f) crowd.update(1.0f / 60.0f);
  counting = false;
  EXPECT_EQ(allocations.load(), 0);
  // The counter works: a known allocation is seen.
  counting = true;
  auto probe = std::make_unique<int>(1);
  counting = false;
  EXPECT_GE(allocations.load(), 1);
}

// The allocations made by `frames` updates of 1/60 s.
long allocations_in_updates(Crowd& crowd, int frames) {
  allocations = 0;
  counting = true;
  for (int f = 0; f < frames; ++f) crowd.update(1.0f / 60.0f);
  counting = false;
  return allocations.load();
}

// A frame with far more due actors than any before it allocates nothing either: 600 built-in
// characters, 500 of them paused while the crowd warms up, then all playing. Several clips and
// at least 256 due actors take the region sort of the parallel loop's order on two workers or
// more (src/crowd/schedule.cpp), whose scratch is sized for the capacity up front.
TEST(AllocationTest, MoreDueActorsThanInWarmUpAllocateNothing) {
  auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  Crowd crowd(asset, {.capacity = 600});
  std::vector<ActorOptions> options(600);
  for (std::size_t i = 0; i < options.size(); ++i) {
    options[i].clip = asset->clips[i % asset->clips.size()].name;
    options[i].phase = static_cast<float>(i) / 600.0f;
  }
  auto actors = crowd.add_actors(options);
  for (std::size_t i = 100; i < actors.size(); ++i) actors[i].pause();
  for (int f = 0; f < 10; ++f) crowd.update(1.0f / 60.0f);
  ASSERT_EQ(crowd.frame_stats().actors_evaluated, 100u);
  for (Actor& a : actors) a.play();
  EXPECT_EQ(allocations_in_updates(crowd, 5), 0);
  EXPECT_EQ(crowd.frame_stats().actors_evaluated, 600u);
}

// A crowd of thousands splits its due pass across the workers (src/crowd/schedule.cpp), whose
// scratch is sized on the crowd's first update whichever way that one ran: updates on two
// workers after a warm-up on one thread allocate nothing.
TEST(AllocationTest, ASplitDuePassAfterAWarmUpOnOneThreadAllocatesNothing) {
  if (tbb::info::default_concurrency() < 2) GTEST_SKIP() << "one CPU: the crowd's arena has one worker, nothing splits";
  auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  constexpr std::size_t kActors = 4500;
  Crowd crowd(asset, {.capacity = kActors});
  std::vector<ActorOptions> options(kActors);
  for (std::size_t i = 0; i < options.size(); ++i) {
    options[i].clip = asset->clips[i % asset->clips.size()].name;
    options[i].phase = static_cast<float>(i) / static_cast<float>(kActors);
  }
  crowd.add_actors(options);
  {
    const tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
    for (int f = 0; f < 10; ++f) crowd.update(1.0f / 60.0f);
  }
  EXPECT_EQ(allocations_in_updates(crowd, 5), 0);
  EXPECT_EQ(crowd.frame_stats().actors_evaluated, kActors);
}

// A crowd that warms up playing one clip skips the grouping pass (its due pass's slot order is
// the evaluation order); the first frame with several clips after that allocates nothing: 600
// built-in characters all playing the first clip, then every other one switched to the second.
TEST(AllocationTest, MoreClipsThanInWarmUpAllocateNothing) {
  auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  ASSERT_GE(asset->clips.size(), 2u);
  Crowd crowd(asset, {.capacity = 600});
  std::vector<ActorOptions> options(600, ActorOptions{.clip = asset->clips[0].name});
  auto actors = crowd.add_actors(options);
  for (int f = 0; f < 10; ++f) crowd.update(1.0f / 60.0f);
  for (std::size_t i = 0; i < actors.size(); i += 2) actors[i].select_clip(asset->clips[1].name);
  EXPECT_EQ(allocations_in_updates(crowd, 5), 0);
  EXPECT_EQ(crowd.frame_stats().actors_evaluated, 600u);
}

// The same with markers on every clip (docs/spec.md §3.9): once the event list has grown to a
// long frame's events, reporting them allocates nothing.
TEST(AllocationTest, UpdateWithEventsAllocatesNothingAfterWarmUp) {
  GLTF_CROWD_REQUIRE_ASSETS();
  auto asset = std::make_shared<const Asset>(load_asset(test::asset_path("threejs/RobotExpressive.glb")));
  Crowd crowd(asset, {.capacity = 200});
  for (const Clip& clip : asset->clips)
    for (float at : {0.0f, 0.1f, 0.5f, 0.9f}) crowd.add_marker(clip.name, "m", at * clip.duration_seconds);
  std::vector<ActorOptions> options(200);
  for (std::size_t i = 0; i < options.size(); ++i) {
    options[i].clip = asset->clips[i % asset->clips.size()].name;
    options[i].phase = static_cast<float>(i) / 200.0f;
    options[i].loop = static_cast<LoopMode>(i % 3);
    options[i].speed = i % 4 == 0 ? -1.0f : 1.0f;
  }
  auto actors = crowd.add_actors(options);
  for (std::size_t i = 0; i < actors.size(); i += 2) actors[i].select_clip("Running", {.crossfade_seconds = 2.0f});
  crowd.update(1.0f);  // warm-up: a long frame grows the event list
  for (int f = 0; f < 10; ++f) crowd.update(1.0f / 60.0f);
  allocations = 0;
  counting = true;
  std::size_t events = 0;
  for (int f = 0; f < 60; ++f) {
    crowd.update(1.0f / 30.0f);
    events += crowd.events().size();
  }
  counting = false;
  EXPECT_EQ(allocations.load(), 0);
  EXPECT_GT(events, 0u);
}

// The same with root motion (docs/spec.md §3.10) on the built-in character, extracting every
// component, in every loop mode and direction, through crossfades and long frames.
TEST(AllocationTest, UpdateWithRootMotionAllocatesNothingAfterWarmUp) {
  auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  CrowdOptions crowd_options{.capacity = 64};
  crowd_options.root_motion = {.node = "Hips", .translation_y = true, .yaw = true};
  Crowd crowd(asset, crowd_options);
  std::vector<ActorOptions> options(64);
  for (std::size_t i = 0; i < options.size(); ++i) {
    options[i].clip = asset->clips[i % asset->clips.size()].name;
    options[i].phase = static_cast<float>(i) / 64.0f;
    options[i].loop = static_cast<LoopMode>(i % 3);
    options[i].speed = i % 4 == 0 ? -1.0f : 1.0f;
  }
  auto actors = crowd.add_actors(options);
  for (std::size_t i = 0; i < actors.size(); i += 2) actors[i].select_clip("Walking", {.crossfade_seconds = 2.0f});
  for (int f = 0; f < 10; ++f) crowd.update(1.0f / 60.0f);
  allocations = 0;
  counting = true;
  float moved = 0.0f;
  for (int f = 0; f < 60; ++f) {
    crowd.update(f % 10 == 0 ? 3.0f : 1.0f / 30.0f);
    for (Actor& a : actors) moved += std::abs(a.take_root_motion().translation.y);
  }
  counting = false;
  EXPECT_EQ(allocations.load(), 0);
  EXPECT_GE(moved, 0.0f);
}

// Reading trajectories frame by frame (docs/spec.md §15.4): once the caller's arrays have held a
// frame, reading the next allocates nothing, from CSV (rows out of id order, so they are sorted)
// and from SQLite (whose own allocations are SQLite's malloc, not counted here).
TEST(AllocationTest, TrajectoryFramesAllocateNothingAfterWarmUp) {
  std::string csv = "frame,id,x,y,heading\n";
  for (int f = 0; f < 60; ++f) {
    for (int id = 100; id >= 1; --id) {
      csv += std::to_string(f) + "," + std::to_string(id) + "," + std::to_string(0.05 * f) + ",1.5,0.5\n";
    }
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  std::string sql =
      "CREATE TABLE trajectory_data (frame INTEGER NOT NULL, id INTEGER NOT NULL, pos_x REAL NOT NULL, pos_y REAL "
      "NOT NULL, ori_x REAL NOT NULL, ori_y REAL NOT NULL);"
      "CREATE TABLE metadata(key TEXT NOT NULL UNIQUE PRIMARY KEY, value TEXT NOT NULL);"
      "INSERT INTO metadata VALUES('version', '2'), ('fps', '25.0');"
      "CREATE TABLE geometry(hash INTEGER NOT NULL, wkt TEXT NOT NULL);"
      "INSERT INTO geometry VALUES(1, 'POLYGON ((0 0, 10 0, 10 10, 0 0))');"
      "CREATE TABLE frame_data(frame INTEGER NOT NULL, geometry_hash INTEGER NOT NULL);"
      "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 5999) "
      "INSERT INTO trajectory_data SELECT i / 100, i % 100, 0.05 * (i / 100), 1.5, 1, 0 FROM n;"
      "INSERT INTO frame_data SELECT DISTINCT frame, 1 FROM trajectory_data;";
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_int64 size = 0;
  unsigned char* bytes = sqlite3_serialize(db, "main", &size, 0);
  const std::string database(reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(size));
  sqlite3_free(bytes);
  sqlite3_close(db);

  for (const std::string& input : {csv, database}) {
    TrajectoryReader reader = open_trajectories_from_memory(input, {.fps = 25});
    TrajectoryFrame frame;
    for (int f = 0; f < 5; ++f) ASSERT_TRUE(reader.next_frame(frame));
    allocations = 0;
    counting = true;
    int frames = 0;
    while (reader.next_frame(frame)) ++frames;
    counting = false;
    EXPECT_EQ(allocations.load(), 0);
    EXPECT_EQ(frames, 55);
    EXPECT_EQ(frame.ids.size(), 100u);
    EXPECT_EQ(reader.warnings().teleports + reader.warnings().time_gaps, 0u);
  }
}

// Choosing a gait, its rate and measuring slip (docs/spec.md §15.5, §15.6), per agent per frame,
// allocate nothing.
TEST(AllocationTest, GaitAndSlipAllocateNothing) {
  const Asset asset = load_asset_from_memory(default_character_glb());
  const GaitSet gait(asset, analyze_locomotion(asset));
  SlipMeter meter;
  GaitState state;
  float time = 0.0f, rates = 0.0f;
  allocations = 0;
  counting = true;
  for (int f = 0; f < 1000; ++f) {
    const float speed = 3.0f * std::fabs(std::sin(0.01f * static_cast<float>(f)));
    gait.choose(state, speed);
    const float rate = gait.rate(state.gait, speed, time, 1.0f / 30.0f);
    rates += rate;
    time = std::fmod(time + rate / 30.0f, asset.clips[gait.clip(state.gait)].duration_seconds);
    meter.add_step({0.0f, 0.0f, 0.0f}, {0.001f * static_cast<float>(f % 7), 0.0f, 0.0f}, 1.0f / 30.0f);
  }
  const SlipStats stats = meter.stats();
  counting = false;
  EXPECT_EQ(allocations.load(), 0);
  EXPECT_GT(rates, 0.0f);
  EXPECT_EQ(stats.steps, 1000u);
}

// The same with mesh LOD classifying against a moving camera and update-rate LOD deferring
// distant actors: neither allocates per frame.
TEST(AllocationTest, UpdateWithLodAndUpdateRateAllocatesNothingAfterWarmUp) {
  GLTF_CROWD_REQUIRE_ASSETS();
  auto asset = std::make_shared<const Asset>(load_asset(test::asset_path("threejs/RobotExpressive.glb")));
  CrowdOptions crowd_options{.capacity = 200};
  crowd_options.lod.enabled = true;
  crowd_options.lod.auto_generate = true;
  crowd_options.update_rate.enabled = true;
  Crowd crowd(asset, crowd_options);
  std::vector<ActorOptions> options(200);
  for (std::size_t i = 0; i < options.size(); ++i) {
    options[i].clip = asset->clips[i % asset->clips.size()].name;
    options[i].phase = static_cast<float>(i) / 200.0f;
    options[i].transform =
        glm::translate(glm::mat4(1.0f), glm::vec3(float(i % 10) * 2.0f - 10.0f, 0.0f, -3.0f - float(i / 10) * 6.0f));
  }
  auto actors = crowd.add_actors(options);
  for (std::size_t i = 0; i < actors.size(); i += 3) actors[i].select_clip("Running", {.crossfade_seconds = 2.0f});
  const auto view_at = [](int f) {
    return LodView{
        glm::lookAt(glm::vec3(0.0f, 2.0f, 5.0f + 0.1f * float(f)), glm::vec3(0.0f, 0.0f, -50.0f), glm::vec3(0, 1, 0)),
        glm::perspective(glm::radians(60.0f), 16.0f / 9.0f, 0.1f, 500.0f), 1280, 720};
  };
  for (int f = 0; f < 10; ++f) crowd.update(1.0f / 60.0f, view_at(f));  // warm-up
  allocations = 0;
  counting = true;
  std::uint32_t deferred = 0;
  for (int f = 10; f < 70; ++f) {
    crowd.update(1.0f / 60.0f, view_at(f));
    deferred += crowd.frame_stats().actors_deferred;
  }
  counting = false;
  EXPECT_EQ(allocations.load(), 0);
  EXPECT_GT(deferred, 0u);  // the policy was active
}

// Controls every frame, one actor at a time and in batches, then update: nothing allocates after
// warm-up (the pending list is sized for the capacity; a batch's slots reuse their storage).
TEST(AllocationTest, ControlsEveryFrameThenUpdateAllocateNothing) {
  auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  Crowd crowd(asset, {.capacity = 300});
  std::vector<ActorOptions> options(300);
  for (std::size_t i = 0; i < options.size(); ++i) {
    options[i].clip = asset->clips[i % asset->clips.size()].name;
    options[i].phase = static_cast<float>(i) / 300.0f;
  }
  std::vector<Actor> actors = crowd.add_actors(options);
  const auto frame = [&](std::size_t f) {
    crowd.set_speed(actors, f % 2 == 0 ? 1.0f : 1.25f);
    for (std::size_t i = f % 7; i < actors.size(); i += 7) actors[i].seek(0.1f);
    crowd.select_clip(std::span(actors).first(50), asset->clips[f % asset->clips.size()].name,
                      {.crossfade_seconds = 0.2f});
    crowd.update(1.0f / 60.0f);
  };
  for (std::size_t f = 0; f < 10; ++f) frame(f);
  allocations = 0;
  counting = true;
  for (std::size_t f = 10; f < 40; ++f) frame(f);
  counting = false;
  EXPECT_EQ(allocations.load(), 0);
  EXPECT_EQ(crowd.frame_stats().actors_evaluated, 300u);
}

}  // namespace
}  // namespace gltf_crowd
