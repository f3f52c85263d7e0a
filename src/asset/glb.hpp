// The GLB container (glTF 2.0 §4.4): reading its chunks and writing one. The one GLB reader and
// writer of the project (the loader, `gltf-crowd lod` export, the tests and the fuzz targets).
// Needs neither tinygltf nor nlohmann-json.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "gltf_crowd/asset.hpp"

namespace gltf_crowd::detail {

// The chunks of a GLB; spans point into the input bytes.
struct GlbChunks {
  std::span<const std::uint8_t> json;
  std::span<const std::uint8_t> bin;  // empty when there is no BIN chunk
  bool has_bin = false;
  std::size_t length = 0;         // bytes the header declares; what tinygltf must be given
  std::vector<Warning> warnings;  // bytes after the last chunk ("glb_trailing_bytes")
};

// True when `bytes` start with the GLB magic "glTF".
bool is_glb(std::span<const std::uint8_t> bytes) noexcept;
// Splits a GLB into chunks. Throws Error("glb…", rule) for a short header, a version other than
// 2, a header length larger than the size, chunk lengths that run past the end or are not
// multiples of 4, a first chunk that is not JSON, or a second one that is not BIN. Bytes after
// the declared length, or fewer than a chunk header after the last chunk, are ignored with a
// warning (glTF 2.0 §4.4 defines nothing after the last chunk, so nothing there is read).
GlbChunks parse_glb(std::span<const std::uint8_t> bytes);
// A GLB of version 2 with `json` as its JSON chunk (padded with spaces) and, when `bin` is not
// empty, a BIN chunk holding `bin` (padded with zeros). Throws Error("glb.length", "glb_length")
// when the result would not fit the header's 32-bit length.
std::vector<std::uint8_t> write_glb(std::string_view json, std::span<const std::uint8_t> bin = {});

}  // namespace gltf_crowd::detail
