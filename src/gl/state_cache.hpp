// The one door through which the renderers bind, upload and draw: it skips redundant binds
// within a frame and counts draws and uploaded bytes (the sokol_gfx model). Invalidate at
// the start of every frame, since the application may change GL state between frames.
#pragma once

#include <array>
#include <cstdint>

#include <epoxy/gl.h>

#include "gl/shaders.hpp"

namespace gltf_crowd::gl {

class StateCache {
 public:
  StateCache() noexcept { invalidate(); }

  // Forgets every cached binding and zeroes the counters.
  void invalidate() noexcept {
    forget_bindings();
    draws_ = 0;
    upload_bytes_ = 0;
  }
  // Forgets every cached binding (after GL calls that bypassed the cache), keeping the counters.
  void forget_bindings() noexcept {
    program_ = vertex_array_ = unknown;
    active_unit_ = -1;
    storage_.fill(unknown);
    textures_.fill(unknown);
    cull_ = blend_ = depth_mask_ = -1;
    front_face_ = 0;
  }

  void use_program(GLuint program) {
    if (program_ != program) glUseProgram(program_ = program);
  }
  void bind_vertex_array(GLuint vertex_array) {
    if (vertex_array_ != vertex_array) glBindVertexArray(vertex_array_ = vertex_array);
  }
  // Binds a storage buffer to `index` < binding::draw_count.
  void bind_storage(GLuint index, GLuint buffer) {
    if (storage_[index] != buffer) {
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, index, storage_[index] = buffer);
    }
  }
  // Binds a 2D texture to texture unit `texture_unit` < unit::count.
  void bind_texture(GLint texture_unit, GLuint texture) {
    auto& bound = textures_[static_cast<std::size_t>(texture_unit)];
    if (bound == texture) return;
    if (active_unit_ != texture_unit) glActiveTexture(GL_TEXTURE0 + (active_unit_ = texture_unit));
    glBindTexture(GL_TEXTURE_2D, bound = texture);
  }
  void set_cull(bool on) { toggle(GL_CULL_FACE, cull_, on); }
  void set_blend(bool on) { toggle(GL_BLEND, blend_, on); }
  void set_depth_mask(bool on) {
    if (depth_mask_ != static_cast<int>(on)) {
      glDepthMask(on ? GL_TRUE : GL_FALSE);
      depth_mask_ = static_cast<int>(on);
    }
  }
  void set_front_face(GLenum face) {
    if (front_face_ != face) glFrontFace(front_face_ = face);
  }

  // glBufferSubData through GL_COPY_WRITE_BUFFER so no binding the draws rely on is disturbed.
  void upload(GLuint buffer, GLsizeiptr bytes, const void* data, GLintptr offset = 0) {
    if (bytes <= 0) return;
    glBindBuffer(GL_COPY_WRITE_BUFFER, buffer);
    glBufferSubData(GL_COPY_WRITE_BUFFER, offset, bytes, data);
    upload_bytes_ += static_cast<std::uint64_t>(bytes);
  }
  // Replaces rows [first_row, first_row + height) of a data texture (RGBA32F, or R32UI with
  // `integer`) with `data` (those rows only), binding it to `texture_unit`, where draws read it.
  void upload_texture(GLint texture_unit, GLuint texture, GLsizei width, GLsizei height, bool integer, const void* data,
                      GLint first_row = 0) {
    if (width <= 0 || height <= 0) return;
    bind_texture(texture_unit, texture);
    // glTexSubImage2D writes the active unit's texture; bind_texture skips the switch when the
    // texture was already bound there (a second run of slots of the same array).
    if (active_unit_ != texture_unit) glActiveTexture(GL_TEXTURE0 + (active_unit_ = texture_unit));
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, first_row, width, height, integer ? GL_RED_INTEGER : GL_RGBA,
                    integer ? GL_UNSIGNED_INT : GL_FLOAT, data);
    upload_bytes_ += static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height) * (integer ? 4u : 16u);
  }
  // glBufferData of a whole dynamic vertex buffer (orphaning the previous contents, so the
  // driver need not wait for draws still reading them).
  void replace_vertices(GLuint buffer, GLsizeiptr bytes, const void* data) {
    glBindBuffer(GL_ARRAY_BUFFER, buffer);
    glBufferData(GL_ARRAY_BUFFER, bytes, data, GL_STREAM_DRAW);
    upload_bytes_ += static_cast<std::uint64_t>(bytes);
  }

  void draw_elements_instanced(GLenum mode, GLsizei index_count, GLsizei instances) {
    glDrawElementsInstanced(mode, index_count, GL_UNSIGNED_INT, nullptr, instances);
    ++draws_;
  }
  void draw_elements(GLenum mode, GLsizei index_count) {
    glDrawElements(mode, index_count, GL_UNSIGNED_INT, nullptr);
    ++draws_;
  }

  std::uint32_t draws() const noexcept { return draws_; }
  std::uint64_t upload_bytes() const noexcept { return upload_bytes_; }

 private:
  static constexpr GLuint unknown = 0xFFFFFFFFu;

  static void toggle(GLenum cap, int& cached, bool on) {
    if (cached != static_cast<int>(on)) {
      if (on)
        glEnable(cap);
      else
        glDisable(cap);
      cached = static_cast<int>(on);
    }
  }

  GLuint program_ = unknown;
  GLuint vertex_array_ = unknown;
  GLint active_unit_ = -1;
  std::array<GLuint, binding::draw_count> storage_{};
  std::array<GLuint, unit::count> textures_{};
  int cull_ = -1;
  int blend_ = -1;
  int depth_mask_ = -1;
  GLenum front_face_ = 0;
  std::uint32_t draws_ = 0;
  std::uint64_t upload_bytes_ = 0;
};

}  // namespace gltf_crowd::gl
