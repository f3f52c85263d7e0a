// Layer replay (GPU-free, above crowd): gait matched to an agent's speed, and the foot-slip measure
// (docs/spec.md §15.5, §15.6).
//
// analyze_locomotion measures once, per clip of an asset, how fast it carries the character over
// the ground and when each foot is planted. A GaitSet picks idle, walk or run for an agent's speed
// with hysteresis and gives the playback rate that keeps the planted foot still; a SlipMeter sums
// how fast planted feet slide in the world (cm/s), to report its mean and 95th percentile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/export.hpp"

GLTF_CROWD_API_BEGIN
namespace gltf_crowd {

// What analyze_locomotion measures with.
struct LocomotionOptions {
  // The foot nodes by name or path (docs/spec.md §2.3), 1 to 8 distinct nodes; empty = detected:
  // the lowest leaf joint at rest on either side of the skeleton root's sagittal plane (§15.5).
  std::vector<std::string> feet;
};

// One clip's locomotion, in the asset's model space (+Z forward: glTF 2.0 §3.4) and units; scale
// lengths and speeds by the character's placement scale for the world.
struct ClipLocomotion {
  float duration_seconds = 0.0f;
  // Model units per second the clip carries the character over the ground: from its root motion
  // where it moves, else the mean backward speed of its planted feet (§15.5). 0 for D = 0.
  float ground_speed = 0.0f;
  glm::vec2 direction{0.0f, 1.0f};  // unit (x, z) of travel: the root motion's, +Z in place
  bool root_motion = false;         // the skeleton moves over the clip (not in place)
  // With root_motion, the topmost node whose translation channel carries it (RootMotionOptions::
  // node, docs/spec.md §3.10); -1 otherwise or when no single channel does.
  std::int32_t root_node = -1;
  // ground_speed >= Locomotion::speed_threshold: a walk or run, not an idle.
  bool locomotion = false;
  std::uint32_t segments = 0;  // N: the clip sampled at N + 1 uniform times (0 for D = 0)
  // Ground distance covered from clip time 0 to sample i (N + 1 entries, model units, strictly
  // increasing for a locomotion clip): what phase rate matching inverts (§15.5).
  std::vector<float> distance;
  // Per foot f and segment i, at [f × N + i]: 1 when the foot is planted over the segment.
  std::vector<std::uint8_t> planted;
};

// The locomotion of one asset, measured once (analyze_locomotion). Immutable plain data.
struct Locomotion {
  std::vector<std::uint32_t> feet;    // asset nodes; detected feet: [0] at +x (the left), [1] at -x
  float height = 0.0f;                // H: the skeleton's height span at rest, model units
  float band = 0.0f;                  // contact height band, model units (0.03 H)
  float speed_threshold = 0.0f;       // contact speed floor, model units per second (0.1 H/s)
  std::vector<ClipLocomotion> clips;  // Asset::clips order

  // Whether foot `foot` (index into `feet`) is planted at `seconds` of clip `clip` (clamped to
  // [0, D]); false for an index out of range or a clip of D = 0.
  bool planted(std::size_t clip, std::size_t foot, float seconds) const noexcept;
};

// Samples every clip of `asset` (docs/spec.md §15.5). Throws Error: unknown_node or ambiguous_node
// (options.feet[i]), gait_feet (feet not found, repeated, or a skeleton without height),
// gait_option (not 1 to 8 feet).
Locomotion analyze_locomotion(const Asset& asset, const LocomotionOptions& options = {});

enum class Gait : std::uint8_t { idle, walk, run };

// How GaitSet::rate matches the clip to the agent (§15.5).
enum class RateMatching : std::uint8_t {
  phase,  // the clip's ground distance at its current time: the planted foot keeps up within a stride
  mean,   // agent speed ÷ clip ground speed, constant over the stride
};

// The clips of the gaits, by name; an empty name is chosen from the clip names and speeds (§15.5).
struct GaitClipNames {
  std::string idle, walk, run;
};

struct GaitOptions {
  GaitClipNames clips;
  float scale = 1.0f;      // world metres per model unit: the character's placement scale, > 0
  float min_rate = 0.05f;  // playback rates are clamped to [min_rate, max_rate], 0 < min <= max
  float max_rate = 4.0f;
  RateMatching matching = RateMatching::phase;
};

// Per agent: the gait it plays. Plain data; a GaitSet updates it.
struct GaitState {
  Gait gait = Gait::idle;
};

// The speed bands of a GaitSet, world m/s (§15.5).
struct GaitBands {
  float stop = 0.0f;      // walk or run → idle below
  float start = 0.0f;     // idle → walk above
  float run_up = 0.0f;    // walk → run above (infinite without a run clip)
  float run_down = 0.0f;  // run → walk below
};

// The idle, walk and run clips of one character and its speed bands. Immutable once built, shared
// by every agent of the character; choose and rate allocate nothing.
class GaitSet {
 public:
  // Resolves the clips (named in options.clips, else chosen) of `asset`, analysed as `locomotion`.
  // Throws Error: gait_option (a scale or rate limit out of range), unknown_clip (a name the asset
  // lacks), gait_no_locomotion (no clip moves over the ground, or the walk clip named does not),
  // gait_speeds (a run clip not faster than the walk clip).
  GaitSet(const Asset& asset, const Locomotion& locomotion, const GaitOptions& options = {});

  // The clip (Asset::clips index) a gait plays: without an idle clip, idle holds the walk clip
  // (rate 0); without a run clip, run is the walk clip.
  std::uint32_t clip(Gait gait) const noexcept;
  bool has_idle() const noexcept { return has_idle_; }
  bool has_run() const noexcept { return has_run_; }
  // The gait clip's ground speed in the world, m/s (0 for idle).
  float ground_speed(Gait gait) const noexcept;
  const GaitBands& bands() const noexcept { return bands_; }
  const GaitOptions& options() const noexcept { return options_; }

  // Moves state.gait to the gait for an agent at `speed` (world m/s, its ground speed) through the
  // bands; true when it changed. Throws Error at "speed": not_finite, negative.
  bool choose(GaitState& state, float speed) const;
  // The playback rate of `gait`'s clip at `clip_seconds` for an agent at `speed` over the next
  // `dt` seconds, in [min_rate, max_rate]; idle plays at 1 (0 without an idle clip). With
  // RateMatching::phase and dt > 0, the rate at which the clip covers speed × dt of ground
  // distance (§15.5); else speed ÷ ground speed. Throws Error at "speed", "clip_seconds" or "dt":
  // not_finite, negative.
  float rate(Gait gait, float speed, float clip_seconds, float dt) const;

 private:
  struct Table {
    std::uint32_t clip = 0;
    float duration = 0.0f;
    float ground_speed = 0.0f;    // world m/s
    std::vector<float> distance;  // world metres, ClipLocomotion::distance × scale
  };
  float matched_rate(const Table& table, float speed, float clip_seconds, float dt) const noexcept;

  GaitOptions options_;
  Table idle_, walk_, run_;
  bool has_idle_ = false, has_run_ = false;
  GaitBands bands_;
};

// Slip over the steps a SlipMeter was given: horizontal speeds of planted feet, cm/s.
struct SlipStats {
  std::uint64_t steps = 0;  // foot steps measured (0: the rest is 0)
  double mean = 0.0;        // exact
  double p95 = 0.0;         // 95th percentile, to SlipMeter::bin_width (at most max)
  double max = 0.0;
};

// The foot-slip measure of docs/spec.md §15.6: the world-space horizontal speed of planted feet,
// summed into a histogram of fixed size (memory independent of the number of steps). Not
// synchronized.
class SlipMeter {
 public:
  static constexpr double bin_width = 0.1;         // cm/s
  static constexpr std::size_t bin_count = 20000;  // up to 2000 cm/s; faster steps count in the last

  SlipMeter();

  // One step of a foot planted at both ends, world positions in metres, `dt` seconds apart.
  // Allocates nothing; false, adding nothing, unless the positions are finite and dt > 0.
  bool add_step(const glm::vec3& from, const glm::vec3& to, float dt) noexcept;
  // A foot's world trajectory, one position (metres) and planted flag per frame, frames `dt`
  // seconds apart: adds each step between consecutive frames planted at both. Throws Error:
  // foot_slip_input (sizes differ, dt not finite > 0), not_finite (positions[k]); then nothing
  // is added.
  void add_trajectory(std::span<const glm::vec3> positions, std::span<const std::uint8_t> planted, float dt);
  // Adds another meter's steps.
  void merge(const SlipMeter& other) noexcept;
  SlipStats stats() const noexcept;

 private:
  std::vector<std::uint64_t> counts_;
  std::uint64_t steps_ = 0;
  double sum_ = 0.0;
  double max_ = 0.0;
};

}  // namespace gltf_crowd
GLTF_CROWD_API_END
