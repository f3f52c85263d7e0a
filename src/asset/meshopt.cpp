// EXT_meshopt_compression: compressed bufferViews decoded once at load with meshoptimizer's
// decoders, so every later pass reads plain bytes.
//
// Based on: the EXT_meshopt_compression specification (KhronosGroup/glTF extensions; modes
// ATTRIBUTES / TRIANGLES / INDICES, filters OCTAHEDRAL / QUATERNION / EXPONENTIAL, fallback
// buffers) and meshoptimizer 0.18's decoder contracts (meshoptimizer.h), whose asserts on sizes
// and strides are checked here first because the input is untrusted.
#include <meshoptimizer.h>

#include <fmt/format.h>

#include "asset/build.hpp"

namespace gltf_crowd::detail {
namespace {

constexpr const char* kExtension = "EXT_meshopt_compression";

// An unsigned integer member of an extension object, or `fallback` when absent.
std::uint64_t uint_field(const tinygltf::Value& object, const char* key, const std::string& path, bool required,
                         std::uint64_t fallback = 0) {
  if (!object.Has(key)) {
    if (required) throw Error(path + "." + key, Rule::missing_property, "is required");
    return fallback;
  }
  const tinygltf::Value& v = object.Get(key);
  const double d = v.IsNumber() ? v.GetNumberAsDouble() : -1.0;
  if (!v.IsNumber() || d < 0.0 || d > static_cast<double>(kMaxBufferBytes) ||
      d != static_cast<double>(static_cast<std::uint64_t>(d)))
    throw Error(path + "." + key, Rule::integer_range, fmt::format("must be an integer in [0, {}]", kMaxBufferBytes));
  return static_cast<std::uint64_t>(d);
}

std::string string_field(const tinygltf::Value& object, const char* key, const std::string& path,
                         const char* fallback) {
  if (!object.Has(key)) return fallback;
  const tinygltf::Value& v = object.Get(key);
  if (!v.IsString()) throw Error(path + "." + key, Rule::not_string, "must be a string");
  return v.Get<std::string>();
}

// The decoded bytes of one compressed view.
// `source_buffers`: how many buffers the file declared (decoded ones are appended after them).
std::vector<std::uint8_t> decode_view(const tinygltf::Model& model, std::size_t source_buffers,
                                      const tinygltf::BufferView& view, const tinygltf::Value& ext,
                                      const std::string& path) {
  if (!ext.IsObject()) throw Error(path, Rule::not_object, "must be an object");
  const std::uint64_t buffer = uint_field(ext, "buffer", path, true);
  const std::uint64_t offset = uint_field(ext, "byteOffset", path, false);
  const std::uint64_t length = uint_field(ext, "byteLength", path, true);
  const std::uint64_t stride = uint_field(ext, "byteStride", path, true);
  const std::uint64_t count = uint_field(ext, "count", path, true);
  const std::string mode = string_field(ext, "mode", path, "");
  const std::string filter = string_field(ext, "filter", path, "NONE");
  if (buffer >= source_buffers)
    throw Error(path + ".buffer", Rule::buffer_index, fmt::format("buffer {} does not exist", buffer));
  const std::vector<unsigned char>& source = model.buffers[buffer].data;
  if (offset > source.size() || length > source.size() - offset)
    throw Error(path, Rule::meshopt_out_of_bounds,
                fmt::format("byteOffset {} + byteLength {} exceeds buffer {} of {} bytes", offset, length, buffer,
                            source.size()));
  if (count == 0 || stride == 0 || count > kMaxBufferBytes / stride)
    throw Error(path + ".count", Rule::meshopt_size, fmt::format("{} elements of {} bytes", count, stride));
  if (view.byteLength != count * stride)
    throw Error(path, Rule::meshopt_size,
                fmt::format("count {} × byteStride {} differs from the bufferView's byteLength {}", count, stride,
                            view.byteLength));
  if (view.byteStride != 0 && view.byteStride != stride)
    throw Error(path + ".byteStride", Rule::meshopt_stride,
                fmt::format("byteStride {} differs from the bufferView's {}", stride, view.byteStride));
  const bool index_mode = mode == "TRIANGLES" || mode == "INDICES";
  if (mode == "ATTRIBUTES" ? (stride % 4 != 0 || stride > 256) : index_mode ? (stride != 2 && stride != 4) : true)
    throw Error(path + (index_mode || mode == "ATTRIBUTES" ? ".byteStride" : ".mode"), Rule::meshopt_mode,
                fmt::format("mode \"{}\" with byteStride {} is not allowed", mode, stride));
  if (mode == "TRIANGLES" && count % 3 != 0)
    throw Error(path + ".count", Rule::meshopt_mode,
                fmt::format("TRIANGLES needs a multiple of 3 indices, not {}", count));
  const bool filter_ok = filter == "NONE" ||
                         (mode == "ATTRIBUTES" && ((filter == "OCTAHEDRAL" && (stride == 4 || stride == 8)) ||
                                                   (filter == "QUATERNION" && stride == 8) || filter == "EXPONENTIAL"));
  if (!filter_ok)
    throw Error(path + ".filter", Rule::meshopt_filter,
                fmt::format("filter \"{}\" is not allowed with mode \"{}\" and byteStride {}", filter, mode, stride));

  std::vector<std::uint8_t> out(count * stride);
  const unsigned char* data = source.data() + offset;
  int rc = 0;
  if (mode == "ATTRIBUTES")
    rc = meshopt_decodeVertexBuffer(out.data(), count, stride, data, length);
  else if (mode == "TRIANGLES")
    rc = meshopt_decodeIndexBuffer(out.data(), count, stride, data, length);
  else
    rc = meshopt_decodeIndexSequence(out.data(), count, stride, data, length);
  if (rc != 0)
    throw Error(path, Rule::meshopt_decode,
                fmt::format("meshoptimizer could not decode the {} data (code {})", mode, rc));
  if (filter == "OCTAHEDRAL")
    meshopt_decodeFilterOct(out.data(), count, stride);
  else if (filter == "QUATERNION")
    meshopt_decodeFilterQuat(out.data(), count, stride);
  else if (filter == "EXPONENTIAL")
    meshopt_decodeFilterExp(out.data(), count, stride);
  return out;
}

}  // namespace

bool give_fallback_buffers_data(nlohmann::json& doc) {
  bool changed = false;
  const auto buffers = doc.find("buffers");
  if (buffers == doc.end()) return false;
  for (auto& buffer : *buffers) {
    // preflight has checked the shapes, so the lookups below cannot throw.
    if (buffer.contains("uri") || !buffer.contains("extensions")) continue;
    const auto& extensions = buffer["extensions"];
    if (!extensions.contains(kExtension) || !extensions[kExtension].contains("fallback")) continue;
    const auto& fallback = extensions[kExtension]["fallback"];
    if (!fallback.is_boolean() || !fallback.get<bool>()) continue;
    buffer["uri"] = "data:application/octet-stream;base64,AAAAAA==";  // 4 zero bytes, never read
    buffer["byteLength"] = 4;
    changed = true;
  }
  return changed;
}

void decode_meshopt(tinygltf::Model& model) {
  const std::size_t source_buffers = model.buffers.size();
  // Many views may point at the same few compressed bytes, so the total is capped, not each view.
  std::uint64_t decoded_total = 0;
  for (std::size_t i = 0; i < model.bufferViews.size(); ++i) {
    const auto ext = model.bufferViews[i].extensions.find(kExtension);
    if (ext == model.bufferViews[i].extensions.end()) continue;
    const std::string path = fmt::format("bufferViews[{}].extensions.{}", i, kExtension);
    if (model.bufferViews[i].byteLength > kMaxBufferBytes - decoded_total)
      throw Error(path, Rule::meshopt_size,
                  fmt::format("decoded views would exceed {} bytes in total", kMaxBufferBytes));
    tinygltf::Buffer decoded;
    decoded.data = decode_view(model, source_buffers, model.bufferViews[i], ext->second, path);
    decoded_total += decoded.data.size();
    tinygltf::BufferView& view = model.bufferViews[i];
    view.buffer = static_cast<int>(model.buffers.size());
    view.byteOffset = 0;
    view.byteLength = decoded.data.size();
    view.extensions.erase(ext);
    model.buffers.push_back(std::move(decoded));
  }
}

}  // namespace gltf_crowd::detail
