// The playback clock of docs/spec.md §3 "Time" as one table: (loop mode, repetitions, speed sign,
// elapsed) → (clip time, finished). Elapsed and time are written in units of the duration D and
// the table runs for several D, so exact multiples of an inexact D are covered too. Every
// expected value is worked out by hand from docs/spec.md's formulas (comment on each row), then the
// same table drives real actors of the built-in character, through add_actors and update.
#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "anim/clip_time.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"
#include "gltf_crowd/playback.hpp"

namespace gltf_crowd {
namespace {

struct Row {
  LoopMode loop;
  std::uint32_t repetitions;
  bool backward;   // negative speed
  double elapsed;  // e / D
  double time;     // expected t / D
  bool finished;
  const char* why;
};

constexpr LoopMode once = LoopMode::once, repeat = LoopMode::repeat, ping_pong = LoopMode::ping_pong;

const std::vector<Row>& table() {
  static const std::vector<Row> rows = {
      // repeat: t = e mod D in [0, D)
      {repeat, 0, false, 0.0, 0.0, false, "start"},
      {repeat, 0, false, 0.25, 0.25, false, "inside"},
      {repeat, 0, false, 1.0, 0.0, false, "exact multiple reports 0"},
      {repeat, 0, false, 2.0, 0.0, false, "exact multiple reports 0"},
      {repeat, 0, false, 3.0, 0.0, false, "exact multiple reports 0"},
      {repeat, 0, false, 1.25, 0.25, false, "phase 1.25 wraps to 0.25"},
      {repeat, 0, false, -0.25, 0.75, false, "phase -0.25 wraps backward to 0.75"},
      {repeat, 0, true, -0.25, 0.75, false, "the speed sign does not change repeat"},
      {repeat, 0, true, -1.0, 0.0, false, "negative exact multiple reports 0"},
      {repeat, 0, true, -2.5, 0.5, false, "-2.5 mod 1 = 0.5"},
      // repeat, n repetitions: finished when |e| >= n·D, then D (e > 0) or 0 (e < 0)
      {repeat, 2, false, 1.75, 0.75, false, "second traversal"},
      {repeat, 2, false, 2.0, 1.0, true, "|e| = n·D: finished at the end, D"},
      {repeat, 2, false, 3.5, 1.0, true, "past n·D: held at D"},
      {repeat, 2, true, -1.5, 0.5, false, "backward, second traversal"},
      {repeat, 2, true, -2.0, 0.0, true, "backward: finished at 0"},
      {repeat, 2, true, -4.0, 0.0, true, "backward past n·D: held at 0"},
      {repeat, 1, false, 1.0, 1.0, true, "one repetition ends at D, not at the wrapped 0"},
      // ping-pong: k = floor(e / D); e mod D for even k, D − (e mod D) for odd k
      {ping_pong, 0, false, 0.25, 0.25, false, "k = 0"},
      {ping_pong, 0, false, 1.0, 1.0, false, "k = 1, e mod D = 0: D"},
      {ping_pong, 0, false, 1.25, 0.75, false, "k = 1 runs back"},
      {ping_pong, 0, false, 2.0, 0.0, false, "k = 2"},
      {ping_pong, 0, false, 2.25, 0.25, false, "k = 2 runs forward"},
      {ping_pong, 0, false, 3.75, 0.25, false, "k = 3 runs back"},
      {ping_pong, 0, true, -0.25, 0.25, false, "k = -1 (odd): D − 0.75"},
      {ping_pong, 0, true, -1.0, 1.0, false, "k = -1, e mod D = 0: D"},
      {ping_pong, 0, true, -1.25, 0.75, false, "k = -2 (even): 0.75"},
      // ping-pong, even repetitions: ends at 0
      {ping_pong, 2, false, 1.5, 0.5, false, "second traversal runs back"},
      {ping_pong, 2, false, 2.0, 0.0, true, "even count ends at 0"},
      {ping_pong, 2, false, 9.0, 0.0, true, "held at 0"},
      {ping_pong, 2, true, -2.0, 0.0, true, "even count, backward: 0"},
      {ping_pong, 2, true, -1.5, 0.5, false, "k = -2 (even): 0.5"},
      // ping-pong, odd repetitions: ends at D, in both directions (t is symmetric in e, so the
      // end of the last traversal is D: the held pose is the one reached, never a jump)
      {ping_pong, 3, false, 2.5, 0.5, false, "k = 2"},
      {ping_pong, 3, false, 3.0, 1.0, true, "odd count ends at D"},
      {ping_pong, 3, true, -2.75, 0.75, false, "k = -3 (odd): D − 0.25"},
      {ping_pong, 3, true, -3.0, 1.0, true, "odd count, backward: the last traversal ends at D"},
      {ping_pong, 1, false, 1.0, 1.0, true, "one traversal ends at D"},
      // once: t = clamp(e, 0, D); finished when e >= D (e <= 0 with negative speed)
      {once, 0, false, -0.5, 0.0, false, "before the start, forward: clamped, not finished"},
      {once, 0, false, 0.0, 0.0, false, "start"},
      {once, 0, false, 0.5, 0.5, false, "inside"},
      {once, 0, false, 1.0, 1.0, true, "e = D: finished"},
      {once, 0, false, 1.5, 1.0, true, "held at D"},
      {once, 3, false, 1.0, 1.0, true, "repetitions do not apply to once"},
      {once, 0, true, 1.0, 1.0, false, "backward from D: not finished at D"},
      {once, 0, true, 2.0, 1.0, false, "backward, e > D: clamped to D, not finished"},
      {once, 0, true, 0.5, 0.5, false, "backward inside"},
      {once, 0, true, 0.0, 0.0, true, "backward at 0 (phase 0, negative speed): finished at once"},
      {once, 0, true, -0.5, 0.0, true, "backward past 0: held at 0"},
  };
  return rows;
}

std::string describe(const Row& r, double d) {
  return std::string(to_string(r.loop)) + " n=" + std::to_string(r.repetitions) +
         (r.backward ? " backward" : " forward") + " e=" + std::to_string(r.elapsed) + "·D, D=" + std::to_string(d) +
         ": " + r.why;
}

TEST(PlaybackClockTest, TableOfEveryRule) {
  // 2 is exact; 0.9583 (RobotExpressive's Walking) and 1/3 make e = k·D and e/D inexact in float.
  for (const float duration : {2.0f, 0.9583f, 1.0f / 3.0f}) {
    const double d = duration;
    for (const Row& r : table()) {
      const ClipTime t = clip_time(r.elapsed * d, duration, r.loop, r.repetitions, r.backward);
      EXPECT_NEAR(t.seconds, r.time * d, 1e-6 * d) << describe(r, d);
      EXPECT_EQ(t.finished, r.finished) << describe(r, d);
      EXPECT_GE(t.seconds, 0.0f) << describe(r, d);
      EXPECT_LE(t.seconds, duration) << describe(r, d);
    }
  }
}

TEST(PlaybackClockTest, ZeroLengthClipIsAlwaysAtZero) {
  for (const double e : {-3.0, 0.0, 0.5, 7.0}) {
    SCOPED_TRACE(e);
    for (const bool backward : {false, true}) {
      EXPECT_EQ(clip_time(e, 0.0f, repeat, 0, backward).seconds, 0.0f);
      EXPECT_FALSE(clip_time(e, 0.0f, repeat, 0, backward).finished);
      EXPECT_EQ(clip_time(e, 0.0f, ping_pong, 0, backward).seconds, 0.0f);
      EXPECT_FALSE(clip_time(e, 0.0f, ping_pong, 0, backward).finished);
      // "once is finished at once"; a bounded loop has done its n traversals of length 0.
      EXPECT_EQ(clip_time(e, 0.0f, once, 0, backward).seconds, 0.0f);
      EXPECT_TRUE(clip_time(e, 0.0f, once, 0, backward).finished);
      EXPECT_TRUE(clip_time(e, 0.0f, repeat, 2, backward).finished);
    }
  }
}

// Just below a multiple of D the remainder can round up to D in float; repeat must still report
// a time in [0, D) and ping-pong must stay continuous through its turn.
TEST(PlaybackClockTest, RemaindersThatRoundToDurationStayContinuous) {
  for (const float duration : {0.9583f, 1.0f / 3.0f, 1.2f}) {
    const double d = duration;
    for (int k = 1; k <= 5; ++k) {
      const double e = std::nextafter(k * d, 0.0);
      const ClipTime r = clip_time(e, duration, repeat, 0, false);
      EXPECT_LT(r.seconds, duration) << "k=" << k;
      // Ping-pong approaches D (odd k) or 0 (even k) from inside.
      const ClipTime p = clip_time(e, duration, ping_pong, 0, false);
      EXPECT_NEAR(p.seconds, k % 2 == 1 ? duration : 0.0f, 1e-6f) << "k=" << k;
    }
  }
}

TEST(PlaybackClockTest, RestartAndSettle) {
  EXPECT_EQ(restart_elapsed(2.0f, once, false), 0.0);
  EXPECT_EQ(restart_elapsed(2.0f, once, true), 2.0);  // from D for negative speed
  EXPECT_EQ(restart_elapsed(2.0f, repeat, true), 0.0);
  EXPECT_EQ(restart_elapsed(2.0f, ping_pong, true), 0.0);
  EXPECT_EQ(settle_elapsed(2.3, 2.0f, once, 0), 2.0);
  EXPECT_EQ(settle_elapsed(-0.1, 2.0f, once, 0), 0.0);
  EXPECT_EQ(settle_elapsed(6.5, 2.0f, repeat, 3), 6.0);
  EXPECT_EQ(settle_elapsed(-6.5, 2.0f, ping_pong, 3), -6.0);
  EXPECT_EQ(settle_elapsed(123.0, 2.0f, repeat, 0), 123.0);
}

// docs/spec.md §3's repeat and ping-pong rule written out with the division: traversal k =
// floor(e / D), remainder e − k·D (a negative rounding clamped to 0, one that rounds to D in
// float counted as the next traversal's start), mirrored on odd k for ping-pong.
float divided_time(double e, float duration, LoopMode loop) {
  const double d = duration;
  double k = std::floor(e / d);
  double m = std::max(e - k * d, 0.0);
  if (static_cast<float>(m) >= duration) {
    m = 0.0;
    k += 1.0;
  }
  const bool odd = std::fmod(std::abs(k), 2.0) == 1.0;
  return static_cast<float>(loop == ping_pong && odd ? d - m : m);
}

// The crowd maps clocks with 1 / D given (anim/clip_time.hpp: a product, and the division only
// where the product's floor could differ); both that and the public clip_time must give the
// division's time bit for bit: at and a few units in the last place around exact multiples of D,
// where the product and the quotient round to opposite sides of an integer, up to clocks of 2⁴²
// traversals (where a double's unit in the last place outgrows a float's of D), and at random.
TEST(PlaybackClockTest, ProductTraversalIsTheDivisions) {
  std::vector<double> traversals;
  for (int k = -40; k <= 40; ++k) traversals.push_back(k);
  for (int p = 10; p <= 42; p += 2) {
    traversals.push_back(std::ldexp(1.0, p));
    traversals.push_back(-std::ldexp(1.0, p) - 1.0);
    traversals.push_back(std::ldexp(1.0, p) * 0.75 + 1.0);
  }
  std::mt19937_64 random(18);
  std::uniform_real_distribution<double> anywhere(-1e4, 1e4);
  std::size_t checked = 0;
  for (const float duration : {2.0f, 0.9583f, 1.0f / 3.0f, 1.2f, 1.0f / 24.0f, 7.3f, 2.0833333f}) {
    const double d = duration, inverse = 1.0 / d;
    std::vector<double> clocks;
    for (const double k : traversals) {
      double e = k * d;
      clocks.push_back(e);
      for (int step = 0; step < 6; ++step) clocks.push_back(e = std::nextafter(e, HUGE_VAL));
      e = k * d;
      for (int step = 0; step < 6; ++step) clocks.push_back(e = std::nextafter(e, -HUGE_VAL));
    }
    for (int i = 0; i < 2000; ++i) clocks.push_back(anywhere(random));
    for (const double e : clocks) {
      for (const LoopMode loop : {repeat, ping_pong}) {
        const float expected = divided_time(e, duration, loop);
        const std::string where = std::string(to_string(loop)) + " D=" + std::to_string(d) + " e=" + std::to_string(e) +
                                  " (" + std::to_string(e / d) + "·D)";
        EXPECT_EQ(clip_time(e, duration, inverse, loop, 0, e < 0.0).seconds, expected) << where;
        EXPECT_EQ(clip_time(e, duration, loop, 0, e < 0.0).seconds, expected) << where;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 20000u);
}

std::shared_ptr<const Asset> character() {
  static const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  return asset;
}

// The same table through the public API: an actor placed at elapsed e by its `time` option, and
// one that reaches e through update(Δ) with speed ±1 from 0 (rows whose start is already
// finished, `once` backward from 0, are reached by time alone).
TEST(PlaybackClockTest, ActorsFollowTheTable) {
  const auto asset = character();
  const int wave = asset->find_clip("Wave");
  ASSERT_GE(wave, 0);
  const float d = asset->clips[static_cast<std::size_t>(wave)].duration_seconds;
  ASSERT_EQ(d, 2.0f);  // the built-in character's Wave lasts 2 s (default_character.hpp)
  Crowd crowd(asset, {.capacity = 2});
  for (const Row& r : table()) {
    const auto e = static_cast<float>(r.elapsed * d);
    const float speed = r.backward ? -1.0f : 1.0f;
    const Actor placed = crowd.add_actor(
        {.id = "placed", .clip = "Wave", .time = e, .speed = speed, .loop = r.loop, .repetitions = r.repetitions});
    EXPECT_NEAR(placed.time(), r.time * d, 1e-6) << describe(r, d);
    EXPECT_EQ(placed.finished(), r.finished) << describe(r, d);
    EXPECT_EQ(placed.playing(), !r.finished) << describe(r, d);
    const Actor moved = crowd.add_actor(
        {.id = "moved", .clip = "Wave", .time = 0.0f, .speed = speed, .loop = r.loop, .repetitions = r.repetitions});
    if (!moved.finished()) {
      crowd.update(e * speed);  // elapsed = Δ·speed = e
      EXPECT_NEAR(moved.time(), r.time * d, 1e-6) << "via update: " << describe(r, d);
      EXPECT_EQ(moved.finished(), r.finished) << "via update: " << describe(r, d);
    }
    crowd.remove_actor("placed");
    crowd.remove_actor("moved");
  }
}

// A clock 1,000 traversals on (an even count, so ping-pong runs forward again) packs what the
// same clip time in the first traversal packs, bit for bit: t = e − k·D is exact there (§3
// "Time"). The evaluation maps clocks with each clip's 1 / D (anim/clip_time.hpp), one actor at a
// time (3 actors) and in batches of eight across lanes (16 actors).
TEST(PlaybackClockTest, ATraversalLaterPacksTheFirstTraversalsPose) {
  const auto asset = character();
  ASSERT_EQ(asset->clips[static_cast<std::size_t>(asset->find_clip("Wave"))].duration_seconds, 2.0f);
  for (const LoopMode loop : {LoopMode::repeat, LoopMode::ping_pong}) {
    for (const std::size_t actors : {std::size_t{3}, std::size_t{16}}) {
      SCOPED_TRACE(::testing::Message() << actors << " actors, loop " << static_cast<int>(loop));
      Crowd first(asset, {.capacity = actors}), later(asset, {.capacity = actors});
      for (std::size_t i = 0; i < actors; ++i) {
        const ActorOptions o{.clip = "Wave", .time = 0.05f + 0.11f * static_cast<float>(i), .loop = loop};
        first.add_actor(o);
        later.add_actor(o);
      }
      first.update(0.0f);
      for (int k = 0; k < 1000; ++k) later.update(2.0f);  // 2,000 s: elapsed = t + 1,000 D exactly
      const auto a = first.node_streams(), b = later.node_streams();
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t d = 0; d < a.size(); ++d) {
        EXPECT_EQ(a[d].transforms, b[d].transforms) << "stream " << d;
        EXPECT_EQ(a[d].palette, b[d].palette) << "stream " << d;
        EXPECT_EQ(a[d].weights, b[d].weights) << "stream " << d;
      }
    }
  }
}

}  // namespace
}  // namespace gltf_crowd
