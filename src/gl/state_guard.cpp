#include "gl/state_guard.hpp"

namespace gltf_crowd::gl {
namespace {

GLint integer(GLenum pname) {
  GLint value = 0;
  glGetIntegerv(pname, &value);
  return value;
}

void set_enabled(GLenum cap, GLboolean on) {
  if (on)
    glEnable(cap);
  else
    glDisable(cap);
}

void set_pixel_store(GLenum pname, GLint saved, GLint wanted) {
  if (saved != wanted) glPixelStorei(pname, wanted);
}

// Shader storage buffers exist on desktop OpenGL 4.3 and OpenGL ES 3.1: elsewhere their bindings
// cannot even be queried (GL_INVALID_ENUM), e.g. when a crowd with Animation::gpu meets an ES
// 3.0 context and the call is about to throw gl_version.
bool has_storage_buffers() {
  const int version = epoxy_gl_version();
  return epoxy_is_desktop_gl() ? version >= 43 : version >= 31;
}

// A saved binding whose object was deleted meanwhile binds 0 instead: the application may have
// had the renderer's own objects bound (CrowdRenderer::bind_group_inputs leaves them), which the
// call replaced when the crowd grew, and binding a deleted name is GL_INVALID_OPERATION.
GLuint live_buffer(GLint name) {
  return name != 0 && glIsBuffer(static_cast<GLuint>(name)) ? static_cast<GLuint>(name) : 0;
}
GLuint live_texture(GLint name) {
  return name != 0 && glIsTexture(static_cast<GLuint>(name)) ? static_cast<GLuint>(name) : 0;
}

}  // namespace

StateGuard::StateGuard(bool storage_buffers, bool compute, bool transform_feedback)
    : storage_buffers_((storage_buffers || compute) && has_storage_buffers()),
      transform_feedback_(transform_feedback),
      saved_bindings_(!storage_buffers_ ? 0
                      : compute         ? binding::compute_count
                                        : binding::count) {
  if (transform_feedback_) {
    feedback_object_ = integer(GL_TRANSFORM_FEEDBACK_BINDING);
    feedback_buffer_ = integer(GL_TRANSFORM_FEEDBACK_BUFFER_BINDING);
    rasterizer_discard_ = glIsEnabled(GL_RASTERIZER_DISCARD);
  }
  program_ = integer(GL_CURRENT_PROGRAM);
  vertex_array_ = integer(GL_VERTEX_ARRAY_BINDING);
  array_buffer_ = integer(GL_ARRAY_BUFFER_BINDING);
  copy_write_buffer_ = integer(GL_COPY_WRITE_BUFFER_BINDING);
  if (storage_buffers_) {
    storage_buffer_ = integer(GL_SHADER_STORAGE_BUFFER_BINDING);
    for (GLuint i = 0; i < saved_bindings_; ++i) {
      IndexedBinding& b = storage_bindings_[i];
      glGetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, i, &b.buffer);
      glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_START, i, &b.start);
      glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_SIZE, i, &b.size);
    }
  }
  unpack_buffer_ = integer(GL_PIXEL_UNPACK_BUFFER_BINDING);
  unpack_alignment_ = integer(GL_UNPACK_ALIGNMENT);
  unpack_row_length_ = integer(GL_UNPACK_ROW_LENGTH);
  unpack_skip_rows_ = integer(GL_UNPACK_SKIP_ROWS);
  unpack_skip_pixels_ = integer(GL_UNPACK_SKIP_PIXELS);
  active_texture_ = integer(GL_ACTIVE_TEXTURE);
  for (GLint u = 0; u < unit::count; ++u) {
    glActiveTexture(static_cast<GLenum>(GL_TEXTURE0 + u));
    textures_[static_cast<std::size_t>(u)] = integer(GL_TEXTURE_BINDING_2D);
    samplers_[static_cast<std::size_t>(u)] = integer(GL_SAMPLER_BINDING);
  }
  glGetBooleanv(GL_COLOR_WRITEMASK, color_mask_.data());
  depth_test_ = glIsEnabled(GL_DEPTH_TEST);
  glGetBooleanv(GL_DEPTH_WRITEMASK, &depth_mask_);
  depth_func_ = integer(GL_DEPTH_FUNC);
  cull_ = glIsEnabled(GL_CULL_FACE);
  cull_mode_ = integer(GL_CULL_FACE_MODE);
  front_face_ = integer(GL_FRONT_FACE);
  blend_ = glIsEnabled(GL_BLEND);
  blend_src_rgb_ = integer(GL_BLEND_SRC_RGB);
  blend_dst_rgb_ = integer(GL_BLEND_DST_RGB);
  blend_src_alpha_ = integer(GL_BLEND_SRC_ALPHA);
  blend_dst_alpha_ = integer(GL_BLEND_DST_ALPHA);
  blend_equation_rgb_ = integer(GL_BLEND_EQUATION_RGB);
  blend_equation_alpha_ = integer(GL_BLEND_EQUATION_ALPHA);
  for (std::size_t i = 0; i < kConstantAttributes.size(); ++i)
    glGetVertexAttribfv(kConstantAttributes[i], GL_CURRENT_VERTEX_ATTRIB, attributes_[i].data());

  // What the guarded call relies on. Texture unit 0 is active (the loop above left the last
  // one), so objects created outside the renderers' state cache land on a saved unit.
  glActiveTexture(GL_TEXTURE0);
  if (unpack_buffer_ != 0) glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  set_pixel_store(GL_UNPACK_ALIGNMENT, unpack_alignment_, 4);
  set_pixel_store(GL_UNPACK_ROW_LENGTH, unpack_row_length_, 0);
  set_pixel_store(GL_UNPACK_SKIP_ROWS, unpack_skip_rows_, 0);
  set_pixel_store(GL_UNPACK_SKIP_PIXELS, unpack_skip_pixels_, 0);
  for (GLuint u = 0; u < static_cast<GLuint>(unit::count); ++u)
    if (samplers_[u] != 0) glBindSampler(u, 0);
}

StateGuard::~StateGuard() {
  if (transform_feedback_) {
    const auto object = static_cast<GLuint>(feedback_object_);
    glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, object != 0 && glIsTransformFeedback(object) ? object : 0);
    glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, live_buffer(feedback_buffer_));
    set_enabled(GL_RASTERIZER_DISCARD, rasterizer_discard_);
  }
  glUseProgram(static_cast<GLuint>(program_));
  const auto vertex_array = static_cast<GLuint>(vertex_array_);
  glBindVertexArray(vertex_array != 0 && glIsVertexArray(vertex_array) ? vertex_array : 0);  // with its element buffer
  if (storage_buffers_) {
    for (GLuint i = 0; i < saved_bindings_; ++i) {
      const IndexedBinding& b = storage_bindings_[i];
      const GLuint buffer = live_buffer(b.buffer);
      if (b.size == 0 || buffer == 0) {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, i, buffer);
      } else {
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, i, buffer, static_cast<GLintptr>(b.start),
                          static_cast<GLsizeiptr>(b.size));
      }
    }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, live_buffer(storage_buffer_));  // the indexed binds moved it
  }
  glBindBuffer(GL_ARRAY_BUFFER, live_buffer(array_buffer_));
  glBindBuffer(GL_COPY_WRITE_BUFFER, live_buffer(copy_write_buffer_));
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, live_buffer(unpack_buffer_));
  glPixelStorei(GL_UNPACK_ALIGNMENT, unpack_alignment_);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, unpack_row_length_);
  glPixelStorei(GL_UNPACK_SKIP_ROWS, unpack_skip_rows_);
  glPixelStorei(GL_UNPACK_SKIP_PIXELS, unpack_skip_pixels_);
  for (GLint u = 0; u < unit::count; ++u) {
    glActiveTexture(static_cast<GLenum>(GL_TEXTURE0 + u));
    glBindTexture(GL_TEXTURE_2D, live_texture(textures_[static_cast<std::size_t>(u)]));
    glBindSampler(static_cast<GLuint>(u), static_cast<GLuint>(samplers_[static_cast<std::size_t>(u)]));
  }
  glActiveTexture(static_cast<GLenum>(active_texture_));
  glColorMask(color_mask_[0], color_mask_[1], color_mask_[2], color_mask_[3]);
  set_enabled(GL_DEPTH_TEST, depth_test_);
  glDepthMask(depth_mask_);
  glDepthFunc(static_cast<GLenum>(depth_func_));
  set_enabled(GL_CULL_FACE, cull_);
  glCullFace(static_cast<GLenum>(cull_mode_));
  glFrontFace(static_cast<GLenum>(front_face_));
  set_enabled(GL_BLEND, blend_);
  glBlendFuncSeparate(static_cast<GLenum>(blend_src_rgb_), static_cast<GLenum>(blend_dst_rgb_),
                      static_cast<GLenum>(blend_src_alpha_), static_cast<GLenum>(blend_dst_alpha_));
  glBlendEquationSeparate(static_cast<GLenum>(blend_equation_rgb_), static_cast<GLenum>(blend_equation_alpha_));
  for (std::size_t i = 0; i < kConstantAttributes.size(); ++i)
    glVertexAttrib4fv(kConstantAttributes[i], attributes_[i].data());
}

}  // namespace gltf_crowd::gl
