// Asset::drawn_nodes (computed at load): the mesh nodes reachable from the default scene through
// visible nodes, depth-first pre-order, roots and children in file order. The expected lists are
// written out by hand from the documents below.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/default_character.hpp"
#include "test_documents.hpp"

namespace gltf_crowd {
namespace {

using Nodes = std::vector<std::uint32_t>;

// One triangle as mesh 0.
test::Document triangle_document() {
  test::Document d;
  const int position = d.add_accessor(d.add_view(std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0}), 5126, 3, "VEC3",
                                      {{"min", {0, 0, 0}}, {"max", {1, 1, 0}}});
  d.json["meshes"] = {{{"primitives", {{{"attributes", {{"POSITION", position}}}}}}}};
  return d;
}

nlohmann::json node(bool mesh, std::vector<int> children = {}, bool hidden = false) {
  nlohmann::json n = nlohmann::json::object();
  if (mesh) n["mesh"] = 0;
  if (!children.empty()) n["children"] = children;
  if (hidden) n["extensions"] = {{"KHR_node_visibility", {{"visible", false}}}};
  return n;
}

TEST(DrawnNodes, PreOrderInFileOrderSkippingHiddenSubtrees) {
  test::Document d = triangle_document();
  d.json["extensionsUsed"] = {"KHR_node_visibility", "MSFT_lod"};
  d.json["nodes"] = {
      node(true, {3, 1}),     // 0: drawn; children listed out of index order
      node(false, {2}),       // 1: no mesh, its child is drawn
      node(true),             // 2
      node(true, {4}, true),  // 3: hidden, hides its subtree
      node(true),             // 4: under a hidden node
      node(true),             // 5: first scene root
      node(true),             // 6: detached (no parent, not a root)
      node(false, {8, 10}),   // 7: last scene root
      node(true),             // 8
      node(true),             // 9: detached MSFT_lod level of node 5
      node(true, {}, false),  // 10: explicitly visible below
  };
  d.json["nodes"][10]["extensions"] = {{"KHR_node_visibility", {{"visible", true}}}};
  d.json["nodes"][5]["extensions"] = {{"MSFT_lod", {{"ids", {9}}}}};
  d.json["scene"] = 0;
  d.json["scenes"] = {{{"nodes", {5, 0, 7}}}};
  const Asset a = load_asset_from_memory(d.gltf());
  EXPECT_EQ(a.drawn_nodes, (Nodes{5, 0, 2, 8, 10}));
}

TEST(DrawnNodes, DefaultSceneIsUsed) {
  test::Document d = triangle_document();
  d.json["nodes"] = {node(true), node(true), node(false, {0})};
  d.json["scene"] = 1;
  d.json["scenes"] = {{{"nodes", {1}}}, {{"nodes", {2}}}};
  EXPECT_EQ(load_asset_from_memory(d.gltf()).drawn_nodes, (Nodes{0}));
}

TEST(DrawnNodes, HiddenRootDrawsNothing) {
  test::Document d = triangle_document();
  d.json["extensionsUsed"] = {"KHR_node_visibility"};
  d.json["nodes"] = {node(true, {1}, true), node(true)};
  d.json["scenes"] = {{{"nodes", {0}}}};
  EXPECT_TRUE(load_asset_from_memory(d.gltf()).drawn_nodes.empty());
}

TEST(DrawnNodes, NoSceneDrawsNothing) {
  test::Document d = triangle_document();
  d.json["nodes"] = {node(true)};
  EXPECT_TRUE(load_asset_from_memory(d.gltf()).drawn_nodes.empty());
}

TEST(DrawnNodes, DefaultCharacterDrawsBodyAndHead) {
  const Asset a = load_asset_from_memory(default_character_glb());
  std::vector<std::string> names;
  for (const std::uint32_t n : a.drawn_nodes) names.push_back(a.nodes[n].name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"Body", "HeadMesh"}));
}

}  // namespace
}  // namespace gltf_crowd
