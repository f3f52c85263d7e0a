// The GL state contract of the renderers (gl.hpp, "GL state"): what a constructor or draw
// changes is saved first and restored when the guard goes out of scope, also when the call
// throws. One guard per call, not per group: about 70 glGet* queries, a few microseconds.
#pragma once

#include <array>

#include <epoxy/gl.h>

#include "gl/shaders.hpp"

namespace gltf_crowd::gl {

class StateGuard {
 public:
  // Saves the state; with `storage_buffers` also the generic and indexed shader storage buffer
  // bindings 0..binding::count-1 (desktop OpenGL 4.3 only). Then puts the state that uploads
  // and data-texture reads depend on at GL's defaults for the guarded call: no pixel unpack
  // buffer, unpack alignment 4 and no row length or skips, no sampler objects on units
  // 0..unit::count-1, texture unit 0 active. With `compute` (the GPU evaluator runs), the
  // bindings 0..binding::compute_count-1 are saved, storage buffers or not. Storage bindings are
  // saved only where the context has storage buffers (desktop 4.3, ES 3.1). On restore, a saved
  // binding of an object deleted meanwhile binds 0. With `transform_feedback` (the skinned-vertex
  // cache is refreshed), also the bound transform feedback object, the generic
  // GL_TRANSFORM_FEEDBACK_BUFFER binding and GL_RASTERIZER_DISCARD.
  explicit StateGuard(bool storage_buffers, bool compute = false, bool transform_feedback = false);
  ~StateGuard();
  StateGuard(const StateGuard&) = delete;
  StateGuard& operator=(const StateGuard&) = delete;

 private:
  // An indexed buffer binding: glBindBufferBase when size is 0, else glBindBufferRange.
  struct IndexedBinding {
    GLint buffer = 0;
    GLint64 start = 0, size = 0;
  };
  // Generic current values of the attributes a renderer sets when a primitive lacks them.
  static constexpr std::array<GLuint, 4> kConstantAttributes = {attribute::tangent, attribute::texcoord0,
                                                                attribute::texcoord1, attribute::color};

  bool storage_buffers_;
  bool transform_feedback_;
  GLint feedback_object_ = 0, feedback_buffer_ = 0;
  GLboolean rasterizer_discard_ = GL_FALSE;
  GLuint saved_bindings_ = 0;
  GLint program_ = 0, vertex_array_ = 0, array_buffer_ = 0, copy_write_buffer_ = 0;
  GLint storage_buffer_ = 0;
  std::array<IndexedBinding, binding::compute_count> storage_bindings_{};
  GLint unpack_buffer_ = 0, unpack_alignment_ = 4, unpack_row_length_ = 0, unpack_skip_rows_ = 0,
        unpack_skip_pixels_ = 0;
  GLint active_texture_ = GL_TEXTURE0;
  std::array<GLint, unit::count> textures_{}, samplers_{};
  std::array<GLboolean, 4> color_mask_{GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE};
  GLboolean depth_test_ = GL_FALSE, depth_mask_ = GL_TRUE, cull_ = GL_FALSE, blend_ = GL_FALSE;
  GLint depth_func_ = GL_LESS, cull_mode_ = GL_BACK, front_face_ = GL_CCW;
  GLint blend_src_rgb_ = GL_ONE, blend_dst_rgb_ = GL_ZERO, blend_src_alpha_ = GL_ONE, blend_dst_alpha_ = GL_ZERO;
  GLint blend_equation_rgb_ = GL_FUNC_ADD, blend_equation_alpha_ = GL_FUNC_ADD;
  std::array<std::array<GLfloat, 4>, kConstantAttributes.size()> attributes_{};
};

}  // namespace gltf_crowd::gl
