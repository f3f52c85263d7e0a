// URIs in glTF (glTF 2.0 §2.8): data URIs (RFC 2397, base64 or percent-encoded octets), relative
// references to external files, and base64 (RFC 4648 §4). The one base64 encoder and decoder of
// the project. Needs neither tinygltf nor nlohmann-json.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gltf_crowd::detail {

struct DataUri {
  std::string media_type;  // "application/octet-stream", "image/png", ... ("" when omitted)
  std::uint64_t decoded_bytes = 0;
  bool base64 = true;  // false: percent-encoded octets (RFC 2397), which tinygltf cannot read
};
// True when `uri` starts with "data:".
bool is_data_uri(std::string_view uri) noexcept;
// Validates a data URI strictly: base64, or percent-encoded octets (RFC 2397 allows both).
// Throws Error(path, "data_uri" | "data_uri_base64").
DataUri parse_data_uri(std::string_view uri, const std::string& path);
// The payload of a data URI that parse_data_uri accepted, decoded (base64 or percent escapes).
std::vector<std::uint8_t> data_uri_bytes(std::string_view uri);
// The same URI as base64 ("data:<media type>;base64,..."), for a valid percent-encoded one.
std::string data_uri_as_base64(std::string_view uri);
// The file a relative URI names under base_dir (percent escapes decoded). Throws Error(path, rule)
// for schemes, absolute paths, bad escapes, memory loads (empty base_dir) and missing files, and,
// given a resource_root (canonical), for a file that lies outside it (uri_outside_root, LoadOptions).
std::filesystem::path resolve_external_uri(std::string_view uri, const std::filesystem::path& base_dir,
                                           const std::string& path, const std::filesystem::path& resource_root = {});

// Base64 with padding (RFC 4648 §4).
std::string base64_encode(std::span<const std::uint8_t> bytes);
// Decodes base64 that is already known to be valid (parse_data_uri checks it): characters outside
// the alphabet, such as the '=' padding, are skipped.
std::vector<std::uint8_t> base64_decode(std::string_view text);

}  // namespace gltf_crowd::detail
