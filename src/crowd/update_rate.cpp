// Animation update-rate LOD: which advanced actors are evaluated this frame (UpdateRateOptions).
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "crowd/state.hpp"

namespace gltf_crowd {

inline constexpr std::uint32_t kMaxUpdatePeriod = 64;

void validate_update_rate(const UpdateRateOptions& options) {
  if (options.coverage.size() != options.periods.size())
    throw Error("update_rate", Rule::update_rate,
                fmt::format("{} coverage thresholds but {} periods", options.coverage.size(), options.periods.size()));
  for (std::size_t i = 0; i < options.coverage.size(); ++i) {
    const float c = options.coverage[i];
    if (!(std::isfinite(c) && c > 0.0f) || (i > 0 && !(c < options.coverage[i - 1])))
      throw Error(fmt::format("update_rate.coverage[{}]", i), Rule::update_rate_coverage,
                  i == 0 ? fmt::format("{} must be finite and > 0", c)
                         : fmt::format("{} must be finite, > 0 and below coverage[{}] = {}", c, i - 1,
                                       options.coverage[i - 1]));
    const std::uint32_t p = options.periods[i];
    if (p < 1 || p > kMaxUpdatePeriod)
      throw Error(fmt::format("update_rate.periods[{}]", i), Rule::update_rate_period,
                  fmt::format("{} is not in [1, {}]", p, kMaxUpdatePeriod));
  }
}

void Crowd::set_update_rate(const UpdateRateOptions& options) {
  State& st = live();
  validate_update_rate(options);
  st.update_rate = options;
  if (!options.enabled) mark_stale_drawn(st);
}

const UpdateRateOptions& Crowd::update_rate() const noexcept {
  static const UpdateRateOptions none;
  return state_ ? state_->update_rate : none;
}

void mark_stale_drawn(Crowd::State& st) {
  for (std::uint32_t slot = 0; slot < st.size(); ++slot)
    if (st.stale[slot] && st.lod.level[slot] != kCulledLevel) mark_pending(st, slot);
}

void reclassify(Crowd::State& st) {
  std::vector<std::uint32_t> hidden;  // stale and not drawn before this control
  for (std::uint32_t slot = 0; slot < st.size(); ++slot)
    if (st.stale[slot] && st.lod.level[slot] == kCulledLevel) hidden.push_back(slot);
  refresh_instances(st);
  for (std::uint32_t slot : hidden)
    if (st.lod.level[slot] != kCulledLevel) mark_pending(st, slot);
}

bool scheduled(const Crowd::State& st, std::uint32_t slot) noexcept {
  const LodState& lod = st.lod;
  const UpdateRateOptions& rate = st.update_rate;
  if (!rate.enabled || !lod.active()) return true;
  if (st.pending[slot]) return true;                  // a control's actor is due now
  if (lod.level[slot] == kCulledLevel) return false;  // not drawn: evaluated when visible again
  const float coverage = lod.coverage[slot];
  std::uint32_t period = 1;
  for (std::size_t i = 0; i < rate.coverage.size() && coverage < rate.coverage[i]; ++i) period = rate.periods[i];
  if (period <= 1) return true;
  // Staggered by the stable key so an equal share of each band is due every frame; an actor
  // whose rows are a whole period old (newly visible, or its band just changed) is due now.
  return (st.frames + st.slot_key[slot]) % period == 0 || st.frames - st.packed_frame[slot] >= period;
}

}  // namespace gltf_crowd
