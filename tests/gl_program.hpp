// Linking a test's own GL program (the application's side of the GL tests): compile and link
// errors fail the calling test with the driver's log. Header-only; needs a current context.
#pragma once

#include <string>

#include <epoxy/gl.h>
#include <gtest/gtest.h>

namespace gltf_crowd::test {

// The program of the `vertex` and `fragment` sources (each with its #version line); the shaders
// are deleted once linked. Returns the program name even on failure, for the caller to delete.
inline GLuint link_program(const std::string& vertex, const std::string& fragment) {
  const auto compile = [](GLenum stage, const std::string& source) {
    const GLuint shader = glCreateShader(stage);
    const char* text = source.c_str();
    glShaderSource(shader, 1, &text, nullptr);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    std::string log(4096, '\0');
    glGetShaderInfoLog(shader, static_cast<GLsizei>(log.size()), nullptr, log.data());
    EXPECT_EQ(ok, GL_TRUE) << log.c_str();
    return shader;
  };
  const GLuint vs = compile(GL_VERTEX_SHADER, vertex);
  const GLuint fs = compile(GL_FRAGMENT_SHADER, fragment);
  const GLuint program = glCreateProgram();
  glAttachShader(program, vs);
  glAttachShader(program, fs);
  glLinkProgram(program);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = GL_FALSE;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  EXPECT_EQ(ok, GL_TRUE);
  return program;
}

}  // namespace gltf_crowd::test
