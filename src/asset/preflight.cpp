// Checks the raw JSON for everything tinygltf would trust, before it sees the bytes: the
// document's structure here (asset, extensions, meshes, nodes, scenes, skins, animations,
// materials, textures), its data in preflight_data.cpp, both through json_properties.hpp.
//
// Based on: glTF 2.0 §5 (properties reference: required properties, types and minimums), §3.12
// (extensionsRequired ⊆ extensionsUsed) and KHR_draco_mesh_compression (the primitive
// extension's schema). Every error names the JSON path of the property that breaks the rule.
#include <algorithm>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "asset/build.hpp"
#include "asset/checks.hpp"
#include "asset/json_properties.hpp"
#include "asset/preflight_data.hpp"

namespace gltf_crowd::detail {
namespace {

using nlohmann::json;

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

// Vertex attributes build_meshes decodes (docs/spec.md §2.2); others are ignored.
bool is_decoded_attribute(const std::string& name) {
  static constexpr std::string_view kDecoded[] = {"POSITION", "NORMAL",   "TANGENT",  "TEXCOORD_0", "TEXCOORD_1",
                                                  "COLOR_0",  "JOINTS_0", "JOINTS_1", "WEIGHTS_0",  "WEIGHTS_1"};
  return std::find(std::begin(kDecoded), std::end(kDecoded), name) != std::end(kDecoded);
}

class Preflight {
 public:
  Preflight(const json& doc, const PreflightInput& input) : doc_(doc), data_(doc, input, result_) {}

  PreflightResult run() {
    if (!doc_.is_object()) throw Error("document", Rule::not_object, "the root must be a JSON object");
    for (const char* name : kTopLevelArrays) {
      const json* arr = array_at(doc_, name, "", false, false);
      for (std::size_t i = 0; arr != nullptr && i < arr->size(); ++i)
        if (!(*arr)[i].is_object()) throw Error(fmt::format("{}[{}]", name, i), Rule::not_object, "must be an object");
    }
    check_asset();
    check_extensions();
    data_.check();
    check_meshes();
    check_nodes_and_scenes();
    check_skins();
    check_animations();
    check_materials_and_textures();
    return std::move(result_);
  }

 private:
  const json& items(const char* name) const { return detail::items(doc_, name); }
  Target target(const char* name, Rule rule, const char* what) const { return detail::target(doc_, name, rule, what); }
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
          data_.use_accessor(value, apath);
          if (!name.starts_with("_") && !is_decoded_attribute(name))
            result_.warnings.push_back(
                make_warning(apath, Rule::attribute_ignored,
                             fmt::format("{} is not used by the renderers and is not decoded", name)));
        }
        // Draco primitives' attributes and indices come from the compressed data (draco.cpp).
        check_draco(prim, ppath, *attributes);
        data_.use_accessor_at(prim, "indices", ppath, false);
        index_at(prim, "material", ppath, materials, false);
        if (const auto mode = uint_at(prim, "mode", ppath, false); mode && *mode > 6)
          throw Error(at(ppath, "mode"), Rule::primitive_mode, fmt::format("unknown mode {}", *mode));
        const json* targets = array_at(prim, "targets", ppath, false, false);
        for (std::size_t t = 0; targets != nullptr && t < targets->size(); ++t) {
          const std::string tpath = at(at(ppath, "targets"), t);
          if (!(*targets)[t].is_object()) throw Error(tpath, Rule::not_object, "must be an object");
          for (const auto& [name, value] : (*targets)[t].items()) data_.use_accessor(value, tpath + "." + name);
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
      data_.use_accessor_at(list[s], "inverseBindMatrices", path, false);
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
        data_.use_accessor_at((*samplers)[s], "input", spath, true);
        data_.use_accessor_at((*samplers)[s], "output", spath, true);
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
  PreflightResult result_;
  DataChecks data_;  // after result_, which it writes into
};

}  // namespace

PreflightResult preflight(const nlohmann::json& doc, const PreflightInput& input) {
  return Preflight(doc, input).run();
}

}  // namespace gltf_crowd::detail
