// Hand-made documents for the loading policy (docs/spec.md §2.8): each is valid glTF 2.0 (the
// Khronos validator reports no errors for it; one exception is marked) but exercises one thing
// the loader once refused.
// Built from the specification's rules, not copied from any corpus. Header-only.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_documents.hpp"

namespace gltf_crowd::test {

// A named document: its bytes and whether they are a GLB.
struct PolicyDocument {
  std::string name;  // also the seed file name under tests/policy_seeds/
  std::vector<std::uint8_t> bytes;
  bool glb = false;
  // False for the one document the validator reports an error for (GLB_UNEXPECTED_END_OF_CHUNK_HEADER)
  // that the loader still accepts, because nothing it would read is affected.
  bool validator_valid = true;
};

// A 1 × 1 grey-alpha PNG (the widely used minimal example file), for texture references.
inline const char* const kPolicyOnePixelPng =
    "data:image/"
    "png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

// The triangle every geometric document draws: (0,0,0), (1,0,0), (0,1,0), counter-clockwise
// towards +z.
inline const std::vector<float> kPolicyTriangle = {0, 0, 0, 1, 0, 0, 0, 1, 0};

// A document with one scene, one node (mesh 0) and POSITION as accessor 0 (with min/max, which
// the specification requires of POSITION).
inline Document policy_triangle() {
  Document d;
  d.add_accessor(d.add_view(kPolicyTriangle), 5126, 3, "VEC3", {{"min", {0, 0, 0}}, {"max", {1, 1, 0}}});
  d.json["nodes"] = {{{"mesh", 0}}};
  d.json["scenes"] = {{{"nodes", {0}}}};
  d.json["scene"] = 0;
  d.json["meshes"] = {{{"primitives", {{{"attributes", {{"POSITION", 0}}}}}}}};
  return d;
}

// normalTexture on TEXCOORD_2 (the primitive has TEXCOORD_0..2 and NORMAL + TANGENT, as a
// normal map wants). Loads with the texture ignored.
inline Document policy_texcoord2() {
  Document d = policy_triangle();
  const int normal = d.add_floats({0, 0, 1, 0, 0, 1, 0, 0, 1}, 3, "VEC3");
  const int tangent = d.add_floats({1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1}, 4, "VEC4");
  const int uv0 = d.add_floats({0, 0, 1, 0, 0, 1}, 2, "VEC2");
  const int uv1 = d.add_floats({0, 0, 1, 0, 0, 1}, 2, "VEC2");
  const int uv2 = d.add_floats({0, 0, 1, 0, 0, 1}, 2, "VEC2");
  d.json["meshes"][0]["primitives"][0]["attributes"] = {{"POSITION", 0},     {"NORMAL", normal},  {"TANGENT", tangent},
                                                        {"TEXCOORD_0", uv0}, {"TEXCOORD_1", uv1}, {"TEXCOORD_2", uv2}};
  d.json["meshes"][0]["primitives"][0]["material"] = 0;
  d.json["images"] = {{{"uri", kPolicyOnePixelPng}}};
  d.json["textures"] = {{{"source", 0}}};
  d.json["materials"] = {{{"normalTexture", {{"index", 0}, {"texCoord", 2}}},
                          {"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 0}}}}}}};
  return d;
}

// meshes[0].primitives[1] has NORMAL but no POSITION; primitives[0] is the triangle.
inline Document policy_no_position() {
  Document d = policy_triangle();
  const int normal = d.add_floats({0, 0, 1, 0, 0, 1, 0, 0, 1}, 3, "VEC3");
  d.json["meshes"][0]["primitives"].push_back({{"attributes", {{"NORMAL", normal}}}});
  return d;
}

// Indices from an accessor without a bufferView (zeros, glTF 2.0 §3.6.2.1) with sparse
// substitution making them 0, 1, 2.
inline Document policy_sparse_indices_without_view() {
  Document d = policy_triangle();
  const int sparse_indices = d.add_view(std::vector<std::uint8_t>{1, 2});
  const int sparse_values = d.add_view(std::vector<std::uint16_t>{1, 2});
  d.add_accessor(-1, 5123, 3, "SCALAR",
                 {{"sparse",
                   {{"count", 2},
                    {"indices", {{"bufferView", sparse_indices}, {"componentType", 5121}}},
                    {"values", {{"bufferView", sparse_values}}}}}});
  d.json["meshes"][0]["primitives"][0]["indices"] = 1;
  return d;
}

// An animation whose input accessor has no bufferView: two keys, both at time 0. Output:
// translations (1,2,3) then (4,5,6) of node 0.
inline Document policy_zero_times() {
  Document d = policy_triangle();
  const int input = d.add_accessor(-1, 5126, 2, "SCALAR", {{"min", {0}}, {"max", {0}}});
  const int output = d.add_floats({1, 2, 3, 4, 5, 6}, 3, "VEC3");
  d.json["animations"] = {{{"samplers", {{{"input", input}, {"output", output}}}},
                           {"channels", {{{"sampler", 0}, {"target", {{"node", 0}, {"path", "translation"}}}}}}}};
  return d;
}

// asset.version and minVersion "2.1".
inline Document policy_min_version() {
  Document d = policy_triangle();
  d.json["asset"] = {{"version", "2.1"}, {"minVersion", "2.1"}};
  return d;
}

// An unused accessor whose type is not one of glTF 2.0's.
inline Document policy_unknown_type() {
  Document d = policy_triangle();
  d.add_accessor(d.add_view(std::vector<float>{1, 2, 3, 4, 5}), 5126, 1, "VEC5");
  return d;
}

// Matrices of small components, whose columns are padded to 4 bytes (glTF 2.0 §3.6.2.4). The
// padding bytes hold 0xEE so a reader that ignores the padding reads them. Accessors:
//   1: MAT2 of UNSIGNED_BYTE, 2 elements: columns (1,2) (3,4) | (5,6) (7,8)
//   2: MAT3 of UNSIGNED_BYTE, 1 element: columns (1,2,3) (4,5,6) (7,8,9)
//   3: MAT3 of SHORT, 1 element: columns (-1,2,-3) (4,-5,6) (-7,8,-9)
inline Document policy_padded_matrices() {
  Document d = policy_triangle();
  constexpr std::uint8_t P = 0xEE;
  d.add_accessor(d.add_view(std::vector<std::uint8_t>{1, 2, P, P, 3, 4, P, P, 5, 6, P, P, 7, 8, P, P}), 5121, 2,
                 "MAT2");
  d.add_accessor(d.add_view(std::vector<std::uint8_t>{1, 2, 3, P, 4, 5, 6, P, 7, 8, 9, P}), 5121, 1, "MAT3");
  const std::uint16_t pad = 0xEEEE;
  const auto s = [](int v) { return static_cast<std::uint16_t>(static_cast<std::int16_t>(v)); };
  d.add_accessor(
      d.add_view(std::vector<std::uint16_t>{s(-1), s(2), s(-3), pad, s(4), s(-5), s(6), pad, s(-7), s(8), s(-9), pad}),
      5122, 1, "MAT3");
  return d;
}

// A buffer and bufferView with properties the schema does not define, and integers written as
// floats (JSON numbers: 36.0 is 36).
inline Document policy_custom_properties() {
  Document d = policy_triangle();
  d.json["buffers"][0]["customProperty"] = {{"anything", 1.5}};
  d.json["bufferViews"][0]["byteLength"] = 36.0;
  d.json["bufferViews"][0]["vendorNote"] = "kept";
  d.json["accessors"][0]["count"] = 3.0;
  d.json["accessors"][0]["componentType"] = 5126.0;
  d.json["nodes"][0]["mesh"] = 0.0;
  return d;
}

// buffers[0] as a percent-encoded data URI (RFC 2397 without ";base64"): every byte as %XX.
inline Document policy_percent_data_uri() {
  Document d = policy_triangle();
  std::string uri = "data:application/octet-stream,";
  static const char* hex = "0123456789ABCDEF";
  for (std::uint8_t b : d.bin) uri += std::string{'%', hex[b >> 4], hex[b & 15]};
  d.json["buffers"][0]["uri"] = uri;
  return d;
}

// An optional extension the loader does not implement, used on a node.
inline Document policy_unknown_extension() {
  Document d = policy_triangle();
  d.json["extensionsUsed"] = {"EXT_policy_test_unknown"};
  d.json["nodes"][0]["extensions"] = {{"EXT_policy_test_unknown", {{"value", 1}}}};
  return d;
}

// GLB documents: the triangle with its BIN chunk, then extra bytes.
//   trailing_outside: 16 bytes after the declared length (the header says less than the file);
//   trailing_inside: 4 zero bytes after the BIN chunk inside the declared length.
inline std::vector<std::uint8_t> policy_glb_trailing(bool inside) {
  std::vector<std::uint8_t> glb = policy_triangle().glb();
  glb.insert(glb.end(), inside ? 4 : 16, 0);
  if (inside) {
    const auto length = static_cast<std::uint32_t>(glb.size());
    std::memcpy(glb.data() + 8, &length, 4);
  }
  return glb;
}

// A GLB whose buffers[1] has no uri: a placeholder nothing reads.
inline Document policy_placeholder_buffer() {
  Document d = policy_triangle();
  d.json["buffers"].push_back({{"byteLength", 16}});
  return d;
}

// Every policy document that loads, as written to the seed corpus and (where validator_valid)
// given to the validator.
inline std::vector<PolicyDocument> policy_documents() {
  return {
      {"texcoord2.gltf", policy_texcoord2().gltf(), false},
      {"no_position.gltf", policy_no_position().gltf(), false},
      {"sparse_indices_without_view.gltf", policy_sparse_indices_without_view().gltf(), false},
      {"zero_times.gltf", policy_zero_times().gltf(), false},
      {"min_version.gltf", policy_min_version().gltf(), false},
      {"unknown_type.gltf", policy_unknown_type().gltf(), false},
      {"padded_matrices.gltf", policy_padded_matrices().gltf(), false},
      {"custom_properties.gltf", policy_custom_properties().gltf(), false},
      {"unknown_extension.gltf", policy_unknown_extension().gltf(), false},
      {"percent_data_uri.gltf", policy_percent_data_uri().gltf(), false},
      {"trailing_outside.glb", policy_glb_trailing(false), true},
      {"trailing_inside.glb", policy_glb_trailing(true), true, false},
      {"placeholder_buffer.glb", policy_placeholder_buffer().glb(), true},
  };
}

}  // namespace gltf_crowd::test
