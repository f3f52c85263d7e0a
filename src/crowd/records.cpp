// Animation::gpu (docs/architecture.md "GPU animation"): the crowd keeps every clock exact and
// writes one 64-byte PlaybackRecord per changed actor instead of evaluating its pose; a GPU
// backend samples, blends and packs from the records.
#include <algorithm>

#include "crowd/state.hpp"

namespace gltf_crowd {

void write_record(Crowd::State& st, std::uint32_t slot) noexcept {
  const Playback& p = st.playback[slot];
  PlaybackRecord& r = st.records[slot];
  PlaybackRecordTail& t = st.tails[slot];
  r = {};
  t = {};
  r.count = p.count;
  for (std::uint32_t i = 0; i < p.count; ++i) {
    const ContributorState& c = p.contributors[i];
    const float seconds = contributor_time(st.asset, p, c).seconds;
    const std::uint32_t shift = 16 * (i % 2);
    if (i < kRecordContributors) {
      r.clips[i / 2] |= (c.clip & 0xFFFFu) << shift;
      r.seconds[i] = seconds;
      r.weights[i] = c.weight;
    } else {
      const std::uint32_t k = i - static_cast<std::uint32_t>(kRecordContributors);
      t.clips |= (c.clip & 0xFFFFu) << shift;
      t.seconds[k] = seconds;
      t.weights[k] = c.weight;
    }
  }
  if (!st.layer_records.empty()) write_layer_records(st, slot);
  st.stale[slot] = 0;
  st.packed_frame[slot] = st.frames;
  st.packed_generation[slot] = st.generation;
}

Animation Crowd::animation() const noexcept { return state_ ? state_->animation : Animation::cpu; }

void Crowd::set_animation(Animation animation) {
  State& st = live();
  if (animation == st.animation) return;
  st.animation = animation;
  resize_streams(st);  // allocates the streams' arrays for cpu, the records for gpu, frees the other
  // Every row or record at once: an update writes the rows of static meshes only where the
  // placement moved.
  for (std::uint32_t slot = 0; slot < st.size(); ++slot) mark_pending(st, slot);
  flush_pending(st);
}

std::span<const PlaybackRecord> Crowd::playback_records() const noexcept {
  if (!state_ || state_->animation != Animation::gpu) return {};
  flush_pending(*state_);
  return std::span(state_->records).first(state_->size());
}

std::span<const PlaybackRecordTail> Crowd::playback_record_tails() const noexcept {
  if (!state_ || state_->animation != Animation::gpu) return {};
  flush_pending(*state_);
  return std::span(state_->tails).first(state_->size());
}

std::span<const glm::mat4> Crowd::placements() const noexcept {
  if (!state_) return {};
  return state_->placements;
}

std::span<const std::uint64_t> Crowd::placement_generations() const noexcept {
  if (!state_) return {};
  flush_pending(*state_);  // a pending set_transform raises its slot's
  return std::span(state_->placement_generation).first(state_->size());
}

}  // namespace gltf_crowd
