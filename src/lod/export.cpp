// Generated levels written back as glTF (docs/spec.md §8 `gltf-crowd lod`): the source document patched
// with one detached MSFT_lod node and mesh per level, in one self-contained GLB.
// Based on: glTF 2.0 §4.4 (GLB container), §3.6 (buffers, bufferViews, accessors), §2.8 (URIs);
// MSFT_lod (ids of lower-detail nodes, extras.MSFT_screencoverage).
//
// The JSON is edited rather than rebuilt from the Asset, so everything the crowd does not read
// (extensions, extras, cameras, samplers) survives unchanged. Every buffer and image is moved
// into the BIN chunk, so the output has no external files.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "asset/glb.hpp"
#include "asset/json.hpp"
#include "asset/uri.hpp"
#include "gltf_crowd/lod.hpp"

namespace gltf_crowd {
namespace {

using nlohmann::json;

constexpr int kArrayBuffer = 34962;
constexpr int kElementArrayBuffer = 34963;
constexpr int kFloat = 5126;
constexpr int kUnsignedShort = 5123;
constexpr int kUnsignedInt = 5125;

std::vector<std::uint8_t> read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(file.string(), Rule::file_open, "cannot open the file");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Bytes a buffer or image URI refers to, relative to the source file's folder.
std::vector<std::uint8_t> uri_bytes(const std::string& uri, const std::filesystem::path& base_dir,
                                    const std::string& path) {
  if (detail::is_data_uri(uri)) return detail::data_uri_bytes(uri);  // validated when the asset loaded
  return read_file(detail::resolve_external_uri(uri, base_dir, path));
}

std::string image_media_type(const std::string& uri) {
  if (detail::is_data_uri(uri)) return uri.substr(5, uri.find(';') - 5);
  const std::string ext = std::filesystem::path(uri).extension().string();
  if (ext == ".jpg" || ext == ".jpeg") return "image/jpeg";
  if (ext == ".webp") return "image/webp";
  if (ext == ".ktx2") return "image/ktx2";
  return "image/png";
}

// The one buffer of the output: appends at 4-byte alignment (the largest component size), so
// every moved bufferView keeps its accessors aligned.
struct Bin {
  std::vector<std::uint8_t> bytes;

  std::size_t append(std::span<const std::uint8_t> data) {
    bytes.resize((bytes.size() + 3) / 4 * 4, 0);
    const std::size_t offset = bytes.size();
    bytes.insert(bytes.end(), data.begin(), data.end());
    return offset;
  }
};

std::size_t add_view(json& doc, Bin& bin, std::span<const std::uint8_t> data, int target) {
  json view = {{"buffer", 0}, {"byteOffset", bin.append(data)}, {"byteLength", data.size()}};
  if (target != 0) view["target"] = target;
  doc["bufferViews"].push_back(std::move(view));
  return doc["bufferViews"].size() - 1;
}

// Moves every buffer into `bin` (buffer 0) and rebases the bufferViews.
void embed_buffers(json& doc, Bin& bin, const detail::GlbChunks* glb, const std::filesystem::path& base_dir) {
  std::vector<std::size_t> offsets;
  const json buffers = doc.value("buffers", json::array());
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const json& buffer = buffers[i];
    if (buffer.contains("uri")) {
      offsets.push_back(
          bin.append(uri_bytes(buffer["uri"].get<std::string>(), base_dir, fmt::format("buffers[{}].uri", i))));
    } else if (glb != nullptr && i == 0) {
      offsets.push_back(bin.append(glb->bin));
    } else {
      throw Error(fmt::format("buffers[{}]", i), Rule::lod_export_buffer, "a buffer without data cannot be exported");
    }
  }
  if (doc.contains("bufferViews"))
    for (json& view : doc["bufferViews"]) {
      view["byteOffset"] = view.value("byteOffset", std::size_t{0}) + offsets.at(view["buffer"].get<std::size_t>());
      view["buffer"] = 0;
    }
  doc["buffers"] = json::array({json::object()});
  if (!doc.contains("bufferViews")) doc["bufferViews"] = json::array();
}

// Moves every image with a URI into `bin` behind a bufferView.
void embed_images(json& doc, Bin& bin, const std::filesystem::path& base_dir) {
  if (!doc.contains("images")) return;
  for (std::size_t i = 0; i < doc["images"].size(); ++i) {
    json& image = doc["images"][i];
    if (!image.contains("uri")) continue;
    const std::string uri = image["uri"].get<std::string>();
    image["bufferView"] = add_view(doc, bin, uri_bytes(uri, base_dir, fmt::format("images[{}].uri", i)), 0);
    image["mimeType"] = image_media_type(uri);
    image.erase("uri");
  }
}

// A new index accessor; 16-bit when every index fits below the primitive-restart value.
std::size_t add_indices(json& doc, Bin& bin, std::span<const std::uint32_t> indices, std::size_t vertex_count) {
  std::vector<std::uint8_t> data;
  const bool short_indices = vertex_count < 0xFFFFu;
  for (std::uint32_t i : indices) {
    std::uint8_t raw[4];
    std::memcpy(raw, &i, 4);  // little-endian on every platform we build for (glTF is LE)
    data.insert(data.end(), raw, raw + (short_indices ? 2 : 4));
  }
  const std::size_t view = add_view(doc, bin, data, kElementArrayBuffer);
  doc["accessors"].push_back({{"bufferView", view},
                              {"componentType", short_indices ? kUnsignedShort : kUnsignedInt},
                              {"count", indices.size()},
                              {"type", "SCALAR"}});
  return doc["accessors"].size() - 1;
}

// Skin weights as the renormalized floats the asset holds: exporters often write sums a little
// off 1, which glTF 2.0 §3.7.3.1 forbids and the validator reports once per mesh copy.
void write_weights(json& doc, Bin& bin, const Asset& asset, const LodModel& model) {
  std::vector<bool> done(asset.meshes.size(), false);
  for (const LodSourceNode& source : model.sources) {
    const auto mesh = static_cast<std::size_t>(source.levels[0].mesh);
    if (done[mesh]) continue;
    done[mesh] = true;
    for (std::size_t p = 0; p < asset.meshes[mesh].primitives.size(); ++p) {
      const Primitive& primitive = asset.meshes[mesh].primitives[p];
      json& attributes = doc["meshes"][mesh]["primitives"][p]["attributes"];
      const auto write = [&](const char* name, const std::vector<glm::vec4>& weights) {
        if (weights.empty()) return;
        const auto* data = reinterpret_cast<const std::uint8_t*>(weights.data());
        const std::size_t view = add_view(doc, bin, std::span(data, weights.size() * sizeof(glm::vec4)), kArrayBuffer);
        doc["accessors"].push_back(
            {{"bufferView", view}, {"componentType", kFloat}, {"count", weights.size()}, {"type", "VEC4"}});
        attributes[name] = doc["accessors"].size() - 1;
      };
      write("WEIGHTS_0", primitive.weights0);
      write("WEIGHTS_1", primitive.weights1);
    }
  }
}

void add_levels(json& doc, Bin& bin, const Asset& asset, const LodModel& model) {
  for (const LodSourceNode& source : model.sources) {
    json ids = json::array();
    const json node = doc["nodes"][source.node];  // a copy: push_back below may move the array
    const std::string name = node.value("name", fmt::format("node{}", source.node));
    for (std::size_t l = 1; l < source.levels.size(); ++l) {
      const LodNodeLevel& level = source.levels[l];
      json mesh = doc["meshes"][static_cast<std::size_t>(level.mesh)];
      mesh["name"] = fmt::format("{} LOD{}", mesh.value("name", name), l);
      for (const LodPrimitive& p : level.primitives) {
        if (p.indices.empty()) continue;  // unreduced: the original accessor
        const std::size_t vertices =
            asset.meshes[static_cast<std::size_t>(level.mesh)].primitives[p.primitive].vertex_count();
        mesh["primitives"][p.primitive]["indices"] = add_indices(doc, bin, p.indices, vertices);
      }
      doc["meshes"].push_back(std::move(mesh));
      json lod_node = {{"name", fmt::format("{}_LOD{}", name, l)}, {"mesh", doc["meshes"].size() - 1}};
      if (node.contains("skin")) lod_node["skin"] = node["skin"];
      if (node.contains("weights")) lod_node["weights"] = node["weights"];
      doc["nodes"].push_back(std::move(lod_node));
      ids.push_back(doc["nodes"].size() - 1);
    }
    json& target = doc["nodes"][source.node];
    target["extensions"]["MSFT_lod"] = {{"ids", ids}};
    if (target.contains("extras") && !target["extras"].is_object())
      throw Error(fmt::format("nodes[{}].extras", source.node), Rule::lod_export_extras,
                  "extras must be an object to carry MSFT_screencoverage");
    target["extras"]["MSFT_screencoverage"] = model.thresholds;
  }
  json& used = doc["extensionsUsed"];
  if (!used.is_array()) used = json::array();
  if (std::find(used.begin(), used.end(), "MSFT_lod") == used.end()) used.push_back("MSFT_lod");
}

}  // namespace

std::vector<std::uint8_t> export_lod_glb(const Asset& asset, const LodModel& model) {
  if (model.source != LodSource::generated)
    throw Error("lod", Rule::lod_export_source,
                fmt::format("the levels are {}, not generated: nothing to export", to_string(model.source)));
  if (model.level_count < 2)  // MSFT_lod.ids must not be empty
    throw Error("lod", Rule::lod_export_source,
                fmt::format("all {} generated levels were dropped, their thresholds equal to the one before them: "
                            "nothing to export",
                            model.dropped_levels.size()));
  if (asset.source.empty())
    throw Error("asset.source", Rule::lod_export_source, "an asset loaded from memory has no file");
  if (std::any_of(model.thresholds.begin(), model.thresholds.end(), [](float t) { return !(t > 0.0f); }))
    throw Error("lod.min_coverage", Rule::lod_export_coverage,
                "MSFT_screencoverage hints must be > 0: export levels built without min_coverage 0");
  const std::filesystem::path& source = asset.source;
  const std::vector<std::uint8_t> bytes = read_file(source);
  const bool is_glb = detail::is_glb(bytes);
  detail::GlbChunks chunks;
  if (is_glb) chunks = detail::parse_glb(bytes);
  const std::span<const std::uint8_t> text = is_glb ? chunks.json : std::span<const std::uint8_t>(bytes);
  json doc = detail::parse_json(std::string_view(reinterpret_cast<const char*>(text.data()), text.size()));
  for (const char* compressed : {"EXT_meshopt_compression", "KHR_draco_mesh_compression"})
    for (const json& name : doc.value("extensionsUsed", json::array()))
      if (name == compressed)
        throw Error("extensionsUsed", Rule::lod_export_compressed,
                    fmt::format("{} data cannot be exported yet", compressed));
  const std::filesystem::path base_dir = source.parent_path().empty() ? "." : source.parent_path();
  Bin bin;
  embed_buffers(doc, bin, is_glb ? &chunks : nullptr, base_dir);
  embed_images(doc, bin, base_dir);
  if (!doc.contains("accessors")) doc["accessors"] = json::array();
  write_weights(doc, bin, asset, model);
  add_levels(doc, bin, asset, model);
  doc["buffers"][0]["byteLength"] = bin.bytes.size();
  return detail::write_glb(doc.dump(), bin.bytes);
}

}  // namespace gltf_crowd
