// Soak (issue 10, item 4): 100,000 frames of randomized operations on RobotExpressive with the
// crowd's invariants checked after every frame, and memory compared between frame 1,000 and the
// end. Deterministic (fixed seed). Sanitizer builds run 20,000 frames; the environment variable
// GLTF_CROWD_SOAK_FRAMES overrides either count.
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include "gltf_crowd/crowd.hpp"
#include "test_support.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define GLTF_CROWD_SOAK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GLTF_CROWD_SOAK_ASAN 1
#endif
#endif
#ifdef GLTF_CROWD_SOAK_ASAN
// From the ASan runtime (sanitizer/allocator_interface.h, which GCC does not install).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace gltf_crowd {
namespace {

constexpr std::size_t kCapacity = 24;

std::size_t soak_frames() {
  if (const char* env = std::getenv("GLTF_CROWD_SOAK_FRAMES")) return std::strtoull(env, nullptr, 10);
#ifdef GLTF_CROWD_SOAK_ASAN
  return 20'000;  // ASan + UBSan at -O0 run about 20 times slower
#else
  return 100'000;
#endif
}

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

bool finite(const glm::vec4& v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z) && std::isfinite(v.w);
}

// The randomized driver and its model of the slot order (removal moves the last actor into the
// hole, SPEC §5).
class Soak {
 public:
  explicit Soak(std::shared_ptr<const Asset> asset) : asset_(asset), crowd_(std::move(asset), {.capacity = kCapacity}) {}

  void frame() {
    const int op = pick(0, 9);
    if (op <= 1 || ids_.size() < 4) add();
    else if (op == 2) remove();
    else control(op);
    // Mostly frame-sized steps; sometimes backward, zero or a long stall.
    const int kind = pick(0, 19);
    const float delta = kind == 0 ? -uniform(0.0f, 0.1f) : kind == 1 ? 0.0f : kind == 2 ? uniform(1.0f, 10.0f)
                                                                                        : uniform(0.0f, 1.0f / 15.0f);
    crowd_.update(delta);
  }

  // Every invariant of a frame; returns false (after recording failures) on the first broken one.
  [[nodiscard]] bool check() const {
    const std::size_t n = crowd_.actor_count();
    EXPECT_EQ(n, ids_.size());
    EXPECT_LE(n, kCapacity);
    const std::vector<Actor> actors = crowd_.actors();
    for (std::size_t slot = 0; slot < actors.size(); ++slot) {
      EXPECT_EQ(actors[slot].id(), ids_[slot]) << "slot " << slot;
      float sum = 0.0f;
      for (const Contributor& c : actors[slot].contributors()) sum += c.weight;
      EXPECT_NEAR(sum, 1.0f, 1e-4f) << actors[slot].id();
    }
    for (const PrimitiveGroup& g : crowd_.primitive_groups()) {
      EXPECT_EQ(g.instance_count, n);
      for (std::uint32_t i = 0; i < g.instances.size(); ++i) EXPECT_EQ(g.instances[i], i) << "dense slots";
    }
    for (const NodeStream& s : crowd_.node_streams()) {
      EXPECT_TRUE(std::all_of(s.transforms.begin(), s.transforms.begin() + static_cast<std::ptrdiff_t>(n * 3), finite));
      EXPECT_TRUE(std::all_of(s.palette.begin(), s.palette.begin() + static_cast<std::ptrdiff_t>(n * 3 * s.joint_count), finite));
      EXPECT_TRUE(std::all_of(s.weights.begin(), s.weights.begin() + static_cast<std::ptrdiff_t>(n * s.weight_stride),
                              [](float w) { return std::isfinite(w); }));
    }
    return !::testing::Test::HasFailure();
  }

  const Crowd& crowd() const { return crowd_; }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  float uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng_); }
  const std::string& random_clip() { return asset_->clips[static_cast<std::size_t>(pick(0, static_cast<int>(asset_->clips.size()) - 1))].name; }
  LoopMode random_loop() { return static_cast<LoopMode>(pick(0, 2)); }
  glm::mat4 random_placement() {
    return glm::rotate(glm::translate(glm::mat4(1.0f), glm::vec3(uniform(-50, 50), 0, uniform(-50, 50))),
                       uniform(-3.2f, 3.2f), glm::vec3(0, 1, 0)) *
           glm::scale(glm::mat4(1.0f), glm::vec3(uniform(0.5f, 2.0f)));
  }

  void add() {
    const int room = static_cast<int>(kCapacity - ids_.size());
    if (room == 0) return;
    std::vector<ActorOptions> options(static_cast<std::size_t>(pick(1, std::min(room, 3))));
    for (ActorOptions& o : options) {
      if (pick(0, 1) == 0) o.id = "soak-" + std::to_string(next_id_++);  // else automatic
      o.clip = random_clip();
      o.phase = uniform(0.0f, 1.0f);
      o.speed = uniform(-2.0f, 3.0f);
      o.loop = random_loop();
      o.repetitions = static_cast<std::uint32_t>(pick(0, 3));
      o.playing = pick(0, 7) != 0;
      o.transform = random_placement();
    }
    for (const Actor& a : crowd_.add_actors(options)) ids_.push_back(a.id());
  }

  void remove() {
    std::vector<std::string> ids = {"never-added"};
    for (int i = pick(1, 3); i > 0 && !ids_.empty(); --i) ids.push_back(ids_[static_cast<std::size_t>(pick(0, static_cast<int>(ids_.size()) - 1))]);
    std::size_t expected = 0;
    for (const std::string& id : ids) {
      const auto it = std::find(ids_.begin(), ids_.end(), id);
      if (it == ids_.end()) continue;
      *it = ids_.back();
      ids_.pop_back();
      ++expected;
    }
    EXPECT_EQ(crowd_.remove_actors(ids), expected);
  }

  void control(int op) {
    if (ids_.empty()) return;
    Actor actor = *crowd_.find_actor(ids_[static_cast<std::size_t>(pick(0, static_cast<int>(ids_.size()) - 1))]);
    switch (op) {
      case 3: actor.select_clip(random_clip(), {.crossfade_seconds = pick(0, 3) == 0 ? 0.0f : uniform(0.05f, 1.0f)}); break;
      case 4: actor.seek(uniform(-5.0f, 5.0f)); break;
      case 5: actor.set_phase(uniform(-1.0f, 2.0f)); break;
      case 6: actor.set_speed(uniform(-3.0f, 3.0f)); break;
      case 7: actor.set_loop(random_loop(), static_cast<std::uint32_t>(pick(0, 3))); break;
      case 8: pick(0, 1) == 0 ? actor.play() : actor.pause(); break;
      default: actor.set_transform(random_placement()); break;
    }
  }

  std::shared_ptr<const Asset> asset_;
  Crowd crowd_;
  std::mt19937 rng_{20261130};
  std::vector<std::string> ids_;  // in slot order
  std::uint64_t next_id_ = 0;
};

TEST(SoakTest, RandomizedOperationsOnRobotExpressiveKeepEveryInvariant) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const std::size_t frames = soak_frames();
  ASSERT_GE(frames, 10u);
  const std::size_t baseline_frame = std::min<std::size_t>(1'000, frames / 10);
  Soak soak(std::make_shared<const Asset>(load_asset(test::asset_path("threejs/RobotExpressive.glb"))));
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
  EXPECT_LE(end_heap, baseline_heap + 64 * 1024) << "heap grew from " << baseline_heap << " to " << end_heap << " bytes";
}

}  // namespace
}  // namespace gltf_crowd
