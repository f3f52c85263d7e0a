// Nodes, scene graph and skins (glTF 2.0 §3.5, §3.7.3; MSFT_lod; KHR_node_visibility).
#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>
#include <glm/gtc/type_ptr.hpp>
#include <glm/gtx/matrix_decompose.hpp>

#include "asset/accessor.hpp"
#include "asset/build.hpp"
#include "asset/checks.hpp"

namespace gltf_crowd::detail {
namespace {

// More MSFT_lod levels than any renderer uses; the cap keeps the duplicate check trivially cheap.
constexpr std::size_t kMaxLodLevels = 32;

bool finite(std::span<const double> values) {
  for (double v : values)
    if (!std::isfinite(v)) return false;
  return true;
}

std::vector<float> read_number_array(const tinygltf::Value& value, const std::string& path) {
  std::vector<float> out;
  if (!value.IsArray()) throw Error(path, Rule::not_array, "must be an array of numbers");
  for (std::size_t i = 0; i < value.ArrayLen(); ++i) {
    const tinygltf::Value& v = value.Get(static_cast<int>(i));
    if (!v.IsNumber()) throw Error(fmt::format("{}[{}]", path, i), Rule::not_number, "must be a number");
    out.push_back(static_cast<float>(v.GetNumberAsDouble()));
  }
  return out;
}

void read_lod(const tinygltf::Node& source, std::size_t index, std::size_t node_count, Node& node) {
  const auto it = source.extensions.find("MSFT_lod");
  if (it == source.extensions.end()) return;
  const std::string path = fmt::format("nodes[{}].extensions.MSFT_lod.ids", index);
  const tinygltf::Value& ids = it->second.Get("ids");
  if (!ids.IsArray() || ids.ArrayLen() == 0) throw Error(path, Rule::lod_ids, "must be a non-empty array");
  if (ids.ArrayLen() > kMaxLodLevels)
    throw Error(path, Rule::lod_id_count,
                fmt::format("{} levels exceed the limit of {}", ids.ArrayLen(), kMaxLodLevels));
  for (std::size_t i = 0; i < ids.ArrayLen(); ++i) {
    const tinygltf::Value& v = ids.Get(static_cast<int>(i));
    const std::string item = fmt::format("{}[{}]", path, i);
    if (!v.IsInt() && !(v.IsNumber() && std::floor(v.GetNumberAsDouble()) == v.GetNumberAsDouble()))
      throw Error(item, Rule::lod_id_integer, "must be an integer node index");
    const double id = v.GetNumberAsDouble();
    if (id < 0 || id >= static_cast<double>(node_count))
      throw Error(item, Rule::lod_id_range, fmt::format("node {} does not exist", id));
    const auto id_index = static_cast<std::uint32_t>(id);
    if (id_index == index) throw Error(item, Rule::lod_id_self, "a node cannot be its own level of detail");
    for (std::uint32_t previous : node.lod_ids)
      if (previous == id_index)
        throw Error(item, Rule::lod_id_duplicate, fmt::format("node {} listed twice", id_index));
    node.lod_ids.push_back(id_index);
  }
  if (source.extras.Has("MSFT_screencoverage")) {
    const std::string coverage_path = fmt::format("nodes[{}].extras.MSFT_screencoverage", index);
    node.lod_screen_coverage = read_number_array(source.extras.Get("MSFT_screencoverage"), coverage_path);
    for (std::size_t i = 0; i < node.lod_screen_coverage.size(); ++i)
      if (!std::isfinite(node.lod_screen_coverage[i]) || node.lod_screen_coverage[i] < 0.0f)
        throw Error(fmt::format("{}[{}]", coverage_path, i), Rule::lod_coverage, "must be a finite number >= 0");
  }
}

// Depth-first parents-first order; detached nodes (no parent, not in a scene) included.
std::vector<std::uint32_t> hierarchy_order(const std::vector<Node>& nodes) {
  std::vector<std::uint32_t> order;
  order.reserve(nodes.size());
  std::vector<std::uint32_t> stack;
  for (std::size_t root = 0; root < nodes.size(); ++root) {
    if (nodes[root].parent >= 0) continue;
    stack.push_back(static_cast<std::uint32_t>(root));
    while (!stack.empty()) {
      const std::uint32_t n = stack.back();
      stack.pop_back();
      order.push_back(n);
      const auto& children = nodes[n].children;
      for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
    }
  }
  return order;
}

// Mesh nodes reachable from `roots` through visible nodes, depth-first pre-order, children in
// file order (Asset::drawn_nodes). Nodes have one parent and roots are distinct, so each appears once.
std::vector<std::uint32_t> drawn_nodes(const std::vector<Node>& nodes, const std::vector<std::uint32_t>& roots) {
  std::vector<std::uint32_t> drawn;
  std::vector<std::uint32_t> stack(roots.rbegin(), roots.rend());
  while (!stack.empty()) {
    const std::uint32_t n = stack.back();
    stack.pop_back();
    const Node& node = nodes[n];
    if (!node.visible) continue;
    stack.insert(stack.end(), node.children.rbegin(), node.children.rend());
    if (node.mesh >= 0) drawn.push_back(n);
  }
  return drawn;
}

// One warning for all the names that several nodes share (docs/spec.md §2.8): a call taking such a
// name throws ambiguous_node, so the warning gives the path that names each of those nodes alone.
void warn_shared_names(Asset& asset) {
  constexpr std::size_t kListed = 8;
  std::vector<std::string_view> shared;  // in the order of their second node
  std::unordered_map<std::string_view, std::size_t> count;
  for (const Node& node : asset.nodes)
    if (!node.name.empty() && ++count[node.name] == 2) shared.push_back(node.name);
  if (shared.empty()) return;
  std::string listed;
  for (std::size_t k = 0; k < shared.size() && k < kListed; ++k) {
    // The first few of the nodes so named: a file may give thousands of nodes one name.
    constexpr std::size_t kNodesListed = 4;
    std::string nodes;
    std::size_t named = 0;
    for (std::size_t i = 0; i < asset.nodes.size(); ++i) {
      if (asset.nodes[i].name != shared[k] || named++ >= kNodesListed) continue;
      const std::string path = asset.node_path(static_cast<std::uint32_t>(i));
      nodes += fmt::format("{}{}{}", nodes.empty() ? "" : ", ", i, path.empty() ? "" : fmt::format(" \"{}\"", path));
    }
    if (named > kNodesListed) nodes += fmt::format(" and {} more", named - kNodesListed);
    listed += fmt::format("{}\"{}\" (nodes {})", k > 0 ? "; " : "", shared[k], nodes);
  }
  if (shared.size() > kListed) listed += fmt::format("; and {} more", shared.size() - kListed);
  asset.warnings.push_back(
      make_warning("nodes", Rule::duplicate_node_names,
                   fmt::format("{} shared by several nodes: {}; a call that takes such a name fails (ambiguous_node): "
                               "name the node by its path or index",
                               shared.size() == 1 ? "1 name is" : fmt::format("{} names are", shared.size()), listed)));
}

}  // namespace

std::vector<bool> animated_nodes(const tinygltf::Model& model) {
  std::vector<bool> animated(model.nodes.size(), false);
  for (const auto& animation : model.animations)
    for (const auto& channel : animation.channels)
      if (channel.target_node >= 0 && static_cast<std::size_t>(channel.target_node) < animated.size())
        animated[static_cast<std::size_t>(channel.target_node)] = true;
  return animated;
}

void build_nodes(const tinygltf::Model& model, const std::vector<bool>& animated, Asset& asset) {
  const std::size_t count = model.nodes.size();
  asset.nodes.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    const tinygltf::Node& source = model.nodes[i];
    Node& node = asset.nodes[i];
    const std::string path = fmt::format("nodes[{}]", i);
    node.name = source.name;
    if (source.mesh >= 0 && static_cast<std::size_t>(source.mesh) >= asset.meshes.size())
      throw Error(path + ".mesh", Rule::mesh_index, fmt::format("mesh {} does not exist", source.mesh));
    if (source.mesh < -1) throw Error(path + ".mesh", Rule::mesh_index, "negative index");
    node.mesh = source.mesh;
    if (source.skin >= 0 && static_cast<std::size_t>(source.skin) >= model.skins.size())
      throw Error(path + ".skin", Rule::skin_index, fmt::format("skin {} does not exist", source.skin));
    if (source.skin >= 0 && source.mesh < 0)
      throw Error(path + ".skin", Rule::skin_without_mesh, "a skin needs a mesh");
    node.skin = source.skin < 0 ? -1 : source.skin;
    for (double w : source.weights) {
      if (!std::isfinite(w)) throw_not_finite(path + ".weights", "morph weight");
      node.weights.push_back(static_cast<float>(w));
    }
    if (!source.matrix.empty()) {
      if (source.matrix.size() != 16 || !finite(source.matrix))
        throw Error(path + ".matrix", Rule::matrix, "must be 16 finite numbers");
      glm::dmat4 m = glm::make_mat4(source.matrix.data());
      node.matrix = glm::mat4(m);
      node.has_matrix = true;
      if (animated[i]) {
        glm::vec3 skew;
        glm::vec4 perspective;
        if (!glm::decompose(node.matrix, node.scale, node.rotation, node.translation, skew, perspective))
          throw Error(path + ".matrix", Rule::matrix_decompose, "an animated node's matrix must be a TRS matrix");
        node.rotation = glm::normalize(node.rotation);
        node.has_matrix = false;
      }
    } else {
      if (!source.translation.empty()) {
        if (source.translation.size() != 3 || !finite(source.translation))
          throw Error(path + ".translation", Rule::translation, "must be 3 finite numbers");
        node.translation = glm::vec3(source.translation[0], source.translation[1], source.translation[2]);
      }
      if (!source.rotation.empty()) {
        if (source.rotation.size() != 4 || !finite(source.rotation))
          throw Error(path + ".rotation", Rule::rotation, "must be 4 finite numbers");
        const glm::quat q(static_cast<float>(source.rotation[3]), static_cast<float>(source.rotation[0]),
                          static_cast<float>(source.rotation[1]), static_cast<float>(source.rotation[2]));
        const float len = glm::length(q);
        if (len < 1e-6f) throw Error(path + ".rotation", Rule::rotation_zero, "zero-length quaternion");
        node.rotation = q / len;
      }
      if (!source.scale.empty()) {
        if (source.scale.size() != 3 || !finite(source.scale))
          throw Error(path + ".scale", Rule::scale, "must be 3 finite numbers");
        node.scale = glm::vec3(source.scale[0], source.scale[1], source.scale[2]);
      }
    }
    const auto visibility = source.extensions.find("KHR_node_visibility");
    if (visibility != source.extensions.end() && visibility->second.Has("visible")) {
      const tinygltf::Value& visible = visibility->second.Get("visible");
      if (!visible.IsBool())
        throw Error(path + ".extensions.KHR_node_visibility.visible", Rule::not_boolean, "must be true or false");
      node.visible = visible.Get<bool>();
    }
    read_lod(source, i, count, node);
    for (std::size_t c = 0; c < source.children.size(); ++c) {
      const int child = source.children[c];
      const std::string child_path = fmt::format("{}.children[{}]", path, c);
      if (child < 0 || static_cast<std::size_t>(child) >= count)
        throw Error(child_path, Rule::node_index, fmt::format("node {} does not exist", child));
      if (static_cast<std::size_t>(child) == i)
        throw Error(child_path, Rule::node_cycle, "a node cannot be its own child");
      node.children.push_back(static_cast<std::uint32_t>(child));
    }
  }
  for (std::size_t i = 0; i < count; ++i) {
    for (std::uint32_t child : asset.nodes[i].children) {
      Node& c = asset.nodes[child];
      if (c.parent >= 0)
        throw Error(fmt::format("nodes[{}]", child), Rule::node_multiple_parents,
                    fmt::format("has two parents, nodes {} and {}", c.parent, i));
      c.parent = static_cast<std::int32_t>(i);
    }
  }
  // Cycles: a cycle has no root, so the walk from roots misses its nodes.
  asset.hierarchy_order = hierarchy_order(asset.nodes);
  if (asset.hierarchy_order.size() != count) {
    std::vector<bool> seen(count, false);
    for (std::uint32_t n : asset.hierarchy_order) seen[n] = true;
    for (std::size_t i = 0; i < count; ++i)
      if (!seen[i]) throw Error(fmt::format("nodes[{}]", i), Rule::node_cycle, "is part of a cycle in the node graph");
  }
  const int scene = model.defaultScene >= 0 ? model.defaultScene : 0;
  if (model.defaultScene >= 0 && static_cast<std::size_t>(model.defaultScene) >= model.scenes.size())
    throw Error("scene", Rule::scene_index, fmt::format("scene {} does not exist", model.defaultScene));
  if (static_cast<std::size_t>(scene) < model.scenes.size()) {
    const auto& roots = model.scenes[static_cast<std::size_t>(scene)].nodes;
    std::vector<bool> is_root(count, false);
    for (std::size_t r = 0; r < roots.size(); ++r) {
      const int root = roots[r];
      const std::string root_path = fmt::format("scenes[{}].nodes[{}]", scene, r);
      if (root < 0 || static_cast<std::size_t>(root) >= count)
        throw Error(root_path, Rule::node_index, fmt::format("node {} does not exist", root));
      if (asset.nodes[static_cast<std::size_t>(root)].parent >= 0)
        throw Error(root_path, Rule::scene_root_has_parent, fmt::format("node {} is not a root", root));
      if (is_root[static_cast<std::size_t>(root)])
        throw Error(root_path, Rule::scene_root_duplicate, fmt::format("node {} is listed twice", root));
      is_root[static_cast<std::size_t>(root)] = true;
      asset.scene_roots.push_back(static_cast<std::uint32_t>(root));
    }
  }
  asset.drawn_nodes = drawn_nodes(asset.nodes, asset.scene_roots);
  warn_shared_names(asset);
}

void build_skins(const tinygltf::Model& model, AccessorReader& accessors, Asset& asset) {
  asset.skins.resize(model.skins.size());
  // last_skin[node] = 1 + the last skin that listed it: one array for all skins, so checking for
  // duplicates costs O(joints), not O(skins × nodes).
  std::vector<std::size_t> last_skin(asset.nodes.size(), 0);
  for (std::size_t s = 0; s < model.skins.size(); ++s) {
    const tinygltf::Skin& source = model.skins[s];
    Skin& skin = asset.skins[s];
    const std::string path = fmt::format("skins[{}]", s);
    skin.name = source.name;
    if (source.joints.empty()) throw Error(path + ".joints", Rule::skin_no_joints, "a skin needs at least one joint");
    for (std::size_t j = 0; j < source.joints.size(); ++j) {
      const int joint = source.joints[j];
      const std::string joint_path = fmt::format("{}.joints[{}]", path, j);
      if (joint < 0 || static_cast<std::size_t>(joint) >= asset.nodes.size())
        throw Error(joint_path, Rule::node_index, fmt::format("node {} does not exist", joint));
      if (last_skin[static_cast<std::size_t>(joint)] == s + 1)
        throw Error(joint_path, Rule::skin_joint_duplicate, fmt::format("node {} listed twice", joint));
      last_skin[static_cast<std::size_t>(joint)] = s + 1;
      skin.joints.push_back(static_cast<std::uint32_t>(joint));
    }
    if (source.skeleton >= 0 && static_cast<std::size_t>(source.skeleton) >= asset.nodes.size())
      throw Error(path + ".skeleton", Rule::node_index, fmt::format("node {} does not exist", source.skeleton));
    skin.skeleton = source.skeleton < 0 ? -1 : source.skeleton;
    skin.inverse_bind_matrices.assign(skin.joints.size(), glm::mat4(1.0f));
    if (source.inverseBindMatrices >= 0) {
      const DecodedAccessor ibm = accessors.read_floats(source.inverseBindMatrices, path + ".inverseBindMatrices");
      const std::string ibm_path = path + ".inverseBindMatrices";
      if (ibm.components != 16) throw Error(ibm_path, Rule::ibm_type, "must be a MAT4 accessor");
      if (ibm.count < skin.joints.size())
        throw Error(ibm_path, Rule::ibm_count,
                    fmt::format("{} inverse bind matrices for {} joints", ibm.count, skin.joints.size()));
      for (std::size_t j = 0; j < skin.joints.size(); ++j) {
        for (int k = 0; k < 16; ++k)
          if (!std::isfinite(ibm.floats[j * 16 + static_cast<std::size_t>(k)]))
            throw_not_finite(ibm_path, fmt::format("matrix {}", j));
        skin.inverse_bind_matrices[j] = glm::make_mat4(ibm.floats.data() + j * 16);
      }
    }
  }
  // The largest joint index per mesh, found once, so thousands of nodes sharing one skinned mesh
  // (RecursiveSkeletons) cost one comparison each.
  std::vector<int> max_joint(asset.meshes.size(), -1);
  for (std::size_t m = 0; m < asset.meshes.size(); ++m)
    for (const Primitive& prim : asset.meshes[m].primitives)
      for (const auto* joints : {&prim.joints0, &prim.joints1})
        for (const glm::u16vec4& j : *joints)
          max_joint[m] = std::max({max_joint[m], int{j.x}, int{j.y}, int{j.z}, int{j.w}});
  for (std::size_t n = 0; n < asset.nodes.size(); ++n) {
    const Node& node = asset.nodes[n];
    if (node.skin < 0) continue;
    const std::size_t joint_count = asset.skins[static_cast<std::size_t>(node.skin)].joints.size();
    if (max_joint[static_cast<std::size_t>(node.mesh)] < static_cast<int>(joint_count)) continue;
    const Mesh& mesh = asset.meshes[static_cast<std::size_t>(node.mesh)];
    for (std::size_t p = 0; p < mesh.primitives.size(); ++p) {
      const Primitive& prim = mesh.primitives[p];
      const std::pair<const std::vector<glm::u16vec4>&, const char*> sets[] = {{prim.joints0, "JOINTS_0"},
                                                                               {prim.joints1, "JOINTS_1"}};
      for (const auto& [joints, name] : sets) {
        for (std::size_t v = 0; v < joints.size(); ++v)
          for (int c = 0; c < 4; ++c)
            if (joints[v][c] >= joint_count)
              throw Error(fmt::format("nodes[{}].skin", n), Rule::joint_index,
                          fmt::format("joint {} >= joint count {} of skins[{}] (vertex {} of "
                                      "meshes[{}].primitives[{}].attributes.{})",
                                      joints[v][c], joint_count, node.skin, v, node.mesh, p, name));
      }
    }
  }
}

}  // namespace gltf_crowd::detail
