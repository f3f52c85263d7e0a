// The skinned-vertex cache (docs/spec.md §6.9, SkinnedVertexCache): each group's instances deformed
// once by transform feedback, in pieces that fit the storage limits, for the passes to read.
#include <algorithm>
#include <memory>
#include <string>

#include <epoxy/gl.h>
#include <fmt/format.h>

#include "gl/group_binding.hpp"
#include "gl/program.hpp"
#include "gl/renderer_steps.hpp"
#include "gl/shaders.hpp"

namespace gltf_crowd::gl {
namespace {

// Grows `out` to hold `instances` × `vertex_count` skinned vertices of group `group` in pieces,
// each its own buffer of at most GL_MAX_SHADER_STORAGE_BLOCK_SIZE bytes and under 2 GiB
// (storage path) or its own texture of at most gl::kSkinnedTextureSide² texels (texture path,
// with the buffer it is copied from): no binding, offset or transform feedback write past what
// one piece holds (llvmpipe crashed writing one buffer past 2 GiB). Whole pieces stay when the
// group grows. Throws Error "palette_too_large" naming the limit when one instance's vertices
// exceed a piece; `out` is unchanged then.
void reserve_skinned(const CrowdRenderer::State& state, gl::SkinnedVertexCache& c, gl::SkinnedVertices& out,
                     std::size_t instances, std::uint32_t vertex_count, std::size_t group) {
  if (instances == 0 || vertex_count == 0) return;
  if (vertex_count == out.vertex_count && instances <= out.capacity) return;
  constexpr std::size_t kRowBytes = 3 * sizeof(glm::vec4);
  constexpr std::size_t kMaxPieceBytes = 0x7FFFFFFF;
  const std::size_t instance_bytes = std::size_t{vertex_count} * kRowBytes;
  const bool buffers = state.storage == PaletteStorage::storage_buffer;
  const auto width = static_cast<std::size_t>(c.texture_width);  // also the most rows
  const std::size_t piece =
      buffers
          ? std::min(static_cast<std::size_t>(state.limits.max_storage_block_bytes), kMaxPieceBytes) / instance_bytes
          : width * width / (3 * vertex_count);
  if (piece == 0) {
    throw Error(fmt::format("CrowdRendererOptions.skinned_vertex_cache.groups[{}]", group), Rule::palette_too_large,
                buffers ? fmt::format("one instance's {} skinned vertices need {} bytes; "
                                      "GL_MAX_SHADER_STORAGE_BLOCK_SIZE is {}",
                                      vertex_count, instance_bytes, state.limits.max_storage_block_bytes)
                        : fmt::format("one instance's {} skinned vertices need {} texels; a texture holds {} × {}",
                                      vertex_count, 3 * std::size_t{vertex_count}, width, width));
  }
  const bool same = vertex_count == out.vertex_count;
  const std::size_t capacity = std::max(instances, same ? out.capacity + out.capacity / 2 : std::size_t{0});
  const std::size_t kept = same ? out.capacity / piece : 0;  // whole pieces keep their objects
  out.buffers.resize(kept);
  out.textures.resize(buffers ? 0 : kept);
  for (std::size_t first = kept * piece; first < capacity; first += piece) {
    const std::size_t n = std::min(piece, capacity - first);
    // The texture path's copy reads whole rows: up to one row past the last vertex.
    out.buffers.push_back(gl::make_dynamic_buffer(n * instance_bytes + (buffers ? 0 : width * sizeof(glm::vec4))));
    if (!buffers)
      out.textures.push_back(gl::make_data_texture(
          static_cast<std::uint32_t>(width), static_cast<std::uint32_t>((3 * n * vertex_count + width - 1) / width)));
  }
  if (!buffers) glBindTexture(GL_TEXTURE_2D, 0);
  out.vertex_count = vertex_count;
  out.capacity = capacity;
  out.piece = piece;
}

}  // namespace

std::unique_ptr<gl::SkinnedVertexCache> make_skinned_vertex_cache(const CrowdRenderer::State& state) {
  const bool buffers = state.storage == PaletteStorage::storage_buffer;
  const gl::ShaderDialect dialect = buffers ? gl::ShaderDialect::glsl430 : gl::plain_dialect("CrowdRenderer");
  auto c = std::make_unique<gl::SkinnedVertexCache>();
  const std::string vertex = gl::skin_vertex_source(dialect, buffers);
  const std::string fragment = gl::skin_fragment_source(dialect);
  c->capture.program = gl::link_program("crowd_skin_program", vertex.c_str(), fragment.c_str(), gl::skinned_outputs);
  c->capture.uniforms = find_uniforms(c->capture.program.name());
  if (!buffers) {
    glUseProgram(c->capture.program.name());
    set_data_units(c->capture.program.name());
  }
  c->feedback = gl::make_transform_feedback();
  c->programs[std::size_t(gl::ProgramKind::color)] = make_crowd_program(state, gl::ProgramKind::color, true);
  c->texture_width = std::min(state.limits.max_texture_size, gl::kSkinnedTextureSide);
  return c;
}

void refresh_skinned_vertices(CrowdRenderer::State& state, const Crowd& crowd, RenderStats& stats) {
  gl::SkinnedVertexCache& c = *state.skinned;
  const auto groups = crowd.primitive_groups();
  c.groups.resize(groups.size());
  // What a capture leaves in a group's rows: its primitive, or ~0u while it is empty (no rows:
  // when instances return it must be captured, though its slot list may come back unchanged and
  // upload nothing). A group that stays empty does not make the cache stale.
  const auto captured_primitive = [&](std::size_t i) {
    const std::uint32_t primitive = state.drawables[state.groups[i].drawable].primitive;
    return groups[i].instances.empty() || state.primitives[primitive].vertex_count == 0 ? ~0u : primitive;
  };
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const gl::SkinnedVertices& rows = c.groups[i];
    if (rows.primitive != captured_primitive(i) || rows.stream != groups[i].stream) c.stale = true;
  }
  if (!c.stale) return;
  gl::StateCache& cache = state.cache;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const gl::PrimitiveGpu& p = state.primitives[state.drawables[state.groups[i].drawable].primitive];
    reserve_skinned(state, c, c.groups[i], groups[i].instances.size(), p.vertex_count, i);
  }
  // make_dynamic_buffer left the last new buffer on GL_COPY_WRITE_BUFFER: not while transform
  // feedback writes it; make_data_texture bound (then unbound) a texture on the active unit.
  glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
  cache.forget_bindings();
  cache.use_program(c.capture.program.name());
  glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, c.feedback.name());
  const GLboolean discarding = glIsEnabled(GL_RASTERIZER_DISCARD);  // the application's, for the passes
  glEnable(GL_RASTERIZER_DISCARD);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const PrimitiveGroup& group = groups[i];
    const gl::DrawableGpu& d = state.drawables[state.groups[i].drawable];
    const gl::PrimitiveGpu& p = state.primitives[d.primitive];
    gl::SkinnedVertices& out = c.groups[i];
    out.primitive = captured_primitive(i);
    out.stream = group.stream;
    if (out.primitive == ~0u) continue;
    cache.bind_vertex_array(d.vertex_array.name());
    bind_group_data(
        state, group_sources(state, crowd, i), group.stream, c.capture.uniforms, nullptr, false,
        [&cache](GLuint binding, GLuint name) { cache.bind_storage(binding, name); },
        [&cache](GLint unit, GLuint name) { cache.bind_texture(unit, name); });
    const std::size_t instances = group.instances.size();
    for (std::size_t k = 0; k * out.piece < instances; ++k) {  // each piece into its buffer
      glUniform1ui(c.capture.uniforms.instance_offset, static_cast<GLuint>(k * out.piece));
      glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, out.buffers[k].name());
      glBeginTransformFeedback(GL_POINTS);
      glDrawArraysInstanced(GL_POINTS, 0, static_cast<GLsizei>(p.vertex_count),
                            static_cast<GLsizei>(std::min(out.piece, instances - k * out.piece)));
      glEndTransformFeedback();
    }
    stats.cached_vertices += std::uint64_t{p.vertex_count} * group.instances.size();
  }
  glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, 0);
  if (!discarding) glDisable(GL_RASTERIZER_DISCARD);
  glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, 0);
  gl::check_gl("glDrawArraysInstanced(skinned vertex capture)");
  if (state.storage == PaletteStorage::texture) {
    glActiveTexture(static_cast<GLenum>(GL_TEXTURE0 + gl::unit::skinned_vertices));
    const auto width = static_cast<std::size_t>(c.texture_width);
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const gl::SkinnedVertices& rows = c.groups[i];
      if (rows.primitive == ~0u) continue;  // empty: no rows
      const std::size_t instances = groups[i].instances.size();
      for (std::size_t k = 0; k * rows.piece < instances; ++k) {
        const std::size_t texels = 3 * std::min(rows.piece, instances - k * rows.piece) * rows.vertex_count;
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, rows.buffers[k].name());
        glBindTexture(GL_TEXTURE_2D, rows.textures[k].name());
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, c.texture_width, static_cast<GLsizei>((texels + width - 1) / width),
                        GL_RGBA, GL_FLOAT, nullptr);
      }
    }
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    cache.forget_bindings();
    gl::check_gl("glTexSubImage2D(skinned vertices)");
  }
  c.stale = false;
}

}  // namespace gltf_crowd::gl
