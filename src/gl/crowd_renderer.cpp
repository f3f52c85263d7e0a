// The instanced crowd backend (docs/spec.md §4–§6): static data uploaded once, the crowd's live slots
// uploaded once per frame into the chosen palette storage, one glDrawElementsInstanced per
// non-empty primitive group.
#include "gltf_crowd/gl_renderers.hpp"

#include <algorithm>
#include <string>

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
  u.instance_offset = at("u_instance_offset");
  u.previous_view_projection = at("u_previous_view_projection");
  u.remap_slots = at("u_remap_slots");
  u.skinned_width = at("u_skinned_width");
  u.skinned_first = at("u_skinned_first");
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
  set("u_tint_texture", gl::unit::tints);
  set("u_previous_transform_texture", gl::unit::previous_transforms);
  set("u_previous_palette_texture", gl::unit::previous_palette);
  set("u_previous_morph_weight_texture", gl::unit::previous_morph_weights);
  set("u_previous_slot_texture", gl::unit::previous_slots);
  set("u_skinned_vertex_texture", gl::unit::skinned_vertices);
  gl::check_gl("glUniform1i(data samplers)");
}

}  // namespace

enum class CrowdRenderer::Pass : std::uint8_t { color, depth, velocity };

namespace {

// Links the crowd program of `kind` (the crowd vertex shader, or with `cached` the skinned-vertex
// cache's, with the shading, depth-pass or velocity fragment shader; the velocity pass has its
// own vertex shader) and finds its uniforms; the texture path's samplers are pointed at their
// units.
gl::CrowdProgram make_program(const CrowdRenderer::State& state, gl::ProgramKind kind, bool cached) {
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
    if (gl::reserve_stream(state.streams[i], streams[i], streams[i].palette_stream == i, crowd.capacity(),
                           state.storage, state.limits))
      state.upload_everything = true;
  }
  if (state.history) {
    gl::MotionHistory& history = *state.history;
    history.streams.resize(streams.size());
    for (std::size_t i = 0; i < streams.size(); ++i) {
      if (gl::reserve_stream(history.streams[i], streams[i], streams[i].palette_stream == i, crowd.capacity(),
                             state.storage, state.limits)) {
        history.upload_everything = true;
        history.valid = false;  // new objects: no earlier frame in them
      }
    }
  }
  if (crowd.animation() == Animation::gpu) {
    // Before any query a context without compute shaders would reject (GL_INVALID_ENUM).
    if (!state.animation || state.animated_streams != streams.size()) gl::require_compute("Crowd.animation");
    if (state.limits.max_storage_block_bytes == 0)
      glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &state.limits.max_storage_block_bytes);
    if (!state.animation || state.animated_streams != streams.size()) {
      auto animation = std::make_unique<gl::GpuAnimation>();
      try {
        gl::build_gpu_animation(*animation, crowd);
      } catch (...) {
        animation->for_each_object([](gl::Object& o) { o.reset(); });
        throw;
      }
      if (state.animation) state.animation->for_each_object([](gl::Object& o) { o.reset(); });
      state.animation = std::move(animation);
      state.animated_streams = streams.size();
    }
    const bool buffers = state.storage == PaletteStorage::storage_buffer;
    if (!buffers) state.staging.resize(streams.size());
    state.targets.resize(streams.size());
    for (std::size_t i = 0; i < streams.size(); ++i) {
      if (!buffers)
        gl::reserve_stream(state.staging[i], streams[i], streams[i].palette_stream == i, crowd.capacity(),
                           PaletteStorage::storage_buffer, state.limits);
      const gl::StreamGpu& out = buffers ? state.streams[i] : state.staging[i];
      state.targets[i] = {out.transforms.name(), out.palette.name(), out.weights.name()};
    }
  }
  if (gl::reserve_tints(state.tints, crowd.capacity(), state.storage, state.limits)) state.upload_all_tints = true;
  auto groups = crowd.primitive_groups();
  state.groups.resize(groups.size());
  for (std::size_t i = 0; i < groups.size(); ++i) {
    gl::GroupGpu& g = state.groups[i];
    g.drawable = drawable_for(state, crowd, groups[i]);
    gl::reserve_instances(g, groups[i].node, crowd.capacity(), state.storage, state.limits);
  }
}

// Uploads the slots whose packed rows changed since the last upload, as runs of consecutive
// slots (gl::changed_runs); everything after the GPU objects were (re)created.
void upload_changed_slots(CrowdRenderer::State& state, const Crowd& crowd) {
  const auto streams = crowd.node_streams();
  auto& runs = state.dirty_runs;
  gl::changed_runs(crowd.slot_generations(), state.uploaded_generation, state.upload_everything, runs);
  for (std::size_t i = 0; i < streams.size(); ++i)
    for (const auto& [first, end] : runs)
      gl::upload_stream(state.cache, state.streams[i], streams[i], first, end - first, state.storage);
  state.uploaded_generation = crowd.packed_generation();
  state.upload_everything = false;
}

// Uploads the tints of the slots whose appearance changed (Crowd::appearance_generations): nothing
// in a frame without appearance changes, whatever update() did.
void upload_changed_tints(CrowdRenderer::State& state, const Crowd& crowd) {
  if (!state.upload_all_tints && crowd.appearance_generation() == state.uploaded_appearance) return;
  gl::changed_runs(crowd.appearance_generations(), state.uploaded_appearance, state.upload_all_tints, state.dirty_runs);
  gl::upload_tints(state.cache, state.tints, crowd.tints(), state.dirty_runs, state.storage);
  state.uploaded_appearance = crowd.appearance_generation();
  state.upload_all_tints = false;
}

// Animation::gpu: runs the evaluator and, with texture storage, fills the stream textures from
// its buffers on the GPU (pixel unpack buffer copies). Returns the bytes uploaded.
std::uint64_t animate_on_gpu(CrowdRenderer::State& state, const Crowd& crowd, bool timed) {
  const std::uint64_t uploaded = gl::animate(*state.animation, state.cache, crowd, state.targets, timed);
  const auto live = static_cast<GLsizei>(crowd.actor_count());
  if (state.storage == PaletteStorage::storage_buffer || live == 0) return uploaded;
  const auto streams = crowd.node_streams();
  const auto copy = [&](GLint unit, GLuint texture, GLuint buffer, std::size_t width) {
    if (texture == 0 || buffer == 0 || width == 0) return;
    state.cache.bind_texture(unit, texture);
    glActiveTexture(static_cast<GLenum>(GL_TEXTURE0 + unit));
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, static_cast<GLsizei>(width), live, GL_RGBA, GL_FLOAT, nullptr);
  };
  for (std::size_t i = 0; i < streams.size(); ++i) {
    const gl::StreamGpu& tex = state.streams[i];
    const gl::StreamGpu& buf = state.staging[i];
    copy(gl::unit::transforms, tex.transforms.name(), buf.transforms.name(), 3);
    copy(gl::unit::palette, tex.palette.name(), buf.palette.name(), 3 * std::size_t{streams[i].joint_count});
    copy(gl::unit::morph_weights, tex.weights.name(), buf.weights.name(), streams[i].weight_stride / 4);
  }
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  state.cache.forget_bindings();
  gl::check_gl("glTexSubImage2D(from the evaluator's buffers)");
  return uploaded;
}

// From now on, keep the previous frame (docs/spec.md §6.4); until a second frame is drawn, the
// previous frame is this one.
void keep_previous_frame(CrowdRenderer::State& state, const Crowd& crowd) {
  if (state.history) return;
  state.history = std::make_unique<gl::MotionHistory>();
  state.frame = crowd.frame();
}

// With a motion history, a new crowd frame makes the current stream set the previous one and
// the previous one current (docs/spec.md §6.4): swapping the sets, with what each holds. Runs
// before sync_layout, which points the GPU evaluator's targets at the current set.
void advance_frame(CrowdRenderer::State& state, const Crowd& crowd) {
  const std::uint64_t frame = crowd.frame();
  if (state.history && frame != state.frame) {
    gl::MotionHistory& history = *state.history;
    std::swap(state.streams, history.streams);
    std::swap(state.uploaded_generation, history.uploaded_generation);
    std::swap(state.upload_everything, history.upload_everything);
    std::swap(state.membership, history.membership);
    std::swap(state.serials, history.serials);
    history.valid = state.current_prepared;  // a set no pass brought up to date holds no frame
    state.current_prepared = false;
    if (state.skinned) state.skinned->stale = true;  // captured from the other set
  }
  state.frame = frame;
}

// Brings the GPU streams up to date: the changed slots' rows, or the GPU evaluation; with a
// motion history, notes which actors the current set holds.
void prepare_streams(CrowdRenderer::State& state, const Crowd& crowd, bool timed, RenderStats& stats) {
  bool changed = false;
  if (crowd.animation() == Animation::gpu) {
    const std::uint64_t evaluations = state.animation->evaluations;
    animate_on_gpu(state, crowd, timed);
    if (timed) {
      const gl::GpuMilliseconds ms = gl::gpu_milliseconds(*state.animation);
      stats.animation_ms = ms.total;
      using enum gl::AnimationPass;
      const auto pass = [&](gl::AnimationPass p) { return ms.passes[static_cast<std::size_t>(p)]; };
      stats.animation_pass_ms = {pass(sample), pass(weights), pass(hierarchy), pass(palette), pass(instances)};
    }
    changed = state.animation->evaluations != evaluations;  // the passes rewrote the streams
  } else {
    const std::uint64_t uploaded = state.cache.upload_bytes();
    upload_changed_slots(state, crowd);
    changed = state.cache.upload_bytes() != uploaded;
  }
  if (state.skinned && changed) state.skinned->stale = true;
  upload_changed_tints(state, crowd);  // tints are read per draw, never captured
  state.current_prepared = true;
  if (state.history && state.membership != crowd.membership_generation()) {
    const auto serials = crowd.actor_serials();
    state.serials.assign(serials.begin(), serials.end());
    state.membership = crowd.membership_generation();
  }
}

// Whether the velocity pass must map slots to the previous frame's (actors were added or
// removed in between); if so, uploads per slot its actor's previous slot or kNewActor.
bool upload_previous_slots(CrowdRenderer::State& state, const Crowd& crowd) {
  gl::MotionHistory& history = *state.history;
  if (!history.valid || history.membership == state.membership) return false;
  history.slot_of.clear();
  for (std::size_t slot = 0; slot < history.serials.size(); ++slot)
    history.slot_of.emplace(history.serials[slot], static_cast<std::uint32_t>(slot));
  history.remap.resize(state.serials.size());
  for (std::size_t slot = 0; slot < state.serials.size(); ++slot) {
    const auto found = history.slot_of.find(state.serials[slot]);
    history.remap[slot] = found == history.slot_of.end() ? gl::MotionHistory::kNewActor : found->second;
  }
  if (!history.previous_slots || history.previous_slots_capacity < crowd.capacity()) {
    const std::size_t capacity = std::max<std::size_t>(crowd.capacity(), 1);
    if (state.storage == PaletteStorage::storage_buffer) {
      history.previous_slots = gl::make_dynamic_buffer(capacity * sizeof(std::uint32_t));
    } else {
      history.previous_slots = gl::make_data_texture(1, static_cast<std::uint32_t>(capacity), true);
      glBindTexture(GL_TEXTURE_2D, 0);
    }
    history.previous_slots_capacity = capacity;
  }
  if (history.remap.empty()) return true;
  if (state.storage == PaletteStorage::storage_buffer) {
    state.cache.upload(history.previous_slots.name(), static_cast<GLsizeiptr>(history.remap.size() * 4),
                       history.remap.data());
  } else {
    state.cache.upload_texture(gl::unit::previous_slots, history.previous_slots.name(), 1,
                               static_cast<GLsizei>(history.remap.size()), true, history.remap.data());
  }
  return true;
}

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

// +1 when every instance's transform keeps orientation, -1 when every one mirrors (det < 0),
// 0 when the group mixes both.
int group_winding(const NodeStream& stream, std::span<const std::uint32_t> instances) {
  if (stream.transforms.empty()) return 0;  // Animation::gpu: the rows exist on the GPU only
  bool kept = false, mirrored = false;
  for (std::uint32_t slot : instances) {
    const glm::vec4* rows = &stream.transforms[std::size_t{slot} * 3];
    const float det = glm::determinant(glm::mat3(glm::vec3(rows[0]), glm::vec3(rows[1]), glm::vec3(rows[2])));
    (det < 0.0f ? mirrored : kept) = true;
    if (kept && mirrored) return 0;
  }
  return mirrored ? -1 : 1;
}

// Splits each group's instances by material variant (docs/spec.md §5.11: one draw per material
// its actors select) and uploads the slot lists that changed.
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

// The skinned-vertex cache (docs/spec.md §6.9): its capture program and transform feedback
// object, and the color pass's program reading it.
std::unique_ptr<gl::SkinnedVertexCache> make_skinned_vertex_cache(const CrowdRenderer::State& state) {
  const bool buffers = state.storage == PaletteStorage::storage_buffer;
  const gl::ShaderDialect dialect = buffers ? gl::ShaderDialect::glsl430 : gl::plain_dialect("CrowdRenderer");
  auto c = std::make_unique<gl::SkinnedVertexCache>();
  const std::string vertex = gl::skin_vertex_source(dialect, buffers);
  const std::string fragment = gl::skin_fragment_source(dialect);
  c->capture.program = gl::link_program("crowd_skin_program", vertex.c_str(), fragment.c_str(), gl::skinned_outputs);
  c->capture.uniforms = find_uniforms(c->capture.program.name());
  if (!buffers) {
    glUseProgram(c->capture.program.name());
    set_data_units(c->capture.program.name());
  }
  c->feedback = gl::make_transform_feedback();
  c->programs[std::size_t(gl::ProgramKind::color)] = make_program(state, gl::ProgramKind::color, true);
  c->texture_width = std::min(state.limits.max_texture_size, gl::kSkinnedTextureSide);
  return c;
}

// The program of `kind` (with `cached`, the skinned-vertex cache's), linked on first use.
const gl::CrowdProgram& program_for(CrowdRenderer::State& state, gl::ProgramKind kind, bool cached) {
  gl::CrowdProgram& p = cached ? state.skinned->programs[std::size_t(kind)] : state.programs[std::size_t(kind)];
  if (!p.program) p = make_program(state, kind, cached);
  return p;
}

// Whether a depth or velocity pass must run the cutout fragment shader for `group`: a MASK
// material, or instances of both windings (culled per instance in the fragment shader).
bool cuts_out(const Asset& asset, const gl::GroupGpu& group, int winding) {
  if (winding == 0) return true;
  return std::any_of(group.partitions.begin(), group.partitions.end(), [&asset](const gl::MaterialPartition& part) {
    return part.material >= 0 && static_cast<std::size_t>(part.material) < asset.materials.size() &&
           asset.materials[static_cast<std::size_t>(part.material)].alpha_mode == AlphaMode::mask;
  });
}

// Grows `out` to hold `instances` × `vertex_count` skinned vertices of group `group` in pieces,
// each its own buffer of at most GL_MAX_SHADER_STORAGE_BLOCK_SIZE bytes and under 2 GiB
// (storage path) or its own texture of at most gl::kSkinnedTextureSide² texels (texture path,
// with the buffer it is copied from): no binding, offset or transform feedback write past what
// one piece holds (llvmpipe crashed writing one buffer past 2 GiB). Whole pieces stay when the
// group grows. Throws Error "palette_too_large" naming the limit when one instance's vertices
// exceed a piece; `out` is unchanged then.
void reserve_skinned(const CrowdRenderer::State& state, gl::SkinnedVertexCache& c, gl::SkinnedVertices& out,
                     std::size_t instances, std::uint32_t vertex_count, std::size_t group) {
  if (instances == 0 || vertex_count == 0) return;
  if (vertex_count == out.vertex_count && instances <= out.capacity) return;
  constexpr std::size_t kRowBytes = 3 * sizeof(glm::vec4);
  constexpr std::size_t kMaxPieceBytes = 0x7FFFFFFF;
  const std::size_t instance_bytes = std::size_t{vertex_count} * kRowBytes;
  const bool buffers = state.storage == PaletteStorage::storage_buffer;
  const auto width = static_cast<std::size_t>(c.texture_width);  // also the most rows
  const std::size_t piece =
      buffers
          ? std::min(static_cast<std::size_t>(state.limits.max_storage_block_bytes), kMaxPieceBytes) / instance_bytes
          : width * width / (3 * vertex_count);
  if (piece == 0) {
    throw Error(fmt::format("CrowdRendererOptions.skinned_vertex_cache.groups[{}]", group), Rule::palette_too_large,
                buffers ? fmt::format("one instance's {} skinned vertices need {} bytes; "
                                      "GL_MAX_SHADER_STORAGE_BLOCK_SIZE is {}",
                                      vertex_count, instance_bytes, state.limits.max_storage_block_bytes)
                        : fmt::format("one instance's {} skinned vertices need {} texels; a texture holds {} × {}",
                                      vertex_count, 3 * std::size_t{vertex_count}, width, width));
  }
  const bool same = vertex_count == out.vertex_count;
  const std::size_t capacity = std::max(instances, same ? out.capacity + out.capacity / 2 : std::size_t{0});
  const std::size_t kept = same ? out.capacity / piece : 0;  // whole pieces keep their objects
  out.buffers.resize(kept);
  out.textures.resize(buffers ? 0 : kept);
  for (std::size_t first = kept * piece; first < capacity; first += piece) {
    const std::size_t n = std::min(piece, capacity - first);
    // The texture path's copy reads whole rows: up to one row past the last vertex.
    out.buffers.push_back(gl::make_dynamic_buffer(n * instance_bytes + (buffers ? 0 : width * sizeof(glm::vec4))));
    if (!buffers)
      out.textures.push_back(gl::make_data_texture(
          static_cast<std::uint32_t>(width), static_cast<std::uint32_t>((3 * n * vertex_count + width - 1) / width)));
  }
  if (!buffers) glBindTexture(GL_TEXTURE_2D, 0);
  out.vertex_count = vertex_count;
  out.capacity = capacity;
  out.piece = piece;
}

// Deforms every instance's vertices of every non-empty group once, by transform feedback into
// its SkinnedVertices, when something they depend on changed (the group's instances are
// uploaded: upload_group_instances ran); the texture path then copies the rows into the group's
// texture. Leaves the capture program current.
void refresh_skinned_vertices(CrowdRenderer::State& state, const Crowd& crowd, RenderStats& stats) {
  gl::SkinnedVertexCache& c = *state.skinned;
  const auto groups = crowd.primitive_groups();
  c.groups.resize(groups.size());
  // What a capture leaves in a group's rows: its primitive, or ~0u while it is empty (no rows:
  // when instances return it must be captured, though its slot list may come back unchanged and
  // upload nothing). A group that stays empty does not make the cache stale.
  const auto captured_primitive = [&](std::size_t i) {
    const std::uint32_t primitive = state.drawables[state.groups[i].drawable].primitive;
    return groups[i].instances.empty() || state.primitives[primitive].vertex_count == 0 ? ~0u : primitive;
  };
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const gl::SkinnedVertices& rows = c.groups[i];
    if (rows.primitive != captured_primitive(i) || rows.stream != groups[i].stream) c.stale = true;
  }
  if (!c.stale) return;
  gl::StateCache& cache = state.cache;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const gl::PrimitiveGpu& p = state.primitives[state.drawables[state.groups[i].drawable].primitive];
    reserve_skinned(state, c, c.groups[i], groups[i].instances.size(), p.vertex_count, i);
  }
  // make_dynamic_buffer left the last new buffer on GL_COPY_WRITE_BUFFER: not while transform
  // feedback writes it; make_data_texture bound (then unbound) a texture on the active unit.
  glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
  cache.forget_bindings();
  cache.use_program(c.capture.program.name());
  glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, c.feedback.name());
  const GLboolean discarding = glIsEnabled(GL_RASTERIZER_DISCARD);  // the application's, for the passes
  glEnable(GL_RASTERIZER_DISCARD);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const PrimitiveGroup& group = groups[i];
    const gl::DrawableGpu& d = state.drawables[state.groups[i].drawable];
    const gl::PrimitiveGpu& p = state.primitives[d.primitive];
    gl::SkinnedVertices& out = c.groups[i];
    out.primitive = captured_primitive(i);
    out.stream = group.stream;
    if (out.primitive == ~0u) continue;
    cache.bind_vertex_array(d.vertex_array.name());
    bind_group_data(
        state, group_sources(state, crowd, i), group.stream, c.capture.uniforms, nullptr, false,
        [&cache](GLuint binding, GLuint name) { cache.bind_storage(binding, name); },
        [&cache](GLint unit, GLuint name) { cache.bind_texture(unit, name); });
    const std::size_t instances = group.instances.size();
    for (std::size_t k = 0; k * out.piece < instances; ++k) {  // each piece into its buffer
      glUniform1ui(c.capture.uniforms.instance_offset, static_cast<GLuint>(k * out.piece));
      glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, out.buffers[k].name());
      glBeginTransformFeedback(GL_POINTS);
      glDrawArraysInstanced(GL_POINTS, 0, static_cast<GLsizei>(p.vertex_count),
                            static_cast<GLsizei>(std::min(out.piece, instances - k * out.piece)));
      glEndTransformFeedback();
    }
    stats.cached_vertices += std::uint64_t{p.vertex_count} * group.instances.size();
  }
  glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, 0);
  if (!discarding) glDisable(GL_RASTERIZER_DISCARD);
  glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, 0);
  gl::check_gl("glDrawArraysInstanced(skinned vertex capture)");
  if (state.storage == PaletteStorage::texture) {
    glActiveTexture(static_cast<GLenum>(GL_TEXTURE0 + gl::unit::skinned_vertices));
    const auto width = static_cast<std::size_t>(c.texture_width);
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const gl::SkinnedVertices& rows = c.groups[i];
      if (rows.primitive == ~0u) continue;  // empty: no rows
      const std::size_t instances = groups[i].instances.size();
      for (std::size_t k = 0; k * rows.piece < instances; ++k) {
        const std::size_t texels = 3 * std::min(rows.piece, instances - k * rows.piece) * rows.vertex_count;
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, rows.buffers[k].name());
        glBindTexture(GL_TEXTURE_2D, rows.textures[k].name());
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, c.texture_width, static_cast<GLsizei>((texels + width - 1) / width),
                        GL_RGBA, GL_FLOAT, nullptr);
      }
    }
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    cache.forget_bindings();
    gl::check_gl("glTexSubImage2D(skinned vertices)");
  }
  c.stale = false;
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
    : crowd_(crowd.link()), storage_(choose_storage(options.palette)), time_animation_(options.time_animation) {
  auto state = std::make_unique<State>();
  state->storage = storage_;
  state->egl_context = gl::current_egl_context();
  const bool buffers = storage_ == PaletteStorage::storage_buffer;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &state->limits.max_texture_size);
  if (crowd.animation() == Animation::gpu) {
    gl::require_compute("Crowd.animation");
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &state->limits.max_storage_block_bytes);
  }
  if (buffers) {
    GLint vertex_blocks = 0;
    glGetIntegerv(GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS, &vertex_blocks);
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &state->limits.max_storage_block_bytes);
    if (vertex_blocks < static_cast<GLint>(gl::binding::count)) {
      throw Error("CrowdRendererOptions.palette", Rule::gl_version,
                  fmt::format("GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS = {} < {}", vertex_blocks, gl::binding::count));
    }
  }
  if (options.skinned_vertex_cache && epoxy_is_desktop_gl() && epoxy_gl_version() < 40) {
    throw Error("CrowdRendererOptions.skinned_vertex_cache", Rule::gl_version,
                fmt::format("the skinned-vertex cache needs transform feedback objects: desktop OpenGL 4.0 or "
                            "OpenGL ES 3.0; the current context is OpenGL {}.{}",
                            epoxy_gl_version() / 10, epoxy_gl_version() % 10));
  }
  gl::check_gl("glGetIntegerv(limits)");
  const gl::StateGuard guard(false, crowd.animation() == Animation::gpu);
  try {
    state->programs[std::size_t(gl::ProgramKind::color)] = make_program(*state, gl::ProgramKind::color, false);
    if (options.skinned_vertex_cache) state->skinned = make_skinned_vertex_cache(*state);
    if (buffers) state->dummy = gl::make_dynamic_buffer(16);
    if (options.previous_frame) keep_previous_frame(*state, crowd);
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
  return draw_pass(crowd, camera, Pass::color, nullptr);
}

std::uint32_t CrowdRenderer::draw_depth(const Crowd& crowd, const Camera& camera) {
  return draw_pass(crowd, camera, Pass::depth, nullptr);
}

std::uint32_t CrowdRenderer::draw_velocity(const Crowd& crowd, const Camera& camera, const Camera& previous_camera) {
  return draw_pass(crowd, camera, Pass::velocity, &previous_camera);
}

std::uint32_t CrowdRenderer::draw_pass(const Crowd& crowd, const Camera& camera, Pass pass,
                                       const Camera* previous_camera) {
  gl::require_own_crowd(crowd, crowd_,
                        pass == Pass::color   ? "CrowdRenderer.draw"
                        : pass == Pass::depth ? "CrowdRenderer.draw_depth"
                                              : "CrowdRenderer.draw_velocity");
  gl::begin_call_stats(stats_, crowd);
  if (!state_ || crowd.destroyed()) return 0;
  State& state = *state_;
  const bool buffers = state.storage == PaletteStorage::storage_buffer;
  const bool depth_only = pass == Pass::depth, velocity = pass == Pass::velocity;
  // The velocity pass reads the previous frame's data instead of the cache (it deforms twice).
  const bool cached = state.skinned && !velocity;
  // The velocity pass binds storage up to binding::velocity_count and the cached passes up to
  // binding::draw_count: the wider save covers both (only where storage buffers exist: the
  // texture path may run on OpenGL 3.3 or ES 3.0).
  const gl::StateGuard guard(buffers, crowd.animation() == Animation::gpu || ((velocity || cached) && buffers), cached);
  const gl::ProgramKind kind = depth_only ? gl::ProgramKind::depth
                               : velocity ? gl::ProgramKind::velocity
                                          : gl::ProgramKind::color;
  const gl::CrowdProgram& program = program_for(state, kind, cached);
  // The depth pass draws groups without cutouts with a fragment shader that cannot discard.
  const gl::CrowdProgram* opaque = depth_only ? &program_for(state, gl::ProgramKind::depth_opaque, cached) : nullptr;
  if (velocity) keep_previous_frame(state, crowd);
  advance_frame(state, crowd);
  sync_layout(state, crowd);

  gl::StateCache& cache = state.cache;
  cache.invalidate();
  prepare_streams(state, crowd, time_animation_, stats_);
  const auto streams = crowd.node_streams();
  const bool remap = velocity && upload_previous_slots(state, crowd);
  // The previous frame's stream set; until the history holds one, this frame's (no motion but
  // the camera's).
  const std::vector<gl::StreamGpu>& previous =
      state.history && state.history->valid ? state.history->streams : state.streams;
  gl::begin_frame();
  upload_group_instances(state, crowd);
  for (const gl::GroupGpu& g : state.groups) {  // the partitions this pass draws, past the first
    const auto drawn = std::count_if(g.partitions.begin(), g.partitions.end(), [&](const gl::MaterialPartition& part) {
      return part.count > 0 && (pass == Pass::color || !gl::is_blended(crowd.asset(), part.material));
    });
    if (drawn > 1) stats_.variant_draws += static_cast<std::uint32_t>(drawn - 1);
  }
  if (cached) refresh_skinned_vertices(state, crowd, stats_);

  for (const gl::CrowdProgram* p : {opaque, &program}) {
    if (!p) continue;
    cache.use_program(p->program.name());
    glUniformMatrix4fv(p->uniforms.view_projection, 1, GL_FALSE, glm::value_ptr(camera.projection * camera.view));
  }
  if (velocity) {
    glUniformMatrix4fv(program.uniforms.previous_view_projection, 1, GL_FALSE,
                       glm::value_ptr(previous_camera->projection * previous_camera->view));
  }
  if (pass == Pass::color) gl::set_lighting(cache, program.material, camera);
  if (depth_only) glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);  // the guard restores it

  const Asset& asset = crowd.asset();
  const auto groups = crowd.primitive_groups();
  for (const bool blended_pass : {false, true}) {
    if (blended_pass && pass != Pass::color) break;  // BLEND surfaces write no depth in draw() either
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const PrimitiveGroup& group = groups[i];
      gl::GroupGpu& g = state.groups[i];
      const gl::DrawableGpu& d = state.drawables[g.drawable];
      const gl::PrimitiveGpu& p = state.primitives[d.primitive];
      if (group.instances.empty() ||
          std::none_of(g.partitions.begin(), g.partitions.end(), [&](const gl::MaterialPartition& part) {
            return gl::is_blended(asset, part.material) == blended_pass;
          }))
        continue;
      // One winding per draw when the instances agree; otherwise the fragment shader culls
      // each instance by the sign of its transform's determinant.
      const int winding = group_winding(streams[group.stream], group.instances);
      const gl::CrowdProgram& drawn = opaque && !cuts_out(asset, g, winding) ? *opaque : program;
      const gl::CrowdUniforms& u = drawn.uniforms;
      cache.use_program(drawn.program.name());
      cache.bind_vertex_array(d.vertex_array.name());
      bind_group_data(
          state, group_sources(state, crowd, i), group.stream, u, velocity ? &previous : nullptr, remap,
          [&cache](GLuint binding, GLuint name) { cache.bind_storage(binding, name); },
          [&cache](GLint unit, GLuint name) { cache.bind_texture(unit, name); });
      // A group whose primitive has no vertices holds no rows (and draws nothing either way).
      const gl::SkinnedVertices* skinned =
          cached && state.skinned->groups[i].primitive != ~0u ? &state.skinned->groups[i] : nullptr;
      if (skinned && !buffers) glUniform1ui(u.skinned_width, static_cast<GLuint>(state.skinned->texture_width));
      std::size_t bound_piece = ~std::size_t{0};
      for (const gl::MaterialPartition& part : g.partitions) {
        if (part.count == 0 || gl::is_blended(asset, part.material) != blended_pass) continue;
        gl::bind_material(cache, drawn.material, state.textures, asset, part.material, p.layout.has_tangent,
                          winding == 0);
        gl::set_material_state(cache, asset, part.material);
        if (winding == 0) cache.set_cull(false);
        cache.set_front_face(winding < 0 ? GL_CW : GL_CCW);
        // One draw per piece of the skinned-vertex cache the partition's instances lie in.
        for (std::uint32_t first = part.first, end = part.first + part.count; first < end;) {
          std::uint32_t count = end - first;
          if (skinned) {
            const std::size_t k = first / skinned->piece;
            const std::size_t piece_first = k * skinned->piece;
            count = static_cast<std::uint32_t>(std::min<std::size_t>(count, piece_first + skinned->piece - first));
            if (k != bound_piece) {
              bound_piece = k;
              if (buffers)
                cache.bind_storage(gl::binding::skinned_vertices, skinned->buffers[k].name());
              else
                cache.bind_texture(gl::unit::skinned_vertices, skinned->textures[k].name());
              glUniform1ui(u.skinned_first, static_cast<GLuint>(piece_first));
            }
          }
          glUniform1ui(u.instance_offset, first);
          cache.draw_elements_instanced(p.mode, static_cast<GLsizei>(std::min(group.index_count, d.index_count)),
                                        static_cast<GLsizei>(count));
          first += count;
        }
        stats_.instances += part.count;
        stats_.triangles += std::uint64_t{group.triangle_count} * part.count;
      }
    }
  }
  gl::check_gl("glDrawElementsInstanced");
  stats_.draws = cache.draws();
  stats_.upload_bytes = cache.upload_bytes();
  gl::end_call_stats(stats_);
  return stats_.draws;
}

void CrowdRenderer::animate(const Crowd& crowd) {
  gl::require_own_crowd(crowd, crowd_, "CrowdRenderer.animate");
  gl::begin_call_stats(stats_, crowd);
  if (!state_ || crowd.destroyed()) return;
  State& state = *state_;
  const bool buffers = state.storage == PaletteStorage::storage_buffer;
  const bool cached = state.skinned != nullptr;
  const gl::StateGuard guard(buffers, crowd.animation() == Animation::gpu || (cached && buffers), cached);
  advance_frame(state, crowd);
  sync_layout(state, crowd);
  state.cache.invalidate();
  prepare_streams(state, crowd, time_animation_, stats_);
  if (cached) {  // skinned once here, the frame's passes only read
    gl::set_absent_attribute_values();
    upload_group_instances(state, crowd);
    refresh_skinned_vertices(state, crowd, stats_);
  }
  gl::check_gl("CrowdRenderer::animate");
  stats_.upload_bytes = state.cache.upload_bytes();
  gl::end_call_stats(stats_);
}

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
    sync_layout(state, crowd);
    state.cache.invalidate();
    if (!pg.instances.empty()) gl::upload_instances(state.cache, state.groups[group], pg.instances, state.storage);
    if (state.skinned && state.cache.upload_bytes() != 0) state.skinned->stale = true;  // the slot order changed
    remap = state.history && upload_previous_slots(state, crowd);
  }
  const std::vector<gl::StreamGpu>* previous = !state.history         ? nullptr
                                               : state.history->valid ? &state.history->streams
                                                                      : &state.streams;
  state.cache.forget_bindings();
  const GroupSources sources = group_sources(state, crowd, group);
  const gl::CrowdUniforms u = find_uniforms(program);

  GLint active_unit = GL_TEXTURE0;  // the application's, put back: only the bindings stay
  glGetIntegerv(GL_ACTIVE_TEXTURE, &active_unit);
  glUseProgram(program);
  glBindVertexArray(sources.drawable.vertex_array.name());
  // Not through the state cache, which the next call invalidates anyway. texelFetch ignores
  // filtering, but a sampler object would still decide the textures' completeness: none on the
  // data units, as under the renderer's own draws (the guard put the application's back).
  bind_group_data(
      state, sources, pg.stream, u, previous, remap,
      [](GLuint binding, GLuint name) { glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, name); },
      [](GLint unit, GLuint name) {
        glActiveTexture(static_cast<GLenum>(GL_TEXTURE0 + unit));
        glBindTexture(GL_TEXTURE_2D, name);
        glBindSampler(static_cast<GLuint>(unit), 0);
      });
  glActiveTexture(static_cast<GLenum>(active_unit));
  if (!buffers) set_data_units(program);
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

std::vector<NodeStream> CrowdRenderer::read_node_streams(const Crowd& crowd) { return read_streams(crowd, false); }

std::vector<NodeStream> CrowdRenderer::read_previous_node_streams(const Crowd& crowd) {
  return read_streams(crowd, true);
}

std::vector<NodeStream> CrowdRenderer::read_streams(const Crowd& crowd, bool previous_frame) {
  gl::require_own_crowd(
      crowd, crowd_, previous_frame ? "CrowdRenderer.read_previous_node_streams" : "CrowdRenderer.read_node_streams");
  std::vector<NodeStream> out;
  if (!state_ || crowd.destroyed()) return out;
  State& state = *state_;
  if (previous_frame && !(state.history && state.history->valid)) return out;
  const bool gpu = crowd.animation() == Animation::gpu;
  const bool buffers = state.storage == PaletteStorage::storage_buffer;
  // The evaluator's staging buffers hold the current frame only: earlier ones are in textures.
  const bool staged = gpu && !previous_frame;
  if (!buffers && !staged && !epoxy_is_desktop_gl())
    throw Error(previous_frame ? "CrowdRenderer.read_previous_node_streams" : "CrowdRenderer.read_node_streams",
                Rule::gl_version, "reading textures back needs desktop OpenGL");
  const std::vector<gl::StreamGpu>& set = previous_frame ? state.history->streams : state.streams;
  const gl::StateGuard guard(buffers, gpu);
  state.cache.invalidate();  // the guard of the last call put the application's bindings back
  GLint copy_read = 0;
  glGetIntegerv(GL_COPY_READ_BUFFER_BINDING, &copy_read);
  // The previous set holds the slots of its own membership (actors may have come and gone since).
  const std::size_t live = previous_frame ? state.history->serials.size() : crowd.actor_count();
  // Buffers hold the rows byte for byte; textures one texel row per slot of the same bytes.
  const auto read = [&](const gl::Object& buffer, const gl::Object& texture, std::vector<glm::vec4>& rows,
                        std::size_t per_slot) {
    rows.assign(live * per_slot, glm::vec4(0.0f));
    if (rows.empty()) return;
    if (buffer) {
      glBindBuffer(GL_COPY_READ_BUFFER, buffer.name());
      glGetBufferSubData(GL_COPY_READ_BUFFER, 0, static_cast<GLsizeiptr>(rows.size() * sizeof(glm::vec4)), rows.data());
    } else if (texture) {
      std::vector<glm::vec4> all;
      GLint width = 0, height = 0;
      state.cache.bind_texture(gl::unit::transforms, texture.name());
      glActiveTexture(GL_TEXTURE0 + gl::unit::transforms);
      glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_WIDTH, &width);
      glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_HEIGHT, &height);
      if (static_cast<std::size_t>(width) < per_slot || static_cast<std::size_t>(height) < live)
        throw Error("CrowdRenderer.read_node_streams", Rule::gl_call_failed,
                    fmt::format("a stream texture of {} × {} texels cannot hold {} slots of {}", width, height, live,
                                per_slot));
      all.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
      glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_FLOAT, all.data());
      for (std::size_t slot = 0; slot < live; ++slot)
        std::copy_n(all.begin() + static_cast<std::ptrdiff_t>(slot * static_cast<std::size_t>(width)), per_slot,
                    rows.begin() + static_cast<std::ptrdiff_t>(slot * per_slot));
    }
  };
  const auto streams = crowd.node_streams();
  for (std::size_t i = 0; i < streams.size() && i < set.size(); ++i) {
    const NodeStream& s = streams[i];
    NodeStream r;
    r.node = s.node;
    r.joint_count = s.joint_count;
    r.weight_stride = s.weight_stride;
    r.palette_stream = s.palette_stream;
    // Textures in GPU mode were filled from the staging buffers, which hold the same bytes.
    const gl::StreamGpu* buffer_copy = buffers ? &set[i] : staged ? &state.staging[i] : nullptr;
    const gl::StreamGpu& tex = set[i];
    const gl::Object none;
    read(buffer_copy ? buffer_copy->transforms : none, buffer_copy ? none : tex.transforms, r.transforms, 3);
    if (s.palette_stream == i)
      read(buffer_copy ? buffer_copy->palette : none, buffer_copy ? none : tex.palette, r.palette,
           3 * std::size_t{s.joint_count});
    std::vector<glm::vec4> quads;
    read(buffer_copy ? buffer_copy->weights : none, buffer_copy ? none : tex.weights, quads, s.weight_stride / 4);
    r.weights.resize(quads.size() * 4);
    for (std::size_t q = 0; q < quads.size(); ++q)
      for (int k = 0; k < 4; ++k) r.weights[q * 4 + static_cast<std::size_t>(k)] = quads[q][k];
    out.push_back(std::move(r));
  }
  glBindBuffer(GL_COPY_READ_BUFFER, static_cast<GLuint>(copy_read));
  state.cache.forget_bindings();
  gl::check_gl("CrowdRenderer::read_node_streams");
  return out;
}

std::vector<GpuPose> CrowdRenderer::read_poses(const Crowd& crowd) {
  gl::require_own_crowd(crowd, crowd_, "CrowdRenderer.read_poses");
  std::vector<GpuPose> out;
  if (!state_ || crowd.destroyed()) return out;
  if (crowd.animation() != Animation::gpu)
    throw Error("CrowdRenderer.read_poses", Rule::animation_mode,
                "the crowd evaluates its poses on the CPU (Animation::cpu): use Actor::local_pose and node_world");
  State& state = *state_;
  gl::require_compute("Crowd.animation");
  const gl::StateGuard guard(state.storage == PaletteStorage::storage_buffer, true);
  GLint copy_read = 0;
  glGetIntegerv(GL_COPY_READ_BUFFER_BINDING, &copy_read);
  if (!state.pose_reader) {
    auto reader = std::make_unique<gl::GpuAnimation>();
    try {
      gl::build_gpu_animation(*reader, crowd, {.all_nodes = true, .frame = false});
    } catch (...) {
      reader->for_each_object([](gl::Object& o) { o.reset(); });
      throw;
    }
    state.pose_reader = std::move(reader);
  }
  gl::GpuAnimation& reader = *state.pose_reader;
  state.cache.invalidate();
  gl::animate(reader, state.cache, crowd, {}, false);
  std::vector<glm::vec4> locals, worlds;
  std::vector<float> weights;
  const std::size_t live = crowd.actor_count();
  gl::read_scratch(reader, live, locals, worlds, weights);
  glBindBuffer(GL_COPY_READ_BUFFER, static_cast<GLuint>(copy_read));
  state.cache.forget_bindings();
  const Asset& asset = crowd.asset();
  const Rig& rig = reader.rig;
  const std::size_t nodes = rig.node_count();
  const auto placements = crowd.placements();
  for (std::size_t slot = 0; slot < live; ++slot) {
    GpuPose pose{Pose(asset), std::vector<glm::mat4>(asset.nodes.size(), glm::mat4(1.0f))};
    for (std::size_t r = 0; r < nodes; ++r) {
      const std::uint32_t n = rig.asset_node[r];
      const glm::vec4* l = &locals[(slot * nodes + r) * 3];
      const bool animated = l[0].w != 0.0f;
      pose.local.translations[n] = animated ? glm::vec3(l[0]) : rig.rest_translation[r];
      pose.local.rotations[n] = animated ? glm::quat(l[1].w, l[1].x, l[1].y, l[1].z) : rig.rest_rotation[r];
      pose.local.scales[n] = animated ? glm::vec3(l[2]) : rig.rest_scale[r];
      Affine world;
      for (int k = 0; k < 3; ++k) world.rows[k] = worlds[(slot * nodes + r) * 3 + static_cast<std::size_t>(k)];
      pose.world[n] = placements[slot] * to_mat4(world);
    }
    std::copy_n(weights.begin() + static_cast<std::ptrdiff_t>(slot * reader.weight_count), reader.weight_count,
                pose.local.weights.begin());
    out.push_back(std::move(pose));
  }
  gl::check_gl("CrowdRenderer::read_poses");
  return out;
}

}  // namespace gltf_crowd
