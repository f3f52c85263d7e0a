// What the gltf_crowd Python module's parts share (docs/spec.md §16): the binders each part
// defines and the conversions between glm values and NumPy arrays. Matrices cross as 4 × 4
// float32 arrays in mathematical layout (row r, column c; translation in [:3, 3]), which is glm's
// m[c][r]; vectors as float32 arrays of their length.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include <glm/glm.hpp>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace gltf_crowd::python {

namespace py = pybind11;

// A float32 array that converts from any array-like of numbers (lists, tuples, float64 arrays).
using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;
// An image: height × width × 4 uint8 (RGBA, the top row first), converted to C order but never
// from another type.
using ImageArray = py::array_t<std::uint8_t, py::array::c_style>;

// Each part of the module: classes and functions added to `m`, in this order (a part may use
// the classes of the parts before it in its signatures).
void bind_asset(py::module_& m);
void bind_crowd(py::module_& m);
void bind_render(py::module_& m);
void bind_video(py::module_& m);

// `matrix` as a new 4 × 4 float32 array.
py::array_t<float> to_numpy(const glm::mat4& matrix);
// A float32 array of the vector's length.
py::array_t<float> to_numpy(const glm::vec3& v);
py::array_t<float> to_numpy(const glm::vec4& v);
// A 4 × 4 array-like as a glm matrix; ValueError naming `argument` for another shape.
glm::mat4 to_mat4(const FloatArray& array, const std::string& argument);
// An array-like of 3 (4) numbers; ValueError naming `argument` for another shape.
glm::vec3 to_vec3(const FloatArray& array, const std::string& argument);
glm::vec4 to_vec4(const FloatArray& array, const std::string& argument);
// (width, height) of an image array; ValueError naming `argument` unless it is H × W × 4, H and W >= 1.
std::pair<std::uint32_t, std::uint32_t> image_size(const ImageArray& image, const std::string& argument);

}  // namespace gltf_crowd::python
