// update() makes no heap allocation after warm-up (SPEC §5, DESIGN "Nothing in update allocates").
// Counts every operator new in the process while the measured region runs.
#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include "gltf_crowd/crowd.hpp"
#include "test_support.hpp"

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
// The nothrow forms too: Mesa's LLVM allocates with them and frees with plain delete, which the
// replacement below turns into free(); ASan reports a mismatch unless both sides are malloc.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept { return operator new(size, tag); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace gltf_crowd {
namespace {

TEST(AllocationTest, UpdateAllocatesNothingAfterWarmUp) {
  GLTF_CROWD_REQUIRE_ASSETS();
  auto asset = std::make_shared<const Asset>(load_asset(test::asset_path("threejs/RobotExpressive.glb")));
  Crowd crowd(asset, {.capacity = 300});
  std::vector<ActorOptions> options(300);
  for (std::size_t i = 0; i < options.size(); ++i) {
    options[i].clip = asset->clips[i % asset->clips.size()].name;
    options[i].phase = static_cast<float>(i) / 300.0f;
    options[i].transform = glm::translate(glm::mat4(1.0f), glm::vec3(i % 20, 0, i / 20));
  }
  auto actors = crowd.add_actors(options);
  for (std::size_t i = 0; i < actors.size(); i += 2) actors[i].select_clip("Running", {.crossfade_seconds = 2.0f});
  for (int f = 0; f < 10; ++f) crowd.update(1.0f / 60.0f);  // warm-up: per-thread scratch
  counting = true;
  for (int f = 0; f < 60; ++f) crowd.update(1.0f / 60.0f);
  counting = false;
  EXPECT_EQ(allocations.load(), 0);
  // The counter works: a known allocation is seen.
  counting = true;
  auto probe = std::make_unique<int>(1);
  counting = false;
  EXPECT_GE(allocations.load(), 1);
}

}  // namespace
}  // namespace gltf_crowd
