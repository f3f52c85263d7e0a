// Meshes and primitives (glTF 2.0 §3.7.2): attributes decoded to float, indices range-checked,
// skin weights renormalized (docs/spec.md §2), morph targets (§3.7.2.2).
#include <cmath>

#include <fmt/format.h>

#include "asset/accessor.hpp"
#include "asset/build.hpp"
#include "asset/checks.hpp"

namespace gltf_crowd::detail {
namespace {

template <typename Vec>
std::vector<Vec> read_vectors(AccessorReader& accessors, int accessor, const std::string& path,
                              std::uint32_t components, std::size_t expected_count) {
  const DecodedAccessor data = accessors.read_floats(accessor, path);
  if (data.components != components && !(components == 4 && data.components == 3))
    throw Error(path, Rule::attribute_type, fmt::format("has {} components, expected {}", data.components, components));
  if (expected_count != 0 && data.count != expected_count)
    throw Error(path, Rule::attribute_count,
                fmt::format("count {} differs from POSITION count {}", data.count, expected_count));
  std::vector<Vec> out(data.count);
  for (std::size_t i = 0; i < data.count; ++i) {
    Vec v(1.0f);  // vec4 colours without alpha keep alpha 1
    for (std::uint32_t c = 0; c < data.components; ++c) {
      const float f = data.floats[i * data.components + c];
      if (!std::isfinite(f)) throw_not_finite(path, fmt::format("element {}", i));
      v[static_cast<int>(c)] = f;
    }
    out[i] = v;
  }
  return out;
}

std::vector<glm::u16vec4> read_joints(AccessorReader& accessors, int accessor, const std::string& path,
                                      std::size_t expected_count) {
  std::uint32_t components = 0;
  const std::vector<std::uint32_t> data = accessors.read_uints(accessor, path, &components);
  if (components != 4) throw Error(path, Rule::attribute_type, "JOINTS_n must be VEC4");
  if (data.size() / 4 != expected_count)
    throw Error(path, Rule::attribute_count,
                fmt::format("count {} differs from POSITION count {}", data.size() / 4, expected_count));
  // UNSIGNED_INT joints are not glTF; refuse values a 16-bit index would silently wrap.
  for (std::size_t i = 0; i < data.size(); ++i)
    if (data[i] > 0xFFFF)
      throw Error(path, Rule::joint_index, fmt::format("vertex {} uses joint {}, beyond any skin", i / 4, data[i]));
  std::vector<glm::u16vec4> out(expected_count);
  for (std::size_t i = 0; i < expected_count; ++i)
    out[i] = glm::u16vec4(data[i * 4], data[i * 4 + 1], data[i * 4 + 2], data[i * 4 + 3]);
  return out;
}

// Weights must sum to 1 (glTF 2.0 §3.7.3.1); exporters are often a little off, and a zero sum
// would collapse the vertex, so zero sums bind fully to the first joint.
void renormalize_weights(Primitive& prim) {
  for (std::size_t v = 0; v < prim.weights0.size(); ++v) {
    glm::vec4& w0 = prim.weights0[v];
    w0 = glm::max(w0, glm::vec4(0.0f));
    float sum = w0.x + w0.y + w0.z + w0.w;
    if (!prim.weights1.empty()) {
      prim.weights1[v] = glm::max(prim.weights1[v], glm::vec4(0.0f));
      const glm::vec4& w1 = prim.weights1[v];
      sum += w1.x + w1.y + w1.z + w1.w;
    }
    if (sum <= 0.0f) {
      w0 = glm::vec4(1.0f, 0.0f, 0.0f, 0.0f);
      continue;
    }
    if (std::abs(sum - 1.0f) > 1e-6f) {
      w0 /= sum;
      if (!prim.weights1.empty()) prim.weights1[v] /= sum;
    }
  }
}

void compute_bounds(Primitive& prim) {
  if (prim.positions.empty()) return;
  prim.min = prim.max = prim.positions[0];
  for (const glm::vec3& p : prim.positions) {
    prim.min = glm::min(prim.min, p);
    prim.max = glm::max(prim.max, p);
  }
}

// KHR_materials_variants on a primitive: {"mappings": [{"material": m, "variants": [v, ...]}, ...]}
// into prim.variant_materials (one material per variant of the asset). Every material and
// variant index must exist, and a variant may appear in one mapping only.
void build_variant_mappings(const tinygltf::Primitive& source, const std::string& path, const Asset& asset,
                            Primitive& prim) {
  const auto found = source.extensions.find("KHR_materials_variants");
  if (found == source.extensions.end()) return;
  const std::string ext_path = path + ".extensions.KHR_materials_variants";
  const tinygltf::Value& ext = found->second;
  if (!ext.IsObject() || !ext.Has("mappings") || !ext.Get("mappings").IsArray())
    throw Error(ext_path + ".mappings", Rule::material_variants, "must be an array of mappings");
  const tinygltf::Value& mappings = ext.Get("mappings");
  const std::size_t variant_count = asset.material_variants.size();
  prim.variant_materials.assign(variant_count, prim.material);
  std::vector<bool> mapped(variant_count, false);
  const auto integer = [](const tinygltf::Value& v, double& out) {
    if (!v.IsNumber()) return false;
    out = v.GetNumberAsDouble();
    return std::isfinite(out) && out == std::floor(out);
  };
  for (std::size_t i = 0; i < mappings.ArrayLen(); ++i) {
    const std::string mpath = fmt::format("{}.mappings[{}]", ext_path, i);
    const tinygltf::Value& mapping = mappings.Get(static_cast<int>(i));
    if (!mapping.IsObject()) throw Error(mpath, Rule::material_variants, "must be an object");
    double material = 0.0;
    if (!mapping.Has("material") || !integer(mapping.Get("material"), material))
      throw Error(mpath + ".material", Rule::material_variants, "must be an integer material index");
    if (material < 0.0 || material >= static_cast<double>(asset.materials.size()))
      throw Error(mpath + ".material", Rule::material_index,
                  fmt::format("material {} does not exist ({} materials)", material, asset.materials.size()));
    if (!mapping.Has("variants") || !mapping.Get("variants").IsArray() || mapping.Get("variants").ArrayLen() == 0)
      throw Error(mpath + ".variants", Rule::material_variants, "must be a non-empty array of variant indices");
    const tinygltf::Value& variants = mapping.Get("variants");
    for (std::size_t k = 0; k < variants.ArrayLen(); ++k) {
      const std::string vpath = fmt::format("{}.variants[{}]", mpath, k);
      double variant = 0.0;
      if (!integer(variants.Get(static_cast<int>(k)), variant))
        throw Error(vpath, Rule::material_variants, "must be an integer variant index");
      if (variant < 0.0 || variant >= static_cast<double>(variant_count))
        throw Error(vpath, Rule::variant_index,
                    fmt::format("variant {} does not exist ({} variants in extensions.KHR_materials_variants)", variant,
                                variant_count));
      const auto v = static_cast<std::size_t>(variant);
      if (mapped[v])
        throw Error(vpath, Rule::variant_index, fmt::format("variant {} is mapped twice for this primitive", v));
      mapped[v] = true;
      prim.variant_materials[v] = static_cast<std::int32_t>(material);
    }
  }
}

Primitive build_primitive(AccessorReader& accessors, const tinygltf::Primitive& source, const std::string& path,
                          std::size_t material_count, std::vector<Warning>& warnings) {
  Primitive prim;
  if (source.mode < 0 || source.mode > 6)
    throw Error(path + ".mode", Rule::primitive_mode, fmt::format("unknown mode {}", source.mode));
  prim.mode = static_cast<PrimitiveMode>(source.mode);
  if (source.material >= 0 && static_cast<std::size_t>(source.material) >= material_count)
    throw Error(path + ".material", Rule::material_index, fmt::format("material {} does not exist", source.material));
  prim.material = source.material < 0 ? -1 : source.material;
  const auto attribute = [&](const char* name) -> int {
    const auto it = source.attributes.find(name);
    return it == source.attributes.end() ? -1 : it->second;
  };
  const std::string attributes = path + ".attributes.";
  const int position = attribute("POSITION");
  if (position < 0) {
    // glTF 2.0 §3.7.2.1 leaves such a primitive's meaning to the engine (an extension may supply
    // positions); without them nothing can be drawn, so it stays in place, empty, keeping the
    // file's primitive indices. Morph targets keep their count so the mesh's weights still match.
    warnings.push_back(
        make_warning(path, Rule::primitive_without_position, "has no POSITION attribute and draws nothing"));
    prim.targets.resize(source.targets.size());
    return prim;
  }
  prim.positions = read_vectors<glm::vec3>(accessors, position, attributes + "POSITION", 3, 0);
  const std::size_t n = prim.positions.size();
  if (int a = attribute("NORMAL"); a >= 0)
    prim.normals = read_vectors<glm::vec3>(accessors, a, attributes + "NORMAL", 3, n);
  if (int a = attribute("TANGENT"); a >= 0)
    prim.tangents = read_vectors<glm::vec4>(accessors, a, attributes + "TANGENT", 4, n);
  if (int a = attribute("TEXCOORD_0"); a >= 0)
    prim.texcoords0 = read_vectors<glm::vec2>(accessors, a, attributes + "TEXCOORD_0", 2, n);
  if (int a = attribute("TEXCOORD_1"); a >= 0)
    prim.texcoords1 = read_vectors<glm::vec2>(accessors, a, attributes + "TEXCOORD_1", 2, n);
  if (int a = attribute("COLOR_0"); a >= 0)
    prim.colors0 = read_vectors<glm::vec4>(accessors, a, attributes + "COLOR_0", 4, n);
  if (int a = attribute("JOINTS_0"); a >= 0) prim.joints0 = read_joints(accessors, a, attributes + "JOINTS_0", n);
  if (int a = attribute("WEIGHTS_0"); a >= 0)
    prim.weights0 = read_vectors<glm::vec4>(accessors, a, attributes + "WEIGHTS_0", 4, n);
  if (int a = attribute("JOINTS_1"); a >= 0) prim.joints1 = read_joints(accessors, a, attributes + "JOINTS_1", n);
  if (int a = attribute("WEIGHTS_1"); a >= 0)
    prim.weights1 = read_vectors<glm::vec4>(accessors, a, attributes + "WEIGHTS_1", 4, n);
  if (prim.joints0.empty() != prim.weights0.empty())
    throw Error(attributes + (prim.joints0.empty() ? "WEIGHTS_0" : "JOINTS_0"), Rule::skin_attributes,
                "JOINTS_0 and WEIGHTS_0 must come together");
  if (prim.joints1.empty() != prim.weights1.empty() || (!prim.joints1.empty() && prim.joints0.empty()))
    throw Error(attributes + "JOINTS_1", Rule::skin_attributes, "JOINTS_1 and WEIGHTS_1 need each other and set 0");
  renormalize_weights(prim);
  if (source.indices >= 0) {
    std::uint32_t components = 0;
    prim.indices = accessors.read_uints(source.indices, path + ".indices", &components);
    if (components != 1)
      throw Error(fmt::format("accessors[{}].type", source.indices), Rule::indices_type, "indices must be SCALAR");
    for (std::size_t i = 0; i < prim.indices.size(); ++i)
      if (prim.indices[i] >= n)
        throw Error(fmt::format("accessors[{}]", source.indices), Rule::index_out_of_range,
                    fmt::format("{}: index {} at {} >= vertex count {}", path + ".indices", prim.indices[i], i, n));
  } else {
    prim.indices.resize(n);
    for (std::size_t i = 0; i < n; ++i) prim.indices[i] = static_cast<std::uint32_t>(i);
  }
  for (std::size_t t = 0; t < source.targets.size(); ++t) {
    MorphTarget target;
    const std::string target_path = fmt::format("{}.targets[{}].", path, t);
    for (const auto& [name, accessor] : source.targets[t]) {
      if (name == "POSITION")
        target.positions = read_vectors<glm::vec3>(accessors, accessor, target_path + name, 3, n);
      else if (name == "NORMAL")
        target.normals = read_vectors<glm::vec3>(accessors, accessor, target_path + name, 3, n);
      else if (name == "TANGENT")
        target.tangents = read_vectors<glm::vec3>(accessors, accessor, target_path + name, 3, n);
    }
    prim.targets.push_back(std::move(target));
  }
  compute_bounds(prim);
  return prim;
}

}  // namespace

void build_meshes(const tinygltf::Model& model, AccessorReader& accessors, Asset& asset) {
  asset.meshes.resize(model.meshes.size());
  for (std::size_t m = 0; m < model.meshes.size(); ++m) {
    const tinygltf::Mesh& source = model.meshes[m];
    Mesh& mesh = asset.meshes[m];
    const std::string path = fmt::format("meshes[{}]", m);
    mesh.name = source.name;
    if (source.primitives.empty()) throw Error(path + ".primitives", Rule::mesh_empty, "a mesh needs a primitive");
    for (std::size_t p = 0; p < source.primitives.size(); ++p) {
      const std::string primitive_path = fmt::format("{}.primitives[{}]", path, p);
      mesh.primitives.push_back(
          build_primitive(accessors, source.primitives[p], primitive_path, asset.materials.size(), asset.warnings));
      build_variant_mappings(source.primitives[p], primitive_path, asset, mesh.primitives[p]);
      if (mesh.primitives[p].targets.size() != mesh.primitives[0].targets.size())
        throw Error(fmt::format("{}.primitives[{}].targets", path, p), Rule::morph_target_count,
                    "all primitives of a mesh must have the same number of morph targets");
    }
    const std::size_t targets = mesh.primitives[0].targets.size();
    for (double w : source.weights) {
      if (!std::isfinite(w)) throw_not_finite(path + ".weights", "morph weight");
      mesh.weights.push_back(static_cast<float>(w));
    }
    if (!mesh.weights.empty() && mesh.weights.size() != targets)
      throw Error(path + ".weights", Rule::morph_weight_count,
                  fmt::format("{} weights for {} morph targets", mesh.weights.size(), targets));
    mesh.weights.resize(targets, 0.0f);
    if (source.extras.Has("targetNames")) {
      const tinygltf::Value& names = source.extras.Get("targetNames");
      for (std::size_t i = 0; names.IsArray() && i < names.ArrayLen(); ++i)
        if (names.Get(static_cast<int>(i)).IsString())
          mesh.target_names.push_back(names.Get(static_cast<int>(i)).Get<std::string>());
    }
  }
}

}  // namespace gltf_crowd::detail
