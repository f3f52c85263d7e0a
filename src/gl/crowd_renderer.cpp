// The instanced crowd backend (docs/spec.md §4–§6): static data uploaded once, the crowd's live slots
// uploaded once per frame into the chosen palette storage, one glDrawElementsInstanced per
// non-empty primitive group.
#include "gltf_crowd/gl_renderers.hpp"

#include <algorithm>

#include <epoxy/gl.h>
#include <fmt/format.h>
#include <glm/gtc/type_ptr.hpp>

#include "gl/program.hpp"
#include "gl/renderer_lifetime.hpp"
#include "gl/renderer_state.hpp"
#include "gl/shaders.hpp"
#include "gl/state_guard.hpp"

namespace gltf_crowd {
namespace {

// The storage `requested` resolves to on the current context, or Error "gl_version".
PaletteStorage choose_storage(PaletteStorage requested) {
  const bool desktop = epoxy_is_desktop_gl();
  const int version = epoxy_gl_version();
  const bool buffers = desktop && version >= 43;
  const std::string current = fmt::format("{} {}.{}", desktop ? "OpenGL" : "OpenGL ES", version / 10, version % 10);
  if (requested == PaletteStorage::storage_buffer && !buffers) {
    throw Error("CrowdRendererOptions.palette", Rule::gl_version,
                fmt::format("storage buffer palettes need desktop OpenGL 4.3; the current "
                            "context is {}",
                            current));
  }
  if (requested == PaletteStorage::storage_buffer || (requested == PaletteStorage::automatic && buffers)) {
    return PaletteStorage::storage_buffer;
  }
  gl::plain_dialect("CrowdRendererOptions.palette");  // throws below OpenGL 3.3 / ES 3.0
  return PaletteStorage::texture;
}

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
  return u;
}

// Points the texture prelude's samplers at their units (program in use).
void set_data_units(GLuint program) {
  auto set = [program](const char* name, GLint texture_unit) {
    glUniform1i(glGetUniformLocation(program, name), texture_unit);
  };
  set("u_transform_texture", gl::unit::transforms);
  set("u_palette_texture", gl::unit::palette);
  set("u_instance_texture", gl::unit::instances);
  set("u_morph_delta_texture", gl::unit::morph_deltas);
  set("u_morph_weight_texture", gl::unit::morph_weights);
  gl::check_gl("glUniform1i(data samplers)");
}

// Index of the GPU copy of (mesh, primitive), uploading it on first use.
std::uint32_t primitive_for(CrowdRenderer::State& state, const Asset& asset, const PrimitiveGroup& group) {
  auto key = std::make_pair(group.mesh, group.primitive);
  if (auto found = state.primitive_index.find(key); found != state.primitive_index.end()) {
    return found->second;
  }
  const Primitive& primitive = asset.meshes.at(group.mesh).primitives.at(group.primitive);
  state.primitives.push_back(gl::upload_primitive(
      primitive, state.storage == PaletteStorage::storage_buffer ? gl::DeltaStorage::buffer : gl::DeltaStorage::texture,
      state.limits.max_texture_size, fmt::format("meshes[{}].primitives[{}]", group.mesh, group.primitive)));
  auto index = static_cast<std::uint32_t>(state.primitives.size() - 1);
  state.primitive_index.emplace(key, index);
  return index;
}

// Index of the drawable for the group's (mesh, primitive, level), uploading its indices
// (Crowd::group_indices: the asset's own or a generated level's) on first use.
std::uint32_t drawable_for(CrowdRenderer::State& state, const Crowd& crowd, const PrimitiveGroup& group) {
  auto key = std::make_tuple(group.mesh, group.primitive, group.level);
  if (auto found = state.drawable_index.find(key); found != state.drawable_index.end()) {
    return found->second;
  }
  const std::uint32_t primitive = primitive_for(state, crowd.asset(), group);
  gl::DrawableGpu drawable = gl::make_drawable(state.primitives[primitive], crowd.group_indices(group));
  drawable.primitive = primitive;
  state.drawables.push_back(std::move(drawable));
  auto index = static_cast<std::uint32_t>(state.drawables.size() - 1);
  state.drawable_index.emplace(key, index);
  return index;
}

// Makes the GPU-side arrays match the crowd's groups and capacity (it grows with reserve).
void sync_layout(CrowdRenderer::State& state, const Crowd& crowd) {
  auto streams = crowd.node_streams();
  state.streams.resize(streams.size());
  for (std::size_t i = 0; i < streams.size(); ++i) {
    if (gl::reserve_stream(state.streams[i], streams[i], crowd.capacity(), state.storage, state.limits))
      state.upload_everything = true;
  }
  auto groups = crowd.primitive_groups();
  state.groups.resize(groups.size());
  for (std::size_t i = 0; i < groups.size(); ++i) {
    gl::GroupGpu& g = state.groups[i];
    g.drawable = drawable_for(state, crowd, groups[i]);
    gl::reserve_instances(g, groups[i].node, crowd.capacity(), state.storage, state.limits);
  }
}

// Uploads the slots whose packed rows changed since the last upload, as runs of consecutive
// slots (runs closer than kMergeGap slots are merged: one call moves more bytes cheaper than
// two); everything after the GPU objects were (re)created.
void upload_changed_slots(CrowdRenderer::State& state, const Crowd& crowd) {
  constexpr std::uint32_t kMergeGap = 8;
  const auto streams = crowd.node_streams();
  const auto live = static_cast<std::uint32_t>(crowd.actor_count());
  auto& runs = state.dirty_runs;
  runs.clear();
  if (state.upload_everything) {
    if (live > 0) runs.emplace_back(0, live);
  } else {
    const auto generations = crowd.slot_generations();
    for (std::uint32_t slot = 0; slot < live; ++slot) {
      if (generations[slot] <= state.uploaded_generation) continue;
      if (!runs.empty() && slot - runs.back().second < kMergeGap)
        runs.back().second = slot + 1;
      else
        runs.emplace_back(slot, slot + 1);
    }
  }
  for (std::size_t i = 0; i < streams.size(); ++i)
    for (const auto& [first, end] : runs)
      gl::upload_stream(state.cache, state.streams[i], streams[i], first, end - first, state.storage);
  state.uploaded_generation = crowd.packed_generation();
  state.upload_everything = false;
}

// +1 when every instance's transform keeps orientation, -1 when every one mirrors (det < 0),
// 0 when the group mixes both.
int group_winding(const NodeStream& stream, std::span<const std::uint32_t> instances) {
  bool kept = false, mirrored = false;
  for (std::uint32_t slot : instances) {
    const glm::vec4* rows = &stream.transforms[std::size_t{slot} * 3];
    const float det = glm::determinant(glm::mat3(glm::vec3(rows[0]), glm::vec3(rows[1]), glm::vec3(rows[2])));
    (det < 0.0f ? mirrored : kept) = true;
    if (kept && mirrored) return 0;
  }
  return mirrored ? -1 : 1;
}

}  // namespace

const char* palette_storage_name(PaletteStorage storage) noexcept {
  switch (storage) {
    case PaletteStorage::automatic: return "auto";
    case PaletteStorage::storage_buffer: return "storage";
    case PaletteStorage::texture: return "texture";
  }
  return "auto";
}

CapacityLimit crowd_capacity_limit(const Crowd& crowd, PaletteStorage storage) {
  CapacityLimit result;
  result.storage = choose_storage(storage);
  const auto streams = crowd.node_streams();
  if (result.storage == PaletteStorage::storage_buffer) {
    GLint64 block = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
    gl::check_gl("glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE)");
    result.limit = "GL_MAX_SHADER_STORAGE_BLOCK_SIZE";
    result.limit_value = static_cast<std::uint64_t>(block);
    result.per_actor = 3 * sizeof(glm::vec4);  // a transform: every stream has one
    for (std::size_t i = 0; i < streams.size(); ++i) {
      const NodeStream& s = streams[i];
      const std::uint64_t palette = s.palette_stream == i ? 3 * sizeof(glm::vec4) * s.joint_count : 0;
      result.per_actor = std::max({result.per_actor, palette, std::uint64_t{sizeof(float) * s.weight_stride}});
    }
    result.actors = static_cast<std::size_t>(result.limit_value / result.per_actor);
    return result;
  }
  GLint side = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &side);
  gl::check_gl("glGetIntegerv(GL_MAX_TEXTURE_SIZE)");
  result.limit = "GL_MAX_TEXTURE_SIZE";
  result.limit_value = static_cast<std::uint64_t>(side);
  result.per_actor = 1;
  result.actors = static_cast<std::size_t>(side);
  for (std::size_t i = 0; i < streams.size(); ++i) {
    const NodeStream& s = streams[i];
    const std::uint64_t palette_texels = s.palette_stream == i ? 3u * s.joint_count : 0u;
    if (palette_texels > result.limit_value || s.weight_stride / 4 > result.limit_value) result.actors = 0;
  }
  return result;
}

CrowdRenderer::CrowdRenderer(const Crowd& crowd, const CrowdRendererOptions& options)
    : crowd_(crowd.link()), storage_(choose_storage(options.palette)) {
  auto state = std::make_unique<State>();
  state->storage = storage_;
  state->egl_context = gl::current_egl_context();
  const bool buffers = storage_ == PaletteStorage::storage_buffer;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &state->limits.max_texture_size);
  if (buffers) {
    GLint vertex_blocks = 0;
    glGetIntegerv(GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS, &vertex_blocks);
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &state->limits.max_storage_block_bytes);
    if (vertex_blocks < static_cast<GLint>(gl::binding::count)) {
      throw Error("CrowdRendererOptions.palette", Rule::gl_version,
                  fmt::format("GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS = {} < {}", vertex_blocks, gl::binding::count));
    }
  }
  gl::check_gl("glGetIntegerv(limits)");
  const gl::StateGuard guard(false);  // creation binds no storage buffer
  const gl::ShaderDialect dialect = buffers ? gl::ShaderDialect::glsl430 : gl::plain_dialect("CrowdRenderer");
  try {
    state->program = gl::link_program("crowd_program", gl::crowd_vertex_source(dialect, buffers).c_str(),
                                      gl::fragment_source(dialect).c_str());
    state->uniforms = find_uniforms(state->program.name());
    state->material_uniforms = gl::find_material_uniforms(state->program.name());
    if (buffers) {
      state->dummy = gl::make_dynamic_buffer(16);
    } else {
      set_data_units(state->program.name());
    }
    if (!crowd.destroyed()) {
      state->textures = gl::MaterialTextures(crowd.asset());
      sync_layout(*state, crowd);
    }
  } catch (...) {
    gl::release_objects(state);  // the creating context is current: deletes what was made
    throw;
  }
  state_ = std::move(state);
}

CrowdRenderer::~CrowdRenderer() { destroy(); }

std::size_t CrowdRenderer::object_count() const noexcept { return gl::count_objects(state_); }

void CrowdRenderer::destroy() noexcept { gl::release_objects(state_); }

std::uint32_t CrowdRenderer::draw(const Crowd& crowd, const Camera& camera) {
  stats_ = {};
  gl::require_own_crowd(crowd, crowd_, "CrowdRenderer");
  if (!state_ || crowd.destroyed()) return 0;
  State& state = *state_;
  const bool buffers = state.storage == PaletteStorage::storage_buffer;
  const gl::StateGuard guard(buffers);
  sync_layout(state, crowd);

  gl::StateCache& cache = state.cache;
  cache.invalidate();
  upload_changed_slots(state, crowd);
  const auto streams = crowd.node_streams();

  const gl::CrowdUniforms& u = state.uniforms;
  cache.use_program(state.program.name());
  glUniformMatrix4fv(u.view_projection, 1, GL_FALSE, glm::value_ptr(camera.projection * camera.view));
  gl::set_lighting(state.material_uniforms, camera);
  gl::begin_frame();

  const Asset& asset = crowd.asset();
  const auto groups = crowd.primitive_groups();
  for (const bool blended_pass : {false, true}) {
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const PrimitiveGroup& group = groups[i];
      gl::GroupGpu& g = state.groups[i];
      const gl::DrawableGpu& d = state.drawables[g.drawable];
      const gl::PrimitiveGpu& p = state.primitives[d.primitive];
      if (group.instances.empty() || gl::is_blended(asset, p.material) != blended_pass) continue;
      const NodeStream& s = streams[group.stream];
      const gl::StreamGpu& sg = state.streams[group.stream];
      const gl::Object& palette = state.streams[s.palette_stream].palette;  // possibly shared
      gl::upload_instances(cache, g, group.instances, state.storage);

      const bool skinned = group.palette_kind == PaletteKind::skinned && palette && p.layout.has_influences0;
      const bool morphed = p.target_count > 0 && p.morph_deltas && sg.weights && s.weight_stride >= p.target_count;
      cache.bind_vertex_array(d.vertex_array.name());
      if (buffers) {
        const GLuint dummy = state.dummy.name();
        cache.bind_storage(gl::binding::transforms, sg.transforms.name());
        cache.bind_storage(gl::binding::palette, skinned ? palette.name() : dummy);
        cache.bind_storage(gl::binding::instances, g.instances.name());
        cache.bind_storage(gl::binding::morph_deltas, morphed ? p.morph_deltas.name() : dummy);
        cache.bind_storage(gl::binding::morph_weights, morphed ? sg.weights.name() : dummy);
        glUniform1ui(u.joint_count, s.joint_count);
        glUniform1ui(u.weight_quads, s.weight_stride / 4);
      } else {
        cache.bind_texture(gl::unit::transforms, sg.transforms.name());
        cache.bind_texture(gl::unit::instances, g.instances.name());
        if (skinned) cache.bind_texture(gl::unit::palette, palette.name());
        if (morphed) {
          cache.bind_texture(gl::unit::morph_deltas, p.morph_deltas.name());
          cache.bind_texture(gl::unit::morph_weights, sg.weights.name());
          glUniform1ui(u.delta_width, p.delta_width);
        }
      }
      glUniform1i(u.skinned, skinned ? 1 : 0);
      glUniform1i(u.eight_influences, p.layout.has_influences1 ? 1 : 0);
      glUniform1ui(u.target_count, morphed ? p.target_count : 0u);
      glUniform1ui(u.vertex_count, p.vertex_count);
      glUniform1ui(u.normal_block, p.normal_block);
      glUniform1ui(u.tangent_block, p.tangent_block);

      // One winding per draw when the instances agree; otherwise the fragment shader culls
      // each instance by the sign of its transform's determinant.
      const int winding = group_winding(s, group.instances);
      gl::bind_material(cache, state.material_uniforms, state.textures, asset, p.material, p.layout.has_tangent,
                        winding == 0);
      gl::set_material_state(cache, asset, p.material);
      if (winding == 0) cache.set_cull(false);
      cache.set_front_face(winding < 0 ? GL_CW : GL_CCW);

      const auto instances = static_cast<std::uint32_t>(group.instances.size());
      cache.draw_elements_instanced(p.mode, static_cast<GLsizei>(std::min(group.index_count, d.index_count)),
                                    static_cast<GLsizei>(instances));
      stats_.instances += instances;
      stats_.triangles += std::uint64_t{group.triangle_count} * instances;
    }
  }
  gl::check_gl("glDrawElementsInstanced");
  stats_.draws = cache.draws();
  stats_.upload_bytes = cache.upload_bytes();
  return stats_.draws;
}

}  // namespace gltf_crowd
