// KHR_draco_mesh_compression: each compressed primitive is decoded once at load with Draco, and
// its attributes and indices are pointed at new accessors over the decoded bytes, so the mesh
// pass reads them like any other accessor (type checks, weight renormalization, bounds).
//
// Based on: the KHR_draco_mesh_compression specification (KhronosGroup/glTF extensions: the
// extension's bufferView and attribute unique ids; the primitive's accessors give type, count,
// componentType and normalized, their bufferView and byteOffset are ignored; mode TRIANGLES or
// TRIANGLE_STRIP; attributes outside the extension are read as usual) and Draco 1.5's decoder
// API (draco/compression/decode.h, GeometryAttribute::ConvertValue). The compressed bytes are
// untrusted: every count and index the decoder returns is checked before it is used.
#include <draco/compression/decode.h>

#include <cstring>
#include <map>
#include <memory>
#include <new>

#include <fmt/format.h>

#include "asset/build.hpp"

namespace gltf_crowd::detail {
namespace {

constexpr const char* kExtension = "KHR_draco_mesh_compression";
// Where stash_draco_indices keeps a Draco primitive's `indices` from tinygltf (see build.hpp).
constexpr const char* kStashedIndices = "gltf_crowd.indices";

// A non-negative int member of an extension object (preflight has checked the JSON; tinygltf
// may store numbers as int or real).
int index_field(const tinygltf::Value& object, const char* key, const std::string& path) {
  if (!object.Has(key)) throw Error(path + "." + key, Rule::missing_property, "is required");
  const tinygltf::Value& v = object.Get(key);
  const double d = v.IsNumber() ? v.GetNumberAsDouble() : -1.0;
  if (!v.IsNumber() || d < 0.0 || d > 2147483647.0 || d != static_cast<double>(static_cast<int>(d)))
    throw Error(path + "." + key, Rule::integer_range, "must be an integer in [0, 2147483647]");
  return static_cast<int>(d);
}

// The compressed bytes of bufferView `view` (ranges were checked by preflight; decode_meshopt
// may have replaced the view, so they are checked again against the data really held).
std::span<const std::uint8_t> view_bytes(const tinygltf::Model& model, int view, const std::string& path) {
  if (view < 0 || static_cast<std::size_t>(view) >= model.bufferViews.size())
    throw Error(path, Rule::bufferview_index, fmt::format("bufferView {} does not exist", view));
  const tinygltf::BufferView& bv = model.bufferViews[static_cast<std::size_t>(view)];
  if (bv.buffer < 0 || static_cast<std::size_t>(bv.buffer) >= model.buffers.size())
    throw Error(path, Rule::buffer_index, fmt::format("bufferViews[{}] names no buffer", view));
  const std::vector<unsigned char>& data = model.buffers[static_cast<std::size_t>(bv.buffer)].data;
  if (bv.byteOffset > data.size() || bv.byteLength > data.size() - bv.byteOffset)
    throw Error(path, Rule::bufferview_out_of_bounds,
                fmt::format("bufferViews[{}] exceeds its buffer of {} bytes", view, data.size()));
  return {data.data() + bv.byteOffset, bv.byteLength};
}

std::unique_ptr<draco::Mesh> decode_mesh(std::span<const std::uint8_t> bytes, const std::string& path) {
  draco::DecoderBuffer buffer;
  buffer.Init(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  draco::Decoder decoder;
  try {
    auto result = decoder.DecodeMeshFromBuffer(&buffer);
    if (!result.ok())
      throw Error(path, Rule::draco_decode,
                  fmt::format("Draco could not decode the mesh: {}", result.status().error_msg()));
    std::unique_ptr<draco::Mesh> mesh = std::move(result).value();
    if (mesh == nullptr) throw Error(path, Rule::draco_decode, "Draco returned no mesh");
    return mesh;
  } catch (const std::bad_alloc&) {
    throw Error(path, Rule::draco_decode, "the Draco data asks for more memory than is available");
  }
}

// Appends `count` elements of `components` values of type T, converted by Draco from the
// attribute's own type (GeometryAttribute::ConvertValue: integers to float honour the Draco
// attribute's normalized flag; values that do not fit T fail).
template <typename T>
void append_values(const draco::PointAttribute& attribute, std::uint32_t count, std::uint32_t components,
                   std::vector<std::uint8_t>& out, const std::string& path) {
  if (!attribute.is_mapping_identity() && attribute.indices_map_size() < count)
    throw Error(path, Rule::draco_attribute,
                fmt::format("the Draco attribute maps {} of {} points", attribute.indices_map_size(), count));
  T value[4];
  const std::size_t at = out.size();
  out.resize(at + std::size_t{count} * components * sizeof(T));
  for (std::uint32_t i = 0; i < count; ++i) {
    const draco::AttributeValueIndex index = attribute.mapped_index(draco::PointIndex(i));
    if (index.value() >= attribute.size() ||
        !attribute.ConvertValue<T>(index, static_cast<std::int8_t>(components), value))
      throw Error(path, Rule::draco_attribute, fmt::format("point {} has no value of the accessor's componentType", i));
    std::memcpy(out.data() + at + std::size_t{i} * components * sizeof(T), value, components * sizeof(T));
  }
}

void append_attribute(const draco::PointAttribute& attribute, int component_type, std::uint32_t count,
                      std::uint32_t components, std::vector<std::uint8_t>& out, const std::string& path) {
  switch (component_type) {
    case TINYGLTF_COMPONENT_TYPE_BYTE: return append_values<std::int8_t>(attribute, count, components, out, path);
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
      return append_values<std::uint8_t>(attribute, count, components, out, path);
    case TINYGLTF_COMPONENT_TYPE_SHORT: return append_values<std::int16_t>(attribute, count, components, out, path);
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT:
      return append_values<std::uint16_t>(attribute, count, components, out, path);
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
      return append_values<std::uint32_t>(attribute, count, components, out, path);
    default: return append_values<float>(attribute, count, components, out, path);
  }
}

// Decodes one primitive: a new buffer with every Draco attribute (in its accessor's
// componentType) and the triangle indices (uint32), new views and accessors over it, and the
// primitive's attributes and indices pointed at them. The file's accessors stay untouched, so an
// accessor shared with another primitive keeps its meaning there.
class PrimitiveDecoder {
 public:
  PrimitiveDecoder(tinygltf::Model& model, std::uint64_t& decoded_total)
      : model_(model), decoded_total_(decoded_total) {}

  void decode(tinygltf::Primitive& primitive, const tinygltf::Value& ext, const std::string& path) {
    if (!ext.IsObject()) throw Error(path, Rule::not_object, "must be an object");
    if (primitive.mode != TINYGLTF_MODE_TRIANGLES && primitive.mode != TINYGLTF_MODE_TRIANGLE_STRIP)
      throw Error(path, Rule::draco_mode,
                  fmt::format("mode {} is neither TRIANGLES (4) nor TRIANGLE_STRIP (5)", primitive.mode));
    const int view = index_field(ext, "bufferView", path);
    if (!ext.Has("attributes") || !ext.Get("attributes").IsObject())
      throw Error(path + ".attributes", Rule::missing_property, "is required and must be an object");
    const tinygltf::Value& ids = ext.Get("attributes");
    const int indices = ext.Has(kStashedIndices) ? index_field(ext, kStashedIndices, path) : -1;

    // Declared sizes first: nothing is decoded for a document over the cap.
    struct Wanted {
      std::string name;
      std::uint32_t unique_id;
      int accessor;
      std::uint32_t components;
    };
    std::vector<Wanted> wanted;
    std::uint64_t bytes = 0;
    for (const std::string& name : ids.Keys()) {
      const std::string apath = path + ".attributes." + name;
      const auto it = primitive.attributes.find(name);
      if (it == primitive.attributes.end())
        throw Error(apath, Rule::draco_attribute, fmt::format("{} is not an attribute of the primitive", name));
      const tinygltf::Accessor& a = accessor(it->second, apath);
      const std::uint32_t components = component_count(a.type);
      if (components > 4)
        throw Error(apath, Rule::draco_attribute, fmt::format("accessors[{}] is not SCALAR or VEC2..4", it->second));
      wanted.push_back({name, static_cast<std::uint32_t>(index_field(ids, name.c_str(), path + ".attributes")),
                        it->second, components});
      bytes += a.count * components * component_size(a.componentType) + 3;
    }
    if (indices >= 0) accessor(indices, path);
    check_size(bytes, path);

    const std::unique_ptr<draco::Mesh> mesh = decode_mesh(view_bytes(model_, view, path + ".bufferView"), path);
    const std::uint32_t points = mesh->num_points();
    const std::uint64_t corners = std::uint64_t{mesh->num_faces()} * 3;
    if (corners == 0 || corners > kMaxAccessorCount)
      throw Error(path, Rule::draco_count, fmt::format("{} triangles decoded; 1 to 2^28 / 3 are allowed", corners / 3));
    check_size(bytes + corners * 4, path);
    if (indices >= 0) {
      const std::uint64_t declared = model_.accessors[static_cast<std::size_t>(indices)].count;
      const bool strip_count = primitive.mode == TINYGLTF_MODE_TRIANGLE_STRIP && declared == corners / 3 + 2;
      if (declared != corners && !strip_count)
        throw Error(path, Rule::draco_count,
                    fmt::format("{} triangles decoded, but the indices accessor {} has count {}", corners / 3, indices,
                                declared));
    }

    std::vector<std::uint8_t> data;
    std::vector<std::pair<const Wanted*, std::size_t>> offsets;  // attribute, byte offset in `data`
    for (const Wanted& w : wanted) {
      const std::string apath = path + ".attributes." + w.name;
      const tinygltf::Accessor& a = model_.accessors[static_cast<std::size_t>(w.accessor)];
      if (points != a.count)
        throw Error(apath, Rule::draco_count,
                    fmt::format("{} points decoded, but accessors[{}] has count {}", points, w.accessor, a.count));
      const draco::PointAttribute* attribute = mesh->GetAttributeByUniqueId(w.unique_id);
      if (attribute == nullptr)
        throw Error(apath, Rule::draco_attribute,
                    fmt::format("the Draco mesh has no attribute with unique id {}", w.unique_id));
      if (attribute->num_components() != w.components)
        throw Error(apath, Rule::draco_attribute,
                    fmt::format("the Draco attribute has {} components, accessors[{}] {}", attribute->num_components(),
                                w.accessor, w.components));
      while (data.size() % 4 != 0) data.push_back(0);
      offsets.emplace_back(&w, data.size());
      append_attribute(*attribute, a.componentType, points, w.components, data, apath);
    }
    while (data.size() % 4 != 0) data.push_back(0);
    const std::size_t index_offset = data.size();
    data.resize(index_offset + corners * 4);
    for (draco::FaceIndex f(0); f < mesh->num_faces(); ++f) {
      const draco::Mesh::Face& face = mesh->face(f);
      for (int c = 0; c < 3; ++c) {
        const std::uint32_t index = face[c].value();
        if (index >= points)
          throw Error(
              path, Rule::draco_index,
              fmt::format("triangle {} uses point {}, but only {} points were decoded", f.value(), index, points));
        std::memcpy(data.data() + index_offset + (std::size_t{f.value()} * 3 + c) * 4, &index, 4);
      }
    }

    decoded_total_ += data.size();
    const int buffer = static_cast<int>(model_.buffers.size());
    model_.buffers.emplace_back().data = std::move(data);
    for (const auto& [w, offset] : offsets) {
      tinygltf::Accessor copy = model_.accessors[static_cast<std::size_t>(w->accessor)];
      const std::size_t length = std::size_t{points} * w->components * component_size(copy.componentType);
      copy.bufferView = add_view(buffer, offset, length);
      copy.byteOffset = 0;
      copy.sparse = {};
      primitive.attributes[w->name] = add_accessor(std::move(copy));
    }
    tinygltf::Accessor index_accessor;
    index_accessor.bufferView = add_view(buffer, index_offset, corners * 4);
    index_accessor.componentType = TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT;
    index_accessor.type = TINYGLTF_TYPE_SCALAR;
    index_accessor.count = corners;
    primitive.indices = add_accessor(std::move(index_accessor));
    // Draco stores triangles: a TRIANGLE_STRIP primitive decodes to its triangle list.
    primitive.mode = TINYGLTF_MODE_TRIANGLES;
  }

 private:
  // Caps the bytes all decoded primitives hold together: a few compressed bytes can describe
  // many points, and many primitives may share one compressed bufferView.
  void check_size(std::uint64_t bytes, const std::string& path) const {
    if (bytes > kMaxBufferBytes - decoded_total_)
      throw Error(path, Rule::draco_size,
                  fmt::format("decoded primitives would exceed {} bytes in total", kMaxBufferBytes));
  }
  const tinygltf::Accessor& accessor(int index, const std::string& path) const {
    if (index < 0 || static_cast<std::size_t>(index) >= model_.accessors.size())
      throw Error(path, Rule::accessor_index, fmt::format("accessor {} does not exist", index));
    const tinygltf::Accessor& a = model_.accessors[static_cast<std::size_t>(index)];
    if (component_size(a.componentType) == 0 || component_count(a.type) == 0 || a.count > kMaxAccessorCount)
      throw Error(fmt::format("accessors[{}]", index), Rule::accessor_type, "unusable componentType, type or count");
    return a;
  }
  int add_view(int buffer, std::size_t offset, std::size_t length) {
    tinygltf::BufferView& view = model_.bufferViews.emplace_back();
    view.buffer = buffer;
    view.byteOffset = offset;
    view.byteLength = length;
    return static_cast<int>(model_.bufferViews.size()) - 1;
  }
  int add_accessor(tinygltf::Accessor accessor) {
    model_.accessors.push_back(std::move(accessor));
    return static_cast<int>(model_.accessors.size()) - 1;
  }

  tinygltf::Model& model_;
  std::uint64_t& decoded_total_;
};

}  // namespace

bool stash_draco_indices(nlohmann::json& doc) {
  bool changed = false;
  const auto meshes = doc.find("meshes");
  if (meshes == doc.end() || !meshes->is_array()) return false;
  for (auto& mesh : *meshes) {
    if (!mesh.is_object() || !mesh.contains("primitives") || !mesh["primitives"].is_array()) continue;
    for (auto& primitive : mesh["primitives"]) {
      if (!primitive.is_object() || !primitive.contains("extensions") || !primitive["extensions"].is_object()) continue;
      auto& extensions = primitive["extensions"];
      if (!extensions.contains(kExtension) || !extensions[kExtension].is_object()) continue;
      auto& ext = extensions[kExtension];
      if (primitive.contains("indices")) {
        ext[kStashedIndices] = primitive["indices"];
        primitive.erase("indices");
        changed = true;
      } else if (ext.contains(kStashedIndices)) {
        ext.erase(kStashedIndices);  // never trust a stash the file brought along
        changed = true;
      }
    }
  }
  return changed;
}

void decode_draco(tinygltf::Model& model) {
  std::uint64_t decoded_total = 0;
  PrimitiveDecoder decoder(model, decoded_total);
  for (std::size_t m = 0; m < model.meshes.size(); ++m) {
    for (std::size_t p = 0; p < model.meshes[m].primitives.size(); ++p) {
      tinygltf::Primitive& primitive = model.meshes[m].primitives[p];
      const auto ext = primitive.extensions.find(kExtension);
      if (ext == primitive.extensions.end()) continue;
      decoder.decode(primitive, ext->second, fmt::format("meshes[{}].primitives[{}].extensions.{}", m, p, kExtension));
    }
  }
}

}  // namespace gltf_crowd::detail
