// What a primitive group's draw reads and how it is bound (docs/spec.md §6.2), shared by the
// passes, the skinned-vertex cache's capture and bind_group_inputs, so they all read alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gl/renderer_state.hpp"

namespace gltf_crowd::gl {

// What primitive group `group`'s draw reads, and whether it skins and morphs: the stream's
// arrays, the (possibly shared) palette, the primitive's morph deltas.
struct GroupSources {
  const NodeStream& stream;
  const gl::GroupGpu& gpu;
  const gl::DrawableGpu& drawable;
  const gl::PrimitiveGpu& primitive;
  const gl::StreamGpu& arrays;
  GLuint palette;
  bool skinned;
  bool morphed;
};

GroupSources group_sources(const CrowdRenderer::State& state, const Crowd& crowd, std::size_t group);

// Binds a group's data (docs/spec.md §6.2) on its storage bindings or texture units through
// `bind_storage(binding, name)` / `bind_texture(unit, name)`, with `previous` (the previous
// frame's stream set) also the previous frame's and, with `remap`, the slot map; then sets the
// group's uniforms `u` in the current program. Shared by draw_pass and bind_group_inputs, so an
// application's program reads exactly what the library's does.
template <class BindStorage, class BindTexture>
void bind_group_data(const CrowdRenderer::State& state, const GroupSources& g, std::uint32_t stream,
                     const gl::CrowdUniforms& u, const std::vector<gl::StreamGpu>* previous, bool remap,
                     BindStorage&& bind_storage, BindTexture&& bind_texture) {
  const NodeStream& s = g.stream;
  const gl::PrimitiveGpu& p = g.primitive;
  const GLuint previous_slots = remap ? state.history->previous_slots.name() : 0;
  if (state.storage == PaletteStorage::storage_buffer) {
    const GLuint dummy = state.dummy.name();  // bindings a draw does not read
    bind_storage(gl::binding::transforms, g.arrays.transforms.name());
    bind_storage(gl::binding::palette, g.skinned ? g.palette : dummy);
    bind_storage(gl::binding::instances, g.gpu.instances.name());
    bind_storage(gl::binding::morph_deltas, g.morphed ? p.morph_deltas.name() : dummy);
    bind_storage(gl::binding::morph_weights, g.morphed ? g.arrays.weights.name() : dummy);
    bind_storage(gl::binding::tints, state.tints.tints.name());
    if (previous) {
      const gl::StreamGpu& before = (*previous)[stream];
      bind_storage(gl::binding::previous_transforms, before.transforms.name());
      bind_storage(gl::binding::previous_palette, g.skinned ? (*previous)[s.palette_stream].palette.name() : dummy);
      bind_storage(gl::binding::previous_morph_weights, g.morphed ? before.weights.name() : dummy);
      bind_storage(gl::binding::previous_slots, remap ? previous_slots : dummy);
    }
    glUniform1ui(u.joint_count, s.joint_count);
    glUniform1ui(u.weight_quads, s.weight_stride / 4);
  } else {
    bind_texture(gl::unit::transforms, g.arrays.transforms.name());
    bind_texture(gl::unit::palette, g.skinned ? g.palette : 0);
    bind_texture(gl::unit::instances, g.gpu.instances.name());
    bind_texture(gl::unit::morph_deltas, g.morphed ? p.morph_deltas.name() : 0);
    bind_texture(gl::unit::morph_weights, g.morphed ? g.arrays.weights.name() : 0);
    bind_texture(gl::unit::tints, state.tints.tints.name());
    if (previous) {
      const gl::StreamGpu& before = (*previous)[stream];
      bind_texture(gl::unit::previous_transforms, before.transforms.name());
      bind_texture(gl::unit::previous_palette, g.skinned ? (*previous)[s.palette_stream].palette.name() : 0);
      bind_texture(gl::unit::previous_morph_weights, g.morphed ? before.weights.name() : 0);
      bind_texture(gl::unit::previous_slots, previous_slots);
    }
    glUniform1ui(u.delta_width, g.morphed ? p.delta_width : 1u);
  }
  glUniform1i(u.skinned, g.skinned ? 1 : 0);
  glUniform1i(u.eight_influences, p.layout.has_influences1 ? 1 : 0);
  glUniform1ui(u.target_count, g.morphed ? p.target_count : 0u);
  glUniform1ui(u.vertex_count, p.vertex_count);
  glUniform1ui(u.normal_block, p.normal_block);
  glUniform1ui(u.tangent_block, p.tangent_block);
  glUniform1i(u.remap_slots, remap ? 1 : 0);
}

// Splits each group's instances by material variant (docs/spec.md §5.11: one draw per material
// its actors select) and uploads the slot lists that changed.
void upload_group_instances(CrowdRenderer::State& state, const Crowd& crowd);

}  // namespace gltf_crowd::gl
