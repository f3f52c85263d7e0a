// `gltf-crowd info --json` on every shared asset against the numbers of ../shared/assets/README.md
// (written here as literals), on the built-in character (docs/spec.md §9), and on a bad file (docs/spec.md §8:
// error on stderr, non-zero exit).
#include <algorithm>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gltf_crowd/asset.hpp"
#include "test_documents.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

using test::CommandOutput;
using test::quoted;
using test::run_tool;

nlohmann::json info_json(const std::filesystem::path& file) {
  const CommandOutput r = run_tool("info --json " + quoted(file));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  return nlohmann::json::parse(r.out, nullptr, false);
}

struct ClipRow {
  const char* name;
  double seconds;  // README rounds to 4 significant digits
};

// One row of the README inventory table.
struct AssetRow {
  const char* file;
  int meshes, primitives, reachable, lod_alternates;
  std::vector<int> skin_joints;
  int skinned_nodes;
  std::vector<ClipRow> clips;
  int nodes, morph_primitives, vertices;
  std::vector<std::string> extensions;
};

const std::vector<AssetRow>& rows() {
  static const std::vector<AssetRow> table = {
      {"threejs/RobotExpressive.glb",
       14,
       19,
       19,
       0,
       {43, 43},
       2,
       {{"Dance", 3.333},
        {"Death", 0.9583},
        {"Idle", 3.333},
        {"Jump", 0.7083},
        {"No", 1.667},
        {"Punch", 0.8333},
        {"Running", 0.9583},
        {"Sitting", 0.4167},
        {"Standing", 0.4167},
        {"ThumbsUp", 1.583},
        {"Walking", 0.9583},
        {"WalkJump", 0.8333},
        {"Wave", 1.833},
        {"Yes", 1.667}},
       74,
       3,
       7214,
       {}},
      {"lumagl/SimpleSkinLOD.gltf", 3, 3, 1, 2, {2}, 3, {{"Joint Bend", 5.5}}, 5, 0, 30, {"MSFT_lod"}},
      {"lumagl/msft-lod.gltf", 3, 3, 1, 2, {}, 0, {}, 3, 0, 4104, {"MSFT_lod"}},
      {"lumagl/SimpleSkin.gltf", 1, 1, 1, 0, {2}, 1, {{"", 5.5}}, 3, 0, 10, {}},
      {"lumagl/AnimatedMorphCube.glb", 1, 1, 1, 0, {}, 0, {{"Square", 4.2}}, 1, 1, 24, {}},
      {"khronos/CesiumMan.glb", 1, 1, 1, 0, {19}, 1, {{"", 2.0}}, 22, 0, 3273, {}},
      {"khronos/Fox.glb", 1, 1, 1, 0, {24}, 1, {{"Survey", 3.417}, {"Walk", 0.7083}, {"Run", 1.158}}, 26, 0, 1728, {}},
      {"khronos/RiggedSimple.glb", 1, 1, 1, 0, {2}, 1, {{"", 2.083}}, 5, 0, 160, {}},
      {"khronos/RiggedFigure.glb", 1, 1, 1, 0, {19}, 1, {{"", 1.25}}, 22, 0, 370, {}},
      {"khronos/RecursiveSkeletons.glb", 1, 1, 84, 0, std::vector<int>(84, 10), 84, {{"Track0", 2.0}}, 924, 0, 40, {}},
      {"khronos/InterpolationTest.glb",
       2,
       2,
       10,
       0,
       {},
       0,
       {{"Step Scale", 2},
        {"Linear Scale", 2},
        {"CubicSpline Scale", 2},
        {"Step Rotation", 2},
        {"CubicSpline Rotation", 2},
        {"Linear Rotation", 2},
        {"Step Translation", 2},
        {"CubicSpline Translation", 2},
        {"Linear Translation", 2}},
       10,
       0,
       28,
       {}},
      {"khronos/NegativeScaleTest.glb", 8, 8, 11, 0, {}, 0, {}, 14, 0, 2032, {}},
      {"khronos/BoxAnimated.glb", 2, 2, 2, 0, {}, 0, {{"", 3.708}}, 4, 0, 320, {}},
      {"khronos/AnimatedColorsCube.glb",
       4,
       4,
       4,
       0,
       {},
       0,
       {{"Cube Animation", 3.0}},
       4,
       0,
       96,
       {"KHR_animation_pointer"}},
      {"khronos/SimpleInstancing.glb", 1, 1, 1, 0, {}, 0, {}, 1, 0, 24, {"EXT_mesh_gpu_instancing"}},
      {"khronos/MorphStressTest/MorphStressTest.gltf",
       1,
       2,
       2,
       0,
       {},
       0,
       {{"Individuals", 9.367}, {"TheWave", 1.967}, {"Pulse", 6.367}},
       1,
       2,
       1528,
       {}},
      {"khronos/SimpleMorph.gltf", 1, 1, 1, 0, {}, 0, {{"", 4.0}}, 1, 1, 3, {}},
      {"khronos/AnimatedTriangle.gltf", 1, 1, 1, 0, {}, 0, {{"", 1.0}}, 1, 0, 3, {}},
      {"khronos/SimpleSparseAccessor.gltf", 1, 1, 1, 0, {}, 0, {}, 1, 0, 14, {}},
  };
  return table;
}

TEST(InfoTool, JsonMatchesTheAssetInventory) {
  GLTF_CROWD_REQUIRE_ASSETS();
  for (const AssetRow& row : rows()) {
    SCOPED_TRACE(row.file);
    const nlohmann::json info = info_json(test::asset_path(row.file));
    ASSERT_TRUE(info.is_object());
    EXPECT_EQ(info["meshes"], row.meshes);
    EXPECT_EQ(info["primitives"], row.primitives);
    EXPECT_EQ(info["reachable_primitives"], row.reachable);
    EXPECT_EQ(info["lod_primitives"], row.lod_alternates);
    ASSERT_EQ(info["skins"].size(), row.skin_joints.size());
    for (std::size_t i = 0; i < row.skin_joints.size(); ++i) EXPECT_EQ(info["skins"][i]["joints"], row.skin_joints[i]);
    EXPECT_EQ(info["skinned_nodes"], row.skinned_nodes);
    ASSERT_EQ(info["clips"].size(), row.clips.size());
    for (std::size_t i = 0; i < row.clips.size(); ++i) {
      EXPECT_EQ(info["clips"][i]["name"], row.clips[i].name);
      EXPECT_NEAR(info["clips"][i]["duration"].get<double>(), row.clips[i].seconds, 6e-4) << row.clips[i].name;
    }
    EXPECT_EQ(info["nodes"], row.nodes);
    EXPECT_EQ(info["morph_primitives"], row.morph_primitives);
    EXPECT_EQ(info["vertices"], row.vertices);
    EXPECT_EQ(info["extensions_used"].get<std::vector<std::string>>(), row.extensions);
  }
}

TEST(InfoTool, ReportsLodLevelsAndMorphTargets) {
  GLTF_CROWD_REQUIRE_ASSETS();
  // README: SimpleSkinLOD node 0 has MSFT_lod ids [3, 4], screen coverage [0.5, 0.2, 0.01];
  // msft-lod's node "LOD 0" lists ids [1, 0].
  const nlohmann::json lod = info_json(test::asset_path("lumagl/SimpleSkinLOD.gltf"))["lod"];
  ASSERT_EQ(lod.size(), 1u);
  EXPECT_EQ(lod[0]["node"], 0);
  EXPECT_EQ(lod[0]["levels"].get<std::vector<int>>(), (std::vector<int>{0, 3, 4}));
  EXPECT_NEAR(lod[0]["screen_coverage"][1].get<double>(), 0.2, 1e-6);
  const nlohmann::json babylon = info_json(test::asset_path("lumagl/msft-lod.gltf"))["lod"];
  ASSERT_EQ(babylon.size(), 1u);
  EXPECT_EQ(babylon[0]["name"], "LOD 0");
  EXPECT_EQ(babylon[0]["levels"].get<std::vector<int>>(), (std::vector<int>{babylon[0]["node"].get<int>(), 1, 0}));
  // README: RobotExpressive's Head mesh has 3 morph targets (Angry, Surprised, Sad).
  EXPECT_EQ(info_json(test::asset_path("threejs/RobotExpressive.glb"))["morph_targets"], 3);
}

// Each clip's sampled channels (one per TRS channel, one per morph weight) and how many of them
// are constant, counted here from the file's keys: a LINEAR lane whose every key equals the
// first, bit for bit, of a property (node and path, or morph weight) that no clip moves. Both
// assets key everything LINEAR, and every node they animate is drawn or a joint of a drawn skin.
TEST(InfoTool, CountsConstantChannels) {
  GLTF_CROWD_REQUIRE_ASSETS();
  for (const char* file : {"khronos/RiggedFigure.glb", "threejs/RobotExpressive.glb"}) {
    SCOPED_TRACE(file);
    const Asset asset = load_asset(test::asset_path(file));
    const nlohmann::json info = info_json(test::asset_path(file));
    ASSERT_EQ(info["clips"].size(), asset.clips.size());
    // Calls f(clip, property, still) for every lane of every clip.
    const auto for_lanes = [&](const auto& f) {
      for (std::size_t c = 0; c < asset.clips.size(); ++c) {
        const Clip& clip = asset.clips[c];
        for (const Channel& ch : clip.channels) {
          ASSERT_EQ(ch.interpolation, Interpolation::linear);
          const bool weights = ch.path == ChannelPath::weights;
          const std::size_t lanes = weights ? ch.components : 1, width = weights ? 1 : ch.components;
          for (std::size_t lane = 0; lane < lanes; ++lane) {
            const float* first = clip.values.data() + ch.values_offset + lane;
            bool still = true;
            for (std::size_t k = 1; k < ch.key_count; ++k)
              still = still && std::memcmp(first + k * ch.components, first, width * sizeof(float)) == 0;
            f(c, std::tuple{ch.node, ch.path, lane}, still);
          }
        }
      }
    };
    std::set<std::tuple<std::uint32_t, ChannelPath, std::size_t>> moving;
    for_lanes([&](std::size_t, const auto& property, bool still) {
      if (!still) moving.insert(property);
    });
    std::vector<std::size_t> sampled(asset.clips.size(), 0), constant(asset.clips.size(), 0);
    for_lanes([&](std::size_t c, const auto& property, bool still) {
      ++sampled[c];
      constant[c] += still && !moving.contains(property) ? 1 : 0;
    });
    std::size_t all_constant = 0;
    // The text names a clip's sampled count only where morph weights make it differ from the
    // glTF channels, so that it never reads as more channels than the clip has.
    const CommandOutput text = run_tool("info " + quoted(test::asset_path(file)));
    for (std::size_t c = 0; c < asset.clips.size(); ++c) {
      EXPECT_EQ(info["clips"][c]["sampled_channels"], sampled[c]) << asset.clips[c].name;
      EXPECT_EQ(info["clips"][c]["constant_channels"], constant[c]) << asset.clips[c].name;
      all_constant += constant[c];
      const std::size_t channels = asset.clips[c].channels.size();
      ASSERT_GT(constant[c], 0u) << asset.clips[c].name;  // every clip of both holds some
      std::string counts = " s, " + std::to_string(channels) + " channels (";
      if (sampled[c] != channels) counts += "sampled as " + std::to_string(sampled[c]) + ": one per morph weight; ";
      counts += std::to_string(constant[c]) + (sampled[c] != channels ? " of them" : "") +
                " never change: kept as one key each)\n";
      const std::size_t at = text.out.find("    \"" + asset.clips[c].name + "\": ");
      ASSERT_NE(at, std::string::npos) << asset.clips[c].name << text.out;
      const std::string line = text.out.substr(at, text.out.find('\n', at) + 1 - at);
      EXPECT_TRUE(line.ends_with(counts)) << line << "should end with" << counts;
    }
    EXPECT_GT(all_constant, 0u);
  }
}

TEST(InfoTool, BuiltInCharacterMeetsSpecSection9) {
  const auto dir = test::scratch_dir("info_default");
  const CommandOutput exported = run_tool("export-default --out " + quoted(dir / "character.glb") + " 2>&1");
  ASSERT_EQ(exported.exit_code, 0) << exported.out;
  const nlohmann::json info = info_json(dir / "character.glb");
  ASSERT_TRUE(info.is_object());
  EXPECT_GE(info["reachable_primitives"].get<int>(), 8);
  ASSERT_GE(info["skins"].size(), 1u);
  EXPECT_GE(info["skins"][0]["joints"].get<int>(), 20);
  std::vector<std::string> names;
  for (const auto& clip : info["clips"]) {
    names.push_back(clip["name"]);
    EXPECT_GT(clip["duration"].get<double>(), 0.0) << clip["name"];
  }
  for (const char* required : {"Idle", "Walking", "Running", "Wave", "Dance"})
    EXPECT_NE(std::find(names.begin(), names.end(), required), names.end()) << required;
  EXPECT_GE(info["morph_targets"].get<int>(), 1);
}

// A triangle (0,0,0), (1,0,0), (0,1,0) on a node resting at (0, 1, 0), whose clip "Slide" moves
// it LINEAR from (0, 0, 0) to (2, 0, 0): rest box [0, 1] × [1, 2] × {0}; over the clip the
// triangle sweeps [0, 3] × [0, 1] × {0} (extremes at the keys).
TEST(InfoTool, ReportsRestAndAnimatedBounds) {
  test::Document d;
  const int position = d.add_accessor(d.add_view(std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0}), 5126, 3, "VEC3",
                                      {{"min", {0, 0, 0}}, {"max", {1, 1, 0}}});
  const int times =
      d.add_accessor(d.add_view(std::vector<float>{0, 1}), 5126, 2, "SCALAR", {{"min", {0}}, {"max", {1}}});
  const int values = d.add_floats({0, 0, 0, 2, 0, 0}, 3, "VEC3");
  d.json["meshes"] = {{{"primitives", {{{"attributes", {{"POSITION", position}}}}}}}};
  d.json["nodes"] = {{{"mesh", 0}, {"translation", {0, 1, 0}}}};
  d.json["scenes"] = {{{"nodes", {0}}}};
  d.json["animations"] = {{{"name", "Slide"},
                           {"samplers", {{{"input", times}, {"output", values}}}},
                           {"channels", {{{"sampler", 0}, {"target", {{"node", 0}, {"path", "translation"}}}}}}}};
  const auto dir = test::scratch_dir("info_bounds");
  const std::vector<std::uint8_t> bytes = d.gltf();
  std::ofstream(dir / "slide.gltf", std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));

  const nlohmann::json info = info_json(dir / "slide.gltf");
  ASSERT_TRUE(info.is_object());
  const auto expect_box = [](const nlohmann::json& b, std::vector<float> min, std::vector<float> max) {
    ASSERT_TRUE(b.is_object()) << b;
    for (int a = 0; a < 3; ++a) {
      EXPECT_NEAR(b["min"][a].get<float>(), min[a], 1e-5f) << b;
      EXPECT_NEAR(b["max"][a].get<float>(), max[a], 1e-5f) << b;
      EXPECT_NEAR(b["size"][a].get<float>(), max[a] - min[a], 1e-5f) << b;
    }
  };
  expect_box(info["rest_bounds"], {0, 1, 0}, {1, 2, 0});
  expect_box(info["animated_bounds"], {0, 0, 0}, {3, 1, 0});
  ASSERT_EQ(info["clips"].size(), 1u);
  expect_box(info["clips"][0]["bounds"], {0, 0, 0}, {3, 1, 0});

  const CommandOutput text = run_tool("info " + quoted(dir / "slide.gltf"));
  ASSERT_EQ(text.exit_code, 0) << text.out;
  EXPECT_NE(text.out.find("rest bounds: min (0, 1, 0), max (1, 2, 0), size (1, 1, 0)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("animated bounds (all clips): min (0, 0, 0), max (3, 1, 0), size (3, 1, 0)"),
            std::string::npos)
      << text.out;
}

TEST(InfoTool, BadFileExitsNonZeroWithTheErrorOnStderr) {
  const auto dir = test::scratch_dir("info_bad");
  std::ofstream(dir / "bad.gltf") << R"({"asset": {"version": "2.0"}, "nodes": [{"mesh": 3}]})";
  const std::string arguments = "info --json " + quoted(dir / "bad.gltf");
  const CommandOutput stdout_only = run_tool(arguments + " 2>/dev/null");
  EXPECT_NE(stdout_only.exit_code, 0);
  EXPECT_EQ(stdout_only.out, "");
  const CommandOutput both = run_tool(arguments + " 2>&1");
  EXPECT_NE(both.exit_code, 0);
  EXPECT_NE(both.out.find("nodes[0].mesh"), std::string::npos) << both.out;
  EXPECT_NE(both.out.find("mesh_index"), std::string::npos) << both.out;
  EXPECT_NE(run_tool("info " + quoted(dir / "absent.glb") + " 2>/dev/null").exit_code, 0);
}

// A buffer outside the asset's folder (docs/spec.md §2.1): info refuses it, naming the URI, the
// buffer and the option, and reads it with --allow-outside-resources, which every command that
// loads an asset takes.
TEST(InfoTool, ResourcesOutsideTheAssetsFolderNeedTheOption) {
  const auto dir = test::scratch_dir("info_outside");
  std::filesystem::create_directories(dir / "asset");
  std::filesystem::create_directories(dir / "shared");
  test::Document d = test::skinned_triangle();
  d.json["buffers"][0]["uri"] = "../shared/triangle.bin";
  const std::vector<std::uint8_t> gltf = d.gltf();
  std::ofstream(dir / "asset" / "triangle.gltf", std::ios::binary)
      .write(reinterpret_cast<const char*>(gltf.data()), static_cast<std::streamsize>(gltf.size()));
  std::ofstream(dir / "shared" / "triangle.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(d.bin.data()), static_cast<std::streamsize>(d.bin.size()));
  const std::string asset = quoted(dir / "asset" / "triangle.gltf");
  const CommandOutput refused = run_tool("info " + asset + " 2>&1");
  EXPECT_NE(refused.exit_code, 0);
  for (const char* part : {"buffers[0].uri", "\"../shared/triangle.bin\"", "outside the asset's folder ",
                           "; --allow-outside-resources allows it [uri_outside_root]"})
    EXPECT_NE(refused.out.find(part), std::string::npos) << part << " in " << refused.out;
  // The option is the command line's way out; the library's LoadOptions fields are not (issue 57).
  EXPECT_EQ(refused.out.find("LoadOptions"), std::string::npos) << refused.out;
  EXPECT_EQ(refused.out.find("resource root"), std::string::npos) << refused.out;
  const CommandOutput allowed = run_tool("info --allow-outside-resources " + asset + " 2>&1");
  EXPECT_EQ(allowed.exit_code, 0) << allowed.out;
  for (const char* command : {"render", "info", "pose", "lod", "studio", "bench"}) {
    const CommandOutput help = run_tool(std::string(command) + " --help");
    EXPECT_NE(help.out.find("--allow-outside-resources"), std::string::npos) << command << ": " << help.out;
  }
}

// `info --nodes` (docs/spec.md §8.3): the node tree, joints with their skins, mesh nodes (a
// skinned one said not to move), animated nodes, and the path of a shared name. Expected values
// are RobotExpressive's, read from its JSON by hand: node 10 "Torso" is a joint of both skins
// under 9 "Abdomen"; 7 "Torso" draws mesh 1; 72 "Hand.R", child of the root 0, draws mesh 12
// skinned by skin 0; all 14 clips animate 12 "Head" and none animates 10.
TEST(InfoTool, NodesPrintsTheTreeWithJointsMeshesAndAnimatedNodes) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto robot = test::asset_path("threejs/RobotExpressive.glb");
  const CommandOutput js = run_tool("info --json --nodes " + quoted(robot));
  ASSERT_EQ(js.exit_code, 0) << js.out;
  const nlohmann::json tree = nlohmann::json::parse(js.out)["node_tree"];
  ASSERT_EQ(tree.size(), 74u);
  std::vector<std::size_t> at(74);  // position of each node in the tree
  for (std::size_t i = 0; i < tree.size(); ++i) at[tree[i]["index"].get<std::size_t>()] = i;
  const nlohmann::json& torso = tree[at[10]];
  EXPECT_EQ(torso["name"], "Torso");
  EXPECT_EQ(torso["parent"], 9);
  EXPECT_EQ(torso["path"], "Abdomen/Torso");
  EXPECT_EQ(torso["joint_of"], nlohmann::json::array({0, 1}));
  EXPECT_EQ(torso["mesh"], -1);
  EXPECT_EQ(torso["animating_clips"], 0);
  EXPECT_EQ(at[10], at[9] + 1) << "depth-first: a child follows its parent";
  EXPECT_EQ(tree[at[7]]["path"], "Body/Torso");
  EXPECT_EQ(tree[at[7]]["mesh"], 1);
  EXPECT_EQ(tree[at[12]]["animating_clips"], 14);
  const nlohmann::json& hand = tree[at[72]];
  EXPECT_EQ(hand["parent"], 0);
  EXPECT_EQ(hand["depth"], 1);
  EXPECT_EQ(hand["mesh"], 12);
  EXPECT_EQ(hand["skin"], 0);
  EXPECT_TRUE(hand["joint_of"].empty());

  const CommandOutput text = run_tool("info --nodes " + quoted(robot));
  ASSERT_EQ(text.exit_code, 0) << text.out;
  for (const char* line :
       {"\n    0 \"RootNode\"\n", "\n      72 \"Hand.R\"  [mesh 12 skinned by skin 0: ",
        "10 \"Torso\"  [joint of skin 0, 1; as \"Abdomen/Torso\"]\n", "7 \"Torso\"  [mesh 1; as \"Body/Torso\"]\n",
        "12 \"Head\"  [joint of skin 0, 1; animated by 14 clips; as \"Neck/Head\"]\n"})
    EXPECT_NE(text.out.find(line), std::string::npos) << line << "\n" << text.out;
  const CommandOutput plain = run_tool("info " + quoted(robot));
  EXPECT_EQ(plain.out.find("node tree"), std::string::npos) << "only with --nodes";
  EXPECT_NE(plain.out.find("[duplicate_node_names] 8 names are shared by several nodes"), std::string::npos)
      << plain.out;
}

}  // namespace
}  // namespace gltf_crowd
