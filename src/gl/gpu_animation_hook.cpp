// Where CrowdRenderer meets the GPU evaluator (Animation::gpu, gpu_animation.hpp): building it for
// the crowd's streams, pointing it at the stream objects, running it before the passes.
#include <memory>

#include <epoxy/gl.h>

#include "gl/renderer_steps.hpp"

namespace gltf_crowd::gl {
namespace {

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

}  // namespace

void sync_gpu_animation(CrowdRenderer::State& state, const Crowd& crowd) {
  const auto streams = crowd.node_streams();
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

bool evaluate_on_gpu(CrowdRenderer::State& state, const Crowd& crowd, bool timed, RenderStats& stats) {
  const std::uint64_t evaluations = state.animation->evaluations;
  animate_on_gpu(state, crowd, timed);
  if (timed) {
    const gl::GpuMilliseconds ms = gl::gpu_milliseconds(*state.animation);
    stats.animation_ms = ms.total;
    using enum gl::AnimationPass;
    const auto pass = [&](gl::AnimationPass p) { return ms.passes[static_cast<std::size_t>(p)]; };
    stats.animation_pass_ms = {pass(sample), pass(weights), pass(hierarchy), pass(palette), pass(instances)};
  }
  return state.animation->evaluations != evaluations;  // the passes rewrote the streams
}

}  // namespace gltf_crowd::gl
