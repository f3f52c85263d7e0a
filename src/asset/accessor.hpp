// Typed, bounds-checked reading of glTF accessors (glTF 2.0 §3.6.2): byteStride, normalized
// integers, sparse substitution. The only place that turns buffer bytes into numbers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tiny_gltf.h>

namespace gltf_crowd::detail {

// The data URI rewrite_for_tinygltf gives a buffer without data (8 zero bytes): views into such a
// buffer read as zeros of the view's length, without allocating it (docs/spec.md §2.8).
inline constexpr const char* kPlaceholderBufferUri = "data:application/octet-stream;base64,AAAAAAAAAAA=";

// Most elements one accessor may declare (docs/spec.md §2: bad input never allocates without bound).
inline constexpr std::uint64_t kMaxAccessorCount = std::uint64_t{1} << 28;

// Bytes per component of a glTF componentType; 0 for unknown types (and for DOUBLE, which glTF
// 2.0 does not allow).
std::uint32_t component_size(int component_type) noexcept;
// Components per element of a tinygltf accessor type (SCALAR 1 .. MAT4 16); 0 when unknown.
std::uint32_t component_count(int type) noexcept;

// Byte layout of one accessor element (glTF 2.0 §3.6.2.4 "Data alignment"): each matrix column
// starts on a 4-byte boundary, so MAT2 of 1-byte and MAT3 of 1- or 2-byte components carry
// padding; other types are tightly packed.
struct ElementLayout {
  std::uint32_t rows = 1;          // components per column (= components for non-matrices)
  std::uint32_t column_bytes = 0;  // bytes from one column to the next, padding included
  std::uint64_t size = 0;          // bytes of one element, padding included
  std::uint64_t extent = 0;        // bytes read from one element: size less the last column's padding

  // Byte offset of component `c` inside an element.
  std::uint64_t offset(std::uint32_t c, std::uint32_t component_bytes) const noexcept {
    return std::uint64_t{c / rows} * column_bytes + std::uint64_t{c % rows} * component_bytes;
  }
};
// The layout of `components` components of `component_bytes` bytes; `matrix` for MAT2/3/4.
ElementLayout element_layout(std::uint32_t components, bool matrix, std::uint32_t component_bytes) noexcept;

// `count` elements of `element_size` bytes, `stride` apart (0 = tightly packed), starting at
// `byte_offset` inside a bufferView of `view_length` bytes.
struct ElementRange {
  std::uint64_t byte_offset = 0;
  std::uint64_t count = 0;
  std::uint64_t element_size = 0;
  std::uint64_t stride = 0;
  std::uint64_t view_length = 0;
  // Bytes the last element needs: element_size without trailing matrix-column padding, which
  // need not be in the view (0 = element_size).
  std::uint64_t last_element_size = 0;
};

// Throws Error(path, "accessor_stride") when a stride is below the element size and
// Error(path, "accessor_out_of_bounds") when the last element ends past the view; the arithmetic
// cannot overflow for any 64-bit inputs.
void check_element_range(const ElementRange& range, const std::string& path);

// An accessor decoded to floats.
struct DecodedAccessor {
  std::uint32_t count = 0;       // elements
  std::uint32_t components = 0;  // per element: 1 SCALAR .. 16 MAT4
  std::vector<float> floats;     // count * components; normalized ints mapped per §3.11
};

// Decodes accessors of one document, charging every decoded value against one budget, so that a
// small file cannot make the loader allocate without bound by declaring huge zero-filled
// accessors or by referencing one large accessor from thousands of places (docs/spec.md §2).
class AccessorReader {
 public:
  // `value_budget`: the most values (floats or uints) all reads together may produce.
  AccessorReader(const tinygltf::Model& model, std::uint64_t value_budget) noexcept
      : model_(model), budget_left_(value_budget) {}

  // Decodes accessor `index` to floats (integers converted; normalized ones mapped to [0,1] or
  // [-1,1]). `user` names the referencing property for errors ("meshes[0].primitives[1].POSITION").
  // Throws Error naming "accessors[i]" for a bad index, type, view range, stride or sparse entry,
  // and "accessor_budget" when the document has asked for too many values in total.
  DecodedAccessor read_floats(int index, const std::string& user);

  // Decodes an unsigned integer accessor (UNSIGNED_BYTE/SHORT/INT, not normalized) to uint32,
  // count * components values; `components` receives the per-element count when non-null.
  // Throws Error(…, "accessor_not_unsigned") for other types and the errors of read_floats.
  std::vector<std::uint32_t> read_uints(int index, const std::string& user, std::uint32_t* components = nullptr);

 private:
  const tinygltf::Accessor& checked_accessor(int index, const std::string& user);

  const tinygltf::Model& model_;
  std::uint64_t budget_left_;
};

}  // namespace gltf_crowd::detail
