// The crowd's programs: linked from the vertex and fragment sources of a pass (shaders.cpp), with
// their uniform locations and, on the texture path, their samplers pointed at the data units.
#include <string>

#include <epoxy/gl.h>
#include <fmt/format.h>

#include "gl/program.hpp"
#include "gl/renderer_steps.hpp"
#include "gl/shaders.hpp"

namespace gltf_crowd::gl {

gl::CrowdUniforms find_uniforms(GLuint program) {
  auto at = [program](const char* name) { return glGetUniformLocation(program, name); };
  gl::CrowdUniforms u;
  u.view_projection = at("u_view_projection");
  u.skinned = at("u_skinned");
  u.eight_influences = at("u_eight_influences");
  u.target_count = at("u_target_count");
  u.vertex_count = at("u_vertex_count");
  u.normal_block = at("u_normal_block");
  u.tangent_block = at("u_tangent_block");
  u.joint_count = at("u_joint_count");
  u.weight_quads = at("u_weight_quads");
  u.delta_width = at("u_delta_width");
  u.instance_offset = at("u_instance_offset");
  u.previous_view_projection = at("u_previous_view_projection");
  u.remap_slots = at("u_remap_slots");
  u.skinned_width = at("u_skinned_width");
  u.skinned_first = at("u_skinned_first");
  return u;
}

void set_data_units(GLuint program) {
  auto set = [program](const char* name, GLint texture_unit) {
    glUniform1i(glGetUniformLocation(program, name), texture_unit);
  };
  set("u_transform_texture", gl::unit::transforms);
  set("u_palette_texture", gl::unit::palette);
  set("u_instance_texture", gl::unit::instances);
  set("u_morph_delta_texture", gl::unit::morph_deltas);
  set("u_morph_weight_texture", gl::unit::morph_weights);
  set("u_tint_texture", gl::unit::tints);
  set("u_previous_transform_texture", gl::unit::previous_transforms);
  set("u_previous_palette_texture", gl::unit::previous_palette);
  set("u_previous_morph_weight_texture", gl::unit::previous_morph_weights);
  set("u_previous_slot_texture", gl::unit::previous_slots);
  set("u_skinned_vertex_texture", gl::unit::skinned_vertices);
  gl::check_gl("glUniform1i(data samplers)");
}

gl::CrowdProgram make_crowd_program(const CrowdRenderer::State& state, gl::ProgramKind kind, bool cached) {
  using Kind = gl::ProgramKind;
  const bool buffers = state.storage == PaletteStorage::storage_buffer;
  const gl::ShaderDialect dialect = buffers ? gl::ShaderDialect::glsl430 : gl::plain_dialect("CrowdRenderer");
  if (kind == Kind::velocity && buffers) {
    GLint vertex_blocks = 0;
    glGetIntegerv(GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS, &vertex_blocks);
    if (vertex_blocks < static_cast<GLint>(gl::binding::velocity_count))
      throw Error(
          "CrowdRenderer::draw_velocity", Rule::gl_version,
          fmt::format("GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS = {} < {}", vertex_blocks, gl::binding::velocity_count));
  }
  constexpr const char* names[gl::kProgramKinds] = {"color", "depth", "depth_opaque", "velocity"};
  const std::string name = fmt::format("crowd_{}{}_program", cached ? "cached_" : "", names[std::size_t(kind)]);
  const std::string vertex = kind == Kind::velocity ? gl::crowd_velocity_vertex_source(dialect, buffers)
                             : cached               ? gl::cached_vertex_source(dialect, buffers)
                                                    : gl::crowd_vertex_source(dialect, buffers);
  std::string fragment;
  switch (kind) {
    case Kind::color: fragment = gl::fragment_source(dialect); break;
    case Kind::depth: fragment = gl::depth_fragment_source(dialect); break;
    case Kind::depth_opaque: fragment = gl::opaque_depth_fragment_source(dialect); break;
    case Kind::velocity: fragment = gl::velocity_fragment_source(dialect); break;
  }
  gl::CrowdProgram out;
  out.program = gl::link_program(name, vertex.c_str(), fragment.c_str());
  out.uniforms = find_uniforms(out.program.name());
  out.material = gl::find_material_uniforms(out.program.name());
  if (!buffers) set_data_units(out.program.name());
  return out;
}

const gl::CrowdProgram& program_for(CrowdRenderer::State& state, gl::ProgramKind kind, bool cached) {
  gl::CrowdProgram& p = cached ? state.skinned->programs[std::size_t(kind)] : state.programs[std::size_t(kind)];
  if (!p.program) p = make_crowd_program(state, kind, cached);
  return p;
}

}  // namespace gltf_crowd::gl
