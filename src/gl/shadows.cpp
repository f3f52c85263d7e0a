// The directional light's shadow map and the ground plane that receives it (gltf_crowd/gl_shadows.hpp).
// The map is a 24-bit depth texture with compare mode, so each lookup is a hardware 2 × 2
// percentage-closer filter; the light camera is orthographic, fitted to a box in light space.
#include "gltf_crowd/gl_shadows.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>

#include "gl/gl_object.hpp"
#include "gl/material.hpp"
#include "gl/program.hpp"
#include "gl/primitive_upload.hpp"
#include "gl/reference_deform.hpp"
#include "gl/renderer_lifetime.hpp"
#include "gl/shaders.hpp"
#include "gl/state_cache.hpp"
#include "gl/state_guard.hpp"
#include "gltf_crowd/asset.hpp"

namespace gltf_crowd {

struct ShadowMap::Objects {
  gl::Object texture;
  gl::Object framebuffer;
  void* egl_context = nullptr;  // context current at creation, to skip deletes once it died

  template <class Fn>
  void for_each_object(Fn&& fn) {
    fn(texture);
    fn(framebuffer);
  }
};

ShadowMap::ShadowMap(const ShadowMapOptions& options) : size_(options.size) {
  gl::plain_dialect("ShadowMap");  // Error "gl_version" below OpenGL 3.3 / ES 3.0
  GLint max_size = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
  if (size_ == 0 || size_ > static_cast<std::uint32_t>(max_size))
    throw Error("ShadowMapOptions.size", Rule::invalid_size,
                fmt::format("{} is outside 1..{} (GL_MAX_TEXTURE_SIZE)", size_, max_size));
  GLint framebuffer = 0, texture = 0;
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &framebuffer);
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &texture);
  auto objects = std::make_unique<Objects>();
  objects->egl_context = gl::current_egl_context();
  try {
    objects->texture = gl::make_texture();
    glBindTexture(GL_TEXTURE_2D, objects->texture.name());
    const auto side = static_cast<GLsizei>(size_);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, side, side, 0, GL_DEPTH_COMPONENT, GL_UNSIGNED_INT, nullptr);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
    gl::check_gl("glTexImage2D(shadow map)");
    objects->framebuffer = gl::make_framebuffer();
    glBindFramebuffer(GL_FRAMEBUFFER, objects->framebuffer.name());
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, objects->texture.name(), 0);
    const GLenum none = GL_NONE;
    glDrawBuffers(1, &none);  // depth only: no color attachment to write or read
    glReadBuffer(GL_NONE);
    const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE)
      throw Error("ShadowMap", Rule::framebuffer_incomplete,
                  fmt::format("the depth-only framebuffer is incomplete (0x{:04X})", status));
    gl::check_gl("glFramebufferTexture2D(shadow map)");
  } catch (...) {
    glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(framebuffer));
    glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(texture));
    gl::release_objects(objects);
    throw;
  }
  glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(framebuffer));
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(texture));
  objects_ = std::move(objects);
}

ShadowMap::~ShadowMap() { destroy(); }

void ShadowMap::destroy() noexcept { gl::release_objects(objects_); }

Camera ShadowMap::fit(const glm::vec3& light_direction, const glm::vec3& min, const glm::vec3& max) {
  if (!objects_) throw Error("ShadowMap", Rule::destroyed, "the shadow map was destroyed");
  const auto finite = [](const glm::vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); };
  if (!finite(light_direction) || !finite(min) || !finite(max))
    throw Error("ShadowMap.fit", Rule::not_finite, "the light direction or the box is not finite");
  if (glm::any(glm::greaterThan(min, max)))
    throw Error("ShadowMap.fit", Rule::invalid_size,
                fmt::format("the box is empty: min ({}, {}, {}) exceeds max ({}, {}, {})", min.x, min.y, min.z, max.x,
                            max.y, max.z));
  const float length = glm::length(light_direction);
  const glm::vec3 direction = length > 0.0f ? light_direction / length : glm::vec3(0.0f, -1.0f, 0.0f);
  const glm::vec3 center = 0.5f * (min + max);
  const float radius = std::max(0.5f * glm::length(max - min), 1e-3f);
  // Any up vector not parallel to the light will do: the map is fitted to the box below.
  const glm::vec3 up = std::abs(direction.y) < 0.99f ? glm::vec3(0.0f, 1.0f, 0.0f) : glm::vec3(0.0f, 0.0f, 1.0f);
  Camera light;
  light.view = glm::lookAt(center - 2.0f * radius * direction, center, up);
  glm::vec3 low(std::numeric_limits<float>::max()), high(std::numeric_limits<float>::lowest());
  for (int corner = 0; corner < 8; ++corner) {
    const glm::vec3 p(corner & 1 ? max.x : min.x, corner & 2 ? max.y : min.y, corner & 4 ? max.z : min.z);
    const glm::vec3 q(light.view * glm::vec4(p, 1.0f));
    low = glm::min(low, q);
    high = glm::max(high, q);
  }
  // A margin of 2 % keeps the PCF footprint of the outermost casters inside the map.
  const glm::vec2 margin = 0.02f * glm::max(glm::vec2(high - low), glm::vec2(1e-3f));
  low -= glm::vec3(margin, 0.0f);
  high += glm::vec3(margin, 0.0f);
  const float depth_margin = 0.01f * radius + 1e-3f;
  light.projection = glm::ortho(low.x, high.x, low.y, high.y, -high.z - depth_margin, -low.z + depth_margin);
  light.light_direction = direction;
  view_projection_ = light.projection * light.view;
  texel_world_ = std::max(high.x - low.x, high.y - low.y) / static_cast<float>(size_);
  return light;
}

void ShadowMap::begin() const {
  if (!objects_) throw Error("ShadowMap", Rule::destroyed, "the shadow map was destroyed");
  glBindFramebuffer(GL_FRAMEBUFFER, objects_->framebuffer.name());
  glViewport(0, 0, static_cast<GLsizei>(size_), static_cast<GLsizei>(size_));
  glDepthMask(GL_TRUE);
  glDisable(GL_SCISSOR_TEST);
  glClear(GL_DEPTH_BUFFER_BIT);
  glEnable(GL_POLYGON_OFFSET_FILL);
  glPolygonOffset(2.0f, 4.0f);
  gl::check_gl("ShadowMap::begin");
}

void ShadowMap::end() const { glDisable(GL_POLYGON_OFFSET_FILL); }

ShadowSampling ShadowMap::sampling() const noexcept {
  if (!objects_) return {};
  return {.depth_texture = objects_->texture.name(),
          .size = size_,
          .view_projection = view_projection_,
          .normal_offset = 1.5f * texel_world_};
}

struct GroundPlane::State {
  void* egl_context = nullptr;  // context current at creation
  gl::Object program;
  GLint view_projection = -1;
  gl::MaterialUniforms material_uniforms;
  gl::Object vertices;
  gl::Object vertex_array;
  gl::MaterialTextures textures;  // none: the ground is untextured
  Asset material;                 // one double-sided material whose base color is the ground's
  gl::StateCache cache;

  template <class Fn>
  void for_each_object(Fn&& fn) {
    fn(program);
    fn(vertices);
    fn(vertex_array);
  }
};

GroundPlane::GroundPlane() {
  const gl::ShaderDialect dialect = gl::plain_dialect("GroundPlane");
  auto state = std::make_unique<State>();
  state->egl_context = gl::current_egl_context();
  const gl::StateGuard guard(false);
  try {
    state->program = gl::link_program("ground_program", gl::reference_vertex_source(dialect).c_str(),
                                      gl::fragment_source(dialect).c_str());
    state->view_projection = glGetUniformLocation(state->program.name(), "u_view_projection");
    state->material_uniforms = gl::find_material_uniforms(state->program.name());                // leaves it in use
    glUniform4f(glGetUniformLocation(state->program.name(), "u_tint"), 1.0f, 1.0f, 1.0f, 1.0f);  // untinted
    state->vertices = gl::make_dynamic_buffer(4 * sizeof(gl::DeformedVertex));
    state->vertex_array = gl::make_vertex_array();
    glBindVertexArray(state->vertex_array.name());
    glBindBuffer(GL_ARRAY_BUFFER, state->vertices.name());
    constexpr auto stride = static_cast<GLsizei>(sizeof(gl::DeformedVertex));
    gl::float_attribute(gl::attribute::position, 3, offsetof(gl::DeformedVertex, position), stride);
    gl::float_attribute(gl::attribute::normal, 3, offsetof(gl::DeformedVertex, normal), stride);
    gl::float_attribute(gl::attribute::tangent, 4, offsetof(gl::DeformedVertex, tangent), stride);
    glBindVertexArray(0);
    gl::check_gl("GroundPlane");
    Material ground;
    ground.double_sided = true;
    ground.metallic_factor = 0.0f;
    ground.roughness_factor = 0.9f;
    state->material.materials.push_back(ground);
  } catch (...) {
    gl::release_objects(state);
    throw;
  }
  state_ = std::move(state);
}

GroundPlane::~GroundPlane() { destroy(); }

void GroundPlane::destroy() noexcept { gl::release_objects(state_); }

void GroundPlane::draw(const Camera& camera, const GroundOptions& options) {
  if (!state_) return;
  if (!(options.half_extent > 0.0f) || !std::isfinite(options.half_extent))
    throw Error("GroundOptions.half_extent", Rule::invalid_size,
                fmt::format("{} is not a positive finite size", options.half_extent));
  State& state = *state_;
  const gl::StateGuard guard(false);
  const glm::vec3 c = options.center;
  const float e = options.half_extent;
  const glm::vec3 up(0.0f, 1.0f, 0.0f);
  const glm::vec4 tangent(1.0f, 0.0f, 0.0f, 1.0f);
  const gl::DeformedVertex quad[4] = {{c + glm::vec3(-e, 0, -e), up, tangent},
                                      {c + glm::vec3(-e, 0, e), up, tangent},
                                      {c + glm::vec3(e, 0, -e), up, tangent},
                                      {c + glm::vec3(e, 0, e), up, tangent}};
  state.material.materials[0].base_color_factor = options.color;
  gl::StateCache& cache = state.cache;
  cache.invalidate();
  cache.replace_vertices(state.vertices.name(), sizeof(quad), quad);
  cache.use_program(state.program.name());
  glUniformMatrix4fv(state.view_projection, 1, GL_FALSE, glm::value_ptr(camera.projection * camera.view));
  gl::set_lighting(cache, state.material_uniforms, camera);
  gl::begin_frame();
  cache.bind_vertex_array(state.vertex_array.name());
  gl::bind_material(cache, state.material_uniforms, state.textures, state.material, 0, false, false);
  gl::set_material_state(cache, state.material, 0);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  gl::check_gl("GroundPlane::draw");
}

}  // namespace gltf_crowd
