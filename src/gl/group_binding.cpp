// A primitive group's inputs: its slot lists split by material variant and uploaded, what its draw
// reads, and bind_group_inputs, which binds them for an application's own program.
#include <algorithm>

#include <epoxy/gl.h>
#include <fmt/format.h>

#include "gl/group_binding.hpp"
#include "gl/renderer_lifetime.hpp"
#include "gl/renderer_steps.hpp"
#include "gl/state_guard.hpp"

namespace gltf_crowd {
namespace gl {

GroupSources group_sources(const CrowdRenderer::State& state, const Crowd& crowd, std::size_t group) {
  const PrimitiveGroup& pg = crowd.primitive_groups()[group];
  const NodeStream& s = crowd.node_streams()[pg.stream];
  const gl::GroupGpu& g = state.groups[group];
  const gl::DrawableGpu& d = state.drawables[g.drawable];
  const gl::PrimitiveGpu& p = state.primitives[d.primitive];
  const gl::StreamGpu& sg = state.streams[pg.stream];
  const gl::Object& palette = state.streams[s.palette_stream].palette;
  return {s,
          g,
          d,
          p,
          sg,
          palette.name(),
          pg.palette_kind == PaletteKind::skinned && palette && p.layout.has_influences0,
          p.target_count > 0 && p.morph_deltas && sg.weights && s.weight_stride >= p.target_count};
}

void upload_group_instances(CrowdRenderer::State& state, const Crowd& crowd) {
  const std::uint64_t uploaded = state.cache.upload_bytes();
  const Asset& asset = crowd.asset();
  const auto groups = crowd.primitive_groups();
  const auto variants = crowd.material_variants();
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const PrimitiveGroup& group = groups[i];
    gl::GroupGpu& g = state.groups[i];
    const Primitive& primitive = asset.meshes[group.mesh].primitives[group.primitive];
    const auto slots = gl::partition_by_material(g, primitive, group.instances, variants);
    if (!slots.empty()) gl::upload_instances(state.cache, g, slots, state.storage);
  }
  if (state.skinned && state.cache.upload_bytes() != uploaded) state.skinned->stale = true;
}

}  // namespace gl

GroupInputs CrowdRenderer::bind_group_inputs(const Crowd& crowd, std::size_t group, std::uint32_t program) {
  gl::require_own_crowd(crowd, crowd_, "CrowdRenderer.bind_group_inputs");
  if (!state_ || crowd.destroyed()) return {};
  const auto groups = crowd.primitive_groups();
  if (group >= groups.size())
    throw Error("bind_group_inputs.group", Rule::group_index,
                fmt::format("group {} of a crowd with {} primitive groups", group, groups.size()));
  State& state = *state_;
  const bool buffers = state.storage == PaletteStorage::storage_buffer;
  const PrimitiveGroup& pg = groups[group];
  bool remap = false;
  {
    // The slot list upload runs under the guard, at GL's unpack defaults like every upload; the
    // bindings the application draws with are made after it restored the rest. The group's own
    // order: draw() may have left one reordered by material variants in the object.
    const gl::StateGuard guard(buffers, crowd.animation() == Animation::gpu);
    gl::sync_layout(state, crowd);
    state.cache.invalidate();
    if (!pg.instances.empty()) gl::upload_instances(state.cache, state.groups[group], pg.instances, state.storage);
    if (state.skinned && state.cache.upload_bytes() != 0) state.skinned->stale = true;  // the slot order changed
    remap = state.history && gl::upload_previous_slots(state, crowd);
  }
  const std::vector<gl::StreamGpu>* previous = !state.history         ? nullptr
                                               : state.history->valid ? &state.history->streams
                                                                      : &state.streams;
  state.cache.forget_bindings();
  const gl::GroupSources sources = gl::group_sources(state, crowd, group);
  const gl::CrowdUniforms u = gl::find_uniforms(program);

  GLint active_unit = GL_TEXTURE0;  // the application's, put back: only the bindings stay
  glGetIntegerv(GL_ACTIVE_TEXTURE, &active_unit);
  glUseProgram(program);
  glBindVertexArray(sources.drawable.vertex_array.name());
  // Not through the state cache, which the next call invalidates anyway. texelFetch ignores
  // filtering, but a sampler object would still decide the textures' completeness: none on the
  // data units, as under the renderer's own draws (the guard put the application's back).
  gl::bind_group_data(
      state, sources, pg.stream, u, previous, remap,
      [](GLuint binding, GLuint name) { glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, name); },
      [](GLint unit, GLuint name) {
        glActiveTexture(static_cast<GLenum>(GL_TEXTURE0 + unit));
        glBindTexture(GL_TEXTURE_2D, name);
        glBindSampler(static_cast<GLuint>(unit), 0);
      });
  glActiveTexture(static_cast<GLenum>(active_unit));
  if (!buffers) gl::set_data_units(program);
  glUniform1ui(u.instance_offset, 0u);
  gl::set_absent_attribute_values();
  gl::check_gl("CrowdRenderer::bind_group_inputs");

  const Primitive& primitive = crowd.asset().meshes[pg.mesh].primitives[pg.primitive];
  GroupInputs inputs;
  inputs.mode = sources.primitive.mode;
  inputs.index_count = static_cast<std::int32_t>(std::min(pg.index_count, sources.drawable.index_count));
  inputs.index_type = GL_UNSIGNED_INT;
  inputs.instance_count = static_cast<std::int32_t>(pg.instances.size());
  inputs.material = primitive.material;
  inputs.blended = gl::is_blended(crowd.asset(), primitive.material);
  return inputs;
}

}  // namespace gltf_crowd
