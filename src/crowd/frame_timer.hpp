// Timing of Crowd::update (only with Crowd::set_stage_timing on) by the time-stamp counter: every chunk is timed whole,
// and a sample of actors is also timed per stage, which splits the chunks' total by stage (four counter reads for
// every actor would cost too much). FrameStats gets the result.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>

#include "gltf_crowd/crowd.hpp"

namespace gltf_crowd {

inline std::uint64_t ticks() noexcept { return __builtin_ia32_rdtsc(); }

// Laps of one actor's stages; reads the counter only when `timed`.
class StageClock {
 public:
  explicit StageClock(bool timed) noexcept : timed_(timed), last_(timed ? ticks() : 0) {}
  // Adds the ticks since the previous lap (or construction) to `total`.
  void lap(std::uint64_t& total) noexcept {
    if (!timed_) return;
    const std::uint64_t now = ticks();
    total += now - last_;
    last_ = now;
  }

 private:
  bool timed_;
  std::uint64_t last_;
};

// Wall time and ticks of one update, from its start.
class FrameTimer {
 public:
  FrameTimer() noexcept : wall0_(std::chrono::steady_clock::now()), tick0_(ticks()) {}
  // Fills the stage milliseconds of `stats` from the per-stage ticks of the sampled actors and
  // the chunk ticks of all of them (both summed over workers), converting ticks with this
  // update's wall time.
  void finish(const std::array<std::uint64_t, 4>& stage_ticks, std::uint64_t chunk_ticks,
              FrameStats& stats) const noexcept;

 private:
  std::chrono::steady_clock::time_point wall0_;
  std::uint64_t tick0_;
};

// timer->finish, or stage times of 0 for an update that measured none (no timer).
inline void finish_stage_times(const std::optional<FrameTimer>& timer, const std::array<std::uint64_t, 4>& stage_ticks,
                               std::uint64_t chunk_ticks, FrameStats& stats) noexcept {
  if (timer) return timer->finish(stage_ticks, chunk_ticks, stats);
  stats.sampling_ms = stats.hierarchy_ms = stats.palettes_ms = stats.packing_ms = 0.0;
}

}  // namespace gltf_crowd
