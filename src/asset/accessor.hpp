// Typed, bounds-checked reading of glTF accessors (glTF 2.0 §3.6.2): byteStride, normalized
// integers, sparse substitution. The only place that turns buffer bytes into numbers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tiny_gltf.h>

namespace gltf_crowd::detail {

// An accessor decoded to one of two plain forms.
struct DecodedAccessor {
  std::uint32_t count = 0;       // elements
  std::uint32_t components = 0;  // per element: 1 SCALAR .. 16 MAT4
  std::vector<float> floats;     // count * components; normalized ints mapped per §3.11
};

// Decodes accessor `index` to floats (integers converted; normalized ones mapped to [0,1] or
// [-1,1]). `user` names the referencing property for errors ("meshes[0].primitives[1].POSITION").
// Throws Error naming "accessors[i]" for any out-of-range index, view, offset, stride or sparse
// entry, with overflow-safe size arithmetic.
DecodedAccessor read_floats(const tinygltf::Model& model, int index, const std::string& user);

// Decodes an integer accessor (UNSIGNED_BYTE/SHORT/INT) to uint32 values, count * components.
// Throws Error for float accessors and the errors of read_floats.
std::vector<std::uint32_t> read_uints(const tinygltf::Model& model, int index,
                                      const std::string& user, std::uint32_t* components = nullptr);

}  // namespace gltf_crowd::detail
