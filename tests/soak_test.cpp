// Soak (issue 10, item 4): 100,000 frames of randomized operations on RobotExpressive with the
// crowd's invariants checked after every frame, and memory compared between frame 1,000 and the
// end. Deterministic (fixed seed). Sanitizer builds run 20,000 frames; the environment variable
// GLTF_CROWD_SOAK_FRAMES overrides either count.
#include <malloc.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "crowd_soak.hpp"
#include "gltf_crowd/crowd.hpp"
#include "test_support.hpp"

#ifdef GLTF_CROWD_SOAK_ASAN
// From the ASan runtime (sanitizer/allocator_interface.h, which GCC does not install).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace gltf_crowd {
namespace {

constexpr std::size_t kCapacity = 24;

// Bytes the process holds in live heap allocations.
std::size_t heap_in_use() {
#ifdef GLTF_CROWD_SOAK_ASAN
  return __sanitizer_get_current_allocated_bytes();
#else
  return mallinfo2().uordblks;
#endif
}

// Capacities of every buffer the crowd sized for its capacity; they must never change.
std::vector<std::size_t> buffer_capacities(const Crowd& crowd) {
  std::vector<std::size_t> out;
  for (const NodeStream& s : crowd.node_streams())
    out.insert(out.end(), {s.transforms.capacity(), s.palette.capacity(), s.weights.capacity()});
  for (const PrimitiveGroup& g : crowd.primitive_groups()) out.push_back(g.instances.capacity());
  return out;
}

TEST(SoakTest, RandomizedOperationsOnRobotExpressiveKeepEveryInvariant) {
  GLTF_CROWD_REQUIRE_ASSETS();
  // ASan + UBSan at -O0 run about 20 times slower.
  const std::size_t frames = test::soak_frames("GLTF_CROWD_SOAK_FRAMES", 100'000, 20'000);
  ASSERT_GE(frames, 10u);
  const std::size_t baseline_frame = std::min<std::size_t>(1'000, frames / 10);
  test::CrowdSoak soak(std::make_shared<const Asset>(load_asset(test::asset_path("threejs/RobotExpressive.glb"))),
                       {.capacity = kCapacity}, 20261130);
  std::size_t baseline_heap = 0;
  std::vector<std::size_t> baseline_buffers;
  for (std::size_t frame = 0; frame < frames; ++frame) {
    soak.frame();
    ASSERT_TRUE(soak.check()) << "frame " << frame;
    if (frame == baseline_frame) {
      baseline_heap = heap_in_use();
      baseline_buffers = buffer_capacities(soak.crowd());
    }
  }
  EXPECT_EQ(buffer_capacities(soak.crowd()), baseline_buffers) << "capacity-sized buffers were reallocated";
  // Small slack for allocator bookkeeping and hash-map buckets; a per-frame leak of even one
  // byte over the remaining frames would exceed it in the full run.
  const std::size_t end_heap = heap_in_use();
  EXPECT_LE(end_heap, baseline_heap + 64 * 1024)
      << "heap grew from " << baseline_heap << " to " << end_heap << " bytes";
}

}  // namespace
}  // namespace gltf_crowd
