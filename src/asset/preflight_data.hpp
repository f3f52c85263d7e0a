// The data half of preflight (asset/build.hpp): buffers and where their bytes come from,
// bufferViews, accessors with their sparse parts, and images, checked on the raw JSON before
// tinygltf trusts them; and which accessors read a buffer that has no bytes, for the other half
// (preflight.cpp) to warn about when a mesh, skin or animation uses one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "asset/build.hpp"
#include "asset/json_properties.hpp"

namespace gltf_crowd::detail {

class DataChecks {
 public:
  // Reads `doc`; writes what it learns into `result` (warnings, placeholder buffers,
  // unknown-type accessors, external files and their bytes).
  DataChecks(const nlohmann::json& doc, const PreflightInput& input, PreflightResult& result);

  // Buffers, bufferViews, accessors and images, in that order. Throws Error at the first broken
  // rule.
  void check();
  // An accessor index a mesh, skin or animation reads at `path`: it must exist and have a known
  // type; one that reads a buffer without bytes is warned about, once.
  void use_accessor(const nlohmann::json& value, const std::string& path);
  // o[key] as use_accessor, if present (Error missing_property when required).
  void use_accessor_at(const nlohmann::json& o, const char* key, const std::string& path, bool required);

 private:
  struct ViewInfo {
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
    std::uint64_t stride = 0;
    std::size_t buffer = 0;
  };

  const nlohmann::json& items(const char* name) const { return detail::items(doc_, name); }
  Target target(const char* name, Rule rule, const char* what) const { return detail::target(doc_, name, rule, what); }
  Target accessors() const { return target("accessors", Rule::accessor_index, "accessor"); }
  Target views() const { return target("bufferViews", Rule::bufferview_index, "bufferView"); }

  void charge(std::uint64_t bytes, const std::string& path);
  void check_buffers();
  void check_buffer_views();
  std::optional<Error> data_fault(std::size_t view, const std::string& path) const;
  void require_data(std::size_t view, const std::string& path) const;
  void note_data_fault(std::size_t accessor, std::size_t view, const std::string& path);
  void check_accessors();
  void check_sparse(const nlohmann::json& sparse, const std::string& path, std::uint64_t count,
                    const ElementLayout& element, std::size_t accessor);
  void check_images();

  const nlohmann::json& doc_;
  const PreflightInput& input_;
  PreflightResult& result_;
  std::vector<std::uint64_t> buffer_lengths_;
  std::vector<bool> buffer_is_fallback_;
  std::vector<bool> buffer_is_placeholder_;
  std::map<std::size_t, Error> no_data_;  // accessors reading placeholder buffers
  std::vector<ViewInfo> views_;
  std::uint64_t data_bytes_ = 0;
};

}  // namespace gltf_crowd::detail
