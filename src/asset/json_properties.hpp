// Typed reads of a glTF document's JSON properties, for preflight: each checks the property's
// JSON type (an integer's range too) and throws Error naming its path ("accessors[3].count")
// and rule (missing_property, not_integer, integer_range, not_string, not_object, not_array,
// empty_array, or the index rule of the array an index points into).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "gltf_crowd/rules.hpp"

namespace gltf_crowd::detail {

// "path.key" ("key" at the root) and "path[i]".
std::string at(const std::string& path, const char* key);
std::string at(const std::string& path, std::size_t i);

// o[key], or nullptr when `o` has no such member.
const nlohmann::json* member(const nlohmann::json& o, const char* key);

// o[key] as an integer in [0, max], a string, an object or an array (non-empty if asked);
// absent: nullopt / nullptr, or Error missing_property when required.
std::optional<std::uint64_t> uint_at(const nlohmann::json& o, const char* key, const std::string& path, bool required,
                                     std::uint64_t max = std::numeric_limits<std::int32_t>::max());
std::optional<std::string> string_at(const nlohmann::json& o, const char* key, const std::string& path, bool required);
const nlohmann::json* object_at(const nlohmann::json& o, const char* key, const std::string& path, bool required);
const nlohmann::json* array_at(const nlohmann::json& o, const char* key, const std::string& path, bool required,
                               bool non_empty);

// What an index property refers to: the array's size and the rule id for a dangling index.
struct Target {
  std::size_t count = 0;
  Rule rule = Rule::node_index;
  const char* what = "";
};
// The document's top-level array `name` (an empty one when absent), and a Target into it.
const nlohmann::json& items(const nlohmann::json& doc, const char* name);
Target target(const nlohmann::json& doc, const char* name, Rule rule, const char* what);

// An integer index into `target`: Error not_integer, or target.rule when it names nothing.
void check_index(const nlohmann::json& value, const std::string& path, const Target& target);
// o[key] checked as an index into `target` (absent: nullopt, or missing_property when required).
std::optional<std::uint64_t> index_at(const nlohmann::json& o, const char* key, const std::string& path,
                                      const Target& target, bool required);
// o[key] as an array of indices into `target`.
void index_array_at(const nlohmann::json& o, const char* key, const std::string& path, const Target& target,
                    bool required, bool non_empty);

}  // namespace gltf_crowd::detail
