// Material textures, uniforms and fixed-function state. Based on: glTF 2.0 §3.8 (textures,
// samplers: filters and wraps), §3.9 (metallic-roughness materials, alpha modes, double-sided);
// KHR_texture_transform (offset, rotation, scale of texture coordinates).
#include "gl/material.hpp"

#include <cmath>

#include <glm/gtc/type_ptr.hpp>

#include "gl/shaders.hpp"

namespace gltf_crowd::gl {
namespace {

GLint gl_filter(std::uint32_t filter, bool allow_mipmaps) {
  switch (filter) {
    case GL_NEAREST:
    case GL_LINEAR: return static_cast<GLint>(filter);
    case GL_NEAREST_MIPMAP_NEAREST:
    case GL_LINEAR_MIPMAP_NEAREST:
    case GL_NEAREST_MIPMAP_LINEAR:
    case GL_LINEAR_MIPMAP_LINEAR: return allow_mipmaps ? static_cast<GLint>(filter) : GL_LINEAR;
    default: return allow_mipmaps ? GL_LINEAR_MIPMAP_LINEAR : GL_LINEAR;
  }
}

GLint gl_wrap(std::uint32_t wrap) {
  return wrap == GL_CLAMP_TO_EDGE || wrap == GL_MIRRORED_REPEAT ? static_cast<GLint>(wrap) : GL_REPEAT;
}

const Material& material_of(const Asset& asset, std::int32_t material) {
  static const Material default_material{};  // glTF 2.0 §3.9.6 defaults
  return material >= 0 && static_cast<std::size_t>(material) < asset.materials.size()
             ? asset.materials[static_cast<std::size_t>(material)]
             : default_material;
}

Object upload_texture(const Asset& asset, const Texture& texture, bool srgb) {
  if (texture.image < 0 || static_cast<std::size_t>(texture.image) >= asset.images.size()) return {};
  const Image& image = asset.images[static_cast<std::size_t>(texture.image)];
  if (image.width == 0 || image.height == 0 || image.rgba.size() != std::size_t{image.width} * image.height * 4) {
    return {};
  }
  const Sampler sampler = texture.sampler >= 0 && static_cast<std::size_t>(texture.sampler) < asset.samplers.size()
                              ? asset.samplers[static_cast<std::size_t>(texture.sampler)]
                              : Sampler{};
  Object object = make_texture();
  glBindTexture(GL_TEXTURE_2D, object.name());
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, srgb ? GL_SRGB8_ALPHA8 : GL_RGBA8, static_cast<GLsizei>(image.width),
               static_cast<GLsizei>(image.height), 0, GL_RGBA, GL_UNSIGNED_BYTE, image.rgba.data());
  check_gl("glTexImage2D");
  glGenerateMipmap(GL_TEXTURE_2D);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, gl_filter(sampler.min_filter, true));
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, gl_filter(sampler.mag_filter, false));
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, gl_wrap(sampler.wrap_s));
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, gl_wrap(sampler.wrap_t));
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  check_gl("glTexParameteri");
  return object;
}

// KHR_texture_transform as the affine map T · R · S of a texture coordinate (asset.hpp,
// TextureRef): three columns, the last one the offset, for a GLSL mat3x2.
glm::mat3x2 uv_transform(const TextureRef& ref) {
  const float c = std::cos(ref.rotation), s = std::sin(ref.rotation);
  return {glm::vec2(c, -s) * ref.uv_scale.x, glm::vec2(s, c) * ref.uv_scale.y, ref.offset};
}

// The texture set of a material texture, or -1 when it has none that can be sampled.
GLint texcoord_set(const TextureRef& ref, GLuint texture) {
  return ref.texture >= 0 && texture != 0 ? static_cast<GLint>(ref.tex_coord) : -1;
}

}  // namespace

MaterialTextures::MaterialTextures(const Asset& asset) : srgb_(asset.textures.size()), linear_(asset.textures.size()) {
  auto need = [&](const TextureRef& ref, bool srgb) {
    if (ref.texture < 0 || static_cast<std::size_t>(ref.texture) >= asset.textures.size()) return;
    auto& slot = (srgb ? srgb_ : linear_)[static_cast<std::size_t>(ref.texture)];
    if (!slot) slot = upload_texture(asset, asset.textures[static_cast<std::size_t>(ref.texture)], srgb);
  };
  for (const Material& m : asset.materials) {
    need(m.base_color_texture, true);
    need(m.emissive_texture, true);
    need(m.metallic_roughness_texture, false);
    need(m.normal_texture, false);
    need(m.occlusion_texture, false);
  }
  glBindTexture(GL_TEXTURE_2D, 0);
}

GLuint MaterialTextures::get(std::int32_t index, bool srgb) const noexcept {
  const auto& set = srgb ? srgb_ : linear_;
  if (index < 0 || static_cast<std::size_t>(index) >= set.size()) return 0;
  return set[static_cast<std::size_t>(index)].name();
}

MaterialUniforms find_material_uniforms(GLuint program) {
  auto at = [program](const char* name) { return glGetUniformLocation(program, name); };
  MaterialUniforms u;
  u.base_color_factor = at("u_base_color_factor");
  u.metallic_factor = at("u_metallic_factor");
  u.roughness_factor = at("u_roughness_factor");
  u.emissive_factor = at("u_emissive_factor");
  u.normal_scale = at("u_normal_scale");
  u.occlusion_strength = at("u_occlusion_strength");
  u.base_color_uv = at("u_base_color_uv");
  u.metallic_roughness_uv = at("u_metallic_roughness_uv");
  u.normal_uv = at("u_normal_uv");
  u.occlusion_uv = at("u_occlusion_uv");
  u.emissive_uv = at("u_emissive_uv");
  u.base_color_uv_transform = at("u_base_color_uv_transform");
  u.metallic_roughness_uv_transform = at("u_metallic_roughness_uv_transform");
  u.normal_uv_transform = at("u_normal_uv_transform");
  u.occlusion_uv_transform = at("u_occlusion_uv_transform");
  u.emissive_uv_transform = at("u_emissive_uv_transform");
  u.alpha_mode = at("u_alpha_mode");
  u.alpha_cutoff = at("u_alpha_cutoff");
  u.double_sided = at("u_double_sided");
  u.has_tangents = at("u_has_tangents");
  u.instance_winding = at("u_instance_winding");
  u.eye = at("u_eye");
  u.to_light = at("u_to_light");
  u.light_color = at("u_light_color");
  u.ambient_color = at("u_ambient_color");
  u.shadowed = at("u_shadowed");
  u.shadow_matrix = at("u_shadow_matrix");
  u.shadow_normal_offset = at("u_shadow_normal_offset");
  u.shadow_texel = at("u_shadow_texel");
  glUseProgram(program);
  glUniform1i(at("u_shadow_map"), unit::shadow_map);
  glUniform1i(at("u_base_color_texture"), unit::base_color);
  glUniform1i(at("u_metallic_roughness_texture"), unit::metallic_roughness);
  glUniform1i(at("u_normal_texture"), unit::normal);
  glUniform1i(at("u_occlusion_texture"), unit::occlusion);
  glUniform1i(at("u_emissive_texture"), unit::emissive);
  check_gl("glUniform1i(material samplers)");
  return u;
}

void set_lighting(StateCache& cache, const MaterialUniforms& u, const Camera& camera) {
  const glm::mat4 camera_world = glm::inverse(camera.view);
  // Perspective: the viewer is the view's origin; orthographic: it is infinitely far along +z.
  const glm::vec4 eye = camera.projection[3][3] == 0.0f ? glm::vec4(glm::vec3(camera_world[3]), 1.0f)
                                                        : glm::vec4(glm::normalize(glm::vec3(camera_world[2])), 0.0f);
  glUniform4fv(u.eye, 1, glm::value_ptr(eye));
  const float light_length = glm::length(camera.light_direction);
  const glm::vec3 to_light = light_length > 0.0f ? -camera.light_direction / light_length : glm::vec3(0.0f, 1.0f, 0.0f);
  glUniform3fv(u.to_light, 1, glm::value_ptr(to_light));
  glUniform3fv(u.light_color, 1, glm::value_ptr(camera.light_color));
  glUniform3fv(u.ambient_color, 1, glm::value_ptr(camera.ambient_color));
  const ShadowSampling& shadow = camera.shadow;
  const bool shadowed = shadow.depth_texture != 0 && shadow.size > 0;
  glUniform1i(u.shadowed, shadowed ? 1 : 0);
  cache.bind_texture(unit::shadow_map, shadowed ? shadow.depth_texture : 0);
  if (!shadowed) return;
  // Clip space [-1, 1]³ to texture coordinates and depth in [0, 1].
  const glm::mat4 to_texture(glm::vec4(0.5f, 0, 0, 0), glm::vec4(0, 0.5f, 0, 0), glm::vec4(0, 0, 0.5f, 0),
                             glm::vec4(0.5f, 0.5f, 0.5f, 1.0f));
  glUniformMatrix4fv(u.shadow_matrix, 1, GL_FALSE, glm::value_ptr(to_texture * shadow.view_projection));
  glUniform1f(u.shadow_normal_offset, shadow.normal_offset);
  glUniform1f(u.shadow_texel, 1.0f / static_cast<float>(shadow.size));
}

void bind_material(StateCache& cache, const MaterialUniforms& u, const MaterialTextures& textures, const Asset& asset,
                   std::int32_t material, bool has_tangents, bool instance_winding) {
  const Material& m = material_of(asset, material);
  struct Slot {
    const TextureRef& ref;
    bool srgb;
    GLint unit;
    GLint uv_location;
    GLint transform_location;
  };
  const Slot slots[] = {{m.base_color_texture, true, unit::base_color, u.base_color_uv, u.base_color_uv_transform},
                        {m.metallic_roughness_texture, false, unit::metallic_roughness, u.metallic_roughness_uv,
                         u.metallic_roughness_uv_transform},
                        {m.normal_texture, false, unit::normal, u.normal_uv, u.normal_uv_transform},
                        {m.occlusion_texture, false, unit::occlusion, u.occlusion_uv, u.occlusion_uv_transform},
                        {m.emissive_texture, true, unit::emissive, u.emissive_uv, u.emissive_uv_transform}};
  for (const Slot& slot : slots) {
    const GLuint texture = textures.get(slot.ref.texture, slot.srgb);
    const GLint set = texcoord_set(slot.ref, texture);
    glUniform1i(slot.uv_location, set);
    if (set >= 0) {
      cache.bind_texture(slot.unit, texture);
      const glm::mat3x2 transform = uv_transform(slot.ref);
      glUniformMatrix3x2fv(slot.transform_location, 1, GL_FALSE, glm::value_ptr(transform));
    }
  }
  glUniform4fv(u.base_color_factor, 1, glm::value_ptr(m.base_color_factor));
  glUniform1f(u.metallic_factor, m.metallic_factor);
  glUniform1f(u.roughness_factor, m.roughness_factor);
  glUniform3fv(u.emissive_factor, 1, glm::value_ptr(m.emissive_factor));
  glUniform1f(u.normal_scale, m.normal_texture.scale);
  glUniform1f(u.occlusion_strength, m.occlusion_texture.scale);
  glUniform1i(u.alpha_mode, static_cast<GLint>(m.alpha_mode));
  glUniform1f(u.alpha_cutoff, m.alpha_cutoff);
  glUniform1i(u.double_sided, m.double_sided ? 1 : 0);
  glUniform1i(u.has_tangents, has_tangents ? 1 : 0);
  glUniform1i(u.instance_winding, instance_winding ? 1 : 0);
}

void set_material_state(StateCache& cache, const Asset& asset, std::int32_t material) {
  const Material& m = material_of(asset, material);
  const bool blend = m.alpha_mode == AlphaMode::blend;
  cache.set_cull(!m.double_sided);
  cache.set_blend(blend);
  cache.set_depth_mask(!blend);
}

bool is_blended(const Asset& asset, std::int32_t material) noexcept {
  return material >= 0 && static_cast<std::size_t>(material) < asset.materials.size() &&
         asset.materials[static_cast<std::size_t>(material)].alpha_mode == AlphaMode::blend;
}

void begin_frame() {
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glCullFace(GL_BACK);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glBlendEquation(GL_FUNC_ADD);
  set_absent_attribute_values();
}

void set_absent_attribute_values() {
  glVertexAttrib4f(attribute::tangent, 1.0f, 0.0f, 0.0f, 1.0f);
  glVertexAttrib2f(attribute::texcoord0, 0.0f, 0.0f);
  glVertexAttrib2f(attribute::texcoord1, 0.0f, 0.0f);
  glVertexAttrib4f(attribute::color, 1.0f, 1.0f, 1.0f, 1.0f);
}

}  // namespace gltf_crowd::gl
