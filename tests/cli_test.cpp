// What a new user hit on the command line (issue 14, item 8): the built tool is run with bad
// arguments and its exit status and messages are checked, across subcommands. Every run has a
// `timeout`, so an argument that made the tool hang fails the test instead of hanging it.
#include <algorithm>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include <epoxy/gl.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"
#include "gltf_crowd/gl.hpp"
#include "gltf_crowd/version.hpp"
#include "handmade_gltf.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

using test::CommandOutput;
using test::quoted;

// The tool with `arguments` (quoted by the caller), standard output and error together.
CommandOutput tool(const std::string& arguments) {
  return test::run_command("timeout 120 " + quoted(test::tool_path().string()) + " " + arguments + " 2>&1");
}

// The built-in character as a GLB file in `dir`, written by the library (not by the tool under
// test, whose export-default options are themselves tested below).
std::string character_file(const std::filesystem::path& dir) {
  const std::vector<std::uint8_t> glb = default_character_glb();
  const auto file = dir / "character.glb";
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(glb.data()), static_cast<std::streamsize>(glb.size()));
  return file.string();
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(CliTool, NonFiniteNumbersAreRejectedNamingTheOption) {
  const auto dir = test::scratch_dir("cli_non_finite");
  const std::string asset = quoted(character_file(dir));
  const std::string out = quoted((dir / "x.png").string());
  const std::string glb = quoted((dir / "x.glb").string());
  struct Case {
    std::string arguments;
    std::string option;
  };
  const std::vector<Case> cases = {
      {"render --seconds nan --actors 1 --out " + out, "--seconds"},
      {"render --seconds inf --actors 1 --out " + out, "--seconds"},
      {"render --seconds 1e999 --actors 1 --out " + out, "--seconds"},
      {"render --lod --lod-bias nan --actors 1 --out " + out, "--lod-bias"},
      {"render --lod --lod-bias inf --actors 1 --out " + out, "--lod-bias"},
      {"render --lod --min-coverage nan --actors 1 --out " + out, "--min-coverage"},
      {"pose " + asset + " --clip 0 --time nan", "--time"},
      {"pose " + asset + " --clip 0 --time -inf", "--time"},
      {"lod " + asset + " --ratios 0.5,nan --out " + glb, "--ratios"},
      {"lod " + asset + " --ratios 0.5 --screen-coverage inf,0.1 --out " + glb, "--screen-coverage"},
  };
  for (const Case& c : cases) {
    const CommandOutput r = tool(c.arguments);
    EXPECT_EQ(r.exit_code, 2) << c.arguments << ": " << r.out;  // a usage error (not 124: the timeout)
    EXPECT_TRUE(contains(r.out, c.option + ": '")) << c.arguments << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "finite")) << c.arguments << ": " << r.out;
  }
  // Finite as a double but past what a float holds: said so, not called infinite.
  const CommandOutput big = tool("render --lod --lod-bias 1e39 --actors 1 --out " + out);
  EXPECT_EQ(big.exit_code, 2) << big.out;
  EXPECT_TRUE(contains(big.out, "--lod-bias: '1e39' is beyond the largest float; it must be finite")) << big.out;
  // Above 0 as a double but 0 as a float: the option says so, not the library's set_lod_bias.
  const CommandOutput tiny = tool("render --lod --lod-bias 1e-46 --actors 1 --out " + out);
  EXPECT_EQ(tiny.exit_code, 2) << tiny.out;
  EXPECT_TRUE(contains(tiny.out, "--lod-bias: '1e-46' is below the smallest float; it must be finite and > 0"))
      << tiny.out;
}

// Options that could not take effect as given (one that needs another, empty names, an output
// folder that does not exist) fail before any work, naming the option, and write nothing.
TEST(CliTool, OptionsThatCannotTakeEffectFailBeforeAnyWork) {
  const auto dir = test::scratch_dir("cli_no_effect");
  const std::string asset = quoted(character_file(dir));
  const std::string out = (dir / "x.png").string();
  const std::string missing_folder = (dir / "absent" / "x.png").string();
  const std::string glb = (dir / "x.glb").string();
  struct Case {
    std::string arguments;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"render --lod-bias 2", "--lod-bias requires --lod"},
      {"render --min-coverage 0", "--min-coverage requires --lod"},
      {"render --vertex-budget 1", "--vertex-budget requires --lod"},
      {"render --tint-seed 7", "--tint-seed requires --tints"},
      {"render --tints none --tint-seed 7", "--tint-seed: it seeds --tints random; --tints is none"},
      {"render --reference --palette texture", "excludes"},
      {"render --reference --animation gpu", "excludes"},
      {"render --reference --actors 10001 --out " + quoted(out),
       "--actors: 10001 actors: --reference draws each actor separately"},
      {"render --msaa 3", "--msaa: 3 not in {0,2,4,8,16}"},
      {"render --animation gpu --gl 3.3", "--animation: gpu needs compute shaders: --gl 4.3 [gl_version]"},
      {"render --palette storage --gl es3.0", "--palette: storage needs shader storage buffers"},
      {"render --skinned-vertex-cache --gl 3.3", "--skinned-vertex-cache: the cache needs transform feedback"},
      {"render --video '' --frames 3", "--video: it must be a file name, not empty"},
      {"render --stats ''", "--stats: it must be a file name, not empty"},
      {"render ''", "it must not be empty"},
      {"render --out " + quoted(missing_folder), "--out: folder '" + (dir / "absent").string() + "' does not exist"},
      {"render --out " + quoted(dir.string()), "is a folder, not a file"},
      {"render --seconds 3601", "--seconds: '3601' is out of range"},
      {"pose " + asset + " --clip ''", "--clip: it must not be empty"},
      {"pose " + asset + " --script " + quoted(dir.string()), "--script: File is actually a directory"},
      {"bench --layer-mask Spine", "--layer-mask requires --layer"},
      {"studio --frames 1 --assets " + quoted((dir / "absent").string()), "--assets: Directory does not exist"},
      {"studio --screenshot " + quoted(out), "--screenshot requires --frames"},
      {"studio --frames 0 --screenshot " + quoted(out), "--frames 0 is interactive"},
      {"export-default --out " + quoted(missing_folder), "--out: folder"},
      // CLI11's delimiter dropped empty items: "0.5,,0.25" made two levels, not an error.
      {"lod " + asset + " --ratios 0.5,,0.25 --out " + quoted(glb), "--ratios: item 2 of '0.5,,0.25' is empty"},
      {"lod " + asset + " --ratios 0.5, --out " + quoted(glb), "--ratios: item 2 of '0.5,' is empty"},
      {"lod " + asset + " --ratios 0.5 --screen-coverage ,0.1 --out " + quoted(glb),
       "--screen-coverage: item 1 of ',0.1' is empty"},
  };
  for (const Case& c : cases) {
    const std::string arguments = c.arguments.rfind("render", 0) == 0 && c.arguments.find("--out") == std::string::npos
                                      ? c.arguments + " --actors 1 --out " + quoted(out)
                                      : c.arguments;
    const CommandOutput r = tool(arguments);
    EXPECT_EQ(r.exit_code, 2) << arguments << ": " << r.out;  // a usage error, CLI11's or the tool's
    EXPECT_EQ(r.out.rfind("gltf-crowd: error: ", 0), 0u) << arguments << ": " << r.out;
    EXPECT_TRUE(contains(r.out, c.message)) << arguments << ": " << r.out;
    EXPECT_FALSE(std::filesystem::exists(out)) << arguments << " rendered";
    EXPECT_FALSE(std::filesystem::exists(glb)) << arguments << " wrote levels";
  }
}

// `pose --animation gpu` selects the clip by name, as actors do: a clip whose name is an earlier
// clip's (here two unnamed clips) cannot be posed that way, and says so instead of posing clip 0.
TEST(CliTool, GpuPoseRefusesAClipWithoutAUniqueName) {
  const auto dir = test::scratch_dir("cli_gpu_pose_names");
  const nlohmann::json nodes = nlohmann::json::array({{{"name", "a"}}, {{"name", "b"}}});
  const auto file = dir / "unnamed.gltf";
  const std::vector<std::uint8_t> gltf =
      test::handmade_gltf(nodes, {{"", {{0, "translation", "LINEAR", {0.0f, 1.0f}, {0, 0, 0, 1, 0, 0}}}},
                                  {"", {{1, "translation", "LINEAR", {0.0f, 1.0f}, {0, 0, 0, 0, 2, 0}}}}});
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(gltf.data()), static_cast<std::streamsize>(gltf.size()));
  const CommandOutput r = tool("pose " + quoted(file.string()) + " --clip 1 --time 1 --json --animation gpu");
  EXPECT_EQ(r.exit_code, 2) << r.out;  // a usage error: the option names a clip that cannot be posed so
  EXPECT_TRUE(contains(r.out, "--clip: clip 1 has no name of its own")) << r.out;
  EXPECT_TRUE(contains(r.out, "[unknown_clip]")) << r.out;
  const CommandOutput cpu = tool("pose " + quoted(file.string()) + " --clip 1 --time 1 --json");
  EXPECT_EQ(cpu.exit_code, 0) << cpu.out;
}

// A missing asset is a command line that cannot work as given (docs/spec.md §8): exit status 2
// in every command, with the loader's file_open message naming the file.
TEST(CliTool, MissingAssetGivesOneMessageAndExitCodeEverywhere) {
  const auto dir = test::scratch_dir("cli_missing");
  const std::string missing = (dir / "absent.glb").string();
  const std::string expected = "gltf-crowd: error: " + missing + ": is not a readable file [file_open]";
  for (const std::string& arguments :
       {"render " + quoted(missing) + " --actors 1 --out " + quoted((dir / "x.png").string()),
        "info " + quoted(missing), "pose " + quoted(missing),
        "lod " + quoted(missing) + " --out " + quoted((dir / "x.glb").string()),
        "bench " + quoted(missing) + " --actors 1 --frames 1"}) {
    const CommandOutput r = tool(arguments);
    EXPECT_EQ(r.exit_code, 2) << arguments << ": " << r.out;
    EXPECT_TRUE(contains(r.out, expected)) << arguments << ": " << r.out;
  }
}

// An error inside a file names the file before the offending object, in every command that
// loads one: a GLB header whose length runs past the end of its 12 bytes (glTF 2.0 §4.4.3.1,
// "length MUST be equal to the total length of the file").
TEST(CliTool, AssetErrorsNameTheFile) {
  const auto dir = test::scratch_dir("cli_truncated");
  const std::string file = (dir / "truncated.glb").string();
  const std::uint32_t header[3] = {0x46546C67u, 2u, 100u};  // "glTF", version 2, 100 bytes
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(header), sizeof header);
  const std::string expected = "gltf-crowd: error: " + file + ": glb.length: ";
  for (const std::string& arguments :
       {"render " + quoted(file) + " --actors 1 --out " + quoted((dir / "x.png").string()), "info " + quoted(file),
        "pose " + quoted(file), "lod " + quoted(file) + " --out " + quoted((dir / "x.glb").string()),
        "bench " + quoted(file) + " --actors 1 --frames 1"}) {
    const CommandOutput r = tool(arguments);
    EXPECT_EQ(r.exit_code, 1) << arguments << ": " << r.out;
    EXPECT_TRUE(contains(r.out, expected)) << arguments << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "[glb_length]")) << arguments << ": " << r.out;
  }
}

// The 8-byte PNG signature and the start of an IHDR chunk, as a file named .glb.
std::filesystem::path png_named_glb(const std::filesystem::path& dir) {
  const unsigned char bytes[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 13, 'I', 'H', 'D',
                                 'R',  0,   0,   0,   1,    0,    0,    0,    1, 8, 6, 0,  0,   0};
  const auto file = dir / "picture.glb";
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes), sizeof bytes);
  return file;
}

TEST(CliTool, PngRenamedGlbIsNotAGltfFile) {
  const auto dir = test::scratch_dir("cli_png");
  const auto file = png_named_glb(dir);
  try {
    (void)load_asset(file);
    ADD_FAILURE() << "a PNG loaded";
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "not_gltf") << e.what();
    EXPECT_EQ(e.path(), file.string()) << e.what();
    EXPECT_TRUE(contains(e.what(), "not a glTF or GLB file")) << e.what();
  }
  for (const std::string& arguments :
       {"info " + quoted(file.string()),
        "render " + quoted(file.string()) + " --actors 1 --out " + quoted((dir / "x.png").string())}) {
    const CommandOutput r = tool(arguments);
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_TRUE(contains(r.out, file.string() + ": not a glTF or GLB file")) << r.out;
    EXPECT_TRUE(contains(r.out, "[not_gltf]")) << r.out;
  }
}

TEST(CliTool, CountsThatAreNotIntegersSaySo) {
  for (const char* arguments : {"render --actors abc", "render --actors 1.5", "bench --actors abc",
                                "bench --frames 2.5", "studio --capacity ten"}) {
    const CommandOutput r = tool(arguments);
    EXPECT_EQ(r.exit_code, 2) << arguments << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "is not an integer")) << arguments << ": " << r.out;
    EXPECT_FALSE(contains(r.out, "not in range")) << arguments << ": " << r.out;
  }
  const CommandOutput zero = tool("render --actors 0");
  EXPECT_EQ(zero.exit_code, 2) << zero.out;
  EXPECT_TRUE(contains(zero.out, "--actors: '0' is out of range; it must be an integer in [1, 1000000]")) << zero.out;
}

TEST(CliTool, LodBiasZeroHasAReadableMessage) {
  const CommandOutput r = tool("render --lod --lod-bias 0");
  EXPECT_GT(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "--lod-bias: '0' is out of range; it must be finite and > 0")) << r.out;
  EXPECT_FALSE(std::regex_search(r.out, std::regex("[0-9]{20}"))) << "an absurd number: " << r.out;
}

// A mistyped command is named, with the commands there are; a right one with a wrong option is
// CLI11's message as before.
TEST(CliTool, AMistypedCommandIsNamed) {
  const CommandOutput r = tool("rendr robot.glb");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "'rendr' is not a command; the commands are render, ")) << r.out;
  for (const char* command : {"info", "pose", "lod", "studio", "bench"}) EXPECT_TRUE(contains(r.out, command)) << r.out;
  const CommandOutput option = tool("render --actorz 5");
  EXPECT_EQ(option.exit_code, 2) << option.out;
  EXPECT_TRUE(contains(option.out, "gltf-crowd: error: The following argument was not expected: --actorz"))
      << option.out;
  EXPECT_TRUE(contains(option.out, "--actorz")) << option.out;
  EXPECT_FALSE(contains(option.out, "is not a command")) << option.out;
  // Help asked for after the word is help, as CLI11 gives it.
  const CommandOutput help = tool("rendr --help");
  EXPECT_EQ(help.exit_code, 0) << help.out;
  EXPECT_FALSE(contains(help.out, "is not a command")) << help.out;
}

// An unknown option before any command is named as such (it said "A subcommand is required"),
// with where a command's options go; no command at all still asks for one.
TEST(CliTool, AnUnknownOptionBeforeTheCommandIsNamed) {
  for (const std::string option : {"--bogus", "-x"}) {
    const CommandOutput r = tool(option);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_TRUE(contains(r.out, "gltf-crowd: error: unknown option '" + option + "'")) << r.out;
    EXPECT_TRUE(contains(r.out, "the commands are render, ")) << r.out;
    EXPECT_FALSE(contains(r.out, "A subcommand is required")) << r.out;
  }
  const CommandOutput none = tool("");
  EXPECT_EQ(none.exit_code, 2) << none.out;
  EXPECT_TRUE(contains(none.out, "A subcommand is required")) << none.out;
}

TEST(CliTool, VersionPrintsTheProjectVersion) {
  const CommandOutput r = tool("--version");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  std::string line = r.out;
  while (!line.empty() && line.back() == '\n') line.pop_back();
  EXPECT_TRUE(std::regex_match(line, std::regex(R"(gltf-crowd [0-9]+\.[0-9]+\.[0-9]+)"))) << line;
  EXPECT_EQ(line, std::string("gltf-crowd ") + GLTF_CROWD_VERSION_STRING);
}

// The exit status convention (docs/spec.md §8): a command line that cannot work as given exits
// with 2, CLI11's rejections and the tool's own checks alike, each as "gltf-crowd: error: ..."; a
// failure while working (here loading) with 1; help with 0. --help states the convention.
TEST(CliTool, UsageErrorsExitWithTwoAndFailuresWithOne) {
  const auto dir = test::scratch_dir("cli_exit_status");
  const std::string png = quoted((dir / "x.png").string());
  for (const std::string& arguments :
       {std::string(""), std::string("render --actors"), std::string("info"), "render --bogus --out " + png,
        "pose --animation gpu " + quoted(character_file(dir)),
        std::string("bench --records-only --actors 1 --frames 1"),
        "render --animation gpu --gl es3.0 --actors 1 --out " + png, "info " + quoted((dir / "absent.glb").string())}) {
    const CommandOutput r = tool(arguments);
    EXPECT_EQ(r.exit_code, 2) << arguments << ": " << r.out;
    EXPECT_EQ(r.out.rfind("gltf-crowd: error: ", 0), 0u) << arguments << ": " << r.out;
  }
  // A file that opens but does not load fails while working.
  const auto empty = dir / "empty.glb";
  std::ofstream{empty};
  const CommandOutput broken = tool("info " + quoted(empty.string()));
  EXPECT_EQ(broken.exit_code, 1) << broken.out;
  const CommandOutput help = tool("--help");
  EXPECT_EQ(help.exit_code, 0) << help.out;
  EXPECT_TRUE(contains(help.out, "2 for a command line that cannot work as given")) << help.out;
  EXPECT_TRUE(contains(help.out, "an asset file that cannot be opened, a clip, node or variant the asset lacks"))
      << help.out;
  EXPECT_TRUE(contains(help.out, "1 for a failure while working")) << help.out;
}

TEST(CliTool, ScreenCoverageNeedsOneThresholdPerLevel) {
  const auto dir = test::scratch_dir("cli_coverage");
  const std::string asset = quoted(character_file(dir));
  const std::string out = quoted((dir / "x.glb").string());
  // The built-in character reduces at these ratios: levels = ratios + 1.
  // A count that cannot match is a usage error, found before loading (exit 2), named by the option.
  const CommandOutput fewer = tool("lod " + asset + " --ratios 0.5,0.25 --screen-coverage 0.5 --out " + out);
  EXPECT_EQ(fewer.exit_code, 2) << fewer.out;
  EXPECT_TRUE(contains(fewer.out, "gltf-crowd: error: --screen-coverage: 1 threshold for 3 levels")) << fewer.out;
  EXPECT_TRUE(contains(fewer.out, "[lod_screen_coverage_count]")) << fewer.out;
  const CommandOutput more = tool("lod " + asset + " --ratios 0.5 --screen-coverage 0.5,0.2,0.01 --out " + out);
  EXPECT_EQ(more.exit_code, 2) << more.out;
  EXPECT_TRUE(contains(more.out, "3 thresholds for 2 levels")) << more.out;
  // So are values the levels cannot take, each named by its option, not the library's field.
  for (const auto& [options, expected] : std::vector<std::pair<std::string, std::string>>{
           {"--ratios 0.5,0.7", "--ratios: 0.7 must be in (0, 1)"},
           {"--ratios 1.5", "--ratios: 1.5 must be in (0, 1)"},
           {"--ratios 0.5 --screen-coverage 0.1,0.5", "--screen-coverage: 0.5 must be finite"},
           {"--pixel-error -1", "--pixel-error: -1 must be finite and > 0"},
           {"--viewport-pixels 0", "--viewport-pixels: 0 must be finite and > 0"}}) {
    const CommandOutput bad = tool("lod " + asset + " " + options + " --out " + out);
    EXPECT_EQ(bad.exit_code, 2) << options << ": " << bad.out;
    EXPECT_TRUE(contains(bad.out, "gltf-crowd: error: " + expected)) << options << ": " << bad.out;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "x.glb"));
  const CommandOutput matching = tool("lod " + asset + " --ratios 0.5 --screen-coverage 0.4,0.05 --out " + out);
  EXPECT_EQ(matching.exit_code, 0) << matching.out;
  EXPECT_TRUE(contains(matching.out, "screen coverage [0.4, 0.05]")) << matching.out;
}

// 100 built-in characters on a 10 × 10 grid, with coverage scaled by a bias of 0.05 (as a crowd
// of thousands would be): the farther ones fall below the default last threshold, 0.01, and are
// culled, unless --min-coverage 0.
TEST(CliTool, RenderLodReportsCulledActorsAndMinCoverageZeroKeepsThem) {
  const auto dir = test::scratch_dir("cli_min_coverage");
  const std::string common =
      "render --lod --lod-bias 0.05 --actors 100 --seconds 0 --width 64 --height 64 "
      "--msaa 0 --out " +
      quoted((dir / "x.png").string()) + " --stats ";
  const CommandOutput culling = tool(common + quoted((dir / "default.json").string()));
  ASSERT_EQ(culling.exit_code, 0) << culling.out;
  const auto stats = nlohmann::json::parse(std::ifstream(dir / "default.json"));
  const std::uint32_t visible = stats["lod"]["visible_actors"], culled = stats["lod"]["culled_actors"];
  EXPECT_EQ(visible + culled, 100u);
  EXPECT_GT(culled, 0u) << "no actor is small enough to be culled: the test needs a larger crowd";
  EXPECT_NEAR(stats["min_coverage"].get<double>(), 0.01, 1e-6);
  EXPECT_TRUE(
      contains(culling.out, "lod: " + std::to_string(visible) + " visible, " + std::to_string(culled) + " culled"))
      << culling.out;

  const CommandOutput all = tool(common + quoted((dir / "all.json").string()) + " --min-coverage 0");
  ASSERT_EQ(all.exit_code, 0) << all.out;
  const auto kept = nlohmann::json::parse(std::ifstream(dir / "all.json"));
  EXPECT_EQ(kept["lod"]["visible_actors"], 100);
  EXPECT_EQ(kept["lod"]["culled_actors"], 0);
  EXPECT_EQ(kept["min_coverage"], 0.0);
  EXPECT_TRUE(contains(all.out, "lod: 100 visible, 0 culled")) << all.out;

  const CommandOutput negative = tool(common + quoted((dir / "n.json").string()) + " --min-coverage -0.1");
  EXPECT_GT(negative.exit_code, 0) << negative.out;
  EXPECT_TRUE(contains(negative.out, "--min-coverage: '-0.1' is out of range; it must be finite and >= 0"))
      << negative.out;
}

// The palette limits of docs/spec.md §6, from the GL limits and the built-in character's skins and morph
// targets: a storage buffer array takes 48 bytes per joint (3 vec4 rows) or 4 bytes per morph
// weight (padded to 4) of each actor; a texture takes one texel row per actor.
struct ExpectedLimits {
  std::uint64_t storage = 0;
  std::uint64_t texture = 0;
};

ExpectedLimits expected_limits() {
  const Asset asset = load_asset_from_memory(default_character_glb());
  std::uint64_t per_actor = 48;  // the transform rows
  for (const Skin& skin : asset.skins) per_actor = std::max<std::uint64_t>(per_actor, 48 * skin.joints.size());
  for (const Mesh& mesh : asset.meshes)
    if (!mesh.primitives.empty())
      per_actor = std::max<std::uint64_t>(per_actor, 4 * ((mesh.primitives[0].targets.size() + 3) / 4 * 4));
  GLint64 block = 0;
  GLint side = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &side);
  return {static_cast<std::uint64_t>(block) / per_actor, static_cast<std::uint64_t>(side)};
}

TEST(CliTool, RenderRefusesMoreActorsThanThePalettesHold) {
  const HeadlessContext context;
  const ExpectedLimits limits = expected_limits();
  auto character = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  const Crowd probe(character, {.capacity = 1});
  EXPECT_EQ(crowd_capacity_limit(probe, PaletteStorage::storage_buffer).actors, limits.storage);
  EXPECT_EQ(crowd_capacity_limit(probe, PaletteStorage::texture).actors, limits.texture);

  const auto dir = test::scratch_dir("cli_actor_limit");
  struct Case {
    std::uint64_t limit;
    std::string palette;
    std::string gl_limit;
  };
  for (const Case& c : {Case{limits.storage, "storage", "GL_MAX_SHADER_STORAGE_BLOCK_SIZE"},
                        Case{limits.texture, "texture", "GL_MAX_TEXTURE_SIZE"}}) {
    if (c.limit + 1 > 1'000'000) continue;  // the tool's own maximum comes first
    const CommandOutput r = tool("render --actors " + std::to_string(c.limit + 1) + " --palette " + c.palette +
                                 " --width 16 --height 16 --out " + quoted((dir / "x.png").string()));
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_TRUE(contains(r.out, "[too_many_actors]")) << r.out;
    EXPECT_TRUE(contains(r.out, std::to_string(c.limit + 1) + " actors exceed the " + std::to_string(c.limit)))
        << r.out;
    EXPECT_TRUE(contains(r.out, c.gl_limit)) << r.out;
    EXPECT_FALSE(std::filesystem::exists(dir / "x.png"));
  }
  // bench's GPU evaluation refuses the same count before building its crowd (it used to fail
  // in the renderer, naming a node stream instead of --actors).
  if (limits.storage + 1 <= 1'000'000) {
    const CommandOutput r =
        tool("bench --animation gpu --frames 1 --warmup 0 --actors " + std::to_string(limits.storage + 1));
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_TRUE(contains(r.out, "--actors: " + std::to_string(limits.storage + 1) + " actors exceed the " +
                                    std::to_string(limits.storage)))
        << r.out;
    EXPECT_TRUE(contains(r.out, "[too_many_actors]")) << r.out;
  }
  // The instanced renderer agrees: at the texture limit it builds, one more actor it refuses.
  Crowd at_limit(character, {.capacity = limits.texture});
  EXPECT_NO_THROW({ CrowdRenderer renderer(at_limit, {.palette = PaletteStorage::texture}); });
  Crowd over(character, {.capacity = limits.texture + 1});
  try {
    CrowdRenderer renderer(over, {.palette = PaletteStorage::texture});
    ADD_FAILURE() << "a texture palette of " << limits.texture + 1 << " rows was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "palette_too_large") << e.what();
  }
  const CommandOutput help = tool("render --help");
  EXPECT_TRUE(contains(help.out, "GL_MAX_SHADER_STORAGE_BLOCK_SIZE")) << help.out;
  EXPECT_TRUE(contains(help.out, "GL_MAX_TEXTURE_SIZE")) << help.out;
}

TEST(CliTool, ExportDefaultWritesToOut) {
  const auto dir = test::scratch_dir("cli_export_default");
  for (const std::string flag : {"--out", "-o"}) {
    const auto file = dir / ("character" + flag + ".glb");
    const CommandOutput r = tool("export-default " + flag + " " + quoted(file.string()));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(load_asset(file).clips.size(), load_asset_from_memory(default_character_glb()).clips.size());
  }
  EXPECT_GT(tool("export-default").exit_code, 0) << "the output is required";
}

// A command writes one format: an output named for another fails before any work, naming the
// option, and writes nothing (render --out crowd.jpg wrote a PNG under that name); upper case
// extensions are the same format.
TEST(CliTool, OutputNamesEndInTheFormatWritten) {
  const auto dir = test::scratch_dir("cli_out_extension");
  const std::string asset = quoted(character_file(dir));
  struct Case {
    std::string arguments;
    std::string file;
    std::string message;
  };
  const std::vector<Case> refused = {
      {"render --actors 1 --out", "crowd.jpg", "--out: '{}' does not end in .png: render writes a PNG image"},
      {"render --actors 1 --out", "crowd", "--out: '{}' does not end in .png"},
      {"render --actors 1 --video " + quoted((dir / "x.mp4").string()) + " --frames 2 --out", "last.txt",
       "--out: '{}' does not end in .png"},
      {"studio --frames 1 --screenshot", "shot.bmp", "--screenshot: '{}' does not end in .png: studio writes"},
      {"export-default --out", "character.gltf", "--out: '{}' does not end in .glb: export-default writes"},
      {"lod " + asset + " --out", "levels.gltf", "--out: '{}' does not end in .glb: lod writes a self-contained GLB"},
      // Statistics are JSON: without an asset, `render --stats crowd.glb` replaced crowd.glb.
      {"render --actors 1 --out " + quoted((dir / "x.png").string()) + " --stats", "crowd.glb",
       "--stats: '{}' does not end in .json: render writes JSON statistics"},
      {"studio --frames 1 --stats", "stats.txt", "--stats: '{}' does not end in .json: studio writes JSON statistics"},
  };
  for (const Case& c : refused) {
    const std::string file = (dir / c.file).string();
    const std::string arguments = c.arguments + " " + quoted(file);
    const CommandOutput r = tool(arguments);
    EXPECT_EQ(r.exit_code, 2) << arguments << ": " << r.out;
    std::string message = c.message;
    message.replace(message.find("{}"), 2, file);
    EXPECT_TRUE(contains(r.out, message)) << arguments << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "[out_extension]")) << arguments << ": " << r.out;
    EXPECT_FALSE(std::filesystem::exists(file)) << arguments << " wrote it";
  }
  const auto upper = dir / "CHARACTER.GLB";
  const CommandOutput r = tool("export-default --out " + quoted(upper.string()));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "wrote the built-in character to " + upper.string())) << r.out;
  EXPECT_NO_THROW(load_asset(upper));
}

// An output that names the command's input, or another of its outputs, fails before any work,
// naming the option and both files: lod --out equal to its asset replaced the asset, and render
// --stats equal to --out left JSON where the picture was.
TEST(CliTool, OutputsNeverOverwriteTheInputOrEachOther) {
  const auto dir = test::scratch_dir("cli_out_overwrites");
  const std::string asset = character_file(dir);
  const auto bytes = [](const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string original = bytes(asset);
  const std::string png = (dir / "crowd.png").string();
  const std::string relative = "cli_out_overwrites_crowd.png";  // in the working directory
  std::filesystem::remove(relative);
  // The asset by another name: a relative path through the folder's parent.
  const std::string alias = (dir / ".." / dir.filename() / "character.glb").string();
  struct Case {
    std::string arguments;
    std::string message;
  };
  const std::vector<Case> refused = {
      {"lod " + quoted(asset) + " --out " + quoted(asset),
       "--out: '" + asset + "' is the same file as asset '" + asset + "', which this command reads"},
      {"lod " + quoted(asset) + " --out " + quoted(alias), "--out: '" + alias + "' is the same file as asset"},
      {"render " + quoted(asset) + " --actors 1 --out " + quoted(png) + " --stats " + quoted(asset),
       "--stats: '" + asset + "' is the same file as asset"},
      {"render --actors 1 --out " + quoted(png) + " --stats " + quoted(png),
       "--stats: '" + png + "' is the same file as --out '" + png + "', which this command also writes"},
      // Neither exists yet: one relative to the working directory, one absolute.
      {"render --actors 1 --out " + relative + " --stats " + quoted(std::filesystem::absolute(relative).string()),
       "is the same file as --out '" + relative + "', which this command also writes"},
      {"studio " + quoted(asset) + " --frames 1 --stats " + quoted(asset), "--stats: '" + asset + "' is the same file"},
  };
  for (const Case& c : refused) {
    const CommandOutput r = tool(c.arguments);
    EXPECT_EQ(r.exit_code, 2) << c.arguments << ": " << r.out;
    EXPECT_TRUE(contains(r.out, c.message)) << c.arguments << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "[out_overwrites]")) << c.arguments << ": " << r.out;
    EXPECT_EQ(bytes(asset), original) << c.arguments << " changed the asset";
    EXPECT_FALSE(std::filesystem::exists(png)) << c.arguments << " wrote the picture";
    EXPECT_FALSE(std::filesystem::exists(relative)) << c.arguments << " wrote the picture";
  }
  // Different files pass the check.
  const std::string levels = (dir / "levels.glb").string();
  const CommandOutput lod = tool("lod " + quoted(asset) + " --out " + quoted(levels));
  EXPECT_EQ(lod.exit_code, 0) << lod.out;
  EXPECT_TRUE(std::filesystem::exists(levels));
}

// The files a .gltf's buffers and images read are inputs too (issue 57): an output naming one, by
// its path, through another relative path or through a symbolic link, is refused before anything is
// written, naming the option, the file and the object that reads it. (render --out could replace
// the asset's texture; lod --out a buffer whose file ends in .glb.)
TEST(CliTool, OutputsNeverOverwriteTheAssetsExternalFiles) {
  const auto dir = test::scratch_dir("cli_out_overwrites_external");
  std::filesystem::create_directory(dir / "x");
  nlohmann::json doc = nlohmann::json::parse(
      test::handmade_gltf(nlohmann::json::array({{{"mesh", 0}}}),
                          {{"move", {{0, "translation", "LINEAR", {0.0f, 1.0f}, {0, 0, 0, 1, 0, 0}}}}}, true));
  const auto write = [](const std::filesystem::path& file, const std::vector<std::uint8_t>& bytes) {
    std::ofstream(file, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  };
  const std::string data = doc["buffers"][0]["uri"].get<std::string>();
  write(dir / "robot.bin", detail::base64_decode(data.substr(data.find(',') + 1)));
  write(dir / "extra.glb", {1, 2, 3, 4});  // a buffer nothing reads, named like lod's output
  doc["buffers"][0]["uri"] = "robot.bin";
  doc["buffers"].push_back({{"uri", "extra.glb"}, {"byteLength", 4}});
  const std::vector<std::uint8_t> white = {255, 255, 255, 255};
  write_png(dir / "skin map.png", 1, 1, white);
  doc["images"] = {{{"uri", "skin%20map.png"}}};  // percent-decoded, as the loader reads it
  const std::string asset = (dir / "robot.gltf").string();
  std::ofstream(asset) << doc.dump();
  std::filesystem::create_symlink("skin map.png", dir / "link.png");
  const auto bytes = [](const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string bin = bytes(dir / "robot.bin"), glb = bytes(dir / "extra.glb"), png = bytes(dir / "skin map.png");
  const std::string image = (dir / "skin map.png").string(), buffer = (dir / "extra.glb").string();
  const std::string render = "render " + quoted(asset) + " --actors 1 --out ";
  struct Case {
    std::string arguments;
    std::string message;
  };
  const std::vector<Case> refused = {
      {render + quoted(image),
       "--out: '" + image + "' is the same file as the asset's images[0] '" + image + "', which this command reads"},
      {render + quoted((dir / "x" / ".." / "skin map.png").string()), "is the same file as the asset's images[0]"},
      {render + quoted((dir / "link.png").string()), "is the same file as the asset's images[0]"},
      {"lod " + quoted(asset) + " --out " + quoted(buffer),
       "--out: '" + buffer + "' is the same file as the asset's buffers[1] '" + buffer + "', which this command reads"},
      {"lod " + quoted(asset) + " --out " + quoted((dir / "." / "x" / ".." / "extra.glb").string()),
       "is the same file as the asset's buffers[1]"},
  };
  for (const Case& c : refused) {
    const CommandOutput r = tool(c.arguments);
    EXPECT_EQ(r.exit_code, 2) << c.arguments << ": " << r.out;
    EXPECT_TRUE(contains(r.out, c.message)) << c.arguments << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "[out_overwrites]")) << c.arguments << ": " << r.out;
  }
  // robot.bin is no name any output takes (out_extension refuses it first).
  const CommandOutput stats =
      tool(render + quoted((dir / "crowd.png").string()) + " --stats " + quoted((dir / "robot.bin").string()));
  EXPECT_EQ(stats.exit_code, 2) << stats.out;
  EXPECT_EQ(bytes(dir / "robot.bin"), bin);
  EXPECT_EQ(bytes(dir / "extra.glb"), glb);
  EXPECT_EQ(bytes(dir / "skin map.png"), png);
  EXPECT_FALSE(std::filesystem::exists(dir / "crowd.png"));
  // Another name passes: the asset itself loads and draws.
  const CommandOutput drawn = tool(render + quoted((dir / "crowd.png").string()));
  EXPECT_EQ(drawn.exit_code, 0) << drawn.out;
}

// What bench hands to the library for an option fails under that option's name, not under the
// API field it fills (it said root_motion.node, add_mask.branches[0].node and bench.crossfade),
// as a usage error (exit status 2): the option names what the asset lacks.
TEST(CliTool, BenchErrorsNameTheOption) {
  const auto dir = test::scratch_dir("cli_bench_option_errors");
  const auto still = dir / "still.gltf";  // one triangle, no clip
  std::ofstream(still)
      << R"({"asset":{"version":"2.0"},"scenes":[{"nodes":[0]}],"nodes":[{"name":"n","mesh":0}],)"
         R"("meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"accessors":[{"bufferView":0,)"
         R"("componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}],)"
         R"("bufferViews":[{"buffer":0,"byteLength":36}],"buffers":[{"byteLength":36,"uri":)"
         R"("data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA"}]})";
  const std::pair<std::string, std::string> cases[] = {
      {"bench --root-motion Nope", "--root-motion: no node named \"Nope\"; closest: "},
      {"bench --layer additive --layer-mask Nope", "--layer-mask: no node named \"Nope\"; closest: "},
      {"bench " + quoted(still.string()) + " --crossfade", "--crossfade: a crossfade needs an asset with at least one"},
      {"bench " + quoted(still.string()) + " --layer override", "--layer: a layer needs a clip"},
  };
  for (const auto& [arguments, message] : cases) {
    const CommandOutput r = tool(arguments + " --actors 2 --frames 1 --warmup 0");
    EXPECT_EQ(r.exit_code, 2) << arguments << ": " << r.out;
    EXPECT_TRUE(contains(r.out, message)) << arguments << ": " << r.out;
  }
}

// Node options take an index as well as a name or path (docs/spec.md §2.3), as pose scripts do:
// bench --root-motion 10 said 'no node named "10"'. An index past the nodes names both.
TEST(CliTool, NodeOptionsTakeAnIndex) {
  const std::vector<std::uint8_t> glb = default_character_glb();
  const Asset asset = load_asset_from_memory(glb);
  const std::string hips = std::to_string(asset.find_node("Hips"));
  const std::string spine = std::to_string(asset.find_node("Spine"));
  ASSERT_NE(hips, "-1");
  ASSERT_NE(spine, "-1");
  for (const std::string& arguments : {"bench --root-motion " + hips, "bench --layer additive --layer-mask " + spine,
                                       "bench --root-motion " + hips + " --layer override --layer-mask " + spine +
                                           " --animation gpu --records-only"}) {
    const CommandOutput r = tool(arguments + " --actors 2 --frames 1 --warmup 0 --json");
    EXPECT_EQ(r.exit_code, 0) << arguments << ": " << r.out;
  }
  const std::string past = std::to_string(asset.nodes.size());
  const CommandOutput r = tool("bench --root-motion " + past + " --actors 2 --frames 1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "--root-motion: no node named \"" + past + "\", and no node " + past +
                                  " (the asset has " + past + " nodes, 0 to " + std::to_string(asset.nodes.size() - 1) +
                                  "); closest: "))
      << r.out;
  EXPECT_TRUE(contains(r.out, "[unknown_node]")) << r.out;
  const CommandOutput studio = test::run_command(
      "env -u DISPLAY -u WAYLAND_DISPLAY timeout 120 " + quoted(test::tool_path().string()) + " studio --assets " +
      quoted(test::scratch_dir("cli_node_index").string()) + " --frames 1 --set root-motion=" + past + " 2>&1");
  EXPECT_EQ(studio.exit_code, 2) << studio.out;
  EXPECT_TRUE(contains(studio.out, "--set root-motion: no node named \"" + past + "\", and no node " + past))
      << studio.out;
}

// An option that names what the asset lacks (a clip, material variants) is a usage error (exit
// status 2) named by the option, not a failure while working named by a library path.
TEST(CliTool, NamesTheAssetLacksAreUsageErrors) {
  const auto dir = test::scratch_dir("cli_asset_names");
  const std::string asset = quoted(character_file(dir));
  const std::string png = quoted((dir / "x.png").string());
  const std::pair<std::string, std::string> cases[] = {
      {"pose " + asset + " --clip Nope", "gltf-crowd: error: --clip: no clip named or numbered \"Nope\"; available: "},
      {"render --variants spread --actors 1 --out " + png,
       "gltf-crowd: error: --variants: the asset has no material variants"},
  };
  for (const auto& [arguments, message] : cases) {
    const CommandOutput r = tool(arguments);
    EXPECT_EQ(r.exit_code, 2) << arguments << ": " << r.out;
    EXPECT_TRUE(contains(r.out, message)) << arguments << ": " << r.out;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "x.png"));
}

// The studio checks its settings against the model before it opens a window (issue 57): a --set
// value naming what the model lacks, or a missing asset, is a usage error named by its key, the
// same without a display (it failed on the display before, or once open with exit status 1).
TEST(CliTool, StudioUsageErrorsComeBeforeTheDisplay) {
  const auto dir = test::scratch_dir("cli_studio_usage");
  const std::string studio = "studio --frames 1 --assets " + quoted(dir.string()) + " ";  // the built-in model
  const std::pair<std::string, std::string> cases[] = {
      {"--set clip=Nope", "--set clip: no clip named \"Nope\"; available: "},
      {"--set select=actor-1 --set actor.clip=Nope", "--set actor.clip: no clip named \"Nope\""},
      {"--set select=actor-1 --set actor.layer.clip=Nope", "--set actor.layer.clip: no clip named \"Nope\""},
      {"--set root-motion=Nope", "--set root-motion: no node named \"Nope\"; closest: "},
      {"--set select=actor-1 --set actor.layer.mask=Nope", "--set actor.layer.mask: no node named \"Nope\""},
      {"--set actors=4 --set select=0", "--set select: no actor has the id '0' (4 actors: actor-0 to actor-3)"},
      {"--set variants=spread", "--set variants: the asset has no material variants"},
      {quoted((dir / "absent.glb").string()), (dir / "absent.glb").string() + ": is not a readable file [file_open]"},
  };
  for (const auto& [arguments, message] : cases) {
    const CommandOutput r = test::run_command("env -u DISPLAY -u WAYLAND_DISPLAY timeout 120 " +
                                              quoted(test::tool_path().string()) + " " + studio + arguments + " 2>&1");
    EXPECT_EQ(r.exit_code, 2) << arguments << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "gltf-crowd: error: ")) << arguments << ": " << r.out;
    EXPECT_TRUE(contains(r.out, message)) << arguments << ": " << r.out;
    EXPECT_FALSE(contains(r.out, "no_display")) << arguments << ": " << r.out;
  }
}

// What the tool prints reads as English (issue 57): one of a thing is singular ("1 actor", not
// "1 actors"), --set ranges are short numbers ("[0.001, 1000]", not "[0.001000, 1000.000000]"),
// and --help shows "--shadows,--no-shadows", not "--shadows,--no-shadows{false}".
TEST(CliTool, WordingReadsNaturally) {
  const auto dir = test::scratch_dir("cli_wording");
  const CommandOutput render =
      tool("render --actors 1 --seconds 0 --width 32 --height 32 --msaa 0 --no-shadows --out " +
           quoted((dir / "x.png").string()));
  EXPECT_EQ(render.exit_code, 0) << render.out;
  EXPECT_TRUE(contains(render.out, "rendered 1 actor with ")) << render.out;
  const CommandOutput bench = tool("bench --actors 1 --threads 1 --frames 1 --warmup 0");
  EXPECT_EQ(bench.exit_code, 0) << bench.out;
  EXPECT_TRUE(contains(bench.out, ": 1 actor, 1 thread, 1 frame: ")) << bench.out;
  const CommandOutput bias = tool("studio --frames 1 --set lod-bias=0");
  EXPECT_EQ(bias.exit_code, 2) << bias.out;
  EXPECT_TRUE(contains(bias.out, "--set lod-bias: '0' is not a number in [0.001, 1000]")) << bias.out;
  EXPECT_FALSE(contains(bias.out, "000000")) << bias.out;
  const CommandOutput help = tool("render --help");
  EXPECT_FALSE(contains(help.out, "{false}")) << help.out;
  EXPECT_TRUE(std::regex_search(help.out, std::regex("\n  --shadows,--no-shadows +shadows from the"))) << help.out;
}

TEST(CliTool, HelpStatesTheTimeStep) {
  for (const auto& [command, step] : std::vector<std::pair<std::string, std::string>>{
           {"render", "1/30 s"}, {"studio", "1/30 s"}, {"bench", "1/60 s"}}) {
    const CommandOutput r = tool(command + " --help");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    const std::size_t at = r.out.find("Time step:");
    ASSERT_NE(at, std::string::npos) << command << ": " << r.out;
    EXPECT_TRUE(contains(r.out.substr(at, 80), step)) << command << ": " << r.out.substr(at);
  }
}

}  // namespace
}  // namespace gltf_crowd
