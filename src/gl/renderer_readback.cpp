// Read-back from CrowdRenderer's GPU copies: the node streams of this frame or the previous one,
// and the GPU evaluator's poses (read_poses), for tests and tools to compare with the CPU's.
#include <algorithm>
#include <memory>

#include <epoxy/gl.h>
#include <fmt/format.h>

#include "gl/renderer_lifetime.hpp"
#include "gl/renderer_state.hpp"
#include "gl/state_guard.hpp"

namespace gltf_crowd {

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
