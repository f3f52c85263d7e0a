// The clip-time segments a contributor's clock traverses in one update (docs/spec.md §3.10): the
// elapsed interval the update moved the clock over, cut at every loop wrap and ping-pong turn and
// clipped where the clock finishes, as crossings.hpp does for markers. Root motion sums
// value(end) − value(start) over the segments, so a wrap never jumps and ten loops in one long
// frame move as far as ten loops frame by frame. Pure and allocation-free.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "crowd/clock_span.hpp"
#include "gltf_crowd/playback.hpp"

namespace gltf_crowd {

// Calls segment(t_from, t_to, times) for the clip-time pieces the elapsed clock covers while it
// moves from `from` by `step` (any sign) over a clip of `duration` seconds under `loop` and
// `repetitions` (the rules of clip_time, docs/spec.md §3.3): a piece runs from clip time t_from
// to t_to (both in [0, duration]) and stands for `times` >= 1 identical traversals. Whole
// traversals between the first and the last piece are reported in closed form, at most twice
// (once rising 0 → D, once falling D → 0), so a step of any length costs O(1) calls. The clock
// is clipped to [0, D] for once and to [-nD, nD] for n repetitions; a duration of 0 or a zero
// step reports nothing.
template <class Segment>
void for_each_segment(double from, double step, float duration, LoopMode loop, std::uint32_t repetitions,
                      Segment&& segment) {
  const double d = duration;
  if (step == 0.0 || !(d > 0.0)) return;
  const ClockSpan span = clock_span(from, step, d, loop, repetitions);
  if (span.empty) return;
  const bool forward = span.forward;
  const double lo = span.lo, hi = span.hi;
  const double k_first = span.k_first, k_last = span.k_last;
  const auto mirrored = [&](double k) { return loop == LoopMode::ping_pong && std::fmod(std::abs(k), 2.0) == 1.0; };
  // One traversal k, cut to [lo, hi], in the direction the clock moves.
  const auto piece = [&](double k) {
    const double start = k * d;
    const double seg_lo = std::max(lo, start), seg_hi = std::min(hi, start + d);
    if (!(seg_lo < seg_hi)) return;
    const bool flip = mirrored(k);
    const auto clip_t = [&](double e) {
      const double u = std::clamp(e - start, 0.0, d);
      return static_cast<float>(flip ? d - u : u);
    };
    const float t_lo = clip_t(seg_lo), t_hi = clip_t(seg_hi);
    if (forward)
      segment(t_lo, t_hi, 1.0);
    else
      segment(t_hi, t_lo, 1.0);
  };
  const double first = forward ? k_first : k_last;
  const double last = forward ? k_last : k_first;
  piece(first);
  const double middle = k_last - k_first - 1.0;  // whole traversals strictly between
  if (middle > 0.0) {
    const double k1 = k_first + 1.0, k2 = k_last - 1.0;
    // Odd traversals in [k1, k2]: the odd integers <= x number floor((x + 1) / 2).
    const double odd = loop == LoopMode::ping_pong ? std::floor((k2 + 1.0) / 2.0) - std::floor(k1 / 2.0) : 0.0;
    const double even = middle - odd;
    // A traversal's clip time rises when the clock moves forward through an unmirrored one, or
    // backward through a mirrored one.
    const double rising = forward ? even : odd, falling = forward ? odd : even;
    if (rising > 0.0) segment(0.0f, duration, rising);
    if (falling > 0.0) segment(duration, 0.0f, falling);
  }
  if (last != first) piece(last);
}

}  // namespace gltf_crowd
