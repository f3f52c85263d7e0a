// Compiling and linking GLSL programs with errors that carry the driver's log.
#pragma once

#include <span>
#include <string_view>

#include "gl/gl_object.hpp"

namespace gltf_crowd::gl {

// Compiles `vertex_source` and `fragment_source` and links them. Throws Error: path
// "<name>.vertex" / "<name>.fragment" with rule "shader_compile", or path `name` with rule
// "program_link"; the message holds the driver's info log. The shader objects are deleted
// before returning; only the program is counted afterwards. `captured`: vertex shader outputs
// recorded by transform feedback, interleaved in this order (GL_INTERLEAVED_ATTRIBS).
Object link_program(std::string_view name, const char* vertex_source, const char* fragment_source,
                    std::span<const char* const> captured = {});

// The same for one compute shader (path "<name>.compute").
Object link_compute_program(std::string_view name, const char* compute_source);

}  // namespace gltf_crowd::gl
