// Private state of a Crowd: per-slot actor data in structure-of-arrays form, stable actor keys,
// and per-thread evaluation scratch.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <tbb/task_arena.h>

#include "crowd/evaluation_plan.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/pose.hpp"
#include "gltf_crowd/sampling.hpp"

namespace gltf_crowd {

// At most this many clips blend at once. A contributor leaves only when its weight reaches 0
// (its crossfade completes), so a burst of interruptions would otherwise grow without bound; a
// crossfade that would exceed this drops the weakest outgoing clip and rescales the others. That
// drop is the one pop left, of the weakest of 8 weights, which repeated interruptions have
// already scaled down geometrically.
inline constexpr std::size_t kMaxContributors = 8;
inline constexpr std::size_t kMaxCapacity = 1'000'000;
inline constexpr std::size_t kMaxIdLength = 256;
inline constexpr std::uint32_t kNoSlot = 0xFFFFFFFFu;

// One clip blended into an actor's pose (docs/spec.md §3 "Crossfades").
struct ContributorState {
  std::uint32_t clip = 0;
  double elapsed = 0.0;      // the clip's own unbounded clock, seconds (see clip_time)
  float weight = 0.0f;       // current blend weight; an actor's weights sum to 1
  float base_weight = 0.0f;  // outgoing clips: weight when the running crossfade started
  // Key found on each of the clip's first timelines last time (locate_key hints); they travel
  // with the contributor when a crossfade shifts contributors, and a new contributor starts at 0.
  std::array<std::uint16_t, kCursorTimelines> cursors{};
};

// One actor's playback (docs/spec.md §3). contributors[0] is the active (incoming) clip; the others are
// outgoing clips, each advancing its own clock until its weight reaches 0.
// Invariants: count == 0 only when the asset has no clips; count > 1 only during a crossfade;
// finished only when count == 1 (a crossfade still moves the pose even if its incoming clip
// already reached its end).
// Laid out so that an actor playing one clip touches one 64-byte line per frame: the scalars
// (32 bytes) and contributors[0] (32 bytes) share the first line.
struct alignas(64) Playback {
  std::uint32_t count = 0;
  float speed = 1.0f;
  std::uint32_t repetitions = 0;  // 0 = unbounded
  LoopMode loop = LoopMode::repeat;
  bool paused = false;
  bool finished = false;
  double fade_seconds = 0.0;      // duration of the running crossfade, scaled seconds
  double fade_progress = 0.0;     // scaled seconds |Δ·speed| into it
  std::array<ContributorState, kMaxContributors> contributors{};
};
static_assert(offsetof(Playback, contributors) == 32 && sizeof(ContributorState) == 32);

// Evaluation scratch of one worker thread; sized once, reused every frame. Pose arrays are
// indexed by the plan's dense node numbers. Only nodes marked with the current `stamp` hold a
// sampled pose; every other node uses its rest transform, so nothing is reset between actors.
struct Scratch {
  explicit Scratch(const EvaluationPlan& plan, std::size_t total_weights);
  std::vector<glm::vec3> translations, scales;  // the blended local pose
  std::vector<glm::quat> rotations;
  std::vector<glm::vec3> one_translations, one_scales;  // one contributor of a crossfade
  std::vector<glm::quat> one_rotations;
  std::vector<glm::quat> reference;  // the first contributor's rotations: the blend's sign reference
  std::vector<float> weights, one_weights;  // morph weights, Asset::weight_offsets layout
  std::vector<std::uint32_t> mark;   // per dense node: == stamp when animated this evaluation
  std::uint32_t stamp = 0;
  std::vector<std::uint8_t> moved;   // per dense node: not at rest (kernels.hpp HierarchyPass)
  std::vector<std::uint32_t> touched;  // dense nodes marked this evaluation (crossfades)
  std::vector<KeyPosition> keys;     // per timeline of the clip being sampled
  std::vector<Affine> world;         // model space, per dense node
  // Time-stamp ticks of this update: per stage (sampling, hierarchy, palettes, packing) over
  // the timed sample of actors, and in total over every chunk this thread evaluated.
  std::array<std::uint64_t, 4> ticks{};
  std::uint64_t chunk_ticks = 0;
};

// See crowd.hpp. Written only by the crowd's constructor, moves and destructor.
struct CrowdLink {
  Crowd* crowd = nullptr;  // null once the crowd object was destroyed
};

struct Crowd::State {
  State() { arena.initialize(); }

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
  std::vector<std::uint8_t> due;  // per slot, this update: evaluate now
  // Per slot: advanced (or changed) since its rows were last packed; frame (Crowd::frames_) of
  // that packing; generation (Crowd::packed_generation) of the rows. Sized for capacity.
  std::vector<std::uint8_t> stale;
  std::vector<std::uint64_t> packed_frame;
  std::vector<std::uint64_t> packed_generation;
  std::unordered_map<std::string, std::uint32_t> key_of_id;
  std::uint64_t next_auto_id = 0;
  EvaluationPlan plan;
  // update() runs in its own arena, so a worker's slot index (current_thread_index) picks its
  // scratch; all of them are built with the plan, none lazily inside a frame. Calls outside
  // update (controls, add_actors) run on the caller's thread and use scratch[0].
  tbb::task_arena arena;
  std::vector<Scratch> scratch;

  // Rebuilds every thread's scratch for the current plan.
  void make_scratch(std::size_t total_weights) {
    scratch.clear();
    for (int i = 0; i < arena.max_concurrency(); ++i) scratch.emplace_back(plan, total_weights);
  }
  Scratch& caller_scratch() noexcept { return scratch[0]; }

  std::size_t size() const noexcept { return slot_key.size(); }
};

// Throws Error for an invalid policy (Crowd::set_update_rate).
void validate_update_rate(const UpdateRateOptions& options);

// Playback state transitions (src/crowd/actor_playback.cpp). None allocates or throws; the
// public controls validate their arguments before calling them.

// Time of contributor c under the actor's loop rules.
ClipTime contributor_time(const Asset& asset, const Playback& p, const ContributorState& c) noexcept;

// Recomputes p.finished from the active clip's clock (false during a crossfade) and, when it is
// finished, settles its clock at the end (settle_elapsed).
void refresh_finished(const Asset& asset, Playback& p) noexcept;

// Hard switch: `clip` at elapsed `seconds` becomes the only contributor, weight 1.
void switch_clip(const Asset& asset, Playback& p, std::uint32_t clip, double seconds) noexcept;

// Starts a crossfade of `fade_seconds` > 0 to `clip` at elapsed `seconds`: the current
// contributors keep their weights as the base that the fade scales down (docs/spec.md §3 "Crossfades").
void start_crossfade(const Asset& asset, Playback& p, std::uint32_t clip, double seconds,
                     double fade_seconds) noexcept;

// Advances a playing actor by delta_seconds: every contributor's clock by Δ·speed, the crossfade
// by |Δ·speed|, then the finished rule. Returns false, changing nothing, for paused, finished or
// clip-less actors (they keep their packed pose).
bool advance_playback(const Asset& asset, Playback& p, double delta_seconds) noexcept;

// The actor's local pose over all nodes, blended from its contributors (the rest pose when it
// has none), by the straightforward anim functions; for read-back calls, not the frame loop.
Pose full_pose(const Asset& asset, const Playback& p);

// Blends the actor's contributors into scratch's local pose: sampled nodes get the current
// stamp (evaluate.cpp). Advances the contributors' key cursors.
void evaluate_local_pose(const Asset& asset, const EvaluationPlan& plan, Playback& p, Scratch& scratch) noexcept;

// scratch.world from scratch's local pose (glTF 2.0 §3.5.3), in the plan's framed model space.
void evaluate_hierarchy(const EvaluationPlan& plan, Scratch& scratch) noexcept;

}  // namespace gltf_crowd
