// Evaluating one actor into the packed streams: the anim jobs (sample, blend, local-to-model,
// palette) over a worker's scratch, then the instance transforms and morph weights.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "anim/kernels.hpp"
#include "crowd/state.hpp"
#include "gltf_crowd/jobs.hpp"

namespace gltf_crowd {

// One worker's evaluation scratch for one rig, sized once. Only nodes marked with the current `stamp`
// hold a sampled pose (jobs.hpp). Cache-line aligned: workers' scratches lie side by side (WorkerPool)
// and each writes its stamp and counters every evaluation.
struct alignas(64) Scratch {
  explicit Scratch(const CompiledRig& compiled);
  std::vector<glm::vec3> translations, scales;  // the blended local pose
  std::vector<glm::quat> rotations;
  std::vector<glm::vec3> one_translations, one_scales;  // one contributor of a crossfade
  std::vector<glm::quat> one_rotations;
  std::vector<glm::vec3> first_translations, first_scales;  // the first contributor of a crossfade
  std::vector<glm::quat> reference;         // the first contributor's rotations: the blend's sign reference
  std::vector<float> weights, one_weights;  // morph weights, Asset::weight_offsets layout
  std::vector<float> first_weights;         // the first contributor's morph weights
  std::vector<std::uint32_t> mark;          // per rig node: == stamp when animated this evaluation
  std::uint32_t stamp = 0;
  // The clip whose rest values and constant channels the pose (translations, rotations, scales,
  // weights) holds, as SampleJob::constants_held needs them (-1: none). Only a sample of that clip
  // alone with nothing on top leaves them so (evaluate_actor_pose); every other writer clears it.
  std::int64_t held_clip = -1;
  std::vector<std::uint8_t> moved;     // per rig node (LocalToModelJob)
  std::vector<std::uint32_t> touched;  // rig nodes marked by a crossfade of unlike clips
  // One animation layer's pose (docs/spec.md §3.11) and the nodes and morph weights it animates,
  // found with marks of their own (layer_stamp), so they never disturb the pose's.
  std::vector<glm::vec3> layer_translations, layer_scales;
  std::vector<glm::quat> layer_rotations;
  std::vector<float> layer_weights;
  std::vector<std::uint32_t> layer_mark, layer_weight_mark;
  std::uint32_t layer_stamp = 0;
  std::vector<std::uint32_t> layer_nodes, layer_weights_used;
  std::vector<KeyPosition> keys;               // per timeline of the clip being sampled
  std::vector<KeyPosition> pair_keys;          // of the second clip of a SamplePair(Lanes)
  std::vector<Affine> world;                   // world' per rig node
  std::vector<std::span<glm::vec4>> palettes;  // per rig skin: this slot's rows (PaletteJob)
  // Time-stamp ticks of this update per stage (sampling, hierarchy, palettes, packing) over the
  // timed sample of actors (frame_timer.hpp).
  std::array<std::uint64_t, 4> ticks{};
  std::uint64_t chunk_ticks = 0;
  // Slots of this update evaluated by batches that shared their clips (FrameStats::
  // actors_batched_by_clip), counted in a worker's first scratch.
  std::uint32_t batched_by_clip = 0;

  RigPose pose() noexcept { return {translations, rotations, scales, weights}; }
  RigPose layer_pose() noexcept { return {layer_translations, layer_rotations, layer_scales, layer_weights}; }
};

// Writes the rest TRS into `pose` for each of `nodes` whose flag in `animates` (a clip's
// CompiledRig::animates) is 0: a contributor of a crossfade leaves the nodes only others animate
// at rest.
void rest_where_not_animated(const Rig& rig, const std::uint8_t* animates, std::span<const std::uint32_t> nodes,
                             const RigPose& pose) noexcept;

// Blends the actor's contributors into scratch's local pose (the rest pose when it has none)
// with SampleJob and BlendJob; sampled nodes get a new stamp. Advances the contributors' key
// cursors (read-back passes a copy of the playback).
void evaluate_local_pose(const Asset& asset, const CompiledRig& compiled, Playback& p, Scratch& s) noexcept;

// Blends the application-driven pose `o` (docs/spec.md §3.8) over scratch's local pose from
// evaluate_local_pose: overridden nodes are marked, at rest first where no clip animated them.
void apply_overrides(const CompiledRig& compiled, const PoseOverrides& o, Scratch& s) noexcept;

// Applies the actor's animation layers in order over scratch's pose (docs/spec.md §3.11),
// advancing their key cursors. Layers that are empty or at weight 0 are skipped.
void apply_layers(const Crowd::State& st, const CompiledRig& compiled, std::span<LayerState> layers,
                  Scratch& s) noexcept;

// The actor's local pose as every evaluation sees it: its clips (evaluate_local_pose), root
// motion removed (docs/spec.md §3.10), its animation layers (§3.11), then its application-driven
// pose (§3.8). The one sequence the packing and the read-back run, over the draw rig or the full
// one; `p` and `layers` are the actor's (their key cursors advance) or copies.
void evaluate_actor_pose(const Crowd::State& st, const CompiledRig& compiled, Playback& p, std::span<LayerState> layers,
                         std::uint32_t slot, Scratch& s) noexcept;

// Whether this update's evaluation of `slot` writes its static meshes' instance rows: only where the
// placement moved (root motion, or a pending set_transform or new actor: run_update raises its
// placement generation). flush_pending writes every row; removing an actor copies its rows.
inline bool placement_moved(const Crowd::State& st, std::uint32_t slot) noexcept {
  return st.placement_generation[slot] == st.generation;
}

// Evaluates the pose of one slot and packs it into every stream, stamping it with the current
// generation; its static meshes' instance rows only with `static_rows`. `timed` adds each
// stage's ticks to scratch.ticks.
void evaluate_slot(Crowd::State& st, std::uint32_t slot, Scratch& s, bool timed = false,
                   bool static_rows = true) noexcept;

// The fewest slots that evaluate_slots runs across lanes: every lane is computed, used or not, so
// the lanes cost what a few poses alone cost; fewer go one by one (the benchmarks journal at
// fbbf183, "A one-node clip's fixed costs per actor").
inline constexpr std::size_t kFewestLanes = 4;

// evaluate_slot for up to kHierarchyLanes slots (anim/kernels.hpp) with one hierarchy pass over
// all of their poses (hierarchy_lanes: each pose's result is what LocalToModelJob gives it), and
// where every skin's mesh is static one palette pass and, with rigid nodes drawn, one instance
// pass (instance_lanes); slots that all play one clip, or one crossfade, with nothing on top are
// sampled (and blended) across lanes too. Slot l's pose is in lanes[l], but its `world` only
// where CompiledRig::keep_world says (none with static skins: the passes read the hierarchy's
// lanes). Fewer than kFewestLanes slots go one by one, each evaluated in lanes[l]. `lanes_scratch`
// is sized for the draw rig. `timed` adds the whole batch's stage ticks to lanes[0].ticks;
// `every_row` writes every slot's static mesh rows too (flush_pending).
void evaluate_slots(Crowd::State& st, std::span<const std::uint32_t> slots, std::span<Scratch> lanes,
                    LanesScratch& lanes_scratch, bool timed, bool every_row = false) noexcept;

// Prefetches a slot's instance rows and playback ahead of its evaluation (inline: it runs for
// every slot of the parallel loop).
inline void prefetch_rows(const Crowd::State& st, std::uint32_t slot) noexcept {
  // The next actor's instance rows, fetched for writing while this one is evaluated so its packing's
  // stores do not wait. Palette rows are not: large crowds stream them, small ones still have them
  // in the cache.
  for (const NodeStream& stream : st.streams) {
    const auto* row = reinterpret_cast<const char*>(stream.transforms.data() + std::size_t{slot} * 3);
    __builtin_prefetch(row, 1);
    __builtin_prefetch(row + 47, 1);
  }
  __builtin_prefetch(&st.playback[slot], 1);
}

}  // namespace gltf_crowd
