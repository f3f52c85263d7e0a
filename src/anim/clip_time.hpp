// Layer 2, anim: clip_time (playback.hpp) with the reciprocal of the clip's duration given, for
// callers that map many clocks onto one clip: the crowd maps every contributor of every update.
// Based on: docs/spec.md §3 "Time". The clock is kept in double: a float clock loses sub-frame
// precision after a few hours of playback, and the wrap must see exact multiples of D as exact.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "gltf_crowd/playback.hpp"

namespace gltf_crowd {

// clip_time bit for bit, given inverse = 1 / D: k = floor(e / D) from q = e × inverse where q is over
// 8u·|q| from every integer (u = 2⁻⁵³; q and e / D each lie within 3u of the exact quotient, so one
// floor), else the division. Inline, a multiply: the crowd maps every contributor's clock every update.
inline ClipTime clip_time(double e, float duration_seconds, double inverse, LoopMode loop, std::uint32_t repetitions,
                          bool backward) noexcept {
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
  const double q = e * inverse;
  double k = std::floor(q);
  const double fraction = q - k, margin = std::abs(q) * 0x1p-50;  // fraction: exact below 2⁵²
  if (!(fraction > margin && fraction < 1.0 - margin)) k = std::floor(e / d);
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

}  // namespace gltf_crowd
