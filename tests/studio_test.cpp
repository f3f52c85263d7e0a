// End-to-end tests of `gltf-crowd studio` (docs/spec.md §8) driven headless under xvfb-run: --set applies
// controls, --frames runs fixed frames, --screenshot reads the back buffer and --stats writes
// render's statistics keys plus the window layout. Skipped (outside CI) without xvfb-run.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gltf_crowd/asset.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

#define REQUIRE_XVFB()                                                                  \
  do {                                                                                  \
    GLTF_CROWD_REQUIRE_ASSETS();                                                        \
    if (std::system("command -v xvfb-run >/dev/null 2>&1") != 0) {                      \
      if (std::getenv("CI") != nullptr) FAIL() << "xvfb-run is missing in CI";          \
      GTEST_SKIP() << "xvfb-run is not installed; skipping (set CI to make this fail)"; \
    }                                                                                   \
  } while (0)

using test::quoted;

// `output` holds the tool's standard output and error.
using StudioRun = test::ImageRun;

// Runs `xvfb-run gltf-crowd studio <args> --assets <shared assets> --frames N --screenshot
// --stats` in a fresh directory.
// The tests of one feature draw the crowd alone (--set shadows=off first, which a later --set in
// `args` overrides), so that draws count groups and the viewport's background is the clear
// colour; with `default_look` the studio's defaults apply (shadows and a ground plane).
StudioRun run_studio(const std::string& name, const std::vector<std::string>& args, int frames = 3,
                     const std::string& size = "--width 800 --height 500", bool default_look = false) {
  const auto dir = test::scratch_dir("studio_" + name);
  const auto png = dir / (name + ".png");
  const auto json = dir / (name + ".json");
  // --set takes several values: the size options after it end its list.
  // --assets must name a folder; without the shared assets the model menu holds the built-in one.
  const std::filesystem::path assets = test::asset_path("");
  // xvfb-run -a alone races when several start at once (ctest -j): two pick the same display
  // and one studio meets the other's X server. Each test process starts its search elsewhere.
  const int display = 100 + static_cast<int>(getpid() % 20000) * 3;
  std::string command = "xvfb-run -a -n " + std::to_string(display) + " -s '-screen 0 1280x800x24' " +
                        quoted(test::tool_path().string()) + " studio" +
                        (std::filesystem::is_directory(assets) ? " --assets " + quoted(assets.string()) : "") +
                        (default_look ? " " : " --set shadows=off ") + size + " --frames " + std::to_string(frames);
  for (const auto& a : args) command += " " + quoted(a);
  command += " --screenshot " + quoted(png.string()) + " --stats " + quoted(json.string()) + " 2>&1";
  // xvfb-run itself still fails now and then under load: it cannot remove its temporary
  // directory and exits with 5 over the studio's status, or the server is not up in time. Such
  // a run says nothing about the studio, so it is repeated.
  StudioRun run;
  for (int attempt = 0; attempt < 3; ++attempt) {
    run = test::run_for_image(command, png, json);
    if (run.output.find("xvfb-run: error:") == std::string::npos &&
        run.output.find("[no_display]") == std::string::npos)
      break;
  }
  return run;
}

// Fractions of the pixels in the stats' rectangle `rect` ([x, y, w, h], top-left origin) that
// differ from the clear colour, and that are bright (text).
struct RegionCounts {
  double foreground = 0.0;
  double bright = 0.0;
  double warm = 0.0;  // red clearly above blue: RobotExpressive's yellow-orange body
};

RegionCounts region(const StudioRun& r, const nlohmann::json& rect) {
  const auto& bg = r.stats.at("background");
  const int x0 = rect[0], y0 = rect[1], w = rect[2], h = rect[3];
  std::size_t foreground = 0, bright = 0, warm = 0;
  for (int y = y0; y < y0 + h; ++y) {
    for (int x = x0; x < x0 + w; ++x) {
      const std::uint8_t* p = &r.image.rgba[(std::size_t(y) * r.image.width + x) * 4];
      if (p[0] != bg[0] || p[1] != bg[1] || p[2] != bg[2]) ++foreground;
      if (p[0] > 200 && p[1] > 200 && p[2] > 200) ++bright;
      if (p[0] > p[2] + 60) ++warm;
    }
  }
  const double n = double(w) * h;
  return {static_cast<double>(foreground) / n, static_cast<double>(bright) / n, static_cast<double>(warm) / n};
}

TEST(StudioTool, RobotCrowdWithPanelScreenshotAndStats) {
  REQUIRE_XVFB();
  const auto r = run_studio("robot60", {test::asset_path("threejs/RobotExpressive.glb").string(), "--set", "actors=60"},
                            30, "--width 1280 --height 720");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("60 actors, 19 draws"), std::string::npos) << r.output;
  EXPECT_EQ(r.stats["actors"], 60);
  EXPECT_EQ(r.stats["draws"], 19);
  EXPECT_EQ(r.stats["frames"], 30);
  EXPECT_EQ(r.stats["clips"].size(), 60u);
  EXPECT_GE(r.stats["clip_counts"].size(), 10u) << "neighbours play different clips";
  EXPECT_GT(r.stats["upload_bytes_per_frame"].get<std::uint64_t>(), 0u);
  ASSERT_EQ(r.image.width, r.stats["window"][0].get<std::uint32_t>());
  ASSERT_EQ(r.image.height, r.stats["window"][1].get<std::uint32_t>());
  const RegionCounts crowd = region(r, r.stats["viewport"]);
  const RegionCounts panel = region(r, r.stats["panel"]);
  EXPECT_GT(crowd.foreground, 0.12) << r.png;
  EXPECT_GT(crowd.warm, 0.03) << "robot colours in the crowd viewport: " << r.png;
  EXPECT_GT(panel.foreground, 0.9) << "the panel covers its column: " << r.png;
  EXPECT_GT(panel.bright, 0.005) << "the panel shows text: " << r.png;
  EXPECT_LT(crowd.bright, panel.bright) << r.png;
}

TEST(StudioTool, SmallBudgetDemotesAsSpecified) {
  REQUIRE_XVFB();
  // Four large robots choose levels 0 and 1 by coverage (30534 indices); 20000 forces demotions
  // that still fit.
  const auto r = run_studio(
      "budget", {"--set", "model=RobotExpressive", "--set", "actors=4", "--set", "lod=on", "--set", "budget=20000"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto& lod = r.stats["lod"];
  EXPECT_EQ(lod["source"], "generated");
  EXPECT_EQ(lod["vertex_budget"], 20000);
  EXPECT_GT(lod["demoted_actors"].get<int>(), 0) << lod.dump();
  EXPECT_LE(lod["vertices"].get<std::uint64_t>(), 20000u) << lod.dump();
  EXPECT_TRUE(lod["budget_satisfied"].get<bool>()) << lod.dump();
  EXPECT_NE(r.output.find("budget satisfied true"), std::string::npos) << r.output;

  // docs/spec.md §7: a budget below every actor's lowest level is not satisfied, and nobody is culled
  // for it.
  const StudioRun tiny = run_studio("tiny_budget", {"--set", "model=RobotExpressive", "--set", "actors=10", "--set",
                                                    "lod=on", "--set", "budget=100"});
  ASSERT_EQ(tiny.exit_code, 0) << tiny.output;
  const auto& tiny_lod = tiny.stats["lod"];
  EXPECT_FALSE(tiny_lod["budget_satisfied"].get<bool>()) << tiny_lod.dump();
  EXPECT_EQ(tiny_lod["culled_actors"].get<int>() + tiny_lod["visible_actors"].get<int>(), 10);
  EXPECT_EQ(tiny_lod["levels"].back()["actors"], tiny_lod["visible_actors"]) << tiny_lod.dump();
  EXPECT_NE(tiny.output.find("budget satisfied false"), std::string::npos) << tiny.output;
}

TEST(StudioTool, UpdateRateLodDefersSmallActors) {
  REQUIRE_XVFB();
  // 100 robots seen from 4 times the framing distance: most cover little of the screen.
  const std::vector<std::string> args{
      "--set", "model=RobotExpressive", "--set", "actors=100", "--set", "lod=on", "--set", "zoom=4"};
  std::vector<std::string> on = args;
  on.insert(on.end(), {"--set", "update_rate=on"});
  const StudioRun deferred = run_studio("update_rate", on, 8);
  ASSERT_EQ(deferred.exit_code, 0) << deferred.output;
  const int visible = deferred.stats["lod"]["visible_actors"].get<int>();
  EXPECT_GT(deferred.stats["actors_deferred"].get<int>(), 0) << deferred.stats.dump();
  EXPECT_LT(deferred.stats["actors_evaluated"].get<int>(), visible) << deferred.stats.dump();

  const StudioRun every = run_studio("update_rate_off", args, 8);
  ASSERT_EQ(every.exit_code, 0) << every.output;
  EXPECT_EQ(every.stats["actors_deferred"].get<int>(), 0);
  EXPECT_EQ(every.stats["actors_evaluated"].get<int>(), 100);
}

// Nine RobotExpressive robots, orbit off, with `setting` ("key=value") and without: both runs
// must succeed and draw the robots alike. Returns {with, without}.
std::pair<StudioRun, StudioRun> robots_with_and_without(const std::string& name, const std::string& setting) {
  const std::vector<std::string> args{"--set", "model=RobotExpressive", "--set", "actors=9", "--set", "orbit=off"};
  std::vector<std::string> with_args = args;
  with_args.insert(with_args.end(), {"--set", setting});
  StudioRun with = run_studio(name + "_on", with_args);
  StudioRun without = run_studio(name + "_off", args);
  EXPECT_EQ(with.exit_code, 0) << with.output;
  EXPECT_EQ(without.exit_code, 0) << without.output;
  if (with.exit_code == 0 && without.exit_code == 0) {
    const auto& view = with.stats.at("viewport");
    const RegionCounts w = region(with, view), wo = region(without, view);
    EXPECT_GT(w.warm, 0.005) << "robots are drawn";
    EXPECT_NEAR(w.warm, wo.warm, 0.002);
  }
  return {std::move(with), std::move(without)};
}

// The "Animation: CPU / GPU" switch (issue 17): with animation=gpu (render's --animation gpu) the
// renderer's compute passes evaluate the poses, and the crowd looks as it does on the CPU.
TEST(StudioTool, GpuAnimationSwitch) {
  REQUIRE_XVFB();
  const auto [gpu, cpu] = robots_with_and_without("gpu_animation", "animation=gpu");
  ASSERT_EQ(gpu.exit_code, 0);
  ASSERT_EQ(cpu.exit_code, 0);
  EXPECT_EQ(gpu.stats["animation"], "gpu") << gpu.stats.dump();
  EXPECT_EQ(cpu.stats["animation"], "cpu");
  const StudioRun bad = run_studio("bad_evaluation", {"--set", "animation=fast"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("cpu or gpu"), std::string::npos) << bad.output;
}

// Settings keys are spelled as the options they mirror (issue 57 item 9): animation=cpu|gpu as
// render --animation, playing for the play toggle, lod-bias, vertex-budget, tint-seed, ... ('_'
// reads as '-'). The 0.2.0 keys still work, each with a deprecation warning naming its new form.
TEST(StudioTool, SettingsKeysMatchTheOptions) {
  REQUIRE_XVFB();
  const StudioRun named =
      run_studio("option_names",
                 {"--set", "animation=gpu", "--set", "playing=off", "--set", "lod=on", "--set", "lod-bias=2", "--set",
                  "vertex-budget=900000", "--set", "tints=random", "--set", "tint-seed=3"},
                 1);
  ASSERT_EQ(named.exit_code, 0) << named.output;
  EXPECT_EQ(named.stats["animation"], "gpu") << named.stats.dump();
  EXPECT_EQ(named.output.find("deprecated"), std::string::npos) << named.output;
  const StudioRun old = run_studio("old_names",
                                   {"--set", "evaluation=gpu", "--set", "animation=off", "--set", "lod=on", "--set",
                                    "bias=2", "--set", "budget=900000", "--set", "tint_seed=3"},
                                   1);
  ASSERT_EQ(old.exit_code, 0) << old.output;
  EXPECT_EQ(old.stats["animation"], "gpu") << old.stats.dump();
  for (const char* warning :
       {"--set evaluation=gpu is deprecated; use --set animation=gpu",
        "--set animation=off is deprecated; use --set playing=off", "--set bias=2 is deprecated; use --set lod-bias=2",
        "--set budget=900000 is deprecated; use --set vertex-budget=900000"})
    EXPECT_NE(old.output.find(std::string("gltf-crowd: warning: ") + warning), std::string::npos) << old.output;
  EXPECT_EQ(old.output.find("tint"), std::string::npos) << "tint_seed is tint-seed: " << old.output;
}

// The Shadows toggle: a depth pass per group on top of the main pass (the built-in character's
// groups are opaque), reported in --stats, on in the default look; "shadows=maybe" is refused.
TEST(StudioTool, ShadowsToggle) {
  REQUIRE_XVFB();
  const StudioRun off = run_studio("shadows_off", {"--set", "actors=4"});
  const StudioRun on = run_studio("shadows_on", {"--set", "actors=4", "--set", "shadows=on"});
  const StudioRun look = run_studio("shadows_default", {"--set", "actors=4"}, 3, "--width 800 --height 500", true);
  ASSERT_EQ(off.exit_code, 0) << off.output;
  ASSERT_EQ(on.exit_code, 0) << on.output;
  ASSERT_EQ(look.exit_code, 0) << look.output;
  EXPECT_EQ(off.stats["shadows"], false);
  EXPECT_EQ(on.stats["shadows"], true);
  EXPECT_EQ(look.stats["shadows"], true) << "shadows are the default look";
  EXPECT_EQ(on.stats["shadow_draws"], off.stats["draws"]);
  EXPECT_EQ(off.stats["shadow_draws"], 0);
  EXPECT_GT(on.stats["upload_bytes_per_frame"].get<std::uint64_t>(), 0u) << "the depth pass's uploads count";
  EXPECT_EQ(on.stats["draws"].get<int>(), 2 * off.stats["draws"].get<int>());
  const StudioRun bad = run_studio("shadows_bad", {"--set", "shadows=maybe"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("shadows"), std::string::npos) << bad.output;
}

// The skinned-vertex cache toggle (docs/spec.md §6.9): the renderer skins into the cache, counted
// in --stats, and the crowd looks as it does without; "skinned_vertex_cache=maybe" is refused.
TEST(StudioTool, SkinnedVertexCacheToggle) {
  REQUIRE_XVFB();
  const auto [cached, plain] = robots_with_and_without("vertex_cache", "skinned_vertex_cache=on");
  ASSERT_EQ(cached.exit_code, 0);
  ASSERT_EQ(plain.exit_code, 0);
  EXPECT_EQ(cached.stats["skinned_vertex_cache"], true) << cached.stats.dump();
  EXPECT_EQ(plain.stats["skinned_vertex_cache"], false);
  EXPECT_GT(cached.stats["cached_vertices"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(plain.stats["cached_vertices"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(cached.stats["draws"], plain.stats["draws"]);
  const StudioRun bad = run_studio("vertex_cache_bad", {"--set", "skinned_vertex_cache=maybe"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("skinned_vertex_cache"), std::string::npos) << bad.output;
}

TEST(StudioTool, ModelSwitchShowsLodSource) {
  REQUIRE_XVFB();
  const StudioRun authored = run_studio("authored", {"--set", "model=SimpleSkinLOD", "--set", "actors=4"});
  ASSERT_EQ(authored.exit_code, 0) << authored.output;
  EXPECT_EQ(authored.stats["lod"]["source"], "authored");
  EXPECT_NE(authored.stats["asset"].get<std::string>().find("SimpleSkinLOD"), std::string::npos);

  const StudioRun generated = run_studio("generated", {"--set", "model=CesiumMan", "--set", "lod=on"});
  ASSERT_EQ(generated.exit_code, 0) << generated.output;
  EXPECT_EQ(generated.stats["lod"]["source"], "generated");
  EXPECT_NE(generated.stats["asset"].get<std::string>().find("CesiumMan"), std::string::npos);
  // Each level's indices, ratio reached and error (issue 19), as `lod` and `info` report them:
  // level 0 is CesiumMan's whole mesh (14,016 indices), the generated ones fewer, with an error.
  const auto& levels = generated.stats["lod_levels"];
  ASSERT_EQ(levels.size(), 3u) << generated.stats.dump();
  EXPECT_EQ(levels[0]["indices"].get<std::uint64_t>(), 14016u);
  EXPECT_DOUBLE_EQ(levels[0]["ratio"].get<double>(), 1.0);
  for (std::size_t l = 1; l < levels.size(); ++l) {
    const auto indices = levels[l]["indices"].get<std::uint64_t>();
    EXPECT_LT(indices, levels[l - 1]["indices"].get<std::uint64_t>()) << l;
    EXPECT_NEAR(levels[l]["ratio"].get<double>(), static_cast<double>(indices) / 14016.0, 1e-9) << l;
    EXPECT_GT(levels[l]["error"].get<double>(), 0.0) << l;
    EXPECT_TRUE(levels[l]["sloppy"].is_boolean()) << l;
  }
}

TEST(StudioTool, ModelMenuListsOnlyAnimatedAssets) {
  REQUIRE_XVFB();
  const auto r = run_studio("menu", {"--set", "model=built-in", "--set", "actors=2"}, 1);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto& models = r.stats["models"];
  auto listed = [&](const std::string& label) {
    return std::find(models.begin(), models.end(), label) != models.end();
  };
  EXPECT_TRUE(listed("built-in")) << models.dump();
  EXPECT_TRUE(listed("RobotExpressive")) << models.dump();
  EXPECT_TRUE(listed("CesiumMan")) << models.dump();
  EXPECT_FALSE(listed("SimpleInstancing")) << "static asset in the menu: " << models.dump();
  EXPECT_EQ(r.stats["asset"], "built-in");
}

TEST(StudioTool, ClipAssignmentAndActorEdits) {
  REQUIRE_XVFB();
  const StudioRun single =
      run_studio("single", {"--set", "model=RobotExpressive", "--set", "actors=6", "--set", "clip=Wave", "--set",
                            "select=actor-2", "--set", "actor.clip=Dance", "--set", "actor.crossfade=0"});
  ASSERT_EQ(single.exit_code, 0) << single.output;
  const auto& clips = single.stats["clips"];
  ASSERT_EQ(clips.size(), 6u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(clips[i], i == 2 ? "Dance" : "Wave") << clips.dump();

  const StudioRun a = run_studio(
      "random_a", {"--set", "model=RobotExpressive", "--set", "actors=12", "--set", "clips=random", "--set", "seed=7"},
      1);
  const StudioRun b = run_studio(
      "random_b", {"--set", "model=RobotExpressive", "--set", "actors=12", "--set", "clips=random", "--set", "seed=8"},
      1);
  ASSERT_EQ(a.exit_code, 0) << a.output;
  ASSERT_EQ(b.exit_code, 0) << b.output;
  EXPECT_NE(a.stats["clips"], b.stats["clips"]) << "the seed picks the clips";
  EXPECT_GT(a.stats["clip_counts"].size(), 1u);
}

TEST(StudioTool, LayerVisibilityAndRootMotionControls) {
  REQUIRE_XVFB();
  const StudioRun r = run_studio("layers", {"--set", "model=RobotExpressive", "--set", "actors=4", "--set",
                                            "clip=Walking", "--set", "select=actor-1", "--set", "actor.crossfade=0",
                                            "--set", "actor.layer.clip=Wave", "--set", "actor.layer.mask=Abdomen/Torso",
                                            "--set", "actor.layer.weight=0.5", "--set", "actor.layer.mode=additive"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto& layers = r.stats["layers"];
  ASSERT_EQ(layers.size(), 4u);
  EXPECT_EQ(layers[1]["clip"], "Wave");
  EXPECT_EQ(layers[1]["mask"], "below:Abdomen/Torso");  // the joint: "Torso" alone names the mesh too
  EXPECT_EQ(layers[1]["mode"], "additive");
  EXPECT_FLOAT_EQ(layers[1]["weight"].get<float>(), 0.5f);
  EXPECT_EQ(layers[0]["clip"], "") << "only the selected actor has the layer";

  const StudioRun hidden = run_studio("hidden", {"--set", "model=RobotExpressive", "--set", "actors=4", "--set",
                                                 "select=actor-3", "--set", "actor.visible=off"});
  ASSERT_EQ(hidden.exit_code, 0) << hidden.output;
  EXPECT_EQ(hidden.stats["hidden_actors"], 1);

  const StudioRun walking =
      run_studio("root_motion", {"--set", "actors=2", "--set", "clip=Walking", "--set", "root_motion=Hips"});
  ASSERT_EQ(walking.exit_code, 0) << walking.output;
  EXPECT_EQ(walking.stats["root_motion"], "Hips");
  // A node by index (docs/spec.md §2.3) is that node, named by its name: RobotExpressive's Hips.
  const int hips = load_asset(test::asset_path("threejs/RobotExpressive.glb")).find_node("Hips");
  ASSERT_GE(hips, 0);
  const StudioRun by_index = run_studio("root_motion_index", {"--set", "actors=2", "--set", "clip=Walking", "--set",
                                                              "root-motion=" + std::to_string(hips)});
  ASSERT_EQ(by_index.exit_code, 0) << by_index.output;
  EXPECT_EQ(by_index.stats["root_motion"], "Hips");
  const StudioRun unknown = run_studio("root_motion_unknown", {"--set", "root_motion=NoSuchNode"});
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.output.find("NoSuchNode"), std::string::npos) << unknown.output;
}

TEST(StudioTool, BadSettingsFailWithMessage) {
  REQUIRE_XVFB();
  const StudioRun unknown = run_studio("unknown_key", {"--set", "colour=red"}, 1);
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.output.find("set_key"), std::string::npos) << unknown.output;
  const StudioRun too_many = run_studio("too_many", {"--set", "actors=101"}, 1);
  EXPECT_NE(too_many.exit_code, 0);
  EXPECT_NE(too_many.output.find("set_value"), std::string::npos) << too_many.output;
  // The capacity is named by its option (issue 57 item 5), not given as a range of actors.
  EXPECT_NE(
      too_many.output.find("--set actors: 101 actors exceed the crowd's capacity of 100: raise it with --capacity"),
      std::string::npos)
      << too_many.output;
  const StudioRun raised =
      run_studio("raised", {"--capacity", "150", "--set", "actors=101", "--set", "model=built-in"}, 1);
  ASSERT_EQ(raised.exit_code, 0) << raised.output;
  EXPECT_EQ(raised.stats["actors"], 101);
}

TEST(StudioTool, UnknownClipIsRejectedListingTheClips) {
  REQUIRE_XVFB();
  const StudioRun r = run_studio("unknown_clip", {"--set", "model=RobotExpressive", "--set", "clip=Nope"}, 1);
  EXPECT_EQ(r.exit_code, 2) << r.output;  // a usage error, named by its key
  EXPECT_NE(r.output.find("--set clip: no clip named"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("no clip named \"Nope\""), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[unknown_clip]"), std::string::npos) << r.output;
  for (const char* clip : {"available: Dance, ", " Idle, ", " Wave, "})
    EXPECT_NE(r.output.find(clip), std::string::npos) << r.output;
}

// The table shows actor ids; select takes one.
TEST(StudioTool, SelectTakesAnActorId) {
  REQUIRE_XVFB();
  const StudioRun unknown = run_studio("select_unknown", {"--set", "actors=4", "--set", "select=actor-9"}, 1);
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("--set select: no actor has the id 'actor-9' (4 actors: actor-0 to actor-3)"),
            std::string::npos)
      << unknown.output;
  const StudioRun slot = run_studio("select_slot", {"--set", "actors=4", "--set", "select=2"}, 1);
  EXPECT_EQ(slot.exit_code, 2) << "a slot number is not an id: " << slot.output;
}

TEST(StudioTool, MissingAssetAndNonFiniteSettingsAreErrors) {
  REQUIRE_XVFB();
  const auto missing = test::scratch_dir("studio_missing") / "absent.glb";
  const StudioRun absent = run_studio("missing", {missing.string()}, 1);
  EXPECT_EQ(absent.exit_code, 2) << absent.output;
  EXPECT_NE(absent.output.find("gltf-crowd: error: " + missing.string() + ": is not a readable file [file_open]"),
            std::string::npos)
      << absent.output;
  const StudioRun nan = run_studio("nan", {"--set", "bias=nan"}, 1);
  EXPECT_EQ(nan.exit_code, 2) << "a usage error: " << nan.output;
  EXPECT_NE(nan.output.find("[set_value]"), std::string::npos) << nan.output;
}

// Appearance settings (docs/spec.md §8.2): tints=random tints every actor without adding draws;
// variants=spread on a model without variants and a bad tints value fail clearly.
TEST(StudioTool, TintsSettingAndBadAppearanceValues) {
  REQUIRE_XVFB();
  const std::string robot = test::asset_path("threejs/RobotExpressive.glb").string();
  const auto r = run_studio("tints", {robot, "--set", "actors=4", "--set", "tints=random"}, 2);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.stats["draws"], 19);
  ASSERT_EQ(r.stats["tints"].size(), 4u);
  EXPECT_NE(r.stats["tints"][0], nlohmann::json({1.0, 1.0, 1.0, 1.0}));
  EXPECT_NE(r.stats["tints"][0], r.stats["tints"][1]);
  const auto bad = run_studio("tints_bad", {robot, "--set", "tints=blue"}, 1);
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("set_value"), std::string::npos) << bad.output;
  const auto missing = run_studio("variants_missing", {robot, "--set", "variants=spread"}, 1);
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.output.find("unknown_variant"), std::string::npos) << missing.output;
}

}  // namespace
}  // namespace gltf_crowd
