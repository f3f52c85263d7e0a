// Based on: glTF 2.0 §4.4 (GLB file format: 12-byte header, 4-byte aligned chunks, JSON first,
// an optional BIN second, unknown chunks ignored). tinygltf trusts the lengths more than we do,
// so every length is checked here before it sees the bytes.
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "asset/glb.hpp"

namespace gltf_crowd::detail {
namespace {

constexpr std::uint32_t kChunkJson = 0x4E4F534Au;  // "JSON"
constexpr std::uint32_t kChunkBin = 0x004E4942u;   // "BIN\0"

std::uint32_t read_u32(const std::uint8_t* p) noexcept {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

void write_u32(std::vector<std::uint8_t>& out, std::size_t at, std::uint32_t v) noexcept {
  std::memcpy(out.data() + at, &v, 4);
}

}  // namespace

bool is_glb(std::span<const std::uint8_t> bytes) noexcept {
  return bytes.size() >= 4 && std::memcmp(bytes.data(), "glTF", 4) == 0;
}

GlbChunks parse_glb(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < 12) throw Error("glb", Rule::glb_truncated, "shorter than the 12-byte header");
  const std::uint32_t version = read_u32(bytes.data() + 4);
  const std::uint32_t length = read_u32(bytes.data() + 8);
  if (version != 2) throw Error("glb.version", Rule::glb_version, fmt::format("version {} is not 2", version));
  if (length > bytes.size())
    throw Error("glb.length", Rule::glb_length, fmt::format("header length {} > file size {}", length, bytes.size()));
  if (length < 12) throw Error("glb.length", Rule::glb_length, fmt::format("header length {} < 12", length));
  GlbChunks chunks;
  chunks.length = length;
  if (length < bytes.size())
    chunks.warnings.push_back(
        {"glb.length", "glb_trailing_bytes",
         fmt::format("{} bytes after the declared length {} are ignored", bytes.size() - length, length)});
  bytes = bytes.first(length);
  std::size_t offset = 12;
  for (int chunk = 0; offset < bytes.size() || chunk == 0; ++chunk) {
    const std::string path = fmt::format("glb.chunks[{}]", chunk);
    if (bytes.size() - offset < 8) {
      if (chunk == 0) throw Error(path, Rule::glb_chunk_truncated, "chunk header truncated");
      // Padding shorter than a chunk header cannot be a chunk; nothing reads it.
      chunks.warnings.push_back({path, "glb_trailing_bytes",
                                 fmt::format("{} bytes after the last chunk are ignored", bytes.size() - offset)});
      break;
    }
    const std::uint32_t chunk_length = read_u32(bytes.data() + offset);
    const std::uint32_t type = read_u32(bytes.data() + offset + 4);
    if (chunk_length > bytes.size() - offset - 8)
      throw Error(path + ".chunkLength", Rule::glb_chunk_length,
                  fmt::format("chunk length {} runs past the end of the file", chunk_length));
    if (chunk_length % 4 != 0)
      throw Error(path + ".chunkLength", Rule::glb_chunk_alignment,
                  fmt::format("chunk length {} is not a multiple of 4", chunk_length));
    const std::span<const std::uint8_t> data = bytes.subspan(offset + 8, chunk_length);
    if (chunk == 0) {
      if (type != kChunkJson) throw Error(path + ".chunkType", Rule::glb_first_chunk, "the first chunk is not JSON");
      if (chunk_length == 0) throw Error(path + ".chunkLength", Rule::glb_chunk_length, "the JSON chunk is empty");
      chunks.json = data;
    } else if (chunk == 1) {
      // tinygltf reads chunk 1 as BIN unconditionally, so anything else there cannot be ignored.
      if (type != kChunkBin) throw Error(path + ".chunkType", Rule::glb_second_chunk, "the second chunk is not BIN");
      if (chunk_length == 0) throw Error(path + ".chunkLength", Rule::glb_chunk_length, "the BIN chunk is empty");
      chunks.bin = data;
      chunks.has_bin = true;
    } else if (type == kChunkJson || type == kChunkBin) {
      throw Error(path + ".chunkType", Rule::glb_duplicate_chunk, "a GLB has one JSON and at most one BIN chunk");
    }
    offset += 8 + std::size_t{chunk_length};
  }
  return chunks;
}

std::vector<std::uint8_t> write_glb(std::string_view json, std::span<const std::uint8_t> bin) {
  const std::size_t json_padded = (json.size() + 3) / 4 * 4;
  const std::size_t bin_padded = (bin.size() + 3) / 4 * 4;
  const std::size_t total = 12 + 8 + json_padded + (bin.empty() ? 0 : 8 + bin_padded);
  if (total > 0xFFFFFFFFu) throw Error("glb.length", Rule::glb_length, "the GLB would exceed 4 GiB");
  std::vector<std::uint8_t> out(total, ' ');
  std::memcpy(out.data(), "glTF", 4);
  write_u32(out, 4, 2);
  write_u32(out, 8, static_cast<std::uint32_t>(total));
  write_u32(out, 12, static_cast<std::uint32_t>(json_padded));
  write_u32(out, 16, kChunkJson);
  if (!json.empty()) std::memcpy(out.data() + 20, json.data(), json.size());
  if (!bin.empty()) {
    const std::size_t at = 20 + json_padded;
    write_u32(out, at, static_cast<std::uint32_t>(bin_padded));
    write_u32(out, at + 4, kChunkBin);
    std::memcpy(out.data() + at + 8, bin.data(), bin.size());
    std::memset(out.data() + at + 8 + bin.size(), 0, bin_padded - bin.size());
  }
  return out;
}

}  // namespace gltf_crowd::detail
