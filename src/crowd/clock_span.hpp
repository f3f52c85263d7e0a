// The elapsed interval one update moves a contributor's clock over, clipped where the clock
// finishes, and the traversals it touches (docs/spec.md §3.3): what both the marker crossings
// (crossings.hpp) and the root motion segments (segments.hpp) walk. Pure.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "gltf_crowd/playback.hpp"

namespace gltf_crowd {

// The clock's path [lo, hi] in elapsed seconds, the direction it moves, and the traversals
// k_first..k_last it touches (traversal k covers [kD, (k+1)D]). `empty` when it moves nowhere.
struct ClockSpan {
  bool empty = true;
  bool forward = true;
  double lo = 0.0, hi = 0.0;
  double k_first = 0.0, k_last = 0.0;
};

// The span of a clock moving from `from` by `step` over a clip of duration d > 0, clipped to
// [0, D] for once and to [-nD, nD] for n repetitions.
inline ClockSpan clock_span(double from, double step, double d, LoopMode loop, std::uint32_t repetitions) noexcept {
  constexpr double inf = std::numeric_limits<double>::infinity();
  double lowest = -inf, highest = inf;  // elapsed range the clock may cover
  double k_lowest = -inf, k_highest = inf;
  if (loop == LoopMode::once) {
    lowest = 0.0;
    highest = d;
    k_lowest = k_highest = 0.0;
  } else if (repetitions > 0) {
    highest = repetitions * d;
    lowest = -highest;
    k_lowest = -static_cast<double>(repetitions);
    k_highest = static_cast<double>(repetitions) - 1.0;
  }
  const double a = std::clamp(from, lowest, highest);
  const double b = std::clamp(from + step, lowest, highest);
  if (a == b) return {};
  ClockSpan span;
  span.empty = false;
  span.forward = b > a;
  span.lo = std::min(a, b);
  span.hi = std::max(a, b);
  span.k_first = std::max(std::floor(span.lo / d), k_lowest);
  span.k_last = std::min(std::floor(span.hi / d), k_highest);
  return span;
}

}  // namespace gltf_crowd
