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
// them scene roots) and one animation per clip.
inline std::vector<std::uint8_t> handmade_gltf(const nlohmann::json& nodes, const std::vector<HandmadeClip>& clips) {
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
  const std::string base64 = gltf_crowd::detail::base64_encode(bin);
  nlohmann::json roots = nlohmann::json::array();
  for (std::size_t i = 0; i < nodes.size(); ++i) roots.push_back(i);
  const nlohmann::json doc = {
      {"asset", {{"version", "2.0"}}},
      {"scene", 0},
      {"scenes", {{{"nodes", roots}}}},
      {"nodes", nodes},
      {"buffers", {{{"byteLength", bin.size()}, {"uri", "data:application/octet-stream;base64," + base64}}}},
      {"bufferViews", views},
      {"accessors", accessors},
      {"animations", animations},
  };
  const std::string text = doc.dump();
  return {text.begin(), text.end()};
}

}  // namespace gltf_crowd::test
