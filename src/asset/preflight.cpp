// Checks the raw JSON for everything tinygltf would trust, before it sees the bytes.
//
// Based on: glTF 2.0 §5 (properties reference: required properties, types and minimums), §3.6
// (buffers, bufferViews, accessors, sparse accessors, data alignment), §3.6.1.2 / §4.4
// (GLB-stored buffer), §3.12 (extensionsRequired ⊆ extensionsUsed), EXT_meshopt_compression
// (fallback buffers) and KHR_draco_mesh_compression (the primitive extension's schema). Every
// error names the JSON path of the property that breaks the rule.
#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "asset/build.hpp"
#include "asset/checks.hpp"

namespace gltf_crowd::detail {
namespace {

using nlohmann::json;

// Most bytes all buffers and external images of one document may hold together.
constexpr std::uint64_t kMaxDocumentDataBytes = std::uint64_t{1} << 31;

// Required extensions whose meaning the loader implements (docs/spec.md §2).
constexpr std::string_view kSupportedRequired[] = {"KHR_mesh_quantization",
                                                   "KHR_node_visibility",
                                                   "MSFT_lod",
                                                   "EXT_meshopt_compression",
                                                   "KHR_materials_emissive_strength",
                                                   "KHR_texture_transform",
                                                   "KHR_materials_variants",
                                                   "KHR_draco_mesh_compression"};

constexpr const char* kTopLevelArrays[] = {"accessors", "animations", "buffers", "bufferViews", "cameras",
                                           "images",    "materials",  "meshes",  "nodes",       "samplers",
                                           "scenes",    "skins",      "textures"};

std::string at(const std::string& path, const char* key) { return path.empty() ? key : path + "." + key; }
std::string at(const std::string& path, std::size_t i) { return fmt::format("{}[{}]", path, i); }

const json* member(const json& o, const char* key) {
  const auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

std::optional<std::uint64_t> uint_at(const json& o, const char* key, const std::string& path, bool required,
                                     std::uint64_t max = std::numeric_limits<std::int32_t>::max()) {
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

// EXT_meshopt_compression: a buffer marked `fallback` may have no data of its own.
bool is_meshopt_fallback(const json& buffer, const std::string& path) {
  const json* extensions = object_at(buffer, "extensions", path, false);
  const json* meshopt =
      extensions != nullptr ? object_at(*extensions, "EXT_meshopt_compression", path + ".extensions", false) : nullptr;
  const json* fallback = meshopt != nullptr ? member(*meshopt, "fallback") : nullptr;
  return fallback != nullptr && fallback->is_boolean() && fallback->get<bool>();
}

// What an index property refers to: the array's size and the rule id for a dangling index.
struct Target {
  std::size_t count = 0;
  Rule rule = Rule::node_index;
  const char* what = "";
};

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

// Per-element layout of an accessor type string; 0 components when unknown.
std::uint32_t components_of(const std::string& type) {
  static constexpr std::pair<std::string_view, std::uint32_t> kTypes[] = {
      {"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4}, {"MAT2", 4}, {"MAT3", 9}, {"MAT4", 16}};
  for (const auto& [name, n] : kTypes)
    if (name == type) return n;
  return 0;
}

// Vertex attributes build_meshes decodes (docs/spec.md §2.2); others are ignored.
bool is_decoded_attribute(const std::string& name) {
  static constexpr std::string_view kDecoded[] = {"POSITION", "NORMAL",   "TANGENT",  "TEXCOORD_0", "TEXCOORD_1",
                                                  "COLOR_0",  "JOINTS_0", "JOINTS_1", "WEIGHTS_0",  "WEIGHTS_1"};
  return std::find(std::begin(kDecoded), std::end(kDecoded), name) != std::end(kDecoded);
}

struct ViewInfo {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  std::uint64_t stride = 0;
  std::size_t buffer = 0;
};

class Preflight {
 public:
  Preflight(const json& doc, const PreflightInput& input) : doc_(doc), input_(input) {
    result_.resources = ResourceFiles(input.base_dir, input.resource_root);
  }

  PreflightResult run() {
    if (!doc_.is_object()) throw Error("document", Rule::not_object, "the root must be a JSON object");
    for (const char* name : kTopLevelArrays) {
      const json* arr = array_at(doc_, name, "", false, false);
      for (std::size_t i = 0; arr != nullptr && i < arr->size(); ++i)
        if (!(*arr)[i].is_object()) throw Error(fmt::format("{}[{}]", name, i), Rule::not_object, "must be an object");
    }
    check_asset();
    check_extensions();
    check_buffers();
    check_buffer_views();
    check_accessors();
    check_images();
    check_meshes();
    check_nodes_and_scenes();
    check_skins();
    check_animations();
    check_materials_and_textures();
    return std::move(result_);
  }

 private:
  // Buffers and external images are read whole; many entries naming one large file must not add
  // up to more than kMaxDocumentDataBytes.
  void charge(std::uint64_t bytes, const std::string& path) {
    if (bytes > kMaxDocumentDataBytes - data_bytes_)
      throw Error(path, Rule::document_too_large,
                  fmt::format("buffers and external images exceed {} bytes in total", kMaxDocumentDataBytes));
    data_bytes_ += bytes;
  }

  const json& items(const char* name) const {
    static const json empty = json::array();
    const json* arr = member(doc_, name);
    return arr == nullptr ? empty : *arr;
  }
  Target target(const char* name, Rule rule, const char* what) const { return {items(name).size(), rule, what}; }
  Target accessors() const { return target("accessors", Rule::accessor_index, "accessor"); }
  Target nodes() const { return target("nodes", Rule::node_index, "node"); }
  Target views() const { return target("bufferViews", Rule::bufferview_index, "bufferView"); }

  // glTF 2.0 §3.2: "2.x" strings; a minor version is compared as a number ("2.10" > "2.9").
  static std::optional<std::uint64_t> minor_version(const std::string& version) {
    if (version.size() < 3 || version.size() > 12 || version.substr(0, 2) != "2." ||
        !std::all_of(version.begin() + 2, version.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
    return std::stoull(version.substr(2));
  }

  void check_asset() {
    const json* asset = object_at(doc_, "asset", "", true);
    const std::string version = *string_at(*asset, "version", "asset", true);
    const auto minor = minor_version(version);
    if (!minor) throw Error("asset.version", Rule::asset_version, fmt::format("version \"{}\" is not 2.x", version));
    if (const auto min_version = string_at(*asset, "minVersion", "asset", false)) {
      const auto min_minor = minor_version(*min_version);
      if (!min_minor || *min_minor > *minor)
        throw Error("asset.minVersion", Rule::asset_version,
                    fmt::format("minVersion \"{}\" is not 2.x or exceeds version \"{}\"", *min_version, version));
      // A 2.x reader must load every 2.y file (§3.2); anything a later minor version adds is unknown here.
      if (*min_minor > 0)
        result_.warnings.push_back(
            make_warning("asset.minVersion", Rule::asset_min_version,
                         fmt::format("the file needs glTF {}; only glTF 2.0 features are read", *min_version)));
    }
  }

  void check_extensions() {
    std::vector<std::string> used;
    if (const json* arr = array_at(doc_, "extensionsUsed", "", false, false))
      for (std::size_t i = 0; i < arr->size(); ++i) {
        if (!(*arr)[i].is_string()) throw Error(at("extensionsUsed", i), Rule::not_string, "must be a string");
        used.push_back((*arr)[i].get<std::string>());
      }
    const json* required = array_at(doc_, "extensionsRequired", "", false, false);
    for (std::size_t i = 0; required != nullptr && i < required->size(); ++i) {
      const std::string path = at("extensionsRequired", i);
      if (!(*required)[i].is_string()) throw Error(path, Rule::not_string, "must be a string");
      const std::string name = (*required)[i].get<std::string>();
      if (std::find(std::begin(kSupportedRequired), std::end(kSupportedRequired), name) == std::end(kSupportedRequired))
        throw Error(path, Rule::unsupported_required_extension,
                    fmt::format("required extension {} is not supported", name));
      if (std::find(used.begin(), used.end(), name) == used.end())
        throw Error(path, Rule::extension_not_used, fmt::format("{} is required but not in extensionsUsed", name));
    }
    // Optional extensions (glTF 2.0 §3.12) may be ignored; say which ones are, since they may
    // change how the file looks elsewhere. KHR_animation_pointer gets per-channel warnings.
    for (std::size_t i = 0; i < used.size(); ++i)
      if (std::find(std::begin(kSupportedRequired), std::end(kSupportedRequired), used[i]) ==
              std::end(kSupportedRequired) &&
          used[i] != "KHR_animation_pointer")
        result_.warnings.push_back(
            make_warning(at("extensionsUsed", i), Rule::extension_ignored,
                         fmt::format("optional extension {} is not implemented and is ignored", used[i])));
  }

  void check_buffers() {
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

  void check_buffer_views() {
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
        throw Error(path, Rule::meshopt_fallback_view,
                    fmt::format("buffers[{}] is a fallback buffer without data; only compressed views may use it",
                                info.buffer));
      views_.push_back(info);
    }
  }

  // A view into a placeholder buffer has no bytes to read: the error, when it does.
  std::optional<Error> data_fault(std::size_t view, const std::string& path) const {
    const std::size_t buffer = views_[view].buffer;
    if (!buffer_is_placeholder_[buffer]) return std::nullopt;
    return Error(path, Rule::buffer_without_data,
                 fmt::format("bufferViews[{}] lies in buffers[{}], which has no uri and no data", view, buffer));
  }
  void require_data(std::size_t view, const std::string& path) const {
    if (auto fault = data_fault(view, path)) throw *fault;
  }
  // An accessor reading a placeholder buffer reads zeros; use_accessor warns once it is used.
  void note_data_fault(std::size_t accessor, std::size_t view, const std::string& path) {
    if (auto fault = data_fault(view, path); fault && !no_data_.contains(accessor)) no_data_.emplace(accessor, *fault);
  }

  // An accessor a mesh, skin or animation reads; an unknown type is only an error here.
  void use_accessor(const json& value, const std::string& path) {
    check_index(value, path, accessors());
    const auto index = value.get<std::size_t>();
    if (const auto fault = no_data_.find(index); fault != no_data_.end()) {
      // The buffer's bytes are undefined; zeros, as for an accessor without a bufferView, draw
      // nothing rather than garbage. Warned once per accessor.
      result_.warnings.push_back(
          make_warning(fault->second.path(), Rule::accessor_reads_no_data,
                       fmt::format("{} (used by {}); read as zeros", fault->second.what(), path)));
      no_data_.erase(fault);
    }
    if (std::find(result_.unknown_type_accessors.begin(), result_.unknown_type_accessors.end(), index) !=
        result_.unknown_type_accessors.end())
      throw Error(at(at("accessors", index), "type"), Rule::accessor_type,
                  fmt::format("unknown type \"{}\" of an accessor {} uses",
                              items("accessors")[index]["type"].get<std::string>(), path));
  }
  void use_accessor_at(const json& o, const char* key, const std::string& path, bool required) {
    const json* v = member(o, key);
    if (v == nullptr) {
      if (required) throw Error(at(path, key), Rule::missing_property, "is required");
      return;
    }
    use_accessor(*v, at(path, key));
  }

  void check_accessors() {
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
          throw Error(at(path, "normalized"), Rule::accessor_normalized,
                      "only 8- and 16-bit integers can be normalized");
      }
      if (view) {
        const ViewInfo& v = views_[static_cast<std::size_t>(*view)];
        if (offset % csize != 0 || (v.offset + offset) % csize != 0)
          throw Error(at(path, "byteOffset"), Rule::accessor_alignment,
                      fmt::format("offset {} in the buffer is not a multiple of the component size {}",
                                  v.offset + offset, csize));
        note_data_fault(i, static_cast<std::size_t>(*view), at(path, "bufferView"));
        check_element_range({offset, count, layout.size, v.stride, v.length, layout.extent}, path);
      }
      if (const json* sparse = object_at(a, "sparse", path, false))
        check_sparse(*sparse, path + ".sparse", count, layout, i);
    }
  }

  void check_sparse(const json& sparse, const std::string& path, std::uint64_t count, const ElementLayout& element,
                    std::size_t accessor) {
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

  void check_images() {
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

  void check_meshes() {
    const json& list = items("meshes");
    const Target materials = target("materials", Rule::material_index, "material");
    for (std::size_t m = 0; m < list.size(); ++m) {
      const std::string path = at("meshes", m);
      const json* primitives = array_at(list[m], "primitives", path, true, true);
      for (std::size_t p = 0; p < primitives->size(); ++p) {
        const json& prim = (*primitives)[p];
        const std::string ppath = at(at(path, "primitives"), p);
        if (!prim.is_object()) throw Error(ppath, Rule::not_object, "must be an object");
        const json* attributes = object_at(prim, "attributes", ppath, true);
        for (const auto& [name, value] : attributes->items()) {
          const std::string apath = fmt::format("{}.attributes.{}", ppath, name);
          use_accessor(value, apath);
          if (!name.starts_with("_") && !is_decoded_attribute(name))
            result_.warnings.push_back(
                make_warning(apath, Rule::attribute_ignored,
                             fmt::format("{} is not used by the renderers and is not decoded", name)));
        }
        // Draco primitives' attributes and indices come from the compressed data (draco.cpp).
        check_draco(prim, ppath, *attributes);
        use_accessor_at(prim, "indices", ppath, false);
        index_at(prim, "material", ppath, materials, false);
        if (const auto mode = uint_at(prim, "mode", ppath, false); mode && *mode > 6)
          throw Error(at(ppath, "mode"), Rule::primitive_mode, fmt::format("unknown mode {}", *mode));
        const json* targets = array_at(prim, "targets", ppath, false, false);
        for (std::size_t t = 0; targets != nullptr && t < targets->size(); ++t) {
          const std::string tpath = at(at(ppath, "targets"), t);
          if (!(*targets)[t].is_object()) throw Error(tpath, Rule::not_object, "must be an object");
          for (const auto& [name, value] : (*targets)[t].items()) use_accessor(value, tpath + "." + name);
        }
      }
    }
  }

  // KHR_draco_mesh_compression on a primitive: its bufferView exists (preflight has checked its
  // range), each attribute id is an integer for one of the primitive's attributes, and the mode
  // is TRIANGLES or TRIANGLE_STRIP. Returns whether the primitive is Draco-compressed.
  bool check_draco(const json& prim, const std::string& ppath, const json& attributes) {
    const json* extensions = object_at(prim, "extensions", ppath, false);
    const std::string epath = at(ppath, "extensions");
    const json* draco =
        extensions != nullptr ? object_at(*extensions, "KHR_draco_mesh_compression", epath, false) : nullptr;
    if (draco == nullptr) return false;
    const std::string dpath = at(epath, "KHR_draco_mesh_compression");
    index_at(*draco, "bufferView", dpath, views(), true);
    const json* ids = object_at(*draco, "attributes", dpath, true);
    for (const auto& [name, value] : ids->items()) {
      uint_at(*ids, name.c_str(), at(dpath, "attributes"), true);
      if (!attributes.contains(name))
        throw Error(at(at(dpath, "attributes"), name.c_str()), Rule::draco_attribute,
                    fmt::format("{} is not an attribute of the primitive", name));
    }
    // A mode that is not an integer is left to the general check of the mode.
    const json* mode = member(prim, "mode");
    if (mode != nullptr && mode->is_number_unsigned() && *mode != 4 && *mode != 5)
      throw Error(at(ppath, "mode"), Rule::draco_mode,
                  fmt::format("mode {} is neither TRIANGLES nor TRIANGLE_STRIP", mode->dump()));
    return true;
  }

  void check_nodes_and_scenes() {
    const json& list = items("nodes");
    const Target cameras = target("cameras", Rule::camera_index, "camera");
    const Target meshes = target("meshes", Rule::mesh_index, "mesh");
    const Target skins = target("skins", Rule::skin_index, "skin");
    for (std::size_t n = 0; n < list.size(); ++n) {
      const std::string path = at("nodes", n);
      index_at(list[n], "camera", path, cameras, false);
      index_at(list[n], "mesh", path, meshes, false);
      index_at(list[n], "skin", path, skins, false);
      index_array_at(list[n], "children", path, nodes(), false, false);
      // tinygltf silently drops TRS next to a matrix, so this is only visible here.
      if (member(list[n], "matrix") != nullptr &&
          (member(list[n], "translation") || member(list[n], "rotation") || member(list[n], "scale")))
        throw Error(at(path, "matrix"), Rule::node_matrix_and_trs, "a node has a matrix or TRS properties, not both");
    }
    const json& scenes = items("scenes");
    for (std::size_t s = 0; s < scenes.size(); ++s)
      index_array_at(scenes[s], "nodes", at("scenes", s), nodes(), false, false);
    index_at(doc_, "scene", "", target("scenes", Rule::scene_index, "scene"), false);
  }

  void check_skins() {
    const json& list = items("skins");
    for (std::size_t s = 0; s < list.size(); ++s) {
      const std::string path = at("skins", s);
      index_array_at(list[s], "joints", path, nodes(), true, true);
      use_accessor_at(list[s], "inverseBindMatrices", path, false);
      index_at(list[s], "skeleton", path, nodes(), false);
    }
  }

  void check_animations() {
    const json& list = items("animations");
    for (std::size_t a = 0; a < list.size(); ++a) {
      const std::string path = at("animations", a);
      const json* samplers = array_at(list[a], "samplers", path, true, true);
      const json* channels = array_at(list[a], "channels", path, true, true);
      for (std::size_t s = 0; s < samplers->size(); ++s) {
        const std::string spath = at(at(path, "samplers"), s);
        if (!(*samplers)[s].is_object()) throw Error(spath, Rule::not_object, "must be an object");
        use_accessor_at((*samplers)[s], "input", spath, true);
        use_accessor_at((*samplers)[s], "output", spath, true);
        string_at((*samplers)[s], "interpolation", spath, false);
      }
      std::vector<std::size_t>& kept = result_.kept_channels.emplace_back();
      for (std::size_t c = 0; c < channels->size(); ++c) {
        const std::string cpath = at(at(path, "channels"), c);
        if (!(*channels)[c].is_object()) throw Error(cpath, Rule::not_object, "must be an object");
        index_at((*channels)[c], "sampler", cpath, {samplers->size(), Rule::sampler_index, "sampler"}, true);
        const json* t = object_at((*channels)[c], "target", cpath, true);
        const std::string target_path = *string_at(*t, "path", at(cpath, "target"), true);
        if (index_at(*t, "node", at(cpath, "target"), nodes(), false))
          kept.push_back(c);
        else
          result_.warnings.push_back(
              make_warning(cpath, Rule::channel_skipped,
                           fmt::format("target has no node (path \"{}\"); channel skipped", target_path)));
      }
    }
  }

  void check_texture_info(const json& o, const char* key, const std::string& path) {
    const json* info = object_at(o, key, path, false);
    if (info == nullptr) return;
    index_at(*info, "index", at(path, key), target("textures", Rule::texture_index, "texture"), true);
    uint_at(*info, "texCoord", at(path, key), false);
  }

  void check_materials_and_textures() {
    const json& textures = items("textures");
    for (std::size_t t = 0; t < textures.size(); ++t) {
      const std::string path = at("textures", t);
      index_at(textures[t], "sampler", path, target("samplers", Rule::sampler_index, "sampler"), false);
      index_at(textures[t], "source", path, target("images", Rule::image_index, "image"), false);
    }
    const json& materials = items("materials");
    for (std::size_t m = 0; m < materials.size(); ++m) {
      const std::string path = at("materials", m);
      if (const json* pbr = object_at(materials[m], "pbrMetallicRoughness", path, false)) {
        check_texture_info(*pbr, "baseColorTexture", at(path, "pbrMetallicRoughness"));
        check_texture_info(*pbr, "metallicRoughnessTexture", at(path, "pbrMetallicRoughness"));
      }
      for (const char* key : {"normalTexture", "occlusionTexture", "emissiveTexture"})
        check_texture_info(materials[m], key, path);
    }
  }

  const json& doc_;
  const PreflightInput& input_;
  std::vector<std::uint64_t> buffer_lengths_;
  std::vector<bool> buffer_is_fallback_;
  std::vector<bool> buffer_is_placeholder_;
  std::map<std::size_t, Error> no_data_;  // accessors reading placeholder buffers
  std::vector<ViewInfo> views_;
  PreflightResult result_;
  std::uint64_t data_bytes_ = 0;
};

}  // namespace

nlohmann::json parse_json(std::string_view text) {
  // A linear scan: brackets inside strings do not nest, and a backslash escapes one character.
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        throw Error("document", Rule::json_depth, fmt::format("nesting deeper than {} at byte {}", kMaxJsonDepth, i));
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    throw Error("document", Rule::json_syntax, e.what());
  }
}

PreflightResult preflight(const nlohmann::json& doc, const PreflightInput& input) {
  return Preflight(doc, input).run();
}

}  // namespace gltf_crowd::detail
