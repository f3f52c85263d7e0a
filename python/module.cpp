// The gltf_crowd Python module (docs/spec.md §16): the module, its Error exception and the glm ↔
// NumPy conversions every part uses. The parts: asset_bindings.cpp (loading), crowd_bindings.cpp
// (crowds and actors), render_bindings.cpp (headless rendering, PNG), video_bindings.cpp (video).
#include <exception>

#include <fmt/format.h>

#include "gltf_crowd/error.hpp"
#include "gltf_crowd/version.hpp"
#include "bindings.hpp"

namespace gltf_crowd::python {
namespace {

// Throws ValueError unless `array` has exactly `shape`.
void require_shape(const FloatArray& array, std::initializer_list<py::ssize_t> shape, const std::string& argument) {
  bool same = array.ndim() == static_cast<py::ssize_t>(shape.size());
  for (std::size_t i = 0; same && i < shape.size(); ++i)
    same = array.shape(static_cast<py::ssize_t>(i)) == shape.begin()[i];
  if (same) return;
  std::string got;
  for (py::ssize_t i = 0; i < array.ndim(); ++i) got += fmt::format("{}{}", i == 0 ? "" : " x ", array.shape(i));
  std::string want;
  for (const py::ssize_t n : shape) want += fmt::format("{}{}", want.empty() ? "" : " x ", n);
  throw py::value_error(
      fmt::format("{}: an array of shape {} was expected, not {}", argument, want, got.empty() ? "a scalar" : got));
}

}  // namespace

py::array_t<float> to_numpy(const glm::mat4& matrix) {
  py::array_t<float> out({4, 4});
  auto view = out.mutable_unchecked<2>();
  for (glm::length_t row = 0; row < 4; ++row)
    for (glm::length_t column = 0; column < 4; ++column) view(row, column) = matrix[column][row];
  return out;
}

py::array_t<float> to_numpy(const glm::vec3& v) {
  py::array_t<float> out(3);
  for (py::ssize_t i = 0; i < 3; ++i) out.mutable_at(i) = v[static_cast<glm::length_t>(i)];
  return out;
}

py::array_t<float> to_numpy(const glm::vec4& v) {
  py::array_t<float> out(4);
  for (py::ssize_t i = 0; i < 4; ++i) out.mutable_at(i) = v[static_cast<glm::length_t>(i)];
  return out;
}

glm::mat4 to_mat4(const FloatArray& array, const std::string& argument) {
  require_shape(array, {4, 4}, argument);
  glm::mat4 matrix;
  auto view = array.unchecked<2>();
  for (glm::length_t row = 0; row < 4; ++row)
    for (glm::length_t column = 0; column < 4; ++column) matrix[column][row] = view(row, column);
  return matrix;
}

glm::vec3 to_vec3(const FloatArray& array, const std::string& argument) {
  require_shape(array, {3}, argument);
  return {array.at(0), array.at(1), array.at(2)};
}

glm::vec4 to_vec4(const FloatArray& array, const std::string& argument) {
  require_shape(array, {4}, argument);
  return {array.at(0), array.at(1), array.at(2), array.at(3)};
}

std::pair<std::uint32_t, std::uint32_t> image_size(const ImageArray& image, const std::string& argument) {
  if (image.ndim() != 3 || image.shape(2) != 4 || image.shape(0) < 1 || image.shape(1) < 1 || image.shape(0) > 65535 ||
      image.shape(1) > 65535)
    throw py::value_error(argument + ": an image of shape (height, width, 4), uint8 RGBA, was expected");
  return {static_cast<std::uint32_t>(image.shape(1)), static_cast<std::uint32_t>(image.shape(0))};
}

}  // namespace gltf_crowd::python

PYBIND11_MODULE(gltf_crowd, m) {
  namespace py = pybind11;
  using namespace gltf_crowd::python;
  m.doc() =
      "Crowds of independently animated glTF 2.0 characters, drawn headless with one instanced draw per mesh "
      "primitive (docs/spec.md §16). Load an asset, build a Crowd, add and control actors, update, read poses "
      "back as NumPy arrays, render to an H x W x 4 uint8 array, write PNG or video. Matrices are 4 x 4 float32 "
      "arrays (translation in [:3, 3]); rotations are quaternions (x, y, z, w) as in glTF. Errors raise "
      "gltf_crowd.Error with the library's path and rule.";
  m.attr("__version__") = gltf_crowd::version_string;

  // gltf_crowd::Error as a Python exception with its path and rule (docs/spec.md §16).
  static py::exception<gltf_crowd::Error> error(m, "Error", PyExc_RuntimeError);
  error.doc() =
      "A library error (C++ gltf_crowd::Error): str(e) is '<path>: <message>'; e.path names the offending object "
      "by JSON path ('accessors[12]') or API argument ('select_clip.name'), e.rule is the broken rule's stable "
      "identifier ('unknown_clip'), as in gltf_crowd/rules.hpp.";
  error.attr("path") = "";
  error.attr("rule") = "";
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const gltf_crowd::Error& e) {
      py::object instance = py::handle(error.ptr())(py::str(e.what()));
      instance.attr("path") = e.path();
      instance.attr("rule") = e.rule();
      PyErr_SetObject(error.ptr(), instance.ptr());
    }
  });

  bind_asset(m);
  bind_crowd(m);
  bind_render(m);
  bind_video(m);
}
