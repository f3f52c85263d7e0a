// Checks shared by the layers that validate arguments or data (asset, lod, crowd, gl, tools):
// one wording per rule. Private to the library and the tools; depends on the public headers only.
#pragma once

#include <string>
#include <string_view>

#include <glm/glm.hpp>

#include "gltf_crowd/asset.hpp"

namespace gltf_crowd::detail {

// Whether all 16 entries of `m` are finite (no NaN or infinity).
bool is_finite(const glm::mat4& m) noexcept;

// Throws Error(path, Rule::not_finite, "<what> is not finite"), the one wording of not_finite.
[[noreturn]] void throw_not_finite(std::string_view path, std::string_view what);
// Throws as throw_not_finite with the value as `what` ("nan is not finite") unless finite.
// Allocates nothing when the value is finite (the path is copied only to throw).
void check_finite(float value, std::string_view path);
// Throws as throw_not_finite naming the first bad entry ("entry [3][0] is not finite", [column][row])
// unless every entry of `m` is finite. On a hot path whose path string must be built, test
// is_finite first and build it only to call this.
void check_finite(const glm::mat4& m, std::string_view path);

// A loading-policy warning (docs/spec.md §2.8) with its rule from the table.
inline Warning make_warning(std::string path, Rule rule, std::string message) {
  return {std::move(path), std::string(rule_id(rule)), std::move(message)};
}

}  // namespace gltf_crowd::detail
