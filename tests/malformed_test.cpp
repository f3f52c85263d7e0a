// Hostile and broken input (docs/spec.md §2): every case is a small valid document (test_documents.hpp)
// with one thing broken, and must raise gltf_crowd::Error with the rule broken and the JSON path
// of the offending object; never a crash, a hang or an out-of-bounds read (run under ASan/UBSan).
#include <atomic>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <thread>

#include <gtest/gtest.h>

#include "gltf_crowd/asset.hpp"
#include "test_documents.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

using nlohmann::json;
using test::Document;

enum class Format { gltf, glb };

struct Case {
  const char* name;
  Format format;
  std::function<void(Document&)> edit;                    // on the document, before serializing
  std::function<void(std::vector<std::uint8_t>&)> bytes;  // on the serialized bytes (may be null)
  const char* rule;
  const char* path;
};

void put_u32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) { std::memcpy(b.data() + at, &v, 4); }
std::uint32_t get_u32(const std::vector<std::uint8_t>& b, std::size_t at) {
  std::uint32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}
// Byte offset of the BIN chunk header in a GLB.
std::size_t bin_chunk(const std::vector<std::uint8_t>& b) { return 20 + get_u32(b, 12); }

// Overwrites float `index` of bufferView `view` in the document's buffer.
void set_float(Document& d, int view, std::size_t index, float value) {
  const std::size_t offset = d.json["bufferViews"][view]["byteOffset"].get<std::size_t>() + index * 4;
  std::memcpy(d.bin.data() + offset, &value, 4);
}

// A PNG signature and IHDR claiming `width` × `height`, then nothing decodable.
std::vector<std::uint8_t> png_header(std::uint32_t width, std::uint32_t height) {
  std::vector<std::uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'};
  for (std::uint32_t v : {width, height})
    for (int shift = 24; shift >= 0; shift -= 8) png.push_back(static_cast<std::uint8_t>(v >> shift));
  png.insert(png.end(), {8, 6, 0, 0, 0, 0, 0, 0, 0});
  return png;
}

// A complete 1 × 1 grey-alpha PNG (a widely used minimal example file).
const std::string kOnePixelPng =
    "data:image/"
    "png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

void add_texture(Document& d, const std::string& image_uri) {
  d.json["images"] = {{{"uri", image_uri}}};
  d.json["textures"] = {{{"source", 0}}};
  d.json["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"] = {{"index", 0}};
}

const Case kCases[] = {
    // GLB container (glTF 2.0 §4.4).
    {"glb shorter than its header", Format::glb, nullptr, [](auto& b) { b.resize(11); }, "glb_truncated", "glb"},
    {"glb header length lies", Format::glb, nullptr, [](auto& b) { put_u32(b, 8, get_u32(b, 8) + 4); }, "glb_length", "glb.length"},
    {"glb version 1", Format::glb, nullptr, [](auto& b) { put_u32(b, 4, 1); }, "glb_version", "glb.version"},
    {"glb JSON chunk length past the end", Format::glb, nullptr, [](auto& b) { put_u32(b, 12, 1u << 30); },
     "glb_chunk_length", "glb.chunks[0].chunkLength"},
    {"glb BIN chunk length past the end", Format::glb, nullptr,
     [](auto& b) { put_u32(b, bin_chunk(b), get_u32(b, bin_chunk(b)) + 4); }, "glb_chunk_length",
     "glb.chunks[1].chunkLength"},
    {"glb BIN chunk length is not a multiple of 4", Format::glb, nullptr,
     [](auto& b) { put_u32(b, bin_chunk(b), get_u32(b, bin_chunk(b)) - 1); }, "glb_chunk_alignment",
     "glb.chunks[1].chunkLength"},
    {"glb first chunk is BIN", Format::glb, nullptr, [](auto& b) { put_u32(b, 16, 0x004E4942u); },
     "glb_first_chunk", "glb.chunks[0].chunkType"},
    {"glb second chunk is JSON", Format::glb, nullptr, [](auto& b) { put_u32(b, bin_chunk(b) + 4, 0x4E4F534Au); },
     "glb_second_chunk", "glb.chunks[1].chunkType"},
    {"glb truncated inside the BIN chunk, header length fixed", Format::glb, nullptr,
     [](auto& b) {
       b.resize(b.size() - 16);
       put_u32(b, 8, static_cast<std::uint32_t>(b.size()));
     },
     "glb_chunk_length", "glb.chunks[1].chunkLength"},
    {"glb buffer longer than the BIN chunk", Format::glb,
     [](Document& d) { d.json["buffers"][0]["byteLength"] = d.bin.size() + 64; }, nullptr, "glb_bin_length",
     "buffers[0].byteLength"},
    {"glb buffer without uri and without BIN chunk", Format::glb, [](Document& d) { d.bin.clear(); }, nullptr,
     "glb_bin_missing", "buffers[0]"},
    {"glb placeholder buffer read by an image", Format::glb,
     [](Document& d) {
       d.json["buffers"].push_back({{"byteLength", 64}});
       d.json["bufferViews"].push_back({{"buffer", 1}, {"byteLength", 64}});
       d.json["images"] = {{{"bufferView", d.json["bufferViews"].size() - 1}, {"mimeType", "image/png"}}};
     },
     nullptr, "buffer_without_data", "images[0].bufferView"},
    // JSON.
    {"truncated JSON", Format::gltf, nullptr, [](auto& b) { b.resize(b.size() / 2); }, "json_syntax", "document"},
    {"JSON nested 100 deep", Format::gltf,
     [](Document& d) {
       json deep = json::array();
       for (int i = 0; i < 100; ++i) deep = json::array({deep});
       d.json["extras"] = deep;
     },
     nullptr, "json_depth", "document"},
    {"root is an array", Format::gltf, nullptr,
     [](auto& b) {
       const std::string text = "[1, 2, 3]";
       b.assign(text.begin(), text.end());
     },
     "not_object", "document"},
    {"asset missing", Format::gltf, [](Document& d) { d.json.erase("asset"); }, nullptr, "missing_property", "asset"},
    {"asset version 1.0", Format::gltf, [](Document& d) { d.json["asset"]["version"] = "1.0"; }, nullptr,
     "asset_version", "asset.version"},
    {"unsupported required extension", Format::gltf,
     [](Document& d) {
       d.json["extensionsUsed"] = {"KHR_texture_basisu"};
       d.json["extensionsRequired"] = {"KHR_texture_basisu"};
     },
     nullptr, "unsupported_required_extension", "extensionsRequired[0]"},
    {"required extension not in extensionsUsed", Format::gltf,
     [](Document& d) { d.json["extensionsRequired"] = {"MSFT_lod"}; }, nullptr, "extension_not_used",
     "extensionsRequired[0]"},
    {"nodes is an object", Format::gltf, [](Document& d) { d.json["nodes"] = json::object(); }, nullptr, "not_array", "nodes"},
    // Buffers and data URIs.
    {"data URI with non-base64 characters", Format::gltf,
     [](Document& d) { d.json["buffers"][0]["uri"] = "data:application/octet-stream;base64,AA!A"; }, nullptr,
     "data_uri_base64", "buffers[0].uri"},
    {"data URI with a bad percent escape", Format::gltf,
     [](Document& d) { d.json["buffers"][0]["uri"] = "data:application/octet-stream,AA%G0"; }, nullptr, "data_uri",
     "buffers[0].uri"},
    {"data URI shorter than byteLength", Format::gltf,
     [](Document& d) { d.json["buffers"][0]["uri"] = "data:application/octet-stream;base64,AAAA"; }, nullptr,
     "buffer_length", "buffers[0].byteLength"},
    {"data URI with a text media type", Format::gltf,
     [](Document& d) { d.json["buffers"][0]["uri"] = "data:text/plain;base64," + test::base64(d.bin); }, nullptr,
     "data_uri_media_type", "buffers[0].uri"},
    {"external buffer in a memory load", Format::gltf, [](Document& d) { d.json["buffers"][0]["uri"] = "missing.bin"; },
     nullptr, "external_uri", "buffers[0].uri"},
    {"buffer with an http uri", Format::gltf,
     [](Document& d) { d.json["buffers"][0]["uri"] = "http://example.com/a.bin"; }, nullptr, "uri_scheme",
     "buffers[0].uri"},
    {"gltf buffer without uri read by an image", Format::gltf,
     [](Document& d) {
       d.json["buffers"].push_back({{"byteLength", 64}});
       d.json["bufferViews"].push_back({{"buffer", 1}, {"byteLength", 64}});
       d.json["images"] = {{{"bufferView", d.json["bufferViews"].size() - 1}, {"mimeType", "image/png"}}};
     },
     nullptr, "buffer_without_data", "images[0].bufferView"},
    {"buffer byteLength beyond 1 GiB", Format::gltf,
     [](Document& d) { d.json["buffers"][0]["byteLength"] = std::uint64_t{1} << 40; }, nullptr, "integer_range",
     "buffers[0].byteLength"},
    {"negative byteLength", Format::gltf, [](Document& d) { d.json["buffers"][0]["byteLength"] = -4; }, nullptr,
     "integer_range", "buffers[0].byteLength"},
    // Buffer views.
    {"bufferView past the buffer", Format::gltf,
     [](Document& d) { d.json["bufferViews"][0]["byteLength"] = d.bin.size() + 1; }, nullptr, "bufferview_out_of_bounds",
     "bufferViews[0]"},
    {"bufferView offset + length overflow", Format::gltf,
     [](Document& d) {
       d.json["bufferViews"][0]["byteOffset"] = 1u << 30;
       d.json["bufferViews"][0]["byteLength"] = 1u << 30;
     },
     nullptr, "bufferview_out_of_bounds", "bufferViews[0]"},
    {"bufferView stride 3", Format::gltf, [](Document& d) { d.json["bufferViews"][0]["byteStride"] = 3; }, nullptr,
     "bufferview_stride", "bufferViews[0].byteStride"},
    {"bufferView of a missing buffer", Format::gltf, [](Document& d) { d.json["bufferViews"][0]["buffer"] = 5; },
     nullptr, "buffer_index", "bufferViews[0].buffer"},
    // Accessors.
    {"accessor one element past its view", Format::gltf, [](Document& d) { d.json["accessors"][0]["count"] = 4; },
     nullptr, "accessor_out_of_bounds", "accessors[0]"},
    {"accessor count × element size beyond 2^32", Format::gltf,
     [](Document& d) {
       d.json["accessors"][4]["count"] = 1u << 28;
     },
     nullptr, "accessor_out_of_bounds", "accessors[4]"},
    {"accessor count beyond 2^28", Format::gltf, [](Document& d) { d.json["accessors"][0]["count"] = 4294967295u; },
     nullptr, "accessor_count", "accessors[0].count"},
    {"accessor count beyond 64 bits", Format::gltf,
     [](Document& d) { d.json["accessors"][0]["count"] = json::parse("18446744073709551615"); }, nullptr,
     "integer_range", "accessors[0].count"},
    {"accessor of doubles", Format::gltf, [](Document& d) { d.json["accessors"][0]["componentType"] = 5130; }, nullptr,
     "accessor_component_type", "accessors[0].componentType"},
    {"accessor type VEC5", Format::gltf, [](Document& d) { d.json["accessors"][0]["type"] = "VEC5"; }, nullptr,
     "accessor_type", "accessors[0].type"},
    {"misaligned float accessor", Format::gltf, [](Document& d) { d.json["accessors"][0]["byteOffset"] = 1; }, nullptr,
     "accessor_alignment", "accessors[0].byteOffset"},
    {"stride smaller than the element", Format::gltf, [](Document& d) { d.json["bufferViews"][0]["byteStride"] = 8; },
     nullptr, "accessor_stride", "accessors[0]"},
    {"normalized float accessor", Format::gltf, [](Document& d) { d.json["accessors"][3]["normalized"] = true; }, nullptr,
     "accessor_normalized", "accessors[3].normalized"},
    {"sparse index beyond count", Format::gltf,
     [](Document& d) {
       const int indices = d.add_view(std::vector<std::uint16_t>{7, 0});
       const int values = d.add_view(std::vector<float>{1, 1, 1});
       d.json["accessors"][7]["sparse"] = {{"count", 1},
                                           {"indices", {{"bufferView", indices}, {"componentType", 5123}}},
                                           {"values", {{"bufferView", values}}}};
     },
     nullptr, "sparse_index", "accessors[7].sparse.indices"},
    {"sparse count beyond count", Format::gltf,
     [](Document& d) {
       d.json["accessors"][7]["sparse"] = {{"count", 4},
                                           {"indices", {{"bufferView", 1}, {"componentType", 5123}}},
                                           {"values", {{"bufferView", 7}}}};
     },
     nullptr, "sparse_count", "accessors[7].sparse.count"},
    {"sparse values past their view", Format::gltf,
     [](Document& d) {
       d.json["accessors"][7]["sparse"] = {{"count", 3},
                                           {"indices", {{"bufferView", 1}, {"componentType", 5123}}},
                                           {"values", {{"bufferView", 5}}}};
     },
     nullptr, "accessor_out_of_bounds", "accessors[7].sparse.values"},
    {"zero-filled accessor of 2^28 elements", Format::gltf,
     [](Document& d) {
       d.json["accessors"][7].erase("bufferView");
       d.json["accessors"][7]["count"] = 1u << 28;
       d.json["accessors"][7]["type"] = "VEC4";
     },
     nullptr, "accessor_budget", "accessors[7]"},
    // Meshes.
    {"index >= vertex count", Format::gltf,
     [](Document& d) { d.bin[d.json["bufferViews"][1]["byteOffset"].get<std::size_t>() + 4] = 3; }, nullptr,
     "index_out_of_range", "accessors[1]"},
    {"indices of type VEC3", Format::gltf,
     [](Document& d) {
       d.json["accessors"][1]["count"] = 1;
       d.json["accessors"][1]["type"] = "VEC3";
     },
     nullptr, "indices_type", "accessors[1].type"},
    {"float indices", Format::gltf, [](Document& d) { d.json["meshes"][0]["primitives"][0]["indices"] = 0; }, nullptr,
     "accessor_not_unsigned", "accessors[0].componentType"},
    {"attribute counts differ", Format::gltf, [](Document& d) { d.json["accessors"][3]["count"] = 2; }, nullptr,
     "attribute_count", "meshes[0].primitives[0].attributes.WEIGHTS_0"},
    {"NaN position", Format::gltf, [](Document& d) { set_float(d, 0, 4, std::nanf("")); }, nullptr, "not_finite",
     "meshes[0].primitives[0].attributes.POSITION"},
    {"attribute names a missing accessor", Format::gltf,
     [](Document& d) { d.json["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = 99; }, nullptr,
     "accessor_index", "meshes[0].primitives[0].attributes.POSITION"},
    {"primitive mode 7", Format::gltf, [](Document& d) { d.json["meshes"][0]["primitives"][0]["mode"] = 7; }, nullptr,
     "primitive_mode", "meshes[0].primitives[0].mode"},
    {"mesh without primitives", Format::gltf, [](Document& d) { d.json["meshes"][0]["primitives"] = json::array(); },
     nullptr, "empty_array", "meshes[0].primitives"},
    {"node names a missing mesh", Format::gltf, [](Document& d) { d.json["nodes"][2]["mesh"] = 1; }, nullptr,
     "mesh_index", "nodes[2].mesh"},
    {"mesh weights count differs from targets", Format::gltf,
     [](Document& d) { d.json["meshes"][0]["weights"] = {0.5, 0.5}; }, nullptr, "morph_weight_count",
     "meshes[0].weights"},
    {"node weights count differs from targets", Format::gltf, [](Document& d) { d.json["nodes"][2]["weights"] = {1, 2, 3}; },
     nullptr, "morph_weight_count", "nodes[2].weights"},
    // Skins.
    {"joint >= joint count", Format::gltf,
     [](Document& d) { d.bin[d.json["bufferViews"][2]["byteOffset"].get<std::size_t>() + 1] = 2; }, nullptr,
     "joint_index", "nodes[2].skin"},
    {"too few inverse bind matrices", Format::gltf, [](Document& d) { d.json["accessors"][4]["count"] = 1; }, nullptr,
     "ibm_count", "skins[0].inverseBindMatrices"},
    {"inverse bind matrices of type VEC4", Format::gltf,
     [](Document& d) {
       d.json["accessors"][4]["type"] = "VEC4";
       d.json["accessors"][4]["count"] = 8;
     },
     nullptr, "ibm_type", "skins[0].inverseBindMatrices"},
    {"skin joint names a missing node", Format::gltf, [](Document& d) { d.json["skins"][0]["joints"][1] = 4; }, nullptr,
     "node_index", "skins[0].joints[1]"},
    {"skin joint listed twice", Format::gltf, [](Document& d) { d.json["skins"][0]["joints"] = {1, 1}; }, nullptr,
     "skin_joint_duplicate", "skins[0].joints[1]"},
    {"skin on a node without mesh", Format::gltf, [](Document& d) { d.json["nodes"][3]["skin"] = 0; }, nullptr,
     "skin_without_mesh", "nodes[3].skin"},
    {"node names a missing skin", Format::gltf, [](Document& d) { d.json["nodes"][2]["skin"] = 1; }, nullptr,
     "skin_index", "nodes[2].skin"},
    // Animations.
    {"NaN key time", Format::gltf, [](Document& d) { set_float(d, 5, 1, std::nanf("")); }, nullptr, "key_time",
     "accessors[5]"},
    {"negative key time", Format::gltf, [](Document& d) { set_float(d, 5, 0, -1.0f); }, nullptr, "key_time",
     "accessors[5]"},
    {"infinite key value", Format::gltf,
     [](Document& d) { set_float(d, 6, 3, std::numeric_limits<float>::infinity()); }, nullptr, "key_value",
     "accessors[6]"},
    {"decreasing key times", Format::gltf,
     [](Document& d) {
       set_float(d, 5, 0, 1.0f);
       set_float(d, 5, 1, 0.5f);
     },
     nullptr, "key_time_order", "accessors[5]"},
    {"decreasing key time", Format::gltf, [](Document& d) { set_float(d, 5, 0, 2.0f); }, nullptr, "key_time_order",
     "accessors[5]"},
    {"output count differs from the keys", Format::gltf, [](Document& d) { d.json["accessors"][6]["count"] = 1; }, nullptr,
     "output_count", "animations[0].samplers[0].output"},
    {"CUBICSPLINE without tangents", Format::gltf,
     [](Document& d) { d.json["animations"][0]["samplers"][0]["interpolation"] = "CUBICSPLINE"; }, nullptr,
     "output_count", "animations[0].samplers[0].output"},
    {"unknown interpolation", Format::gltf,
     [](Document& d) { d.json["animations"][0]["samplers"][0]["interpolation"] = "SMOOTH"; }, nullptr, "interpolation",
     "animations[0].samplers[0].interpolation"},
    {"channel names a missing sampler", Format::gltf,
     [](Document& d) { d.json["animations"][0]["channels"][0]["sampler"] = 1; }, nullptr, "sampler_index",
     "animations[0].channels[0].sampler"},
    {"two channels animate the same property", Format::gltf,
     [](Document& d) { d.json["animations"][0]["channels"].push_back(d.json["animations"][0]["channels"][0]); }, nullptr,
     "channel_duplicate_target", "animations[0].channels[1].target"},
    {"channel path unknown", Format::gltf,
     [](Document& d) { d.json["animations"][0]["channels"][0]["target"]["path"] = "color"; }, nullptr, "channel_path",
     "animations[0].channels[0].target.path"},
    // Node graph.
    {"cyclic node graph", Format::gltf, [](Document& d) { d.json["nodes"][3]["children"] = {0}; }, nullptr,
     "node_cycle", "nodes[0]"},
    {"node is its own child", Format::gltf, [](Document& d) { d.json["nodes"][3]["children"] = {3}; }, nullptr,
     "node_cycle", "nodes[3].children[0]"},
    {"node with two parents", Format::gltf, [](Document& d) { d.json["nodes"][1]["children"] = {3, 2}; }, nullptr,
     "node_multiple_parents", "nodes[2]"},
    {"child names a missing node", Format::gltf, [](Document& d) { d.json["nodes"][0]["children"][0] = 9; }, nullptr,
     "node_index", "nodes[0].children[0]"},
    {"matrix of 15 numbers", Format::gltf,
     [](Document& d) { d.json["nodes"][0]["matrix"] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0}; }, nullptr, "matrix",
     "nodes[0].matrix"},
    {"matrix and TRS together", Format::gltf,
     [](Document& d) {
       d.json["nodes"][3]["matrix"] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1};
     },
     nullptr, "node_matrix_and_trs", "nodes[3].matrix"},
    {"zero rotation quaternion", Format::gltf, [](Document& d) { d.json["nodes"][0]["rotation"] = {0, 0, 0, 0}; }, nullptr,
     "rotation_zero", "nodes[0].rotation"},
    {"scene root that has a parent", Format::gltf, [](Document& d) { d.json["scenes"][0]["nodes"] = {1}; }, nullptr,
     "scene_root_has_parent", "scenes[0].nodes[0]"},
    {"default scene missing", Format::gltf, [](Document& d) { d.json["scene"] = 1; }, nullptr, "scene_index", "scene"},
    {"MSFT_lod id names a missing node", Format::gltf,
     [](Document& d) { d.json["nodes"][2]["extensions"] = {{"MSFT_lod", {{"ids", {7}}}}}; }, nullptr, "lod_id_range",
     "nodes[2].extensions.MSFT_lod.ids[0]"},
    {"KHR_node_visibility that is not a boolean", Format::gltf,
     [](Document& d) { d.json["nodes"][2]["extensions"] = {{"KHR_node_visibility", {{"visible", 1}}}}; }, nullptr,
     "not_boolean", "nodes[2].extensions.KHR_node_visibility.visible"},
    // Materials, textures and images.
    {"texture names a missing image", Format::gltf,
     [](Document& d) {
       add_texture(d, "data:image/png;base64," + test::base64(png_header(1, 1)));
       d.json["textures"][0]["source"] = 3;
     },
     nullptr, "image_index", "textures[0].source"},
    {"image data URI that is not base64", Format::gltf, [](Document& d) { add_texture(d, "data:image/png;base64,*"); },
     nullptr, "data_uri_base64", "images[0].uri"},
    {"image of 100000 × 100000 pixels", Format::gltf,
     [](Document& d) { add_texture(d, "data:image/png;base64," + test::base64(png_header(100000, 100000))); }, nullptr,
     "image_size", "images[0]"},
    {"PNG with a header and no pixels", Format::gltf,
     [](Document& d) { add_texture(d, "data:image/png;base64," + test::base64(png_header(4, 4))); }, nullptr,
     "image_decode", "images[0]"},
    {"PNG chunk longer than the file", Format::gltf,
     [](Document& d) {
       // PNG §5.3: length, type, data, CRC. This IDAT claims 2^31 - 16 bytes and holds 16.
       std::vector<std::uint8_t> png = png_header(1, 1);
       png.insert(png.end(), {0x7F, 0xFF, 0xFF, 0xF0, 'I', 'D', 'A', 'T'});
       png.resize(png.size() + 16);
       add_texture(d, "data:image/png;base64," + test::base64(png));
     },
     nullptr, "image_decode", "images[0]"},
    {"image with uri and bufferView", Format::gltf,
     [](Document& d) {
       add_texture(d, "data:image/png;base64," + test::base64(png_header(1, 1)));
       d.json["images"][0]["bufferView"] = 0;
     },
     nullptr, "image_source", "images[0]"},
    {"image bufferView past its buffer", Format::glb,
     [](Document& d) {
       d.json["bufferViews"].push_back({{"buffer", 0}, {"byteOffset", 8}, {"byteLength", d.bin.size()}});
       d.json["images"] = {{{"bufferView", d.json["bufferViews"].size() - 1}, {"mimeType", "image/png"}}};
     },
     nullptr, "bufferview_out_of_bounds", "bufferViews[8]"},
    {"negative metallic factor", Format::gltf,
     [](Document& d) { d.json["materials"][0]["pbrMetallicRoughness"]["metallicFactor"] = -1; }, nullptr,
     "material_factor", "materials[0].pbrMetallicRoughness.metallicFactor"},
    {"unknown alpha mode", Format::gltf, [](Document& d) { d.json["materials"][0]["alphaMode"] = "GLASS"; }, nullptr,
     "alpha_mode", "materials[0].alphaMode"},
    // EXT_meshopt_compression.
    {"meshopt view with an unknown mode", Format::gltf,
     [](Document& d) {
       d.json["extensionsUsed"] = {"EXT_meshopt_compression"};
       d.json["bufferViews"][0]["extensions"] = {
           {"EXT_meshopt_compression",
            {{"buffer", 0}, {"byteLength", 16}, {"byteStride", 12}, {"count", 3}, {"mode", "VERTICES"}}}};
     },
     nullptr, "meshopt_mode", "bufferViews[0].extensions.EXT_meshopt_compression.mode"},
    {"meshopt view with garbage data", Format::gltf,
     [](Document& d) {
       d.json["extensionsUsed"] = {"EXT_meshopt_compression"};
       d.json["bufferViews"][0]["extensions"] = {
           {"EXT_meshopt_compression",
            {{"buffer", 0}, {"byteLength", 16}, {"byteStride", 12}, {"count", 3}, {"mode", "ATTRIBUTES"}}}};
     },
     nullptr, "meshopt_decode", "bufferViews[0].extensions.EXT_meshopt_compression"},
    {"plain view in a meshopt fallback buffer", Format::gltf,
     [](Document& d) {
       d.json["buffers"].push_back({{"byteLength", 64}, {"extensions", {{"EXT_meshopt_compression", {{"fallback", true}}}}}});
       d.json["bufferViews"].push_back({{"buffer", 1}, {"byteLength", 64}});
     },
     nullptr, "meshopt_fallback_view", "bufferViews[8]"},
};

std::vector<std::uint8_t> serialize(const Case& c) {
  Document d = test::skinned_triangle();
  if (c.edit) c.edit(d);
  std::vector<std::uint8_t> bytes = c.format == Format::glb ? d.glb() : d.gltf();
  if (c.bytes) c.bytes(bytes);
  return bytes;
}

TEST(MalformedInput, TheBaseDocumentLoadsAsGltfAndGlb) {
  const Document d = test::skinned_triangle();
  for (const auto& bytes : {d.gltf(), d.glb()}) {
    const Asset asset = load_asset_from_memory(bytes);
    ASSERT_EQ(asset.nodes.size(), 4u);
    ASSERT_EQ(asset.skins.size(), 1u);
    EXPECT_EQ(asset.skins[0].joints, (std::vector<std::uint32_t>{1, 3}));
    EXPECT_EQ(asset.meshes[0].primitives[0].indices, (std::vector<std::uint32_t>{0, 1, 2}));
    ASSERT_EQ(asset.clips.size(), 1u);
    EXPECT_EQ(asset.clips[0].duration_seconds, 1.0f);
  }
}

TEST(MalformedInput, EachCaseRaisesItsRuleAtItsPath) {
  ASSERT_GE(std::size(kCases), 40u);
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const std::vector<std::uint8_t> bytes = serialize(c);
    try {
      load_asset_from_memory(bytes);
      ADD_FAILURE() << "loaded without an error";
    } catch (const Error& e) {
      EXPECT_EQ(e.rule(), c.rule) << e.what();
      EXPECT_EQ(e.path(), c.path) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind(std::string(c.path) + ": ", 0), 0u) << e.what();
    }
  }
}

// Every prefix of a GLB, with and without the header's length patched to match, is an Error.
TEST(MalformedInput, EveryTruncationIsAnError) {
  const std::vector<std::uint8_t> glb = test::skinned_triangle().glb();
  const std::vector<std::uint8_t> gltf = test::skinned_triangle().gltf();
  for (std::size_t length = 0; length < glb.size(); ++length) {
    std::vector<std::uint8_t> cut(glb.begin(), glb.begin() + static_cast<std::ptrdiff_t>(length));
    EXPECT_THROW(load_asset_from_memory(cut), Error) << "GLB cut at " << length;
    if (length >= 12) {
      put_u32(cut, 8, static_cast<std::uint32_t>(length));
      EXPECT_THROW(load_asset_from_memory(cut), Error) << "GLB cut at " << length << " with a patched header";
    }
  }
  for (std::size_t length = 0; length < gltf.size(); length += 7) {
    const std::vector<std::uint8_t> cut(gltf.begin(), gltf.begin() + static_cast<std::ptrdiff_t>(length));
    EXPECT_THROW(load_asset_from_memory(cut), Error) << ".gltf cut at " << length;
  }
}

// Any single corrupted byte either still loads or raises Error; nothing else escapes.
TEST(MalformedInput, CorruptingAnyByteNeverEscapesAsAnotherFailure) {
  const std::vector<std::uint8_t> glb = test::skinned_triangle().glb();
  std::size_t errors = 0;
  for (std::size_t i = 0; i < glb.size(); ++i) {
    for (std::uint8_t flip : {std::uint8_t{0x01}, std::uint8_t{0x80}, std::uint8_t{0xFF}}) {
      std::vector<std::uint8_t> bytes = glb;
      bytes[i] ^= flip;
      try {
        load_asset_from_memory(bytes);
      } catch (const Error&) {
        ++errors;
      } catch (const std::exception& e) {
        ADD_FAILURE() << "byte " << i << " ^ " << int{flip} << ": " << e.what();
      }
    }
  }
  // 0x80 and 0xFF turn any JSON byte into invalid UTF-8, and the JSON is most of the file.
  EXPECT_GT(errors, glb.size());
}

// stb_image would reserve the 2 GiB an IDAT claims before finding 16 bytes, so the loader checks
// the chunk framing first and names the chunk (PNG §5.3: the IHDR chunk ends at byte 8 + 12 + 13).
TEST(MalformedInput, PngChunkPastTheEndIsRejectedBeforeDecoding) {
  std::vector<std::uint8_t> png = png_header(1, 1);
  png.insert(png.end(), {0x7F, 0xFF, 0xFF, 0xF0, 'I', 'D', 'A', 'T'});
  png.resize(png.size() + 16);
  Document d = test::skinned_triangle();
  add_texture(d, "data:image/png;base64," + test::base64(png));
  try {
    load_asset_from_memory(d.gltf());
    ADD_FAILURE() << "loaded a PNG whose chunk runs past its end";
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "image_decode");
    EXPECT_NE(std::string(e.what()).find("chunk at byte 33 claims 2147483632 bytes"), std::string::npos) << e.what();
  }
}

TEST(MalformedInput, MissingExternalBufferNamesTheBuffer) {
  const auto dir = test::scratch_dir("malformed_external");
  Document d = test::skinned_triangle();
  d.json["buffers"][0]["uri"] = "triangle.bin";
  const std::vector<std::uint8_t> bytes = d.gltf();
  std::ofstream(dir / "triangle.gltf", std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  try {
    load_asset(dir / "triangle.gltf");
    ADD_FAILURE() << "loaded without its buffer";
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "external_file_missing");
    EXPECT_EQ(e.path(), "buffers[0].uri");
  }
  // With the file present but one byte short, the length is what breaks.
  std::ofstream(dir / "triangle.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(d.bin.data()), static_cast<std::streamsize>(d.bin.size() - 1));
  try {
    load_asset(dir / "triangle.gltf");
    ADD_FAILURE() << "loaded a short buffer";
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "buffer_length");
    EXPECT_EQ(e.path(), "buffers[0].byteLength");
  }
  std::ofstream(dir / "triangle.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(d.bin.data()), static_cast<std::streamsize>(d.bin.size()));
  EXPECT_EQ(load_asset(dir / "triangle.gltf").nodes.size(), 4u);
}

void write_file(const std::filesystem::path& file, const std::vector<std::uint8_t>& bytes) {
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// The error loading `file` with `options` throws; rule "none" when it loads.
Error load_error(const std::filesystem::path& file, const LoadOptions& options = {}) {
  try {
    load_asset(file, options);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << file << " loaded";
  return Error(file.string(), Rule::parse, "loaded");
}

// External files must lie in the asset's folder or below, `..` and symbolic links resolved
// (docs/spec.md §2.1), unless LoadOptions allow more: a service rendering uploads relies on it.
TEST(MalformedInput, ExternalFilesOutsideTheAssetsFolderAreRefused) {
  const auto dir = test::scratch_dir("outside_root");
  std::filesystem::create_directories(dir / "asset" / "data");
  std::filesystem::create_directories(dir / "elsewhere");
  Document d = test::skinned_triangle();
  write_file(dir / "elsewhere" / "triangle.bin", d.bin);
  write_file(dir / "asset" / "triangle.bin", d.bin);
  std::filesystem::create_symlink(dir / "elsewhere" / "triangle.bin", dir / "asset" / "link.bin");
  std::filesystem::create_directory_symlink(dir / "elsewhere", dir / "asset" / "linked");
  const auto with_buffer = [&](const std::string& uri) {
    d.json["buffers"][0]["uri"] = uri;
    write_file(dir / "asset" / "triangle.gltf", d.gltf());
    return dir / "asset" / "triangle.gltf";
  };
  for (const char* uri :
       {"../elsewhere/triangle.bin", "data/../../elsewhere/triangle.bin", "link.bin", "linked/triangle.bin"}) {
    SCOPED_TRACE(uri);
    const Error e = load_error(with_buffer(uri));
    EXPECT_EQ(e.rule(), "uri_outside_root") << e.what();
    EXPECT_EQ(e.path(), "buffers[0].uri");
    const std::string what = e.what();
    EXPECT_NE(what.find('"' + std::string(uri) + '"'), std::string::npos) << what;
    EXPECT_NE(what.find("--allow-outside-resources"), std::string::npos) << what;
    EXPECT_NE(what.find("LoadOptions::allow_outside_resources"), std::string::npos) << what;
    EXPECT_EQ(load_asset(dir / "asset" / "triangle.gltf", {.allow_outside_resources = true}).nodes.size(), 4u);
    EXPECT_EQ(load_asset(dir / "asset" / "triangle.gltf", {.resource_root = dir}).nodes.size(), 4u);
  }
  // Inside once resolved: loads by default.
  EXPECT_EQ(load_asset(with_buffer("data/../triangle.bin")).nodes.size(), 4u);
  // From memory, base_dir is the default root.
  with_buffer("../elsewhere/triangle.bin");
  try {
    load_asset_from_memory(d.gltf(), dir / "asset");
    ADD_FAILURE() << "read a buffer outside base_dir";
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "uri_outside_root") << e.what();
  }
  // An image outside: its index is named. A root that is not a folder is an error of its own.
  d.json["buffers"][0]["uri"] = "triangle.bin";
  d.json["images"] = {{{"uri", "../elsewhere/triangle.bin"}}};
  write_file(dir / "asset" / "triangle.gltf", d.gltf());
  const Error image = load_error(dir / "asset" / "triangle.gltf");
  EXPECT_EQ(image.rule(), "uri_outside_root") << image.what();
  EXPECT_EQ(image.path(), "images[0].uri");
  EXPECT_EQ(load_error(dir / "asset" / "triangle.gltf", {.resource_root = dir / "none"}).rule(), "file_open");
}

// The resource root matters only to external files (docs/spec.md §2.1): a document whose data is
// all embedded loads from memory with a base_dir or root that does not exist; one that names an
// external file fails there, the root first.
TEST(MalformedInput, EmbeddedDataNeedsNoResourceRoot) {
  const std::filesystem::path none = test::scratch_dir("no_root") / "none";
  Document d = test::skinned_triangle();
  for (const std::vector<std::uint8_t>& bytes : {d.gltf(), d.glb()}) {
    EXPECT_EQ(load_asset_from_memory(bytes, none).nodes.size(), 4u);
    EXPECT_EQ(load_asset_from_memory(bytes, none, {.resource_root = none / "root"}).nodes.size(), 4u);
  }
  d.json["buffers"][0]["uri"] = "triangle.bin";
  try {
    load_asset_from_memory(d.gltf(), none);
    ADD_FAILURE() << "loaded an external buffer from a folder that does not exist";
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "file_open") << e.what();
    EXPECT_EQ(e.path(), "LoadOptions::resource_root") << e.what();
  }
}

// What is checked is what is read (docs/spec.md §2.1): a buffer's link inside the asset's folder,
// switched back and forth between a file beside it and one outside while loads run, never gives
// a load the outside file's bytes. Each load reads the inside file or fails uri_outside_root.
TEST(MalformedInput, ALinkSwitchedWhileLoadingNeverReadsOutside) {
  const auto dir = test::scratch_dir("switched_link");
  std::filesystem::create_directories(dir / "asset");
  std::filesystem::create_directories(dir / "elsewhere");
  Document d = test::skinned_triangle();
  write_file(dir / "asset" / "triangle.bin", d.bin);
  set_float(d, 0, 0, 0.25f);  // the outside copy's first vertex is at x = 0.25, not 0
  write_file(dir / "elsewhere" / "triangle.bin", d.bin);
  d.json["buffers"][0]["uri"] = "link.bin";
  write_file(dir / "asset" / "triangle.gltf", d.gltf());
  std::filesystem::create_symlink(dir / "asset" / "triangle.bin", dir / "asset" / "link.bin");
  std::atomic<bool> stop{false};
  std::thread switcher([&] {
    std::error_code ec;
    for (bool outside = true; !stop; outside = !outside) {  // rename replaces the link atomically
      std::filesystem::create_symlink(dir / (outside ? "elsewhere" : "asset") / "triangle.bin", dir / "next.bin", ec);
      std::filesystem::rename(dir / "next.bin", dir / "asset" / "link.bin", ec);
    }
  });
  int inside = 0, outside = 0, refused = 0;
  for (int i = 0; i < 2000; ++i) {
    try {
      const Asset a = load_asset(dir / "asset" / "triangle.gltf");
      ++(a.meshes[0].primitives[0].positions[0].x == 0.0f ? inside : outside);
    } catch (const Error& e) {
      EXPECT_EQ(e.rule(), "uri_outside_root") << e.what();
      ++refused;
    }
  }
  stop = true;
  switcher.join();
  EXPECT_EQ(outside, 0) << inside << " loads read the file inside, " << refused << " were refused";
  EXPECT_GT(inside, 0);
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace gltf_crowd
