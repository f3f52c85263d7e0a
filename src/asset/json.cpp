// The loader's JSON parser (asset/json.hpp): nlohmann-json behind a nesting-depth check.
#include "asset/json.hpp"

#include <fmt/format.h>

#include "gltf_crowd/error.hpp"

namespace gltf_crowd::detail {

nlohmann::json parse_json(std::string_view text) {
  // A linear scan: brackets inside strings do not nest, and a backslash escapes one character.
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        throw Error("document", Rule::json_depth, fmt::format("nesting deeper than {} at byte {}", kMaxJsonDepth, i));
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    throw Error("document", Rule::json_syntax, e.what());
  }
}

}  // namespace gltf_crowd::detail
