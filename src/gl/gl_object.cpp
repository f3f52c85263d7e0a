#include "gl/gl_object.hpp"

#include <atomic>
#include <string>

#include <epoxy/egl.h>
#include <fmt/format.h>

#include "gltf_crowd/error.hpp"
#include "gltf_crowd/gl_platform.hpp"

namespace gltf_crowd {
namespace gl {
namespace {

// Process-wide because GL names outlive any one owner's bookkeeping; a diagnostic only.
std::atomic<std::size_t> live_objects{0};

const char* gl_error_name(GLenum error) {
  switch (error) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_STACK_OVERFLOW: return "GL_STACK_OVERFLOW";
    case GL_STACK_UNDERFLOW: return "GL_STACK_UNDERFLOW";
    default: return "unknown GL error";
  }
}

Object checked(ObjectKind kind, GLuint name, const char* call) {
  if (name == 0) {
    check_gl(call);  // reports the GL error when there is one
    throw Error(call, Rule::gl_call_failed, fmt::format("{} returned 0", call));
  }
  return Object(kind, name);
}

}  // namespace

Object::Object(ObjectKind kind, GLuint name) noexcept : kind_(kind), name_(name) {
  if (name_ != 0) live_objects.fetch_add(1, std::memory_order_relaxed);
}

void Object::reset() noexcept {
  if (name_ == 0) return;
  switch (kind_) {
    case ObjectKind::buffer: glDeleteBuffers(1, &name_); break;
    case ObjectKind::vertex_array: glDeleteVertexArrays(1, &name_); break;
    case ObjectKind::texture: glDeleteTextures(1, &name_); break;
    case ObjectKind::framebuffer: glDeleteFramebuffers(1, &name_); break;
    case ObjectKind::renderbuffer: glDeleteRenderbuffers(1, &name_); break;
    case ObjectKind::shader: glDeleteShader(name_); break;
    case ObjectKind::program: glDeleteProgram(name_); break;
    case ObjectKind::query: glDeleteQueries(1, &name_); break;
    case ObjectKind::transform_feedback: glDeleteTransformFeedbacks(1, &name_); break;
  }
  abandon();
}

void Object::abandon() noexcept {
  if (name_ == 0) return;
  name_ = 0;
  live_objects.fetch_sub(1, std::memory_order_relaxed);
}

Object make_buffer() {
  GLuint name = 0;
  glGenBuffers(1, &name);
  return checked(ObjectKind::buffer, name, "glGenBuffers");
}

Object make_vertex_array() {
  GLuint name = 0;
  glGenVertexArrays(1, &name);
  return checked(ObjectKind::vertex_array, name, "glGenVertexArrays");
}

Object make_texture() {
  GLuint name = 0;
  glGenTextures(1, &name);
  return checked(ObjectKind::texture, name, "glGenTextures");
}

Object make_framebuffer() {
  GLuint name = 0;
  glGenFramebuffers(1, &name);
  return checked(ObjectKind::framebuffer, name, "glGenFramebuffers");
}

Object make_renderbuffer() {
  GLuint name = 0;
  glGenRenderbuffers(1, &name);
  return checked(ObjectKind::renderbuffer, name, "glGenRenderbuffers");
}

Object make_shader(GLenum stage) { return checked(ObjectKind::shader, glCreateShader(stage), "glCreateShader"); }

Object make_program() { return checked(ObjectKind::program, glCreateProgram(), "glCreateProgram"); }

Object make_query() {
  GLuint name = 0;
  glGenQueries(1, &name);
  return checked(ObjectKind::query, name, "glGenQueries");
}

Object make_transform_feedback() {
  GLuint name = 0;
  glGenTransformFeedbacks(1, &name);
  return checked(ObjectKind::transform_feedback, name, "glGenTransformFeedbacks");
}

void check_gl(std::string_view call) {
  GLenum first = glGetError();
  if (first == GL_NO_ERROR) return;
  // Drain the queue: GL may hold several flags, and a stale one would blame the next call.
  for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; ++i) {
  }
  throw Error(std::string(call), Rule::gl_call_failed,
              fmt::format("{} failed: {} (0x{:04X})", call, gl_error_name(first), first));
}

void* current_egl_context() noexcept {
  EGLContext context = eglGetCurrentContext();
  return context == EGL_NO_CONTEXT ? nullptr : context;
}

}  // namespace gl

std::size_t gl_object_count() noexcept { return gl::live_objects.load(std::memory_order_relaxed); }

}  // namespace gltf_crowd
