// Markers and events (docs/spec.md §3.9): the crossing rules on their own (crowd/crossings.hpp),
// then through Crowd::update. Every expected crossing is worked out by hand from the clip
// duration, the markers, Δ, the speed and the loop mode.
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "crowd/crossings.hpp"
#include "gltf_crowd/crowd.hpp"
#include "handmade_gltf.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

using Crossings = std::vector<std::pair<std::uint32_t, double>>;  // (marker, distance)

std::vector<ClipMarker> markers_at(std::vector<float> times) {
  std::vector<ClipMarker> out;
  for (float t : times) out.push_back({"m", t});
  return out;
}

Crossings crossings(const std::vector<ClipMarker>& markers, double from, double step, LoopMode loop,
                    std::uint32_t repetitions = 0, float duration = 1.0f) {
  Crossings out;
  for_each_crossing(markers, from, step, duration, loop, repetitions,
                    [&](std::uint32_t m, double distance) { out.emplace_back(m, distance); });
  return out;
}

void expect_crossings(const Crossings& actual, const Crossings& expected, const char* what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(actual[i].first, expected[i].first) << what << ", crossing " << i;
    EXPECT_NEAR(actual[i].second, expected[i].second, 1e-9) << what << ", crossing " << i;
  }
}

// D = 1 s with markers at 0.25 and 0.75 unless said otherwise.
const std::vector<ClipMarker> quarter = markers_at({0.25f, 0.75f});

TEST(Crossings, ForwardIsHalfOpen) {
  expect_crossings(crossings(quarter, 0.0, 0.5, LoopMode::repeat), {{0, 0.25}}, "0 → 0.5");
  expect_crossings(crossings(quarter, 0.0, 0.25, LoopMode::repeat), {{0, 0.25}}, "ends on the marker");
  expect_crossings(crossings(quarter, 0.25, 0.25, LoopMode::repeat), {}, "starts on it: not again");
  expect_crossings(crossings(quarter, 0.5, 0.5, LoopMode::repeat), {{1, 0.25}}, "0.5 → 1");
}

TEST(Crossings, BackwardWrapsBelowZero) {
  expect_crossings(crossings(quarter, 0.5, -0.5, LoopMode::repeat), {{0, 0.25}}, "0.5 → 0");
  // e: 0 → −0.5 is clip time 1 → 0.5: meets 0.75 at e = −0.25.
  expect_crossings(crossings(quarter, 0.0, -0.5, LoopMode::repeat), {{1, 0.25}}, "0 → -0.5");
  expect_crossings(crossings(quarter, 0.75, -0.6, LoopMode::repeat), {{0, 0.5}}, "starts on 0.75: only 0.25");
}

TEST(Crossings, LongStepMeetsEveryTraversalInOrder) {
  // e: 0.5 → 2.5 meets 0.75, 1.25, 1.75, 2.25.
  expect_crossings(crossings(quarter, 0.5, 2.0, LoopMode::repeat), {{1, 0.25}, {0, 0.75}, {1, 1.25}, {0, 1.75}},
                   "forward");
  // e: 0.5 → −1.5 meets 0.25, then (clip time falling from 1) −0.25 = 0.75, −0.75 = 0.25, −1.25 = 0.75.
  expect_crossings(crossings(quarter, 0.5, -2.0, LoopMode::repeat), {{0, 0.25}, {1, 0.75}, {0, 1.25}, {1, 1.75}},
                   "backward");
}

TEST(Crossings, RepeatWrapMeetsTheEndThenTheStart) {
  const std::vector<ClipMarker> ends = markers_at({0.0f, 1.0f});
  expect_crossings(crossings(ends, 0.5, 0.5, LoopMode::repeat), {{1, 0.5}, {0, 0.5}}, "arrives at the wrap");
  expect_crossings(crossings(ends, 1.0, 0.5, LoopMode::repeat), {}, "leaves it");
  expect_crossings(crossings(ends, 0.0, 0.5, LoopMode::repeat), {}, "a marker at the start time: not at once");
  // Backward through e = 1: arriving meets clip time 0; leaving jumps to D at distance 0.
  expect_crossings(crossings(ends, 1.5, -0.5, LoopMode::repeat), {{0, 0.5}}, "arrives backward");
  expect_crossings(crossings(ends, 1.0, -0.5, LoopMode::repeat), {{1, 0.0}}, "leaves backward");
}

TEST(Crossings, PingPongTurnMeetsItsMarkerOnce) {
  const std::vector<ClipMarker> turn = markers_at({0.25f, 0.75f, 1.0f});
  // e: 0.5 → 1.5 is clip time 0.5 → 1 → 0.5: 0.75 at e 0.75, 1 at e 1, 0.75 again at e 1.25.
  expect_crossings(crossings(turn, 0.5, 1.0, LoopMode::ping_pong), {{1, 0.25}, {2, 0.5}, {1, 0.75}}, "through");
  expect_crossings(crossings(turn, 0.5, 0.5, LoopMode::ping_pong), {{1, 0.25}, {2, 0.5}}, "ends on the turn");
  expect_crossings(crossings(turn, 1.0, 0.5, LoopMode::ping_pong), {{1, 0.25}}, "leaves the turn");
  // e: 1.5 → 2.5 is 0.5 → 0 → 0.5: 0.25 at e 1.75 and 2.25; the turn at 0 has no marker.
  expect_crossings(crossings(turn, 1.5, 1.0, LoopMode::ping_pong), {{0, 0.25}, {0, 0.75}}, "the turn at 0");
  // Symmetric in e: e 0 → −1 is clip time 0 → 1.
  expect_crossings(crossings(turn, 0.0, -1.0, LoopMode::ping_pong), {{0, 0.25}, {1, 0.75}, {2, 1.0}}, "backward");
}

TEST(Crossings, OnceStopsAtItsEnd) {
  const std::vector<ClipMarker> end = markers_at({0.25f, 0.75f, 1.0f});
  expect_crossings(crossings(end, 0.5, 1.0, LoopMode::once), {{1, 0.25}, {2, 0.5}}, "forward to the end");
  expect_crossings(crossings(end, 1.0, 1.0, LoopMode::once), {}, "past the end");
  expect_crossings(crossings(end, 0.5, -1.0, LoopMode::once), {{0, 0.25}}, "backward to 0");
  // Held at 0 before the clock reaches it: clip time 0 → 0.5 from e = −0.5.
  expect_crossings(crossings(end, -0.5, 1.0, LoopMode::once), {{0, 0.75}}, "from before the start");
}

TEST(Crossings, BoundedRepetitionsStopAtTheLastTraversal) {
  const std::vector<ClipMarker> ends = markers_at({0.0f, 0.25f, 1.0f});
  // Repeat × 2, e: 1.5 → 3.5 clipped to 2: meets D at e = 2, not the start of a third traversal.
  expect_crossings(crossings(ends, 1.5, 2.0, LoopMode::repeat, 2), {{2, 0.5}}, "repeat");
  // From 0.5 over the wrap at 1 (D, then 0) to 2.
  expect_crossings(crossings(ends, 0.5, 5.0, LoopMode::repeat, 2), {{2, 0.5}, {0, 0.5}, {1, 0.75}, {2, 1.5}},
                   "repeat, whole");
  // Ping-pong × 3, e: 2.5 → 7.5 clipped to 3: traversal 2 runs 0.5 → 1.
  expect_crossings(crossings(ends, 2.5, 5.0, LoopMode::ping_pong, 3), {{2, 0.5}}, "ping-pong");
  // Backward repeat × 1, e: −0.5 → −1: clip time 0.5 → 0.
  expect_crossings(crossings(ends, -0.5, -5.0, LoopMode::repeat, 1), {{1, 0.25}, {0, 0.5}}, "repeat backward");
}

TEST(Crossings, DegenerateCases) {
  expect_crossings(crossings(quarter, 0.0, 5.0, LoopMode::repeat, 0, 0.0f), {}, "zero duration");
  expect_crossings(crossings(quarter, 0.3, 0.0, LoopMode::repeat), {}, "no step");
  expect_crossings(crossings({}, 0.0, 5.0, LoopMode::repeat), {}, "no markers");
  const Crossings huge = crossings(markers_at({0.5f}), 0.0, 1e7, LoopMode::repeat);
  EXPECT_EQ(huge.size(), static_cast<std::size_t>(kMaxTraversalsPerUpdate)) << "capped";
}

// --- Through the crowd ---

// Clips "walk" (1 s), "run" (1 s) and "pose" (1 s), each moving node 0.
std::shared_ptr<const Asset> clips_asset(const nlohmann::json& walk_extras = nullptr) {
  const auto clip = [](const char* name, nlohmann::json extras = nullptr) {
    test::HandmadeChannel ch;
    ch.times = {0.0f, 1.0f};
    ch.values = {0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f};
    return test::HandmadeClip{name, {ch}, std::move(extras)};
  };
  return std::make_shared<const Asset>(load_asset_from_memory(test::handmade_gltf(
      nlohmann::json::array({{{"name", "root"}}}), {clip("walk", walk_extras), clip("run"), clip("pose")})));
}

std::vector<std::string> names(const Crowd& crowd) {
  std::vector<std::string> out;
  for (const ClipEvent& e : crowd.events()) out.emplace_back(e.name);
  return out;
}

using Names = std::vector<std::string>;

struct Walkers {
  std::shared_ptr<const Asset> asset = clips_asset();
  Crowd crowd{asset, {.capacity = 4}};
  Walkers() {
    crowd.add_marker("walk", "left", 0.25f);
    crowd.add_marker("walk", "right", 0.75f);
  }
};

TEST(Events, ReportsTheMarkersAnUpdateCrosses) {
  Walkers w;
  Actor actor = w.crowd.add_actor({.id = "a"});
  w.crowd.add_actor({.id = "idle", .clip = "pose"});  // no markers on its clip
  w.crowd.update(0.5f);
  ASSERT_EQ(w.crowd.events().size(), 1u);
  const ClipEvent e = w.crowd.events()[0];
  EXPECT_EQ(e.slot, 0u);
  EXPECT_EQ(e.actor, "a");
  EXPECT_EQ(e.clip, 0u);
  EXPECT_EQ(e.marker, 0u);
  EXPECT_EQ(e.layer, 0u);
  EXPECT_EQ(e.name, "left");
  EXPECT_FLOAT_EQ(e.seconds, 0.25f);
  EXPECT_FLOAT_EQ(e.weight, 1.0f);
  EXPECT_FLOAT_EQ(e.fraction, 0.5f);  // 0.25 s into a 0.5 s step
  w.crowd.update(0.5f);
  EXPECT_EQ(names(w.crowd), (Names{"right"}));
  w.crowd.update(0.1f);
  EXPECT_TRUE(w.crowd.events().empty()) << "cleared by each update";
  EXPECT_EQ(w.crowd.markers(0).size(), 2u);
  EXPECT_TRUE(w.crowd.markers(1).empty());
  EXPECT_TRUE(w.crowd.markers(99).empty());
}

TEST(Events, LongUpdateReportsEveryCrossingInOrder) {
  Walkers w;
  w.crowd.add_actor({.speed = 2.0f});
  w.crowd.update(1.25f);  // e: 0 → 2.5: 0.25, 0.75, 1.25, 1.75, 2.25
  EXPECT_EQ(names(w.crowd), (Names{"left", "right", "left", "right", "left"}));
  const float fractions[] = {0.1f, 0.3f, 0.5f, 0.7f, 0.9f};
  for (std::size_t i = 0; i < 5; ++i) EXPECT_NEAR(w.crowd.events()[i].fraction, fractions[i], 1e-6f) << i;
}

TEST(Events, BackwardPingPongOnceAndRepetitions) {
  Walkers w;
  w.crowd.add_marker("walk", "end", 1.0f);
  Actor back = w.crowd.add_actor({.id = "back", .time = 0.5f, .speed = -1.0f});
  back.pause();
  Actor pong = w.crowd.add_actor({.id = "pong", .time = 0.5f, .loop = LoopMode::ping_pong});
  pong.pause();
  Actor once = w.crowd.add_actor({.id = "once", .time = 0.5f, .loop = LoopMode::once});
  once.pause();
  Actor twice = w.crowd.add_actor({.id = "twice", .repetitions = 2});
  twice.pause();
  const auto only = [&](Actor& a, float delta) {
    a.play();
    w.crowd.update(delta);
    a.pause();
    return names(w.crowd);
  };
  // Backward: 0.5 → 0 meets 0.25; then 0 → −0.5 is clip time 1 → 0.5: "end" at 1 (leaving the
  // wrap), then 0.75.
  EXPECT_EQ(only(back, 0.5f), (Names{"left"}));
  EXPECT_EQ(only(back, 0.5f), (Names{"end", "right"}));
  // Ping-pong: 0.5 → 1.5 is 0.5 → 1 → 0.5; the turn's marker once.
  EXPECT_EQ(only(pong, 1.0f), (Names{"right", "end", "right"}));
  // Once: 0.5 → 1, finished; then nothing (play() would restart it, so it stays unpaused).
  once.play();
  w.crowd.update(1.0f);
  EXPECT_EQ(names(w.crowd), (Names{"right", "end"}));
  EXPECT_TRUE(once.finished());
  w.crowd.update(1.0f);
  EXPECT_TRUE(w.crowd.events().empty());
  once.pause();
  // Two repetitions, 0 → 2 in one update (clipped at 2); then finished and silent.
  twice.play();
  w.crowd.update(3.0f);
  EXPECT_EQ(names(w.crowd), (Names{"left", "right", "end", "left", "right", "end"}));
  EXPECT_TRUE(twice.finished());
  w.crowd.update(1.0f);
  EXPECT_TRUE(w.crowd.events().empty());
}

TEST(Events, PausedActorsAndControlsReportNothing) {
  Walkers w;
  Actor actor = w.crowd.add_actor({.playing = false});
  w.crowd.update(0.5f);
  EXPECT_TRUE(w.crowd.events().empty()) << "paused";
  actor.play();
  actor.seek(0.9f);  // jumps over both markers
  EXPECT_TRUE(w.crowd.events().empty());
  actor.select_clip("walk", {.time = 0.1f});
  actor.set_speed(1.0f);
  w.crowd.update(0.1f);  // 0.1 → 0.2
  EXPECT_TRUE(w.crowd.events().empty());
  actor.set_phase(0.7f);
  w.crowd.update(0.1f);  // 0.7 → 0.8
  EXPECT_EQ(names(w.crowd), (Names{"right"}));
}

TEST(Events, CrossfadeContributorsReportWithTheirWeights) {
  Walkers w;
  w.crowd.add_marker("run", "stride", 0.5f);
  Actor actor = w.crowd.add_actor();
  actor.select_clip("run", {.crossfade_seconds = 1.0f});  // run at 0 (weight 0), walk at 0 (weight 1)
  // 0.5 s: walk meets "left" at 0.25 (halfway: weight 1 → 0.5 gives 0.75); run meets "stride"
  // at 0.5 (the end: weight 0 → 0.5 gives 0.5). Ordered by moment.
  w.crowd.update(0.5f);
  ASSERT_EQ(names(w.crowd), (Names{"left", "stride"}));
  EXPECT_EQ(w.crowd.events()[0].clip, 0u);
  EXPECT_NEAR(w.crowd.events()[0].weight, 0.75f, 1e-6f);
  EXPECT_NEAR(w.crowd.events()[0].fraction, 0.5f, 1e-6f);
  EXPECT_EQ(w.crowd.events()[1].clip, 1u);
  EXPECT_NEAR(w.crowd.events()[1].weight, 0.5f, 1e-6f);
  EXPECT_NEAR(w.crowd.events()[1].fraction, 1.0f, 1e-6f);
  // 0.75 s more: the fade completes and walk leaves, still reporting what it crossed on the way
  // out: 0.75 (a third in: weight 0.5 − 0.5/3) and 1.25 (the end: weight 0).
  w.crowd.update(0.75f);
  ASSERT_EQ(names(w.crowd), (Names{"right", "left"}));
  EXPECT_NEAR(w.crowd.events()[0].weight, 1.0f / 3.0f, 1e-6f);
  EXPECT_NEAR(w.crowd.events()[1].weight, 0.0f, 1e-6f);
  EXPECT_EQ(actor.contributors().size(), 1u);
}

TEST(Events, AddMarkerErrorsChangeNothing) {
  Walkers w;
  const auto expect_error = [&](const char* clip, const char* name, float seconds, const char* path, const char* rule) {
    try {
      w.crowd.add_marker(clip, name, seconds);
      ADD_FAILURE() << "no error for " << path;
    } catch (const Error& e) {
      EXPECT_EQ(e.path(), path);
      EXPECT_EQ(e.rule(), rule);
    }
    EXPECT_EQ(w.crowd.markers(0).size(), 2u);
  };
  expect_error("nope", "x", 0.5f, "add_marker.clip", "unknown_clip");
  expect_error("walk", "", 0.5f, "add_marker.name", "marker_name");
  expect_error("walk", "x", std::nanf(""), "add_marker.seconds", "not_finite");
  expect_error("walk", "x", -0.01f, "add_marker.seconds", "marker_time");
  expect_error("walk", "x", 1.01f, "add_marker.seconds", "marker_time");
  // Kept sorted, equal times in the order added.
  w.crowd.add_marker("walk", "also", 0.25f);
  w.crowd.add_marker("walk", "start", 0.0f);
  const auto m = w.crowd.markers(0);
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].name, "start");
  EXPECT_EQ(m[1].name, "left");
  EXPECT_EQ(m[2].name, "also");
  EXPECT_EQ(m[3].name, "right");
}

TEST(Events, MarkersFromExtras) {
  const nlohmann::json extras = {{"markers",
                                  {{{"name", "right"}, {"time", 0.75}},
                                   {{"name", "left"}, {"time", 0.25}},
                                   {{"name", ""}, {"time", 0.5}},
                                   {{"name", "late"}, {"time", 2.0}},
                                   {{"name", "no time"}},
                                   42}}};
  const auto asset = clips_asset(extras);
  ASSERT_EQ(asset->clips[0].markers.size(), 2u);
  EXPECT_EQ(asset->clips[0].markers[0].name, "left");
  EXPECT_FLOAT_EQ(asset->clips[0].markers[0].seconds, 0.25f);
  EXPECT_EQ(asset->clips[0].markers[1].name, "right");
  std::vector<std::string> skipped;
  for (const Warning& warning : asset->warnings)
    if (warning.rule == "marker_skipped") skipped.push_back(warning.path);
  EXPECT_EQ(skipped, (std::vector<std::string>{"animations[0].extras.markers[2]", "animations[0].extras.markers[3]",
                                               "animations[0].extras.markers[4]", "animations[0].extras.markers[5]"}));
  Crowd crowd(asset, {.capacity = 1});
  ASSERT_EQ(crowd.markers(0).size(), 2u);
  crowd.add_actor();
  crowd.update(1.0f);
  EXPECT_EQ(names(crowd), (Names{"left", "right"}));

  // The object form: name → time or times.
  const auto object_form = clips_asset({{"markers", {{"step", {0.25, 0.75}}, {"land", 0.5}, {"bad", "x"}}}});
  ASSERT_EQ(object_form->clips[0].markers.size(), 3u);
  EXPECT_EQ(object_form->clips[0].markers[0].name, "step");
  EXPECT_EQ(object_form->clips[0].markers[1].name, "land");
  EXPECT_EQ(object_form->clips[0].markers[2].name, "step");
  ASSERT_EQ(object_form->warnings.size(), 1u);
  EXPECT_EQ(object_form->warnings[0].path, "animations[0].extras.markers.bad");
}

// Clocks advance on the CPU in both modes, so the events are the same.
TEST(Events, IdenticalWithGpuAnimation) {
  const auto asset = clips_asset();
  Crowd cpu(asset, {.capacity = 8});
  Crowd gpu(asset, {.capacity = 8, .animation = Animation::gpu});
  for (Crowd* c : {&cpu, &gpu}) {
    c->add_marker("walk", "left", 0.25f);
    c->add_marker("run", "stride", 0.5f);
    for (int i = 0; i < 6; ++i)
      c->add_actor({.clip = i % 2 ? "walk" : "run",
                    .phase = 0.13f * float(i),
                    .speed = i % 3 == 0 ? -1.5f : 1.0f,
                    .loop = static_cast<LoopMode>(i % 3)});
    c->actors()[1].select_clip("run", {.crossfade_seconds = 0.7f});
  }
  std::size_t total = 0;
  for (int f = 0; f < 40; ++f) {
    cpu.update(0.09f);
    gpu.update(0.09f);
    ASSERT_EQ(cpu.events().size(), gpu.events().size()) << "frame " << f;
    total += cpu.events().size();
    for (std::size_t i = 0; i < cpu.events().size(); ++i) {
      const ClipEvent &a = cpu.events()[i], &b = gpu.events()[i];
      EXPECT_EQ(a.slot, b.slot);
      EXPECT_EQ(a.clip, b.clip);
      EXPECT_EQ(a.marker, b.marker);
      EXPECT_EQ(a.weight, b.weight);
      EXPECT_EQ(a.fraction, b.fraction);
      EXPECT_EQ(a.actor, b.actor);
    }
  }
  EXPECT_GT(total, 10u);
}

TEST(Events, AddAndRemoveClearEvents) {
  Walkers w;
  w.crowd.add_actor({.id = "a"});
  w.crowd.add_actor({.id = "b"});
  w.crowd.update(0.5f);
  EXPECT_EQ(w.crowd.events().size(), 2u);
  EXPECT_EQ(w.crowd.events()[1].actor, "b");
  EXPECT_EQ(w.crowd.events()[1].slot, 1u);
  w.crowd.remove_actor("a");
  EXPECT_TRUE(w.crowd.events().empty());
  w.crowd.update(0.5f);
  ASSERT_EQ(w.crowd.events().size(), 1u);
  EXPECT_EQ(w.crowd.events()[0].actor, "b");
  EXPECT_EQ(w.crowd.events()[0].slot, 0u);
  w.crowd.add_actor({.id = "c"});
  EXPECT_TRUE(w.crowd.events().empty());
}

}  // namespace
}  // namespace gltf_crowd
