// Tiny glTF documents written by hand in tests, for cases no sample asset exercises (non-unit
// key intervals with CUBICSPLINE tangents, quaternions of opposite sign). Header-only.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "asset/uri.hpp"

namespace gltf_crowd::test {

// One animation channel: keyframe times (seconds) and output floats, laid out as glTF wants
// (CUBICSPLINE: in-tangent, value, out-tangent per key).
struct HandmadeChannel {
  int node = 0;
  std::string path = "translation";  // translation, rotation or scale
  std::string interpolation = "LINEAR";
  std::vector<float> times;
  std::vector<float> values;
};

struct HandmadeClip {
  std::string name;
  std::vector<HandmadeChannel> channels;
  nlohmann::json extras = nullptr;  // the animation's extras, written when not null
};

// A .gltf (JSON, one embedded base64 buffer) with `nodes` (a JSON array of glTF nodes, all of
// them scene roots) and one animation per clip; with `triangle`, also mesh 0, the triangle
// (0,0,0), (1,0,0), (0,1,0), for nodes to draw ("mesh": 0).
inline std::vector<std::uint8_t> handmade_gltf(const nlohmann::json& nodes, const std::vector<HandmadeClip>& clips,
                                               bool triangle = false) {
  std::vector<std::uint8_t> bin;
  nlohmann::json accessors = nlohmann::json::array(), views = nlohmann::json::array();
  const auto add_floats = [&](const std::vector<float>& floats, const char* type, std::size_t count, bool bounds) {
    nlohmann::json accessor = {{"bufferView", views.size()}, {"componentType", 5126}, {"count", count}, {"type", type}};
    if (bounds) {
      accessor["min"] = {floats.front()};
      accessor["max"] = {floats.back()};
    }
    views.push_back({{"buffer", 0}, {"byteOffset", bin.size()}, {"byteLength", floats.size() * 4}});
    const std::size_t at = bin.size();
    bin.resize(at + floats.size() * 4);
    std::memcpy(bin.data() + at, floats.data(), floats.size() * 4);
    accessors.push_back(accessor);
    return accessors.size() - 1;
  };
  nlohmann::json animations = nlohmann::json::array();
  for (const HandmadeClip& clip : clips) {
    nlohmann::json samplers = nlohmann::json::array(), channels = nlohmann::json::array();
    for (const HandmadeChannel& c : clip.channels) {
      const std::size_t width = c.path == "rotation" ? 4 : 3;
      const std::size_t input = add_floats(c.times, "SCALAR", c.times.size(), true);
      const std::size_t output = add_floats(c.values, width == 4 ? "VEC4" : "VEC3", c.values.size() / width, false);
      channels.push_back({{"sampler", samplers.size()}, {"target", {{"node", c.node}, {"path", c.path}}}});
      samplers.push_back({{"input", input}, {"output", output}, {"interpolation", c.interpolation}});
    }
    animations.push_back({{"name", clip.name}, {"samplers", samplers}, {"channels", channels}});
    if (!clip.extras.is_null()) animations.back()["extras"] = clip.extras;
  }
  nlohmann::json meshes = nlohmann::json::array();
  if (triangle) {
    const std::size_t position = add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3", 3, false);
    accessors[position]["min"] = {0, 0, 0};
    accessors[position]["max"] = {1, 1, 0};
    meshes.push_back({{"primitives", {{{"attributes", {{"POSITION", position}}}}}}});
  }
  const std::string base64 = gltf_crowd::detail::base64_encode(bin);
  nlohmann::json roots = nlohmann::json::array();
  for (std::size_t i = 0; i < nodes.size(); ++i) roots.push_back(i);
  nlohmann::json doc = {
      {"asset", {{"version", "2.0"}}},
      {"scene", 0},
      {"scenes", {{{"nodes", roots}}}},
      {"nodes", nodes},
      {"buffers", {{{"byteLength", bin.size()}, {"uri", "data:application/octet-stream;base64," + base64}}}},
      {"bufferViews", views},
      {"accessors", accessors},
      {"animations", animations},
  };
  if (triangle) doc["meshes"] = meshes;
  const std::string text = doc.dump();
  return {text.begin(), text.end()};
}

// Channels of nodes 0–6 whose samplers repeat key times (docs/spec.md §2.7: a step at the
// repeated time), over 0–1.2 s: a repeat inside LINEAR translation (node 0), a time three keys
// share in LINEAR rotation and translation (node 1, one timeline), CUBICSPLINE scale (node 2) and
// rotation (node 5), a repeated first time in STEP (node 3) and LINEAR rotation (node 6), and a
// repeated last time (node 4). Rotations are unit quaternions.
inline std::vector<HandmadeChannel> repeated_time_channels() {
  return {
      {0, "translation", "LINEAR", {0.0f, 0.5f, 0.5f, 1.0f}, {0, 0, 0, 1, 0, 0, 5, 0, 0, 6, 2, 0}},
      {1, "rotation", "LINEAR", {0.2f, 0.6f, 0.6f, 0.6f, 1.2f}, {0,     0,    0,    1,     // key 0
                                                                 0,     0.6f, 0,    0.8f,  // key 1, at 0.6 s
                                                                 0.6f,  0,    0,    0.8f,  // key 2, at 0.6 s
                                                                 0,     0,    0.6f, 0.8f,  // key 3, at 0.6 s
                                                                 0.48f, 0.6f, 0,    0.64f}},
      {1, "translation", "LINEAR", {0.2f, 0.6f, 0.6f, 0.6f, 1.2f}, {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4}},
      {2,
       "scale",
       "CUBICSPLINE",
       {0.0f, 0.5f, 0.5f, 1.0f},
       {9, 9, 9,    1,    1, 1, 0.5f, 0, 1,    // key 0: in-tangent (unused), value, out-tangent
        1, 0, 0.5f, 2,    1, 1, 7,    7, 7,    // key 1: its out-tangent is unused
        8, 8, 8,    0.5f, 3, 1, 0,    1, -1,   // key 2: its in-tangent is unused
        1, 1, 0,    1,    2, 2, 9,    9, 9}},  // key 3
      {3, "translation", "STEP", {0.3f, 0.3f, 0.8f}, {1, 0, 0, 2, 0, 0, 3, 0, 0}},
      {4, "translation", "LINEAR", {0.1f, 0.7f, 0.7f}, {0, 1, 0, 0, 2, 0, 0, 7, 0}},
      {5,
       "rotation",
       "CUBICSPLINE",
       {0.0f, 0.4f, 0.4f, 0.9f},
       {0, 0,    0, 0, 0,    0,    0,    1,    0.1f, 0, 0,    0,    // key 0
        0, 0.2f, 0, 0, 0,    0.6f, 0,    0.8f, 5,    5, 5,    5,    // key 1
        5, 5,    5, 5, 0.6f, 0,    0,    0.8f, 0,    0, 0.3f, 0,    // key 2
        0, 0.1f, 0, 0, 0,    0,    0.6f, 0.8f, 0,    0, 0,    0}},  // key 3
      {6, "rotation", "LINEAR", {0.3f, 0.3f, 1.0f}, {0, 0, 0, 1, 0, 0.6f, 0, 0.8f, 0.6f, 0, 0, 0.8f}},
  };
}

}  // namespace gltf_crowd::test
