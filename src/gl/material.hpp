// Materials and lighting shared by CrowdRenderer and ReferenceRenderer (glTF 2.0 §3.8, §3.9):
// the material textures on the GPU, the fragment shader's uniforms, and the per-draw binding.
// Both renderers go through these functions, so their images differ only by vertex data.
#pragma once

#include <cstdint>
#include <vector>

#include "gl/gl_object.hpp"
#include "gl/state_cache.hpp"
#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/gl_renderers.hpp"

namespace gltf_crowd::gl {

// Locations of the fragment shader's uniforms (shaders.cpp, fragment_body).
struct MaterialUniforms {
  GLint base_color_factor = -1, metallic_factor = -1, roughness_factor = -1, emissive_factor = -1, normal_scale = -1,
        occlusion_strength = -1, base_color_uv = -1, metallic_roughness_uv = -1, normal_uv = -1, occlusion_uv = -1,
        emissive_uv = -1, base_color_uv_transform = -1, metallic_roughness_uv_transform = -1, normal_uv_transform = -1,
        occlusion_uv_transform = -1, emissive_uv_transform = -1, alpha_mode = -1, alpha_cutoff = -1, double_sided = -1,
        has_tangents = -1, instance_winding = -1, eye = -1, to_light = -1, light_color = -1, ambient_color = -1,
        shadowed = -1, shadow_matrix = -1, shadow_normal_offset = -1, shadow_texel = -1;
};

// Looks the uniforms up in `program` and points each material sampler at its texture unit
// (shaders.hpp). Uses the program (glUseProgram).
MaterialUniforms find_material_uniforms(GLuint program);

// Sets the viewer, light, ambient and shadow uniforms from `camera` (program in use) and binds
// its shadow map (or no texture) on unit::shadow_map.
void set_lighting(StateCache& cache, const MaterialUniforms& uniforms, const Camera& camera);

// One GL texture per (asset texture, color space) that some material uses: base color and
// emissive textures are sRGB (sampling returns linear values), the others linear. Mipmapped,
// with the glTF sampler's filters and wraps (defaults: linear, mipmapped, repeat). Textures
// whose image is missing or undecoded are left out and draw as untextured.
class MaterialTextures {
 public:
  MaterialTextures() = default;
  explicit MaterialTextures(const Asset& asset);

  // The GL name of texture `index` in the requested color space; 0 when absent.
  GLuint get(std::int32_t index, bool srgb) const noexcept;

  template <class Fn>
  void for_each_object(Fn&& fn) {
    for (auto& t : srgb_) fn(t);
    for (auto& t : linear_) fn(t);
  }

 private:
  std::vector<Object> srgb_;  // per Asset::textures; empty Object = not uploaded
  std::vector<Object> linear_;
};

// Sets the uniforms of `material` (-1 = the glTF default material) and binds its textures for
// one draw. `has_tangents`: the primitive has TANGENT; `instance_winding`: the fragment shader
// culls per instance (a group mixing mirrored and unmirrored instances).
void bind_material(StateCache& cache, const MaterialUniforms& uniforms, const MaterialTextures& textures,
                   const Asset& asset, std::int32_t material, bool has_tangents, bool instance_winding);

// Fixed-function state of `material` for one draw: culling (off when double-sided), blending
// and depth writes (BLEND: blended, no depth writes).
void set_material_state(StateCache& cache, const Asset& asset, std::int32_t material);

// True for alphaMode BLEND, which both renderers draw after every other group.
bool is_blended(const Asset& asset, std::int32_t material) noexcept;

// Context state both renderers need at the start of a frame: depth test and function, cull
// mode, blend function and equation, and the constant values of absent optional attributes.
void begin_frame();

// The constant values the optional attributes read when a primitive lacks them (they are
// context state, not vertex array state): tangent (1, 0, 0, 1), texture coordinates 0, color 1.
void set_absent_attribute_values();

}  // namespace gltf_crowd::gl
