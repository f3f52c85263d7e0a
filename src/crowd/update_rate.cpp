// Animation update-rate LOD: which advanced actors are evaluated this frame (UpdateRateOptions).
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "crowd/lod_state.hpp"
#include "crowd/state.hpp"

namespace gltf_crowd {

inline constexpr std::uint32_t kMaxUpdatePeriod = 64;

void validate_update_rate(const UpdateRateOptions& options) {
  if (options.coverage.size() != options.periods.size())
    throw Error("update_rate", "update_rate",
                fmt::format("{} coverage thresholds but {} periods", options.coverage.size(), options.periods.size()));
  for (std::size_t i = 0; i < options.coverage.size(); ++i) {
    const float c = options.coverage[i];
    if (!(std::isfinite(c) && c > 0.0f) || (i > 0 && !(c < options.coverage[i - 1])))
      throw Error(fmt::format("update_rate.coverage[{}]", i), "update_rate_coverage",
                  i == 0 ? fmt::format("{} must be finite and > 0", c)
                         : fmt::format("{} must be finite, > 0 and below coverage[{}] = {}", c, i - 1,
                                       options.coverage[i - 1]));
    const std::uint32_t p = options.periods[i];
    if (p < 1 || p > kMaxUpdatePeriod)
      throw Error(fmt::format("update_rate.periods[{}]", i), "update_rate_period",
                  fmt::format("{} is not in [1, {}]", p, kMaxUpdatePeriod));
  }
}

void Crowd::set_update_rate(const UpdateRateOptions& options) {
  check_alive();
  validate_update_rate(options);
  update_rate_ = options;
  if (!options.enabled) evaluate_stale_drawn();
}

void Crowd::evaluate_stale_drawn() {
  State& st = *state_;
  const LodState& lod = *lod_;
  ++generation_;
  for (std::uint32_t slot = 0; slot < st.size(); ++slot)
    if (st.stale[slot] && lod.level[slot] != kCulledLevel) evaluate(slot, st.caller_scratch());
}

void Crowd::reclassify() {
  State& st = *state_;
  const LodState& lod = *lod_;
  std::vector<std::uint32_t> hidden;  // stale and not drawn before this control
  for (std::uint32_t slot = 0; slot < st.size(); ++slot)
    if (st.stale[slot] && lod.level[slot] == kCulledLevel) hidden.push_back(slot);
  refresh_instances();
  if (hidden.empty()) return;
  ++generation_;
  for (std::uint32_t slot : hidden)
    if (lod.level[slot] != kCulledLevel) evaluate(slot, st.caller_scratch());
}

bool Crowd::scheduled(std::uint32_t slot) const noexcept {
  const LodState& lod = *lod_;
  if (!update_rate_.enabled || !(lod.configured && lod.options.enabled && lod.view.has_value())) return true;
  if (lod.level[slot] == kCulledLevel) return false;  // not drawn: evaluated when visible again
  const float coverage = lod.coverage[slot];
  std::uint32_t period = 1;
  for (std::size_t i = 0; i < update_rate_.coverage.size() && coverage < update_rate_.coverage[i]; ++i)
    period = update_rate_.periods[i];
  if (period <= 1) return true;
  const State& st = *state_;
  // Staggered by the stable key so an equal share of each band is due every frame; an actor
  // whose rows are a whole period old (newly visible, or its band just changed) is due now.
  return (frames_ + st.slot_key[slot]) % period == 0 || frames_ - st.packed_frame[slot] >= period;
}

}  // namespace gltf_crowd
