// Layer 5, gl, shadows: the directional light's shadow map that CrowdRenderer::draw_depth fills
// and Camera::shadow hands to the shading (docs/spec.md §6), and a ground plane that receives
// it, as the tools' default look draws them. Frame:
//   const Camera light = shadow_map.fit(camera.light_direction, scene_min, scene_max);
//   shadow_map.begin();  renderer.draw_depth(crowd, light);  shadow_map.end();
//   camera.shadow = shadow_map.sampling();
//   target.clear(background);  ground.draw(camera, {});  renderer.draw(crowd, camera);
// Every call needs the context current at construction; failures throw Error as the renderers'.
#pragma once

#include <cstdint>
#include <memory>

#include <glm/glm.hpp>

#include "gltf_crowd/export.hpp"
#include "gltf_crowd/gl_renderers.hpp"

GLTF_CROWD_API_BEGIN
namespace gltf_crowd {

// Options of a ShadowMap. Default: 2048 × 2048 texels.
struct ShadowMapOptions {
  std::uint32_t size = 2048;  // texels per side, 1..GL_MAX_TEXTURE_SIZE (else Error "invalid_size")
};

// A square 24-bit depth texture with compare mode and linear filtering (hardware 2 × 2 PCF) and
// a framebuffer that draws into it. Needs OpenGL 3.3 core or ES 3.0 (else Error "gl_version").
class ShadowMap {
 public:
  explicit ShadowMap(const ShadowMapOptions& options = {});
  ~ShadowMap();
  ShadowMap(const ShadowMap&) = delete;
  ShadowMap& operator=(const ShadowMap&) = delete;

  // Aims the light: an orthographic camera looking along `light_direction` (world space, the
  // direction the light travels, need not be normalized; zero: straight down) whose view volume
  // just holds the world-space box [min, max] (what casts and receives shadows). Returns that
  // camera for draw_depth, and remembers it for sampling(). Errors, leaving the map as it was:
  // "not_finite" (the direction or a corner), "invalid_size" (min > max on some axis),
  // "destroyed".
  Camera fit(const glm::vec3& light_direction, const glm::vec3& min, const glm::vec3& max);

  // Binds the map's framebuffer and a size × size viewport, clears depth to 1 (depth writes
  // on), and turns polygon offset fill on (factor 2, units 4: slope-scaled bias against shadow
  // acne). Changes that GL state and leaves it changed; draw_depth calls follow.
  void begin() const;
  // Turns polygon offset fill off again. The framebuffer binding and viewport stay the map's:
  // bind the next target (Framebuffer::bind or clear).
  void end() const;

  // What Camera::shadow needs after the depth pass: the texture, its size, the light camera
  // of the last fit() and a normal offset of 1.5 texels in world units.
  ShadowSampling sampling() const noexcept;

  std::uint32_t size() const noexcept { return size_; }
  // Deletes the GL objects; idempotent. Later calls throw Error "destroyed".
  void destroy() noexcept;

  struct Objects;  // GL objects, private to the implementation

 private:
  std::unique_ptr<Objects> objects_;
  std::uint32_t size_ = 0;
  glm::mat4 view_projection_{1.0f};
  float texel_world_ = 0.0f;  // world units per texel of the last fit
};

// The ground plane's look. Default: a 20 × 20 square at the origin, mid grey.
struct GroundOptions {
  glm::vec3 center{0.0f};                      // world space; the plane is y = center.y
  float half_extent = 10.0f;                   // world units, > 0
  glm::vec4 color{0.35f, 0.36f, 0.38f, 1.0f};  // linear base color of a rough dielectric
};

// A horizontal square drawn with the reference path's program and the crowd's material and
// lighting code, so it is lit and receives Camera::shadow exactly as the actors do. Draws into
// the bound framebuffer and viewport with depth test GL_LESS and no culling; leaves the
// application's GL state as the renderers do ("GL state" in gltf_crowd/gl_renderers.hpp).
class GroundPlane {
 public:
  GroundPlane();  // needs OpenGL 3.3 core or ES 3.0 (else Error "gl_version")
  ~GroundPlane();
  GroundPlane(const GroundPlane&) = delete;
  GroundPlane& operator=(const GroundPlane&) = delete;

  // One draw call. Error "invalid_size" for a half extent that is not positive and finite.
  void draw(const Camera& camera, const GroundOptions& options = {});

  void destroy() noexcept;  // idempotent; a destroyed plane draws nothing

  struct State;  // GL objects, private to the implementation

 private:
  std::unique_ptr<State> state_;
};

}  // namespace gltf_crowd
GLTF_CROWD_API_END
