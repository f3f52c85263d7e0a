// `gltf-crowd pose`: the printed pose against values read here from the raw glTF data with
// tinygltf (key values, rest TRS, inverse bind matrices) and matrices composed here; the
// `--script` mode against docs/spec.md §3 (weights, clocks, finished, placement).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <tiny_gltf.h>

#include "handmade_gltf.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

using test::CommandOutput;
using test::quoted;
using test::run_tool;

tinygltf::Model read_model(const std::filesystem::path& path) {
  tinygltf::TinyGLTF loader;
  tinygltf::Model model;
  std::string err, warn;
  const bool ok = path.extension() == ".glb" ? loader.LoadBinaryFromFile(&model, &err, &warn, path.string())
                                             : loader.LoadASCIIFromFile(&model, &err, &warn, path.string());
  EXPECT_TRUE(ok) << err;
  return model;
}

// Tightly packed float accessor data (true of the files used here).
std::vector<float> raw_floats(const tinygltf::Model& m, int index) {
  const auto& a = m.accessors[static_cast<std::size_t>(index)];
  const auto& v = m.bufferViews[static_cast<std::size_t>(a.bufferView)];
  const std::size_t comps = tinygltf::GetNumComponentsInType(static_cast<std::uint32_t>(a.type));
  std::vector<float> out(a.count * comps);
  std::memcpy(out.data(), m.buffers[static_cast<std::size_t>(v.buffer)].data.data() + v.byteOffset + a.byteOffset,
              out.size() * 4);
  return out;
}

glm::mat4 matrix_of(const nlohmann::json& column_major) {
  std::vector<float> v = column_major.get<std::vector<float>>();
  EXPECT_EQ(v.size(), 16u);
  v.resize(16);
  return glm::make_mat4(v.data());
}

void expect_near(const glm::mat4& got, const glm::mat4& want, float tolerance, const std::string& what) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) EXPECT_NEAR(got[c][r], want[c][r], tolerance) << what << " [" << c << "][" << r << "]";
}

// world = parent world × T·R·S of the printed local TRS: the printed world matrices must agree.
void expect_consistent_worlds(const tinygltf::Model& model, const nlohmann::json& nodes, const glm::mat4& placement) {
  std::vector<int> parent(model.nodes.size(), -1);
  for (std::size_t n = 0; n < model.nodes.size(); ++n)
    for (int c : model.nodes[n].children) parent[static_cast<std::size_t>(c)] = static_cast<int>(n);
  ASSERT_EQ(nodes.size(), model.nodes.size());
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    const auto& t = nodes[n]["translation"];
    const auto& r = nodes[n]["rotation"];
    const auto& s = nodes[n]["scale"];
    const glm::quat q(r[3].get<float>(), r[0].get<float>(), r[1].get<float>(), r[2].get<float>());
    EXPECT_NEAR(glm::length(q), 1.0f, 1e-5f) << "node " << n;
    const glm::mat4 local =
        glm::translate(glm::mat4(1.0f), glm::vec3(t[0].get<float>(), t[1].get<float>(), t[2].get<float>())) *
        glm::mat4_cast(q) *
        glm::scale(glm::mat4(1.0f), glm::vec3(s[0].get<float>(), s[1].get<float>(), s[2].get<float>()));
    const glm::mat4 above = parent[n] < 0 ? placement : matrix_of(nodes[static_cast<std::size_t>(parent[n])]["world"]);
    expect_near(matrix_of(nodes[n]["world"]), above * local, 1e-4f, "world of node " + std::to_string(n));
  }
}

// joint_matrices[j] = world(joints[j]) × IBM[j], IBMs read from the file.
void expect_joint_matrices(const tinygltf::Model& model, const nlohmann::json& doc) {
  ASSERT_EQ(doc["skins"].size(), model.skins.size());
  for (std::size_t k = 0; k < model.skins.size(); ++k) {
    const auto& skin = model.skins[k];
    const std::vector<float> ibm = raw_floats(model, skin.inverseBindMatrices);
    const auto& joints = doc["skins"][k]["joint_matrices"];
    ASSERT_EQ(joints.size(), skin.joints.size());
    for (std::size_t j = 0; j < skin.joints.size(); ++j) {
      const glm::mat4 world = matrix_of(doc["nodes"][static_cast<std::size_t>(skin.joints[j])]["world"]);
      expect_near(matrix_of(joints[j]), world * glm::make_mat4(ibm.data() + 16 * j), 1e-4f,
                  "skin " + std::to_string(k) + " joint " + std::to_string(j));
    }
  }
}

TEST(PoseToolTest, ClipAtAKeyPrintsTheKeyValueAndConsistentMatrices) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto path = test::asset_path("lumagl/SimpleSkin.gltf");
  const tinygltf::Model model = read_model(path);
  const auto& sampler = model.animations[0].samplers[0];
  const int node = model.animations[0].channels[0].target_node;
  const std::vector<float> times = raw_floats(model, sampler.input), values = raw_floats(model, sampler.output);
  ASSERT_EQ(times[1], 0.5f);
  const CommandOutput r = run_tool("pose " + quoted(path) + " --clip 0 --time 0.5 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["clip_index"], 0);
  EXPECT_EQ(doc["time"], 0.5);
  // The file's keys are unit quaternions to 3 decimals; the pose holds them normalized.
  const glm::vec4 key = glm::normalize(glm::make_vec4(values.data() + 4));
  const auto& rotation = doc["nodes"][static_cast<std::size_t>(node)]["rotation"];
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(rotation[static_cast<std::size_t>(i)].get<float>(), key[i], 1e-6f);
  expect_consistent_worlds(model, doc["nodes"], glm::mat4(1.0f));
  expect_joint_matrices(model, doc);
  EXPECT_TRUE(doc["morph_weights"].empty());
}

TEST(PoseToolTest, TimeIsSampledDirectlyWithoutWrapping) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto path = test::asset_path("lumagl/SimpleSkin.gltf");
  const tinygltf::Model model = read_model(path);
  const std::vector<float> values = raw_floats(model, model.animations[0].samplers[0].output);
  const int node = model.animations[0].channels[0].target_node;
  // 9 s is past the last key (5.5 s): the last key's value. Wrapping would give the 3.5 s key.
  const CommandOutput r = run_tool("pose " + quoted(path) + " --clip 0 --time 9 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto rotation = nlohmann::json::parse(r.out)["nodes"][static_cast<std::size_t>(node)]["rotation"];
  const glm::vec4 last = glm::normalize(glm::make_vec4(values.data() + values.size() - 4));
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(rotation[i].get<float>(), last[static_cast<int>(i)], 1e-6f);
}

TEST(PoseToolTest, WithoutAClipItPrintsTheRestPose) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto path = test::asset_path("threejs/RobotExpressive.glb");
  const tinygltf::Model model = read_model(path);
  const CommandOutput r = run_tool("pose " + quoted(path) + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_TRUE(doc["clip"].is_null());
  ASSERT_EQ(doc["nodes"].size(), model.nodes.size());
  for (std::size_t n = 0; n < model.nodes.size(); ++n) {
    const auto& file = model.nodes[n];
    const auto& got = doc["nodes"][n];
    EXPECT_EQ(got["name"], file.name);
    ASSERT_TRUE(file.matrix.empty());
    for (std::size_t i = 0; i < file.translation.size(); ++i)
      EXPECT_NEAR(got["translation"][i].get<double>(), file.translation[i], 1e-6);
    for (std::size_t i = 0; i < file.rotation.size(); ++i)
      EXPECT_NEAR(got["rotation"][i].get<double>(), file.rotation[i], 1e-6);
    for (std::size_t i = 0; i < file.scale.size(); ++i) EXPECT_NEAR(got["scale"][i].get<double>(), file.scale[i], 1e-6);
  }
  expect_consistent_worlds(model, doc["nodes"], glm::mat4(1.0f));
  expect_joint_matrices(model, doc);
  ASSERT_EQ(doc["morph_weights"].size(), 1u);  // the Head: 3 targets
  EXPECT_EQ(doc["morph_weights"][0]["weights"].size(), 3u);
}

TEST(PoseToolTest, ClipByNameOrIndexAndUnknownClips) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto path = quoted(test::asset_path("threejs/RobotExpressive.glb"));
  const CommandOutput by_name = run_tool("pose " + path + " --clip Wave --time 0.4 --json");
  const CommandOutput by_index = run_tool("pose " + path + " --clip 12 --time 0.4 --json");  // Wave is animations[12]
  ASSERT_EQ(by_name.exit_code, 0);
  EXPECT_EQ(by_name.out, by_index.out);
  const CommandOutput text = run_tool("pose " + path + " --clip Wave --time 0.4");
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("Hand"), std::string::npos);
  const CommandOutput unknown = run_tool("pose " + path + " --clip Moonwalk 2>&1");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.out;  // a usage error
  EXPECT_NE(unknown.out.find("unknown_clip"), std::string::npos) << unknown.out;
  EXPECT_NE(unknown.out.find("Wave"), std::string::npos) << "lists the clips: " << unknown.out;
}

std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    out.push_back(nlohmann::json::parse(text.substr(start, end - start)));
    start = end == std::string::npos ? text.size() : end + 1;
  }
  return out;
}

// The script verbs of docs/spec.md §8.6 for markers and visibility, and the events an update
// step prints.
TEST(PoseToolTest, ScriptReportsEventsAndVisibility) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto path = test::asset_path("threejs/RobotExpressive.glb");
  const auto script = test::scratch_dir("pose_events") / "script.txt";
  std::ofstream(script) << "add id=walker clip=Walking\n"
                           "marker Walking step 0.25\n"
                           "hide walker\n"
                           "update 0.5\n"
                           "show walker\n"
                           "update 0.1\n";
  const CommandOutput r = run_tool("pose " + quoted(path) + " --script " + quoted(script));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::vector<nlohmann::json> lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[2]["visible"], false);
  const auto& events = lines[3]["events"];  // 0 → 0.5 crosses 0.25 halfway
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["marker"], "step");
  EXPECT_EQ(events[0]["clip"], "Walking");
  EXPECT_NEAR(events[0]["fraction"].get<double>(), 0.5, 1e-6);
  EXPECT_NEAR(events[0]["weight"].get<double>(), 1.0, 1e-6);
  EXPECT_EQ(lines[3]["visible"], false);
  EXPECT_TRUE(lines[4]["events"].empty()) << "only update steps report";
  EXPECT_EQ(lines[4]["visible"], true);
  EXPECT_TRUE(lines[5]["events"].empty());
}

// The script verbs of docs/spec.md §3.8 (application-driven poses), CPU and GPU evaluation: the
// printed node is exactly the override at weight 1, half way at weight 0.5 (translation), the
// clip's again once cleared; morph weights likewise.
TEST(PoseToolTest, ScriptDrivesNodesAndMorphWeights) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto path = test::asset_path("threejs/RobotExpressive.glb");
  const auto script = test::scratch_dir("pose_local") / "script.txt";
  std::ofstream(script) << "add id=robot clip=Idle playing=false\n"
                           "local robot Neck/Head t=1,2,3 r=0,0.6,0,0.8 s=2,2,2   # the joint (13 is the mesh)\n"
                           "local robot 12 t=1,2,3 weight=0.5\n"
                           "unlocal robot\n"
                           "morph robot 13 0.25,0.5,0.75   # the head mesh node (12 is the joint Head)\n"
                           "unmorph robot 13\n";
  for (const char* animation : {"cpu", "gpu"}) {
    SCOPED_TRACE(animation);
    const CommandOutput r =
        run_tool("pose " + quoted(path) + " --script " + quoted(script) + " --animation " + animation);
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const std::vector<nlohmann::json> lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), 6u);
    const auto node = [&](std::size_t line, const char* name) -> const nlohmann::json& {
      for (const auto& n : lines[line]["nodes"])
        if (n["name"] == name) return n;
      ADD_FAILURE() << "no node " << name;
      return lines[line];
    };
    const auto near = [](const nlohmann::json& got, std::vector<double> want) {
      for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i].get<double>(), want[i], 2e-5) << i;
    };
    const auto clip_t = node(0, "Head")["translation"];
    near(node(1, "Head")["translation"], {1, 2, 3});
    near(node(1, "Head")["rotation"], {0, 0.6, 0, 0.8});
    near(node(1, "Head")["scale"], {2, 2, 2});
    // weight 0.5 toward t = (1, 2, 3) from the clip's (Idle at 0 s, paused) translation
    near(node(2, "Head")["translation"], {0.5 * clip_t[0].get<double>() + 0.5, 0.5 * clip_t[1].get<double>() + 1.0,
                                          0.5 * clip_t[2].get<double>() + 1.5});
    near(node(3, "Head")["translation"], {clip_t[0], clip_t[1], clip_t[2]});
    const auto morph_of = [&](std::size_t line) {
      for (const auto& m : lines[line]["morph_weights"])
        if (m["node"] == 13) return m["weights"];
      ADD_FAILURE() << "node 13 has no morph weights";
      return nlohmann::json();
    };
    near(morph_of(4), {0.25, 0.5, 0.75});
    EXPECT_EQ(morph_of(5), morph_of(3));
  }
}

TEST(PoseToolTest, ScriptDrivesAnimationLayers) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto path = test::asset_path("threejs/RobotExpressive.glb");
  const auto script = test::scratch_dir("pose_layers") / "script.txt";
  std::ofstream(script) << "add id=robot clip=Idle playing=false\n"
                           "mask head Neck/Head   # the joint Head and below (Head/Head is its mesh)\n"
                           "layer robot 2 mask=head clip=Wave time=0.3\n"
                           "layer robot 2 weight=0.25 fade=1\n"
                           "update 0.5\n";
  // The layer at weight 1 under its mask is the clip itself there: the pose of Wave at 0.3 s.
  const CommandOutput wave = run_tool("pose " + quoted(path) + " --clip Wave --time 0.3 --json");
  ASSERT_EQ(wave.exit_code, 0) << wave.out;
  const nlohmann::json wave_pose = nlohmann::json::parse(wave.out);
  for (const char* animation : {"cpu", "gpu"}) {
    SCOPED_TRACE(animation);
    const CommandOutput r =
        run_tool("pose " + quoted(path) + " --script " + quoted(script) + " --animation " + animation);
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const std::vector<nlohmann::json> lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), 5u);
    const auto node = [](const nlohmann::json& doc, const char* name) -> const nlohmann::json& {
      for (const auto& n : doc["nodes"])
        if (n["name"] == name) return n;
      ADD_FAILURE() << "no node " << name;
      return doc;
    };
    const auto near = [](const nlohmann::json& got, const nlohmann::json& want) {
      for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i].get<double>(), want[i].get<double>(), 2e-5) << i;
    };
    near(node(lines[2], "Head")["rotation"], node(wave_pose, "Head")["rotation"]);
    near(node(lines[2], "UpperArm.L")["rotation"], node(lines[0], "UpperArm.L")["rotation"]);  // outside the mask
    EXPECT_NE(node(lines[2], "Head")["rotation"], node(lines[0], "Head")["rotation"]) << "Wave moves the head";
    ASSERT_EQ(lines[2]["layers"].size(), 1u);
    EXPECT_EQ(lines[2]["layers"][0]["index"], 2);
    EXPECT_EQ(lines[2]["layers"][0]["mask"], "head");
    EXPECT_EQ(lines[2]["layers"][0]["mode"], "override");
    // Half-way through the fade from 1 to 0.25, and the layer's clock moved on while the base
    // is paused.
    EXPECT_NEAR(lines[4]["layers"][0]["weight"].get<double>(), 0.625, 1e-6);
    EXPECT_NEAR(lines[4]["layers"][0]["time"].get<double>(), 0.8, 1e-5);
    EXPECT_EQ(lines[4]["time"], lines[0]["time"]);
  }
}

TEST(PoseToolTest, ScriptPrintsEveryActorAfterEveryStep) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto path = test::asset_path("threejs/RobotExpressive.glb");
  const tinygltf::Model model = read_model(path);
  const auto script = test::scratch_dir("pose_script") / "script.txt";
  std::ofstream(script) << "# walker crossfades to Running; jumper plays Jump (0.7083 s) once\n"
                           "add id=walker clip=Walking\n"
                           "add id=jumper clip=Jump loop=once at=2,0,0\n"
                           "select walker Running crossfade=0.5   # fade in over 0.5 s\n"
                           "update 0.25\n"
                           "seek walker 0.1\n"
                           "update 1.0\n"
                           "play jumper\n";
  const CommandOutput r = run_tool("pose " + quoted(path) + " --script " + quoted(script));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::vector<nlohmann::json> lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u + 2u * 6u);  // one actor after step 0, two after each later step
  const auto at = [&](int step, const char* actor) -> const nlohmann::json& {
    for (const auto& l : lines)
      if (l["step"] == step && l["actor"] == actor) return l;
    ADD_FAILURE() << "no line for step " << step << " actor " << actor;
    return lines.front();
  };
  for (const auto& l : lines) {
    double sum = 0.0;
    for (const auto& c : l["contributors"]) sum += c["weight"].get<double>();
    EXPECT_NEAR(sum, 1.0, 1e-6) << l["op"];
  }
  EXPECT_EQ(at(2, "walker")["op"], "select walker Running crossfade=0.5");
  const auto& faded = at(3, "walker")["contributors"];  // 0.25 s into a 0.5 s fade
  ASSERT_EQ(faded.size(), 2u);
  EXPECT_EQ(faded[0]["clip"], "Running");
  EXPECT_NEAR(faded[0]["weight"].get<double>(), 0.5, 1e-6);
  EXPECT_NEAR(faded[1]["seconds"].get<double>(), 0.25, 1e-6);
  const auto& sought = at(4, "walker")["contributors"];
  EXPECT_NEAR(sought[0]["seconds"].get<double>(), 0.1, 1e-6);
  EXPECT_NEAR(sought[1]["seconds"].get<double>(), 0.25, 1e-6) << "seek moved only the incoming clip";
  EXPECT_EQ(at(5, "walker")["contributors"].size(), 1u);
  EXPECT_EQ(at(5, "jumper")["finished"], true);
  EXPECT_EQ(at(5, "jumper")["playing"], false);
  EXPECT_EQ(at(6, "jumper")["finished"], false);
  EXPECT_EQ(at(6, "jumper")["time"], 0.0);
  // The jumper's placement moves its root node (at rest at the origin) to x = 2.
  EXPECT_NEAR(at(6, "jumper")["nodes"][0]["world"][12].get<double>(), 2.0, 1e-6);
  expect_consistent_worlds(model, at(6, "walker")["nodes"], glm::mat4(1.0f));
  expect_consistent_worlds(model, at(6, "jumper")["nodes"], glm::translate(glm::mat4(1.0f), glm::vec3(2, 0, 0)));
  expect_joint_matrices(model, at(3, "walker"));
}

// `mask NAME NODE[:W],...` (docs/spec.md §8.6) takes Mixamo's "prefix:Bone" names: W follows the
// last ':' only when a number does. Two root nodes, both translated from x = 0 to x = 2 over 1 s;
// the base pose holds t = 0 and a layer plays t = 0.5 (x = 1), so a node masked at w sits at x = w
// (spec §3.11's override: (1 - w) · 0 + w · 1).
TEST(PoseToolTest, ScriptMaskTakesMixamoNamesAndIndices) {
  const auto dir = test::scratch_dir("pose_mixamo_mask");
  const std::vector<std::uint8_t> doc =
      test::handmade_gltf(nlohmann::json::array({{{"name", "mixamorig:Hips"}}, {{"name", "mixamorig:Spine"}}}),
                          {{"Move",
                            {{0, "translation", "LINEAR", {0.0f, 1.0f}, {0, 0, 0, 2, 0, 0}},
                             {1, "translation", "LINEAR", {0.0f, 1.0f}, {0, 0, 0, 2, 0, 0}}}}});
  std::ofstream(dir / "mixamo.gltf", std::ios::binary)
      .write(reinterpret_cast<const char*>(doc.data()), static_cast<std::streamsize>(doc.size()));
  const std::pair<const char*, std::pair<double, double>> cases[] = {
      {"mixamorig:Spine", {0.0, 1.0}},                     // a whole name, weight 1
      {"mixamorig:Spine:0.5,0:0.25", {0.25, 0.5}},         // the name at 0.5, node 0 by index at 0.25
      {"mixamorig:Hips:1,mixamorig:Spine:0", {1.0, 0.0}},  // weights 1 and 0 after a name's ':'
  };
  for (const auto& [mask, x] : cases) {
    SCOPED_TRACE(mask);
    std::ofstream(dir / "script.txt") << "add id=a clip=Move playing=false\n"
                                      << "mask upper " << mask << "\n"
                                      << "layer a 1 mask=upper clip=Move time=0.5\n";
    const CommandOutput r = run_tool("pose " + quoted(dir / "mixamo.gltf") + " --script " + quoted(dir / "script.txt"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const std::vector<nlohmann::json> lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_NEAR(lines[2]["nodes"][0]["translation"][0].get<double>(), x.first, 1e-6);
    EXPECT_NEAR(lines[2]["nodes"][1]["translation"][0].get<double>(), x.second, 1e-6);
  }
  // A node that is not there is an error listing the closest names.
  std::ofstream(dir / "bad.txt") << "add id=a\nmask upper mixamorig:Spne:0.5\n";
  const CommandOutput bad =
      run_tool("pose " + quoted(dir / "mixamo.gltf") + " --script " + quoted(dir / "bad.txt") + " 2>&1 >/dev/null");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.out.find("no node named \"mixamorig:Spne\""), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("closest: mixamorig:Spine, "), std::string::npos) << bad.out;
}

TEST(PoseToolTest, ScriptErrorsNameTheLine) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto path = quoted(test::asset_path("threejs/RobotExpressive.glb"));
  const auto dir = test::scratch_dir("pose_script_errors");
  const std::pair<const char*, const char*> cases[] = {
      {"add id=a\nselect a Moonwalk\n", "unknown_clip"},
      {"add id=a\nseek b 0.5\n", "no actor has the id \"b\": \"seek b 0.5\" [unknown_actor]"},
      {"add id=a\nupdate fast\n", "script_syntax"},
      {"add id=a\njump a\n", "script_syntax"},
      // A name that no node has, said as such (it was "is not a count", for the index fallback).
      {"add id=a\nlocal a NoSuchBone t=0,0,0\n", "bad.txt:2: no node named \"NoSuchBone\"; closest: "},
  };
  for (const auto& [text, rule] : cases) {
    std::ofstream(dir / "bad.txt") << text;
    const CommandOutput r = run_tool("pose " + path + " --script " + quoted(dir / "bad.txt") + " 2>&1 >/dev/null");
    EXPECT_NE(r.exit_code, 0) << text;
    EXPECT_NE(r.out.find("bad.txt:2"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(rule), std::string::npos) << r.out;
  }
}

// Issue 57 item 4: a number past the float range is said to be that (it was "not a finite
// number"); a value the library refuses is named by the script's key or word on its line, not by
// the library's set_local_transform.* path; a key given twice on a line is an error.
TEST(PoseToolTest, ScriptErrorsNameTheKeyAndRange) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto path = quoted(test::asset_path("threejs/RobotExpressive.glb"));
  const auto dir = test::scratch_dir("pose_script_keys");
  const std::pair<const char*, const char*> cases[] = {
      {"add id=a\nseek a 1e39\n", "bad.txt:2: seconds 1e39: \"1e39\" is out of float range"},
      {"add id=a\nlocal a 0 t=1e-50,0,0\n", "bad.txt:2: t=1e-50,0,0: \"1e-50\" is out of float range"},
      {"add id=a\nlocal a 0 r=0,0,0,0\n", "bad.txt:2: r=0,0,0,0: the rotation quaternion has length 0"},
      {"add id=a\nlocal a 0 weight=2\n", "bad.txt:2: weight=2: weight 2 is not in [0, 1]"},
      {"add id=a\nmorph a 0 1,2 weight=0.5\n", "bad.txt:2: weights 1,2: 2 weights for node 0"},
      {"add id=a\nmorph a 13 0,0,0 weight=-1\n", "bad.txt:2: weight=-1: weight -1 is not in [0, 1]"},
      {"add id=a\nlocal a 0 t=1,2,3 t=4,5,6\n", "bad.txt:2: key \"t=\" given twice"},
      {"add id=a clip=Idle clip=Walking\n", "bad.txt:1: key \"clip=\" given twice"},
  };
  for (const auto& [text, message] : cases) {
    std::ofstream(dir / "bad.txt") << text;
    const CommandOutput r = run_tool("pose " + path + " --script " + quoted(dir / "bad.txt") + " 2>&1 >/dev/null");
    EXPECT_EQ(r.exit_code, 1) << text << r.out;
    EXPECT_NE(r.out.find(message), std::string::npos) << text << r.out;
    EXPECT_EQ(r.out.find("not a finite number"), std::string::npos) << text << r.out;
    EXPECT_EQ(r.out.find("set_"), std::string::npos) << text << r.out;
  }
}

// `pose ASSET --script DIR/bad.txt` with `text` as the script; `streams` picks what is read (the
// errors alone by default).
CommandOutput run_script(const std::string& asset, const std::filesystem::path& dir, const std::string& text,
                         const std::string& streams = " 2>&1 >/dev/null") {
  std::ofstream(dir / "bad.txt") << text;
  return run_tool("pose " + asset + " --script " + quoted(dir / "bad.txt") + streams);
}

// Every script error says FILE:LINE, the script's word (a key=value, a positional word with its
// role, a mask entry) and the cause, with the library's rule; never a library path
// (set_weight.weight, add_mask.branches[0].weight, layer.index, add_actors[0].id, NODE) or a
// script_syntax tag for what has a rule of its own (issue 57).
TEST(PoseToolTest, ScriptErrorsNameTheScriptsWordNotTheLibrary) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto path = quoted(test::asset_path("threejs/RobotExpressive.glb"));
  const auto dir = test::scratch_dir("pose_script_words");
  struct Case {
    const char* text;
    const char* message;
    const char* rule;
  };
  const Case cases[] = {
      {"add id=a clip=Idle\nlayer a 1 clip=Wave weight=2\n", "bad.txt:2: weight=2: weight 2 is not in [0, 1]",
       "blend_weight"},
      {"add id=a clip=Idle\nlayer a 1 clip=Wave weight=1 fade=-1\n", "bad.txt:2: fade=-1: fade of -1 s", "negative"},
      {"add id=a\nmask upper Abdomen:2\n", "bad.txt:2: Abdomen:2: weight 2 is not in [0, 1]", "blend_weight"},
      {"add id=a clip=Idle\nselect a Wave crossfade=-1\n", "bad.txt:2: crossfade=-1: crossfade of -1 s", "negative"},
      {"add id=a\nlayer a 5\n", "bad.txt:2: layer 5 does not exist: layers are 1..4", "layer_index"},
      {"add id=a\nadd id=a\n", "bad.txt:2: id=a: id \"a\" is already used", "duplicate_id"},
      {"add id= clip=Idle\n", "bad.txt:1: id=: the id is empty", "script_syntax"},
      {"add id=a time=1e39\n", "bad.txt:1: time=1e39: \"1e39\" is out of float range", "script_syntax"},
      {"add id=a at=1e39,0,0\n", "bad.txt:1: at=1e39,0,0: \"1e39\" is out of float range", "script_syntax"},
      {"add id=a clip=Idle\nselect a Wave crossfade=1e39\n", "bad.txt:2: crossfade=1e39: \"1e39\" is out of float",
       "script_syntax"},
      {"add id=a speed=1e39\n", "bad.txt:1: speed=1e39: \"1e39\" is out of float range", "script_syntax"},
      {"add id=a\nlocal a Nope r=0,0,0,1\n", "bad.txt:2: no node named \"Nope\"; closest: ", "unknown_node"},
      {"add id=a\nlocal a Torso r=0,0,0,1\n", "bad.txt:2: \"Torso\" matches 2 nodes: 7 ", "ambiguous_node"},
      {"add id=a\nmarker Wave hit 1e39\n", "bad.txt:2: seconds 1e39: \"1e39\" is out of float range", "script_syntax"},
  };
  for (const Case& c : cases) {
    const CommandOutput r = run_script(path, dir, c.text);
    EXPECT_EQ(r.exit_code, 1) << c.text << r.out;
    EXPECT_NE(r.out.find(c.message), std::string::npos) << c.text << r.out;
    EXPECT_NE(r.out.find(std::string("[") + c.rule + "]"), std::string::npos) << c.text << r.out;
    for (const char* library : {"set_", "add_", "select_clip", "layer.index", "NODE"})
      EXPECT_EQ(r.out.find(library), std::string::npos) << c.text << r.out;
  }
}

// A rotation whose length overflows a float was "length 0", and a finite scale whose world
// matrices overflow printed null numbers: both are refused, naming the key (issue 57).
TEST(PoseToolTest, ScriptPosesPastTheFloatRangeAreRefused) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto path = quoted(test::asset_path("threejs/RobotExpressive.glb"));
  const auto dir = test::scratch_dir("pose_script_range");
  const std::pair<const char*, const char*> cases[] = {
      {"add id=a\nlocal a Hips r=1e30,0,0,1\n",
       "bad.txt:2: r=1e30,0,0,1: the rotation quaternion's length is out of float range"},
      {"add id=a\nlocal a Hips s=3e38,3e38,3e38\n",
       "bad.txt:2: s=3e38,3e38,3e38: actor \"a\"'s pose is out of float range: node "},
  };
  for (const auto& [text, message] : cases) {
    const CommandOutput r = run_script(path, dir, text, " 2>&1");  // the JSON lines too: no null in them
    EXPECT_EQ(r.exit_code, 1) << text << r.out;
    EXPECT_NE(r.out.find(message), std::string::npos) << text << r.out;
    EXPECT_NE(r.out.find("[not_finite]"), std::string::npos) << text << r.out;
    EXPECT_EQ(r.out.find("length 0"), std::string::npos) << text << r.out;
    EXPECT_EQ(r.out.find("null"), std::string::npos) << text << r.out;
  }
  // A large scale that stays in range is a pose like any other.
  EXPECT_EQ(run_script(path, dir, "add id=a\nlocal a Hips s=1e3,1e3,1e3\n", " >/dev/null 2>&1").exit_code, 0);
}

}  // namespace
}  // namespace gltf_crowd

namespace gltf_crowd {
namespace {

// Every number of two JSON documents of the same shape, in order.
void collect_numbers(const nlohmann::json& j, std::vector<double>& out) {
  if (j.is_number()) out.push_back(j.get<double>());
  if (j.is_array() || j.is_object())
    for (const auto& e : j) collect_numbers(e, out);
}

double worst_difference(const std::string& cpu, const std::string& gpu) {
  std::vector<double> a, b;
  std::istringstream ca(cpu), cb(gpu);
  std::string la, lb;
  while (std::getline(ca, la) && std::getline(cb, lb)) {
    collect_numbers(nlohmann::json::parse(la), a);
    collect_numbers(nlohmann::json::parse(lb), b);
  }
  EXPECT_EQ(a.size(), b.size());
  EXPECT_FALSE(a.empty());
  double worst = 0.0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    worst = std::max(worst, std::abs(a[i] - b[i]) / std::max(1.0, std::abs(a[i])));
  return worst;
}

// `pose --animation gpu` prints the document of the CPU path, read back from the compute passes
// (issue 17): a clip at a time, and a script with crossfades and a move.
TEST(PoseToolTest, AnimationGpuPrintsTheCpuDocument) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto path = quoted(test::asset_path("khronos/InterpolationTest.glb").string());
  for (const char* clip : {"0", "3", "6"}) {
    const std::string args = "pose " + path + " --clip " + clip + " --time 0.7 --json";
    const CommandOutput cpu = run_tool(args), gpu = run_tool(args + " --animation gpu");
    ASSERT_EQ(gpu.exit_code, 0) << gpu.out;
    EXPECT_LE(worst_difference(cpu.out, gpu.out), 1e-5) << clip;
  }
  const auto dir = test::scratch_dir("pose_gpu");
  std::ofstream(dir / "script.txt") << "add id=a clip=Walking\nadd id=b clip=Running phase=0.3 at=2,0,0\n"
                                       "update 0.3\nselect a Running crossfade=0.5\nupdate 0.2\n"
                                       "select a Idle crossfade=0.4\nupdate 0.1\nmove b 1 2 3\n";
  const std::string robot = quoted(test::asset_path("threejs/RobotExpressive.glb").string());
  const std::string args = "pose " + robot + " --script " + quoted((dir / "script.txt").string());
  const CommandOutput cpu = run_tool(args), gpu = run_tool(args + " --animation gpu");
  ASSERT_EQ(gpu.exit_code, 0) << gpu.out;
  // Joint matrices world · IBM cancel large translations: relative to max(1, |value|).
  EXPECT_LE(worst_difference(cpu.out, gpu.out), 1e-4);
  const CommandOutput rest = run_tool("pose " + robot + " --animation gpu 2>&1");
  EXPECT_NE(rest.exit_code, 0);
  EXPECT_NE(rest.out.find("animation_mode"), std::string::npos) << rest.out;
}

}  // namespace
}  // namespace gltf_crowd
