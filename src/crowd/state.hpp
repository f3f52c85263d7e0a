// Private state of a Crowd: per-slot actor data in structure-of-arrays form, stable actor keys,
// and per-thread evaluation scratch.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <tbb/enumerable_thread_specific.h>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/pose.hpp"

namespace gltf_crowd {

// At most this many clips blend at once; a crossfade that would exceed it folds the weakest
// outgoing clip into the others (a rare, tiny pop instead of unbounded state).
inline constexpr std::size_t kMaxContributors = 4;
inline constexpr std::size_t kMaxCapacity = 1'000'000;
inline constexpr std::size_t kMaxIdLength = 256;
inline constexpr std::uint32_t kNoSlot = 0xFFFFFFFFu;

struct ContributorState {
  std::uint32_t clip = 0;
  double elapsed = 0.0;      // the clip's own unbounded clock, seconds
  float weight = 0.0f;
  float base_weight = 0.0f;  // weight when the current crossfade started
};

// One actor's playback (SPEC §3). contributors[0] is the active (incoming) clip.
struct Playback {
  std::array<ContributorState, kMaxContributors> contributors{};
  std::uint32_t count = 0;        // 0 only when the asset has no clips
  float fade_seconds = 0.0f;      // duration of the running crossfade
  float fade_progress = 0.0f;     // scaled seconds into it
  float speed = 1.0f;
  LoopMode loop = LoopMode::repeat;
  std::uint32_t repetitions = 0;
  bool paused = false;
  bool finished = false;
};

// Evaluation scratch of one worker thread; sized once, reused every frame.
struct Scratch {
  explicit Scratch(const Asset& asset) : pose(asset), contributor(asset), world(asset.nodes.size()) {}
  Pose pose;
  Pose contributor;
  std::vector<glm::mat4> world;
  std::array<std::uint64_t, 4> ticks{};  // sampling, hierarchy, palettes, packing
};

struct Crowd::State {
  explicit State(const Asset& asset) : scratch([&asset] { return Scratch(asset); }) {}

  std::size_t capacity = 0;
  // Stable keys → slots; a handle holds (key, generation).
  std::vector<std::uint32_t> key_slot;
  std::vector<std::uint32_t> key_generation;
  std::vector<std::uint32_t> free_keys;
  // Per slot, dense in [0, size()).
  std::vector<std::uint32_t> slot_key;
  std::vector<std::string> ids;
  std::vector<Playback> playback;
  std::vector<glm::mat4> placements;
  std::vector<float> weights;  // asset.total_weights per slot
  std::vector<std::uint8_t> due;  // per slot, this update: advanced and needs evaluation
  std::unordered_map<std::string, std::uint32_t> key_of_id;
  std::uint64_t next_auto_id = 0;
  tbb::enumerable_thread_specific<Scratch> scratch;

  std::size_t size() const noexcept { return slot_key.size(); }
};

// Blends the actor's contributors into `pose` (rest pose when it has none); `tmp` is scratch.
void evaluate_pose(const Asset& asset, const Playback& p, Pose& pose, Pose& tmp) noexcept;

// Time of contributor c under the actor's loop rules.
ClipTime contributor_time(const Asset& asset, const Playback& p, const ContributorState& c) noexcept;

}  // namespace gltf_crowd
