// The reference path (docs/spec.md §6): one draw per actor per primitive group, vertices morphed and
// skinned on the CPU from the actor's public node_world and morph_weights, never from the
// crowd's packed palettes, so that it can judge the instanced images.
#include "gltf_crowd/gl_renderers.hpp"

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <epoxy/gl.h>
#include <fmt/format.h>
#include <glm/gtc/type_ptr.hpp>

#include "gl/material.hpp"
#include "gl/primitive_upload.hpp"
#include "gl/program.hpp"
#include "gl/reference_deform.hpp"
#include "gl/shaders.hpp"
#include "gl/renderer_lifetime.hpp"
#include "gl/state_cache.hpp"
#include "gl/state_guard.hpp"

namespace gltf_crowd {
namespace {

// An index array with a vertex array that reads position, normal and tangent from the shared
// dynamic buffer and texcoords and colors from the primitive's static buffer.
struct ReferenceDrawable {
  gl::Object indices;
  gl::Object vertex_array;
  gl::Object velocity_vertex_array;  // draw_velocity's: also the previous positions, built on first use
  std::uint32_t primitive = 0;
  std::uint32_t index_count = 0;
};

// What a pass read of every actor, kept for draw_velocity's previous frame: per slot its serial,
// the world matrices of the needed nodes (columns by `needed_index`) and the morph weights.
struct FrameInputs {
  std::uint64_t frame = 0;  // Crowd::frame()
  std::vector<std::uint64_t> serials;
  std::vector<std::int32_t> needed_index;
  std::size_t columns = 0;
  std::vector<glm::mat4> worlds;
  std::vector<float> weights;
};

}  // namespace

enum class ReferenceRenderer::Pass : std::uint8_t { color, depth, velocity };

struct ReferenceRenderer::State {
  void* egl_context = nullptr;  // context current at creation
  gl::Object program;
  GLint view_projection = -1;
  GLint tint = -1;
  gl::MaterialUniforms material_uniforms;
  // draw_depth's program: the reference vertex shader with depth_fragment_source, built on first use.
  gl::Object depth_program;
  GLint depth_view_projection = -1, depth_tint = -1;
  gl::MaterialUniforms depth_material_uniforms;
  // draw_velocity's program and the actors' inputs of the latest and of an earlier frame, kept
  // from its first call on.
  gl::Object velocity_program;
  GLint velocity_view_projection = -1, velocity_previous_view_projection = -1, velocity_tint = -1;
  gl::MaterialUniforms velocity_material_uniforms;
  bool keep_history = false;
  bool has_latest = false, has_previous = false;
  FrameInputs latest, previous;
  std::unordered_map<std::uint64_t, std::uint32_t> previous_slot_of;  // serial → slot in `previous`
  std::vector<glm::mat4> previous_joint_matrices;
  std::vector<gl::DeformedVertex> previous_deformed;
  gl::Object previous_vertices;  // dynamic: the previous frame's DeformedVertex per vertex
  gl::Object vertices;           // dynamic: DeformedVertex per vertex, replaced before every draw
  std::vector<gl::PrimitiveGpu> primitives;
  std::vector<std::vector<glm::vec3>> normals;  // per primitive: what the crowd path uploads
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> primitive_index;
  std::vector<ReferenceDrawable> drawables;
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::uint32_t> drawable_index;
  std::vector<std::uint32_t> group_drawable;  // per primitive group
  gl::MaterialTextures textures;
  gl::StateCache cache;

  // Per frame: world matrices of the nodes the groups need, per slot.
  std::vector<std::int32_t> needed_index;  // per node: column in `worlds`, or -1
  std::vector<std::uint32_t> needed_nodes;
  std::vector<glm::mat4> worlds;          // slot × needed_nodes.size()
  std::vector<float> weights;             // slot × total_weights: Actor::morph_weights
  std::vector<glm::vec4> tints;           // per slot: Actor::tint
  std::vector<std::uint32_t> variants;    // per slot: Actor::material_variant's index, or kNoVariant
  std::vector<glm::mat4> joint_matrices;  // scratch: world(joint) · IBM of one skin
  std::vector<gl::DeformedVertex> deformed;

  template <class Fn>
  void for_each_object(Fn&& fn) {
    fn(program);
    fn(depth_program);
    fn(velocity_program);
    fn(vertices);
    fn(previous_vertices);
    for (auto& p : primitives) fn(p.vertices);
    for (auto& d : drawables) {
      fn(d.indices);
      fn(d.vertex_array);
      fn(d.velocity_vertex_array);
    }
    textures.for_each_object(fn);
  }
};

namespace {

std::uint32_t primitive_for(ReferenceRenderer::State& state, const Asset& asset, const PrimitiveGroup& group) {
  auto key = std::make_pair(group.mesh, group.primitive);
  if (auto found = state.primitive_index.find(key); found != state.primitive_index.end()) {
    return found->second;
  }
  const Primitive& primitive = asset.meshes.at(group.mesh).primitives.at(group.primitive);
  state.primitives.push_back(gl::upload_primitive(primitive, gl::DeltaStorage::none, 0, {}));
  state.normals.push_back(primitive.normals.empty() ? gl::generated_normals(primitive) : primitive.normals);
  auto index = static_cast<std::uint32_t>(state.primitives.size() - 1);
  state.primitive_index.emplace(key, index);
  return index;
}

// Points the bound vertex array's attributes at the dynamic buffer (position, normal, tangent)
// and the primitive's static one (texcoords, color); with `previous_vertices`, also the
// previous frame's positions (the velocity pass).
void set_attributes(const gl::PrimitiveGpu& primitive, GLuint dynamic_vertices, GLuint previous_vertices) {
  namespace attribute = gl::attribute;
  constexpr auto stride = static_cast<GLsizei>(sizeof(gl::DeformedVertex));
  glBindBuffer(GL_ARRAY_BUFFER, dynamic_vertices);
  gl::float_attribute(attribute::position, 3, offsetof(gl::DeformedVertex, position), stride);
  gl::float_attribute(attribute::normal, 3, offsetof(gl::DeformedVertex, normal), stride);
  gl::float_attribute(attribute::tangent, 4, offsetof(gl::DeformedVertex, tangent), stride);
  if (previous_vertices != 0) {
    glBindBuffer(GL_ARRAY_BUFFER, previous_vertices);
    gl::float_attribute(attribute::previous_position, 3, offsetof(gl::DeformedVertex, position), stride);
  }
  glBindBuffer(GL_ARRAY_BUFFER, primitive.vertices.name());
  const gl::AttributeLayout& l = primitive.layout;
  if (l.has_texcoord0) gl::float_attribute(attribute::texcoord0, 2, l.texcoord0);
  if (l.has_texcoord1) gl::float_attribute(attribute::texcoord1, 2, l.texcoord1);
  if (l.has_color) gl::float_attribute(attribute::color, 4, l.color);
}

ReferenceDrawable make_drawable(const gl::PrimitiveGpu& primitive, GLuint dynamic_vertices,
                                std::span<const std::uint32_t> indices) {
  ReferenceDrawable drawable;
  drawable.index_count = static_cast<std::uint32_t>(indices.size());
  drawable.vertex_array = gl::make_vertex_array();
  glBindVertexArray(drawable.vertex_array.name());
  set_attributes(primitive, dynamic_vertices, 0);
  drawable.indices = gl::make_buffer();
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, drawable.indices.name());
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, static_cast<GLsizeiptr>(indices.size_bytes()), indices.data(), GL_STATIC_DRAW);
  gl::check_gl("glBufferData(GL_ELEMENT_ARRAY_BUFFER)");
  glBindVertexArray(0);
  return drawable;
}

// The drawable's vertex array for the velocity pass, made on first use.
GLuint velocity_vertex_array(ReferenceRenderer::State& state, ReferenceDrawable& drawable) {
  if (!drawable.velocity_vertex_array) {
    drawable.velocity_vertex_array = gl::make_vertex_array();
    glBindVertexArray(drawable.velocity_vertex_array.name());
    set_attributes(state.primitives[drawable.primitive], state.vertices.name(), state.previous_vertices.name());
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, drawable.indices.name());
    glBindVertexArray(0);
    gl::check_gl("glVertexAttribPointer(velocity)");
  }
  return drawable.velocity_vertex_array.name();
}

std::uint32_t drawable_for(ReferenceRenderer::State& state, const Crowd& crowd, const PrimitiveGroup& group) {
  auto key = std::make_tuple(group.mesh, group.primitive, group.level);
  if (auto found = state.drawable_index.find(key); found != state.drawable_index.end()) {
    return found->second;
  }
  const std::uint32_t primitive = primitive_for(state, crowd.asset(), group);
  ReferenceDrawable drawable =
      make_drawable(state.primitives[primitive], state.vertices.name(), crowd.group_indices(group));
  drawable.primitive = primitive;
  state.drawables.push_back(std::move(drawable));
  auto index = static_cast<std::uint32_t>(state.drawables.size() - 1);
  state.drawable_index.emplace(key, index);
  return index;
}

// The skin a group is deformed with (its source node's), or null for rigid groups.
const Skin* skin_of(const Asset& asset, const PrimitiveGroup& group, const Primitive& primitive) {
  const std::int32_t skin = asset.nodes[group.source_node].skin;
  if (group.joint_count == 0 || skin < 0 || primitive.joints0.empty()) return nullptr;
  return &asset.skins[static_cast<std::size_t>(skin)];
}

// Uploads what new groups need and lists the nodes whose world matrices the groups read: each
// group's source node and, for skinned groups, the skin's joints.
void sync_layout(ReferenceRenderer::State& state, const Crowd& crowd) {
  const Asset& asset = crowd.asset();
  const auto groups = crowd.primitive_groups();
  state.group_drawable.resize(groups.size());
  state.needed_index.assign(asset.nodes.size(), -1);
  state.needed_nodes.clear();
  auto need = [&state](std::uint32_t node) {
    if (state.needed_index[node] >= 0) return;
    state.needed_index[node] = static_cast<std::int32_t>(state.needed_nodes.size());
    state.needed_nodes.push_back(node);
  };
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const PrimitiveGroup& group = groups[i];
    state.group_drawable[i] = drawable_for(state, crowd, group);
    need(group.source_node);
    const Primitive& primitive = asset.meshes[group.mesh].primitives[group.primitive];
    if (const Skin* skin = skin_of(asset, group, primitive)) {
      for (std::uint32_t joint : skin->joints) need(joint);
    }
  }
}

// draw_velocity: the actor in `slot` deformed with its previous frame's node worlds and morph
// weights into state.previous_vertices; with this frame's (state.deformed, no motion of its
// own) when it did not exist then or a node it needs was not read then.
template <class PreviousWorld>
void deform_previous(ReferenceRenderer::State& state, const Crowd& crowd, const PrimitiveGroup& group,
                     const Primitive& primitive, const Skin* skin, std::uint32_t primitive_index, std::uint32_t slot,
                     const PreviousWorld& previous_world) {
  const Asset& asset = crowd.asset();
  state.previous_deformed = state.deformed;
  const auto found = state.previous_slot_of.find(crowd.actor_serials()[slot]);
  if (found != state.previous_slot_of.end()) {
    const std::uint32_t before = found->second;
    const glm::mat4* node_world = previous_world(before, group.source_node);
    bool complete = node_world != nullptr;
    state.previous_joint_matrices.resize(skin != nullptr ? skin->joints.size() : 0);
    for (std::size_t j = 0; complete && j < state.previous_joint_matrices.size(); ++j) {
      const glm::mat4* joint_world = previous_world(before, skin->joints[j]);
      complete = joint_world != nullptr;
      if (complete) state.previous_joint_matrices[j] = *joint_world * skin->inverse_bind_matrices[j];
    }
    if (complete) {
      const std::size_t total_weights = asset.total_weights;
      const gl::DeformJob job{
          .primitive = &primitive,
          .normals = state.normals[primitive_index],
          .weights = std::span<const float>(state.previous.weights)
                         .subspan(before * total_weights + asset.weight_offsets[group.source_node],
                                  asset.weight_counts[group.source_node]),
          .joint_matrices = state.previous_joint_matrices,
          .world = *node_world,
          .out = state.previous_deformed,
      };
      job.run();  // the same primitive and skin as this frame's job, which validated them
    }
  }
  state.cache.replace_vertices(state.previous_vertices.name(),
                               static_cast<GLsizeiptr>(state.previous_deformed.size() * sizeof(gl::DeformedVertex)),
                               state.previous_deformed.data());
}

}  // namespace

ReferenceRenderer::ReferenceRenderer(const Crowd& crowd) : crowd_(crowd.link()) {
  const gl::ShaderDialect dialect = gl::plain_dialect("ReferenceRenderer");
  auto state = std::make_unique<State>();
  state->egl_context = gl::current_egl_context();
  const gl::StateGuard guard(false);
  try {
    state->program = gl::link_program("reference_program", gl::reference_vertex_source(dialect).c_str(),
                                      gl::fragment_source(dialect).c_str());
    state->view_projection = glGetUniformLocation(state->program.name(), "u_view_projection");
    state->tint = glGetUniformLocation(state->program.name(), "u_tint");
    state->material_uniforms = gl::find_material_uniforms(state->program.name());
    state->vertices = gl::make_dynamic_buffer(16);
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

ReferenceRenderer::~ReferenceRenderer() { destroy(); }

std::size_t ReferenceRenderer::object_count() const noexcept { return gl::count_objects(state_); }

void ReferenceRenderer::destroy() noexcept { gl::release_objects(state_); }

std::uint32_t ReferenceRenderer::draw(const Crowd& crowd, const Camera& camera) {
  return draw_pass(crowd, camera, Pass::color, nullptr);
}

std::uint32_t ReferenceRenderer::draw_depth(const Crowd& crowd, const Camera& camera) {
  return draw_pass(crowd, camera, Pass::depth, nullptr);
}

std::uint32_t ReferenceRenderer::draw_velocity(const Crowd& crowd, const Camera& camera,
                                               const Camera& previous_camera) {
  return draw_pass(crowd, camera, Pass::velocity, &previous_camera);
}

std::uint32_t ReferenceRenderer::draw_pass(const Crowd& crowd, const Camera& camera, Pass pass,
                                           const Camera* previous_camera) {
  gl::require_own_crowd(crowd, crowd_,
                        pass == Pass::color   ? "ReferenceRenderer.draw"
                        : pass == Pass::depth ? "ReferenceRenderer.draw_depth"
                                              : "ReferenceRenderer.draw_velocity");
  gl::begin_call_stats(stats_, crowd);
  if (!state_ || crowd.destroyed()) return 0;
  State& state = *state_;
  const bool depth_only = pass == Pass::depth, velocity = pass == Pass::velocity;
  const gl::StateGuard guard(false);
  sync_layout(state, crowd);
  if (velocity && !state.velocity_program) {
    const gl::ShaderDialect dialect = gl::plain_dialect("ReferenceRenderer");
    state.velocity_program =
        gl::link_program("reference_velocity_program", gl::reference_velocity_vertex_source(dialect).c_str(),
                         gl::velocity_fragment_source(dialect).c_str());
    const GLuint program = state.velocity_program.name();
    state.velocity_view_projection = glGetUniformLocation(program, "u_view_projection");
    state.velocity_previous_view_projection = glGetUniformLocation(program, "u_previous_view_projection");
    state.velocity_tint = glGetUniformLocation(program, "u_tint");
    state.velocity_material_uniforms = gl::find_material_uniforms(program);
    state.previous_vertices = gl::make_dynamic_buffer(16);
    state.keep_history = true;
  }
  if (velocity) {
    for (std::size_t i = 0; i < state.group_drawable.size(); ++i)
      velocity_vertex_array(state, state.drawables[state.group_drawable[i]]);
  }
  // A new frame: the latest inputs, read in an earlier frame, become the previous frame's.
  if (state.keep_history && state.has_latest && state.latest.frame != crowd.frame()) {
    std::swap(state.latest, state.previous);
    state.has_previous = true;
    state.has_latest = false;
  }
  if (depth_only && !state.depth_program) {
    const gl::ShaderDialect dialect = gl::plain_dialect("ReferenceRenderer");
    state.depth_program = gl::link_program("reference_depth_program", gl::reference_vertex_source(dialect).c_str(),
                                           gl::depth_fragment_source(dialect).c_str());
    state.depth_view_projection = glGetUniformLocation(state.depth_program.name(), "u_view_projection");
    state.depth_tint = glGetUniformLocation(state.depth_program.name(), "u_tint");
    state.depth_material_uniforms = gl::find_material_uniforms(state.depth_program.name());
  }
  const Asset& asset = crowd.asset();

  // Every live actor's world matrices of the needed nodes, morph weights, tint and material
  // variant, straight from the public API.
  const std::vector<Actor> actors = crowd.actors();
  const std::size_t columns = state.needed_nodes.size();
  const std::size_t total_weights = asset.total_weights;
  state.worlds.resize(actors.size() * columns);
  state.weights.resize(actors.size() * total_weights);
  state.tints.resize(actors.size());
  state.variants.resize(actors.size());
  for (std::size_t slot = 0; slot < actors.size(); ++slot) {
    state.tints[slot] = actors[slot].tint();
    const std::string& variant = actors[slot].material_variant();
    const int index = variant.empty() ? -1 : asset.find_material_variant(variant);
    state.variants[slot] = index < 0 ? kNoVariant : static_cast<std::uint32_t>(index);
    for (std::size_t k = 0; k < columns; ++k) {
      state.worlds[slot * columns + k] = actors[slot].node_world(state.needed_nodes[k]);
    }
    if (total_weights > 0) {
      const std::vector<float> weights = actors[slot].morph_weights();
      std::copy(weights.begin(), weights.end(),
                state.weights.begin() + static_cast<std::ptrdiff_t>(slot * total_weights));
    }
  }
  auto world = [&](std::uint32_t slot, std::uint32_t node) -> const glm::mat4& {
    return state.worlds[slot * columns + static_cast<std::size_t>(state.needed_index[node])];
  };
  if (state.keep_history) {
    FrameInputs& latest = state.latest;
    latest.frame = crowd.frame();
    const auto serials = crowd.actor_serials();
    latest.serials.assign(serials.begin(), serials.end());
    latest.needed_index = state.needed_index;
    latest.columns = columns;
    latest.worlds = state.worlds;
    latest.weights = state.weights;
    state.has_latest = true;
  }
  // The velocity pass's previous frame per actor: its slot in `previous`, when it was there
  // then and every node it needs was read.
  if (velocity) {
    state.previous_slot_of.clear();
    if (state.has_previous) {
      for (std::size_t slot = 0; slot < state.previous.serials.size(); ++slot)
        state.previous_slot_of.emplace(state.previous.serials[slot], static_cast<std::uint32_t>(slot));
    }
  }
  const auto previous_world = [&](std::uint32_t slot, std::uint32_t node) -> const glm::mat4* {
    const std::int32_t column = state.previous.needed_index.empty() ? -1 : state.previous.needed_index[node];
    if (column < 0) return nullptr;
    return &state.previous.worlds[slot * state.previous.columns + static_cast<std::size_t>(column)];
  };

  gl::StateCache& cache = state.cache;
  cache.invalidate();
  const gl::MaterialUniforms& material_uniforms = depth_only ? state.depth_material_uniforms
                                                  : velocity ? state.velocity_material_uniforms
                                                             : state.material_uniforms;
  cache.use_program(depth_only ? state.depth_program.name()
                    : velocity ? state.velocity_program.name()
                               : state.program.name());
  glUniformMatrix4fv(depth_only ? state.depth_view_projection
                     : velocity ? state.velocity_view_projection
                                : state.view_projection,
                     1, GL_FALSE, glm::value_ptr(camera.projection * camera.view));
  if (velocity)
    glUniformMatrix4fv(state.velocity_previous_view_projection, 1, GL_FALSE,
                       glm::value_ptr(previous_camera->projection * previous_camera->view));
  if (pass == Pass::color) gl::set_lighting(cache, material_uniforms, camera);
  gl::begin_frame();
  if (depth_only) glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);  // the guard restores it
  const GLint tint_uniform = depth_only ? state.depth_tint : velocity ? state.velocity_tint : state.tint;

  const auto groups = crowd.primitive_groups();
  for (const bool blended_pass : {false, true}) {
    if (blended_pass && pass != Pass::color) break;  // as CrowdRenderer::draw_depth
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const PrimitiveGroup& group = groups[i];
      const ReferenceDrawable& d = state.drawables[state.group_drawable[i]];
      const gl::PrimitiveGpu& p = state.primitives[d.primitive];
      if (group.instances.empty()) continue;
      const Primitive& primitive = asset.meshes[group.mesh].primitives[group.primitive];
      const Skin* skin = skin_of(asset, group, primitive);
      const std::uint32_t weight_offset = asset.weight_offsets[group.source_node];
      const std::uint32_t weight_count = asset.weight_counts[group.source_node];
      state.deformed.resize(primitive.vertex_count());
      state.joint_matrices.resize(skin != nullptr ? skin->joints.size() : 0);
      const GLuint vertex_array = velocity ? d.velocity_vertex_array.name() : d.vertex_array.name();

      bool bound = false;
      std::int32_t bound_material = -1;
      for (const std::uint32_t slot : group.instances) {
        // The actor's material variant picks the material (KHR_materials_variants), and with it
        // the pass the actor's copy of the primitive is drawn in.
        const std::int32_t material = primitive.material_for(state.variants[slot]);
        if (gl::is_blended(asset, material) != blended_pass) continue;
        if (!bound || material != bound_material) {
          cache.bind_vertex_array(vertex_array);
          gl::bind_material(cache, material_uniforms, state.textures, asset, material, !primitive.tangents.empty(),
                            false);
          gl::set_material_state(cache, asset, material);
          bound = true;
          bound_material = material;
        }
        glUniform4fv(tint_uniform, 1, glm::value_ptr(state.tints[slot]));
        const glm::mat4& node_world = world(slot, group.source_node);
        if (skin != nullptr) {
          for (std::size_t j = 0; j < skin->joints.size(); ++j) {
            state.joint_matrices[j] = world(slot, skin->joints[j]) * skin->inverse_bind_matrices[j];
          }
        }
        const gl::DeformJob job{
            .primitive = &primitive,
            .normals = state.normals[d.primitive],
            .weights =
                std::span<const float>(state.weights).subspan(slot * total_weights + weight_offset, weight_count),
            .joint_matrices = state.joint_matrices,
            .world = node_world,
            .out = state.deformed,
        };
        if (!job.run()) {
          throw Error(fmt::format("meshes[{}].primitives[{}]", group.mesh, group.primitive), Rule::reference_deform,
                      "the primitive's skin data does not match its skin");
        }
        cache.replace_vertices(state.vertices.name(),
                               static_cast<GLsizeiptr>(state.deformed.size() * sizeof(gl::DeformedVertex)),
                               state.deformed.data());
        if (velocity) deform_previous(state, crowd, group, primitive, skin, d.primitive, slot, previous_world);
        // glTF 2.0 "Instantiation": a mirroring transform (det < 0) reverses the front-face winding.
        cache.set_front_face(glm::determinant(glm::mat3(node_world)) < 0.0f ? GL_CW : GL_CCW);
        cache.draw_elements(p.mode, static_cast<GLsizei>(std::min(group.index_count, d.index_count)));
        stats_.triangles += group.triangle_count;
        ++stats_.instances;
      }
    }
  }
  gl::check_gl("glDrawElements");
  stats_.draws = cache.draws();
  stats_.upload_bytes = cache.upload_bytes();
  gl::end_call_stats(stats_);
  return stats_.draws;
}

}  // namespace gltf_crowd
