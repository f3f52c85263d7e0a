// API misuse (issue 10, item 3): every bad argument raises gltf_crowd::Error with the argument's
// path and a stable rule, and leaves the crowd exactly as it was: actor count, ids, playback and
// the packed node-stream bytes are compared with a snapshot taken before the call.
// Runs on the built-in character, so it needs no asset files.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include "crowd_model.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"
#include "gltf_crowd/lod.hpp"

namespace gltf_crowd {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNonFinite[] = {kNaN, kInf, -kInf};

std::shared_ptr<const Asset> character() {
  static const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  return asset;
}

using fuzz::snapshot;

// A crowd of capacity 4 holding two playing actors mid-crossfade, updated once: a state in
// which every stream and every playback field has non-default content.
struct Fixture {
  Crowd crowd{character(), {.capacity = 4}};
  Actor a = crowd.add_actor({.id = "a", .clip = "Walking", .phase = 0.25f});
  Actor b = crowd.add_actor(
      {.id = "b", .clip = "Wave", .speed = -1.5f, .transform = glm::translate(glm::mat4(1.0f), glm::vec3(2, 0, -1))});
  Fixture() {
    b.select_clip("Dance", {.crossfade_seconds = 1.0f});
    crowd.update(0.25f);
  }
};

// Runs `call`, which must throw Error with `path` and `rule`, and checks the crowd is unchanged.
void expect_rejected(Crowd& crowd, const std::function<void()>& call, const std::string& path,
                     const std::string& rule) {
  const std::string before = snapshot(crowd);
  try {
    call();
    ADD_FAILURE() << "accepted; expected " << path << " / " << rule;
  } catch (const Error& e) {
    EXPECT_EQ(e.path(), path) << e.what();
    EXPECT_EQ(e.rule(), rule) << e.what();
  }
  EXPECT_TRUE(snapshot(crowd) == before) << path << " / " << rule << ": the crowd changed";
}

ActorOptions options_with(const std::function<void(ActorOptions&)>& edit) {
  ActorOptions o;
  o.id = "new";
  edit(o);
  return o;
}

TEST(MisuseTest, NonFiniteNumbersAreRejectedByPathAndChangeNothing) {
  Fixture f;
  for (const float x : kNonFinite) {
    SCOPED_TRACE(x);
    expect_rejected(
        f.crowd, [&] { f.crowd.update(x); }, "update.delta_seconds", "not_finite");
    expect_rejected(
        f.crowd, [&] { f.a.seek(x); }, "seek.seconds", "not_finite");
    expect_rejected(
        f.crowd, [&] { f.a.set_phase(x); }, "set_phase.phase", "not_finite");
    expect_rejected(
        f.crowd, [&] { f.a.set_speed(x); }, "set_speed.speed", "not_finite");
    expect_rejected(
        f.crowd, [&] { f.b.select_clip("Idle", {.crossfade_seconds = x}); }, "select_clip.crossfade_seconds",
        "not_finite");
    expect_rejected(
        f.crowd, [&] { f.b.select_clip("Idle", {.time = x}); }, "select_clip.time", "not_finite");
    expect_rejected(
        f.crowd, [&] { f.b.select_clip("Idle", {.phase = x}); }, "select_clip.phase", "not_finite");
    for (int entry = 0; entry < 16; ++entry) {  // every entry of a placement, translation included
      glm::mat4 m(1.0f);
      m[entry / 4][entry % 4] = x;
      expect_rejected(
          f.crowd, [&] { f.a.set_transform(m); }, "set_transform.placement", "not_finite");
      expect_rejected(
          f.crowd, [&] { f.crowd.add_actor(options_with([&](ActorOptions& o) { o.transform = m; })); },
          "add_actors[0].transform", "not_finite");
    }
    expect_rejected(
        f.crowd, [&] { f.crowd.add_actor(options_with([&](ActorOptions& o) { o.time = x; })); }, "add_actors[0].time",
        "not_finite");
    expect_rejected(
        f.crowd, [&] { f.crowd.add_actor(options_with([&](ActorOptions& o) { o.phase = x; })); }, "add_actors[0].phase",
        "not_finite");
    expect_rejected(
        f.crowd, [&] { f.crowd.add_actor(options_with([&](ActorOptions& o) { o.speed = x; })); }, "add_actors[0].speed",
        "not_finite");
  }
}

// A finite phase whose time (phase × duration) overflows float would make the clock infinite
// and every later clip time NaN; it is rejected like a non-finite number.
TEST(MisuseTest, PhaseWhoseTimeOverflowsIsRejected) {
  Fixture f;
  const float huge = std::numeric_limits<float>::max();
  expect_rejected(
      f.crowd, [&] { f.a.set_phase(huge); }, "set_phase.phase", "not_finite");
  expect_rejected(
      f.crowd, [&] { f.b.select_clip("Idle", {.phase = -huge}); }, "select_clip.phase", "not_finite");
  expect_rejected(
      f.crowd, [&] { f.crowd.add_actor(options_with([&](ActorOptions& o) { o.phase = huge; })); },
      "add_actors[0].phase", "not_finite");
}

TEST(MisuseTest, NegativeCrossfadeIsRejected) {
  Fixture f;
  expect_rejected(
      f.crowd, [&] { f.a.select_clip("Idle", {.crossfade_seconds = -0.5f}); }, "select_clip.crossfade_seconds",
      "negative");
}

TEST(MisuseTest, LoopModesOutsideTheEnumAreRejected) {
  Fixture f;
  const auto bogus = static_cast<LoopMode>(7);
  expect_rejected(
      f.crowd, [&] { f.a.set_loop(bogus); }, "set_loop.mode", "loop_mode");
  expect_rejected(
      f.crowd, [&] { f.crowd.add_actor(options_with([&](ActorOptions& o) { o.loop = bogus; })); }, "add_actors[0].loop",
      "loop_mode");
}

TEST(MisuseTest, CapacityOutsideOneToAMillionIsRejected) {
  // A negative count converted to size_t is huge; both it and zero are out of range.
  const std::size_t bad[] = {0, static_cast<std::size_t>(-1), static_cast<std::size_t>(-16), 1'000'001};
  for (const std::size_t capacity : bad) {
    SCOPED_TRACE(capacity);
    try {
      Crowd crowd(character(), {.capacity = capacity});
      ADD_FAILURE() << "capacity accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.path(), "capacity");
      EXPECT_EQ(e.rule(), "capacity_range");
    }
    Fixture f;
    expect_rejected(
        f.crowd, [&] { f.crowd.reserve(capacity); }, "capacity", "capacity_range");
  }
  EXPECT_NO_THROW((Crowd(character(), {.capacity = 1})));
}

TEST(MisuseTest, NullAssetIsRejected) {
  try {
    Crowd crowd(nullptr);
    ADD_FAILURE() << "null asset accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.path(), "asset");
    EXPECT_EQ(e.rule(), "null_asset");
  }
}

TEST(MisuseTest, AddingPastCapacityAddsNoneOfTheBatch) {
  Fixture f;  // 2 of 4 slots used
  const std::vector<ActorOptions> three = {{.id = "x"}, {.id = "y"}, {.id = "z"}};
  expect_rejected(
      f.crowd, [&] { f.crowd.add_actors(three); }, "add_actors", "capacity_exceeded");
}

TEST(MisuseTest, IdsThatAreTooLongOrTakenAreRejected) {
  Fixture f;
  const std::string longest(256, 'i');
  expect_rejected(
      f.crowd, [&] { f.crowd.add_actor({.id = longest + "i"}); }, "add_actors[0].id", "id_length");
  expect_rejected(
      f.crowd, [&] { f.crowd.add_actor({.id = std::string(1 << 20, 'h')}); }, "add_actors[0].id", "id_length");
  expect_rejected(
      f.crowd, [&] { f.crowd.add_actor({.id = "a"}); }, "add_actors[0].id", "duplicate_id");
  const std::vector<ActorOptions> twice = {{.id = "c"}, {.id = "c"}};
  expect_rejected(
      f.crowd, [&] { f.crowd.add_actors(twice); }, "add_actors[1].id", "duplicate_id");
  // Valid first, broken second: atomic, so neither is added.
  const std::vector<ActorOptions> second_bad = {{.id = "c"}, {.id = longest + "!"}};
  expect_rejected(
      f.crowd, [&] { f.crowd.add_actors(second_bad); }, "add_actors[1].id", "id_length");
  EXPECT_EQ(f.crowd.add_actor({.id = longest}).id(), longest) << "256 bytes is the documented limit";
}

TEST(MisuseTest, EmptyAndUnknownIdsAreHarmlessLookups) {
  Fixture f;
  const std::string before = snapshot(f.crowd);
  EXPECT_FALSE(f.crowd.find_actor("").has_value());
  EXPECT_FALSE(f.crowd.find_actor(std::string(1 << 20, 'h')).has_value());
  EXPECT_FALSE(f.crowd.remove_actor(""));
  EXPECT_FALSE(f.crowd.remove_actor(std::string("a\0", 2)));  // not "a": ids are byte strings
  const std::vector<std::string> ids = {"", "nobody", std::string(300, 'q')};
  EXPECT_EQ(f.crowd.remove_actors(ids), 0u);
  EXPECT_TRUE(snapshot(f.crowd) == before);
  // An empty id asks for an automatic one, which never collides with a user id.
  f.crowd.add_actor({.id = "actor-0"});
  const Actor automatic = f.crowd.add_actor({.id = ""});
  EXPECT_NE(automatic.id(), "actor-0");
  EXPECT_FALSE(automatic.id().empty());
}

TEST(MisuseTest, ClipsNotInTheAssetAreRejectedWithTheAvailableNames) {
  Fixture f;
  for (const std::string& name : std::vector<std::string>{"Moonwalk", "idle", "Idle ", std::string("Idle\0", 5)}) {
    SCOPED_TRACE(name);
    expect_rejected(
        f.crowd, [&] { f.a.select_clip(name); }, "select_clip.name", "unknown_clip");
    expect_rejected(
        f.crowd, [&] { f.a.select_clip(name, {.crossfade_seconds = 0.5f}); }, "select_clip.name", "unknown_clip");
    expect_rejected(
        f.crowd, [&] { f.crowd.add_actor({.id = "new", .clip = name}); }, "add_actors[0].clip", "unknown_clip");
  }
  try {
    f.a.select_clip("Moonwalk");
  } catch (const Error& e) {
    const std::string message = e.what();
    for (const char* clip : {"Idle", "Walking", "Running", "Wave", "Dance"})
      EXPECT_NE(message.find(clip), std::string::npos) << "lists " << clip << ": " << message;
  }
}

TEST(MisuseTest, NodeIndicesAndNamesNotInTheAssetAreRejected) {
  Fixture f;
  const auto nodes = static_cast<std::uint32_t>(character()->nodes.size());
  expect_rejected(
      f.crowd, [&] { (void)f.a.node_world(nodes); }, "node_world.node", "node_index");
  expect_rejected(
      f.crowd, [&] { (void)f.a.node_world(0xFFFFFFFFu); }, "node_world.node", "node_index");
  expect_rejected(
      f.crowd, [&] { (void)f.a.node_world("NoSuchBone"); }, "node_world.node", "unknown_node");
}

TEST(MisuseTest, HandlesOfRemovedActorsAreStaleEvenWhenTheirKeyIsReused) {
  Fixture f;
  Actor old = f.a;
  ASSERT_TRUE(f.crowd.remove_actor("a"));
  f.crowd.add_actor({.id = "a", .clip = "Idle"});  // same id, likely the same internal key
  const std::vector<std::pair<const char*, std::function<void()>>> calls = {
      {"id", [&] { (void)old.id(); }},
      {"time", [&] { (void)old.time(); }},
      {"seek", [&] { old.seek(0.5f); }},
      {"set_speed", [&] { old.set_speed(2.0f); }},
      {"select_clip", [&] { old.select_clip("Dance"); }},
      {"set_transform", [&] { old.set_transform(glm::mat4(2.0f)); }},
      {"pause", [&] { old.pause(); }},
      {"play", [&] { old.play(); }},
      {"set_loop", [&] { old.set_loop(LoopMode::once); }},
      {"node_world", [&] { (void)old.node_world(0u); }},
  };
  for (const auto& [name, call] : calls) {
    SCOPED_TRACE(name);
    expect_rejected(f.crowd, call, "actor", "stale_actor");
  }
}

TEST(MisuseTest, EveryCallAfterDestroyIsANoOpOrADestroyedError) {
  Fixture f;
  f.crowd.destroy();
  f.crowd.destroy();  // idempotent
  EXPECT_TRUE(f.crowd.destroyed());
  EXPECT_EQ(f.crowd.actor_count(), 0u);
  EXPECT_TRUE(f.crowd.primitive_groups().empty());
  EXPECT_TRUE(f.crowd.node_streams().empty());
  const std::vector<std::string> ids = {"a"};
  const std::vector<std::pair<const char*, std::function<void()>>> calls = {
      {"update", [&] { f.crowd.update(0.1f); }},
      {"add_actor", [&] { f.crowd.add_actor(); }},
      {"remove_actors", [&] { f.crowd.remove_actors(ids); }},
      {"remove_actor", [&] { f.crowd.remove_actor("a"); }},
      {"find_actor", [&] { (void)f.crowd.find_actor("a"); }},
      {"actors", [&] { (void)f.crowd.actors(); }},
      {"reserve", [&] { f.crowd.reserve(8); }},
      // Read-back too: under UBSan these once touched the freed state before throwing.
      {"Actor::id", [&] { (void)f.a.id(); }},
      {"Actor::active_clip", [&] { (void)f.a.active_clip(); }},
      {"Actor::time", [&] { (void)f.a.time(); }},
      {"Actor::phase", [&] { (void)f.a.phase(); }},
      {"Actor::speed", [&] { (void)f.a.speed(); }},
      {"Actor::loop", [&] { (void)f.a.loop(); }},
      {"Actor::repetitions", [&] { (void)f.a.repetitions(); }},
      {"Actor::playing", [&] { (void)f.a.playing(); }},
      {"Actor::finished", [&] { (void)f.a.finished(); }},
      {"Actor::morph_weights", [&] { (void)f.a.morph_weights(); }},
      {"Actor::transform", [&] { (void)f.a.transform(); }},
      {"Actor::seek", [&] { f.a.seek(0.1f); }},
      {"Actor::select_clip", [&] { f.b.select_clip("Idle", {.crossfade_seconds = 0.3f}); }},
      {"Actor::set_transform", [&] { f.a.set_transform(glm::mat4(1.0f)); }},
      {"Actor::contributors", [&] { (void)f.b.contributors(); }},
      {"Actor::node_world", [&] { (void)f.a.node_world(0u); }},
  };
  for (const auto& [name, call] : calls) {
    SCOPED_TRACE(name);
    expect_rejected(f.crowd, call, "crowd", "destroyed");
  }
}

// A crowd with generated levels, LOD on, and a view that puts "near" at level 0 and "far" at a
// lower level: classification state that a rejected LOD call must not disturb.
struct LodFixture {
  Crowd crowd{character(), {.capacity = 4, .lod = {.enabled = true, .auto_generate = true}}};
  LodView view{.view = glm::lookAt(glm::vec3(0, 1, 5), glm::vec3(0, 1, 0), glm::vec3(0, 1, 0)),
               .projection = glm::perspective(glm::radians(60.0f), 1.0f, 0.1f, 500.0f),
               .width = 512,
               .height = 512};
  LodFixture() {
    crowd.add_actor({.id = "near"});
    crowd.add_actor({.id = "far", .transform = glm::translate(glm::mat4(1.0f), glm::vec3(0, 0, -40))});
    crowd.update(0.1f, view);
  }
};

TEST(MisuseTest, LodViewsWithEmptyViewportsOrBadMatricesAreRejected) {
  LodFixture f;
  ASSERT_EQ(f.crowd.lod_stats().visible_actors, 2u) << "the fixture must classify something";
  struct Case {
    const char* what;
    std::function<void(LodView&)> edit;
    std::string field;
    std::string rule;
  };
  const std::vector<Case> cases = {
      {"zero width", [](LodView& v) { v.width = 0; }, "width", "viewport_size"},
      {"zero height", [](LodView& v) { v.height = 0; }, "height", "viewport_size"},
      {"zero-sized", [](LodView& v) { v.width = v.height = 0; }, "width", "viewport_size"},
      {"NaN view", [](LodView& v) { v.view[3][2] = kNaN; }, "view", "not_finite"},
      {"infinite projection", [](LodView& v) { v.projection[0][0] = kInf; }, "projection", "not_finite"},
      {"zero projection", [](LodView& v) { v.projection = glm::mat4(0.0f); }, "projection", "singular_projection"},
      // A projection with no y scale maps the whole scene onto one line.
      {"flat projection", [](LodView& v) { v.projection[1] = glm::vec4(0.0f); }, "projection", "singular_projection"},
      // Finite entries whose cofactors overflow: the determinant is NaN (found by fuzz_crowd).
      {"NaN determinant",
       [](LodView& v) {
         const float a = 0x1.646464p-27f, tiny = 0x1p-149f;
         v.projection = glm::mat4(glm::vec4(a), glm::vec4(a), glm::vec4(a, a, 0.0f, -0x1p+67f),
                                  glm::vec4(-0x1.971ep+100f, tiny, tiny, tiny));
       },
       "projection", "singular_projection"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    LodView bad = f.view;
    c.edit(bad);
    expect_rejected(
        f.crowd, [&] { f.crowd.set_lod_view(bad); }, "set_lod_view.view." + c.field, c.rule);
    expect_rejected(
        f.crowd, [&] { f.crowd.update(0.1f, bad); }, "update.view." + c.field, c.rule);
  }
  expect_rejected(
      f.crowd, [&] { f.crowd.update(kNaN, f.view); }, "update.delta_seconds", "not_finite");
}

TEST(MisuseTest, LodBiasMustBeFiniteAndPositive) {
  LodFixture f;
  for (const float bias : {0.0f, -0.0f, -1.0f, kNaN, kInf, -kInf}) {
    SCOPED_TRACE(bias);
    expect_rejected(
        f.crowd, [&] { f.crowd.set_lod_bias(bias); }, "set_lod_bias.bias", "lod_bias");
  }
}

TEST(MisuseTest, InvalidLodOptionsAreRejectedAtConstruction) {
  struct Case {
    const char* what;
    LodOptions lod;
    std::string path;
    std::string rule;
  };
  const std::vector<Case> cases = {
      {"ratio 1", {.auto_generate = true, .ratios = {1.0f}}, "lod.ratios[0]", "lod_ratio"},
      {"ratio 0", {.auto_generate = true, .ratios = {0.0f}}, "lod.ratios[0]", "lod_ratio"},
      {"ratio NaN", {.auto_generate = true, .ratios = {0.5f, kNaN}}, "lod.ratios[1]", "lod_ratio"},
      {"ratios rising", {.auto_generate = true, .ratios = {0.25f, 0.5f}}, "lod.ratios[1]", "lod_ratio"},
      {"coverage negative",
       {.enabled = true, .screen_coverage = {0.5f, -0.1f}},
       "lod.screen_coverage[1]",
       "lod_screen_coverage"},
      {"coverage infinite",
       {.enabled = true, .screen_coverage = {kInf}},
       "lod.screen_coverage[0]",
       "lod_screen_coverage"},
      {"coverage rising",
       {.enabled = true, .screen_coverage = {0.1f, 0.2f}},
       "lod.screen_coverage[1]",
       "lod_screen_coverage"},
      {"hysteresis 1", {.enabled = true, .hysteresis = 1.0f}, "lod.hysteresis", "lod_hysteresis"},
      {"hysteresis negative", {.enabled = true, .hysteresis = -0.1f}, "lod.hysteresis", "lod_hysteresis"},
      {"hysteresis NaN", {.enabled = true, .hysteresis = kNaN}, "lod.hysteresis", "lod_hysteresis"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    try {
      Crowd crowd(character(), {.capacity = 4, .lod = c.lod});
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.path(), c.path) << e.what();
      EXPECT_EQ(e.rule(), c.rule) << e.what();
    }
  }
}

TEST(MisuseTest, LodControlsAfterDestroyAreDestroyedErrors) {
  LodFixture f;
  f.crowd.destroy();
  expect_rejected(
      f.crowd, [&] { f.crowd.set_lod_view(f.view); }, "crowd", "destroyed");
  expect_rejected(
      f.crowd, [&] { f.crowd.update(0.1f, f.view); }, "crowd", "destroyed");
  expect_rejected(
      f.crowd, [&] { f.crowd.set_lod_bias(2.0f); }, "crowd", "destroyed");
  expect_rejected(
      f.crowd, [&] { f.crowd.set_lod_enabled(false); }, "crowd", "destroyed");
  expect_rejected(
      f.crowd, [&] { f.crowd.set_lod_vertex_budget(10); }, "crowd", "destroyed");
}

// Extreme but finite numbers are legal: they must keep every time inside [0, D] and every packed
// value finite.
TEST(MisuseTest, ExtremeFiniteNumbersKeepTimesAndPackedDataFinite) {
  Fixture f;
  const float huge = std::numeric_limits<float>::max();
  f.a.set_speed(huge);
  f.b.set_speed(-huge);
  f.crowd.update(huge);
  f.crowd.update(-huge);
  f.crowd.update(std::numeric_limits<float>::denorm_min());
  f.a.seek(huge);
  f.b.seek(-huge);
  f.b.select_clip("Idle", {.crossfade_seconds = std::numeric_limits<float>::denorm_min(), .time = huge});
  f.crowd.update(1e-3f);
  f.a.select_clip("Running", {.crossfade_seconds = huge});
  f.crowd.update(huge);
  for (const Actor& actor : f.crowd.actors()) {
    const float duration =
        character()->clips[static_cast<std::size_t>(character()->find_clip(actor.active_clip()))].duration_seconds;
    EXPECT_GE(actor.time(), 0.0f);
    EXPECT_LE(actor.time(), duration);
    float sum = 0.0f;
    for (const Contributor& c : actor.contributors()) sum += c.weight;
    EXPECT_NEAR(sum, 1.0f, 1e-5f);
  }
  const auto finite = [](const glm::vec4& v) {
    return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z) && std::isfinite(v.w);
  };
  for (const NodeStream& s : f.crowd.node_streams()) {
    EXPECT_TRUE(std::all_of(s.transforms.begin(), s.transforms.begin() + 2 * 3, finite));
    EXPECT_TRUE(std::all_of(s.palette.begin(), s.palette.begin() + fuzz::live_palette_rows(s, 2), finite));
  }
}

}  // namespace
}  // namespace gltf_crowd
