// What the context allows the crowd renderer: the palette storage a request resolves to, and how
// many actors a crowd's streams fit (crowd_capacity_limit, docs/spec.md §6.2).
#include <algorithm>
#include <string>

#include <epoxy/gl.h>
#include <fmt/format.h>

#include "gl/program.hpp"
#include "gl/renderer_steps.hpp"

namespace gltf_crowd {
namespace gl {

PaletteStorage choose_storage(PaletteStorage requested) {
  const bool desktop = epoxy_is_desktop_gl();
  const int version = epoxy_gl_version();
  const bool buffers = desktop && version >= 43;
  const std::string current = fmt::format("{} {}.{}", desktop ? "OpenGL" : "OpenGL ES", version / 10, version % 10);
  if (requested == PaletteStorage::storage_buffer && !buffers) {
    throw Error("CrowdRendererOptions.palette", Rule::gl_version,
                fmt::format("storage buffer palettes need desktop OpenGL 4.3; the current "
                            "context is {}",
                            current));
  }
  if (requested == PaletteStorage::storage_buffer || (requested == PaletteStorage::automatic && buffers)) {
    return PaletteStorage::storage_buffer;
  }
  gl::plain_dialect("CrowdRendererOptions.palette");  // throws below OpenGL 3.3 / ES 3.0
  return PaletteStorage::texture;
}

}  // namespace gl

const char* palette_storage_name(PaletteStorage storage) noexcept {
  switch (storage) {
    case PaletteStorage::automatic: return "auto";
    case PaletteStorage::storage_buffer: return "storage";
    case PaletteStorage::texture: return "texture";
  }
  return "auto";
}

CapacityLimit crowd_capacity_limit(const Crowd& crowd, PaletteStorage storage) {
  CapacityLimit result;
  result.storage = gl::choose_storage(storage);
  const auto streams = crowd.node_streams();
  if (result.storage == PaletteStorage::storage_buffer) {
    GLint64 block = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
    gl::check_gl("glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE)");
    result.limit = "GL_MAX_SHADER_STORAGE_BLOCK_SIZE";
    result.limit_value = static_cast<std::uint64_t>(block);
    result.per_actor = 3 * sizeof(glm::vec4);  // a transform: every stream has one
    for (std::size_t i = 0; i < streams.size(); ++i) {
      const NodeStream& s = streams[i];
      const std::uint64_t palette = s.palette_stream == i ? 3 * sizeof(glm::vec4) * s.joint_count : 0;
      result.per_actor = std::max({result.per_actor, palette, std::uint64_t{sizeof(float) * s.weight_stride}});
    }
    result.actors = static_cast<std::size_t>(result.limit_value / result.per_actor);
    return result;
  }
  GLint side = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &side);
  gl::check_gl("glGetIntegerv(GL_MAX_TEXTURE_SIZE)");
  result.limit = "GL_MAX_TEXTURE_SIZE";
  result.limit_value = static_cast<std::uint64_t>(side);
  result.per_actor = 1;
  result.actors = static_cast<std::size_t>(side);
  for (std::size_t i = 0; i < streams.size(); ++i) {
    const NodeStream& s = streams[i];
    const std::uint64_t palette_texels = s.palette_stream == i ? 3u * s.joint_count : 0u;
    if (palette_texels > result.limit_value || s.weight_stride / 4 > result.limit_value) result.actors = 0;
  }
  return result;
}

}  // namespace gltf_crowd
