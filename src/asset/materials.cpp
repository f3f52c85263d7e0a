// Materials, textures, samplers and images (glTF 2.0 §3.8, §3.9; KHR_materials_emissive_strength,
// KHR_texture_transform), and the variant names of KHR_materials_variants (its primitive mappings
// are read with the primitives, mesh.cpp). Images arrive decoded to RGBA8 by the callback in images.cpp and are
// moved, not copied.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "asset/build.hpp"
#include "asset/checks.hpp"

namespace gltf_crowd::detail {
namespace {

// The finite number at `path`.
float transform_number(const tinygltf::Value& value, const std::string& path) {
  if (!value.IsNumber() || !std::isfinite(value.GetNumberAsDouble()))
    throw Error(path, Rule::texture_transform, "must be a finite number");
  return static_cast<float>(value.GetNumberAsDouble());
}

// The array of 2 finite numbers at `path`.
glm::vec2 transform_pair(const tinygltf::Value& value, const std::string& path) {
  if (!value.IsArray() || value.ArrayLen() != 2)
    throw Error(path, Rule::texture_transform, "must be an array of 2 numbers");
  return {transform_number(value.Get(0), path + "[0]"), transform_number(value.Get(1), path + "[1]")};
}

// KHR_texture_transform of one textureInfo into `ref`; its texCoord, when present, replaces
// `tex_coord` and `tex_coord_path` so that texture_ref checks whichever applies.
void texture_transform(const tinygltf::ExtensionMap& extensions, const std::string& path, TextureRef& ref,
                       int& tex_coord, std::string& tex_coord_path) {
  const auto found = extensions.find("KHR_texture_transform");
  if (found == extensions.end()) return;
  const std::string ext_path = path + ".extensions.KHR_texture_transform";
  const tinygltf::Value& ext = found->second;
  if (!ext.IsObject()) throw Error(ext_path, Rule::texture_transform, "must be an object");
  if (ext.Has("offset")) ref.offset = transform_pair(ext.Get("offset"), ext_path + ".offset");
  if (ext.Has("rotation")) ref.rotation = transform_number(ext.Get("rotation"), ext_path + ".rotation");
  if (ext.Has("scale")) ref.uv_scale = transform_pair(ext.Get("scale"), ext_path + ".scale");
  if (ext.Has("texCoord")) {
    tex_coord_path = ext_path + ".texCoord";
    const tinygltf::Value& value = ext.Get("texCoord");
    const double set = value.IsNumber() ? value.GetNumberAsDouble() : 0.5;
    if (!std::isfinite(set) || set != std::floor(set))
      throw Error(tex_coord_path, Rule::texture_transform, "must be an integer");
    // Clamped into int; anything beyond 1 fails texture_ref's check all the same.
    tex_coord = static_cast<int>(std::clamp(set, -1.0, static_cast<double>(std::numeric_limits<int>::max())));
  }
}

// The TextureRef of one textureInfo (TextureInfo, NormalTextureInfo or OcclusionTextureInfo);
// `scale` is the normal scale or occlusion strength. The one place that checks texCoord.
template <class Info>
TextureRef texture_ref(const Info& info, double scale, std::size_t texture_count, const std::string& path,
                       std::vector<Warning>& warnings) {
  TextureRef ref;
  const int index = info.index;
  if (index < 0) return ref;
  if (static_cast<std::size_t>(index) >= texture_count)
    throw Error(path + ".index", Rule::texture_index, fmt::format("texture {} does not exist", index));
  int tex_coord = info.texCoord;
  std::string tex_coord_path = path + ".texCoord";
  texture_transform(info.extensions, path, ref, tex_coord, tex_coord_path);
  if (tex_coord < 0) throw Error(tex_coord_path, Rule::tex_coord, fmt::format("texCoord {} is negative", tex_coord));
  // The renderers carry two UV sets; a texture on a later set is drawn as if absent rather than
  // with the wrong coordinates.
  if (tex_coord > 1) {
    warnings.push_back(
        make_warning(path, Rule::tex_coord_ignored,
                     fmt::format("{} selects TEXCOORD_{}; only TEXCOORD_0 and TEXCOORD_1 are drawn, so the texture "
                                 "is ignored",
                                 tex_coord_path, tex_coord)));
    return TextureRef{};
  }
  ref.texture = index;
  ref.tex_coord = static_cast<std::uint32_t>(tex_coord);
  ref.scale = static_cast<float>(scale);
  return ref;
}

// Factors are finite and non-negative (glTF 2.0 §5.19: each has minimum 0); `size` elements
// unless the property is absent (empty).
void check_factors(const std::vector<double>& values, std::size_t size, const std::string& path) {
  if (!values.empty() && values.size() != size)
    throw Error(path, Rule::material_factor, fmt::format("needs {} numbers, not {}", size, values.size()));
  for (double v : values)
    if (!std::isfinite(v) || v < 0.0) throw Error(path, Rule::material_factor, "must be finite and >= 0");
}

// KHR_materials_variants at the root: {"variants": [{"name": "..."}, ...]}, names unique.
void build_material_variants(const tinygltf::Model& model, Asset& asset) {
  const auto found = model.extensions.find("KHR_materials_variants");
  if (found == model.extensions.end()) return;
  const std::string path = "extensions.KHR_materials_variants";
  const tinygltf::Value& ext = found->second;
  if (!ext.IsObject()) throw Error(path, Rule::material_variants, "must be an object");
  if (!ext.Has("variants")) throw Error(path + ".variants", Rule::material_variants, "is required");
  const tinygltf::Value& variants = ext.Get("variants");
  if (!variants.IsArray() || variants.ArrayLen() == 0)
    throw Error(path + ".variants", Rule::material_variants, "must be a non-empty array");
  for (std::size_t i = 0; i < variants.ArrayLen(); ++i) {
    const std::string vpath = fmt::format("{}.variants[{}]", path, i);
    const tinygltf::Value& variant = variants.Get(static_cast<int>(i));
    if (!variant.IsObject() || !variant.Has("name") || !variant.Get("name").IsString())
      throw Error(vpath + ".name", Rule::material_variants, "every variant needs a string name");
    std::string name = variant.Get("name").Get<std::string>();
    if (asset.find_material_variant(name) >= 0)
      throw Error(vpath + ".name", Rule::material_variants, fmt::format("variant name \"{}\" appears twice", name));
    asset.material_variants.push_back(std::move(name));
  }
}

}  // namespace

void build_materials(tinygltf::Model& model, Asset& asset) {
  build_material_variants(model, asset);
  std::vector<bool> used(model.images.size(), false);
  for (const tinygltf::Texture& texture : model.textures)
    if (texture.source >= 0 && static_cast<std::size_t>(texture.source) < used.size())
      used[static_cast<std::size_t>(texture.source)] = true;
  for (std::size_t i = 0; i < model.images.size(); ++i) {
    tinygltf::Image& source = model.images[i];
    Image image;
    image.name = source.name;
    const std::string path = fmt::format("images[{}]", i);
    if (source.width <= 0 || source.height <= 0 || source.image.empty()) {
      // Images only an extension uses (KHR_texture_basisu, EXT_texture_webp) stay undecoded.
      if (used[i]) throw Error(path, Rule::image_decode, "the image could not be decoded (PNG or JPEG expected)");
      asset.images.push_back(std::move(image));
      continue;
    }
    if (source.component != 4 || source.bits != 8)
      throw Error(path, Rule::image_format,
                  fmt::format("{} components of {} bits, expected RGBA8", source.component, source.bits));
    image.width = static_cast<std::uint32_t>(source.width);
    image.height = static_cast<std::uint32_t>(source.height);
    if (source.image.size() != std::size_t{image.width} * image.height * 4)
      throw Error(path, Rule::image_size, "decoded size does not match width × height × 4");
    image.rgba = std::move(source.image);  // decoded once, by tinygltf's callback
    asset.images.push_back(std::move(image));
  }
  for (const tinygltf::Sampler& source : model.samplers) {
    Sampler sampler;
    if (source.magFilter >= 0) sampler.mag_filter = static_cast<std::uint32_t>(source.magFilter);
    if (source.minFilter >= 0) sampler.min_filter = static_cast<std::uint32_t>(source.minFilter);
    sampler.wrap_s = static_cast<std::uint32_t>(source.wrapS);
    sampler.wrap_t = static_cast<std::uint32_t>(source.wrapT);
    asset.samplers.push_back(sampler);
  }
  for (std::size_t i = 0; i < model.textures.size(); ++i) {
    const tinygltf::Texture& source = model.textures[i];
    const std::string path = fmt::format("textures[{}]", i);
    if (source.source >= 0 && static_cast<std::size_t>(source.source) >= asset.images.size())
      throw Error(path + ".source", Rule::image_index, fmt::format("image {} does not exist", source.source));
    if (source.sampler >= 0 && static_cast<std::size_t>(source.sampler) >= asset.samplers.size())
      throw Error(path + ".sampler", Rule::sampler_index, fmt::format("sampler {} does not exist", source.sampler));
    asset.textures.push_back({source.source < 0 ? -1 : source.source, source.sampler < 0 ? -1 : source.sampler});
  }
  const std::size_t textures = asset.textures.size();
  for (std::size_t i = 0; i < model.materials.size(); ++i) {
    const tinygltf::Material& source = model.materials[i];
    const std::string path = fmt::format("materials[{}]", i);
    Material m;
    m.name = source.name;
    const auto& pbr = source.pbrMetallicRoughness;
    check_factors(pbr.baseColorFactor, 4, path + ".pbrMetallicRoughness.baseColorFactor");
    check_factors({pbr.metallicFactor}, 1, path + ".pbrMetallicRoughness.metallicFactor");
    check_factors({pbr.roughnessFactor}, 1, path + ".pbrMetallicRoughness.roughnessFactor");
    check_factors(source.emissiveFactor, 3, path + ".emissiveFactor");
    check_factors({source.alphaCutoff}, 1, path + ".alphaCutoff");
    if (pbr.baseColorFactor.size() == 4)
      m.base_color_factor =
          glm::vec4(pbr.baseColorFactor[0], pbr.baseColorFactor[1], pbr.baseColorFactor[2], pbr.baseColorFactor[3]);
    m.base_color_texture = texture_ref(pbr.baseColorTexture, 1.0, textures,
                                       path + ".pbrMetallicRoughness.baseColorTexture", asset.warnings);
    m.metallic_factor = static_cast<float>(pbr.metallicFactor);
    m.roughness_factor = static_cast<float>(pbr.roughnessFactor);
    m.metallic_roughness_texture = texture_ref(pbr.metallicRoughnessTexture, 1.0, textures,
                                               path + ".pbrMetallicRoughness.metallicRoughnessTexture", asset.warnings);
    m.normal_texture = texture_ref(source.normalTexture, source.normalTexture.scale, textures, path + ".normalTexture",
                                   asset.warnings);
    m.occlusion_texture = texture_ref(source.occlusionTexture, source.occlusionTexture.strength, textures,
                                      path + ".occlusionTexture", asset.warnings);
    m.emissive_texture = texture_ref(source.emissiveTexture, 1.0, textures, path + ".emissiveTexture", asset.warnings);
    if (source.emissiveFactor.size() == 3)
      m.emissive_factor = glm::vec3(source.emissiveFactor[0], source.emissiveFactor[1], source.emissiveFactor[2]);
    if (const auto strength = source.extensions.find("KHR_materials_emissive_strength");
        strength != source.extensions.end() && strength->second.Has("emissiveStrength")) {
      const tinygltf::Value& value = strength->second.Get("emissiveStrength");
      const std::string strength_path = path + ".extensions.KHR_materials_emissive_strength.emissiveStrength";
      if (!value.IsNumber()) throw Error(strength_path, Rule::not_number, "must be a number");
      check_factors({value.GetNumberAsDouble()}, 1, strength_path);
      m.emissive_factor *= static_cast<float>(value.GetNumberAsDouble());
    }
    if (source.alphaMode == "MASK")
      m.alpha_mode = AlphaMode::mask;
    else if (source.alphaMode == "BLEND")
      m.alpha_mode = AlphaMode::blend;
    else if (!source.alphaMode.empty() && source.alphaMode != "OPAQUE")
      throw Error(path + ".alphaMode", Rule::alpha_mode, fmt::format("unknown \"{}\"", source.alphaMode));
    m.alpha_cutoff = static_cast<float>(source.alphaCutoff);
    m.double_sided = source.doubleSided;
    asset.materials.push_back(m);
  }
}

}  // namespace gltf_crowd::detail
