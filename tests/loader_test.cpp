// Every shared asset loads, with the numbers of ../shared/assets/README.md.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gltf_crowd/asset.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

std::size_t reachable_primitives(const Asset& asset) {
  std::size_t count = 0;
  for (const std::uint32_t n : asset.drawn_nodes)
    count += asset.meshes[static_cast<std::size_t>(asset.nodes[n].mesh)].primitives.size();
  return count;
}

TEST(LoaderTest, EverySharedAssetLoads) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const char* files[] = {"threejs/RobotExpressive.glb",
                         "lumagl/SimpleSkinLOD.gltf",
                         "lumagl/msft-lod.gltf",
                         "lumagl/SimpleSkin.gltf",
                         "lumagl/AnimatedMorphCube.glb",
                         "khronos/CesiumMan.glb",
                         "khronos/Fox.glb",
                         "khronos/RiggedSimple.glb",
                         "khronos/RiggedFigure.glb",
                         "khronos/RecursiveSkeletons.glb",
                         "khronos/InterpolationTest.glb",
                         "khronos/NegativeScaleTest.glb",
                         "khronos/BoxAnimated.glb",
                         "khronos/AnimatedColorsCube.glb",
                         "khronos/SimpleInstancing.glb",
                         "khronos/MorphStressTest/MorphStressTest.gltf",
                         "khronos/SimpleMorph.gltf",
                         "khronos/AnimatedTriangle.gltf",
                         "khronos/SimpleSparseAccessor.gltf"};
  for (const char* file : files) {
    SCOPED_TRACE(file);
    EXPECT_NO_THROW(load_asset(test::asset_path(file)));
  }
}

TEST(LoaderTest, RobotExpressiveNumbers) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const Asset a = load_asset(test::asset_path("threejs/RobotExpressive.glb"));
  EXPECT_EQ(a.nodes.size(), 74u);
  EXPECT_EQ(a.meshes.size(), 14u);
  EXPECT_EQ(reachable_primitives(a), 19u);
  ASSERT_EQ(a.skins.size(), 2u);
  EXPECT_EQ(a.skins[0].joints.size(), 43u);
  ASSERT_EQ(a.clips.size(), 14u);
  const int dance = a.find_clip("Dance");
  ASSERT_GE(dance, 0);
  EXPECT_NEAR(a.clips[static_cast<std::size_t>(dance)].duration_seconds, 3.333f, 1e-3f);
  EXPECT_NEAR(a.clips[static_cast<std::size_t>(a.find_clip("Running"))].duration_seconds, 0.9583f, 1e-3f);
}

TEST(LoaderTest, RecursiveSkeletonsHas84ReachablePrimitiveInstances) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const Asset a = load_asset(test::asset_path("khronos/RecursiveSkeletons.glb"));
  EXPECT_EQ(a.nodes.size(), 924u);
  EXPECT_EQ(reachable_primitives(a), 84u);
  EXPECT_EQ(a.skins.size(), 84u);
}

TEST(LoaderTest, SparseAccessorIsApplied) {
  GLTF_CROWD_REQUIRE_ASSETS();
  // SimpleSparseAccessor: a 7×2 grid of vertices at y = 0 and 1; the sparse part (indices
  // 8, 10, 12; values read from the file with a script) moves them to (1,2,0), (3,3,0), (5,4,0).
  const Asset a = load_asset(test::asset_path("khronos/SimpleSparseAccessor.gltf"));
  const Primitive& p = a.meshes[0].primitives[0];
  ASSERT_EQ(p.vertex_count(), 14u);
  EXPECT_EQ(p.positions[8], glm::vec3(1, 2, 0));
  EXPECT_EQ(p.positions[10], glm::vec3(3, 3, 0));
  EXPECT_EQ(p.positions[12], glm::vec3(5, 4, 0));
  EXPECT_EQ(p.positions[9], glm::vec3(2, 1, 0));
  EXPECT_FLOAT_EQ(p.max.y, 4.0f);
}

// Node names (docs/spec.md §2.3) on RobotExpressive, whose joints and mesh nodes share eight
// names. Indices and parents are the file's (read from its JSON by hand): Torso is node 7 (mesh 1,
// child of Body) and node 10 (joint of both skins, child of Abdomen); Head is 12 (joint, child of
// Neck) and 13 (mesh 2, child of 12).
TEST(NodeNames, SharedNamesAreErrorsAndPathsNameOneNode) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const Asset robot = load_asset(test::asset_path("threejs/RobotExpressive.glb"));
  EXPECT_EQ(robot.find_node("Torso"), -1) << "not silently the mesh node";
  EXPECT_EQ(robot.find_nodes("Torso"), (std::vector<std::uint32_t>{7, 10}));
  EXPECT_EQ(robot.find_node("Abdomen/Torso"), 10);
  EXPECT_EQ(robot.find_node("Body/Torso"), 7);
  EXPECT_EQ(robot.find_node("Neck/Head"), 12);
  EXPECT_EQ(robot.find_node("Head/Head"), 13);
  EXPECT_EQ(robot.find_node("RootNode/RobotArmature/Bone/Body/Hips/Abdomen/Torso"), 10);
  EXPECT_EQ(robot.find_node("Hips/Torso"), -1) << "a path's parts are consecutive parents";
  EXPECT_EQ(robot.find_node("Neck"), 11);
  EXPECT_EQ(robot.find_node(""), -1);
  EXPECT_EQ(robot.node_path(10), "Abdomen/Torso");
  EXPECT_EQ(robot.node_path(13), "Head/Head");
  EXPECT_EQ(robot.node_path(11), "Neck");
  try {
    (void)robot.resolve_node("Torso", "here");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "ambiguous_node");
    EXPECT_EQ(e.path(), "here");
    const std::string what = e.what();
    EXPECT_NE(what.find("7 (child of \"Body\", mesh 1, path \"Body/Torso\")"), std::string::npos) << what;
    EXPECT_NE(what.find("10 (child of \"Abdomen\", joint of skin 0, 1, path \"Abdomen/Torso\")"), std::string::npos)
        << what;
  }
  EXPECT_EQ(robot.resolve_node("Abdomen/Torso", "here"), 10u);
  std::size_t shared = 0;
  for (const Warning& w : robot.warnings) {
    if (w.rule != "duplicate_node_names") continue;
    ++shared;
    EXPECT_EQ(w.path, "nodes");
    EXPECT_NE(w.message.find("\"Torso\" (nodes 7 \"Body/Torso\", 10 \"Abdomen/Torso\")"), std::string::npos)
        << w.message;
  }
  EXPECT_EQ(shared, 1u) << "one warning for the document";
}

// A node's exact name comes before any path: the node named "a/b" is "a/b", so the child b of a
// has no path and no name of its own (another root is named b too) and is reachable by index only.
TEST(NodeNames, ANameWithASlashIsTakenWhole) {
  const std::string text = R"({"asset":{"version":"2.0"},"scenes":[{"nodes":[0,2,3]}],)"
                           R"("nodes":[{"name":"a","children":[1]},{"name":"b"},{"name":"a/b"},{"name":"b"}]})";
  const Asset a = load_asset_from_memory(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  EXPECT_EQ(a.find_node("a/b"), 2);
  EXPECT_EQ(a.find_node("b"), -1);
  EXPECT_EQ(a.node_path(2), "a/b");
  EXPECT_EQ(a.node_path(1), "");
  EXPECT_EQ(a.node_path(3), "");
  EXPECT_EQ(a.node_path(0), "a");
  ASSERT_EQ(a.warnings.size(), 1u);
  EXPECT_EQ(a.warnings[0].message.rfind("1 name is shared by several nodes: \"b\"", 0), 0u) << a.warnings[0].message;
}

// An empty name matches no node, and neither does a path with an empty part (§2.3): "Hips/" is
// not Hips's unnamed child, "/Hips" not Hips under an unnamed root, "Hips//Spine" nothing. The
// unnamed nodes have no path of their own.
TEST(NodeNames, APathWithAnEmptyPartMatchesNoNode) {
  const std::string text = R"({"asset":{"version":"2.0"},"scenes":[{"nodes":[0]}],)"
                           R"("nodes":[{"children":[1]},{"name":"Hips","children":[2,3]},{},{"name":"Spine"}]})";
  const Asset a = load_asset_from_memory(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  for (const char* name : {"Hips/", "/Hips", "Hips//Spine", "/", "//", "Hips/Spine/"}) {
    EXPECT_EQ(a.find_nodes(name), std::vector<std::uint32_t>{}) << name;
    EXPECT_EQ(a.find_node(name), -1) << name;
    try {
      (void)a.resolve_node(name, "here");
      ADD_FAILURE() << name << " resolved";
    } catch (const Error& e) {
      EXPECT_EQ(e.rule(), "unknown_node") << name;
    }
  }
  EXPECT_EQ(a.find_node("Hips/Spine"), 3);
  EXPECT_EQ(a.node_path(2), "");
  EXPECT_EQ(a.node_path(0), "");
  EXPECT_EQ(a.node_path(1), "Hips");
}

// A hostile file: 1,000 nodes in one chain, all named "x". Every path of up to 999 parts matches
// several of them, so searching each node's path to the root costs N^4; loading and the errors
// list the first few nodes and stop paths at 16 parts, so it loads at once.
TEST(NodeNames, AChainOfOneNameLoadsAndListsTheFirstFew) {
  constexpr std::size_t kNodes = 1000;
  std::string nodes;
  for (std::size_t i = 0; i < kNodes; ++i)
    nodes += fmt::format(R"({}{{"name":"x"{}}})", i > 0 ? "," : "",
                         i + 1 < kNodes ? fmt::format(R"(,"children":[{}])", i + 1) : "");
  const std::string text = R"({"asset":{"version":"2.0"},"scenes":[{"nodes":[0]}],"nodes":[)" + nodes + "]}";
  const Asset a = load_asset_from_memory(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  ASSERT_EQ(a.warnings.size(), 1u);
  EXPECT_EQ(a.warnings[0].message.rfind("1 name is shared by several nodes: \"x\" (nodes 0, 1, 2, 3 and 996 more)", 0),
            0u)
      << a.warnings[0].message;
  EXPECT_EQ(a.node_path(kNodes - 1), "") << "a path of 1,000 parts is past the bound";
  EXPECT_EQ(a.node_path(kNodes), "") << "out of range";
  try {
    (void)a.resolve_node("x", "here");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "ambiguous_node");
    EXPECT_NE(std::string(e.what()).find("matches 1000 nodes: 0 ("), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("; and 992 more"), std::string::npos) << e.what();
  }
}

// unknown_node lists the closest names first: those containing the asked name, then by edit
// distance, ignoring case.
TEST(NodeNames, UnknownNameListsTheClosestFirst) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const Asset robot = load_asset(test::asset_path("threejs/RobotExpressive.glb"));
  for (const char* name : {"hand", "Armature/hand"}) {
    SCOPED_TRACE(name);
    try {
      (void)robot.resolve_node(name, "node_world.node");
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.rule(), "unknown_node");
      const std::string what = e.what();
      EXPECT_NE(what.find("; closest: Hand.R, Hand.L, "), std::string::npos) << what;
      EXPECT_NE(what.find("(and 58 more names)"), std::string::npos) << what;  // 66 distinct names, 8 listed
    }
  }
  EXPECT_EQ(closest_node_names(robot, "Spin").rfind("closest: ", 0), 0u);
  const std::string arms = closest_node_names(robot, "LowerArm.X");  // distance 1 each, ties in node order
  EXPECT_EQ(arms.rfind("closest: LowerArm.L, LowerArm.R, ", 0), 0u) << arms;
}

}  // namespace
}  // namespace gltf_crowd
