// SlipMeter (docs/spec.md §15.6): planted-foot horizontal speeds in a fixed histogram of
// SlipMeter::bin_count bins of SlipMeter::bin_width cm/s, with an exact sum for the mean.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "asset/checks.hpp"
#include "gltf_crowd/error.hpp"
#include "gltf_crowd/gait.hpp"

namespace gltf_crowd {
namespace {

bool finite(const glm::vec3& p) { return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z); }

}  // namespace

SlipMeter::SlipMeter() : counts_(bin_count, 0) {}

bool SlipMeter::add_step(const glm::vec3& from, const glm::vec3& to, float dt) noexcept {
  if (!finite(from) || !finite(to) || !(dt > 0.0f) || !std::isfinite(dt)) return false;
  const double dx = static_cast<double>(to.x) - from.x, dz = static_cast<double>(to.z) - from.z;
  const double speed = 100.0 * std::sqrt(dx * dx + dz * dz) / dt;  // m/s to cm/s
  if (!std::isfinite(speed)) return false;
  const auto bin = std::min(static_cast<std::size_t>(speed / bin_width), bin_count - 1);
  ++counts_[bin];
  ++steps_;
  sum_ += speed;
  max_ = std::max(max_, speed);
  return true;
}

void SlipMeter::add_trajectory(std::span<const glm::vec3> positions, std::span<const std::uint8_t> planted, float dt) {
  if (positions.size() != planted.size()) {
    throw Error("planted", Rule::foot_slip_input,
                fmt::format("{} planted flags for {} positions; one per frame", planted.size(), positions.size()));
  }
  if (!(dt > 0.0f) || !std::isfinite(dt))
    throw Error("dt", Rule::foot_slip_input, fmt::format("{} is not a finite time step > 0", dt));
  for (std::size_t k = 0; k < positions.size(); ++k) {
    if (!finite(positions[k])) {
      detail::throw_not_finite(fmt::format("positions[{}]", k),
                               fmt::format("({}, {}, {})", positions[k].x, positions[k].y, positions[k].z));
    }
  }
  for (std::size_t k = 1; k < positions.size(); ++k) {
    if (planted[k - 1] != 0 && planted[k] != 0) add_step(positions[k - 1], positions[k], dt);
  }
}

void SlipMeter::merge(const SlipMeter& other) noexcept {
  for (std::size_t b = 0; b < bin_count; ++b) counts_[b] += other.counts_[b];
  steps_ += other.steps_;
  sum_ += other.sum_;
  max_ = std::max(max_, other.max_);
}

SlipStats SlipMeter::stats() const noexcept {
  SlipStats out;
  out.steps = steps_;
  if (steps_ == 0) return out;
  out.mean = sum_ / static_cast<double>(steps_);
  out.max = max_;
  // The upper edge of the bin holding the ceil(0.95 n)-th smallest step.
  const auto rank = static_cast<std::uint64_t>(std::ceil(0.95 * static_cast<double>(steps_)));
  std::uint64_t seen = 0;
  for (std::size_t b = 0; b < bin_count; ++b) {
    seen += counts_[b];
    if (seen >= rank) {
      out.p95 = std::min(static_cast<double>(b + 1) * bin_width, max_);
      break;
    }
  }
  return out;
}

}  // namespace gltf_crowd
