// Small glTF documents built in tests: a JSON object plus the bytes of buffers[0], written out as
// .gltf (base64 data URI) or .glb. Header-only; the loader tests mutate them to make bad input.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "asset/glb.hpp"
#include "asset/uri.hpp"

namespace gltf_crowd::test {

inline std::string base64(const std::vector<std::uint8_t>& bytes) { return detail::base64_encode(bytes); }

// A document under construction: `json` without buffers[0]'s uri, `bin` its bytes.
struct Document {
  nlohmann::json json = {{"asset", {{"version", "2.0"}}},
                         {"buffers", {{{"byteLength", 0}}}},
                         {"bufferViews", nlohmann::json::array()},
                         {"accessors", nlohmann::json::array()}};
  std::vector<std::uint8_t> bin;

  // Appends raw bytes (4-byte aligned) as a new bufferView; returns its index.
  int add_view(const void* data, std::size_t size, int stride = 0) {
    while (bin.size() % 4 != 0) bin.push_back(0);
    nlohmann::json view = {{"buffer", 0}, {"byteOffset", bin.size()}, {"byteLength", size}};
    if (stride != 0) view["byteStride"] = stride;
    const auto* bytes = static_cast<const std::uint8_t*>(data);
    bin.insert(bin.end(), bytes, bytes + size);
    json["buffers"][0]["byteLength"] = bin.size();
    json["bufferViews"].push_back(view);
    return static_cast<int>(json["bufferViews"].size()) - 1;
  }
  template <typename T>
  int add_view(const std::vector<T>& values, int stride = 0) {
    return add_view(values.data(), values.size() * sizeof(T), stride);
  }
  // Appends an accessor; returns its index.
  int add_accessor(int view, int component_type, std::size_t count, const char* type, nlohmann::json extra = {}) {
    nlohmann::json accessor = {{"componentType", component_type}, {"count", count}, {"type", type}};
    if (view >= 0) accessor["bufferView"] = view;
    if (extra.is_object()) accessor.update(extra);
    json["accessors"].push_back(accessor);
    return static_cast<int>(json["accessors"].size()) - 1;
  }
  // Views + accessor of tightly packed floats.
  int add_floats(const std::vector<float>& values, std::size_t components, const char* type) {
    return add_accessor(add_view(values), 5126, values.size() / components, type);
  }

  // .gltf bytes: buffers[0] gets its data as a base64 data URI (unless a test set another uri).
  std::vector<std::uint8_t> gltf() const {
    nlohmann::json doc = json;
    if (!doc["buffers"][0].contains("uri"))
      doc["buffers"][0]["uri"] = "data:application/octet-stream;base64," + base64(bin);
    const std::string text = doc.dump();
    return {text.begin(), text.end()};
  }
  // .glb bytes: JSON chunk (space-padded) and, when `bin` is not empty, a zero-padded BIN chunk.
  std::vector<std::uint8_t> glb() const { return detail::write_glb(json.dump(), bin); }
};

// A skinned, morphing, animated triangle that exercises every loader pass:
//   nodes: 0 "Root" (children 1, 2), 1 "Joint0" (child 3), 2 "Mesh" (mesh 0, skin 0), 3 "Joint1"
//   accessors: 0 POSITION (3 × VEC3), 1 indices (3 × u16), 2 JOINTS_0 (3 × u8 VEC4),
//              3 WEIGHTS_0 (3 × VEC4), 4 inverse bind matrices (2 × MAT4), 5 key times [0, 1],
//              6 rotations (2 × VEC4), 7 morph target POSITION deltas (3 × VEC3)
//   skin 0: joints [1, 3]; mesh 0: one primitive, one morph target, weights [0.5]; material 0;
//   animation 0 "Turn": LINEAR rotation of node 3.
inline Document skinned_triangle() {
  Document d;
  d.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, 3, "VEC3");
  d.add_accessor(d.add_view(std::vector<std::uint16_t>{0, 1, 2}), 5123, 3, "SCALAR");
  d.add_accessor(d.add_view(std::vector<std::uint8_t>{0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0}), 5121, 3, "VEC4");
  d.add_floats({1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 0, 1, 0, 0}, 4, "VEC4");
  std::vector<float> ibms(32, 0.0f);
  for (int m = 0; m < 2; ++m)
    for (int k = 0; k < 4; ++k) ibms[static_cast<std::size_t>(m * 16 + k * 5)] = 1.0f;
  ibms[16 + 13] = -1.0f;  // joint 1 sits at y = 1
  d.add_floats(ibms, 16, "MAT4");
  d.add_floats({0.0f, 1.0f}, 1, "SCALAR");
  d.add_floats({0, 0, 0, 1, 0, 0, 0.70710678f, 0.70710678f}, 4, "VEC4");
  d.add_floats({0, 0, 0, 0, 0, 0, 0, 0, 1}, 3, "VEC3");
  d.json["nodes"] = {{{"name", "Root"}, {"children", {1, 2}}},
                     {{"name", "Joint0"}, {"children", {3}}},
                     {{"name", "Mesh"}, {"mesh", 0}, {"skin", 0}},
                     {{"name", "Joint1"}, {"translation", {0, 1, 0}}}};
  d.json["scene"] = 0;
  d.json["scenes"] = {{{"nodes", {0}}}};
  d.json["skins"] = {{{"joints", {1, 3}}, {"inverseBindMatrices", 4}}};
  d.json["materials"] = {{{"name", "Red"}, {"pbrMetallicRoughness", {{"baseColorFactor", {1, 0, 0, 1}}}}}};
  d.json["meshes"] = {{{"primitives",
                        {{{"attributes", {{"POSITION", 0}, {"JOINTS_0", 2}, {"WEIGHTS_0", 3}}},
                          {"indices", 1},
                          {"material", 0},
                          {"targets", {{{"POSITION", 7}}}}}}},
                       {"weights", {0.5}}}};
  d.json["animations"] = {{{"name", "Turn"},
                           {"samplers", {{{"input", 5}, {"output", 6}, {"interpolation", "LINEAR"}}}},
                           {"channels", {{{"sampler", 0}, {"target", {{"node", 3}, {"path", "rotation"}}}}}}}};
  return d;
}

// A flat n × n grid of quads in the z = 0 plane, corners (0, 0) and (n, n), two triangles per
// quad (u32 indices), drawn by one static node: geometry alone, for the level generator.
inline Document grid_document(int n) {
  Document d;
  std::vector<float> positions;
  for (int y = 0; y <= n; ++y)
    for (int x = 0; x <= n; ++x)
      positions.insert(positions.end(), {static_cast<float>(x), static_cast<float>(y), 0.0f});
  const auto at = [n](int x, int y) { return static_cast<std::uint32_t>(y * (n + 1) + x); };
  std::vector<std::uint32_t> indices;
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x)
      indices.insert(indices.end(),
                     {at(x, y), at(x + 1, y), at(x + 1, y + 1), at(x, y), at(x + 1, y + 1), at(x, y + 1)});
  d.add_accessor(d.add_view(positions), 5126, positions.size() / 3, "VEC3", {{"min", {0, 0, 0}}, {"max", {n, n, 0}}});
  d.add_accessor(d.add_view(indices), 5125, indices.size(), "SCALAR");
  d.json["meshes"] = {{{"primitives", {{{"attributes", {{"POSITION", 0}}}, {"indices", 1}}}}}};
  d.json["nodes"] = {{{"name", "Grid"}, {"mesh", 0}}};
  d.json["scene"] = 0;
  d.json["scenes"] = {{{"nodes", {0}}}};
  return d;
}

}  // namespace gltf_crowd::test
