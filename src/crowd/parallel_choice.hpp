// Whether an update of middling size runs on the caller's thread alone or across the workers,
// chosen by measuring both. Which is faster for a few hundred actors depends less on the work
// than on how soon the other cores answer: on the 2-vCPU VMs we measure, handing 100 Fox actors
// to a second worker took their update from 0.19 to 0.13 µs per actor in some minutes and to
// 0.26 in others, with the same binary (docs/benchmarks.md, "Serial or parallel, measured").
// In an engine, where the workers sleep through a frame's rendering between updates, waking them
// costs more still. A fixed threshold is wrong in one regime or the other; this follows the
// machine as it is.
#pragma once

#include <cstdint>

namespace gltf_crowd {

// Cost estimates of the two ways (time-stamp ticks per node evaluation, an exponential moving
// average; 0 = not measured yet), and the update count that schedules probes of the other way.
class ParallelChoice {
 public:
  // Of every this many updates, the last kProbeRun run the way not currently chosen, so that its
  // estimate follows the machine: at worst 8 of 256 updates run the slower way.
  static constexpr std::uint32_t kProbeInterval = 256;
  static constexpr std::uint32_t kProbeRun = 8;
  // The first updates of a run pay for the switch (sleeping workers woken, rows last written on
  // another core) and are not recorded: probes of one update measured 100 CesiumMan actors on
  // two workers at 1.5–3 × what they cost when every update ran there.
  static constexpr std::uint32_t kSwitchUpdates = 2;

  // The other way becomes the chosen one when its estimate is below this fraction of the chosen
  // way's: estimates within a tenth of each other mostly differ by noise, and without the margin
  // a crowd flapped between the two (RiggedFigure, 100 actors: one update in four to six on the
  // slower way, where probes alone run one in 32).
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

  // Records what an update that ran `serial` cost, in ticks per node evaluation, unless one of
  // the kSwitchUpdates previous updates ran the other way. One sample moves its estimate by an
  // eighth, and by at most its double: an update preempted for a millisecond does not decide
  // the next hundred.
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
