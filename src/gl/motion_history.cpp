// The previous frame kept for draw_velocity (docs/spec.md §6.4, MotionHistory): a second stream set
// swapped with the current one when the crowd's frame moves, and the slot map when actors change.
#include <algorithm>
#include <memory>
#include <utility>

#include <epoxy/gl.h>

#include "gl/renderer_steps.hpp"

namespace gltf_crowd::gl {

void reserve_history_streams(CrowdRenderer::State& state, const Crowd& crowd) {
  const auto streams = crowd.node_streams();
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

void keep_previous_frame(CrowdRenderer::State& state, const Crowd& crowd) {
  if (state.history) return;
  state.history = std::make_unique<gl::MotionHistory>();
  state.frame = crowd.frame();
}

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

}  // namespace gltf_crowd::gl
