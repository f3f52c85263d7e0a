// Actor controls and read-back (docs/spec.md §3 "Controls"): each control validates every argument
// first, then changes the playback state through actor_playback.cpp, then marks the actor pending:
// the next update, or the first read of packed rows, evaluates it (mark_pending), so paused and
// finished actors show the change too. The batch forms on Crowd validate every actor and value
// before changing any. Read-back (local_pose, node_world) runs the same jobs over the whole
// asset's rig from the current clocks (readback.cpp).
#include <cmath>

#include <fmt/format.h>

#include "asset/checks.hpp"
#include "crowd/readback.hpp"
#include "crowd/state.hpp"
#include "gltf_crowd/crowd.hpp"

namespace gltf_crowd {
namespace {

// A phase whose time overflows float would make the clock infinite and every later time NaN.
float time_of_phase(float phase, float duration, const char* path) {
  detail::check_finite(phase, path);
  const float seconds = phase * duration;
  if (!std::isfinite(seconds)) {
    detail::throw_not_finite(path, fmt::format("phase {} × duration {} s", phase, duration));
  }
  return seconds;
}

float duration_of(const Asset& asset, const Playback& p) {
  return p.count == 0 ? 0.0f : asset.clips[p.contributors[0].clip].duration_seconds;
}

}  // namespace

Crowd& Actor::crowd() const {
  if (!link_) throw Error("actor", Rule::stale_actor, "the handle was moved from");
  if (link_->crowd == nullptr) throw Error("crowd", Rule::destroyed, "the crowd was destroyed");
  return *link_->crowd;
}

std::uint32_t Actor::slot() const {
  const Crowd::State& st = crowd().live();
  if (key_ >= st.key_slot.size() || st.key_generation[key_] != generation_ || st.key_slot[key_] == kNoSlot)
    throw Error("actor", Rule::stale_actor, "the actor was removed");
  return st.key_slot[key_];
}

// Every accessor calls slot() before touching state_: once the crowd was destroyed (or its
// object is gone) it throws, and state_ may be null.
const std::string& Actor::id() const {
  const std::uint32_t s = slot();
  return crowd().state_->ids[s];
}

const std::string& Actor::active_clip() const {
  static const std::string none;
  const std::uint32_t s = slot();
  const Playback& p = crowd().state_->playback[s];
  return p.count == 0 ? none : crowd().asset_->clips[p.contributors[0].clip].name;
}

float Actor::time() const {
  const std::uint32_t s = slot();
  return active_time(*crowd().asset_, crowd().state_->playback[s]);
}

float Actor::phase() const {
  const std::uint32_t s = slot();
  const float d = duration_of(*crowd().asset_, crowd().state_->playback[s]);
  return d > 0.0f ? time() / d : 0.0f;
}

float Actor::speed() const {
  const std::uint32_t s = slot();
  return crowd().state_->playback[s].speed;
}
LoopMode Actor::loop() const {
  const std::uint32_t s = slot();
  return crowd().state_->playback[s].loop;
}
std::uint32_t Actor::repetitions() const {
  const std::uint32_t s = slot();
  return crowd().state_->playback[s].repetitions;
}

bool Actor::playing() const {
  const std::uint32_t s = slot();
  const Playback& p = crowd().state_->playback[s];
  return !p.paused && !p.finished;
}

bool Actor::finished() const {
  const std::uint32_t s = slot();
  return crowd().state_->playback[s].finished;
}

std::vector<Contributor> Actor::contributors() const {
  const std::uint32_t s = slot();
  return contributors_of(*crowd().asset_, crowd().state_->playback[s]);
}

std::vector<float> Actor::morph_weights() const { return local_pose().weights; }

const glm::mat4& Actor::transform() const {
  const std::uint32_t s = slot();
  return crowd().state_->placements[s];
}

ClipChoice check_select_clip(const Asset& asset, std::string_view name, const SelectClipOptions& options) {
  const int clip = asset.find_clip(name);
  if (clip < 0)
    throw Error("select_clip.name", Rule::unknown_clip,
                fmt::format("no clip named \"{}\"; available: {}", name, clip_name_list(asset)));
  detail::check_finite(options.crossfade_seconds, "select_clip.crossfade_seconds");
  if (options.crossfade_seconds < 0.0f)
    throw Error("select_clip.crossfade_seconds", Rule::negative,
                fmt::format("crossfade of {} s; it must be >= 0", options.crossfade_seconds));
  const auto index = static_cast<std::uint32_t>(clip);
  double seconds = 0.0;
  if (options.time) {
    detail::check_finite(*options.time, "select_clip.time");
    seconds = *options.time;
  }
  const float from_phase = time_of_phase(options.phase, asset.clips[index].duration_seconds, "select_clip.phase");
  if (!options.time) seconds = from_phase;
  return {index, seconds, options.crossfade_seconds};
}

void apply_select_clip(const Asset& asset, Playback& p, const ClipChoice& choice) noexcept {
  if (choice.crossfade_seconds > 0.0f && p.count > 0)
    start_crossfade(asset, p, choice.clip, choice.seconds, choice.crossfade_seconds);
  else
    switch_clip(asset, p, choice.clip, choice.seconds);
}

void control_select_clip(const Asset& asset, Playback& p, std::string_view name, const SelectClipOptions& options) {
  apply_select_clip(asset, p, check_select_clip(asset, name, options));
}

void control_seek(const Asset& asset, Playback& p, float seconds) {
  detail::check_finite(seconds, "seek.seconds");
  if (p.count == 0) return;
  p.contributors[0].elapsed = seconds;
  refresh_finished(asset, p);
}

void control_set_phase(const Asset& asset, Playback& p, float phase) {
  const float seconds = time_of_phase(phase, duration_of(asset, p), "set_phase.phase");
  if (p.count == 0) return;
  p.contributors[0].elapsed = seconds;
  refresh_finished(asset, p);
}

void control_set_speed(const Asset& asset, Playback& p, float speed) {
  detail::check_finite(speed, "set_speed.speed");
  p.speed = speed;
  refresh_finished(asset, p);  // the sign decides when `once` is finished
}

void control_set_loop(const Asset& asset, Playback& p, LoopMode mode, std::uint32_t repetitions) {
  if (mode != LoopMode::once && mode != LoopMode::repeat && mode != LoopMode::ping_pong)
    throw Error("set_loop.mode", Rule::loop_mode, fmt::format("{} is not a loop mode", static_cast<int>(mode)));
  p.loop = mode;
  p.repetitions = repetitions;
  refresh_finished(asset, p);
}

void control_play(const Asset& asset, Playback& p) {
  p.paused = false;
  if (p.finished) {
    const std::uint32_t clip = p.contributors[0].clip;
    switch_clip(asset, p, clip, restart_elapsed(asset.clips[clip].duration_seconds, p.loop, p.speed < 0.0f));
  }
}

std::vector<Contributor> contributors_of(const Asset& asset, const Playback& p) {
  std::vector<Contributor> out;
  out.reserve(p.count);
  for (std::uint32_t i = 0; i < p.count; ++i) {
    const ContributorState& c = p.contributors[i];
    out.push_back({c.clip, contributor_time(asset, p, c).seconds, c.weight});
  }
  return out;
}

float active_time(const Asset& asset, const Playback& p) noexcept {
  return p.count == 0 ? 0.0f : contributor_time(asset, p, p.contributors[0]).seconds;
}

void Actor::select_clip(std::string_view name, const SelectClipOptions& options) {
  const std::uint32_t s = slot();
  control_select_clip(*crowd().asset_, crowd().state_->playback[s], name, options);
  mark_pending(*crowd().state_, s);
}

void Actor::seek(float seconds) {
  const std::uint32_t s = slot();
  control_seek(*crowd().asset_, crowd().state_->playback[s], seconds);
  mark_pending(*crowd().state_, s);
}

void Actor::set_phase(float phase) {
  const std::uint32_t s = slot();
  control_set_phase(*crowd().asset_, crowd().state_->playback[s], phase);
  mark_pending(*crowd().state_, s);
}

void Actor::set_speed(float speed) {
  const std::uint32_t s = slot();
  control_set_speed(*crowd().asset_, crowd().state_->playback[s], speed);
  mark_pending(*crowd().state_, s);
}

void Actor::set_loop(LoopMode mode, std::uint32_t repetitions) {
  const std::uint32_t s = slot();
  control_set_loop(*crowd().asset_, crowd().state_->playback[s], mode, repetitions);
  mark_pending(*crowd().state_, s);
}

void Actor::play() {
  const std::uint32_t s = slot();
  control_play(*crowd().asset_, crowd().state_->playback[s]);
  mark_pending(*crowd().state_, s);
}

void Actor::pause() {
  const std::uint32_t s = slot();
  crowd().state_->playback[s].paused = true;
  mark_pending(*crowd().state_, s);
}

void Actor::set_transform(const glm::mat4& placement) {
  const std::uint32_t s = slot();
  detail::check_finite(placement, "set_transform.placement");
  crowd().state_->placements[s] = placement;
  mark_pending(*crowd().state_, s, kPendingRows);
}

Pose Actor::local_pose() const {
  const std::uint32_t s = slot();
  return readback_pose(*crowd().state_, s);
}

glm::mat4 Actor::node_world(std::uint32_t node) const {
  const std::uint32_t s = slot();
  const Asset& asset = *crowd().asset_;
  if (node >= asset.nodes.size())
    throw Error("node_world.node", Rule::node_index,
                fmt::format("node {} does not exist ({} nodes)", node, asset.nodes.size()));
  return readback_world(*crowd().state_, s, node);
}

glm::mat4 Actor::node_world(std::string_view node_name) const {
  return node_world(crowd().asset_->resolve_node(node_name, "node_world.node"));
}

std::span<const std::uint32_t> Crowd::slots_of(std::span<const Actor> actors, std::string_view control) const {
  State& st = live();
  st.batch_slots.resize(actors.size());
  for (std::size_t i = 0; i < actors.size(); ++i) {
    const Actor& a = actors[i];
    const auto path = [&] { return fmt::format("{}.actors[{}]", control, i); };
    if (!a.link_) throw Error(path(), Rule::stale_actor, "the handle was moved from");
    if (a.link_ != link_) throw Error(path(), Rule::foreign_actor, "the actor belongs to another crowd");
    if (a.key_ >= st.key_slot.size() || st.key_generation[a.key_] != a.generation_ || st.key_slot[a.key_] == kNoSlot)
      throw Error(path(), Rule::stale_actor, "the actor was removed");
    st.batch_slots[i] = st.key_slot[a.key_];
  }
  return st.batch_slots;
}

namespace {

// A batch control's change of each validated slot's playback, each slot then marked pending.
template <typename Change>
void change_each(Crowd::State& st, std::span<const std::uint32_t> slots, Change change) {
  for (std::uint32_t s : slots) {
    change(st.playback[s]);
    mark_pending(st, s);
  }
}

}  // namespace

void Crowd::select_clip(std::span<const Actor> actors, std::string_view name, const SelectClipOptions& options) {
  const std::span<const std::uint32_t> slots = slots_of(actors, "select_clip");
  const ClipChoice choice = check_select_clip(*asset_, name, options);
  change_each(*state_, slots, [&](Playback& p) { apply_select_clip(*asset_, p, choice); });
}

void Crowd::seek(std::span<const Actor> actors, float seconds) {
  const std::span<const std::uint32_t> slots = slots_of(actors, "seek");
  detail::check_finite(seconds, "seek.seconds");
  change_each(*state_, slots, [&](Playback& p) { control_seek(*asset_, p, seconds); });
}

void Crowd::set_speed(std::span<const Actor> actors, float speed) {
  const std::span<const std::uint32_t> slots = slots_of(actors, "set_speed");
  detail::check_finite(speed, "set_speed.speed");
  change_each(*state_, slots, [&](Playback& p) { control_set_speed(*asset_, p, speed); });
}

void Crowd::play(std::span<const Actor> actors) {
  const std::span<const std::uint32_t> slots = slots_of(actors, "play");
  change_each(*state_, slots, [&](Playback& p) { control_play(*asset_, p); });
}

void Crowd::pause(std::span<const Actor> actors) {
  const std::span<const std::uint32_t> slots = slots_of(actors, "pause");
  change_each(*state_, slots, [](Playback& p) { p.paused = true; });
}

}  // namespace gltf_crowd
