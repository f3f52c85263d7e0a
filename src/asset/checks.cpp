// Shared checks (src/asset/checks.hpp) and clip_name_list (gltf_crowd/asset.hpp).
#include "asset/checks.hpp"

#include <cmath>

#include <fmt/format.h>

namespace gltf_crowd {

std::string clip_name_list(const Asset& asset) {
  std::string names;
  for (std::size_t i = 0; i < asset.clips.size(); ++i) {
    if (i > 0) names += ", ";
    names += asset.clips[i].name.empty() ? fmt::format("#{} (unnamed)", i) : asset.clips[i].name;
  }
  return names.empty() ? "none" : names;
}

namespace detail {

bool is_finite(const glm::mat4& m) noexcept {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r)
      if (!std::isfinite(m[c][r])) return false;
  return true;
}

void throw_not_finite(std::string_view path, std::string_view what) {
  throw Error(std::string(path), Rule::not_finite, fmt::format("{} is not finite", what));
}

void check_finite(float value, std::string_view path) {
  if (!std::isfinite(value)) throw_not_finite(path, fmt::format("{}", value));
}

void check_finite(const glm::mat4& m, std::string_view path) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r)
      if (!std::isfinite(m[c][r])) throw_not_finite(path, fmt::format("entry [{}][{}]", c, r));
}

}  // namespace detail
}  // namespace gltf_crowd
