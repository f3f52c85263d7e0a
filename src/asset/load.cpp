// Front door of layer 1: bytes → tinygltf::Model → validated Asset (SPEC §2). tinygltf accepts
// many invalid files, so every pass in build.hpp re-checks the rules it relies on.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include <fmt/format.h>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>

#include "asset/build.hpp"
#include "gltf_crowd/asset.hpp"

namespace gltf_crowd {
namespace {

constexpr std::string_view kSupportedRequired[] = {
    "KHR_mesh_quantization", "KHR_node_visibility", "MSFT_lod", "KHR_materials_emissive_strength",
    "KHR_texture_transform"};

std::uint32_t read_u32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// GLB container checks (glTF 2.0 §4.4): tinygltf trusts lengths more than we do.
void check_glb(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < 20) throw Error("glb", "glb_truncated", "shorter than the 12-byte header and one chunk header");
  const std::uint32_t version = read_u32(bytes.data() + 4);
  const std::uint32_t length = read_u32(bytes.data() + 8);
  if (version != 2) throw Error("glb.version", "glb_version", fmt::format("version {} is not 2", version));
  if (length != bytes.size())
    throw Error("glb.length", "glb_length", fmt::format("header length {} != file size {}", length, bytes.size()));
  std::uint64_t offset = 12;
  int chunk = 0;
  while (offset < bytes.size()) {
    if (bytes.size() - offset < 8)
      throw Error(fmt::format("glb.chunks[{}]", chunk), "glb_chunk_truncated", "chunk header truncated");
    const std::uint64_t chunk_length = read_u32(bytes.data() + offset);
    const std::uint32_t type = read_u32(bytes.data() + offset + 4);
    if (chunk_length > bytes.size() - offset - 8)
      throw Error(fmt::format("glb.chunks[{}].chunkLength", chunk), "glb_chunk_length",
                  fmt::format("chunk length {} runs past the end of the file", chunk_length));
    if (chunk == 0 && type != 0x4E4F534Au)
      throw Error("glb.chunks[0].chunkType", "glb_first_chunk", "first chunk is not JSON");
    offset += 8 + chunk_length;
    ++chunk;
  }
}

void check_required_extensions(const tinygltf::Model& model) {
  for (std::size_t i = 0; i < model.extensionsRequired.size(); ++i) {
    const std::string& name = model.extensionsRequired[i];
    if (std::find(std::begin(kSupportedRequired), std::end(kSupportedRequired), name) == std::end(kSupportedRequired))
      throw Error(fmt::format("extensionsRequired[{}]", i), "unsupported_required_extension",
                  fmt::format("required extension {} is not supported", name));
  }
}

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
    if (targets == 0) continue;
    if (!node.weights.empty() && node.weights.size() != targets)
      throw Error(fmt::format("nodes[{}].weights", i), "morph_weight_count",
                  fmt::format("{} weights for {} morph targets", node.weights.size(), targets));
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

Asset build(const tinygltf::Model& model) {
  check_required_extensions(model);
  Asset asset;
  asset.extensions_used = model.extensionsUsed;
  detail::build_materials(model, asset);
  detail::build_meshes(model, asset);
  detail::build_nodes(model, detail::animated_nodes(model), asset);
  detail::build_skins(model, asset);
  detail::build_clips(model, asset);
  build_weight_layout(asset);
  return asset;
}

bool is_glb(std::span<const std::uint8_t> bytes) {
  return bytes.size() >= 4 && std::memcmp(bytes.data(), "glTF", 4) == 0;
}

}  // namespace

Asset load_asset_from_memory(std::span<const std::uint8_t> bytes, const std::filesystem::path& base_dir) {
  tinygltf::TinyGLTF loader;
  tinygltf::Model model;
  std::string err, warn;
  bool ok = false;
  const std::string base = base_dir.empty() ? std::string() : base_dir.string();
  if (is_glb(bytes)) {
    check_glb(bytes);
    ok = loader.LoadBinaryFromMemory(&model, &err, &warn, bytes.data(), static_cast<unsigned>(bytes.size()), base);
  } else {
    if (bytes.empty()) throw Error("document", "empty", "the input is empty");
    ok = loader.LoadASCIIFromString(&model, &err, &warn, reinterpret_cast<const char*>(bytes.data()),
                                    static_cast<unsigned>(bytes.size()), base);
  }
  if (!ok) {
    std::string message = err.empty() ? warn : err;
    while (!message.empty() && (message.back() == '\n' || message.back() == '\r')) message.pop_back();
    throw Error("document", "parse", message.empty() ? "tinygltf could not parse the document" : message);
  }
  return build(model);
}

Asset load_asset(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error(path.string(), "file_open", "cannot open the file");
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  Asset asset = load_asset_from_memory(bytes, path.parent_path().empty() ? "." : path.parent_path());
  asset.source = path;
  return asset;
}

int Asset::find_clip(std::string_view name) const noexcept {
  for (std::size_t i = 0; i < clips.size(); ++i)
    if (clips[i].name == name) return static_cast<int>(i);
  return -1;
}

int Asset::find_node(std::string_view name) const noexcept {
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].name == name) return static_cast<int>(i);
  return -1;
}

glm::mat4 Asset::local_matrix(std::uint32_t index) const noexcept {
  const Node& node = nodes[index];
  if (node.has_matrix) return node.matrix;
  return glm::translate(glm::mat4(1.0f), node.translation) * glm::mat4_cast(node.rotation) *
         glm::scale(glm::mat4(1.0f), node.scale);
}

}  // namespace gltf_crowd
