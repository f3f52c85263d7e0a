// docs/spec.md §2 loading features on documents built in the test, each expected value from the glTF 2.0
// specification or computed here independently of the loader.
#include <cmath>
#include <cstring>

#include <gtest/gtest.h>
#include <meshoptimizer.h>

#include "gltf_crowd/asset.hpp"
#include "test_documents.hpp"

namespace gltf_crowd {
namespace {

using nlohmann::json;
using test::Document;

// One triangle node at the scene root; returns the document with mesh 0 = `primitive`.
Document one_primitive(Document d, json primitive) {
  d.json["meshes"] = {{{"primitives", {primitive}}}};
  d.json["nodes"] = {{{"mesh", 0}}};
  d.json["scenes"] = {{{"nodes", {0}}}};
  return d;
}

TEST(LoaderFeatures, ByteStrideInterleavesAttributes) {
  Document d;
  // position xyz, normal xyz per vertex: stride 24.
  const std::vector<float> interleaved = {0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0};
  const int view = d.add_view(interleaved, 24);
  d.add_accessor(view, 5126, 3, "VEC3");
  d.add_accessor(view, 5126, 3, "VEC3", {{"byteOffset", 12}});
  const Asset a = load_asset_from_memory(one_primitive(d, {{"attributes", {{"POSITION", 0}, {"NORMAL", 1}}}}).gltf());
  const Primitive& p = a.meshes[0].primitives[0];
  EXPECT_EQ(p.positions, (std::vector<glm::vec3>{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}));
  EXPECT_EQ(p.normals, (std::vector<glm::vec3>{{0, 0, 1}, {0, 1, 0}, {1, 0, 0}}));
  // Non-indexed (§3.7.2.1): the vertices in order.
  EXPECT_EQ(p.indices, (std::vector<std::uint32_t>{0, 1, 2}));
}

TEST(LoaderFeatures, QuantizedAndNormalizedAttributes) {
  Document d;
  // KHR_mesh_quantization: SHORT positions (not normalized) are plain integers.
  d.add_accessor(d.add_view(std::vector<std::int16_t>{-2, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0}, 8), 5122, 3, "VEC3");
  // Normalized BYTE normals: c / 127, clamped to -1 (§3.11: -128 maps to -1).
  d.add_accessor(d.add_view(std::vector<std::int8_t>{0, 0, 127, 0, 0, 0, -128, 0, -127, 0, 0, 0}, 4), 5120, 3, "VEC3",
                 {{"normalized", true}});
  // Normalized UNSIGNED_SHORT texcoords: c / 65535.
  d.add_accessor(d.add_view(std::vector<std::uint16_t>{0, 65535, 32768, 0, 65535, 65535}), 5123, 3, "VEC2",
                 {{"normalized", true}});
  d.json["extensionsUsed"] = {"KHR_mesh_quantization"};
  d.json["extensionsRequired"] = {"KHR_mesh_quantization"};
  const Asset a = load_asset_from_memory(
      one_primitive(d, {{"attributes", {{"POSITION", 0}, {"NORMAL", 1}, {"TEXCOORD_0", 2}}}}).gltf());
  const Primitive& p = a.meshes[0].primitives[0];
  EXPECT_EQ(p.positions, (std::vector<glm::vec3>{{-2, 0, 0}, {0, 0, 0}, {0, 3, 0}}));
  EXPECT_EQ(p.normals[0], glm::vec3(0, 0, 1));
  EXPECT_EQ(p.normals[1], glm::vec3(0, 0, -1));
  EXPECT_EQ(p.normals[2], glm::vec3(-1, 0, 0));
  EXPECT_FLOAT_EQ(p.texcoords0[1].x, 32768.0f / 65535.0f);
  EXPECT_EQ(p.texcoords0[2], glm::vec2(1, 1));
  EXPECT_EQ(p.min, glm::vec3(-2, 0, 0));
  EXPECT_EQ(p.max, glm::vec3(0, 3, 0));
}

TEST(LoaderFeatures, SparseAccessorWithoutBufferViewStartsFromZeros) {
  Document d;
  d.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, 3, "VEC3");
  const int indices = d.add_view(std::vector<std::uint8_t>{2, 0, 0, 0});
  const int values = d.add_view(std::vector<float>{0, 0, 5});
  d.add_accessor(-1, 5126, 3, "VEC3",
                 {{"sparse",
                   {{"count", 1},
                    {"indices", {{"bufferView", indices}, {"componentType", 5121}}},
                    {"values", {{"bufferView", values}}}}}});
  const Asset a = load_asset_from_memory(
      one_primitive(d, {{"attributes", {{"POSITION", 0}}}, {"targets", {{{"POSITION", 1}}}}}).glb());
  const MorphTarget& t = a.meshes[0].primitives[0].targets.at(0);
  EXPECT_EQ(t.positions, (std::vector<glm::vec3>{{0, 0, 0}, {0, 0, 0}, {0, 0, 5}}));
}

TEST(LoaderFeatures, EightInfluencesAreRenormalizedOverBothSets) {
  Document d;
  d.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, 3, "VEC3");
  std::vector<std::uint8_t> joints(12, 0);
  const int j = d.add_view(joints);
  d.add_accessor(j, 5121, 3, "VEC4");
  d.add_accessor(j, 5121, 3, "VEC4");
  // Vertex 0 sums to 2 over both sets, vertex 1 to 1 exactly, vertex 2 to 0.5 as UNSIGNED_BYTE
  // normalized (255 → 1; 64 + 64 → 128/255 ≈ 0.502 over 4 of the 8 weights).
  d.add_floats({0.5f, 0.5f, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}, 4, "VEC4");
  d.add_floats({0.5f, 0, 0, 0.5f, 0, 0, 0, 0, 0, 0, 0, 0}, 4, "VEC4");
  const int w =
      d.add_view(std::vector<std::uint8_t>{0, 0, 0, 0, 0, 0, 0, 0, 64, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 64, 0, 0, 0});
  d.add_accessor(w, 5121, 3, "VEC4", {{"normalized", true}});
  d.add_accessor(w, 5121, 3, "VEC4", {{"normalized", true}, {"byteOffset", 12}});
  d.json["skins"] = {{{"joints", {1}}}};
  Document doc = one_primitive(
      d, {{"attributes", {{"POSITION", 0}, {"JOINTS_0", 1}, {"JOINTS_1", 2}, {"WEIGHTS_0", 3}, {"WEIGHTS_1", 4}}}});
  doc.json["nodes"] = {{{"mesh", 0}, {"skin", 0}}, {{"name", "joint"}}};
  doc.json["scenes"] = {{{"nodes", {0, 1}}}};
  Asset a = load_asset_from_memory(doc.gltf());
  const Primitive& p = a.meshes[0].primitives[0];
  EXPECT_EQ(p.weights0[0], glm::vec4(0.25f, 0.25f, 0, 0));
  EXPECT_EQ(p.weights1[0], glm::vec4(0.25f, 0, 0, 0.25f));
  EXPECT_EQ(p.weights0[1], glm::vec4(1, 0, 0, 0));
  // Missing inverseBindMatrices are identity (docs/spec.md §2).
  EXPECT_EQ(a.skins[0].inverse_bind_matrices.at(0), glm::mat4(1.0f));

  // Vertex 2 with normalized bytes: 64/255 each in set 0 and set 1, renormalized to 1/2 each.
  doc.json["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"] = 5;
  doc.json["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_1"] = 6;
  a = load_asset_from_memory(doc.gltf());
  const Primitive& q = a.meshes[0].primitives[0];
  EXPECT_FLOAT_EQ(q.weights0[2].x, 0.5f);
  EXPECT_FLOAT_EQ(q.weights1[2].x, 0.5f);
}

TEST(LoaderFeatures, MorphWeightsComeFromTheNodeElseTheMesh) {
  Document d = test::skinned_triangle();
  Asset a = load_asset_from_memory(d.gltf());
  const std::uint32_t mesh_node = 2;
  ASSERT_EQ(a.weight_counts[mesh_node], 1u);
  EXPECT_EQ(a.rest_weights[a.weight_offsets[mesh_node]], 0.5f);  // meshes[0].weights
  d.json["nodes"][2]["weights"] = {0.25};
  a = load_asset_from_memory(d.gltf());
  EXPECT_EQ(a.rest_weights[a.weight_offsets[mesh_node]], 0.25f);  // nodes[2].weights wins
}

TEST(LoaderFeatures, MatrixIsKeptUnlessAnimated) {
  Document d = test::skinned_triangle();
  // Translation (1, 2, 3) and uniform scale 2, column-major as glTF stores it.
  const json matrix = {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 1, 2, 3, 1};
  d.json["nodes"][0]["matrix"] = matrix;
  d.json["nodes"][3].erase("translation");
  d.json["nodes"][3]["matrix"] = matrix;
  const Asset a = load_asset_from_memory(d.gltf());
  EXPECT_TRUE(a.nodes[0].has_matrix);  // not animated: kept as authored
  EXPECT_EQ(a.local_matrix(0)[3], glm::vec4(1, 2, 3, 1));
  const Node& animated = a.nodes[3];  // "Turn" rotates node 3: decomposed to TRS
  EXPECT_FALSE(animated.has_matrix);
  EXPECT_NEAR(animated.translation.y, 2.0f, 1e-6f);
  EXPECT_NEAR(animated.scale.x, 2.0f, 1e-6f);
  EXPECT_NEAR(std::abs(animated.rotation.w), 1.0f, 1e-6f);
}

TEST(LoaderFeatures, NodeVisibilityAndLodAreRead) {
  Document d = test::skinned_triangle();
  d.json["extensionsUsed"] = {"KHR_node_visibility", "MSFT_lod"};
  d.json["nodes"][2]["extensions"] = {{"KHR_node_visibility", {{"visible", false}}}, {"MSFT_lod", {{"ids", {3}}}}};
  d.json["nodes"][2]["extras"] = {{"MSFT_screencoverage", {0.5, 0.1}}};
  const Asset a = load_asset_from_memory(d.gltf());
  EXPECT_FALSE(a.nodes[2].visible);
  EXPECT_TRUE(a.nodes[0].visible);
  EXPECT_EQ(a.nodes[2].lod_ids, (std::vector<std::uint32_t>{3}));
  EXPECT_EQ(a.nodes[2].lod_screen_coverage, (std::vector<float>{0.5f, 0.1f}));
}

TEST(LoaderFeatures, TexturesAreDecodedToRgba) {
  Document d = test::skinned_triangle();
  // A widely used minimal PNG: 1 × 1 pixel, 8-bit grey + alpha; any PNG decodes to 4 channels.
  d.json["images"] = {{{"uri",
                        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAj"
                        "CB0C8AAAAASUVORK5CYII="}}};
  d.json["samplers"] = {{{"magFilter", 9728}, {"wrapS", 33071}}};
  d.json["textures"] = {{{"source", 0}, {"sampler", 0}}};
  d.json["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"] = {{"index", 0}, {"texCoord", 1}};
  d.json["materials"][0]["emissiveFactor"] = {0.5, 0.25, 0};
  d.json["materials"][0]["extensions"] = {{"KHR_materials_emissive_strength", {{"emissiveStrength", 4.0}}}};
  d.json["materials"][0]["alphaMode"] = "MASK";
  const Asset a = load_asset_from_memory(d.glb());
  ASSERT_EQ(a.images.size(), 1u);
  EXPECT_EQ(a.images[0].width, 1u);
  EXPECT_EQ(a.images[0].height, 1u);
  EXPECT_EQ(a.images[0].rgba.size(), 4u);
  EXPECT_EQ(a.samplers.at(0).mag_filter, 9728u);
  EXPECT_EQ(a.samplers.at(0).wrap_s, 33071u);
  const Material& m = a.materials[0];
  EXPECT_EQ(m.base_color_texture.texture, 0);
  EXPECT_EQ(m.base_color_texture.tex_coord, 1u);
  EXPECT_EQ(m.base_color_factor, glm::vec4(1, 0, 0, 1));
  EXPECT_EQ(m.emissive_factor, glm::vec3(2, 1, 0));  // factor × emissiveStrength
  EXPECT_EQ(m.alpha_mode, AlphaMode::mask);
  EXPECT_EQ(m.alpha_cutoff, 0.5f);  // glTF default
}

TEST(LoaderFeatures, PointerChannelsAreSkippedWithAWarningNamingThem) {
  Document d = test::skinned_triangle();
  d.add_floats({0.0f, 4.0f}, 1, "SCALAR");            // accessor 8: times to 4 s
  d.add_floats({1, 0, 0, 1, 0, 1, 0, 1}, 4, "VEC4");  // accessor 9
  json& animation = d.json["animations"][0];
  animation["samplers"].push_back({{"input", 8}, {"output", 9}});
  const json pointer_channel = {
      {"sampler", 1},
      {"target",
       {{"path", "pointer"},
        {"extensions",
         {{"KHR_animation_pointer", {{"pointer", "/materials/0/pbrMetallicRoughness/baseColorFactor"}}}}}}}};
  animation["channels"].insert(animation["channels"].begin(), pointer_channel);
  d.json["extensionsUsed"] = {"KHR_animation_pointer"};
  const Asset a = load_asset_from_memory(d.gltf());
  ASSERT_EQ(a.clips[0].channels.size(), 1u);
  EXPECT_EQ(a.clips[0].channels[0].node, 3u);
  ASSERT_EQ(a.warnings.size(), 1u);
  EXPECT_EQ(a.warnings[0].path, "animations[0].channels[0]") << a.warnings[0].message;
  EXPECT_EQ(a.warnings[0].rule, "channel_skipped");
  // docs/spec.md §1: the duration is the last key over every sampler, the skipped channel's included.
  EXPECT_EQ(a.clips[0].duration_seconds, 4.0f);
  // A broken channel after the skipped one is named by its index in the file.
  animation["channels"][1]["target"]["path"] = "colour";
  try {
    load_asset_from_memory(d.gltf());
    ADD_FAILURE() << "loaded an unknown channel path";
  } catch (const Error& e) {
    EXPECT_EQ(e.path(), "animations[0].channels[1].target.path");
  }
  // Required, the extension is refused (docs/spec.md §2).
  d.json["extensionsRequired"] = {"KHR_animation_pointer"};
  EXPECT_THROW(load_asset_from_memory(d.gltf()), Error);
}

// EXT_meshopt_compression: a fallback buffer without data, and the compressed bytes in buffer 0.
// Positions use the vertex codec, normals the octahedral filter, indices both index codecs.
TEST(LoaderFeatures, MeshoptCompressedViewsDecodeToTheOriginals) {
  const std::vector<float> positions = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
  const std::vector<std::uint16_t> triangles = {0, 1, 2, 2, 1, 3};
  const std::vector<std::uint32_t> sequence = {0, 1, 2, 3};
  // x, y, z, w per vector, as meshopt_encodeFilterOct takes them.
  const std::vector<float> unit_normals = {0, 0, 1, 0, 0.6f, 0.8f, 0, 0, 0, -1, 0, 0, -0.48f, 0.6f, 0.64f, 0};

  std::vector<std::uint8_t> vertex_code(meshopt_encodeVertexBufferBound(4, 12));
  vertex_code.resize(meshopt_encodeVertexBuffer(vertex_code.data(), vertex_code.size(), positions.data(), 4, 12));
  std::vector<std::uint8_t> octahedral(4 * 4);
  meshopt_encodeFilterOct(octahedral.data(), 4, 4, 8, unit_normals.data());
  std::vector<std::uint8_t> normal_code(meshopt_encodeVertexBufferBound(4, 4));
  normal_code.resize(meshopt_encodeVertexBuffer(normal_code.data(), normal_code.size(), octahedral.data(), 4, 4));
  std::vector<std::uint8_t> index_code(meshopt_encodeIndexBufferBound(6, 4));
  index_code.resize(meshopt_encodeIndexBuffer(index_code.data(), index_code.size(), triangles.data(), 6));
  std::vector<std::uint8_t> sequence_code(meshopt_encodeIndexSequenceBound(4, 4));
  sequence_code.resize(meshopt_encodeIndexSequence(sequence_code.data(), sequence_code.size(), sequence.data(), 4));

  Document d;
  const auto compressed = [&d](const std::vector<std::uint8_t>& code, std::size_t stride, std::size_t count,
                               const char* mode, const char* filter, std::size_t fallback_offset) {
    const int source = d.add_view(code);
    const json offset = d.json["bufferViews"][source]["byteOffset"];
    json view = {{"buffer", 1},
                 {"byteOffset", fallback_offset},
                 {"byteLength", stride * count},
                 {"extensions",
                  {{"EXT_meshopt_compression",
                    {{"buffer", 0},
                     {"byteOffset", offset},
                     {"byteLength", code.size()},
                     {"byteStride", stride},
                     {"count", count},
                     {"mode", mode},
                     {"filter", filter}}}}}};
    if (std::string(mode) == "ATTRIBUTES") view["byteStride"] = stride;
    d.json["bufferViews"].push_back(view);
    return static_cast<int>(d.json["bufferViews"].size()) - 1;
  };
  const int pv = compressed(vertex_code, 12, 4, "ATTRIBUTES", "NONE", 0);
  const int nv = compressed(normal_code, 4, 4, "ATTRIBUTES", "OCTAHEDRAL", 48);
  const int iv = compressed(index_code, 2, 6, "TRIANGLES", "NONE", 64);
  const int sv = compressed(sequence_code, 4, 4, "INDICES", "NONE", 76);
  d.json["buffers"].push_back(
      {{"byteLength", 92}, {"extensions", {{"EXT_meshopt_compression", {{"fallback", true}}}}}});
  d.json["extensionsUsed"] = {"EXT_meshopt_compression", "KHR_mesh_quantization"};
  d.json["extensionsRequired"] = {"EXT_meshopt_compression", "KHR_mesh_quantization"};
  d.add_accessor(pv, 5126, 4, "VEC3");
  d.add_accessor(nv, 5120, 4, "VEC3", {{"normalized", true}});
  d.add_accessor(iv, 5123, 6, "SCALAR");
  d.add_accessor(sv, 5125, 4, "SCALAR");
  Document doc = one_primitive(d, {{"attributes", {{"POSITION", 0}, {"NORMAL", 1}}}, {"indices", 2}});
  doc.json["meshes"][0]["primitives"].push_back({{"attributes", {{"POSITION", 0}}}, {"indices", 3}, {"mode", 0}});

  for (const auto& bytes : {doc.gltf(), doc.glb()}) {
    const Asset a = load_asset_from_memory(bytes);
    const Primitive& p = a.meshes[0].primitives[0];
    ASSERT_EQ(p.vertex_count(), 4u);
    for (std::size_t v = 0; v < 4; ++v) {
      EXPECT_EQ(p.positions[v], glm::vec3(positions[v * 3], positions[v * 3 + 1], positions[v * 3 + 2]));
      // 8-bit octahedral encoding keeps directions to about 1/127 per component.
      for (int c = 0; c < 3; ++c)
        EXPECT_NEAR(p.normals[v][c], unit_normals[v * 4 + static_cast<std::size_t>(c)], 0.03f);
    }
    EXPECT_EQ(p.indices, (std::vector<std::uint32_t>{0, 1, 2, 2, 1, 3}));
    EXPECT_EQ(a.meshes[0].primitives[1].indices, sequence);
  }
}

}  // namespace
}  // namespace gltf_crowd
