#include "gl/program.hpp"

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

Object link_program(std::string_view name, const char* vertex_source, const char* fragment_source) {
  Object vertex = compile(name, "vertex", GL_VERTEX_SHADER, vertex_source);
  Object fragment = compile(name, "fragment", GL_FRAGMENT_SHADER, fragment_source);
  Object program = make_program();
  glAttachShader(program.name(), vertex.name());
  glAttachShader(program.name(), fragment.name());
  glLinkProgram(program.name());
  GLint ok = GL_FALSE;
  glGetProgramiv(program.name(), GL_LINK_STATUS, &ok);
  // Detach so that deleting the shader objects below frees them now, not with the program.
  glDetachShader(program.name(), vertex.name());
  glDetachShader(program.name(), fragment.name());
  if (ok != GL_TRUE) {
    throw Error(std::string(name), Rule::program_link,
                fmt::format("glLinkProgram failed: {}", program_log(program.name())));
  }
  check_gl("glLinkProgram");
  return program;
}

Object link_compute_program(std::string_view name, const char* compute_source) {
  Object compute = compile(name, "compute", GL_COMPUTE_SHADER, compute_source);
  Object program = make_program();
  glAttachShader(program.name(), compute.name());
  glLinkProgram(program.name());
  GLint ok = GL_FALSE;
  glGetProgramiv(program.name(), GL_LINK_STATUS, &ok);
  glDetachShader(program.name(), compute.name());
  if (ok != GL_TRUE) {
    throw Error(std::string(name), Rule::program_link,
                fmt::format("glLinkProgram failed: {}", program_log(program.name())));
  }
  check_gl("glLinkProgram");
  return program;
}

}  // namespace gltf_crowd::gl
