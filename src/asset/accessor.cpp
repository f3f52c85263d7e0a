// Based on: glTF 2.0 §3.6.2 (accessors, sparse accessors, data alignment) and §3.11
// (normalized integer → float mapping).
#include "asset/accessor.hpp"

#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "gltf_crowd/error.hpp"

namespace gltf_crowd::detail {
namespace {

std::uint32_t component_size(int component_type) {
  switch (component_type) {
    case TINYGLTF_COMPONENT_TYPE_BYTE:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return 1;
    case TINYGLTF_COMPONENT_TYPE_SHORT:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return 2;
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
    case TINYGLTF_COMPONENT_TYPE_FLOAT: return 4;
    default: return 0;
  }
}

std::uint32_t component_count(int type) {
  switch (type) {
    case TINYGLTF_TYPE_SCALAR: return 1;
    case TINYGLTF_TYPE_VEC2: return 2;
    case TINYGLTF_TYPE_VEC3: return 3;
    case TINYGLTF_TYPE_VEC4: return 4;
    case TINYGLTF_TYPE_MAT2: return 4;
    case TINYGLTF_TYPE_MAT3: return 9;
    case TINYGLTF_TYPE_MAT4: return 16;
    default: return 0;
  }
}

// Component value as double; normalized integers mapped per glTF 2.0 §3.11.
double read_component(const std::uint8_t* p, int component_type, bool normalized) {
  switch (component_type) {
    case TINYGLTF_COMPONENT_TYPE_BYTE: {
      std::int8_t v; std::memcpy(&v, p, 1);
      return normalized ? std::max(v / 127.0, -1.0) : v;
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: {
      std::uint8_t v; std::memcpy(&v, p, 1);
      return normalized ? v / 255.0 : v;
    }
    case TINYGLTF_COMPONENT_TYPE_SHORT: {
      std::int16_t v; std::memcpy(&v, p, 2);
      return normalized ? std::max(v / 32767.0, -1.0) : v;
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
      std::uint16_t v; std::memcpy(&v, p, 2);
      return normalized ? v / 65535.0 : v;
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: {
      std::uint32_t v; std::memcpy(&v, p, 4);
      return v;
    }
    default: {
      float v; std::memcpy(&v, p, 4);
      return v;
    }
  }
}

// The bytes [offset, offset + size) of bufferView `view`, checked against its buffer.
struct ViewBytes {
  const std::uint8_t* data = nullptr;
  std::uint64_t size = 0;
  std::uint32_t stride = 0;
};

ViewBytes view_bytes(const tinygltf::Model& model, int view, const std::string& who) {
  if (view < 0 || static_cast<std::size_t>(view) >= model.bufferViews.size())
    throw Error(who, "bufferview_index", fmt::format("bufferView {} does not exist", view));
  const auto& bv = model.bufferViews[static_cast<std::size_t>(view)];
  const std::string path = fmt::format("bufferViews[{}]", view);
  if (bv.buffer < 0 || static_cast<std::size_t>(bv.buffer) >= model.buffers.size())
    throw Error(path + ".buffer", "buffer_index", fmt::format("buffer {} does not exist", bv.buffer));
  const auto& buffer = model.buffers[static_cast<std::size_t>(bv.buffer)];
  const std::uint64_t offset = bv.byteOffset, length = bv.byteLength;
  if (offset > buffer.data.size() || length > buffer.data.size() - offset)
    throw Error(path, "bufferview_out_of_bounds",
                fmt::format("byteOffset {} + byteLength {} exceeds buffer {} of {} bytes", offset,
                            length, bv.buffer, buffer.data.size()));
  if (bv.byteStride != 0 && (bv.byteStride < 4 || bv.byteStride > 252 || bv.byteStride % 4 != 0))
    throw Error(path + ".byteStride", "bufferview_stride",
                fmt::format("byteStride {} is not a multiple of 4 in [4, 252]", bv.byteStride));
  return {buffer.data.data() + offset, length, static_cast<std::uint32_t>(bv.byteStride)};
}

// Reads `count` elements of `components` components each from a view into `out` (doubles).
void read_elements(const ViewBytes& view, std::uint64_t byte_offset, std::uint64_t count,
                   std::uint32_t components, int component_type, bool normalized,
                   const std::string& path, std::vector<double>& out) {
  const std::uint64_t csize = component_size(component_type);
  const std::uint64_t element = csize * components;
  const std::uint64_t stride = view.stride != 0 ? view.stride : element;
  if (view.stride != 0 && view.stride < element)
    throw Error(path, "accessor_stride",
                fmt::format("byteStride {} is smaller than the element size {}", view.stride, element));
  if (count > 0) {
    // offset + (count - 1) * stride + element <= view.size, without overflow (count < 2^32).
    if (byte_offset > view.size || (count - 1) > (view.size - byte_offset) / stride ||
        (count - 1) * stride + element > view.size - byte_offset)
      throw Error(path, "accessor_out_of_bounds",
                  fmt::format("{} elements of {} bytes at offset {} (stride {}) exceed the "
                              "bufferView's {} bytes", count, element, byte_offset, stride, view.size));
  }
  out.resize(count * components);
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint8_t* p = view.data + byte_offset + i * stride;
    for (std::uint32_t c = 0; c < components; ++c)
      out[i * components + c] = read_component(p + c * csize, component_type, normalized);
  }
}

std::vector<double> decode(const tinygltf::Model& model, int index, const std::string& user,
                           std::uint32_t& count_out, std::uint32_t& components_out) {
  if (index < 0 || static_cast<std::size_t>(index) >= model.accessors.size())
    throw Error(user, "accessor_index", fmt::format("accessor {} does not exist", index));
  const auto& a = model.accessors[static_cast<std::size_t>(index)];
  const std::string path = fmt::format("accessors[{}]", index);
  const std::uint32_t csize = component_size(a.componentType);
  const std::uint32_t components = component_count(a.type);
  if (csize == 0)
    throw Error(path + ".componentType", "accessor_component_type",
                fmt::format("unknown componentType {}", a.componentType));
  if (components == 0) throw Error(path + ".type", "accessor_type", "unknown type");
  if (a.count == 0 || a.count > (1u << 28))
    throw Error(path + ".count", "accessor_count", fmt::format("count {} is not in [1, 2^28]", a.count));
  if (a.byteOffset % csize != 0)
    throw Error(path + ".byteOffset", "accessor_alignment",
                fmt::format("byteOffset {} is not a multiple of the component size {}", a.byteOffset, csize));
  std::vector<double> values;
  if (a.bufferView >= 0) {
    const ViewBytes view = view_bytes(model, a.bufferView, path + ".bufferView");
    read_elements(view, a.byteOffset, a.count, components, a.componentType, a.normalized, path, values);
  } else {
    values.assign(std::size_t{a.count} * components, 0.0);  // zeros unless sparse says otherwise
  }
  if (a.sparse.isSparse) {
    const std::string sparse_path = path + ".sparse";
    if (a.sparse.count <= 0 || static_cast<std::size_t>(a.sparse.count) > a.count)
      throw Error(sparse_path + ".count", "sparse_count",
                  fmt::format("sparse count {} is not in [1, {}]", a.sparse.count, a.count));
    const int itype = a.sparse.indices.componentType;
    if (itype != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE && itype != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
        itype != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT)
      throw Error(sparse_path + ".indices.componentType", "sparse_index_type",
                  fmt::format("componentType {} is not an unsigned integer type", itype));
    std::vector<double> indices, substitutes;
    const ViewBytes iview = view_bytes(model, a.sparse.indices.bufferView, sparse_path + ".indices.bufferView");
    const ViewBytes vview = view_bytes(model, a.sparse.values.bufferView, sparse_path + ".values.bufferView");
    if (a.sparse.indices.byteOffset < 0 || a.sparse.values.byteOffset < 0)
      throw Error(sparse_path, "sparse_offset", "negative byteOffset");
    read_elements({iview.data, iview.size, 0}, static_cast<std::uint64_t>(a.sparse.indices.byteOffset),
                  static_cast<std::uint64_t>(a.sparse.count), 1, itype, false, sparse_path + ".indices", indices);
    read_elements({vview.data, vview.size, 0}, static_cast<std::uint64_t>(a.sparse.values.byteOffset),
                  static_cast<std::uint64_t>(a.sparse.count), components, a.componentType, a.normalized,
                  sparse_path + ".values", substitutes);
    for (std::size_t i = 0; i < indices.size(); ++i) {
      const double target = indices[i];
      if (target >= static_cast<double>(a.count) || (i > 0 && target <= indices[i - 1]))
        throw Error(fmt::format("{}.indices[{}]", sparse_path, i), "sparse_index",
                    fmt::format("index {} is not increasing and < count {}", target, a.count));
      const auto t = static_cast<std::size_t>(target);
      for (std::uint32_t c = 0; c < components; ++c) values[t * components + c] = substitutes[i * components + c];
    }
  }
  count_out = static_cast<std::uint32_t>(a.count);
  components_out = components;
  return values;
}

}  // namespace

DecodedAccessor read_floats(const tinygltf::Model& model, int index, const std::string& user) {
  DecodedAccessor out;
  const std::vector<double> values = decode(model, index, user, out.count, out.components);
  out.floats.resize(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) out.floats[i] = static_cast<float>(values[i]);
  return out;
}

std::vector<std::uint32_t> read_uints(const tinygltf::Model& model, int index, const std::string& user,
                                      std::uint32_t* components) {
  std::uint32_t count = 0, comps = 0;
  const std::vector<double> values = decode(model, index, user, count, comps);
  const auto& a = model.accessors[static_cast<std::size_t>(index)];
  if (a.componentType == TINYGLTF_COMPONENT_TYPE_FLOAT || a.normalized ||
      a.componentType == TINYGLTF_COMPONENT_TYPE_BYTE || a.componentType == TINYGLTF_COMPONENT_TYPE_SHORT)
    throw Error(fmt::format("accessors[{}].componentType", index), "accessor_not_unsigned",
                fmt::format("{} needs an unsigned integer accessor", user));
  if (components != nullptr) *components = comps;
  std::vector<std::uint32_t> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<std::uint32_t>(values[i]);
  return out;
}

}  // namespace gltf_crowd::detail
