// `gltf-crowd info <asset> [--json] [--nodes]`: what a crowd made from the asset would draw and animate
// (docs/spec.md §8): meshes and primitives (all, and those drawn: Asset::drawn_nodes, counting a mesh
// once per node that uses it), skins, clips with durations, morph targets, MSFT_lod levels, materials,
// extensions, and the rest-pose and animated bounds (gltf_crowd/bounds.hpp). Loading runs the
// full validation of docs/spec.md §2, so a bad file exits non-zero with the error (JSON path and rule) on
// stderr.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/bounds.hpp"
#include "gltf_crowd/error.hpp"
#include "gltf_crowd/lod.hpp"
#include "gltf_crowd/rig.hpp"
#include "tools/cli_numbers.hpp"
#include "tools/commands.hpp"
#include "tools/crowd_scene.hpp"
#include "tools/lod_report.hpp"

namespace gltf_crowd::tools {
namespace {

struct InfoOptions {
  std::string asset;
  LoadOptions load;  // --allow-outside-resources
  bool json = false;
  bool nodes = false;
};

std::size_t mesh_primitives(const Asset& asset, std::uint32_t node) {
  const std::int32_t mesh = asset.nodes[node].mesh;
  return mesh < 0 ? 0 : asset.meshes[static_cast<std::size_t>(mesh)].primitives.size();
}

// Primitives of the meshes in the subtrees of an MSFT_lod node's levels (children only: levels
// are alternates, not children).
std::size_t level_primitives(const Asset& asset, const std::vector<std::uint32_t>& levels) {
  std::size_t count = 0;
  std::vector<std::uint32_t> stack(levels.begin(), levels.end());
  while (!stack.empty()) {
    const std::uint32_t n = stack.back();
    stack.pop_back();
    count += mesh_primitives(asset, n);
    stack.insert(stack.end(), asset.nodes[n].children.begin(), asset.nodes[n].children.end());
  }
  return count;
}

// Every node in depth-first order from the roots (children in file order), for --nodes: what a
// call taking a node name needs to know (docs/spec.md §2.3, §8.3).
nlohmann::json node_tree(const Asset& asset) {
  std::vector<std::vector<std::uint32_t>> joint_of(asset.nodes.size());
  for (std::size_t s = 0; s < asset.skins.size(); ++s)
    for (const std::uint32_t j : asset.skins[s].joints) joint_of[j].push_back(static_cast<std::uint32_t>(s));
  std::vector<std::size_t> clips(asset.nodes.size(), 0);  // how many clips animate the node
  for (const Clip& clip : asset.clips) {
    std::vector<bool> seen(asset.nodes.size(), false);
    for (const Channel& ch : clip.channels) seen[ch.node] = true;
    for (std::size_t n = 0; n < seen.size(); ++n) clips[n] += seen[n] ? 1 : 0;
  }
  nlohmann::json out = nlohmann::json::array();
  std::vector<std::pair<std::uint32_t, std::size_t>> stack;  // node, depth
  for (std::size_t n = asset.nodes.size(); n-- > 0;)
    if (asset.nodes[n].parent < 0) stack.emplace_back(static_cast<std::uint32_t>(n), 0);
  while (!stack.empty()) {
    const auto [n, depth] = stack.back();
    stack.pop_back();
    const Node& node = asset.nodes[n];
    out.push_back({{"index", n},
                   {"name", node.name},
                   {"depth", depth},
                   {"parent", node.parent},
                   {"path", asset.node_path(n)},
                   {"mesh", node.mesh},
                   {"skin", node.skin},
                   {"joint_of", joint_of[n]},
                   {"animating_clips", clips[n]}});
    for (auto c = node.children.rbegin(); c != node.children.rend(); ++c) stack.emplace_back(*c, depth + 1);
  }
  return out;
}

void print_node_tree(const nlohmann::json& tree) {
  fmt::print("  node tree ({}; a name several nodes share needs the path shown, or the index):\n",
             count_of(tree.size(), "node"));
  for (const auto& n : tree) {
    std::vector<std::string> notes;
    const auto joint_of = n["joint_of"].get<std::vector<std::uint32_t>>();
    if (!joint_of.empty()) notes.push_back(fmt::format("joint of skin {}", fmt::join(joint_of, ", ")));
    const auto mesh = n["mesh"].get<std::int32_t>(), skin = n["skin"].get<std::int32_t>();
    if (mesh >= 0 && skin >= 0)
      notes.push_back(fmt::format("mesh {} skinned by skin {}: its own transform does not move it", mesh, skin));
    if (mesh >= 0 && skin < 0) notes.push_back(fmt::format("mesh {}", mesh));
    if (const auto clips = n["animating_clips"].get<std::size_t>(); clips > 0)
      notes.push_back(fmt::format("animated by {} clip{}", clips, clips == 1 ? "" : "s"));
    const auto name = n["name"].get<std::string>(), path = n["path"].get<std::string>();
    if (path != name) notes.push_back(path.empty() ? "shared name: use the index" : fmt::format("as \"{}\"", path));
    fmt::print("    {:{}}{} \"{}\"{}\n", "", 2 * n["depth"].get<std::size_t>(), n["index"].get<std::uint32_t>(), name,
               notes.empty() ? "" : fmt::format("  [{}]", fmt::join(notes, "; ")));
  }
}

// {min, max, size} in asset units, or null when nothing is drawn.
nlohmann::json bounds_json(const Bounds& b) {
  if (b.empty()) return nullptr;
  const auto xyz = [](const glm::vec3& v) { return nlohmann::json::array({v.x, v.y, v.z}); };
  return {{"min", xyz(b.min)}, {"max", xyz(b.max)}, {"size", xyz(b.size())}};
}

nlohmann::json summarize(const Asset& asset, const std::string& file) {
  std::size_t primitives = 0, vertices = 0, morph_targets = 0, morph_primitives = 0;
  for (const Mesh& mesh : asset.meshes) {
    primitives += mesh.primitives.size();
    morph_targets += mesh.primitives.empty() ? 0 : mesh.primitives[0].targets.size();
    for (const Primitive& p : mesh.primitives) {
      vertices += p.vertex_count();
      morph_primitives += p.targets.empty() ? 0 : 1;
    }
  }
  // What the crowd draws: Asset::drawn_nodes, a mesh once per node.
  std::size_t reachable = 0;
  std::vector<std::uint32_t> lod_nodes;
  for (const std::uint32_t n : asset.drawn_nodes) {
    reachable += mesh_primitives(asset, n);
    if (!asset.nodes[n].lod_ids.empty()) lod_nodes.push_back(n);
  }
  std::size_t lod_primitives = 0;
  nlohmann::json lod = nlohmann::json::array();
  for (std::uint32_t n : lod_nodes) {
    const Node& node = asset.nodes[n];
    lod_primitives += level_primitives(asset, node.lod_ids);
    std::vector<std::uint32_t> levels{n};
    levels.insert(levels.end(), node.lod_ids.begin(), node.lod_ids.end());
    lod.push_back(
        {{"node", n}, {"name", node.name}, {"levels", levels}, {"screen_coverage", node.lod_screen_coverage}});
  }
  nlohmann::json skins = nlohmann::json::array();
  for (const Skin& skin : asset.skins) skins.push_back({{"name", skin.name}, {"joints", skin.joints.size()}});
  std::size_t skinned_nodes = 0;
  for (const Node& node : asset.nodes) skinned_nodes += node.skin >= 0 ? 1 : 0;
  nlohmann::json clips = nlohmann::json::array();
  const Bounds rest = rest_bounds(asset);
  Bounds animated = asset.clips.empty() ? rest : Bounds{};  // as animated_bounds(asset), once
  // The clips as a crowd compiles them, against the drawn nodes' rig: what sampling drops
  // (constant channels keep one key) is said here.
  const std::vector<ClipTracks> tracks = build_clip_tracks(asset, build_rig(asset, asset.drawn_nodes));
  for (std::size_t c = 0; c < asset.clips.size(); ++c) {
    const Clip& clip = asset.clips[c];
    const Bounds clip_bounds = animated_bounds(asset, c);
    animated.add(clip_bounds);
    clips.push_back({{"name", clip.name},
                     {"duration", clip.duration_seconds},
                     {"channels", clip.channels.size()},
                     {"sampled_channels", tracks[c].channels.size()},
                     {"constant_channels", tracks[c].constant_channels},
                     {"bounds", bounds_json(clip_bounds)}});
  }
  // What a crowd with auto_generate and the default options would draw: authored levels, else
  // generated ones; an invalid MSFT_lod is reported here rather than failing the summary.
  nlohmann::json levels_of_detail;
  try {
    LodOptions options;
    options.auto_generate = true;
    const LodModel model = build_lod_model(asset, options);
    levels_of_detail = {{"source", to_string(model.source)},
                        {"screen_coverage", model.thresholds},
                        {"levels", lod_levels_json(model)},
                        {"dropped_ratios", model.dropped_ratios},
                        {"dropped_levels", dropped_levels_json(model.dropped_levels)}};
  } catch (const Error& e) {
    levels_of_detail = {{"error", e.what()}};
  }
  nlohmann::json warnings = nlohmann::json::array();
  for (const Warning& w : asset.warnings)
    warnings.push_back({{"path", w.path}, {"rule", w.rule}, {"message", w.message}});
  return {{"file", file},
          {"nodes", asset.nodes.size()},
          {"scene_roots", asset.scene_roots},
          {"meshes", asset.meshes.size()},
          {"primitives", primitives},
          {"reachable_primitives", reachable},
          {"lod_primitives", lod_primitives},
          {"vertices", vertices},
          {"skins", skins},
          {"skinned_nodes", skinned_nodes},
          {"clips", clips},
          {"rest_bounds", bounds_json(rest)},
          {"animated_bounds", bounds_json(animated)},
          {"morph_targets", morph_targets},
          {"morph_primitives", morph_primitives},
          {"lod", lod},
          {"levels_of_detail", levels_of_detail},
          {"materials", asset.materials.size()},
          {"textures", asset.textures.size()},
          {"images", asset.images.size()},
          {"extensions_used", asset.extensions_used},
          {"extensions_required", asset.extensions_required},
          {"warnings", warnings}};
}

std::string list_or_dash(const nlohmann::json& strings) {
  return strings.empty() ? "-" : fmt::format("{}", fmt::join(strings.get<std::vector<std::string>>(), ", "));
}

void print_bounds(const char* label, const nlohmann::json& b) {
  if (b.is_null()) {
    fmt::print("  {}: -\n", label);
    return;
  }
  const auto xyz = [](const nlohmann::json& v) {
    return fmt::format("({:.4g}, {:.4g}, {:.4g})", v[0].get<float>(), v[1].get<float>(), v[2].get<float>());
  };
  fmt::print("  {}: min {}, max {}, size {}\n", label, xyz(b["min"]), xyz(b["max"]), xyz(b["size"]));
}

void print_text(const nlohmann::json& s) {
  fmt::print("{}\n", s["file"].get<std::string>());
  fmt::print(
      "  nodes {}, meshes {}, primitives {} ({} reachable from the default scene, {} in LOD levels), "
      "vertices {}\n",
      s["nodes"].get<std::size_t>(), s["meshes"].get<std::size_t>(), s["primitives"].get<std::size_t>(),
      s["reachable_primitives"].get<std::size_t>(), s["lod_primitives"].get<std::size_t>(),
      s["vertices"].get<std::size_t>());
  fmt::print("  skins {} (skinned nodes {})\n", s["skins"].size(), s["skinned_nodes"].get<std::size_t>());
  for (std::size_t i = 0; i < s["skins"].size(); ++i)
    fmt::print("    skins[{}] \"{}\": {}\n", i, s["skins"][i]["name"].get<std::string>(),
               count_of(s["skins"][i]["joints"].get<std::size_t>(), "joint"));
  fmt::print("  clips {}\n", s["clips"].size());
  for (const auto& clip : s["clips"]) {
    // A weights channel is sampled as one track per morph weight: the sampled count is named only
    // where that makes it differ, so that it never reads as more channels than the clip has. The
    // constant tracks are counted among the sampled ones and keep one key after compiling, however
    // many the file holds.
    const auto channels = clip["channels"].get<std::size_t>();
    const auto sampled = clip["sampled_channels"].get<std::size_t>();
    const auto constant = clip["constant_channels"].get<std::size_t>();
    std::vector<std::string> notes;
    if (sampled != channels) notes.push_back(fmt::format("sampled as {}: one per morph weight", sampled));
    if (constant > 0)
      notes.push_back(fmt::format("{}{} never change{}: kept as one key each", constant,
                                  sampled != channels ? " of them" : "", constant == 1 ? "s" : ""));
    fmt::print("    \"{}\": {:.4g} s, {} channel{}{}\n", clip["name"].get<std::string>(),
               clip["duration"].get<double>(), channels, channels == 1 ? "" : "s",
               notes.empty() ? "" : fmt::format(" ({})", fmt::join(notes, "; ")));
  }
  print_bounds("rest bounds", s["rest_bounds"]);
  print_bounds("animated bounds (all clips)", s["animated_bounds"]);
  fmt::print("  morph targets {} (on {})\n", s["morph_targets"].get<std::size_t>(),
             count_of(s["morph_primitives"].get<std::size_t>(), "primitive"));
  for (const auto& lod : s["lod"])
    fmt::print("  MSFT_lod: nodes[{}] levels [{}], screen coverage [{}]\n", lod["node"].get<std::uint32_t>(),
               fmt::join(lod["levels"].get<std::vector<std::uint32_t>>(), ", "),
               fmt::join(lod["screen_coverage"].get<std::vector<float>>(), ", "));
  const nlohmann::json& lod_levels = s["levels_of_detail"];
  if (lod_levels.contains("error")) {
    fmt::print("  levels of detail: {}\n", lod_levels["error"].get<std::string>());
  } else {
    const std::string source = lod_levels["source"].get<std::string>();
    fmt::print("  levels of detail ({}), screen coverage [{}]:\n",
               source == "generated" ? "generated at ratios 0.5, 0.25" : source,
               fmt::join(lod_levels["screen_coverage"].get<std::vector<float>>(), ", "));
    print_lod_levels(lod_levels["levels"], 4);
    print_dropped_ratios(lod_levels["dropped_ratios"].get<std::vector<float>>(), 4);
    print_dropped_levels(lod_levels["dropped_levels"], 4);
  }
  fmt::print("  materials {}, textures {}, images {}\n", s["materials"].get<std::size_t>(),
             s["textures"].get<std::size_t>(), s["images"].get<std::size_t>());
  fmt::print("  extensions used: {}; required: {}\n", list_or_dash(s["extensions_used"]),
             list_or_dash(s["extensions_required"]));
  for (const auto& w : s["warnings"])
    fmt::print("  warning: {} [{}] {}\n", w["path"].get<std::string>(), w["rule"].get<std::string>(),
               w["message"].get<std::string>());
  if (s.contains("node_tree")) print_node_tree(s["node_tree"]);
}

void run_info(const InfoOptions& options) {
  const Asset asset = load_named_asset(options.asset, options.load);
  nlohmann::json summary = summarize(asset, options.asset);
  if (options.nodes) summary["node_tree"] = node_tree(asset);
  if (options.json)
    fmt::print("{}\n", json_text(summary, 2));
  else
    print_text(summary);
}

}  // namespace

void register_info(CLI::App& app) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* info = app.add_subcommand("info", "Load and validate a glTF asset and summarize what a crowd would draw");
  add_load_options(*info, options->load);
  info->add_option("asset", options->asset, "glTF 2.0 file (.gltf or .glb)")->required();
  info->add_flag(
      "--json", options->json,
      "print JSON: nodes, meshes, primitives, reachable_primitives, skins [{joints}], "
      "clips [{name, duration, channels, sampled_channels (one per TRS channel and per morph weight), "
      "constant_channels (of those, kept as one key), bounds}], rest_bounds and animated_bounds ({min, max, size} in "
      "asset units), morph_targets, lod [{node, levels}], levels_of_detail {source, screen_coverage, "
      "levels [{level, indices, ratio, error, sloppy}]}, extensions_used, ...; with --nodes also node_tree");
  info->add_flag("--nodes", options->nodes,
                 "also print the node tree: each node's index, name (with the path that names it where several nodes "
                 "share it), joints and their skins, meshes, and how many clips animate it; JSON: node_tree [{index, "
                 "name, depth, parent, path, mesh, skin, joint_of, animating_clips}]");
  info->callback([options] { run_info(*options); });
}

}  // namespace gltf_crowd::tools
