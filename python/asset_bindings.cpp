// The module's asset part (docs/spec.md §16): load_asset, load_asset_from_memory, the built-in
// character, and read-only views of an Asset's nodes, clips and bounds.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "bindings.hpp"
#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/bounds.hpp"
#include "gltf_crowd/default_character.hpp"

namespace gltf_crowd::python {
namespace {

// (x, y, z, w), glTF's order.
py::array_t<float> quat_to_numpy(const glm::quat& q) { return to_numpy(glm::vec4(q.x, q.y, q.z, q.w)); }

std::shared_ptr<Asset> default_character(std::uint32_t segments, std::uint32_t rings, std::uint32_t extra_spine_joints,
                                         std::uint32_t keys_per_second) {
  const std::vector<std::uint8_t> glb = default_character_glb({.segments = segments,
                                                               .rings = rings,
                                                               .extra_spine_joints = extra_spine_joints,
                                                               .keys_per_second = keys_per_second});
  return std::make_shared<Asset>(load_asset_from_memory(glb));
}

}  // namespace

void bind_asset(py::module_& m) {
  py::class_<Bounds>(m, "Bounds",
                     "An axis-aligned box in asset or world units (C++ gltf_crowd::Bounds); empty (min > max) until "
                     "a point is added.")
      .def(py::init([](const FloatArray& min, const FloatArray& max) {
             return Bounds{to_vec3(min, "Bounds.min"), to_vec3(max, "Bounds.max")};
           }),
           py::arg("min"), py::arg("max"), "The box from corner `min` to corner `max` (3 numbers each).")
      .def_property_readonly(
          "min", [](const Bounds& b) { return to_numpy(b.min); }, "The smallest corner, float32 (3,).")
      .def_property_readonly(
          "max", [](const Bounds& b) { return to_numpy(b.max); }, "The largest corner, float32 (3,).")
      .def("empty", &Bounds::empty, "True until a point is added (min > max).")
      .def(
          "center", [](const Bounds& b) { return to_numpy(b.center()); }, "(min + max) / 2.")
      .def(
          "size", [](const Bounds& b) { return to_numpy(b.size()); }, "max - min.")
      .def("__repr__", [](const Bounds& b) {
        return py::str("Bounds(min=({}, {}, {}), max=({}, {}, {}))")
            .format(b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z);
      });

  py::class_<Node>(m, "Node",
                   "One glTF node of an Asset (read-only; C++ gltf_crowd::Node). Index i is nodes[i] in the file.")
      .def_readonly("name", &Node::name, "The glTF name; '' when unnamed.")
      .def_readonly("parent", &Node::parent, "The parent node's index; -1 for roots and detached nodes.")
      .def_readonly("children", &Node::children, "The child nodes' indices, in file order.")
      .def_property_readonly(
          "translation", [](const Node& n) { return to_numpy(n.translation); }, "Rest translation, float32 (3,).")
      .def_property_readonly(
          "rotation", [](const Node& n) { return quat_to_numpy(n.rotation); }, "Rest rotation (x, y, z, w).")
      .def_property_readonly(
          "scale", [](const Node& n) { return to_numpy(n.scale); }, "Rest scale, float32 (3,).")
      .def_readonly("has_matrix", &Node::has_matrix, "True when the file's `matrix` is kept as such (not animated).")
      .def_property_readonly(
          "matrix", [](const Node& n) { return to_numpy(n.matrix); }, "The authored matrix (has_matrix), 4 x 4.")
      .def_readonly("mesh", &Node::mesh, "The mesh index; -1 for none.")
      .def_readonly("skin", &Node::skin, "The skin index; -1 for none.")
      .def_readonly("visible", &Node::visible, "KHR_node_visibility; True without the extension.");

  py::class_<Clip>(m, "Clip", "One glTF animation of an Asset (read-only; C++ gltf_crowd::Clip).")
      .def_readonly("name", &Clip::name, "The glTF name; '' when unnamed.")
      .def_readonly("duration_seconds", &Clip::duration_seconds, "The last key time over its samplers, seconds.");

  py::class_<Warning>(m, "Warning",
                      "A loading warning (docs/spec.md §2.8): the document loaded, and this says what was "
                      "ignored or assumed.")
      .def_readonly("path", &Warning::path, "JSON path of the object ('animations[0].channels[2]').")
      .def_readonly("rule", &Warning::rule, "The loading-policy rule ('channel_skipped').")
      .def_readonly("message", &Warning::message, "What was ignored or assumed.")
      .def("__repr__", [](const Warning& w) { return "<Warning " + w.path + " [" + w.rule + "] " + w.message + ">"; });

  py::class_<Asset, std::shared_ptr<Asset>>(
      m, "Asset",
      "An immutable, validated glTF 2.0 document (C++ gltf_crowd::Asset), shared by every crowd made from it. "
      "Indices are the file's: nodes[i] is the file's nodes[i].")
      .def_property_readonly(
          "source", [](const Asset& a) { return a.source; }, "The file it came from; empty for memory loads.")
      .def_readonly("nodes", &Asset::nodes, "Every node (list of Node), in file order.")
      .def_readonly("clips", &Asset::clips, "Every animation (list of Clip), in file order.")
      .def_readonly("material_variants", &Asset::material_variants,
                    "KHR_materials_variants names in file order; empty without the extension.")
      .def_readonly("scene_roots", &Asset::scene_roots, "The default scene's root nodes.")
      .def_readonly("drawn_nodes", &Asset::drawn_nodes, "The mesh nodes a crowd draws (docs/spec.md §2).")
      .def_readonly("warnings", &Asset::warnings, "Loading warnings (list of Warning); empty for a clean file.")
      .def("find_clip", &Asset::find_clip, py::arg("name"), "Index of the clip named `name`, or -1.")
      .def("find_node", &Asset::find_node, py::arg("name"),
           "The one node a name or path ('Arm/Hand') matches (docs/spec.md §2.3); -1 when none or several do.")
      .def("find_nodes", &Asset::find_nodes, py::arg("name"), "Every node a name or path matches, in index order.")
      .def("node_path", &Asset::node_path, py::arg("node"),
           "The shortest name or path find_node resolves to `node` alone; '' when none does.")
      .def(
          "local_matrix",
          [](const Asset& a, std::uint32_t node) {
            if (node >= a.nodes.size()) throw py::index_error("local_matrix: no node " + std::to_string(node));
            return to_numpy(a.local_matrix(node));
          },
          py::arg("node"), "The node's rest local transform (T x R x S, or its authored matrix), 4 x 4.")
      .def(
          "rest_bounds", [](const Asset& a) { return rest_bounds(a); },
          "Box of every drawn vertex at the rest pose, in asset space (empty when nothing is drawn).")
      .def(
          "animated_bounds",
          [](const Asset& a, std::optional<std::size_t> clip) {
            return clip ? animated_bounds(a, *clip) : animated_bounds(a);
          },
          py::arg("clip") = py::none(), py::call_guard<py::gil_scoped_release>(),
          "Box of every drawn vertex over clip `clip` (an index), or over every clip when None; errors: "
          "'unknown_clip'.");

  m.def(
      "load_asset",
      [](const std::filesystem::path& path, const std::filesystem::path& resource_root, bool allow_outside_resources) {
        return std::make_shared<Asset>(
            load_asset(path, {.resource_root = resource_root, .allow_outside_resources = allow_outside_resources}));
      },
      py::arg("path"), py::arg("resource_root") = std::filesystem::path(), py::arg("allow_outside_resources") = false,
      py::call_guard<py::gil_scoped_release>(),
      "Loads a .gltf or .glb file (C++ load_asset). External buffers and images are read only from "
      "`resource_root` (default: the file's folder) and below unless allow_outside_resources. Raises Error "
      "naming the JSON path and rule of what is wrong (a missing file: rule 'file_open', path the file).");
  m.def(
      "load_asset_from_memory",
      [](const py::buffer& data, const std::filesystem::path& base_dir) {
        const py::buffer_info info = data.request();
        const std::span<const std::uint8_t> bytes(static_cast<const std::uint8_t*>(info.ptr),
                                                  static_cast<std::size_t>(info.size * info.itemsize));
        py::gil_scoped_release release;
        return std::make_shared<Asset>(load_asset_from_memory(bytes, base_dir));
      },
      py::arg("data"), py::arg("base_dir") = std::filesystem::path(),
      "Loads a glTF or GLB document from bytes (any buffer: bytes, bytearray, a uint8 array). `base_dir` resolves "
      "relative URIs; empty allows only embedded data. Raises Error as load_asset.");
  m.def(
      "default_character_glb",
      [](std::uint32_t segments, std::uint32_t rings, std::uint32_t extra_spine_joints, std::uint32_t keys_per_second) {
        const std::vector<std::uint8_t> glb = default_character_glb({.segments = segments,
                                                                     .rings = rings,
                                                                     .extra_spine_joints = extra_spine_joints,
                                                                     .keys_per_second = keys_per_second});
        return py::bytes(reinterpret_cast<const char*>(glb.data()), glb.size());
      },
      py::arg("segments") = 8, py::arg("rings") = 4, py::arg("extra_spine_joints") = 0, py::arg("keys_per_second") = 15,
      "The built-in character (docs/spec.md §9) as GLB bytes: a skinned humanoid about 1.8 units tall with the "
      "clips Idle, Walking, Running, Wave and Dance. Deterministic; out-of-range values are clamped.");
  m.def("default_character", &default_character, py::arg("segments") = 8, py::arg("rings") = 4,
        py::arg("extra_spine_joints") = 0, py::arg("keys_per_second") = 15,
        "The built-in character loaded: load_asset_from_memory(default_character_glb(...)).");
}

}  // namespace gltf_crowd::python
