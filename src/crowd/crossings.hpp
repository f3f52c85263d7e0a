// Which markers a contributor's clock crosses in one update (docs/spec.md §3.9): the elapsed
// interval the update moved the clock over, mapped onto clip time traversal by traversal under
// the loop rules of clip_time (docs/spec.md §3.3). Pure and allocation-free; events.cpp turns the
// crossings into ClipEvents, and the unit tests check the rules here directly.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>

#include "crowd/clock_span.hpp"
#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/playback.hpp"

namespace gltf_crowd {

// A pathological step (hours at a high speed over a short clip) would otherwise report millions
// of events in one update; traversals past this many, counted from where the clock started, are
// skipped.
inline constexpr double kMaxTraversalsPerUpdate = 1024.0;

// Calls emit(marker, distance) for every crossing, in the order the clock meets them, while the
// elapsed clock moves from `from` by `step` (any sign) over a clip of `duration` seconds under
// `loop` and `repetitions`. `marker` indexes `markers` (sorted by time); `distance` in
// [0, |step|] is how far the clock had moved when it met the marker (0 only for a repeat clock
// that leaves a traversal boundary backward: it meets the markers at D as it leaves).
//
// The rules (docs/spec.md §3.9):
//  - the clock's path is half-open: where it started is excluded, where it ends included, so a
//    marker met exactly at the end of one update is not met again at the start of the next;
//  - each traversal k covers elapsed [kD, (k+1)D]; its clip time runs 0 → D, or D → 0 for odd k
//    of ping-pong. A repeat wrap meets both the end of one traversal (markers at D) and the start
//    of the next (markers at 0); a ping-pong turn continues from the same clip time, so a marker
//    at the turning point is met once;
//  - the clock is clipped to where it finishes: [0, D] for once, [-nD, nD] for n repetitions;
//  - a duration of 0 meets nothing.
template <class Emit>
void for_each_crossing(std::span<const ClipMarker> markers, double from, double step, float duration, LoopMode loop,
                       std::uint32_t repetitions, Emit&& emit) {
  const double d = duration;
  if (markers.empty() || step == 0.0 || !(d > 0.0)) return;
  const ClockSpan span = clock_span(from, step, d, loop, repetitions);
  if (span.empty) return;
  const bool forward = span.forward;
  const double lo = span.lo, hi = span.hi;
  const double k_first = span.k_first, k_last = span.k_last;
  const double count = std::min(k_last - k_first + 1.0, kMaxTraversalsPerUpdate);
  const auto times_begin = markers.begin();
  const auto below = [&](double t) {  // first marker at or after t
    return static_cast<std::size_t>(
        std::lower_bound(times_begin, markers.end(), t, [](const ClipMarker& m, double v) { return m.seconds < v; }) -
        times_begin);
  };
  const auto above = [&](double t) {  // first marker after t
    return static_cast<std::size_t>(
        std::upper_bound(times_begin, markers.end(), t, [](double v, const ClipMarker& m) { return v < m.seconds; }) -
        times_begin);
  };
  bool first = true;  // the segment the clock starts in
  for (double i = 0.0; i < count; i += 1.0) {
    const double k = forward ? k_first + i : k_last - i;
    const double start = k * d;
    const double seg_lo = std::max(lo, start), seg_hi = std::min(hi, start + d);
    if (seg_lo > seg_hi) continue;
    const double seg_from = forward ? seg_lo : seg_hi;
    const double seg_to = forward ? seg_hi : seg_lo;
    // The clock's own start is excluded; so is a ping-pong turn, whose clip time the previous
    // traversal already reached. A repeat wrap jumps to a new clip time, which the clock meets.
    const bool open = first || loop == LoopMode::ping_pong;
    first = false;
    const bool mirrored = loop == LoopMode::ping_pong && std::fmod(std::abs(k), 2.0) == 1.0;
    const auto clip_t = [&](double e) {
      const double u = std::clamp(e - start, 0.0, d);
      return mirrored ? d - u : u;
    };
    const auto elapsed_of = [&](double t) { return start + (mirrored ? d - t : t); };
    const double t_from = clip_t(seg_from), t_to = clip_t(seg_to);
    const bool rising = forward != mirrored;  // clip time runs up in this traversal
    if (rising) {
      const std::size_t end = above(t_to);
      for (std::size_t m = open ? above(t_from) : below(t_from); m < end; ++m)
        emit(static_cast<std::uint32_t>(m), std::abs(elapsed_of(markers[m].seconds) - from));
    } else {
      const std::size_t lowest_met = below(t_to);
      for (std::size_t m = open ? below(t_from) : above(t_from); m > lowest_met; --m)
        emit(static_cast<std::uint32_t>(m - 1), std::abs(elapsed_of(markers[m - 1].seconds) - from));
    }
  }
}

}  // namespace gltf_crowd
