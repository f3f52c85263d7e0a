// Based on: docs/spec.md §3 "Time" and "Crossfades": an actor's contributors, their clocks and
// weights (pack.cpp blends their poses). Two failure modes of the reference library (luma.gl 9.4)
// are designed out here:
//  - an interrupted crossfade restarted the fade from the previous clip alone, so the clips that
//    were still fading out vanished at once (a pop). Here every current contributor keeps its
//    weight as the base that the new fade scales down, so the weights are continuous in time.
//  - after a hard switch, nodes the new clip does not animate kept the old clip's last values.
//    Here every contributor's pose starts from the rest pose, every evaluation.
// Quaternions are sign-aligned to the first contributor before summing: q and -q are the same
// rotation, and summing opposite signs would cancel instead of blend.
#include <algorithm>
#include <cmath>

#include "crowd/state.hpp"

namespace gltf_crowd {

ClipTime contributor_time(const Asset& asset, const Playback& p, const ContributorState& c) noexcept {
  return clip_time(c.elapsed, asset.clips[c.clip].duration_seconds, p.loop, p.repetitions, p.speed < 0.0f);
}

void refresh_finished(const Asset& asset, Playback& p) noexcept {
  p.finished = false;
  // Looping without a repetition count never finishes (clip_time): no division per frame.
  if (p.count != 1 || (p.loop != LoopMode::once && p.repetitions == 0)) return;
  ContributorState& active = p.contributors[0];
  if (!contributor_time(asset, p, active).finished) return;
  p.finished = true;
  active.elapsed = settle_elapsed(active.elapsed, asset.clips[active.clip].duration_seconds, p.loop, p.repetitions);
}

void switch_clip(const Asset& asset, Playback& p, std::uint32_t clip, double seconds) noexcept {
  p.count = 1;
  p.contributors[0] = {clip, seconds, 1.0f, 1.0f};
  p.fade_seconds = p.fade_progress = 0.0;
  refresh_finished(asset, p);
}

void start_crossfade(const Asset& asset, Playback& p, std::uint32_t clip, double seconds,
                     double fade_seconds) noexcept {
  // Contributors at weight 0 (an incoming clip interrupted before any update) add nothing.
  std::uint32_t kept = 0;
  for (std::uint32_t i = 0; i < p.count; ++i) {
    if (!(p.contributors[i].weight > 0.0f)) continue;
    p.contributors[kept] = p.contributors[i];
    p.contributors[kept].base_weight = p.contributors[kept].weight;
    ++kept;
  }
  if (kept == 0) return switch_clip(asset, p, clip, seconds);
  if (kept == kMaxContributors) {
    const auto weakest = static_cast<std::uint32_t>(
        std::min_element(p.contributors.begin(), p.contributors.begin() + kept,
                         [](const ContributorState& a, const ContributorState& b) { return a.weight < b.weight; }) -
        p.contributors.begin());
    const float remaining = 1.0f - p.contributors[weakest].weight;
    std::copy(p.contributors.begin() + weakest + 1, p.contributors.begin() + kept, p.contributors.begin() + weakest);
    --kept;
    for (std::uint32_t i = 0; i < kept; ++i)
      p.contributors[i].weight = p.contributors[i].base_weight = p.contributors[i].base_weight / remaining;
  }
  std::copy_backward(p.contributors.begin(), p.contributors.begin() + kept, p.contributors.begin() + kept + 1);
  p.contributors[0] = {clip, seconds, 0.0f, 0.0f};
  p.count = kept + 1;
  p.fade_seconds = fade_seconds;
  p.fade_progress = 0.0;
  refresh_finished(asset, p);
}

bool advance_playback(const Asset& asset, Playback& p, double delta_seconds) noexcept {
  if (p.paused || p.finished || p.count == 0) return false;
  const double step = delta_seconds * static_cast<double>(p.speed);
  for (std::uint32_t i = 0; i < p.count; ++i) p.contributors[i].elapsed += step;
  if (p.count > 1) {
    p.fade_progress += std::abs(step);
    const double w = p.fade_seconds > 0.0 ? std::min(p.fade_progress / p.fade_seconds, 1.0) : 1.0;
    if (w >= 1.0) {  // every outgoing weight reached 0: they leave
      p.count = 1;
      p.contributors[0].weight = p.contributors[0].base_weight = 1.0f;
      p.fade_seconds = p.fade_progress = 0.0;
    } else {
      p.contributors[0].weight = static_cast<float>(w);
      for (std::uint32_t i = 1; i < p.count; ++i)
        p.contributors[i].weight = static_cast<float>(p.contributors[i].base_weight * (1.0 - w));
    }
  }
  refresh_finished(asset, p);
  return true;
}

}  // namespace gltf_crowd
