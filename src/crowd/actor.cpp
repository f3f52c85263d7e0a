// Actor controls (SPEC §3 "Controls", "Crossfades"): each validates first, changes state, then
// re-evaluates the actor's packed rows at once, so paused actors show the change too.
#include <cmath>

#include <fmt/format.h>

#include "crowd/state.hpp"
#include "gltf_crowd/crowd.hpp"

namespace gltf_crowd {
namespace {

void require_finite(float value, const char* what) {
  if (!std::isfinite(value)) throw Error(fmt::format("actor.{}", what), "not_finite", fmt::format("{} is not finite", value));
}

float duration_of(const Asset& asset, const Playback& p) {
  return p.count == 0 ? 0.0f : asset.clips[p.contributors[0].clip].duration_seconds;
}

}  // namespace

std::uint32_t Actor::slot() const { return crowd_->slot_of(key_, generation_); }

const std::string& Actor::id() const { return crowd_->state_->ids[slot()]; }

const std::string& Actor::active_clip() const {
  static const std::string none;
  const Playback& p = crowd_->state_->playback[slot()];
  return p.count == 0 ? none : crowd_->asset_->clips[p.contributors[0].clip].name;
}

float Actor::time() const {
  const Playback& p = crowd_->state_->playback[slot()];
  return p.count == 0 ? 0.0f : contributor_time(*crowd_->asset_, p, p.contributors[0]).seconds;
}

float Actor::phase() const {
  const float d = duration_of(*crowd_->asset_, crowd_->state_->playback[slot()]);
  return d > 0.0f ? time() / d : 0.0f;
}

float Actor::speed() const { return crowd_->state_->playback[slot()].speed; }
LoopMode Actor::loop() const { return crowd_->state_->playback[slot()].loop; }
std::uint32_t Actor::repetitions() const { return crowd_->state_->playback[slot()].repetitions; }

bool Actor::playing() const {
  const Playback& p = crowd_->state_->playback[slot()];
  return !p.paused && !p.finished;
}

bool Actor::finished() const { return crowd_->state_->playback[slot()].finished; }

std::vector<Contributor> Actor::contributors() const {
  const Playback& p = crowd_->state_->playback[slot()];
  std::vector<Contributor> out;
  for (std::uint32_t i = 0; i < p.count; ++i) {
    const ContributorState& c = p.contributors[i];
    out.push_back({c.clip, contributor_time(*crowd_->asset_, p, c).seconds, c.weight});
  }
  return out;
}

std::span<const float> Actor::morph_weights() const {
  const std::size_t tw = crowd_->asset_->total_weights;
  return std::span<const float>(crowd_->state_->weights).subspan(slot() * tw, tw);
}

const glm::mat4& Actor::transform() const { return crowd_->state_->placements[slot()]; }

void Actor::select_clip(std::string_view name, const SelectClipOptions& options) {
  const std::uint32_t s = slot();
  const Asset& asset = *crowd_->asset_;
  const int clip = asset.find_clip(name);
  if (clip < 0) {
    std::string names;
    for (std::size_t i = 0; i < asset.clips.size(); ++i) names += (i ? ", " : "") + asset.clips[i].name;
    throw Error("select_clip.name", "unknown_clip", fmt::format("no clip named \"{}\"; available: {}", name,
                                                                names.empty() ? "none" : names));
  }
  require_finite(options.crossfade_seconds, "select_clip.crossfade_seconds");
  require_finite(options.phase, "select_clip.phase");
  if (options.time) require_finite(*options.time, "select_clip.time");
  if (options.crossfade_seconds < 0.0f)
    throw Error("select_clip.crossfade_seconds", "negative", "crossfade duration must be >= 0");
  Playback& p = crowd_->state_->playback[s];
  const float duration = asset.clips[static_cast<std::size_t>(clip)].duration_seconds;
  const ContributorState incoming{static_cast<std::uint32_t>(clip), options.time ? *options.time : options.phase * duration,
                                  0.0f, 0.0f};
  if (options.crossfade_seconds > 0.0f && p.count > 0) {
    // The current contributors keep their present weights as the base of the new fade and are
    // scaled down together under the incoming clip: weights stay summing to 1, nothing pops.
    for (std::uint32_t i = 0; i < p.count; ++i) p.contributors[i].base_weight = p.contributors[i].weight;
    if (p.count == kMaxContributors) {
      std::uint32_t weakest = 0;
      for (std::uint32_t i = 1; i < p.count; ++i)
        if (p.contributors[i].base_weight < p.contributors[weakest].base_weight) weakest = i;
      const float dropped = p.contributors[weakest].base_weight;
      for (std::uint32_t i = weakest; i + 1 < p.count; ++i) p.contributors[i] = p.contributors[i + 1];
      --p.count;
      for (std::uint32_t i = 0; i < p.count; ++i) p.contributors[i].base_weight /= (1.0f - dropped);
    }
    for (std::uint32_t i = p.count; i > 0; --i) p.contributors[i] = p.contributors[i - 1];
    ++p.count;
    p.contributors[0] = incoming;
    p.fade_seconds = options.crossfade_seconds;
    p.fade_progress = 0.0f;
    for (std::uint32_t i = 1; i < p.count; ++i) p.contributors[i].weight = p.contributors[i].base_weight;
  } else {
    p.count = 1;
    p.contributors[0] = incoming;
    p.contributors[0].weight = p.contributors[0].base_weight = 1.0f;
    p.fade_seconds = p.fade_progress = 0.0f;
  }
  p.finished = contributor_time(asset, p, p.contributors[0]).finished;
  crowd_->evaluate(s);
}

void Actor::seek(float seconds) {
  const std::uint32_t s = slot();
  require_finite(seconds, "seek.seconds");
  Playback& p = crowd_->state_->playback[s];
  if (p.count == 0) return;
  p.contributors[0].elapsed = seconds;
  p.finished = contributor_time(*crowd_->asset_, p, p.contributors[0]).finished;
  crowd_->evaluate(s);
}

void Actor::set_phase(float phase) {
  const std::uint32_t s = slot();
  require_finite(phase, "set_phase.phase");
  seek(phase * duration_of(*crowd_->asset_, crowd_->state_->playback[s]));
}

void Actor::set_speed(float speed) {
  const std::uint32_t s = slot();
  require_finite(speed, "set_speed.speed");
  crowd_->state_->playback[s].speed = speed;
}

void Actor::set_loop(LoopMode mode, std::uint32_t repetitions) {
  const std::uint32_t s = slot();
  Playback& p = crowd_->state_->playback[s];
  p.loop = mode;
  p.repetitions = repetitions;
  if (p.count > 0) p.finished = contributor_time(*crowd_->asset_, p, p.contributors[0]).finished;
  crowd_->evaluate(s);
}

void Actor::play() {
  const std::uint32_t s = slot();
  Playback& p = crowd_->state_->playback[s];
  p.paused = false;
  if (p.finished && p.count > 0) {  // restart from the start (from D when playing backward)
    p.count = 1;
    p.contributors[0].weight = p.contributors[0].base_weight = 1.0f;
    p.contributors[0].elapsed = p.speed < 0.0f ? duration_of(*crowd_->asset_, p) : 0.0f;
    p.finished = contributor_time(*crowd_->asset_, p, p.contributors[0]).finished;
    crowd_->evaluate(s);
  }
}

void Actor::pause() { crowd_->state_->playback[slot()].paused = true; }

void Actor::set_transform(const glm::mat4& placement) {
  const std::uint32_t s = slot();
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r)
      if (!std::isfinite(placement[c][r])) throw Error("set_transform.placement", "not_finite", "the placement must be finite");
  crowd_->state_->placements[s] = placement;
  crowd_->evaluate(s);
}

glm::mat4 Actor::node_world(std::uint32_t node) const {
  const std::uint32_t s = slot();
  const Asset& asset = *crowd_->asset_;
  if (node >= asset.nodes.size())
    throw Error("node_world.node", "node_index", fmt::format("node {} does not exist ({} nodes)", node, asset.nodes.size()));
  Pose pose(asset), tmp(asset);
  evaluate_pose(asset, crowd_->state_->playback[s], pose, tmp);
  std::vector<glm::mat4> world(asset.nodes.size());
  compute_world_matrices(asset, pose.view(), crowd_->state_->placements[s], world);
  return world[node];
}

glm::mat4 Actor::node_world(std::string_view node_name) const {
  const int node = crowd_->asset_->find_node(node_name);
  if (node < 0) throw Error("node_world.node", "unknown_node", fmt::format("no node named \"{}\"", node_name));
  return node_world(static_cast<std::uint32_t>(node));
}

}  // namespace gltf_crowd
