// Front door of layer 1: bytes → checked JSON → tinygltf::Model → validated Asset (docs/spec.md §2).
// The order of the passes, and why each comes where it does, is in asset/build.hpp.
#include <algorithm>
#include <fstream>
#include <iterator>
#include <string_view>
#include <system_error>
#include <unordered_set>

#include <fmt/format.h>
#include <glm/gtc/matrix_transform.hpp>

#include "asset/build.hpp"
#include "gltf_crowd/asset.hpp"

namespace gltf_crowd {
namespace {

// tinygltf takes 32-bit lengths; GLB lengths are 32-bit anyway.
constexpr std::size_t kMaxDocumentBytes = std::size_t{1} << 31;

// Layout of per-node morph weights in an actor's flat array.
void build_weight_layout(Asset& asset) {
  const std::size_t n = asset.nodes.size();
  asset.weight_offsets.assign(n, 0);
  asset.weight_counts.assign(n, 0);
  std::uint32_t total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Node& node = asset.nodes[i];
    asset.weight_offsets[i] = total;
    if (node.mesh < 0) continue;
    const Mesh& mesh = asset.meshes[static_cast<std::size_t>(node.mesh)];
    const std::size_t targets = mesh.primitives.empty() ? 0 : mesh.primitives[0].targets.size();
    if (!node.weights.empty() && node.weights.size() != targets)
      throw Error(fmt::format("nodes[{}].weights", i), Rule::morph_weight_count,
                  fmt::format("{} weights for {} morph targets", node.weights.size(), targets));
    if (targets == 0) continue;
    asset.weight_counts[i] = static_cast<std::uint32_t>(targets);
    total += static_cast<std::uint32_t>(targets);
  }
  asset.total_weights = total;
  asset.rest_weights.assign(total, 0.0f);
  for (std::size_t i = 0; i < n; ++i) {
    if (asset.weight_counts[i] == 0) continue;
    const Node& node = asset.nodes[i];
    const Mesh& mesh = asset.meshes[static_cast<std::size_t>(node.mesh)];
    const std::vector<float>& source = !node.weights.empty() ? node.weights : mesh.weights;
    for (std::size_t k = 0; k < source.size() && k < asset.weight_counts[i]; ++k)
      asset.rest_weights[asset.weight_offsets[i] + k] = source[k];
  }
}

// Decoded values a document may ask for: generous for honest files (a byte decodes to at most one
// value and each accessor is read about once), small enough that a tiny hostile file cannot
// exhaust memory.
std::uint64_t value_budget(const tinygltf::Model& model) {
  std::uint64_t bytes = 0;
  for (const auto& buffer : model.buffers) bytes += buffer.data.size();
  return (std::uint64_t{1} << 24) + 16 * bytes;
}

// A glTF document is JSON (maybe after a UTF-8 byte order mark and whitespace) or a GLB (magic
// "glTF"). Anything else, say a PNG renamed .glb, is named as such here instead of failing as
// a JSON syntax error at its first byte. Error (path `where`, rule "not_gltf").
void require_gltf_signature(std::span<const std::uint8_t> bytes, const std::string& where) {
  if (detail::is_glb(bytes)) return;
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  std::size_t i = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) ++i;
  const std::string_view rest = text.substr(i);
  // Any JSON value may start the text: a root that is not an object is preflight's error.
  const bool json =
      !rest.empty() && (std::string_view("{[\"-0123456789").find(rest[0]) != std::string_view::npos ||
                        rest.starts_with("true") || rest.starts_with("false") || rest.starts_with("null"));
  if (!json)
    throw Error(where, Rule::not_gltf,
                "not a glTF or GLB file: it starts with neither JSON text nor the GLB magic 'glTF'");
}

Asset build(tinygltf::Model& model, const detail::PreflightResult& preflight, std::vector<Warning> warnings) {
  Asset asset;
  asset.external_files = preflight.external_files;
  asset.extensions_used = model.extensionsUsed;
  asset.extensions_required = model.extensionsRequired;
  asset.warnings = std::move(warnings);
  detail::AccessorReader accessors(model, value_budget(model));
  detail::build_materials(model, asset);
  detail::build_meshes(model, accessors, asset);
  detail::build_nodes(model, detail::animated_nodes(model), asset);
  detail::build_skins(model, accessors, asset);
  detail::build_clips(model, accessors, preflight.kept_channels, asset);
  build_weight_layout(asset);
  return asset;
}

}  // namespace

Asset load_asset_from_memory(std::span<const std::uint8_t> bytes, const std::filesystem::path& base_dir,
                             const LoadOptions& options) {
  if (bytes.empty()) throw Error("document", Rule::empty, "the input is empty");
  if (bytes.size() > kMaxDocumentBytes)
    throw Error("document", Rule::too_large, fmt::format("{} bytes exceed the 2 GiB limit", bytes.size()));
  require_gltf_signature(bytes, "document");
  detail::PreflightInput input;
  input.base_dir = base_dir;
  if (!options.allow_outside_resources && !base_dir.empty())
    input.resource_root = options.resource_root.empty() ? base_dir : options.resource_root;
  detail::GlbChunks glb;
  std::span<const std::uint8_t> json_bytes = bytes;
  std::vector<Warning> warnings;
  bool glb_trailing_bytes = false;  // tinygltf misreads padding after the last chunk as a BIN chunk
  if (detail::is_glb(bytes)) {
    glb = detail::parse_glb(bytes);
    input.glb = true;
    input.bin_chunk_bytes = glb.bin.size();
    json_bytes = glb.json;
    glb_trailing_bytes = !glb.warnings.empty();
    warnings = std::move(glb.warnings);
  }
  nlohmann::json doc = detail::parse_json({reinterpret_cast<const char*>(json_bytes.data()), json_bytes.size()});
  const bool renumbered = detail::normalize_integers(doc);
  detail::PreflightResult checked = detail::preflight(doc, input);
  warnings.insert(warnings.end(), checked.warnings.begin(), checked.warnings.end());

  // Only documents that tinygltf would misread as they are get rewritten: Draco primitives'
  // indices, GLBs with bytes after their last chunk, and the cases of normalize.cpp. Draco
  // indices are stashed first, so rewrite_for_tinygltf never detaches them as all-zero indices.
  const bool draco_indices = detail::stash_draco_indices(doc);
  const detail::TinygltfRewrite rewrite = detail::rewrite_for_tinygltf(doc, checked);
  std::vector<std::uint8_t> rewritten;
  std::span<const std::uint8_t> source = bytes;
  if (rewrite.changed || renumbered || glb_trailing_bytes || draco_indices) {
    const std::string text = doc.dump();
    rewritten = input.glb ? detail::write_glb(text, glb.bin) : std::vector<std::uint8_t>(text.begin(), text.end());
    source = rewritten;
  }

  tinygltf::TinyGLTF loader;
  detail::ImageDecoding images;
  detail::install_image_loader(loader, images);
  checked.resources.serve(loader);
  tinygltf::Model model;
  std::string err, warn;
  const std::string base = base_dir.string();
  const auto size = static_cast<unsigned>(source.size());
  const bool ok = input.glb ? loader.LoadBinaryFromMemory(&model, &err, &warn, source.data(), size, base)
                            : loader.LoadASCIIFromString(&model, &err, &warn,
                                                         reinterpret_cast<const char*>(source.data()), size, base);
  if (!ok) {
    if (!images.failed_path.empty()) throw Error(images.failed_path, images.failed_rule, images.failed_message);
    std::string message = err.empty() ? warn : err;
    while (!message.empty() && (message.back() == '\n' || message.back() == '\r')) message.pop_back();
    throw Error("document", Rule::parse, message.empty() ? "tinygltf could not parse the document" : message);
  }
  detail::restore_after_tinygltf(model, rewrite);
  detail::decode_meshopt(model);
  detail::decode_draco(model);
  warnings.insert(warnings.end(), images.warnings.begin(), images.warnings.end());
  return build(model, checked, std::move(warnings));
}

Asset load_asset(const std::filesystem::path& path, const LoadOptions& options) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw Error(path.string(), Rule::file_open, "is not a readable file");
  if (std::filesystem::file_size(path, ec) > kMaxDocumentBytes || ec)
    throw Error(path.string(), Rule::too_large, "the file exceeds the 2 GiB limit");
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error(path.string(), Rule::file_open, "cannot open the file");
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (!bytes.empty()) require_gltf_signature(bytes, path.string());  // named by its file
  Asset asset = load_asset_from_memory(bytes, path.parent_path().empty() ? "." : path.parent_path(), options);
  asset.source = path;
  return asset;
}

int Asset::find_clip(std::string_view name) const noexcept {
  for (std::size_t i = 0; i < clips.size(); ++i)
    if (clips[i].name == name) return static_cast<int>(i);
  return -1;
}

namespace {

// Whether `path`'s last part is the node's name, the part before it its parent's, and so on. An
// empty part ("Hips/", "/Hips", "A//B") matches no node, as an empty name does (§2.3).
bool at_end_of_path(const Asset& asset, std::uint32_t node, std::string_view path) noexcept {
  auto n = static_cast<std::int32_t>(node);
  while (true) {
    const std::size_t slash = path.rfind('/');
    const std::string_view part = slash == std::string_view::npos ? path : path.substr(slash + 1);
    if (part.empty() || n < 0 || asset.nodes[static_cast<std::size_t>(n)].name != part) return false;
    if (slash == std::string_view::npos) return true;
    path = path.substr(0, slash);
    n = asset.nodes[static_cast<std::size_t>(n)].parent;
  }
}

// Calls `f(node)` for every node `name` matches (docs/spec.md §2.3): the nodes so named, else,
// for a name with '/', the nodes at the end of that path. An empty name matches nothing.
template <class F>
void for_each_match(const Asset& asset, std::string_view name, F&& f) {
  if (name.empty()) return;
  bool named = false;
  for (std::size_t i = 0; i < asset.nodes.size(); ++i)
    if (asset.nodes[i].name == name) {
      named = true;
      f(static_cast<std::uint32_t>(i));
    }
  if (named || name.find('/') == std::string_view::npos) return;
  for (std::size_t i = 0; i < asset.nodes.size(); ++i)
    if (at_end_of_path(asset, static_cast<std::uint32_t>(i), name)) f(static_cast<std::uint32_t>(i));
}

char lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string lowered(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = lower(c);
  return out;
}

// Levenshtein distance (insertions, deletions, substitutions) of two lowercased strings.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string closest_node_names(const Asset& asset, std::string_view name) {
  constexpr std::size_t kListed = 8;
  const std::size_t slash = name.rfind('/');
  const std::string wanted = lowered(slash == std::string_view::npos ? name : name.substr(slash + 1));
  struct Candidate {
    bool contains = false;
    std::size_t distance = 0;
    std::string_view name;
  };
  std::vector<Candidate> candidates;
  std::unordered_set<std::string_view> seen;  // each name once, in linear time on files of many names
  for (const Node& node : asset.nodes) {
    if (node.name.empty() || !seen.insert(node.name).second) continue;
    const std::string other = lowered(node.name);
    const bool contains =
        !wanted.empty() && (other.find(wanted) != std::string::npos || wanted.find(other) != std::string::npos);
    candidates.push_back({contains, edit_distance(wanted, other), node.name});
  }
  if (candidates.empty()) return "the asset's nodes have no names";
  std::ranges::stable_sort(candidates, [](const Candidate& a, const Candidate& b) {
    return a.contains != b.contains ? a.contains : a.distance < b.distance;
  });
  std::string out = "closest: ";
  for (std::size_t i = 0; i < candidates.size() && i < kListed; ++i)
    out += fmt::format("{}{}", i > 0 ? ", " : "", candidates[i].name);
  if (candidates.size() > kListed) out += fmt::format(" (and {} more names)", candidates.size() - kListed);
  return out;
}

namespace {

// "child of \"Body\", mesh 1" / "a root, joint of skin 0, 1": where the node is and what it is.
std::string node_description(const Asset& asset, std::uint32_t n) {
  const Node& node = asset.nodes[n];
  std::string out = node.parent < 0
                        ? std::string("a root")
                        : fmt::format("child of \"{}\"", asset.nodes[static_cast<std::size_t>(node.parent)].name);
  std::string skins;
  for (std::size_t s = 0; s < asset.skins.size(); ++s)
    if (std::ranges::find(asset.skins[s].joints, n) != asset.skins[s].joints.end())
      skins += fmt::format("{}{}", skins.empty() ? "" : ", ", s);
  if (!skins.empty()) out += ", joint of skin " + skins;
  if (node.mesh >= 0 && node.skin >= 0) out += fmt::format(", mesh {} skinned by skin {}", node.mesh, node.skin);
  if (node.mesh >= 0 && node.skin < 0) out += fmt::format(", mesh {}", node.mesh);
  return out;
}

}  // namespace

std::vector<std::uint32_t> Asset::find_nodes(std::string_view name) const {
  std::vector<std::uint32_t> matches;
  for_each_match(*this, name, [&](std::uint32_t n) { matches.push_back(n); });
  return matches;
}

int Asset::find_node(std::string_view name) const noexcept {
  int found = -1, count = 0;
  for_each_match(*this, name, [&](std::uint32_t n) {
    found = static_cast<int>(n);
    ++count;
  });
  return count == 1 ? found : -1;
}

std::uint32_t Asset::resolve_node(std::string_view name, std::string_view path) const {
  const std::vector<std::uint32_t> matches = find_nodes(name);
  if (matches.size() == 1) return matches.front();
  if (matches.empty())
    throw Error(std::string(path), Rule::unknown_node,
                fmt::format("no node {} \"{}\"; {}", name.find('/') == std::string_view::npos ? "named" : "at the path",
                            name, closest_node_names(*this, name)));
  // The first few matches: a file may give thousands of nodes one name.
  constexpr std::size_t kListed = 8;
  std::string listed;
  for (std::size_t k = 0; k < matches.size() && k < kListed; ++k) {
    const std::uint32_t n = matches[k];
    const std::string unique = node_path(n);
    listed += fmt::format("{}{} ({}{})", listed.empty() ? "" : "; ", n, node_description(*this, n),
                          unique.empty() ? "" : fmt::format(", path \"{}\"", unique));
  }
  if (matches.size() > kListed) listed += fmt::format("; and {} more", matches.size() - kListed);
  throw Error(std::string(path), Rule::ambiguous_node,
              fmt::format("\"{}\" matches {} nodes: {}; name one by its path or index", name, matches.size(), listed));
}

std::string Asset::node_path(std::uint32_t node) const {
  // Each part tried scans every node: a bound keeps a chain of one name from costing N^4.
  constexpr std::size_t kMaxNodePathParts = 16;
  if (node >= nodes.size()) return {};
  std::string path;
  std::size_t parts = 0;
  for (auto n = static_cast<std::int32_t>(node); n >= 0 && parts++ < kMaxNodePathParts;
       n = nodes[static_cast<std::size_t>(n)].parent) {
    const std::string& name = nodes[static_cast<std::size_t>(n)].name;
    const bool own = n == static_cast<std::int32_t>(node);
    const bool slashed = name.find('/') != std::string::npos;  // a path would split the name in two
    if (slashed && !own) return {};
    path = own ? name : name + "/" + path;
    if (find_node(path) == static_cast<int>(node)) return path;
    if (slashed) return {};
  }
  return {};
}

int Asset::find_material_variant(std::string_view name) const noexcept {
  for (std::size_t i = 0; i < material_variants.size(); ++i)
    if (material_variants[i] == name) return static_cast<int>(i);
  return -1;
}

glm::mat4 Asset::local_matrix(std::uint32_t index) const noexcept {
  const Node& node = nodes[index];
  if (node.has_matrix) return node.matrix;
  return glm::translate(glm::mat4(1.0f), node.translation) * glm::mat4_cast(node.rotation) *
         glm::scale(glm::mat4(1.0f), node.scale);
}

}  // namespace gltf_crowd
