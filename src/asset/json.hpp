// The JSON parser of the loader and of `gltf-crowd lod` export (nlohmann-json, without tinygltf).
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

namespace gltf_crowd::detail {

// Deepest JSON nesting accepted; tinygltf converts extras recursively, so depth is stack depth.
inline constexpr int kMaxJsonDepth = 64;

// Parses JSON text after checking its nesting depth. Throws Error("document", "json_depth" |
// "json_syntax").
nlohmann::json parse_json(std::string_view text);

}  // namespace gltf_crowd::detail
