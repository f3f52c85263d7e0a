// Layer 4: the crowd object — construction, moves, destruction and the accessors of what it
// packs. Based on: docs/spec.md §5 (crowd); docs/architecture.md ("One frame"). The work is in
// slots.cpp (actors), groups.cpp (groups and streams), schedule.cpp and pack.cpp (the frame),
// lod_classification.cpp and update_rate.cpp (levels and update-rate LOD), controls.cpp (actor handles).
#include "gltf_crowd/crowd.hpp"

#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "asset/checks.hpp"
#include "crowd/pack.hpp"

namespace gltf_crowd {

void check_capacity(std::size_t capacity) {
  if (capacity == 0 || capacity > kMaxCapacity)
    throw Error("capacity", Rule::capacity_range, fmt::format("capacity {} is not in [1, {}]", capacity, kMaxCapacity));
}

Crowd::Crowd(std::shared_ptr<const Asset> asset, CrowdOptions options) : asset_(std::move(asset)) {
  if (!asset_) throw Error("asset", Rule::null_asset, "the asset is null");
  check_capacity(options.capacity);
  validate_update_rate(options.update_rate);
  validate_lod_options(options.lod);
  auto st = std::make_unique<State>(*asset_);
  st->capacity = options.capacity;
  st->update_rate = options.update_rate;
  st->time_stages = options.time_stages;
  st->lod.options = options.lod;
  st->animation = options.animation;
  for (const Clip& clip : asset_->clips) {
    st->markers.push_back(clip.markers);
    st->marker_count += clip.markers.size();
  }
  if (options.lod.enabled || options.lod.auto_generate)
    prepare_lod_levels(*st);
  else
    build_groups(*st);
  index_lod_groups(*st);
  st->full = compile_rig(*asset_, {}, {.all_nodes = true, .frame = false});
  compile_streams(*st);
  set_root_motion_options(*st, options.root_motion);
  refresh_instances(*st);  // lod_stats of an empty crowd: the source and its levels
  state_ = std::move(st);
  link_ = std::make_shared<CrowdLink>(CrowdLink{this});
}

Crowd::~Crowd() {
  if (link_) link_->crowd = nullptr;
}

Crowd::Crowd(Crowd&& other) noexcept
    : asset_(other.asset_), state_(std::move(other.state_)), link_(std::move(other.link_)) {
  if (link_) link_->crowd = this;
}

Crowd& Crowd::operator=(Crowd&& other) noexcept {
  if (this == &other) return *this;
  if (link_) link_->crowd = nullptr;  // this crowd's own handles and renderers see it destroyed
  asset_ = other.asset_;              // shared and immutable: the moved-from crowd keeps a valid asset()
  state_ = std::move(other.state_);
  link_ = std::move(other.link_);
  if (link_) link_->crowd = this;
  return *this;
}

Crowd::State& Crowd::live() const {
  if (!state_) throw Error("crowd", Rule::destroyed, "the crowd was destroyed");
  return *state_;
}

std::size_t Crowd::actor_count() const noexcept { return state_ ? state_->size() : 0; }
std::size_t Crowd::capacity() const noexcept { return state_ ? state_->capacity : 0; }

void Crowd::reserve(std::size_t n) {
  State& st = live();
  check_capacity(n);
  if (n <= st.capacity) return;
  st.capacity = n;
  resize_streams(st);
}

void Crowd::update(float delta_seconds) {
  State& st = live();
  detail::check_finite(delta_seconds, "update.delta_seconds");
  run_update(st, delta_seconds);
}

void Crowd::update(float delta_seconds, const LodView& view) {
  State& st = live();
  validate_lod_view(view, "update.view");
  detail::check_finite(delta_seconds, "update.delta_seconds");
  st.lod.view = view;
  run_update(st, delta_seconds);
}

std::span<const PrimitiveGroup> Crowd::primitive_groups() const noexcept {
  return state_ ? std::span<const PrimitiveGroup>(state_->groups) : std::span<const PrimitiveGroup>();
}

// The accessors of packed rows first evaluate what controls marked (docs/spec.md §3.4).
std::span<const NodeStream> Crowd::node_streams() const noexcept {
  if (!state_) return {};
  flush_pending(*state_);
  return state_->streams;
}

std::uint64_t Crowd::packed_generation() const noexcept {
  if (!state_) return 0;
  flush_pending(*state_);
  return state_->generation;
}

std::span<const std::uint64_t> Crowd::slot_generations() const noexcept {
  if (!state_) return {};
  flush_pending(*state_);
  return std::span(state_->packed_generation).first(state_->size());
}

const FrameStats& Crowd::frame_stats() const noexcept {
  static const FrameStats none;
  return state_ ? state_->stats : none;
}

void Crowd::set_stage_timing(bool on) { live().time_stages = on; }

bool Crowd::stage_timing() const noexcept { return state_ && state_->time_stages; }

const LodStats& Crowd::lod_stats() const noexcept {
  static const LodStats none;
  return state_ ? state_->lod_stats : none;
}

void Crowd::destroy() noexcept { state_.reset(); }

}  // namespace gltf_crowd
