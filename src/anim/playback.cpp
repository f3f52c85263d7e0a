// Based on: docs/spec.md §3 "Time" (the elapsed-clock rules for once, repeat, ping-pong, repetitions).
// clip_time's rules live in anim/clip_time.hpp, inline for the crowd's per-contributor calls.
#include "gltf_crowd/playback.hpp"

#include <algorithm>

#include "anim/clip_time.hpp"

namespace gltf_crowd {

std::string_view to_string(LoopMode mode) noexcept {
  switch (mode) {
    case LoopMode::once: return "once";
    case LoopMode::repeat: return "repeat";
    case LoopMode::ping_pong: return "ping-pong";
  }
  return "repeat";
}

ClipTime clip_time(double e, float duration_seconds, LoopMode loop, std::uint32_t repetitions, bool backward) noexcept {
  return clip_time(e, duration_seconds, 1.0 / static_cast<double>(duration_seconds), loop, repetitions, backward);
}

double restart_elapsed(float duration_seconds, LoopMode loop, bool backward) noexcept {
  return loop == LoopMode::once && backward ? static_cast<double>(duration_seconds) : 0.0;
}

double settle_elapsed(double e, float duration_seconds, LoopMode loop, std::uint32_t repetitions) noexcept {
  const double d = std::max(0.0, static_cast<double>(duration_seconds));
  if (loop == LoopMode::once) return std::clamp(e, 0.0, d);
  if (repetitions == 0) return e;
  const double end = repetitions * d;
  return std::clamp(e, -end, end);
}

}  // namespace gltf_crowd
