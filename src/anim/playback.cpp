// Based on: docs/spec.md §3 "Time" (the elapsed-clock rules for once, repeat, ping-pong, repetitions).
// The clock is kept in double: a float clock loses sub-frame precision after a few hours of
// playback, and the wrap below must see exact multiples of D as exact.
#include "gltf_crowd/playback.hpp"

#include <algorithm>
#include <cmath>

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
  const double d = duration_seconds;
  if (!(d > 0.0)) return {0.0f, loop == LoopMode::once || repetitions > 0};
  if (loop == LoopMode::once) {
    const bool finished = backward ? e <= 0.0 : e >= d;
    return {static_cast<float>(std::clamp(e, 0.0, d)), finished};
  }
  if (repetitions > 0 && std::abs(e) >= repetitions * d) {
    // The limit of t as |e| rises to n·D; ping-pong is symmetric in e, repeat is not.
    const bool at_start = loop == LoopMode::ping_pong ? repetitions % 2 == 0 : e < 0.0;
    return {at_start ? 0.0f : duration_seconds, true};
  }
  double k = std::floor(e / d);
  double m = e - k * d;
  if (m < 0.0) m = 0.0;
  // A remainder that rounds to D is really the start of the next traversal; counting it there
  // keeps ping-pong's direction right at the turn.
  if (static_cast<float>(m) >= duration_seconds) {
    m = 0.0;
    k += 1.0;
  }
  const bool mirrored = loop == LoopMode::ping_pong && std::fmod(std::abs(k), 2.0) == 1.0;
  return {static_cast<float>(mirrored ? d - m : m), false};
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
