// Based on: SPEC §3 "Time" (the elapsed-clock rules for once, repeat, ping-pong, repetitions).
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

ClipTime clip_time(double e, float duration_seconds, LoopMode loop, std::uint32_t repetitions,
                   bool backward) noexcept {
  const double d = duration_seconds;
  if (!(d > 0.0)) return {0.0f, loop == LoopMode::once || repetitions > 0};
  if (loop == LoopMode::once) {
    const bool finished = backward ? e <= 0.0 : e >= d;
    return {static_cast<float>(std::clamp(e, 0.0, d)), finished};
  }
  if (repetitions > 0 && std::abs(e) >= repetitions * d) {
    if (e < 0.0) return {0.0f, true};
    const bool ends_at_start = loop == LoopMode::ping_pong && repetitions % 2 == 0;
    return {ends_at_start ? 0.0f : duration_seconds, true};
  }
  const double k = std::floor(e / d);
  double m = e - k * d;
  if (m < 0.0) m = 0.0;
  if (m >= d) m = 0.0;  // rounding at exact multiples reports the start
  if (loop == LoopMode::ping_pong && std::fmod(std::abs(k), 2.0) == 1.0) m = d - m;
  return {static_cast<float>(m), false};
}

}  // namespace gltf_crowd
