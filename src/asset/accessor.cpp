// Based on: glTF 2.0 §3.6.2 (accessors, sparse accessors, data alignment) and §3.11
// (normalized integer → float mapping).
#include "asset/accessor.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "gltf_crowd/error.hpp"

namespace gltf_crowd::detail {
namespace {

template <typename Raw>
Raw load(const std::uint8_t* p) noexcept {
  Raw v;
  std::memcpy(&v, p, sizeof(Raw));
  return v;
}

// One component as float; normalized integers mapped per glTF 2.0 §3.11.
float to_float(const std::uint8_t* p, int component_type, bool normalized) noexcept {
  switch (component_type) {
    case TINYGLTF_COMPONENT_TYPE_BYTE: {
      const auto v = load<std::int8_t>(p);
      return normalized ? std::max(v / 127.0f, -1.0f) : static_cast<float>(v);
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: {
      const auto v = load<std::uint8_t>(p);
      return normalized ? v / 255.0f : static_cast<float>(v);
    }
    case TINYGLTF_COMPONENT_TYPE_SHORT: {
      const auto v = load<std::int16_t>(p);
      return normalized ? std::max(v / 32767.0f, -1.0f) : static_cast<float>(v);
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
      const auto v = load<std::uint16_t>(p);
      return normalized ? v / 65535.0f : static_cast<float>(v);
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: return static_cast<float>(load<std::uint32_t>(p));
    default: return load<float>(p);
  }
}

// One unsigned integer component (the caller has checked the type).
std::uint32_t to_uint(const std::uint8_t* p, int component_type) noexcept {
  switch (component_type) {
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return load<std::uint8_t>(p);
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return load<std::uint16_t>(p);
    default: return load<std::uint32_t>(p);
  }
}

bool is_unsigned(int component_type) noexcept {
  return component_type == TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE ||
         component_type == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT ||
         component_type == TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT;
}

// The bytes of bufferView `view`, checked against the data its buffer really holds.
struct ViewBytes {
  const std::uint8_t* data = nullptr;
  std::uint64_t size = 0;
  std::uint32_t stride = 0;  // 0 = tightly packed
};

ViewBytes view_bytes(const tinygltf::Model& model, int view, const std::string& who) {
  if (view < 0 || static_cast<std::size_t>(view) >= model.bufferViews.size())
    throw Error(who, Rule::bufferview_index, fmt::format("bufferView {} does not exist", view));
  const auto& bv = model.bufferViews[static_cast<std::size_t>(view)];
  const std::string path = fmt::format("bufferViews[{}]", view);
  if (bv.buffer < 0 || static_cast<std::size_t>(bv.buffer) >= model.buffers.size())
    throw Error(path + ".buffer", Rule::buffer_index, fmt::format("buffer {} does not exist", bv.buffer));
  const auto& buffer = model.buffers[static_cast<std::size_t>(bv.buffer)];
  // A placeholder: the view's length of zeros, read from no memory (data == nullptr).
  if (buffer.uri == kPlaceholderBufferUri) return {nullptr, bv.byteLength, static_cast<std::uint32_t>(bv.byteStride)};
  const std::uint64_t offset = bv.byteOffset, length = bv.byteLength;
  if (offset > buffer.data.size() || length > buffer.data.size() - offset)
    throw Error(path, Rule::bufferview_out_of_bounds,
                fmt::format("byteOffset {} + byteLength {} exceeds buffer {} of {} bytes", offset, length, bv.buffer,
                            buffer.data.size()));
  return {buffer.data.data() + offset, length, static_cast<std::uint32_t>(bv.byteStride)};
}

// Reads `count` elements of `components` components from a view into out[0, count·components).
// `matrix`: the elements are MAT2/3/4, whose columns are 4-byte aligned (element_layout).
template <typename T, typename Convert>
void read_elements(const ViewBytes& view, std::uint64_t byte_offset, std::uint64_t count, std::uint32_t components,
                   bool matrix, int component_type, const std::string& path, T* out, Convert convert) {
  const std::uint32_t csize = component_size(component_type);
  const ElementLayout layout = element_layout(components, matrix, csize);
  check_element_range({byte_offset, count, layout.size, view.stride, view.size, layout.extent}, path);
  const std::uint64_t stride = view.stride != 0 ? view.stride : layout.size;
  if (view.data == nullptr) {  // a placeholder buffer's zeros
    for (std::uint64_t i = 0; i < count * components; ++i) out[i] = T{};
    return;
  }
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint8_t* p = view.data + byte_offset + i * stride;
    for (std::uint32_t c = 0; c < components; ++c) out[i * components + c] = convert(p + layout.offset(c, csize));
  }
}

bool is_matrix(int type) noexcept {
  return type == TINYGLTF_TYPE_MAT2 || type == TINYGLTF_TYPE_MAT3 || type == TINYGLTF_TYPE_MAT4;
}

}  // namespace

std::uint32_t component_size(int component_type) noexcept {
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

std::uint32_t component_count(int type) noexcept {
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

ElementLayout element_layout(std::uint32_t components, bool matrix, std::uint32_t component_bytes) noexcept {
  ElementLayout layout;
  // MAT2 / MAT3 / MAT4 have 2 / 3 / 4 rows (4 / 9 / 16 components).
  layout.rows = !matrix ? components : components == 4 ? 2 : components == 9 ? 3 : 4;
  const std::uint32_t column = layout.rows * component_bytes;
  layout.column_bytes = matrix ? (column + 3) / 4 * 4 : column;
  const std::uint32_t columns = components / std::max(layout.rows, 1u);
  layout.size = std::uint64_t{layout.column_bytes} * columns;
  layout.extent = columns == 0 ? 0 : std::uint64_t{layout.column_bytes} * (columns - 1) + column;
  return layout;
}

void check_element_range(const ElementRange& r, const std::string& path) {
  if (r.stride != 0 && r.stride < r.element_size)
    throw Error(path, Rule::accessor_stride,
                fmt::format("byteStride {} is smaller than the element size {}", r.stride, r.element_size));
  if (r.count == 0) return;
  const std::uint64_t stride = r.stride != 0 ? r.stride : r.element_size;
  const std::uint64_t last = r.last_element_size != 0 ? r.last_element_size : r.element_size;
  // byte_offset + (count - 1) · stride + last <= view_length, each step checked against what is
  // left so nothing can wrap.
  const bool fits = r.byte_offset <= r.view_length && last <= r.view_length - r.byte_offset &&
                    (stride == 0 || (r.count - 1) <= (r.view_length - r.byte_offset - last) / stride);
  if (!fits)
    throw Error(path, Rule::accessor_out_of_bounds,
                fmt::format("{} elements of {} bytes at offset {} (stride {}) exceed the bufferView's {} bytes",
                            r.count, r.element_size, r.byte_offset, stride, r.view_length));
}

const tinygltf::Accessor& AccessorReader::checked_accessor(int index, const std::string& user) {
  if (index < 0 || static_cast<std::size_t>(index) >= model_.accessors.size())
    throw Error(user, Rule::accessor_index, fmt::format("accessor {} does not exist", index));
  const auto& a = model_.accessors[static_cast<std::size_t>(index)];
  const std::string path = fmt::format("accessors[{}]", index);
  const std::uint32_t csize = component_size(a.componentType);
  const std::uint32_t components = component_count(a.type);
  if (csize == 0)
    throw Error(path + ".componentType", Rule::accessor_component_type,
                fmt::format("componentType {} is not allowed", a.componentType));
  if (components == 0) throw Error(path + ".type", Rule::accessor_type, "unknown type");
  if (a.count == 0 || a.count > kMaxAccessorCount)
    throw Error(path + ".count", Rule::accessor_count, fmt::format("count {} is not in [1, 2^28]", a.count));
  const std::uint64_t values = std::uint64_t{a.count} * components;
  if (values > budget_left_)
    throw Error(path, Rule::accessor_budget,
                fmt::format("{} (from {}) would decode {} more values than the document's data can justify", path, user,
                            values - budget_left_));
  budget_left_ -= values;
  return a;
}

namespace {

// Decodes accessor `a` (already checked by checked_accessor) into `out` through `convert`.
template <typename T, typename Convert>
void decode(const tinygltf::Model& model, const tinygltf::Accessor& a, const std::string& path, std::vector<T>& out,
            Convert convert) {
  const std::uint32_t components = component_count(a.type);
  out.assign(std::size_t{a.count} * components, T{});  // zeros unless a view or sparse says otherwise
  if (a.bufferView >= 0) {
    const ViewBytes view = view_bytes(model, a.bufferView, path + ".bufferView");
    read_elements(view, a.byteOffset, a.count, components, is_matrix(a.type), a.componentType, path, out.data(),
                  convert);
  }
  if (!a.sparse.isSparse) return;
  const std::string sparse_path = path + ".sparse";
  if (a.sparse.count <= 0 || static_cast<std::size_t>(a.sparse.count) > a.count)
    throw Error(sparse_path + ".count", Rule::sparse_count,
                fmt::format("sparse count {} is not in [1, {}]", a.sparse.count, a.count));
  const int itype = a.sparse.indices.componentType;
  if (!is_unsigned(itype))
    throw Error(sparse_path + ".indices.componentType", Rule::sparse_index_type,
                fmt::format("componentType {} is not an unsigned integer type", itype));
  if (a.sparse.indices.byteOffset < 0 || a.sparse.values.byteOffset < 0)
    throw Error(sparse_path, Rule::sparse_offset, "negative byteOffset");
  const auto sparse_count = static_cast<std::uint64_t>(a.sparse.count);
  ViewBytes iview = view_bytes(model, a.sparse.indices.bufferView, sparse_path + ".indices.bufferView");
  ViewBytes vview = view_bytes(model, a.sparse.values.bufferView, sparse_path + ".values.bufferView");
  iview.stride = vview.stride = 0;  // sparse data is always tightly packed (§3.6.2.3)
  std::vector<std::uint32_t> indices(sparse_count);
  std::vector<T> substitutes(sparse_count * components);
  read_elements(iview, static_cast<std::uint64_t>(a.sparse.indices.byteOffset), sparse_count, 1, false, itype,
                sparse_path + ".indices", indices.data(), [itype](const std::uint8_t* p) { return to_uint(p, itype); });
  read_elements(vview, static_cast<std::uint64_t>(a.sparse.values.byteOffset), sparse_count, components,
                is_matrix(a.type), a.componentType, sparse_path + ".values", substitutes.data(), convert);
  for (std::size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] >= a.count || (i > 0 && indices[i] <= indices[i - 1]))
      throw Error(fmt::format("{}.indices", sparse_path), Rule::sparse_index,
                  fmt::format("index {} at {} is not strictly increasing and < count {}", indices[i], i, a.count));
    std::copy_n(substitutes.begin() + static_cast<std::ptrdiff_t>(i * components), components,
                out.begin() + static_cast<std::ptrdiff_t>(std::size_t{indices[i]} * components));
  }
}

}  // namespace

DecodedAccessor AccessorReader::read_floats(int index, const std::string& user) {
  const tinygltf::Accessor& a = checked_accessor(index, user);
  DecodedAccessor out;
  out.count = static_cast<std::uint32_t>(a.count);
  out.components = component_count(a.type);
  const int type = a.componentType;
  const bool normalized = a.normalized;
  decode(model_, a, fmt::format("accessors[{}]", index), out.floats,
         [type, normalized](const std::uint8_t* p) { return to_float(p, type, normalized); });
  return out;
}

std::vector<std::uint32_t> AccessorReader::read_uints(int index, const std::string& user, std::uint32_t* components) {
  const tinygltf::Accessor& a = checked_accessor(index, user);
  if (!is_unsigned(a.componentType) || a.normalized)
    throw Error(fmt::format("accessors[{}].componentType", index), Rule::accessor_not_unsigned,
                fmt::format("{} needs an unsigned integer accessor that is not normalized", user));
  if (components != nullptr) *components = component_count(a.type);
  std::vector<std::uint32_t> out;
  const int type = a.componentType;
  decode(model_, a, fmt::format("accessors[{}]", index), out,
         [type](const std::uint8_t* p) { return to_uint(p, type); });
  return out;
}

}  // namespace gltf_crowd::detail
