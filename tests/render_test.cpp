// End-to-end tests of `gltf-crowd render` (docs/spec.md §8): run the built tool, then check its JSON
// statistics and decode its PNG. Sizes stay small because llvmpipe is vertex-bound (docs/platform.md
// P14): at most 100 actors at 256 × 192. The palette storages on OpenGL 3.3 and ES 3.0 contexts
// (which the tool caps through Mesa's version overrides, read once per process) are compared
// with `--reference` images here (docs/spec.md §6).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "image_compare.hpp"
#include "test_support.hpp"
#include "variant_assets.hpp"

namespace gltf_crowd {
namespace {

using test::quoted;

// `output` holds the tool's standard error only: the tests read its messages there.
using Render = test::ImageRun;

// Runs `gltf-crowd render <args> --out <dir>/<name>.png --stats <dir>/<name>.json`. The tests of
// one feature draw the crowd alone (--no-shadows first, which a later --shadows in `args`
// overrides), so that draws count groups and the background is the clear colour; with
// `default_look` the tool's defaults apply (shadows and a ground plane).
Render run_render(const std::string& name, const std::vector<std::string>& args, bool default_look = false) {
  const auto dir = test::scratch_dir("render_" + name);
  const auto png = dir / (name + ".png");
  const auto json = dir / (name + ".json");
  std::string command = quoted(test::tool_path().string()) + " render" + (default_look ? "" : " --no-shadows");
  for (const auto& a : args) command += " " + quoted(a);
  command += " --out " + quoted(png.string()) + " --stats " + quoted(json.string()) + " 2>&1 >/dev/null";
  return test::run_for_image(command, png, json);
}

// Fraction of pixels whose RGB differs from the clear colour the tool reports.
double foreground_fraction(const Render& r) {
  const auto& bg = r.stats.at("background");
  std::size_t differing = 0;
  for (std::size_t i = 0; i + 3 < r.image.rgba.size(); i += 4) {
    if (r.image.rgba[i] != bg[0] || r.image.rgba[i + 1] != bg[1] || r.image.rgba[i + 2] != bg[2]) ++differing;
  }
  return r.image.rgba.empty() ? 0.0 : static_cast<double>(differing) / static_cast<double>(r.image.rgba.size() / 4);
}

std::string robot() { return test::asset_path("threejs/RobotExpressive.glb").string(); }

TEST(RenderTool, MissingAssetFailsWithMessage) {
  Render r = run_render("missing", {"/nonexistent/robot.glb", "--actors", "1"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("robot.glb"), std::string::npos) << r.output;
}

// An asset with no mesh (issue 57 item 6) is an error naming it and the cause, not "0 draws" and
// an empty picture with status 0.
TEST(RenderTool, AnAssetWithNothingToDrawIsAnError) {
  const auto still = test::scratch_dir("render_nothing_asset") / "still.gltf";  // one node, no mesh
  std::ofstream(still) << R"({"asset":{"version":"2.0"},"scenes":[{"nodes":[0]}],"nodes":[{"name":"n"}]})";
  Render r = run_render("nothing", {still.string(), "--actors", "2"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("gltf-crowd: error: " + still.string() + ": nothing to draw: the asset has no meshes"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("[nothing_to_draw]"), std::string::npos) << r.output;
}

// Checked when the options are read, before anything is drawn (png_write_failed, the failure
// of the write itself, is tested on write_png in gl_test.cpp).
TEST(RenderTool, UnwritableOutputFailsWithMessage) {
  const test::CommandOutput r =
      test::run_tool("render --actors 1 --width 32 --height 32 --out /nonexistent/dir/x.png 2>&1 >/dev/null");
  EXPECT_GT(r.exit_code, 0);  // exited with an error status, not killed by a signal (-1)
  EXPECT_NE(r.out.find("--out: folder '/nonexistent/dir' does not exist"), std::string::npos) << r.out;
}

// More samples than the GL allows (llvmpipe's GL_MAX_SAMPLES is 4) fail under --msaa with the
// picture's size, not under the library's FramebufferOptions.samples.
TEST(RenderTool, SamplesTheGlRefusesNameMsaa) {
  const auto dir = test::scratch_dir("render_msaa");
  const test::CommandOutput r = test::run_tool("render --actors 1 --msaa 16 --out " +
                                               test::quoted((dir / "x.png").string()) + " 2>&1 >/dev/null");
  if (r.exit_code == 0) GTEST_SKIP() << "this GL allows 16 samples";
  EXPECT_GT(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("--msaa: 640 x 480 pixels with 16 samples: 16 samples exceed GL_MAX_SAMPLES"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("FramebufferOptions"), std::string::npos) << r.out;
}

// The largest picture with the default 4 samples is an incomplete framebuffer on llvmpipe: the
// error names --msaa and the size, and suggests --msaa 0 (issue 57).
TEST(RenderTool, AMultisampledPictureTooLargeSuggestsMsaaZero) {
  const auto dir = test::scratch_dir("render_msaa_large");
  const test::CommandOutput r =
      test::run_tool("render --actors 1 --seconds 0 --no-shadows --width 16384 --height 16384 --out " +
                     test::quoted((dir / "x.png").string()) + " 2>&1 >/dev/null");
  if (r.exit_code == 0) GTEST_SKIP() << "this GL holds 16384² with 4 samples";
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("--msaa: 16384 x 16384 pixels with 4 samples: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("; try --msaa 0 (no multisampling) or fewer samples"), std::string::npos) << r.out;
}

TEST(RenderTool, ZeroActorsIsRejected) {
  Render r = run_render("zero", {"--actors", "0"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(r.output.empty());
}

// The tool frames the crowd's padded rest-pose box from 25° above the front with a 40° vertical
// field of view, so the 10 × 10 grid of robots fills most of the image: > 20% of the pixels
// differ from the clear colour (about 30% measured). The default look adds shadows: one depth
// draw per opaque group, so draws = groups × 2, never a draw per actor.
TEST(RenderTool, RobotExpressiveHundredActors) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const std::vector<std::string> args = {robot(),   "--actors", "100",      "--seconds", "1",
                                         "--width", "256",      "--height", "192"};
  Render look = run_render("robot100_default", args, true);
  ASSERT_EQ(look.exit_code, 0) << look.output;
  EXPECT_EQ(look.stats.at("shadows"), true);
  EXPECT_EQ(look.stats.at("draws"), 2 * 19);
  EXPECT_EQ(look.stats.at("shadow_draws"), 19);
  Render r = run_render("robot100", args);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.stats.at("shadows"), false);
  EXPECT_EQ(r.stats.at("actors"), 100);
  EXPECT_EQ(r.stats.at("draws"), 19);  // one per primitive group, never one per actor
  EXPECT_EQ(r.stats.at("primitive_groups"), 19);
  EXPECT_EQ(r.stats.at("skinned_groups"), 4);  // Hand.L and Hand.R, 2 primitives each
  ASSERT_EQ(r.stats.at("joints_per_group").size(), 19u);
  for (const auto& joints : r.stats.at("joints_per_group")) {
    EXPECT_TRUE(joints == 0 || joints == 43) << joints;
  }
  const auto& clips = r.stats.at("clips");
  ASSERT_EQ(clips.size(), 100u);
  EXPECT_NE(clips[0], clips[1]);  // actor i plays clip i % 14
  EXPECT_EQ(clips[0], clips[14]);
  EXPECT_GT(r.stats.at("upload_bytes_per_frame").get<std::uint64_t>(), 0u);
  EXPECT_EQ(r.stats.at("width"), 256);
  EXPECT_EQ(r.stats.at("height"), 192);
  ASSERT_EQ(r.image.width, 256u);
  ASSERT_EQ(r.image.height, 192u);
  EXPECT_GT(foreground_fraction(r), 0.20) << r.png;
}

TEST(RenderTool, RobotExpressiveOneAndTwoActorsStillDrawNineteenGroups) {
  GLTF_CROWD_REQUIRE_ASSETS();
  for (const char* actors : {"1", "2"}) {
    Render r =
        run_render(std::string("robot") + actors, {robot(), "--actors", actors, "--width", "128", "--height", "96"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.stats.at("actors"), std::stoi(actors));
    EXPECT_EQ(r.stats.at("draws"), 19);
    EXPECT_GT(foreground_fraction(r), 0.05) << r.png;
  }
}

TEST(RenderTool, DifferentTimesGiveDifferentImages) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const std::vector<std::string> common = {robot(), "--actors", "4", "--width", "128", "--height", "96"};
  auto with_seconds = common;
  with_seconds.insert(with_seconds.end(), {"--seconds", "0.5"});
  Render early = run_render("early", with_seconds);
  with_seconds.back() = "1.0";
  Render late = run_render("late", with_seconds);
  ASSERT_EQ(early.exit_code, 0) << early.output;
  ASSERT_EQ(late.exit_code, 0) << late.output;
  ASSERT_EQ(early.image.rgba.size(), late.image.rgba.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < early.image.rgba.size(); i += 4) {
    differing += early.image.rgba[i] != late.image.rgba[i] || early.image.rgba[i + 1] != late.image.rgba[i + 1] ||
                 early.image.rgba[i + 2] != late.image.rgba[i + 2];
  }
  EXPECT_GT(differing, 50u) << early.png << " vs " << late.png;
}

TEST(RenderTool, SameTimeGivesTheSameImage) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const std::vector<std::string> args = {robot(),   "--actors", "4",        "--seconds", "0.5",
                                         "--width", "96",       "--height", "72"};
  Render a = run_render("same_a", args);
  Render b = run_render("same_b", args);
  ASSERT_EQ(a.exit_code, 0) << a.output;
  ASSERT_EQ(b.exit_code, 0) << b.output;
  EXPECT_EQ(a.image.rgba, b.image.rgba);
}

TEST(RenderTool, BuiltInCharacterWithoutAsset) {
  Render r = run_render("builtin", {"--actors", "16", "--width", "128", "--height", "96"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GT(std::filesystem::file_size(r.png), 0u);
  EXPECT_EQ(r.image.width, 128u);
  EXPECT_EQ(r.image.height, 96u);
  EXPECT_EQ(r.stats.at("actors"), 16);
  EXPECT_EQ(r.stats.at("asset"), "built-in");
  EXPECT_EQ(r.stats.at("draws"), r.stats.at("primitive_groups"));
  EXPECT_GT(r.stats.at("skinned_groups").get<int>(), 0);
  EXPECT_GT(foreground_fraction(r), 0.05) << r.png;
}

bool starts_with(const nlohmann::json& text, const std::string& prefix) {
  return text.is_string() && text.get<std::string>().rfind(prefix, 0) == 0;
}

struct ToolCase {
  const char* name;
  const char* file;  // under ../shared/assets
  const char* actors;
};

// gtest prints parameters of failing tests with this.
void PrintTo(const ToolCase& c, std::ostream* os) { *os << c.name; }

class RenderToolParity : public ::testing::TestWithParam<ToolCase> {};

INSTANTIATE_TEST_SUITE_P(
    Assets, RenderToolParity,
    ::testing::Values(ToolCase{"RobotExpressive", "threejs/RobotExpressive.glb", "20"},
                      ToolCase{"CesiumMan", "khronos/CesiumMan.glb", "6"}, ToolCase{"Fox", "khronos/Fox.glb", "6"},
                      ToolCase{"NegativeScaleTest", "khronos/NegativeScaleTest.glb", "4"},
                      ToolCase{"AnimatedMorphCube", "lumagl/AnimatedMorphCube.glb", "6"},
                      ToolCase{"MorphStressTest", "khronos/MorphStressTest/MorphStressTest.gltf", "6"}),
    [](const auto& test_info) { return std::string(test_info.param.name); });

// `--gl 3.3 --palette texture` runs on a real OpenGL 3.3 core context and `--gl es3.0` on an
// OpenGL ES 3.0 one (automatic storage: textures); both images agree with `--reference` (one
// draw per actor per group) within 0.5% of pixels off by more than 2/255.
TEST_P(RenderToolParity, CappedContextsMatchTheReference) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const ToolCase& c = GetParam();
  const std::vector<std::string> common = {test::asset_path(c.file).string(),
                                           "--actors",
                                           c.actors,
                                           "--seconds",
                                           "1.3",
                                           "--width",
                                           "160",
                                           "--height",
                                           "120",
                                           "--msaa",
                                           "0"};
  auto with = [&common](std::initializer_list<std::string> extra) {
    std::vector<std::string> args = common;
    args.insert(args.end(), extra);
    return args;
  };
  const std::string name = c.name;
  const Render reference = run_render(name + "_reference", with({"--reference"}));
  const Render gl33 = run_render(name + "_gl33", with({"--gl", "3.3", "--palette", "texture"}));
  const Render es30 = run_render(name + "_es30", with({"--gl", "es3.0"}));
  ASSERT_EQ(reference.exit_code, 0) << reference.output;
  ASSERT_EQ(gl33.exit_code, 0) << gl33.output;
  ASSERT_EQ(es30.exit_code, 0) << es30.output;

  const int actors = std::stoi(c.actors);
  EXPECT_EQ(reference.stats.at("palette"), "reference");
  EXPECT_EQ(reference.stats.at("draws"), reference.stats.at("primitive_groups").get<int>() * actors);
  EXPECT_TRUE(starts_with(gl33.stats.at("gl_version"), "3.3 ")) << gl33.stats.at("gl_version");
  EXPECT_EQ(gl33.stats.at("palette"), "texture");
  EXPECT_EQ(gl33.stats.at("draws"), gl33.stats.at("primitive_groups"));
  EXPECT_TRUE(starts_with(es30.stats.at("gl_version"), "OpenGL ES 3.0 ")) << es30.stats.at("gl_version");
  EXPECT_EQ(es30.stats.at("palette"), "texture");
  EXPECT_GT(foreground_fraction(reference), 0.03) << reference.png;

  const auto dir = reference.png.parent_path();
  EXPECT_TRUE(test::images_agree(dir, "gl33", gl33.image, reference.image));
  EXPECT_TRUE(test::images_agree(dir, "es30", es30.image, reference.image));
}

// RobotExpressive: 19 groups, so the reference path issues 19 × N draws, the instanced path 19.
TEST(RenderTool, ReferenceDrawsEveryActorSeparately) {
  GLTF_CROWD_REQUIRE_ASSETS();
  Render r =
      run_render("robot_reference", {robot(), "--actors", "7", "--reference", "--width", "64", "--height", "48"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.stats.at("draws"), 19 * 7);
  EXPECT_EQ(r.stats.at("palette"), "reference");
  EXPECT_GT(foreground_fraction(r), 0.02) << r.png;
}

// --shadows: a depth pass from the light (one draw per opaque group: RobotExpressive has 19 and
// no BLEND material) plus the main pass, on the instanced path and on the reference path, whose
// images agree; with ES 3.0 the texture path shades the same shadows. The plain render has no
// ground, so the shadowed image covers far more of the clear colour.
TEST(RenderTool, ShadowsAddOneDepthDrawPerGroupAndMatchTheReference) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const std::vector<std::string> args = {robot(),   "--actors", "4",        "--seconds", "0.5",
                                         "--width", "128",      "--height", "96",        "--shadows"};
  auto with = [&](std::initializer_list<std::string> extra) {
    std::vector<std::string> all = args;
    all.insert(all.end(), extra);
    return all;
  };
  const Render instanced = run_render("shadows", args);
  const Render reference = run_render("shadows_reference", with({"--reference"}));
  const Render es30 = run_render("shadows_es30", with({"--gl", "es3.0"}));
  const Render plain =
      run_render("shadows_off", {robot(), "--actors", "4", "--seconds", "0.5", "--width", "128", "--height", "96"});
  ASSERT_EQ(instanced.exit_code, 0) << instanced.output;
  ASSERT_EQ(reference.exit_code, 0) << reference.output;
  ASSERT_EQ(es30.exit_code, 0) << es30.output;
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_EQ(instanced.stats.at("shadows"), true);
  EXPECT_EQ(instanced.stats.at("shadow_draws"), 19);
  EXPECT_EQ(instanced.stats.at("draws"), 2 * 19);
  // The depth pass comes first and uploads the frame's streams; the main pass then uploads nothing.
  EXPECT_GT(instanced.stats.at("upload_bytes_per_frame").get<std::uint64_t>(), 0u);
  EXPECT_EQ(instanced.stats.at("upload_bytes_per_frame"), plain.stats.at("upload_bytes_per_frame"));
  EXPECT_EQ(reference.stats.at("shadow_draws"), 19 * 4);
  EXPECT_EQ(plain.stats.at("shadows"), false);
  EXPECT_EQ(plain.stats.at("shadow_draws"), 0);
  EXPECT_GT(foreground_fraction(instanced), foreground_fraction(plain) + 0.2) << "no ground: " << instanced.png;
  const auto dir = instanced.png.parent_path();
  EXPECT_TRUE(test::images_agree(dir, "instanced", instanced.image, reference.image));
  EXPECT_TRUE(test::images_agree(dir, "es30", es30.image, reference.image));
}

// --skinned-vertex-cache: the shadow pass skins every vertex into the cache and the main pass
// reads it; the image is the reference's, with both storages and on ES 3.0. OpenGL 3.3 has no
// transform feedback objects: an error naming gl_version.
TEST(RenderTool, SkinnedVertexCacheDrawsTheReferenceImage) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const std::vector<std::string> args = {robot(),   "--actors", "4",        "--seconds", "0.5",
                                         "--width", "128",      "--height", "96",        "--shadows"};
  const Render reference = run_render("cache_reference", [&] {
    auto all = args;
    all.push_back("--reference");
    return all;
  }());
  ASSERT_EQ(reference.exit_code, 0) << reference.output;
  const auto dir = test::scratch_dir("render_cache");
  for (const std::vector<std::string>& extra :
       std::vector<std::vector<std::string>>{{"--palette", "storage"}, {"--palette", "texture"}, {"--gl", "es3.0"}}) {
    auto all = args;
    all.insert(all.end(), extra.begin(), extra.end());
    all.push_back("--skinned-vertex-cache");
    const std::string name = "cache_" + extra[1];
    const Render cached = run_render(name, all);
    ASSERT_EQ(cached.exit_code, 0) << cached.output;
    EXPECT_EQ(cached.stats.at("draws"), 2 * 19) << name;
    EXPECT_GT(cached.stats.at("cached_vertices").get<std::uint64_t>(), 0u) << name;
    EXPECT_EQ(cached.stats.at("skinned_vertex_cache"), true) << name;
    EXPECT_TRUE(test::images_agree(dir, name, cached.image, reference.image));
  }
  const Render plain = run_render("cache_off", args);
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_EQ(plain.stats.at("cached_vertices"), 0);
  EXPECT_EQ(plain.stats.at("skinned_vertex_cache"), false);
  auto old = args;
  old.insert(old.end(), {"--gl", "3.3", "--skinned-vertex-cache"});
  const Render gl33 = run_render("cache_gl33", old);
  EXPECT_NE(gl33.exit_code, 0);
  EXPECT_NE(gl33.output.find("gl_version"), std::string::npos) << gl33.output;
  EXPECT_NE(gl33.output.find("--skinned-vertex-cache"), std::string::npos) << gl33.output;
}

TEST(RenderTool, PaletteAndGlOptionsAreReported) {
  Render r = run_render("texture43", {"--actors", "4", "--palette", "texture", "--width", "32", "--height", "24"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.stats.at("palette"), "texture");
  EXPECT_EQ(r.stats.at("gl_api"), "4.3");
  Render automatic = run_render("auto43", {"--actors", "4", "--width", "32", "--height", "24"});
  ASSERT_EQ(automatic.exit_code, 0) << automatic.output;
  EXPECT_EQ(automatic.stats.at("palette"), "storage");  // OpenGL 4.5 on llvmpipe
}

// Storage buffers need OpenGL 4.3: on a 3.3 context that is an error, not a silent fallback.
TEST(RenderTool, StoragePaletteOnGl33IsAnError) {
  Render r = run_render("storage33",
                        {"--actors", "2", "--palette", "storage", "--gl", "3.3", "--width", "32", "--height", "24"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("gl_version"), std::string::npos) << r.output;
}

TEST(RenderTool, UnknownPaletteOrGlIsRejected) {
  EXPECT_NE(run_render("bad_palette", {"--palette", "bindless"}).exit_code, 0);
  EXPECT_NE(run_render("bad_gl", {"--gl", "2.1"}).exit_code, 0);
}

}  // namespace
}  // namespace gltf_crowd

namespace gltf_crowd {
namespace {

// `render --animation gpu` (issue 17): the compute passes pack the palettes, and the image is the
// CPU path's.
TEST(RenderTool, AnimationGpuDrawsTheCpuImage) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto dir = test::scratch_dir("render_gpu");
  const std::string robot = test::quoted(test::asset_path("threejs/RobotExpressive.glb").string());
  const auto run = [&](const std::string& name, const std::string& extra) {
    const auto png = dir / (name + ".png"), json = dir / (name + ".json");
    return test::run_for_image(test::quoted(test::tool_path().string()) + " render " + robot +
                                   " --actors 30 --width 200 --height 150 --seconds 0.5 --out " +
                                   test::quoted(png.string()) + " --stats " + test::quoted(json.string()) + extra,
                               png, json);
  };
  const test::ImageRun cpu = run("cpu", ""), gpu = run("gpu", " --animation gpu");
  ASSERT_EQ(gpu.exit_code, 0) << gpu.output;
  ASSERT_EQ(cpu.exit_code, 0) << cpu.output;
  EXPECT_EQ(gpu.stats["animation"], "gpu");
  EXPECT_EQ(gpu.stats["draws"], 2 * 19);  // the default look: a depth pass for the shadows, then the crowd
  ASSERT_EQ(cpu.image.rgba.size(), gpu.image.rgba.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < cpu.image.rgba.size(); i += 4) {
    int worst = 0;
    for (std::size_t c = 0; c < 3; ++c)
      worst = std::max(worst, std::abs(int(cpu.image.rgba[i + c]) - int(gpu.image.rgba[i + c])));
    differing += worst > 2;
  }
  EXPECT_LE(differing, cpu.image.rgba.size() / 4 / 200);
}

// `common` followed by `extra`, run as `name`.
Render run_render_with(const std::string& name, std::vector<std::string> common,
                       const std::vector<std::string>& extra) {
  common.insert(common.end(), extra.begin(), extra.end());
  return run_render(name, common);
}

// render with `common` + `extra` must fail, its message containing every one of `words`.
void expect_render_fails(const std::string& name, const std::vector<std::string>& common,
                         const std::vector<std::string>& extra, const std::vector<std::string>& words) {
  const Render r = run_render_with(name, common, extra);
  EXPECT_NE(r.exit_code, 0) << name;
  for (const std::string& word : words) EXPECT_NE(r.output.find(word), std::string::npos) << r.output;
}

// --tints random gives every actor its own pastel tint: the same draws, a different image, and
// the tints in the statistics; bad values fail naming the option.
TEST(RenderTool, TintsChangeTheImageNotTheDraws) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const std::vector<std::string> common = {robot(), "--actors", "4", "--width", "128", "--height", "96"};
  Render plain = run_render("tints_none", common);
  Render tinted = run_render_with("tints_random", common, {"--tints", "random", "--tint-seed", "7"});
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  ASSERT_EQ(tinted.exit_code, 0) << tinted.output;
  EXPECT_EQ(tinted.stats.at("draws"), 19) << "tints never split a draw";
  EXPECT_EQ(tinted.stats.at("variant_draws"), 0);
  ASSERT_EQ(tinted.stats.at("tints").size(), 4u);
  EXPECT_NE(tinted.stats.at("tints")[0], tinted.stats.at("tints")[1]);
  for (const auto& t : tinted.stats.at("tints")) {
    for (int c = 0; c < 3; ++c) {
      EXPECT_GE(t[c].get<double>(), 0.55) << t;
      EXPECT_LE(t[c].get<double>(), 1.0) << t;
    }
  }
  EXPECT_EQ(plain.stats.at("tints")[0], nlohmann::json({1.0, 1.0, 1.0, 1.0}));
  EXPECT_GT(test::differing_fraction(tinted.image, plain.image), 0.02) << tinted.png;

  expect_render_fails("tints_bad", common, {"--tints", "blue"}, {"--tints"});
  expect_render_fails("variants_missing", common, {"--variants", "spread"}, {"unknown_variant", "--variants"});
}

// --variants spread on an asset with KHR_materials_variants (three variants of the upper quad):
// actor i gets variant i mod 3, the upper quad's group draws once per material in use.
TEST(RenderTool, VariantsSpreadDrawOncePerMaterial) {
  const auto dir = test::scratch_dir("render_variants_asset");
  const auto file = dir / "variants.glb";
  {
    const std::vector<std::uint8_t> glb = test::variant_glb();
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(glb.data()), static_cast<std::streamsize>(glb.size()));
  }
  const std::vector<std::string> common = {file.string(), "--actors", "6", "--width", "96", "--height", "72"};
  Render plain = run_render("variants_none", common);
  Render spread = run_render_with("variants_spread", common, {"--variants", "spread"});
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  ASSERT_EQ(spread.exit_code, 0) << spread.output;
  EXPECT_EQ(plain.stats.at("draws"), 2);
  EXPECT_EQ(plain.stats.at("material_variants")[0], "");
  EXPECT_EQ(spread.stats.at("material_variants"), nlohmann::json({"Red", "Green", "Blue", "Red", "Green", "Blue"}));
  EXPECT_EQ(spread.stats.at("draws"), 4) << "2 groups + 2 extra materials of the upper quad";
  EXPECT_EQ(spread.stats.at("variant_draws"), 2);
  EXPECT_GT(test::differing_fraction(spread.image, plain.image), 0.02) << spread.png;
  // With shadows, draws and variant_draws both count the depth pass too (its materials are
  // opaque): twice each, the depth pass's share of draws in shadow_draws.
  Render shadowed = run_render_with("variants_shadowed", common, {"--variants", "spread", "--shadows"});
  ASSERT_EQ(shadowed.exit_code, 0) << shadowed.output;
  EXPECT_EQ(shadowed.stats.at("draws"), 8);
  EXPECT_EQ(shadowed.stats.at("shadow_draws"), 4);
  EXPECT_EQ(shadowed.stats.at("variant_draws"), 4);
  expect_render_fails("variants_bad", common, {"--variants", "all"}, {"--variants"});
}

}  // namespace
}  // namespace gltf_crowd
