// Typed reads of a glTF document's JSON properties for preflight (asset/json_properties.hpp).
#include "asset/json_properties.hpp"

#include <fmt/format.h>

#include "gltf_crowd/error.hpp"

namespace gltf_crowd::detail {

using nlohmann::json;

std::string at(const std::string& path, const char* key) { return path.empty() ? key : path + "." + key; }
std::string at(const std::string& path, std::size_t i) { return fmt::format("{}[{}]", path, i); }

const json* member(const json& o, const char* key) {
  const auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

std::optional<std::uint64_t> uint_at(const json& o, const char* key, const std::string& path, bool required,
                                     std::uint64_t max) {
  const json* v = member(o, key);
  const std::string p = at(path, key);
  if (v == nullptr) {
    if (required) throw Error(p, Rule::missing_property, "is required");
    return std::nullopt;
  }
  if (!v->is_number_integer()) throw Error(p, Rule::not_integer, "must be an integer");
  if (!v->is_number_unsigned() || v->get<std::uint64_t>() > max)
    throw Error(p, Rule::integer_range, fmt::format("must be in [0, {}]", max));
  return v->get<std::uint64_t>();
}

std::optional<std::string> string_at(const json& o, const char* key, const std::string& path, bool required) {
  const json* v = member(o, key);
  if (v == nullptr) {
    if (required) throw Error(at(path, key), Rule::missing_property, "is required");
    return std::nullopt;
  }
  if (!v->is_string()) throw Error(at(path, key), Rule::not_string, "must be a string");
  return v->get<std::string>();
}

const json* object_at(const json& o, const char* key, const std::string& path, bool required) {
  const json* v = member(o, key);
  if (v == nullptr) {
    if (required) throw Error(at(path, key), Rule::missing_property, "is required");
    return nullptr;
  }
  if (!v->is_object()) throw Error(at(path, key), Rule::not_object, "must be an object");
  return v;
}

const json* array_at(const json& o, const char* key, const std::string& path, bool required, bool non_empty) {
  const json* v = member(o, key);
  if (v == nullptr) {
    if (required) throw Error(at(path, key), Rule::missing_property, "is required");
    return nullptr;
  }
  if (!v->is_array()) throw Error(at(path, key), Rule::not_array, "must be an array");
  if (non_empty && v->empty()) throw Error(at(path, key), Rule::empty_array, "must not be empty");
  return v;
}

const json& items(const json& doc, const char* name) {
  static const json empty = json::array();
  const json* arr = member(doc, name);
  return arr == nullptr ? empty : *arr;
}

Target target(const json& doc, const char* name, Rule rule, const char* what) {
  return {items(doc, name).size(), rule, what};
}

void check_index(const json& value, const std::string& path, const Target& target) {
  if (!value.is_number_integer()) throw Error(path, Rule::not_integer, "must be an integer index");
  if (!value.is_number_unsigned() || value.get<std::uint64_t>() >= target.count)
    throw Error(path, target.rule,
                fmt::format("{} {} does not exist ({} defined)", target.what, value.dump(), target.count));
}

std::optional<std::uint64_t> index_at(const json& o, const char* key, const std::string& path, const Target& target,
                                      bool required) {
  const json* v = member(o, key);
  if (v == nullptr) {
    if (required) throw Error(at(path, key), Rule::missing_property, "is required");
    return std::nullopt;
  }
  check_index(*v, at(path, key), target);
  return v->get<std::uint64_t>();
}

void index_array_at(const json& o, const char* key, const std::string& path, const Target& target, bool required,
                    bool non_empty) {
  const json* arr = array_at(o, key, path, required, non_empty);
  if (arr == nullptr) return;
  for (std::size_t i = 0; i < arr->size(); ++i) check_index((*arr)[i], at(at(path, key), i), target);
}

}  // namespace gltf_crowd::detail
