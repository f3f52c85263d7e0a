#include "gl/program.hpp"

#include <initializer_list>
#include <string>

#include <fmt/format.h>

#include "gltf_crowd/error.hpp"

namespace gltf_crowd::gl {
namespace {

std::string shader_log(GLuint shader) {
  GLint length = 0;
  glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
  std::string log(static_cast<std::size_t>(length > 0 ? length : 0), '\0');
  if (length > 0) glGetShaderInfoLog(shader, length, nullptr, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

std::string program_log(GLuint program) {
  GLint length = 0;
  glGetProgramiv(program, GL_INFO_LOG_LENGTH, &length);
  std::string log(static_cast<std::size_t>(length > 0 ? length : 0), '\0');
  if (length > 0) glGetProgramInfoLog(program, length, nullptr, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

Object compile(std::string_view name, const char* stage_name, GLenum stage, const char* source) {
  Object shader = make_shader(stage);
  glShaderSource(shader.name(), 1, &source, nullptr);
  glCompileShader(shader.name());
  GLint ok = GL_FALSE;
  glGetShaderiv(shader.name(), GL_COMPILE_STATUS, &ok);
  if (ok != GL_TRUE) {
    throw Error(fmt::format("{}.{}", name, stage_name), Rule::shader_compile,
                fmt::format("glCompileShader failed: {}", shader_log(shader.name())));
  }
  return shader;
}

}  // namespace

namespace {

// Links the compiled `shaders` into a program, detaching them so that deleting their objects
// frees them now, not with the program.
Object link(std::string_view name, std::initializer_list<const Object*> shaders,
            std::span<const char* const> captured = {}) {
  Object program = make_program();
  for (const Object* shader : shaders) glAttachShader(program.name(), shader->name());
  if (!captured.empty())
    glTransformFeedbackVaryings(program.name(), static_cast<GLsizei>(captured.size()), captured.data(),
                                GL_INTERLEAVED_ATTRIBS);
  glLinkProgram(program.name());
  GLint ok = GL_FALSE;
  glGetProgramiv(program.name(), GL_LINK_STATUS, &ok);
  for (const Object* shader : shaders) glDetachShader(program.name(), shader->name());
  if (ok != GL_TRUE) {
    throw Error(std::string(name), Rule::program_link,
                fmt::format("glLinkProgram failed: {}", program_log(program.name())));
  }
  check_gl("glLinkProgram");
  return program;
}

}  // namespace

Object link_program(std::string_view name, const char* vertex_source, const char* fragment_source,
                    std::span<const char* const> captured) {
  const Object vertex = compile(name, "vertex", GL_VERTEX_SHADER, vertex_source);
  const Object fragment = compile(name, "fragment", GL_FRAGMENT_SHADER, fragment_source);
  return link(name, {&vertex, &fragment}, captured);
}

Object link_compute_program(std::string_view name, const char* compute_source) {
  const Object compute = compile(name, "compute", GL_COMPUTE_SHADER, compute_source);
  return link(name, {&compute});
}

}  // namespace gltf_crowd::gl
