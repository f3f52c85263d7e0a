// Whether a middling update runs on the caller's thread or the workers, chosen by measuring both:
// which wins depends on how soon other cores answer, which varies by the minute (the benchmarks
// journal at fbbf183, "Serial or parallel, measured") and more where workers sleep between frames.
#pragma once

#include <cstdint>

namespace gltf_crowd {

// Cost estimates of the two ways (time-stamp ticks per node evaluation, an exponential moving
// average; 0 = not measured yet), and the update count that schedules probes of the other way.
class ParallelChoice {
 public:
  // Of every this many updates, the last kProbeRun run the way not currently chosen, so that its
  // estimate follows the machine.
  static constexpr std::uint32_t kProbeInterval = 256;
  static constexpr std::uint32_t kProbeRun = 8;
  // The first updates of a run pay for the switch (sleeping workers woken, rows last written on
  // another core) and are not recorded.
  static constexpr std::uint32_t kSwitchUpdates = 2;

  // The other way becomes the chosen one when its estimate is below this fraction of the chosen
  // way's: estimates within a tenth mostly differ by noise, and without a margin crowds flapped
  // between the two (docs/benchmarks.md, "Tried and dropped").
  static constexpr double kMargin = 0.9;

  // True: run this update on the caller's thread. Measures each way before choosing.
  bool serial() noexcept {
    ++updates_;
    if (serial_cost_ == 0.0) return true;
    if (parallel_cost_ == 0.0) return false;
    const double chosen = serial_chosen_ ? serial_cost_ : parallel_cost_;
    const double other = serial_chosen_ ? parallel_cost_ : serial_cost_;
    if (other < kMargin * chosen) serial_chosen_ = !serial_chosen_;
    const bool probe = updates_ % kProbeInterval >= kProbeInterval - kProbeRun;  // the interval's last
    return probe ? !serial_chosen_ : serial_chosen_;
  }

  // Records what an update that ran `serial` cost, in ticks per node evaluation, unless one of the
  // kSwitchUpdates previous updates ran the other way. One sample moves its estimate by an eighth,
  // at most doubling it, so one preempted update decides nothing.
  void record(bool serial, double cost) noexcept {
    run_ = serial != last_serial_ ? 1 : run_ > kSwitchUpdates ? run_ : run_ + 1;
    last_serial_ = serial;
    double& estimate = serial ? serial_cost_ : parallel_cost_;
    if (run_ <= kSwitchUpdates) return;
    if (estimate == 0.0) {
      estimate = cost;
      return;
    }
    const double bounded = cost < 2.0 * estimate ? cost : 2.0 * estimate;
    estimate += (bounded - estimate) * 0.125;
  }

 private:
  double serial_cost_ = 0.0;
  double parallel_cost_ = 0.0;
  std::uint32_t updates_ = 0;
  bool serial_chosen_ = true;
  // Updates in a row that ran the way of last_serial_, counted up to kSwitchUpdates + 1.
  std::uint32_t run_ = 0;
  bool last_serial_ = false;
};

}  // namespace gltf_crowd
