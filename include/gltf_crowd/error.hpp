// gltf_crowd::Error: the one exception type thrown at the library's public boundary.
#pragma once

#include <stdexcept>
#include <string>

#include "gltf_crowd/export.hpp"
#include "gltf_crowd/rules.hpp"

GLTF_CROWD_API_BEGIN
namespace gltf_crowd {

// Raised for every bad input: malformed glTF, unknown clip, full crowd, NaN argument.
// `path` names the offending object by JSON path ("accessors[12]", "nodes[3].skin") or API
// argument ("add_actors[2].clip"); `rule` is a short stable identifier of the broken rule
// ("accessor_out_of_bounds"), which tests assert instead of the wording; every identifier is a
// Rule of gltf_crowd/rules.hpp. what() = "<path>: <message>".
class Error : public std::runtime_error {
 public:
  Error(std::string path, std::string rule, const std::string& message)
      : std::runtime_error(path + ": " + message), path_(std::move(path)), rule_(std::move(rule)) {}
  // The same with the rule from the table: rule() == rule_id(rule).
  Error(std::string path, Rule rule, const std::string& message)
      : Error(std::move(path), std::string(rule_id(rule)), message) {}

  // JSON path or API argument of the offending object.
  const std::string& path() const noexcept { return path_; }
  // Stable identifier of the broken rule.
  const std::string& rule() const noexcept { return rule_; }

 private:
  std::string path_;
  std::string rule_;
};

}  // namespace gltf_crowd
GLTF_CROWD_API_END
