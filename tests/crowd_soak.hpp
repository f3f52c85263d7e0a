// The randomized crowd driver of the soak tests (issue 10, item 4): seeded operations on a crowd
// plus a model of its slot order, and the per-frame invariants. The CPU soak (soak_test.cpp)
// and the GL soak (gl_soak_test.cpp) share it, so both run the same operation mix.
// Header-only.
#pragma once

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

#include "crowd_model.hpp"
#include "gltf_crowd/crowd.hpp"

// Defined when AddressSanitizer instruments this build (GCC says so with a macro, clang with
// __has_feature): sanitized soaks run fewer frames and read the heap from the ASan runtime.
#if defined(__SANITIZE_ADDRESS__)
#define GLTF_CROWD_SOAK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GLTF_CROWD_SOAK_ASAN 1
#endif
#endif

namespace gltf_crowd::test {

// Frames a soak runs: the environment variable `env` when set, else `sanitized` in an ASan
// build (much slower) and `normal` otherwise.
inline std::size_t soak_frames(const char* env, std::size_t normal, std::size_t sanitized) {
  if (const char* value = std::getenv(env)) return std::strtoull(value, nullptr, 10);
#ifdef GLTF_CROWD_SOAK_ASAN
  (void)normal;
  return sanitized;
#else
  (void)sanitized;
  return normal;
#endif
}

// True when every component of `v` is finite.
inline bool finite(const glm::vec4& v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z) && std::isfinite(v.w);
}

// A crowd driven by seeded random operations, with a model of the slot order (removal moves the
// last actor into the hole, docs/spec.md §5). Adds respect the crowd's current capacity, so a caller
// may grow it with reserve between frames.
class CrowdSoak {
 public:
  CrowdSoak(std::shared_ptr<const Asset> asset, const CrowdOptions& options, std::uint32_t seed)
      : asset_(asset), crowd_(std::move(asset), options), rng_(seed) {}

  // One random operation, then an update by random_delta().
  void frame() {
    operate();
    crowd_.update(random_delta());
  }

  // One random operation without an update: add a batch of 1–3 actors, remove 1–3 ids plus an
  // unknown one, or an actor control (select_clip with or without a crossfade, seek,
  // set_phase, set_speed, set_loop, play/pause, set_transform).
  void operate() {
    const int op = pick(0, 9);
    if (op <= 1 || ids_.size() < 4)
      add();
    else if (op == 2)
      remove();
    else
      control(op);
  }

  // A Δ in seconds: mostly frame-sized, sometimes backward, zero or a long stall.
  float random_delta() {
    const int kind = pick(0, 19);
    return kind == 0   ? -uniform(0.0f, 0.1f)
           : kind == 1 ? 0.0f
           : kind == 2 ? uniform(1.0f, 10.0f)
                       : uniform(0.0f, 1.0f / 15.0f);
  }

  // Every invariant of a frame; returns false (after recording failures) on the first broken
  // one. `dense_groups`: every group draws slots 0…n−1, as it does while LOD is off; otherwise
  // (LOD may cull or move actors between levels) each group's slots are ascending and live.
  [[nodiscard]] bool check(bool dense_groups = true) const {
    const std::size_t n = crowd_.actor_count();
    EXPECT_EQ(n, ids_.size());
    EXPECT_LE(n, crowd_.capacity());
    const std::vector<Actor> actors = crowd_.actors();
    for (std::size_t slot = 0; slot < actors.size(); ++slot) {
      EXPECT_EQ(actors[slot].id(), ids_[slot]) << "slot " << slot;
      float sum = 0.0f;
      for (const Contributor& c : actors[slot].contributors()) sum += c.weight;
      EXPECT_NEAR(sum, 1.0f, 1e-4f) << actors[slot].id();
    }
    for (const PrimitiveGroup& g : crowd_.primitive_groups()) {
      if (dense_groups) {
        EXPECT_EQ(g.instance_count, n);
        for (std::uint32_t i = 0; i < g.instances.size(); ++i) EXPECT_EQ(g.instances[i], i) << "dense slots";
      } else {
        EXPECT_EQ(g.instance_count, g.instances.size());
        for (std::size_t i = 0; i < g.instances.size(); ++i) {
          EXPECT_LT(g.instances[i], n) << "group slots are live";
          if (i > 0) {
            EXPECT_GT(g.instances[i], g.instances[i - 1]) << "group slots ascend";
          }
        }
      }
    }
    for (const NodeStream& s : crowd_.node_streams()) {
      EXPECT_TRUE(std::all_of(s.transforms.begin(), s.transforms.begin() + static_cast<std::ptrdiff_t>(n * 3), finite));
      EXPECT_TRUE(std::all_of(s.palette.begin(),
                              s.palette.begin() + static_cast<std::ptrdiff_t>(fuzz::live_palette_rows(s, n)), finite));
      EXPECT_TRUE(std::all_of(s.weights.begin(), s.weights.begin() + static_cast<std::ptrdiff_t>(n * s.weight_stride),
                              [](float w) { return std::isfinite(w); }));
    }
    return !::testing::Test::HasFailure();
  }

  const Crowd& crowd() const { return crowd_; }
  // For callers that also grow the crowd or change its LOD view between operations.
  Crowd& crowd() { return crowd_; }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  float uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng_); }
  const std::string& random_clip() {
    return asset_->clips[static_cast<std::size_t>(pick(0, static_cast<int>(asset_->clips.size()) - 1))].name;
  }
  LoopMode random_loop() { return static_cast<LoopMode>(pick(0, 2)); }
  glm::mat4 random_placement() {
    return glm::rotate(glm::translate(glm::mat4(1.0f), glm::vec3(uniform(-50, 50), 0, uniform(-50, 50))),
                       uniform(-3.2f, 3.2f), glm::vec3(0, 1, 0)) *
           glm::scale(glm::mat4(1.0f), glm::vec3(uniform(0.5f, 2.0f)));
  }

  void add() {
    const int room = static_cast<int>(crowd_.capacity() - ids_.size());
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
    for (int i = pick(1, 3); i > 0 && !ids_.empty(); --i)
      ids.push_back(ids_[static_cast<std::size_t>(pick(0, static_cast<int>(ids_.size()) - 1))]);
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
      case 3:
        actor.select_clip(random_clip(), {.crossfade_seconds = pick(0, 3) == 0 ? 0.0f : uniform(0.05f, 1.0f)});
        break;
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
  std::mt19937 rng_;
  std::vector<std::string> ids_;  // in slot order
  std::uint64_t next_id_ = 0;
};

}  // namespace gltf_crowd::test
