// The data half of preflight (asset/preflight_data.hpp).
//
// Based on: glTF 2.0 §3.6 (buffers, bufferViews, accessors, sparse accessors, data alignment),
// §3.6.1.2 / §4.4 (GLB-stored buffer), §3.8.3 (image sources), §5 (required properties, types
// and minimums) and EXT_meshopt_compression (fallback buffers). Every error names the JSON path
// of the property that breaks the rule.
#include "asset/preflight_data.hpp"

#include <algorithm>
#include <limits>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "asset/checks.hpp"

namespace gltf_crowd::detail {
namespace {

using nlohmann::json;

// Most bytes all buffers and external images of one document may hold together.
constexpr std::uint64_t kMaxDocumentDataBytes = std::uint64_t{1} << 31;

// EXT_meshopt_compression: a buffer marked `fallback` may have no data of its own.
bool is_meshopt_fallback(const json& buffer, const std::string& path) {
  const json* extensions = object_at(buffer, "extensions", path, false);
  const json* meshopt =
      extensions != nullptr ? object_at(*extensions, "EXT_meshopt_compression", path + ".extensions", false) : nullptr;
  const json* fallback = meshopt != nullptr ? member(*meshopt, "fallback") : nullptr;
  return fallback != nullptr && fallback->is_boolean() && fallback->get<bool>();
}

// Per-element layout of an accessor type string; 0 components when unknown.
std::uint32_t components_of(const std::string& type) {
  static constexpr std::pair<std::string_view, std::uint32_t> kTypes[] = {
      {"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4}, {"MAT2", 4}, {"MAT3", 9}, {"MAT4", 16}};
  for (const auto& [name, n] : kTypes)
    if (name == type) return n;
  return 0;
}

}  // namespace

DataChecks::DataChecks(const json& doc, const PreflightInput& input, PreflightResult& result)
    : doc_(doc), input_(input), result_(result) {
  result_.resources = ResourceFiles(input.base_dir, input.resource_root);
}

void DataChecks::check() {
  check_buffers();
  check_buffer_views();
  check_accessors();
  check_images();
}

// Buffers and external images are read whole; many entries naming one large file must not add
// up to more than kMaxDocumentDataBytes.
void DataChecks::charge(std::uint64_t bytes, const std::string& path) {
  if (bytes > kMaxDocumentDataBytes - data_bytes_)
    throw Error(path, Rule::document_too_large,
                fmt::format("buffers and external images exceed {} bytes in total", kMaxDocumentDataBytes));
  data_bytes_ += bytes;
}

void DataChecks::check_buffers() {
  const json& buffers = items("buffers");
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const json& b = buffers[i];
    const std::string path = at("buffers", i);
    const std::uint64_t length = *uint_at(b, "byteLength", path, true, kMaxBufferBytes);
    if (length == 0) throw Error(at(path, "byteLength"), Rule::buffer_length, "must be at least 1");
    charge(length, at(path, "byteLength"));
    const auto uri = string_at(b, "uri", path, false);
    const bool fallback = is_meshopt_fallback(b, path);
    buffer_lengths_.push_back(length);
    buffer_is_fallback_.push_back(fallback && !uri);
    buffer_is_placeholder_.push_back(false);
    if (uri && is_data_uri(*uri)) {
      const DataUri data = parse_data_uri(*uri, at(path, "uri"));
      if (data.media_type != "application/octet-stream" && data.media_type != "application/gltf-buffer")
        throw Error(at(path, "uri"), Rule::data_uri_media_type,
                    fmt::format("media type \"{}\" is not application/octet-stream", data.media_type));
      if (data.decoded_bytes != length)
        throw Error(at(path, "byteLength"), Rule::buffer_length,
                    fmt::format("byteLength {} but the data URI holds {} bytes", length, data.decoded_bytes));
    } else if (uri) {
      const auto file = result_.resources.read(*uri, at(path, "uri"), [&](const auto& name, std::uint64_t size) {
        if (size != length)
          throw Error(at(path, "byteLength"), Rule::buffer_length,
                      fmt::format("byteLength {} but \"{}\" holds {} bytes", length, name.string(), size));
      });
      result_.external_files.push_back({path, file});
    } else if (fallback) {
      continue;  // EXT_meshopt_compression: no data; every view into it is decoded instead
    } else if (input_.glb && i == 0) {
      if (input_.bin_chunk_bytes == 0)
        throw Error(path, Rule::glb_bin_missing, "the GLB-stored buffer needs a BIN chunk");
      if (length > input_.bin_chunk_bytes)
        throw Error(at(path, "byteLength"), Rule::glb_bin_length,
                    fmt::format("byteLength {} exceeds the BIN chunk's {} bytes", length, input_.bin_chunk_bytes));
    } else {
      // glTF 2.0 §4.4.3.2 binds only a GLB's buffers[0] to the BIN chunk; any other buffer
      // without a uri has no data. Harmless until something reads it (check_accessors,
      // check_images).
      buffer_is_placeholder_.back() = true;
      result_.placeholder_buffers.push_back(i);
      result_.warnings.push_back(make_warning(path, Rule::buffer_without_data,
                                              input_.glb
                                                  ? "a GLB buffer other than buffers[0] without a uri has no data"
                                                  : "a buffer without a uri has no data"));
    }
  }
}

void DataChecks::check_buffer_views() {
  const json& list = items("bufferViews");
  const Target buffers = target("buffers", Rule::buffer_index, "buffer");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& v = list[i];
    const std::string path = at("bufferViews", i);
    ViewInfo info;
    info.buffer = static_cast<std::size_t>(*index_at(v, "buffer", path, buffers, true));
    info.offset = uint_at(v, "byteOffset", path, false, kMaxBufferBytes).value_or(0);
    info.length = *uint_at(v, "byteLength", path, true, kMaxBufferBytes);
    if (info.length == 0) throw Error(at(path, "byteLength"), Rule::bufferview_length, "must be at least 1");
    if (const auto stride = uint_at(v, "byteStride", path, false, 1024)) {
      if (*stride < 4 || *stride > 252 || *stride % 4 != 0)
        throw Error(at(path, "byteStride"), Rule::bufferview_stride,
                    fmt::format("byteStride {} is not a multiple of 4 in [4, 252]", *stride));
      info.stride = *stride;
    }
    const std::uint64_t buffer_length = buffer_lengths_[info.buffer];
    if (info.offset > buffer_length || info.length > buffer_length - info.offset)
      throw Error(path, Rule::bufferview_out_of_bounds,
                  fmt::format("byteOffset {} + byteLength {} exceeds buffers[{}].byteLength {}", info.offset,
                              info.length, info.buffer, buffer_length));
    const json* extensions = object_at(v, "extensions", path, false);
    if (buffer_is_fallback_[info.buffer] &&
        (extensions == nullptr || member(*extensions, "EXT_meshopt_compression") == nullptr))
      throw Error(
          path, Rule::meshopt_fallback_view,
          fmt::format("buffers[{}] is a fallback buffer without data; only compressed views may use it", info.buffer));
    views_.push_back(info);
  }
}

// A view into a placeholder buffer has no bytes to read: the error, when it does.
std::optional<Error> DataChecks::data_fault(std::size_t view, const std::string& path) const {
  const std::size_t buffer = views_[view].buffer;
  if (!buffer_is_placeholder_[buffer]) return std::nullopt;
  return Error(path, Rule::buffer_without_data,
               fmt::format("bufferViews[{}] lies in buffers[{}], which has no uri and no data", view, buffer));
}

void DataChecks::require_data(std::size_t view, const std::string& path) const {
  if (auto fault = data_fault(view, path)) throw *fault;
}

// An accessor reading a placeholder buffer reads zeros; use_accessor warns once it is used.
void DataChecks::note_data_fault(std::size_t accessor, std::size_t view, const std::string& path) {
  if (auto fault = data_fault(view, path); fault && !no_data_.contains(accessor)) no_data_.emplace(accessor, *fault);
}

// An accessor a mesh, skin or animation reads; an unknown type is only an error here.
void DataChecks::use_accessor(const json& value, const std::string& path) {
  check_index(value, path, accessors());
  const auto index = value.get<std::size_t>();
  if (const auto fault = no_data_.find(index); fault != no_data_.end()) {
    // The buffer's bytes are undefined; zeros, as for an accessor without a bufferView, draw
    // nothing rather than garbage. Warned once per accessor.
    result_.warnings.push_back(make_warning(fault->second.path(), Rule::accessor_reads_no_data,
                                            fmt::format("{} (used by {}); read as zeros", fault->second.what(), path)));
    no_data_.erase(fault);
  }
  if (std::find(result_.unknown_type_accessors.begin(), result_.unknown_type_accessors.end(), index) !=
      result_.unknown_type_accessors.end())
    throw Error(at(at("accessors", index), "type"), Rule::accessor_type,
                fmt::format("unknown type \"{}\" of an accessor {} uses",
                            items("accessors")[index]["type"].get<std::string>(), path));
}

void DataChecks::use_accessor_at(const json& o, const char* key, const std::string& path, bool required) {
  const json* v = member(o, key);
  if (v == nullptr) {
    if (required) throw Error(at(path, key), Rule::missing_property, "is required");
    return;
  }
  use_accessor(*v, at(path, key));
}

void DataChecks::check_accessors() {
  const json& list = items("accessors");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& a = list[i];
    const std::string path = at("accessors", i);
    const auto view = index_at(a, "bufferView", path, views(), false);
    const std::uint64_t offset = uint_at(a, "byteOffset", path, false, kMaxBufferBytes).value_or(0);
    const std::uint64_t component_type = *uint_at(a, "componentType", path, true, 0xFFFF);
    const std::uint32_t csize = component_size(static_cast<int>(component_type));
    if (csize == 0)
      throw Error(at(path, "componentType"), Rule::accessor_component_type,
                  fmt::format("componentType {} is not allowed", component_type));
    const std::uint64_t count = *uint_at(a, "count", path, true, std::numeric_limits<std::uint32_t>::max());
    if (count == 0 || count > kMaxAccessorCount)
      throw Error(at(path, "count"), Rule::accessor_count, fmt::format("count {} is not in [1, 2^28]", count));
    const std::string type = *string_at(a, "type", path, true);
    const std::uint32_t components = components_of(type);
    if (components == 0) {
      // glTF 2.0 §3.6.2 lists the types, but an accessor nothing reads cannot draw wrong.
      result_.unknown_type_accessors.push_back(i);
      result_.warnings.push_back(
          make_warning(at(path, "type"), Rule::accessor_type_unknown,
                       fmt::format("unknown type \"{}\"; the accessor is unused and ignored", type)));
      continue;
    }
    // §3.6.2.4: matrix columns start on 4-byte boundaries (MAT2 of bytes, MAT3 of bytes or shorts).
    const ElementLayout layout = element_layout(components, type.starts_with("MAT"), csize);
    if (const json* normalized = member(a, "normalized")) {
      if (!normalized->is_boolean()) throw Error(at(path, "normalized"), Rule::not_boolean, "must be true or false");
      if (normalized->get<bool>() && (component_type == 5125 || component_type == 5126))
        throw Error(at(path, "normalized"), Rule::accessor_normalized, "only 8- and 16-bit integers can be normalized");
    }
    if (view) {
      const ViewInfo& v = views_[static_cast<std::size_t>(*view)];
      if (offset % csize != 0 || (v.offset + offset) % csize != 0)
        throw Error(at(path, "byteOffset"), Rule::accessor_alignment,
                    fmt::format("offset {} in the buffer is not a multiple of the component size {}", v.offset + offset,
                                csize));
      note_data_fault(i, static_cast<std::size_t>(*view), at(path, "bufferView"));
      check_element_range({offset, count, layout.size, v.stride, v.length, layout.extent}, path);
    }
    if (const json* sparse = object_at(a, "sparse", path, false))
      check_sparse(*sparse, path + ".sparse", count, layout, i);
  }
}

void DataChecks::check_sparse(const json& sparse, const std::string& path, std::uint64_t count,
                              const ElementLayout& element, std::size_t accessor) {
  const std::uint64_t sparse_count = *uint_at(sparse, "count", path, true);
  if (sparse_count == 0 || sparse_count > count)
    throw Error(at(path, "count"), Rule::sparse_count,
                fmt::format("sparse count {} is not in [1, {}]", sparse_count, count));
  const json* indices = object_at(sparse, "indices", path, true);
  const json* values = object_at(sparse, "values", path, true);
  const std::string ipath = at(path, "indices"), vpath = at(path, "values");
  const auto iview = *index_at(*indices, "bufferView", ipath, views(), true);
  const std::uint64_t ioffset = uint_at(*indices, "byteOffset", ipath, false).value_or(0);
  const std::uint64_t itype = *uint_at(*indices, "componentType", ipath, true, 0xFFFF);
  if (itype != 5121 && itype != 5123 && itype != 5125)
    throw Error(at(ipath, "componentType"), Rule::sparse_index_type,
                fmt::format("componentType {} is not an unsigned integer type", itype));
  const auto vview = *index_at(*values, "bufferView", vpath, views(), true);
  const std::uint64_t voffset = uint_at(*values, "byteOffset", vpath, false).value_or(0);
  note_data_fault(accessor, static_cast<std::size_t>(iview), at(ipath, "bufferView"));
  note_data_fault(accessor, static_cast<std::size_t>(vview), at(vpath, "bufferView"));
  const ViewInfo& iv = views_[static_cast<std::size_t>(iview)];
  const ViewInfo& vv = views_[static_cast<std::size_t>(vview)];
  check_element_range({ioffset, sparse_count, component_size(static_cast<int>(itype)), 0, iv.length}, ipath);
  check_element_range({voffset, sparse_count, element.size, 0, vv.length, element.extent}, vpath);
}

void DataChecks::check_images() {
  const json& list = items("images");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& image = list[i];
    const std::string path = at("images", i);
    const auto uri = string_at(image, "uri", path, false);
    const auto view = index_at(image, "bufferView", path, views(), false);
    if (uri.has_value() == view.has_value())
      throw Error(path, Rule::image_source, "an image needs exactly one of uri and bufferView");
    if (view) {
      string_at(image, "mimeType", path, true);
      require_data(static_cast<std::size_t>(*view), at(path, "bufferView"));
      const std::size_t buffer = views_[static_cast<std::size_t>(*view)].buffer;
      if (buffer_is_fallback_[buffer])
        throw Error(at(path, "bufferView"), Rule::image_in_fallback_buffer,
                    fmt::format("bufferViews[{}] holds compressed vertex data, not an image", *view));
    } else if (is_data_uri(*uri)) {
      parse_data_uri(*uri, at(path, "uri"));
    } else {
      const auto file = result_.resources.read(*uri, at(path, "uri"), [&](const auto& name, std::uint64_t size) {
        if (size > kMaxBufferBytes)
          throw Error(at(path, "uri"), Rule::external_file_size, fmt::format("\"{}\" is too large", name.string()));
        charge(size, at(path, "uri"));
      });
      result_.external_files.push_back({path, file});
    }
  }
}

}  // namespace gltf_crowd::detail
