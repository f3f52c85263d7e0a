// Move-only owners of GL names, counted process-wide so tests can prove every object created
// by the backend is deleted again (docs/spec.md §5 "destroy()"), plus GL error checking helpers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include <epoxy/gl.h>

namespace gltf_crowd::gl {

// The glGen*/glCreate* family a name came from; decides which glDelete* frees it.
enum class ObjectKind : std::uint8_t {
  buffer,
  vertex_array,
  texture,
  framebuffer,
  renderbuffer,
  shader,
  program,
  query,
  transform_feedback
};

// One GL name and the kind that deletes it. Empty (name 0) after a move or reset().
class Object {
 public:
  Object() = default;
  // Takes ownership of `name` (non-zero) just created by the caller and counts it.
  Object(ObjectKind kind, GLuint name) noexcept;
  ~Object() { reset(); }
  Object(Object&& other) noexcept : kind_(other.kind_), name_(std::exchange(other.name_, 0)) {}
  Object& operator=(Object&& other) noexcept {
    if (this != &other) {
      reset();
      kind_ = other.kind_;
      name_ = std::exchange(other.name_, 0);
    }
    return *this;
  }
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;

  GLuint name() const noexcept { return name_; }
  explicit operator bool() const noexcept { return name_ != 0; }
  // Deletes the name with the matching glDelete* call and uncounts it.
  void reset() noexcept;
  // Uncounts the name without any GL call: for names whose context is already gone.
  void abandon() noexcept;

 private:
  ObjectKind kind_ = ObjectKind::buffer;
  GLuint name_ = 0;
};

// Creation helpers: generate one name, throw Error (rule "gl_call_failed") when GL returns 0.
Object make_buffer();
Object make_vertex_array();
Object make_texture();
Object make_framebuffer();
Object make_renderbuffer();
Object make_shader(GLenum stage);
Object make_program();
Object make_query();
Object make_transform_feedback();  // OpenGL 4.0 / ES 3.0

// Throws Error(path = call, rule "gl_call_failed") if glGetError reports an error, draining the
// whole error queue so the next check starts clean.
void check_gl(std::string_view call);

// The EGL context current on this thread, or nullptr (also when the current context is GLX).
void* current_egl_context() noexcept;

}  // namespace gltf_crowd::gl
