// Markers and events (docs/spec.md §3.9): the crowd's marker table, and the clock step of every
// update, which reports the markers each playing contributor crosses (crossings.hpp). Events come
// from the clocks alone, which both evaluators advance on the CPU, so Animation::cpu and
// Animation::gpu report the same events.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "asset/checks.hpp"
#include "crowd/crossings.hpp"
#include "crowd/state.hpp"

namespace gltf_crowd {
namespace {

// Advances one playback of a slot (its base layer, or animation layer `layer` at weight
// `layer_weight`), appending the markers its contributors cross; the base layer also accumulates
// the slot's root motion (docs/spec.md §3.10). The clocks move exactly as advance_playback moves
// them; crossings and root motion are computed from the clocks before it and the weights before
// and after it. Returns whether it advanced.
bool advance_reporting(Crowd::State& st, std::uint32_t slot, Playback& p, std::uint32_t layer, float layer_weight,
                       double delta_seconds) {
  const std::uint32_t count = p.count;
  std::array<double, kMaxContributors> from{};
  std::array<float, kMaxContributors> weight_before{};
  std::array<std::uint32_t, kMaxContributors> clips{};
  for (std::uint32_t i = 0; i < count; ++i) {
    from[i] = p.contributors[i].elapsed;
    clips[i] = p.contributors[i].clip;
    weight_before[i] = p.contributors[i].weight;
  }
  if (!advance_playback(st.asset, p, delta_seconds)) return false;
  const double step = delta_seconds * static_cast<double>(p.speed);
  if (layer == 0 && st.root.enabled())
    accumulate_root_motion(st, slot, count, clips.data(), from.data(), weight_before.data(), step);
  if (st.marker_count == 0) return true;
  const double length = std::abs(step);
  const std::string_view actor = st.ids[slot];
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::span<const ClipMarker> markers = st.markers[clips[i]];
    if (markers.empty()) continue;
    // advance_playback never reorders contributors; when the fade completes it keeps only the
    // first, so the outgoing ones end this update at weight 0.
    const float weight_after = i < p.count ? p.contributors[i].weight : 0.0f;
    for_each_crossing(markers, from[i], step, st.asset.clips[clips[i]].duration_seconds, p.loop, p.repetitions,
                      [&](std::uint32_t marker, double distance) {
                        const auto fraction = static_cast<float>(length > 0.0 ? std::min(distance / length, 1.0) : 1.0);
                        const float weight = weight_before[i] + fraction * (weight_after - weight_before[i]);
                        st.events.push_back({slot, clips[i], marker, layer, weight * layer_weight,
                                             markers[marker].seconds, fraction, actor, markers[marker].name});
                      });
  }
  return true;
}

// Moves a layer's weight along its fade by |Δ|; returns whether it changed.
bool advance_layer_weight(LayerState& l, double delta_seconds) noexcept {
  if (l.weight == l.weight_target) return false;
  l.fade_progress += std::abs(delta_seconds);
  const double t = l.fade_seconds > 0.0 ? std::min(l.fade_progress / l.fade_seconds, 1.0) : 1.0;
  l.weight = t >= 1.0 ? l.weight_target : static_cast<float>(l.weight_from + (l.weight_target - l.weight_from) * t);
  return true;
}

// Advances one slot with markers, root motion or layers: its base layer, then its animation
// layers in order (docs/spec.md §3.11), then orders its events by moment.
void advance_slot(Crowd::State& st, std::uint32_t slot, double delta_seconds) {
  const std::size_t first_event = st.events.size();
  if (advance_reporting(st, slot, st.playback[slot], 0, 1.0f, delta_seconds)) st.stale[slot] = 1;
  std::vector<LayerState>& layers = st.layers[slot];
  for (std::uint32_t i = 0; i < layers.size(); ++i) {
    LayerState& l = layers[i];
    const bool faded = advance_layer_weight(l, delta_seconds);
    const bool advanced = advance_reporting(st, slot, l.playback, i + 1, l.weight, delta_seconds);
    // A layer moves the pose only when it has a clip and some weight, before or after.
    if ((faded || advanced) && l.playback.count > 0) st.stale[slot] = 1;
  }
  // Contributors cross their markers concurrently: order the actor's events by moment (stable,
  // so equal moments keep layer and contributor order). Insertion sort: few events, and no
  // allocation.
  for (std::size_t e = first_event + 1; e < st.events.size(); ++e) {
    const ClipEvent event = st.events[e];
    std::size_t j = e;
    for (; j > first_event && st.events[j - 1].fraction > event.fraction; --j) st.events[j] = st.events[j - 1];
    st.events[j] = event;
  }
}

}  // namespace

bool clocks_alone(const Crowd::State& st) noexcept {
  return st.marker_count == 0 && !st.root.enabled() && st.layered == 0;
}

void advance_clocks(Crowd::State& st, double delta_seconds) {
  st.events.clear();
  const auto n = static_cast<std::uint32_t>(st.size());
  if (clocks_alone(st)) {
    for (std::uint32_t slot = 0; slot < n; ++slot) advance_clock(st, slot, n, delta_seconds);
    return;
  }
  for (std::uint32_t slot = 0; slot < n; ++slot) advance_slot(st, slot, delta_seconds);
}

void Crowd::add_marker(std::string_view clip, std::string_view name, float seconds) {
  State& st = live();
  const Asset& asset = *asset_;
  const int index = asset.find_clip(clip);
  if (index < 0)
    throw Error("add_marker.clip", Rule::unknown_clip,
                fmt::format("no clip named \"{}\"; available: {}", clip, clip_name_list(asset)));
  if (name.empty()) throw Error("add_marker.name", Rule::marker_name, "a marker needs a name");
  detail::check_finite(seconds, "add_marker.seconds");
  const float duration = asset.clips[static_cast<std::size_t>(index)].duration_seconds;
  if (seconds < 0.0f || seconds > duration)
    throw Error("add_marker.seconds", Rule::marker_time,
                fmt::format("{} s is outside clip \"{}\"'s [0, {}] s", seconds, clip, duration));
  std::vector<ClipMarker>& markers = st.markers[static_cast<std::size_t>(index)];
  const auto at = std::upper_bound(markers.begin(), markers.end(), seconds,
                                   [](float v, const ClipMarker& m) { return v < m.seconds; });
  markers.insert(at, ClipMarker{std::string(name), seconds});
  ++st.marker_count;
  st.events.clear();  // their names and marker indices may have moved
}

std::span<const ClipMarker> Crowd::markers(std::uint32_t clip) const noexcept {
  if (!state_ || clip >= state_->markers.size()) return {};
  return state_->markers[clip];
}

std::span<const ClipEvent> Crowd::events() const noexcept {
  if (!state_) return {};
  return state_->events;
}

}  // namespace gltf_crowd
