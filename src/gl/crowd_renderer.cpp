// The instanced crowd backend (docs/spec.md §4–§6): construction and the passes, one
// glDrawElementsInstanced per material partition of each non-empty primitive group. The steps the
// passes share (uploads, bindings, history, cache, GPU evaluation) are in renderer_steps.hpp's files.
#include "gltf_crowd/gl_renderers.hpp"

#include <algorithm>
#include <string>

#include <epoxy/gl.h>
#include <fmt/format.h>
#include <glm/gtc/type_ptr.hpp>

#include "gl/group_binding.hpp"
#include "gl/renderer_lifetime.hpp"
#include "gl/renderer_steps.hpp"
#include "gl/state_guard.hpp"

namespace gltf_crowd {

enum class CrowdRenderer::Pass : std::uint8_t { color, depth, velocity };

namespace {

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

// Whether a depth or velocity pass must run the cutout fragment shader for `group`: a MASK
// material, or instances of both windings (culled per instance in the fragment shader).
bool cuts_out(const Asset& asset, const gl::GroupGpu& group, int winding) {
  if (winding == 0) return true;
  return std::any_of(group.partitions.begin(), group.partitions.end(), [&asset](const gl::MaterialPartition& part) {
    return part.material >= 0 && static_cast<std::size_t>(part.material) < asset.materials.size() &&
           asset.materials[static_cast<std::size_t>(part.material)].alpha_mode == AlphaMode::mask;
  });
}

}  // namespace

CrowdRenderer::CrowdRenderer(const Crowd& crowd, const CrowdRendererOptions& options)
    : crowd_(crowd.link()), storage_(gl::choose_storage(options.palette)), time_animation_(options.time_animation) {
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
    state->programs[std::size_t(gl::ProgramKind::color)] =
        gl::make_crowd_program(*state, gl::ProgramKind::color, false);
    if (options.skinned_vertex_cache) state->skinned = gl::make_skinned_vertex_cache(*state);
    if (buffers) state->dummy = gl::make_dynamic_buffer(16);
    if (options.previous_frame) gl::keep_previous_frame(*state, crowd);
    if (!crowd.destroyed()) {
      state->textures = gl::MaterialTextures(crowd.asset());
      gl::sync_layout(*state, crowd);
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
  const gl::CrowdProgram& program = gl::program_for(state, kind, cached);
  // The depth pass draws groups without cutouts with a fragment shader that cannot discard.
  const gl::CrowdProgram* opaque =
      depth_only ? &gl::program_for(state, gl::ProgramKind::depth_opaque, cached) : nullptr;
  if (velocity) gl::keep_previous_frame(state, crowd);
  gl::advance_frame(state, crowd);
  gl::sync_layout(state, crowd);

  gl::StateCache& cache = state.cache;
  cache.invalidate();
  gl::prepare_streams(state, crowd, time_animation_, stats_);
  const auto streams = crowd.node_streams();
  const bool remap = velocity && gl::upload_previous_slots(state, crowd);
  // The previous frame's stream set; until the history holds one, this frame's (no motion but
  // the camera's).
  const std::vector<gl::StreamGpu>& previous =
      state.history && state.history->valid ? state.history->streams : state.streams;
  gl::begin_frame();
  gl::upload_group_instances(state, crowd);
  for (const gl::GroupGpu& g : state.groups) {  // the partitions this pass draws, past the first
    const auto drawn = std::count_if(g.partitions.begin(), g.partitions.end(), [&](const gl::MaterialPartition& part) {
      return part.count > 0 && (pass == Pass::color || !gl::is_blended(crowd.asset(), part.material));
    });
    if (drawn > 1) stats_.variant_draws += static_cast<std::uint32_t>(drawn - 1);
  }
  if (cached) gl::refresh_skinned_vertices(state, crowd, stats_);

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
      gl::bind_group_data(
          state, gl::group_sources(state, crowd, i), group.stream, u, velocity ? &previous : nullptr, remap,
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
  gl::advance_frame(state, crowd);
  gl::sync_layout(state, crowd);
  state.cache.invalidate();
  gl::prepare_streams(state, crowd, time_animation_, stats_);
  if (cached) {  // skinned once here, the frame's passes only read
    gl::set_absent_attribute_values();
    gl::upload_group_instances(state, crowd);
    gl::refresh_skinned_vertices(state, crowd, stats_);
  }
  gl::check_gl("CrowdRenderer::animate");
  stats_.upload_bytes = state.cache.upload_bytes();
  gl::end_call_stats(stats_);
}

}  // namespace gltf_crowd
