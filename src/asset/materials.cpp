// Materials, textures, samplers and images (glTF 2.0 §3.8, §3.9). Images are decoded once by
// tinygltf (stb_image) and kept as RGBA8.
#include <fmt/format.h>

#include "asset/build.hpp"

namespace gltf_crowd::detail {
namespace {

TextureRef texture_ref(int index, int tex_coord, double scale, std::size_t texture_count, const std::string& path) {
  TextureRef ref;
  if (index < 0) return ref;
  if (static_cast<std::size_t>(index) >= texture_count)
    throw Error(path + ".index", "texture_index", fmt::format("texture {} does not exist", index));
  if (tex_coord < 0 || tex_coord > 1)
    throw Error(path + ".texCoord", "tex_coord", fmt::format("TEXCOORD_{} is not supported (0 or 1)", tex_coord));
  ref.texture = index;
  ref.tex_coord = static_cast<std::uint32_t>(tex_coord);
  ref.scale = static_cast<float>(scale);
  return ref;
}

}  // namespace

void build_materials(const tinygltf::Model& model, Asset& asset) {
  for (std::size_t i = 0; i < model.images.size(); ++i) {
    const tinygltf::Image& source = model.images[i];
    Image image;
    image.name = source.name;
    const std::string path = fmt::format("images[{}]", i);
    if (source.width <= 0 || source.height <= 0 || source.image.empty())
      throw Error(path, "image_decode", "the image could not be decoded");
    if (source.component != 4 || source.bits != 8)
      throw Error(path, "image_format", fmt::format("{} components of {} bits, expected RGBA8", source.component, source.bits));
    image.width = static_cast<std::uint32_t>(source.width);
    image.height = static_cast<std::uint32_t>(source.height);
    if (source.image.size() != std::size_t{image.width} * image.height * 4)
      throw Error(path, "image_size", "decoded size does not match width × height × 4");
    image.rgba = source.image;
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
      throw Error(path + ".source", "image_index", fmt::format("image {} does not exist", source.source));
    if (source.sampler >= 0 && static_cast<std::size_t>(source.sampler) >= asset.samplers.size())
      throw Error(path + ".sampler", "sampler_index", fmt::format("sampler {} does not exist", source.sampler));
    asset.textures.push_back({source.source < 0 ? -1 : source.source, source.sampler < 0 ? -1 : source.sampler});
  }
  const std::size_t textures = asset.textures.size();
  for (std::size_t i = 0; i < model.materials.size(); ++i) {
    const tinygltf::Material& source = model.materials[i];
    const std::string path = fmt::format("materials[{}]", i);
    Material m;
    m.name = source.name;
    const auto& pbr = source.pbrMetallicRoughness;
    if (pbr.baseColorFactor.size() == 4)
      m.base_color_factor = glm::vec4(pbr.baseColorFactor[0], pbr.baseColorFactor[1], pbr.baseColorFactor[2],
                                      pbr.baseColorFactor[3]);
    m.base_color_texture = texture_ref(pbr.baseColorTexture.index, pbr.baseColorTexture.texCoord, 1.0, textures,
                                       path + ".pbrMetallicRoughness.baseColorTexture");
    m.metallic_factor = static_cast<float>(pbr.metallicFactor);
    m.roughness_factor = static_cast<float>(pbr.roughnessFactor);
    m.metallic_roughness_texture = texture_ref(pbr.metallicRoughnessTexture.index, pbr.metallicRoughnessTexture.texCoord,
                                               1.0, textures, path + ".pbrMetallicRoughness.metallicRoughnessTexture");
    m.normal_texture = texture_ref(source.normalTexture.index, source.normalTexture.texCoord, source.normalTexture.scale,
                                   textures, path + ".normalTexture");
    m.occlusion_texture = texture_ref(source.occlusionTexture.index, source.occlusionTexture.texCoord,
                                      source.occlusionTexture.strength, textures, path + ".occlusionTexture");
    m.emissive_texture = texture_ref(source.emissiveTexture.index, source.emissiveTexture.texCoord, 1.0, textures,
                                     path + ".emissiveTexture");
    if (source.emissiveFactor.size() == 3)
      m.emissive_factor = glm::vec3(source.emissiveFactor[0], source.emissiveFactor[1], source.emissiveFactor[2]);
    if (source.alphaMode == "MASK") m.alpha_mode = AlphaMode::mask;
    else if (source.alphaMode == "BLEND") m.alpha_mode = AlphaMode::blend;
    else if (!source.alphaMode.empty() && source.alphaMode != "OPAQUE")
      throw Error(path + ".alphaMode", "alpha_mode", fmt::format("unknown \"{}\"", source.alphaMode));
    m.alpha_cutoff = static_cast<float>(source.alphaCutoff);
    m.double_sided = source.doubleSided;
    asset.materials.push_back(m);
  }
}

}  // namespace gltf_crowd::detail
