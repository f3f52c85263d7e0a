// Private state of a Crowd: per-slot actor data in structure-of-arrays form, stable actor keys,
// the groups and packed streams, LOD and update-rate state, and the compiled rig the jobs run
// over. The crowd's .cpp files are functions over this struct.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "anim/clip_time.hpp"
#include "crowd/lod_state.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/rig.hpp"

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
// Key cursors kept per contributor (Playback); a clip's timelines beyond this many are located
// by binary search. Exporters usually key every channel of a clip on one timeline
// (Fox: one; CesiumMan: 19 accessors with equal times, merged to one), and a clip with constant
// channels adds the one-key timeline last (RobotExpressive, RiggedFigure: two).
inline constexpr std::size_t kCursorTimelines = 4;

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
  double fade_seconds = 0.0;   // duration of the running crossfade, scaled seconds
  double fade_progress = 0.0;  // scaled seconds |Δ·speed| into it
  std::array<ContributorState, kMaxContributors> contributors{};
};
static_assert(offsetof(Playback, contributors) == 32 && sizeof(ContributorState) == 32);

// One actor's application-driven pose (docs/spec.md §3.8), applied after its clips on every
// evaluation. Control calls reuse the vectors' storage, so a game that sets a whole skeleton
// every frame allocates only while the lists grow.
struct PoseOverrides {
  std::vector<NodeOverride> nodes;  // one per node, in the order first set
  std::vector<MorphOverride> morphs;
  std::vector<float> morph_values;
  bool empty() const noexcept { return nodes.empty() && morphs.empty(); }
};

// One animation layer of an actor (docs/spec.md §3.11): its own playback (count 0: empty), and
// how it combines with the pose below it.
inline constexpr std::uint32_t kNoMask = 0xFFFFFFFFu;
inline constexpr std::uint32_t kNoReference = 0xFFFFFFFFu;
struct LayerState {
  Playback playback;
  float weight = 1.0f;  // current
  float weight_from = 1.0f;
  float weight_target = 1.0f;
  double fade_seconds = 0.0;   // of the running weight fade, update seconds |Δ|
  double fade_progress = 0.0;  // into it
  LayerMode mode = LayerMode::override;
  std::uint32_t mask = kNoMask;            // index into Crowd::State::masks
  std::uint32_t reference = kNoReference;  // additive: into State::references; none: each clip's first key
};

// A bone mask (Crowd::add_mask): a weight per asset node.
struct LayerMask {
  std::string name;
  std::vector<float> weights;
};

// One clip's view of the root node (docs/spec.md §3.10): the indices of its translation and
// rotation channels in Clip::channels (-1: the clip does not animate that property, so the root
// holds its rest value and moves nothing), and the values at clip time 0 that the pose keeps in
// place of the extracted components.
struct RootClip {
  std::int32_t translation = -1;
  std::int32_t rotation = -1;
  glm::vec3 reference_translation{0.0f};
  float reference_yaw = 0.0f;  // radians in (-pi, pi]
};

// The root's values at one clip time. Pure in (clip, seconds) for the crowd's options, so a
// stale entry is never wrong, only a miss.
struct RootSample {
  std::uint32_t clip = 0xFFFFFFFFu;
  float seconds = 0.0f;
  glm::vec3 translation{0.0f};
  float yaw = 0.0f;
};

// The crowd's root motion; node == kNoSlot when off, which every per-frame path tests first.
struct RootMotionState {
  RootMotionOptions options;
  std::uint32_t node = 0xFFFFFFFFu;  // asset node
  std::vector<RootClip> clips;       // per asset clip
  std::vector<RootMotion> pending;   // per slot, sized for capacity: motion since the last take
  // Per slot, sized for capacity: where the active clip's last segment ended, which is where
  // the next update's first segment starts, so steady playback samples each end once.
  std::vector<RootSample> last;
  bool enabled() const noexcept { return node != 0xFFFFFFFFu; }
};

// See crowd.hpp. Written only by the crowd's constructor, moves and destructor.
struct CrowdLink {
  Crowd* crowd = nullptr;  // null once the crowd object was destroyed
};

// A rig with its compiled clips: the jobs' read-only input.
struct CompiledRig {
  Rig rig;
  std::vector<ClipTracks> clips;
  std::size_t max_timelines = 0;  // over clips
  // Per clip: 1 / its duration in seconds, as a double (clip_time's product, anim/clip_time.hpp),
  // so that mapping a contributor's clock divides nothing.
  std::vector<double> inverse_durations;
  // Per clip, per rig node: 1 where the clip animates it (ClipTracks::animated as flags), so a
  // crossfade gives a layer the full rest pose only on nodes its clip does not animate.
  std::vector<std::vector<std::uint8_t>> animates;
  // Per clip: the morph weights (indices into the flat weights) some channel animates, ascending.
  std::vector<std::vector<std::uint32_t>> animated_weights;
  // Per flat morph weight: the asset node whose mesh it weights (what a bone mask weighs it by).
  std::vector<std::uint32_t> weight_node;
  // Per clip: clips with equal ClipTracks::animated lists share a number, so a crossfade between
  // them (the same nodes in every layer) needs no union of node lists and no rest fill.
  std::vector<std::uint32_t> node_set;
  // Per clip: clips that animate the same nodes with the same groups (path, lanes and targets,
  // group by group) and the same rest fills share a number, so that a crossfade of two of them
  // samples and blends in one pass (AffineKernels::sample_pair for one actor, sample_pair_lanes
  // for a batch).
  std::vector<std::uint32_t> group_layout;
  // Per clip: its groups [first, second) on the constant timeline that write the TRS pose (the
  // constant weights groups follow them), empty without constant channels. A pose that already
  // holds them from the same clip needs only the groups before (LanesScratch::rest_clip).
  std::vector<std::array<std::uint32_t, 2>> constant_pose_groups;
  // Every skin's mesh is static, so a batch's palettes run across lanes (palette_lanes, one left
  // transform for all poses); and the joints of all skins together, a slot's palette rows / 3.
  bool static_skins = false;
  std::size_t palette_joints = 0;
  // Static skins and some rigid drawn node: a batch's instance transforms run across lanes
  // (instance_lanes). With static skinned meshes alone, gathering the placements into lanes costs
  // what it saves (one product per pose), so each pose is packed alone.
  bool instance_lanes = false;
  // Every drawn node is a static mesh: a pose changes none of its instance rows, which are
  // written only when the placement moves (pack_instances).
  bool static_meshes_only = false;
  // The drawn nodes with morph weights (Rig::drawn indices, ascending): the streams packing
  // copies weights into.
  std::vector<std::uint32_t> weighted_drawn;
  // Per rig node: 1 where packing reads a batch's world in a Scratch after hierarchy_lanes
  // (HierarchyLanes::keep_world): none when every skin is static (palette_lanes and
  // instance_lanes read the pass's lanes; static meshes need no world), else every node
  // (PaletteJob and the instance transforms read each pose's worlds).
  std::vector<std::uint8_t> keep_world;
};

struct Scratch;     // one worker's evaluation arrays (pack.hpp)
struct WorkerPool;  // the crowd's thread arena and every worker's Scratch (schedule.cpp)

struct Crowd::State {
  explicit State(const Asset& a);
  ~State();

  const Asset& asset;  // the crowd's, shared and immutable
  std::size_t capacity = 0;
  // Stable keys → slots; a handle holds (key, generation).
  std::vector<std::uint32_t> key_slot;
  std::vector<std::uint32_t> key_generation;
  std::vector<std::uint32_t> free_keys;
  // Per slot, dense in [0, size()).
  std::vector<std::uint32_t> slot_key;
  // Per slot, dense: each actor's serial (Crowd::actor_serials), and the counters behind it.
  std::vector<std::uint64_t> serials;
  std::uint64_t next_serial = 0;
  std::uint64_t membership_generation = 0;  // Crowd::membership_generation
  std::vector<std::string> ids;
  std::vector<Playback> playback;
  std::vector<glm::mat4> placements;
  std::vector<PoseOverrides> overrides;    // per slot
  std::uint32_t overridden = 0;            // slots whose overrides are not empty: 0 skips the check
  std::uint64_t overrides_generation = 0;  // Crowd::overrides_generation
  std::vector<float> weights;              // asset.total_weights per slot
  // Per slot, this update: its order_key when it is evaluated now, else kNotDue. Kept apart from
  // `playback` so that the parallel loop batches by group without reading each slot's playback
  // on the core that advanced it. With two workers or more and more than one chunk, the loop sets
  // each entry it consumes back to kNotDue.
  std::vector<std::uint32_t> due_group;
  // This update's due slots in evaluation order (the first actors_evaluated), grouped by
  // order_key so that a batch's slots mostly play one clip, then, on several workers, runs of
  // kHierarchyLanes sorted into regions of neighbouring slots (group_due_slots); order_starts:
  // the counting sort's offsets, order_keys(asset) + 1 entries. Sized for capacity. With two
  // workers or more and more than one chunk, the loop sets each position it consumes to kNotDue,
  // so after update() it holds nothing to read.
  std::vector<std::uint32_t> order;
  std::vector<std::uint32_t> order_starts;
  // Per slot: advanced (or changed) since its rows were last packed; frame (`frames`) of that
  // packing; generation (`generation`) of the rows. Sized for capacity.
  std::vector<std::uint8_t> stale;
  std::vector<std::uint64_t> packed_frame;
  std::vector<std::uint64_t> packed_generation;
  // Controls mark instead of evaluating (docs/spec.md §3.4): per slot, sized for capacity, the
  // kPending flags of a slot a control changed since it was last evaluated; pending_slots lists
  // each such slot once (reserved for capacity, so marking never allocates). The next update or
  // the first read of packed rows (flush_pending) evaluates them.
  std::vector<std::uint8_t> pending;
  std::vector<std::uint32_t> pending_slots;
  std::vector<std::uint32_t> batch_slots;  // the slots of a batch control's actors (Crowd::set_speed, …)
  // Animation::gpu: per slot, sized for capacity (empty with cpu).
  Animation animation = Animation::cpu;
  std::vector<PlaybackRecord> records;
  std::vector<PlaybackRecordTail> tails;
  std::vector<std::uint64_t> placement_generation;  // per slot, sized for capacity
  // Per slot, sized for capacity: 1 while the actor is hidden (Actor::set_visible), and how many
  // are, so a crowd without hidden actors pays one test per frame.
  std::vector<std::uint8_t> hidden;
  std::uint32_t hidden_count = 0;
  // Appearance (docs/spec.md §3.12), per slot, sized for capacity: tint, material variant
  // (kNoVariant: none), and the value of `appearance_clock` when the slot's pair was last
  // written (Crowd::appearance_generations); the clock rises with every such write.
  std::vector<glm::vec4> tints;
  std::vector<std::uint32_t> variants;
  std::vector<std::uint64_t> appearance_generation;
  std::uint64_t appearance_clock = 0;
  // Per clip, sorted by time (Crowd::markers), and their total: with none, update reports no
  // events for the cost of one test per frame.
  std::vector<std::vector<ClipMarker>> markers;
  std::size_t marker_count = 0;
  std::vector<ClipEvent> events;  // the last update's (Crowd::events); grown, never shrunk
  RootMotionState root;           // docs/spec.md §3.10
  // Animation layers (docs/spec.md §3.11): per slot, the layers up to the highest one used
  // (empty vector: none), and how many slots have any, so a crowd without layers pays one test.
  std::vector<std::vector<LayerState>> layers;
  std::uint32_t layered = 0;
  std::vector<LayerMask> masks;
  std::vector<AdditiveReference> references;
  std::uint64_t layer_tables_generation = 0;       // Crowd::layer_tables_generation
  std::vector<LayerRecord> layer_records;          // Animation::gpu, once a layer was used: kMaxLayers per slot
  std::vector<std::uint32_t> first_key_reference;  // per clip: its time-0 reference, or kNoReference
  std::unordered_map<std::string, std::uint32_t> key_of_id;
  std::uint64_t next_auto_id = 0;

  std::vector<PrimitiveGroup> groups;
  std::vector<NodeStream> streams;
  FrameStats stats;
  LodState lod;
  LodStats lod_stats;
  UpdateRateOptions update_rate;
  bool time_stages = false;      // Crowd::set_stage_timing
  std::uint64_t generation = 0;  // see Crowd::packed_generation()
  std::uint64_t frames = 0;      // updates so far: the update-rate schedule's clock

  // The drawn streams' rig (framed, only the nodes they need), and the whole asset's for
  // read-back of any node (unframed, every node).
  CompiledRig draw;
  CompiledRig full;
  std::unique_ptr<WorkerPool> workers;

  std::size_t size() const noexcept { return slot_key.size(); }
};

// Throws Error for capacity 0 or above kMaxCapacity.
void check_capacity(std::size_t capacity);

// --- groups.cpp ---
// The rig of `drawn_nodes` (build_rig) with its compiled clips.
CompiledRig compile_rig(const Asset& asset, std::span<const std::uint32_t> drawn_nodes, const RigOptions& options = {});
// The plain groups: one stream per drawn node, one group per primitive of its mesh.
void build_groups(Crowd::State& st);
// The levels (LodModel) and one group per (source node, level, primitive), reusing a source
// node's stream or adding one.
void prepare_lod_levels(Crowd::State& st);
// Which groups each level draws, and one actor's cost per level.
void index_lod_groups(Crowd::State& st);
// Compiles the rigs for the current streams, sets each stream's palette_stream, rebuilds the
// workers' scratch and sizes every per-slot array for the capacity.
void compile_streams(Crowd::State& st);
// Sizes streams, instance lists and per-slot arrays for st.capacity.
void resize_streams(Crowd::State& st);

// --- lod_classification.cpp ---
// Assigns every slot its level (or culls it) and refills every group's instance list.
void refresh_instances(Crowd::State& st);
// refresh_instances for a LOD control: actors that update-rate LOD left unevaluated while
// culled, and that the control makes visible, are marked pending.
void reclassify(Crowd::State& st);

// --- appearance.cpp ---
// Throws Error (path `path`, rule "not_finite" or "negative") unless every component of `rgba`
// is finite and >= 0; `actor` describes the actor in the message.
void check_tint(const glm::vec4& rgba, const std::string& path, std::string_view actor);
// The index of material variant `name` in the asset (kNoVariant for ""), or Error (path `path`,
// rule "unknown_variant") listing the asset's variants.
std::uint32_t variant_index(const Asset& asset, std::string_view name, const std::string& path, std::string_view actor);
// Gives a new actor at `slot` its appearance.
void set_appearance(Crowd::State& st, std::uint32_t slot, const glm::vec4& tint, std::uint32_t variant) noexcept;
// Moves slot `from`'s appearance into `to` (removal compacting the slots).
void move_appearance(Crowd::State& st, std::uint32_t from, std::uint32_t to) noexcept;

// --- records.cpp ---
// Writes slot's PlaybackRecord and tail from its playback (Animation::gpu).
void write_record(Crowd::State& st, std::uint32_t slot) noexcept;

// --- layers.cpp ---
// Sizes st.layer_records: kMaxLayers per slot of capacity with Animation::gpu once some actor
// has layers, else none.
void size_layer_records(Crowd::State& st);
// Writes slot's kMaxLayers LayerRecords from its layers (Animation::gpu).
void write_layer_records(Crowd::State& st, std::uint32_t slot) noexcept;

// --- events.cpp ---
// Advances every slot's clocks by delta_seconds (advance_playback), marks the advanced slots
// stale and, when the crowd has markers, reports every marker their contributors cross into
// st.events (docs/spec.md §3.9). Clears st.events first.
void advance_clocks(Crowd::State& st, double delta_seconds);
// Whether every slot's clock steps on its own: no markers to report, no root motion, no animation
// layers. Then one slot's step is advance_clock.
bool clocks_alone(const Crowd::State& st) noexcept;
// advance_clocks for one slot when clocks_alone: advance_playback, marking the slot stale when
// it moved. `end` bounds the part of the slots this worker steps (its prefetch stays inside).
inline void advance_clock(Crowd::State& st, std::uint32_t slot, std::uint32_t end, double delta_seconds) noexcept;

// --- root_motion.cpp ---
// Validates `options` against the asset and builds the per-clip table (throws Error as
// Crowd::set_root_motion, except for the animation mode, which the caller checks).
RootMotionState make_root_motion(const Crowd::State& st, const RootMotionOptions& options);
// Validates `options` and installs them, resetting every pending motion; nothing changes on
// error. Does not re-evaluate.
void set_root_motion_options(Crowd::State& st, const RootMotionOptions& options);
// Adds the root motion of one update to slot's pending motion, or to its placement: each of the
// `count` contributors (clip, elapsed clock before the update, weight before) moved its clock by
// `step`; the weights after are the playback's (0 for contributors that left). Allocation-free.
void accumulate_root_motion(Crowd::State& st, std::uint32_t slot, std::uint32_t count, const std::uint32_t* clips,
                            const double* from, const float* weight_before, double step) noexcept;
// Replaces the extracted components of the root's local transform in scratch's pose (from
// evaluate_local_pose, before overrides) by the contributors' reference values, blended by
// their weights. A no-op when the root is not in `compiled`'s rig or was not sampled.
void remove_root_motion(const Crowd::State& st, const CompiledRig& compiled, const Playback& p, Scratch& s) noexcept;

// --- update_rate.cpp ---
// Throws Error for an invalid policy (Crowd::set_update_rate).
void validate_update_rate(const UpdateRateOptions& options);
// Whether a slot advanced (stale) this update is evaluated now (update-rate LOD); a pending one is.
bool scheduled(const Crowd::State& st, std::uint32_t slot) noexcept;
// Marks every stale actor that is drawn pending (update-rate LOD turned off).
void mark_stale_drawn(Crowd::State& st);

// --- schedule.cpp ---
// Builds the worker pool (thread arena and one Scratch per worker) for st.draw.
void make_workers(Crowd::State& st);
// Flags of State::pending: evaluate the slot's pose; and write all of its rows with its
// placement generation raised (its placement was set, or the slot is new).
inline constexpr std::uint8_t kPendingPose = 1;
inline constexpr std::uint8_t kPendingRows = 2;
// Marks `slot` stale and pending (docs/spec.md §3.4): the next update evaluates it even where
// update-rate LOD would defer it, or flush_pending sooner. Allocation-free.
inline void mark_pending(Crowd::State& st, std::uint32_t slot, std::uint8_t flags = kPendingPose) noexcept {
  if (st.pending[slot] == 0) st.pending_slots.push_back(slot);
  st.pending[slot] |= flags;
  st.stale[slot] = 1;
}
// Evaluates every pending slot now, on the caller's thread in batches, writing all of their rows
// (Animation::gpu: their records) under one new generation. Nothing when none is pending. Every
// accessor of packed rows and records calls it first, so a read sees every control before it.
void flush_pending(Crowd::State& st) noexcept;
// One update: clocks, classification, schedule, parallel evaluation, stats.
void run_update(Crowd::State& st, float delta_seconds);

// --- controls.cpp --- The playback controls of the base layer and of animation layers
// (docs/spec.md §3.4): each validates its arguments (Error with the control's path) before it
// changes `p`, and does not evaluate. The check_* halves validate alone (batch controls).
// A validated select_clip: the clip, the elapsed clock it starts at, and the crossfade (0: a hard switch).
struct ClipChoice {
  std::uint32_t clip = 0;
  double seconds = 0.0;
  float crossfade_seconds = 0.0f;
};
ClipChoice check_select_clip(const Asset& asset, std::string_view name, const SelectClipOptions& options);
void apply_select_clip(const Asset& asset, Playback& p, const ClipChoice& choice) noexcept;
void control_select_clip(const Asset& asset, Playback& p, std::string_view name, const SelectClipOptions& options);
void control_seek(const Asset& asset, Playback& p, float seconds);
void control_set_phase(const Asset& asset, Playback& p, float phase);
void control_set_speed(const Asset& asset, Playback& p, float speed);
void control_set_loop(const Asset& asset, Playback& p, LoopMode mode, std::uint32_t repetitions);
void control_play(const Asset& asset, Playback& p);
// The contributors as the public API lists them, and the active clip's time (0 without clips).
std::vector<Contributor> contributors_of(const Asset& asset, const Playback& p);
float active_time(const Asset& asset, const Playback& p) noexcept;

// --- actor_playback.cpp --- Playback state transitions. None allocates or throws; the public
// controls validate their arguments before calling them.

// Time of contributor c under the actor's loop rules.
ClipTime contributor_time(const Asset& asset, const Playback& p, const ContributorState& c) noexcept;
// The same with 1 / D of c's clip given (anim/clip_time.hpp), as CompiledRig::inverse_durations
// holds it: the evaluation maps every contributor's clock without a division.
inline ClipTime contributor_time(const Asset& asset, const Playback& p, const ContributorState& c,
                                 double inverse_duration) noexcept {
  return clip_time(c.elapsed, asset.clips[c.clip].duration_seconds, inverse_duration, p.loop, p.repetitions,
                   p.speed < 0.0f);
}

// State::due_group of a slot that is not evaluated this update.
inline constexpr std::uint32_t kNotDue = 0xFFFFFFFFu;
// How many evaluation groups order_key has for `asset`.
inline std::size_t order_keys(const Asset& asset) noexcept { return 2 * asset.clips.size() + 1; }

// An actor's evaluation group (State::order): its clip while it plays one alone, the clip count
// plus its incoming clip during a crossfade, the last group without a clip. `clips` is the
// asset's clip count, which a pass over the slots reads once.
inline std::uint32_t order_key(std::uint32_t clips, const Playback& p) noexcept {
  if (p.count == 0) return 2 * clips;
  return p.contributors[0].clip + (p.count > 1 ? clips : 0u);
}
// Recomputes p.finished from the active clip's clock (false during a crossfade) and, when it is
// finished, settles its clock at the end (settle_elapsed).
void refresh_finished(const Asset& asset, Playback& p) noexcept;
// Hard switch: `clip` at elapsed `seconds` becomes the only contributor, weight 1.
void switch_clip(const Asset& asset, Playback& p, std::uint32_t clip, double seconds) noexcept;
// Starts a crossfade of `fade_seconds` > 0 to `clip` at elapsed `seconds`: the current
// contributors keep their weights as the base that the fade scales down (docs/spec.md §3 "Crossfades").
void start_crossfade(const Asset& asset, Playback& p, std::uint32_t clip, double seconds, double fade_seconds) noexcept;
// Advances a playing actor by delta_seconds: every contributor's clock by Δ·speed, the crossfade
// by |Δ·speed|, then the finished rule. Returns false, changing nothing, for paused, finished or
// clip-less actors (they keep their packed pose).
bool advance_playback(const Asset& asset, Playback& p, double delta_seconds) noexcept;

inline void advance_clock(Crowd::State& st, std::uint32_t slot, std::uint32_t end, double delta_seconds) noexcept {
  // Each playback line was last written by the worker that evaluated the slot (its key cursors),
  // often on another core: asking for it a few slots ahead overlaps those transfers. Never past
  // `end`: the next part's lines belong to another worker.
  constexpr std::uint32_t kAhead = 8;
  if (slot + kAhead < end) __builtin_prefetch(st.playback.data() + slot + kAhead, 1);
  if (advance_playback(st.asset, st.playback[slot], delta_seconds)) st.stale[slot] = 1;
}

}  // namespace gltf_crowd
