// The loading policy of docs/spec.md §2.8: files the glTF specification allows load (with a
// warning naming path and rule where suspicious); faults that would read out of bounds or draw
// wrong stay errors naming path and rule. Documents come from policy_documents.hpp; expected
// values come from the specification (zeros for a missing bufferView, column padding) and the
// documents' own construction.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <tiny_gltf.h>

#include "asset/accessor.hpp"
#include "asset/build.hpp"
#include "gltf_crowd/asset.hpp"
#include "policy_documents.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

using nlohmann::json;
using test::CommandOutput;
using test::Document;
using test::quoted;

Asset load(const std::vector<std::uint8_t>& bytes) { return load_asset_from_memory(bytes); }

// The warning with `rule`, or nullptr.
const Warning* find_warning(const Asset& asset, const std::string& rule) {
  for (const Warning& w : asset.warnings)
    if (w.rule == rule) return &w;
  return nullptr;
}

std::string list(const Asset& asset) {
  std::string out;
  for (const Warning& w : asset.warnings) out += w.path + " [" + w.rule + "] " + w.message + "\n";
  return out;
}

// Expects loading to fail with `rule` at `path`.
void expect_error(const std::vector<std::uint8_t>& bytes, const std::string& rule, const std::string& path) {
  try {
    load(bytes);
    ADD_FAILURE() << "loaded; expected " << rule << " at " << path;
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), rule) << e.what();
    EXPECT_EQ(e.path(), path) << e.what();
  }
}

TEST(LoadingPolicy, TextureOnTexcoord2IsIgnoredWithAWarning) {
  const Asset a = load(test::policy_texcoord2().gltf());
  ASSERT_EQ(a.materials.size(), 1u);
  EXPECT_EQ(a.materials[0].normal_texture.texture, -1);
  EXPECT_EQ(a.materials[0].base_color_texture.texture, 0);  // TEXCOORD_0 still drawn
  const Warning* w = find_warning(a, "tex_coord_ignored");
  ASSERT_NE(w, nullptr) << list(a);
  EXPECT_EQ(w->path, "materials[0].normalTexture");
  const Warning* attribute = find_warning(a, "attribute_ignored");
  ASSERT_NE(attribute, nullptr) << list(a);
  EXPECT_EQ(attribute->path, "meshes[0].primitives[0].attributes.TEXCOORD_2");
  EXPECT_EQ(a.meshes[0].primitives[0].texcoords1.size(), 3u);
}

TEST(LoadingPolicy, ApplicationSpecificAttributesNeedNoWarning) {
  Document d = test::policy_triangle();
  d.json["meshes"][0]["primitives"][0]["attributes"]["_TEMPERATURE"] = d.add_floats({1, 2, 3}, 1, "SCALAR");
  const Asset a = load(d.gltf());
  EXPECT_TRUE(a.warnings.empty()) << list(a);
}

TEST(LoadingPolicy, PrimitiveWithoutPositionLoadsEmptyInItsPlace) {
  const Asset a = load(test::policy_no_position().gltf());
  ASSERT_EQ(a.meshes[0].primitives.size(), 2u);
  EXPECT_EQ(a.meshes[0].primitives[0].vertex_count(), 3u);
  EXPECT_EQ(a.meshes[0].primitives[0].indices, (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_EQ(a.meshes[0].primitives[1].vertex_count(), 0u);
  EXPECT_TRUE(a.meshes[0].primitives[1].indices.empty());
  EXPECT_TRUE(a.meshes[0].primitives[1].normals.empty());
  ASSERT_EQ(a.warnings.size(), 1u) << list(a);
  EXPECT_EQ(a.warnings[0].path, "meshes[0].primitives[1]");
  EXPECT_EQ(a.warnings[0].rule, "primitive_without_position");
}

TEST(LoadingPolicy, IndicesWithoutBufferViewAreZerosThenSparse) {
  const Asset a = load(test::policy_sparse_indices_without_view().gltf());
  // Zeros (glTF 2.0 §3.6.2.1), then sparse values 1 and 2 at elements 1 and 2.
  EXPECT_EQ(a.meshes[0].primitives[0].indices, (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_TRUE(a.warnings.empty()) << list(a);
  // Plain zeros: a degenerate but valid triangle.
  Document d = test::policy_triangle();
  d.add_accessor(-1, 5125, 3, "SCALAR");
  d.json["meshes"][0]["primitives"][0]["indices"] = 1;
  EXPECT_EQ(load(d.gltf()).meshes[0].primitives[0].indices, (std::vector<std::uint32_t>{0, 0, 0}));
  EXPECT_EQ(load(d.glb()).meshes[0].primitives[0].indices, (std::vector<std::uint32_t>{0, 0, 0}));
}

TEST(LoadingPolicy, PositionsWithoutBufferViewAreZeros) {
  Document d = test::policy_triangle();
  d.json["accessors"][0].erase("bufferView");
  d.json["accessors"][0]["min"] = {0, 0, 0};
  d.json["accessors"][0]["max"] = {0, 0, 0};
  const Asset a = load(d.gltf());
  for (const glm::vec3& p : a.meshes[0].primitives[0].positions) EXPECT_EQ(p, glm::vec3(0.0f));
}

TEST(LoadingPolicy, EqualKeyTimesCollapseToTheLastKey) {
  const Asset a = load(test::policy_zero_times().gltf());
  ASSERT_EQ(a.clips.size(), 1u);
  EXPECT_EQ(a.clips[0].duration_seconds, 0.0f);
  ASSERT_EQ(a.clips[0].channels.size(), 1u);
  EXPECT_EQ(a.clips[0].channels[0].key_count, 1u);
  EXPECT_EQ(a.clips[0].times, (std::vector<float>{0.0f}));
  EXPECT_EQ(a.clips[0].values, (std::vector<float>{4, 5, 6}));  // the last key's output
  const Warning* w = find_warning(a, "key_times_equal");
  ASSERT_NE(w, nullptr) << list(a);
  EXPECT_EQ(w->path, "animations[0].samplers[0].input");

  // CUBICSPLINE: in-tangent, value, out-tangent per key; the last key's value is kept.
  Document cubic = test::policy_zero_times();
  cubic.json["animations"][0]["samplers"][0]["interpolation"] = "CUBICSPLINE";
  cubic.json["animations"][0]["samplers"][0]["output"] =
      cubic.add_floats({0, 0, 0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 4, 5, 6, 0, 0, 0}, 3, "VEC3");
  const Asset c = load(cubic.gltf());
  EXPECT_EQ(c.clips[0].channels[0].key_count, 1u);
  EXPECT_EQ(c.clips[0].channels[0].interpolation, Interpolation::linear);
  EXPECT_EQ(c.clips[0].values, (std::vector<float>{4, 5, 6}));
}

// As three.js's LittlestTokyo (animations[0].samplers[2] repeats 0.16666667): non-decreasing
// times load with one warning per sampler naming it (docs/spec.md §2.7, §2.8); decreasing stay an error.
TEST(LoadingPolicy, RepeatedKeyTimesLoadWithOneWarningPerSampler) {
  Document d = test::policy_triangle();
  const int increasing = d.add_floats({0, 1, 2}, 1, "SCALAR");
  const int repeated = d.add_floats({0, 0.16666667f, 0.16666667f, 0.5f, 0.5f}, 1, "SCALAR");
  const int xyz3 = d.add_floats({1, 2, 3, 4, 5, 6, 7, 8, 9}, 3, "VEC3");
  const int xyz5 = d.add_floats({1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6}, 3, "VEC3");
  const int xyzw5 = d.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, 4, "VEC4");
  d.json["animations"] = {{{"samplers",
                            {{{"input", increasing}, {"output", xyz3}},
                             {{"input", increasing}, {"output", xyz3}},
                             {{"input", repeated}, {"output", xyz5}},
                             {{"input", repeated}, {"output", xyzw5}}}},
                           {"channels",
                            {{{"sampler", 0}, {"target", {{"node", 0}, {"path", "translation"}}}},
                             {{"sampler", 1}, {"target", {{"node", 0}, {"path", "scale"}}}},
                             {{"sampler", 2}, {"target", {{"node", 0}, {"path", "translation"}}}},
                             {{"sampler", 3}, {"target", {{"node", 0}, {"path", "rotation"}}}}}}}};
  d.json["animations"][0]["channels"].erase(0);  // sampler 0 unused: samplers keep their index
  const Asset a = load(d.gltf());
  std::vector<const Warning*> repeats;
  for (const Warning& w : a.warnings)
    if (w.rule == "key_times_repeated") repeats.push_back(&w);
  ASSERT_EQ(repeats.size(), 2u) << list(a);
  EXPECT_EQ(repeats[0]->path, "animations[0].samplers[2].input");
  EXPECT_EQ(repeats[1]->path, "animations[0].samplers[3].input");
  EXPECT_NE(repeats[0]->message.find("key 2"), std::string::npos) << repeats[0]->message;
  EXPECT_NE(repeats[0]->message.find("0.16666667"), std::string::npos) << repeats[0]->message;
  EXPECT_NE(repeats[0]->message.find("2 keys"), std::string::npos) << repeats[0]->message;
  EXPECT_EQ(a.clips[0].duration_seconds, 2.0f);
  EXPECT_EQ(a.clips[0].channels[1].key_count, 5u);

  // Cubic splines too; a time below its previous key's stays an error.
  d.json["animations"][0]["samplers"][2]["interpolation"] = "CUBICSPLINE";
  d.json["animations"][0]["samplers"][2]["output"] = d.add_floats(std::vector<float>(45, 1.0f), 3, "VEC3");
  EXPECT_NO_THROW(load(d.gltf()));
  const int decreasing = d.add_floats({0, 0.5f, 0.5f, 0.25f, 1}, 1, "SCALAR");
  d.json["animations"][0]["samplers"][3]["input"] = decreasing;
  expect_error(d.gltf(), "key_time_order", "accessors[" + std::to_string(decreasing) + "]");
}

TEST(LoadingPolicy, MinVersion) {
  const Asset a = load(test::policy_min_version().gltf());
  const Warning* w = find_warning(a, "asset_min_version");
  ASSERT_NE(w, nullptr) << list(a);
  EXPECT_EQ(w->path, "asset.minVersion");

  Document same = test::policy_triangle();
  same.json["asset"] = {{"version", "2.1"}, {"minVersion", "2.0"}};
  EXPECT_TRUE(load(same.gltf()).warnings.empty());

  Document newer = test::policy_triangle();
  newer.json["asset"] = {{"version", "2.1"}, {"minVersion", "2.2"}};
  expect_error(newer.gltf(), "asset_version", "asset.minVersion");
  newer.json["asset"] = {{"version", "2.10"}, {"minVersion", "2.9"}};  // minor versions are numbers
  EXPECT_NO_THROW(load(newer.gltf()));
}

TEST(LoadingPolicy, UnknownAccessorTypeIsAnErrorOnlyWhenUsed) {
  const Asset a = load(test::policy_unknown_type().gltf());
  const Warning* w = find_warning(a, "accessor_type_unknown");
  ASSERT_NE(w, nullptr) << list(a);
  EXPECT_EQ(w->path, "accessors[1].type");

  Document used = test::policy_unknown_type();
  used.json["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_0"] = 1;
  expect_error(used.gltf(), "accessor_type", "accessors[1].type");
}

// Reads accessor `index` of `doc` with the loader's accessor reader, after tinygltf.
std::vector<float> read_accessor(const Document& doc, int index) {
  const std::vector<std::uint8_t> bytes = doc.gltf();
  tinygltf::TinyGLTF loader;
  tinygltf::Model model;
  std::string err, warn;
  EXPECT_TRUE(loader.LoadASCIIFromString(&model, &err, &warn, reinterpret_cast<const char*>(bytes.data()),
                                         static_cast<unsigned>(bytes.size()), ""))
      << err;
  detail::AccessorReader reader(model, 1000);
  return reader.read_floats(index, "test").floats;
}

TEST(LoadingPolicy, MatrixColumnsArePaddedToFourBytes) {
  const Document d = test::policy_padded_matrices();
  EXPECT_NO_THROW(load(d.gltf()));
  EXPECT_EQ(read_accessor(d, 1), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(read_accessor(d, 2), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(read_accessor(d, 3), (std::vector<float>{-1, 2, -3, 4, -5, 6, -7, 8, -9}));
  // Elements are 8, 12 and 24 bytes apart; the last element's last column needs no padding
  // after it (2, 3 and 6 bytes), so the views need 14, 11 and 22 bytes, and one byte less is out
  // of bounds.
  for (const auto& [view, bytes] : {std::pair{1, 14}, std::pair{2, 11}, std::pair{3, 22}}) {
    Document exact = d;
    exact.json["bufferViews"][static_cast<std::size_t>(view)]["byteLength"] = bytes;
    EXPECT_NO_THROW(load(exact.gltf())) << view;
    exact.json["bufferViews"][static_cast<std::size_t>(view)]["byteLength"] = bytes - 1;
    expect_error(exact.gltf(), "accessor_out_of_bounds", "accessors[" + std::to_string(view) + "]");
  }
  // MAT4 and other types have no padding.
  EXPECT_EQ(detail::element_layout(16, true, 1).size, 16u);
  EXPECT_EQ(detail::element_layout(3, false, 1).size, 3u);
  EXPECT_EQ(detail::element_layout(4, true, 2).size, 8u);
  EXPECT_EQ(detail::element_layout(9, true, 2).size, 24u);
  EXPECT_EQ(detail::element_layout(9, true, 2).extent, 22u);
}

TEST(LoadingPolicy, CustomPropertiesAndIntegersWrittenAsFloatsLoad) {
  const Asset a = load(test::policy_custom_properties().gltf());
  ASSERT_EQ(a.meshes[0].primitives[0].positions.size(), 3u);
  EXPECT_EQ(a.meshes[0].primitives[0].positions[1], glm::vec3(1, 0, 0));
  EXPECT_EQ(a.nodes[0].mesh, 0);
  EXPECT_TRUE(a.warnings.empty()) << list(a);
  // A fraction where an integer belongs stays an error.
  Document fraction = test::policy_triangle();
  fraction.json["accessors"][0]["count"] = 2.5;
  expect_error(fraction.gltf(), "not_integer", "accessors[0].count");
}

TEST(LoadingPolicy, NormalizingIntegersLeavesOtherNumbersAlone) {
  json doc = json::parse(R"({"buffers": [{"byteLength": 12.0, "extras": {"n": 3.0}}],
    "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0.0, "texCoord": 1.0,
      "extensions": {"KHR_texture_transform": {"rotation": 1.0, "texCoord": 1.0}}}, "metallicFactor": 1.0}}]})");
  EXPECT_TRUE(detail::normalize_integers(doc));
  EXPECT_TRUE(doc["buffers"][0]["byteLength"].is_number_integer());
  EXPECT_TRUE(doc["buffers"][0]["extras"]["n"].is_number_float());
  const json& info = doc["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"];
  EXPECT_TRUE(info["index"].is_number_integer());
  EXPECT_TRUE(info["texCoord"].is_number_integer());
  EXPECT_TRUE(info["extensions"]["KHR_texture_transform"]["rotation"].is_number_float());
  EXPECT_TRUE(doc["materials"][0]["pbrMetallicRoughness"]["metallicFactor"].is_number_float());
  json clean = json::parse(R"({"buffers": [{"byteLength": 12}]})");
  EXPECT_FALSE(detail::normalize_integers(clean));
}

TEST(LoadingPolicy, UnknownOptionalExtensionIsIgnoredWithAWarning) {
  const Asset a = load(test::policy_unknown_extension().gltf());
  ASSERT_EQ(a.warnings.size(), 1u) << list(a);
  EXPECT_EQ(a.warnings[0].path, "extensionsUsed[0]");
  EXPECT_EQ(a.warnings[0].rule, "extension_ignored");
  EXPECT_NE(a.warnings[0].message.find("EXT_policy_test_unknown"), std::string::npos);
}

TEST(LoadingPolicy, GlbBytesAfterTheLastChunkAreIgnored) {
  const Asset outside = load(test::policy_glb_trailing(false));
  ASSERT_EQ(outside.warnings.size(), 1u) << list(outside);
  EXPECT_EQ(outside.warnings[0].path, "glb.length");
  EXPECT_EQ(outside.warnings[0].rule, "glb_trailing_bytes");
  EXPECT_EQ(outside.meshes[0].primitives[0].positions[2], glm::vec3(0, 1, 0));
  const Asset inside = load(test::policy_glb_trailing(true));
  ASSERT_EQ(inside.warnings.size(), 1u) << list(inside);
  EXPECT_EQ(inside.warnings[0].path, "glb.chunks[2]");
  EXPECT_EQ(inside.warnings[0].rule, "glb_trailing_bytes");
  EXPECT_EQ(inside.meshes[0].primitives[0].positions[1], glm::vec3(1, 0, 0));
  // A header length beyond the file stays an error.
  std::vector<std::uint8_t> lying = test::policy_triangle().glb();
  lying[8] += 4;
  expect_error(lying, "glb_length", "glb.length");
}

TEST(LoadingPolicy, GlbPlaceholderBufferLoadsUntilRead) {
  const Asset a = load(test::policy_placeholder_buffer().glb());
  const Warning* w = find_warning(a, "buffer_without_data");
  ASSERT_NE(w, nullptr) << list(a);
  EXPECT_EQ(w->path, "buffers[1]");
  EXPECT_EQ(a.meshes[0].primitives[0].positions[1], glm::vec3(1, 0, 0));
  // An accessor into it loads; once used, its values are zeros (the bytes are undefined), with a
  // warning naming the accessor.
  Document read = test::policy_placeholder_buffer();
  read.json["bufferViews"].push_back({{"buffer", 1}, {"byteLength", 16}});
  const int view = static_cast<int>(read.json["bufferViews"].size()) - 1;
  const int accessor = read.add_accessor(view, 5126, 1, "VEC3");
  EXPECT_EQ(find_warning(load(read.glb()), "accessor_reads_no_data"), nullptr);
  read.json["meshes"].push_back({{"primitives", {{{"attributes", {{"POSITION", accessor}}}}}}});
  const Asset zeros = load(read.glb());
  ASSERT_EQ(zeros.meshes[1].primitives[0].positions, (std::vector<glm::vec3>{glm::vec3(0.0f)}));
  const Warning* reads = find_warning(zeros, "accessor_reads_no_data");
  ASSERT_NE(reads, nullptr) << list(zeros);
  EXPECT_EQ(reads->path, "accessors[" + std::to_string(accessor) + "].bufferView");
  // An image cannot be zeros: reading one from it is an error.
  read.json["images"] = {{{"bufferView", view}, {"mimeType", "image/png"}}};
  expect_error(read.glb(), "buffer_without_data", "images[0].bufferView");
  // The same in a .gltf (buffers[0] has its data URI there).
  const Asset gltf = load(test::policy_placeholder_buffer().gltf());
  ASSERT_NE(find_warning(gltf, "buffer_without_data"), nullptr) << list(gltf);
  EXPECT_EQ(find_warning(gltf, "buffer_without_data")->path, "buffers[1]");
}

TEST(LoadingPolicy, PercentEncodedDataUrisAreDecoded) {
  const Asset a = load(test::policy_percent_data_uri().gltf());
  ASSERT_EQ(a.meshes[0].primitives[0].positions.size(), 3u);
  for (std::size_t v = 0; v < 3; ++v)
    EXPECT_EQ(
        a.meshes[0].primitives[0].positions[v],
        glm::vec3(test::kPolicyTriangle[3 * v], test::kPolicyTriangle[3 * v + 1], test::kPolicyTriangle[3 * v + 2]));
  // Unescaped octets count one byte each: "0" is one byte, too short for a 36-byte buffer.
  Document short_uri = test::policy_triangle();
  short_uri.json["buffers"][0]["uri"] = "data:application/octet-stream,0";
  expect_error(short_uri.gltf(), "buffer_length", "buffers[0].byteLength");
}

TEST(LoadingPolicy, NetworkUrisStayErrors) {
  Document d = test::policy_triangle();
  d.json["buffers"][0]["uri"] = "https://example.com/triangle.bin";
  expect_error(d.gltf(), "uri_scheme", "buffers[0].uri");
}

// Writes `bytes` to a scratch file and returns its path.
std::filesystem::path write_scratch(const std::string& dir, const std::string& name,
                                    const std::vector<std::uint8_t>& bytes) {
  const std::filesystem::path file = test::scratch_dir(dir) / name;
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return file;
}

TEST(LoadingPolicy, InfoListsWarningsWithPathAndRule) {
  const auto file = write_scratch("policy_info", "no_position.gltf", test::policy_no_position().gltf());
  const CommandOutput text = test::run_tool("info " + quoted(file) + " 2>&1");
  ASSERT_EQ(text.exit_code, 0) << text.out;
  EXPECT_NE(text.out.find("warning: meshes[0].primitives[1] [primitive_without_position] "), std::string::npos)
      << text.out;
  const CommandOutput js = test::run_tool("info --json " + quoted(file) + " 2>/dev/null");
  ASSERT_EQ(js.exit_code, 0) << js.out;
  const json summary = json::parse(js.out, nullptr, false);
  ASSERT_TRUE(summary.is_object()) << js.out;
  ASSERT_EQ(summary["warnings"].size(), 1u) << js.out;
  EXPECT_EQ(summary["warnings"][0]["path"], "meshes[0].primitives[1]");
  EXPECT_EQ(summary["warnings"][0]["rule"], "primitive_without_position");
  EXPECT_TRUE(summary["warnings"][0]["message"].is_string());
  EXPECT_EQ(summary["vertices"], 3);
}

// Fraction of pixels that differ from the background the tool reports.
double foreground(const test::ImageRun& r) {
  const auto& bg = r.stats.at("background");
  std::size_t differing = 0;
  for (std::size_t i = 0; i + 3 < r.image.rgba.size(); i += 4)
    if (r.image.rgba[i] != bg[0] || r.image.rgba[i + 1] != bg[1] || r.image.rgba[i + 2] != bg[2]) ++differing;
  return r.image.rgba.empty() ? 0.0 : static_cast<double>(differing) / static_cast<double>(r.image.rgba.size() / 4);
}

// The empty primitive reaches every consumer (upload, both renderers, LOD levels and
// simplification, bounds, crowd packing) and the triangle beside it is still drawn.
TEST(LoadingPolicy, RenderDrawsAMeshWithAnEmptyPrimitive) {
  // And beside a skinned, morphing, animated triangle: the empty primitive keeps the morph
  // target count, and its skin and weights streams are still set up.
  Document skinned = test::skinned_triangle();
  skinned.json["meshes"][0]["primitives"].push_back(
      {{"attributes", {{"NORMAL", skinned.add_floats({0, 0, 1, 0, 0, 1, 0, 0, 1}, 3, "VEC3")}}},
       {"targets", {{{"POSITION", 7}}}}});
  const auto skinned_file = write_scratch("policy_render_skinned", "skinned.gltf", skinned.gltf());
  const auto file = write_scratch("policy_render", "no_position.gltf", test::policy_no_position().gltf());
  const std::pair<std::filesystem::path, std::string> runs[] = {
      {file, ""},
      {file, " --lod"},
      {file, " --reference"},
      // The skinned-vertex cache holds no rows for the primitive without vertices (it divided by
      // zero drawing it, with either storage).
      {file, " --skinned-vertex-cache --palette storage"},
      {file, " --skinned-vertex-cache --palette texture"},
      {skinned_file, " -t 0.5"},
      {skinned_file, " --reference"}};
  for (const auto& [asset, extra] : runs) {
    const auto dir = test::scratch_dir("policy_render_out");
    const auto png = dir / "out.png";
    const auto stats = dir / "out.json";
    const std::string command = quoted(test::tool_path().string()) + " render " + quoted(asset) +
                                " -n 4 --width 128 --height 96" + extra + " --out " + quoted(png) + " --stats " +
                                quoted(stats) + " 2>&1 >/dev/null";
    const test::ImageRun run = test::run_for_image(command, png, stats);
    ASSERT_EQ(run.exit_code, 0) << extra << ": " << run.output;
    EXPECT_NE(run.output.find("1 loading warning"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("warning: meshes[0].primitives[1] [primitive_without_position]"), std::string::npos)
        << run.output;
    EXPECT_GT(foreground(run), 0.001) << extra;
  }
}

std::filesystem::path node_dir() {
  if (const char* dir = std::getenv("GLTF_CROWD_NODE_DIR"); dir != nullptr && *dir != '\0') return dir;
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home != nullptr ? home : "/root") / ".cache" / "gltf-crowd" / "node";
}

// Each hand-made "valid" document is valid to the Khronos glTF-Validator (0 errors), so the
// loader is tested against the specification, not against itself.
TEST(LoadingPolicy, KhronosValidatorFindsNoErrorsInTheValidDocuments) {
  const std::filesystem::path modules = node_dir() / "node_modules";
  const bool installed = std::filesystem::exists(modules / "gltf-validator" / "package.json");
  const bool have_node = test::run_command("node --version 2>&1").exit_code == 0;
  if (!installed || !have_node) {
    const std::string why =
        !have_node ? "node is not installed"
                   : "gltf-validator is not installed in " + modules.string() + " (run scripts/install-deps.sh)";
    if (std::getenv("CI") != nullptr) FAIL() << why;
    GTEST_SKIP() << why << "; skipping (set CI to make this fail)";
  }
  const std::filesystem::path script = std::filesystem::path(GLTF_CROWD_TESTS_DIR) / "validate_gltf.js";
  for (const test::PolicyDocument& doc : test::policy_documents()) {
    if (!doc.validator_valid) continue;
    const auto file = write_scratch("policy_validator", doc.name, doc.bytes);
    const CommandOutput report =
        test::run_command("NODE_PATH=" + quoted(modules) + " node " + quoted(script) + " " + quoted(file) + " 2>&1");
    ASSERT_EQ(report.exit_code, 0) << doc.name << ": " << report.out;
    const json counts = json::parse(report.out.substr(0, report.out.find('\n')), nullptr, false);
    ASSERT_TRUE(counts.is_object()) << doc.name << ": " << report.out;
    EXPECT_EQ(counts["numErrors"], 0) << doc.name << ": " << report.out;
    EXPECT_NO_THROW(load_asset(file)) << doc.name;
  }
}

// The documents are also fuzz seeds (fuzz/seed_corpus.sh takes every .gltf/.glb under tests/):
// tests/policy_seeds/ must hold exactly what the builders make. GLTF_CROWD_UPDATE_SEEDS=1 rewrites it.
TEST(LoadingPolicy, SeedFilesMatchTheDocuments) {
  const std::filesystem::path dir = std::filesystem::path(GLTF_CROWD_TESTS_DIR) / "policy_seeds";
  const bool update = std::getenv("GLTF_CROWD_UPDATE_SEEDS") != nullptr;
  if (update) std::filesystem::create_directories(dir);
  for (const test::PolicyDocument& doc : test::policy_documents()) {
    const std::filesystem::path file = dir / doc.name;
    if (update)
      std::ofstream(file, std::ios::binary)
          .write(reinterpret_cast<const char*>(doc.bytes.data()), static_cast<std::streamsize>(doc.bytes.size()));
    std::ifstream in(file, std::ios::binary);
    const std::vector<std::uint8_t> stored((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_TRUE(stored == doc.bytes) << file << " is missing or stale: rerun with GLTF_CROWD_UPDATE_SEEDS=1";
  }
}

}  // namespace
}  // namespace gltf_crowd
