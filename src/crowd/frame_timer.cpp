#include "crowd/frame_timer.hpp"

namespace gltf_crowd {

void FrameTimer::finish(const std::array<std::uint64_t, 4>& stage_ticks, std::uint64_t chunk_ticks,
                        FrameStats& stats) const noexcept {
  const std::uint64_t tick1 = ticks();
  const double wall_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - wall0_).count();
  const double ms_per_tick = tick1 > tick0_ ? wall_ns / static_cast<double>(tick1 - tick0_) * 1e-6 : 0.0;
  std::array<double, 4> stage{};
  for (std::size_t i = 0; i < 4; ++i) stage[i] = static_cast<double>(stage_ticks[i]);
  const auto chunks = static_cast<double>(chunk_ticks);
  const double sampled = stage[0] + stage[1] + stage[2] + stage[3];
  const double scale = sampled > 0.0 ? chunks / sampled * ms_per_tick : 0.0;
  stats.sampling_ms = stage[0] * scale;
  stats.hierarchy_ms = stage[1] * scale;
  stats.palettes_ms = stage[2] * scale;
  stats.packing_ms = stage[3] * scale;
}

}  // namespace gltf_crowd
