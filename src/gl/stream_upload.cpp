// The GPU copies of the crowd's data brought up to date: objects sized to its streams, groups and
// capacity, vertex and index data on first use, then per frame the changed slots' rows and tints.
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "gl/renderer_steps.hpp"

namespace gltf_crowd::gl {
namespace {

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

}  // namespace

void sync_layout(CrowdRenderer::State& state, const Crowd& crowd) {
  auto streams = crowd.node_streams();
  state.streams.resize(streams.size());
  for (std::size_t i = 0; i < streams.size(); ++i) {
    if (gl::reserve_stream(state.streams[i], streams[i], streams[i].palette_stream == i, crowd.capacity(),
                           state.storage, state.limits))
      state.upload_everything = true;
  }
  if (state.history) reserve_history_streams(state, crowd);
  if (crowd.animation() == Animation::gpu) sync_gpu_animation(state, crowd);
  if (gl::reserve_tints(state.tints, crowd.capacity(), state.storage, state.limits)) state.upload_all_tints = true;
  auto groups = crowd.primitive_groups();
  state.groups.resize(groups.size());
  for (std::size_t i = 0; i < groups.size(); ++i) {
    gl::GroupGpu& g = state.groups[i];
    g.drawable = drawable_for(state, crowd, groups[i]);
    gl::reserve_instances(g, groups[i].node, crowd.capacity(), state.storage, state.limits);
  }
}

void prepare_streams(CrowdRenderer::State& state, const Crowd& crowd, bool timed, RenderStats& stats) {
  bool changed = false;
  if (crowd.animation() == Animation::gpu) {
    changed = evaluate_on_gpu(state, crowd, timed, stats);
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

}  // namespace gltf_crowd::gl
