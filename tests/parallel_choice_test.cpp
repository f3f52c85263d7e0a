// ParallelChoice, driven with made-up costs: which way an update of middling size runs
// (src/crowd/parallel_choice.hpp, docs/spec.md §5 "Other rules").
#include <cstdint>
#include <functional>

#include <gtest/gtest.h>

#include "crowd/parallel_choice.hpp"

namespace gltf_crowd {
namespace {

using Cost = std::function<double(bool serial, std::uint32_t update)>;

// Runs `updates` updates that cost what `cost` says; returns how many ran serially.
std::uint32_t run(ParallelChoice& choice, std::uint32_t updates, const Cost& cost, std::uint32_t first = 0) {
  std::uint32_t serial_updates = 0;
  for (std::uint32_t u = first; u < first + updates; ++u) {
    const bool serial = choice.serial();
    serial_updates += serial;
    choice.record(serial, cost(serial, u));
  }
  return serial_updates;
}

constexpr std::uint32_t kWindow = 64 * ParallelChoice::kProbeInterval;
// Updates of a window that probe the way not chosen.
constexpr std::uint32_t kProbes = 64 * ParallelChoice::kProbeRun;

TEST(ParallelChoice, MeasuresSerialThenParallelBeforeChoosing) {
  ParallelChoice choice;
  // The first kSwitchUpdates of each way are not recorded: the way runs until one is.
  for (std::uint32_t u = 0; u <= ParallelChoice::kSwitchUpdates; ++u) {
    ASSERT_TRUE(choice.serial()) << "update " << u;
    choice.record(true, 10.0);
  }
  for (std::uint32_t u = 0; u <= ParallelChoice::kSwitchUpdates; ++u) {
    ASSERT_FALSE(choice.serial()) << "update " << u;
    choice.record(false, 5.0);
  }
  EXPECT_FALSE(choice.serial());  // parallel measured cheaper
}

TEST(ParallelChoice, RunsTheCheaperWayAndProbesTheOther) {
  ParallelChoice parallel_cheaper;
  run(parallel_cheaper, kWindow, [](bool serial, std::uint32_t) { return serial ? 10.0 : 6.0; });
  EXPECT_EQ(run(parallel_cheaper, kWindow, [](bool serial, std::uint32_t) { return serial ? 10.0 : 6.0; }), kProbes);

  ParallelChoice serial_cheaper;
  run(serial_cheaper, kWindow, [](bool serial, std::uint32_t) { return serial ? 6.0 : 10.0; });
  EXPECT_EQ(run(serial_cheaper, kWindow, [](bool serial, std::uint32_t) { return serial ? 6.0 : 10.0; }),
            kWindow - kProbes);
}

TEST(ParallelChoice, FollowsTheMachineWhenItChanges) {
  ParallelChoice choice;
  run(choice, kWindow, [](bool serial, std::uint32_t) { return serial ? 10.0 : 6.0; });
  // The workers now answer late: two workers cost three times what they did.
  run(choice, 4 * ParallelChoice::kProbeInterval, [](bool serial, std::uint32_t) { return serial ? 10.0 : 18.0; });
  EXPECT_EQ(run(choice, kWindow, [](bool serial, std::uint32_t) { return serial ? 10.0 : 18.0; }), kWindow - kProbes);
  // And back: found by the probes.
  run(choice, 16 * ParallelChoice::kProbeInterval, [](bool serial, std::uint32_t) { return serial ? 10.0 : 6.0; });
  EXPECT_EQ(run(choice, kWindow, [](bool serial, std::uint32_t) { return serial ? 10.0 : 6.0; }), kProbes);
}

TEST(ParallelChoice, DoesNotRecordTheUpdatesThatPayForASwitch) {
  // Each run of parallel updates starts with two that cost 40 (workers waking), then costs 6
  // against serial's 10: parallel is the cheaper way once running.
  ParallelChoice choice;
  bool last = true;
  std::uint32_t in_run = 0;
  const Cost cost = [&](bool serial, std::uint32_t) {
    in_run = serial == last ? in_run + 1 : 1;
    last = serial;
    if (serial) return 10.0;
    return in_run <= 2 ? 40.0 : 6.0;
  };
  // From the first window on: serial only to be measured, then in probes.
  EXPECT_LE(run(choice, kWindow, cost), kProbes + ParallelChoice::kSwitchUpdates + 1);
  EXPECT_EQ(run(choice, kWindow, cost), kProbes);
}

TEST(ParallelChoice, OnePreemptedUpdateDoesNotDecide) {
  ParallelChoice choice;
  run(choice, kWindow, [](bool serial, std::uint32_t) { return serial ? 10.0 : 8.0; });
  // One update of the chosen way (parallel) preempted for a thousand times its cost.
  const std::uint32_t serial_updates = run(
      choice, kWindow,
      [](bool serial, std::uint32_t u) {
        if (serial) return 10.0;
        return u == kWindow + 40 ? 8000.0 : 8.0;
      },
      kWindow);
  EXPECT_EQ(serial_updates, kProbes);
}

TEST(ParallelChoice, StaysWithinTheMargin) {
  // Parallel 5 % cheaper than serial: noise, not a reason to move.
  ParallelChoice choice;
  run(choice, ParallelChoice::kProbeInterval, [](bool serial, std::uint32_t) { return serial ? 10.0 : 9.5; });
  EXPECT_EQ(run(choice, kWindow, [](bool serial, std::uint32_t) { return serial ? 10.0 : 9.5; }), kWindow - kProbes);
}

}  // namespace
}  // namespace gltf_crowd
