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
// argument ("add_actors[2].clip"); `rule` is the broken rule from the one table of
// gltf_crowd/rules.hpp, whose stable identifier ("accessor_out_of_bounds") tests assert instead
// of the wording. what() = "<path>: <message>".
class Error : public std::runtime_error {
 public:
  Error(std::string path, Rule rule, const std::string& message)
      : std::runtime_error(path + ": " + message), path_(std::move(path)), rule_(rule), id_(rule_id(rule)) {}

  // JSON path or API argument of the offending object.
  const std::string& path() const noexcept { return path_; }
  // The broken rule's stable identifier: rule_id(code()).
  const std::string& rule() const noexcept { return id_; }
  // The broken rule, for passing on (an error re-raised under another path keeps its rule).
  Rule code() const noexcept { return rule_; }

 private:
  std::string path_;
  Rule rule_;
  std::string id_;
};

}  // namespace gltf_crowd
GLTF_CROWD_API_END
