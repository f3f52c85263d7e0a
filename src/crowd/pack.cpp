// One actor's evaluation (docs/spec.md §3 "Pose", §4; glTF 2.0 §3.5.3, §3.7.3, Appendix C): the
// jobs of jobs.hpp over a worker's scratch, touching only the nodes the actor's clips animate,
// then the palettes straight into the packed arrays and the instance rows of every stream.
#include "crowd/pack.hpp"

#include <algorithm>
#include <utility>

#include <immintrin.h>

#include "anim/blend_pair.hpp"
#include "anim/locate_keys.hpp"
#include "crowd/frame_timer.hpp"

namespace gltf_crowd {
namespace {

// to_affine by a 4×4 transpose in registers: its scalar stores, read back as rows by the product,
// stall store forwarding.
Affine placement_rows(const glm::mat4& m) noexcept {
  __m128 c0 = _mm_loadu_ps(&m[0].x), c1 = _mm_loadu_ps(&m[1].x), c2 = _mm_loadu_ps(&m[2].x);
  __m128 c3 = _mm_loadu_ps(&m[3].x);
  _MM_TRANSPOSE4_PS(c0, c1, c2, c3);
  Affine a;
  _mm_storeu_ps(&a.rows[0].x, c0);
  _mm_storeu_ps(&a.rows[1].x, c1);
  _mm_storeu_ps(&a.rows[2].x, c2);
  return a;
}

// The usual crossfade of two clips with one group layout (CompiledRig::group_layout),
// contributors 0 and `last`, sampled and blended in one pass: bit for bit blend_pair's blend of
// their two samples from the rest pose, without writing either sample.
void sample_blend_pair(const Asset& asset, const CompiledRig& compiled, Playback& p, std::uint32_t last,
                       Scratch& s) noexcept {
  ContributorState& a = p.contributors[0];
  ContributorState& b = p.contributors[last];
  const ClipTracks& clip_a = compiled.clips[a.clip];
  const ClipTracks& clip_b = compiled.clips[b.clip];
  blend_rest_pair(compiled.rig, clip_a, a.weight, b.weight, s.pose());
  if (clip_a.rest_weights) {
    std::copy(compiled.rig.rest_weights.begin(), compiled.rig.rest_weights.end(), s.first_weights.begin());
    std::copy(compiled.rig.rest_weights.begin(), compiled.rig.rest_weights.end(), s.one_weights.begin());
  }
  locate_keys(clip_a, contributor_time(asset, p, a, compiled.inverse_durations[a.clip]).seconds, a.cursors,
              s.keys.data());
  locate_keys(clip_b, contributor_time(asset, p, b, compiled.inverse_durations[b.clip]).seconds, b.cursors,
              s.pair_keys.data());
  SamplePair pass;
  pass.key_rows[0] = clip_a.key_rows.data();
  pass.key_rows[1] = clip_b.key_rows.data();
  pass.groups[0] = clip_a.groups.data();
  pass.groups[1] = clip_b.groups.data();
  pass.count = clip_a.groups.size();
  pass.keys[0] = s.keys.data();
  pass.keys[1] = s.pair_keys.data();
  pass.wa = a.weight;
  pass.wb = b.weight;
  pass.translations = s.translations.data();
  pass.rotations = s.rotations.data();
  pass.scales = s.scales.data();
  pass.weights[0] = s.first_weights.data();
  pass.weights[1] = s.one_weights.data();
  affine_kernels().sample_pair(pass);
  weigh_pair(s.first_weights.data(), a.weight, s.one_weights.data(), b.weight, s.weights.size(), s.weights.data());
}

// A crossfade: every contributor's pose is its clip over the rest pose; the blend is their
// weighted sum with rotations sign-aligned to the first contributor, then normalized.
void blend_contributors(const Asset& asset, const CompiledRig& compiled, Playback& p, Scratch& s) noexcept {
  const Rig& rig = compiled.rig;
  // The first contributor is blended even at weight 0 (a fade's first frame): it is the sign
  // reference the spec names.
  const auto used = [&p](std::uint32_t i) { return i == 0 || p.contributors[i].weight > 0.0f; };
  std::uint32_t last = 0;
  bool one_node_set = true;  // every layer animates the same nodes
  for (std::uint32_t i = 0; i < p.count; ++i) {
    if (!used(i)) continue;
    last = i;
    one_node_set =
        one_node_set && compiled.node_set[p.contributors[i].clip] == compiled.node_set[p.contributors[0].clip];
  }
  std::span<const std::uint32_t> touched = compiled.clips[p.contributors[0].clip].animated;
  if (one_node_set) {
    for (std::uint32_t a : touched) s.mark[a] = s.stamp;
  } else {
    s.touched.clear();
    for (std::uint32_t i = 0; i <= last; ++i) {
      if (!used(i)) continue;
      for (std::uint32_t a : compiled.clips[p.contributors[i].clip].animated) {
        if (s.mark[a] == s.stamp) continue;
        s.mark[a] = s.stamp;
        s.touched.push_back(a);
      }
    }
    touched = s.touched;
  }
  // One clip's animated list is ascending and unique: a range when its ends are size − 1 apart
  // (CesiumMan's joints), which BlendJob blends as flat arrays instead of node by node.
  const bool contiguous = one_node_set && !touched.empty() && touched.back() - touched.front() + 1 == touched.size();
  const std::size_t front = touched.empty() ? 0 : touched.front();
  const std::span<const glm::quat> reference =
      contiguous ? std::span<const glm::quat>(s.reference).subspan(front, touched.size()) : s.reference;
  // The first contributor is sampled into first_* (its rotations are the sign reference the
  // later ones read), every later one into one_*, so the reference needs no copy.
  const RigPose first{s.first_translations, s.reference, s.first_scales, s.first_weights};
  const RigPose one{s.one_translations, s.one_rotations, s.one_scales, s.one_weights};
  const auto sample = [&](std::uint32_t i, const RigPose& layer) {
    ContributorState& c = p.contributors[i];
    // Nodes another contributor animates are at rest in this one.
    if (!one_node_set) rest_where_not_animated(rig, compiled.animates[c.clip].data(), touched, layer);
    // Marked above (touched); from the rest pose: the rest of what the clip's channels leave.
    const float seconds = contributor_time(asset, p, c, compiled.inverse_durations[c.clip]).seconds;
    SampleJob{&rig, &compiled.clips[c.clip], seconds, c.cursors, s.keys, {}, 0, true, layer}.run();
  };
  // Nodes [front, back] are blended as flat arrays (subspans), others node by node.
  const auto blended = [&](const RigPose& pose) {
    if (!contiguous) return pose;
    return RigPose{pose.translations.subspan(front, touched.size()), pose.rotations.subspan(front, touched.size()),
                   pose.scales.subspan(front, touched.size()), pose.weights};
  };
  const std::span<const std::uint32_t> nodes = contiguous ? std::span<const std::uint32_t>() : touched;
  std::uint32_t second = 1;
  while (second < p.count && !used(second)) ++second;
  if (second == last) {  // two layers, the usual crossfade: one pass writes the output
    if (compiled.group_layout[p.contributors[0].clip] == compiled.group_layout[p.contributors[last].clip])
      return sample_blend_pair(asset, compiled, p, last, s);
    sample(0, first);
    sample(last, one);
    return blend_pair(blended(first), p.contributors[0].weight, blended(one), p.contributors[last].weight, nodes,
                      blended(s.pose()));
  }
  for (std::uint32_t i = 0; i < p.count; ++i) {
    if (!used(i)) continue;
    const RigPose& layer = i == 0 ? first : one;
    sample(i, layer);
    BlendJob{blended(layer), p.contributors[i].weight, i == 0, i == last, nodes, reference, blended(s.pose())}.run();
  }
}

}  // namespace

void rest_where_not_animated(const Rig& rig, const std::uint8_t* animates, std::span<const std::uint32_t> nodes,
                             const RigPose& pose) noexcept {
  for (std::uint32_t a : nodes) {
    if (animates[a]) continue;
    pose.translations[a] = rig.rest_translation[a];
    pose.rotations[a] = rig.rest_rotation[a];
    pose.scales[a] = rig.rest_scale[a];
  }
}

Scratch::Scratch(const CompiledRig& compiled)
    : translations(compiled.rig.node_count()),
      scales(compiled.rig.node_count()),
      rotations(compiled.rig.node_count()),
      one_translations(compiled.rig.node_count()),
      one_scales(compiled.rig.node_count()),
      one_rotations(compiled.rig.node_count()),
      first_translations(compiled.rig.node_count()),
      first_scales(compiled.rig.node_count()),
      reference(compiled.rig.node_count()),
      weights(compiled.rig.rest_weights.size()),
      one_weights(compiled.rig.rest_weights.size()),
      first_weights(compiled.rig.rest_weights.size()),
      mark(compiled.rig.node_count(), 0),
      moved(compiled.rig.node_count(), 0),
      layer_translations(compiled.rig.node_count()),
      layer_scales(compiled.rig.node_count()),
      layer_rotations(compiled.rig.node_count()),
      layer_weights(compiled.rig.rest_weights.size()),
      layer_mark(compiled.rig.node_count(), 0),
      layer_weight_mark(compiled.rig.rest_weights.size(), 0),
      keys(compiled.max_timelines),
      pair_keys(compiled.max_timelines),
      world(compiled.rig.node_count()),
      palettes(compiled.rig.skins.size()) {
  touched.reserve(compiled.rig.node_count());
  layer_nodes.reserve(compiled.rig.node_count());
  layer_weights_used.reserve(compiled.rig.rest_weights.size());
}

void evaluate_local_pose(const Asset& asset, const CompiledRig& compiled, Playback& p, Scratch& s) noexcept {
  if (++s.stamp == 0) {  // wrapped after 2^32 evaluations on this thread: clear old marks
    std::fill(s.mark.begin(), s.mark.end(), 0u);
    s.stamp = 1;
  }
  const std::int64_t held = std::exchange(s.held_clip, -1);
  if (p.count > 1) return blend_contributors(asset, compiled, p, s);
  if (p.count == 0) {
    std::copy(compiled.rig.rest_weights.begin(), compiled.rig.rest_weights.end(), s.weights.begin());
    return;
  }
  ContributorState& c = p.contributors[0];
  SampleJob sample{&compiled.rig,
                   &compiled.clips[c.clip],
                   contributor_time(asset, p, c, compiled.inverse_durations[c.clip]).seconds,
                   c.cursors,
                   s.keys,
                   s.mark,
                   s.stamp,
                   true,
                   s.pose(),
                   held == c.clip};
  if (sample.run()) s.held_clip = c.clip;
}

void evaluate_actor_pose(const Crowd::State& st, const CompiledRig& compiled, Playback& p, std::span<LayerState> layers,
                         std::uint32_t slot, Scratch& s) noexcept {
  evaluate_local_pose(st.asset, compiled, p, s);
  // Root motion leaves the base layer's pose before the other layers and the application's
  // overrides, which may then move the root themselves (docs/spec.md §3.8, §3.10, §3.11).
  const bool overridden = st.overridden != 0 && !st.overrides[slot].empty();
  if (st.root.enabled() || !layers.empty() || overridden) s.held_clip = -1;  // they write over the clip's values
  if (st.root.enabled()) remove_root_motion(st, compiled, p, s);
  if (!layers.empty()) apply_layers(st, compiled, layers, s);
  if (overridden) apply_overrides(compiled, st.overrides[slot], s);
}

namespace {

// The slot's local pose into scratch (evaluate_actor_pose with its layers).
void pose_slot(Crowd::State& st, std::uint32_t slot, Scratch& s) noexcept {
  // A crowd without layers reads no per-slot layer list (one test, as for overrides).
  const std::span<LayerState> layers = st.layered != 0 ? std::span(st.layers[slot]) : std::span<LayerState>();
  evaluate_actor_pose(st, st.draw, st.playback[slot], layers, slot, s);
}

// Whether this crowd's palettes go out with non-temporal stores (PaletteJob::stream, PaletteLanes::stream):
// only when a frame's palettes would not stay in the last-level cache; below that, plain stores
// were faster and leave them cached for the upload (docs/benchmarks.md, "Tried and dropped").
bool stream_palettes(const Crowd::State& st) noexcept {
  constexpr std::size_t kStreamPalettesAbove = std::size_t{32} << 20;
  return st.size() * st.draw.palette_joints * sizeof(Affine) > kStreamPalettesAbove;
}

// The slot's joint palettes from scratch's model-space pose into its rows of every stream.
void write_palettes(Crowd::State& st, std::uint32_t slot, Scratch& s) noexcept {
  const Rig& rig = st.draw.rig;
  for (std::size_t k = 0; k < rig.skins.size(); ++k) {
    NodeStream& stream = st.streams[rig.skins[k].drawn];
    const std::size_t rows = std::size_t{stream.joint_count} * 3;
    s.palettes[k] = std::span(stream.palette).subspan(std::size_t{slot} * rows, rows);
  }
  PaletteJob{&rig, s.world, s.palettes, stream_palettes(st)}.run();
}

// The slot's morph weights into every stream, stamped with the current generation: what
// packing writes besides the instance transforms.
inline void pack_weights(Crowd::State& st, std::uint32_t slot, const Scratch& s) noexcept {
  const std::size_t tw = st.asset.total_weights;
  std::copy_n(s.weights.begin(), tw, st.weights.begin() + slot * tw);
  for (const std::uint32_t d : st.draw.weighted_drawn) {
    NodeStream& stream = st.streams[d];
    const RigDrawn& drawn = st.draw.rig.drawn[d];
    float* out = stream.weights.data() + std::size_t{slot} * stream.weight_stride;
    std::copy_n(s.weights.begin() + drawn.weight_offset, drawn.weight_count, out);
    std::fill(out + drawn.weight_count, out + stream.weight_stride, 0.0f);
  }
  st.stale[slot] = 0;
  st.packed_frame[slot] = st.frames;
  st.packed_generation[slot] = st.generation;
}

// The slot's instance transforms into every stream (a static mesh's only with `static_rows`),
// then pack_weights.
void pack_instances(Crowd::State& st, std::uint32_t slot, const Scratch& s, bool static_rows) noexcept {
  // Nothing to write but the weights and stamps: return before the product kernel's lookup and
  // the placements' set-up.
  if (!static_rows && st.draw.static_meshes_only) return pack_weights(st, slot, s);
  const Rig& rig = st.draw.rig;
  const AffineProduct multiply = affine_product();
  // The placement, and placement × unframe, read and computed when a drawn node first needs
  // them: a static mesh needs neither while its placement stays (static_rows false).
  Affine placement, framed_placement;
  bool placed = false, framed_ready = false;
  const auto placed_rows = [&]() -> const Affine& {
    if (!placed) {
      placement = placement_rows(st.placements[slot]);
      placed = true;
    }
    return placement;
  };
  const auto framed = [&]() -> const Affine& {
    if (!framed_ready) {
      if (rig.framed)
        multiply(placed_rows(), rig.unframe, framed_placement);
      else
        framed_placement = placed_rows();
      framed_ready = true;
    }
    return framed_placement;
  };
  for (std::size_t d = 0; d < st.streams.size(); ++d) {
    const RigDrawn& drawn = rig.drawn[d];
    Affine* instance = reinterpret_cast<Affine*>(st.streams[d].transforms.data() + std::size_t{slot} * 3);
    const Affine& model = s.world[drawn.node];
    switch (drawn.rule) {
      case InstanceRule::rigid: multiply(framed(), model, *instance); break;
      case InstanceRule::static_mesh:
        if (static_rows) multiply(placed_rows(), rig.skins[static_cast<std::size_t>(drawn.skin)].mesh_world, *instance);
        break;
      case InstanceRule::animated_mesh:  // a singular world: the palette carries it (PaletteJob)
        if (abs_determinant(model) > 1e-12f)
          multiply(framed(), model, *instance);
        else
          *instance = framed();
        break;
    }
  }
  pack_weights(st, slot, s);
}

}  // namespace

void evaluate_slot(Crowd::State& st, std::uint32_t slot, Scratch& s, bool timed, bool static_rows) noexcept {
  const Rig& rig = st.draw.rig;
  StageClock clock(timed);
  pose_slot(st, slot, s);
  clock.lap(s.ticks[0]);
  LocalToModelJob{&rig, s.translations, s.rotations, s.scales, s.mark, s.stamp, s.moved, s.world}.run();
  clock.lap(s.ticks[1]);
  write_palettes(st, slot, s);
  clock.lap(s.ticks[2]);
  pack_instances(st, slot, s, static_rows);
  clock.lap(s.ticks[3]);
}

namespace {

// The clips that every slot of a batch plays with nothing on top (no root motion, layer or
// override): one alone (second < 0), or a crossfade of two (weight > 0 each). Such a batch
// samples across lanes.
struct SharedClips {
  std::int64_t first = -1, second = -1;
};

SharedClips shared_clips(const Crowd::State& st, std::span<const std::uint32_t> slots) noexcept {
  if (st.root.enabled()) return {};
  const Playback& lead = st.playback[slots[0]];
  if (lead.count == 0 || lead.count > 2) return {};
  const std::uint32_t first = lead.contributors[0].clip, second = lead.contributors[1].clip;
  for (std::uint32_t slot : slots) {
    const Playback& p = st.playback[slot];
    if (p.count != lead.count || p.contributors[0].clip != first) return {};
    if (p.count == 2 && (p.contributors[1].clip != second || !(p.contributors[1].weight > 0.0f))) return {};
    if (st.layered != 0 && !st.layers[slot].empty()) return {};
    if (st.overridden != 0 && !st.overrides[slot].empty()) return {};
  }
  return {first, lead.count == 2 ? std::int64_t{second} : -1};
}

// Contributor i of the slot, playing clip c (1 / D: `inverse`), located on c's timelines into
// `keys`, with `weights` reset to the rest weights where c leaves some at rest (as SampleJob from
// the rest pose). Returns keys.data().
[[gnu::always_inline]] inline const KeyPosition* locate_contributor(Crowd::State& st, std::uint32_t slot,
                                                                    std::uint32_t i, const ClipTracks& c,
                                                                    double inverse, std::vector<KeyPosition>& keys,
                                                                    std::vector<float>& weights) noexcept {
  Playback& p = st.playback[slot];
  ContributorState& contributor = p.contributors[i];
  locate_keys(c, contributor_time(st.asset, p, contributor, inverse).seconds, contributor.cursors, keys.data());
  if (c.rest_weights) std::copy(st.draw.rig.rest_weights.begin(), st.draw.rig.rest_weights.end(), weights.begin());
  return keys.data();
}

// Contributor i of every slot (one clip) sampled across lanes into `pose`, morph weights into each slot's
// scratch, unanimated `nodes` at rest. With `rest_written`, `pose` already holds the clip's rest fills
// and constant channels (CompiledRig::constant_pose_groups), left as they are.
void sample_clip_lanes(Crowd::State& st, std::span<const std::uint32_t> slots, std::uint32_t i,
                       std::span<const std::uint32_t> nodes, std::span<Scratch> lanes, float* pose,
                       std::vector<float> Scratch::*weights, bool rest_written = false) noexcept {
  const Rig& rig = st.draw.rig;
  const std::uint32_t clip = st.playback[slots[0]].contributors[i].clip;
  const ClipTracks& c = st.draw.clips[clip];
  SampleLanes pass{c.key_rows.data(), c.groups.data(), c.groups.size(), slots.size()};
  const double inverse = st.draw.inverse_durations[clip];
  for (std::size_t l = 0; l < slots.size(); ++l) {
    Scratch& s = lanes[l];
    pass.keys[l] = locate_contributor(st, slots[l], i, c, inverse, s.keys, s.*weights);
    pass.weights[l] = (s.*weights).data();
  }
  // Animated nodes' properties that no channel moves, as SampleJob's from_rest writes them.
  const auto rest = [pose](std::uint32_t node, std::size_t first, const float* value, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k)
      std::fill_n(pose + (node * kPoseLaneComponents + first + k) * kSampleLanes, kSampleLanes, value[k]);
  };
  if (!rest_written) {
    for (std::uint32_t a : c.rest_translations) rest(a, 0, &rig.rest_translation[a].x, 3);
    for (std::uint32_t a : c.rest_rotations) rest(a, 3, &rig.rest_rotation[a].x, 4);
    for (std::uint32_t a : c.rest_scales) rest(a, 7, &rig.rest_scale[a].x, 3);
  }
  const std::uint8_t* animates = st.draw.animates[clip].data();
  for (std::uint32_t a : nodes) {
    if (animates[a]) continue;
    rest(a, 0, &rig.rest_translation[a].x, 3);
    rest(a, 3, &rig.rest_rotation[a].x, 4);
    rest(a, 7, &rig.rest_scale[a].x, 3);
  }
  pass.pose = pose;
  const auto [held, held_end] = st.draw.constant_pose_groups[clip];
  if (!rest_written || held == held_end) return affine_kernels().sample_lanes(pass);
  // `pose` still holds this clip's constant channels from its last batch: skip their loads and
  // 8 × 8 transposes.
  pass.count = held;
  affine_kernels().sample_lanes(pass);
  if (held_end == c.groups.size()) return;
  pass.groups += held_end;  // the constant morph weights, into each slot's own array
  pass.count = c.groups.size() - held_end;
  affine_kernels().sample_lanes(pass);
}

// The local poses of a batch of SharedClips into lanes_scratch.pose and each slot's weights, as
// evaluate_local_pose computes each (blend_contributors' blend_pair for a crossfade): a crossfade
// of clips with one group layout in one pass (SamplePairLanes), others as two samples and a blend.
void pose_clip_lanes(Crowd::State& st, std::span<const std::uint32_t> slots, const SharedClips& clips,
                     std::span<Scratch> lanes, LanesScratch& lanes_scratch) noexcept {
  std::vector<std::uint8_t>& animated = lanes_scratch.animated;
  std::fill(animated.begin(), animated.end(), std::uint8_t{0});
  const std::vector<std::uint32_t>& first = st.draw.clips[static_cast<std::size_t>(clips.first)].animated;
  for (std::uint32_t a : first) animated[a] = 1;
  float* pose = lanes_scratch.pose.data();
  for (Scratch& s : lanes) s.held_clip = -1;  // their morph weights are written below
  if (clips.second < 0) {
    // A worker's batches mostly play the clip of its last batch (update groups slots by clip).
    sample_clip_lanes(st, slots, 0, {}, lanes, pose, &Scratch::weights, lanes_scratch.rest_clip == clips.first);
    lanes_scratch.rest_clip = clips.first;
    return;
  }
  lanes_scratch.rest_clip = -1;  // the blend below writes every component of its nodes
  float wa[kSampleLanes], wb[kSampleLanes];
  for (std::size_t l = 0; l < kSampleLanes; ++l) {  // lanes past the slots repeat lane 0
    const Playback& p = st.playback[slots[l < slots.size() ? l : 0]];
    wa[l] = p.contributors[0].weight;
    wb[l] = p.contributors[1].weight;
  }
  const auto a = static_cast<std::size_t>(clips.first), b = static_cast<std::size_t>(clips.second);
  if (st.draw.group_layout[a] == st.draw.group_layout[b]) {
    // One pass: both clips sampled and blended in registers, the pose written once.
    SamplePairLanes pass{&st.draw.rig, {&st.draw.clips[a], &st.draw.clips[b]}, slots.size()};
    const double inverse_a = st.draw.inverse_durations[a], inverse_b = st.draw.inverse_durations[b];
    for (std::size_t l = 0; l < slots.size(); ++l) {
      Scratch& s = lanes[l];
      pass.keys[0][l] = locate_contributor(st, slots[l], 0, *pass.clips[0], inverse_a, s.keys, s.first_weights);
      pass.keys[1][l] = locate_contributor(st, slots[l], 1, *pass.clips[1], inverse_b, s.pair_keys, s.one_weights);
      pass.weights[0][l] = s.first_weights.data();
      pass.weights[1][l] = s.one_weights.data();
    }
    std::copy_n(wa, kSampleLanes, pass.wa);
    std::copy_n(wb, kSampleLanes, pass.wb);
    pass.pose = pose;
    affine_kernels().sample_pair_lanes(pass);
  } else {
    // The nodes either clip animates, ascending: where only one does, the other is at rest.
    std::span<const std::uint32_t> nodes = first;
    if (st.draw.node_set[a] != st.draw.node_set[b]) {
      for (std::uint32_t n : st.draw.clips[b].animated) animated[n] = 1;
      lanes_scratch.blend_nodes.clear();
      for (std::uint32_t n = 0; n < animated.size(); ++n)
        if (animated[n]) lanes_scratch.blend_nodes.push_back(n);
      nodes = lanes_scratch.blend_nodes;
    }
    sample_clip_lanes(st, slots, 0, nodes, lanes, pose, &Scratch::first_weights);
    float* second = lanes_scratch.second_pose.data();
    sample_clip_lanes(st, slots, 1, nodes, lanes, second, &Scratch::one_weights);
    BlendLanes blend{pose, second};
    std::copy_n(wa, kSampleLanes, blend.wa);
    std::copy_n(wb, kSampleLanes, blend.wb);
    blend.nodes = nodes.data();
    blend.count = nodes.size();
    blend.out = pose;
    affine_kernels().blend_lanes(blend);
  }
  if (lanes[0].weights.empty()) return;  // no morph weights
  for (std::size_t l = 0; l < slots.size(); ++l) {
    Scratch& s = lanes[l];
    weigh_pair(s.first_weights.data(), wa[l], s.one_weights.data(), wb[l], s.weights.size(), s.weights.data());
  }
}

}  // namespace

void evaluate_slots(Crowd::State& st, std::span<const std::uint32_t> slots, std::span<Scratch> lanes,
                    LanesScratch& lanes_scratch, bool timed, bool every_row) noexcept {
  const auto static_rows = [&](std::uint32_t slot) { return every_row || placement_moved(st, slot); };
  if (slots.size() < kFewestLanes) {  // with the same results
    for (std::size_t l = 0; l < slots.size(); ++l) evaluate_slot(st, slots[l], lanes[l], timed, static_rows(slots[l]));
    return;
  }
  const Rig& rig = st.draw.rig;
  std::array<std::uint64_t, 4>& ticks = lanes[0].ticks;
  StageClock clock(timed);
  // Slots that play one clip alone are sampled across lanes, in the layout the hierarchy reads.
  const SharedClips clips = shared_clips(st, slots);
  if (clips.first >= 0) {
    pose_clip_lanes(st, slots, clips, lanes, lanes_scratch);
    lanes[0].batched_by_clip += static_cast<std::uint32_t>(slots.size());
  } else {
    for (std::size_t l = 0; l < slots.size(); ++l) pose_slot(st, slots[l], lanes[l]);
  }
  clock.lap(ticks[0]);
  HierarchyLanes pass{rig.node_count(),      rig.parent.data(),
                      rig.rest_local.data(), rig.framed ? &rig.frame : nullptr,
                      rig.rest_world.data(), slots.size()};
  for (std::size_t l = 0; l < slots.size(); ++l) {
    Scratch& s = lanes[l];
    pass.translations[l] = s.translations.data();
    pass.rotations[l] = s.rotations.data();
    pass.scales[l] = s.scales.data();
    pass.mark[l] = s.mark.data();
    pass.stamp[l] = s.stamp;
    pass.world[l] = s.world.data();
  }
  if (clips.first >= 0) {
    pass.pose = lanes_scratch.pose.data();
    pass.animated = lanes_scratch.animated.data();
  }
  pass.keep_world = st.draw.keep_world.data();
  pass.lanes_world = lanes_scratch.world.data();
  pass.in_lanes = lanes_scratch.in_lanes.data();
  pass.moved_lanes = lanes_scratch.moved_lanes.data();
  affine_kernels().hierarchy_lanes(pass);
  clock.lap(ticks[1]);
  // Palettes across lanes where every skin's mesh is static (one left transform for all lanes);
  // an animated mesh's palette is relative to each pose's own model transform (PaletteJob).
  if (st.draw.static_skins) {
    const bool stream_rows = stream_palettes(st);
    for (const RigSkin& skin : rig.skins) {
      NodeStream& stream = st.streams[skin.drawn];
      const std::size_t rows = std::size_t{stream.joint_count} * 3;
      PaletteLanes palettes{skin.joints, skin.inverse_binds, skin.identity_correction ? nullptr : &skin.correction,
                            slots.size()};
      palettes.rest_world = rig.rest_world.data();
      for (std::size_t l = 0; l < slots.size(); ++l) {
        palettes.rows[l] = stream.palette.data() + std::size_t{slots[l]} * rows;
      }
      palettes.lanes_world = pass.lanes_world;
      palettes.in_lanes = pass.in_lanes;
      palettes.staging = lanes_scratch.staging.data();
      palettes.stream = stream_rows;
      affine_kernels().palette_lanes(palettes);
    }
  } else {
    for (std::size_t l = 0; l < slots.size(); ++l) write_palettes(st, slots[l], lanes[l]);
  }
  clock.lap(ticks[2]);
  if (!st.draw.instance_lanes) {
    for (std::size_t l = 0; l < slots.size(); ++l) pack_instances(st, slots[l], lanes[l], static_rows(slots[l]));
    clock.lap(ticks[3]);
    return;
  }
  // Static skins leave no animated_mesh node: every instance transform runs across lanes.
  InstanceLanes instances{rig.drawn, rig.skins, rig.framed ? &rig.unframe : nullptr, slots.size()};
  std::array<Affine, kHierarchyLanes> placements;
  glm::vec4** rows = lanes_scratch.instance_rows.data();
  instances.static_rows = false;
  for (std::size_t l = 0; l < slots.size(); ++l) {
    instances.static_rows |= static_rows(slots[l]);  // the same values for the others
    placements[l] = placement_rows(st.placements[slots[l]]);
    instances.placement[l] = &placements[l];
    for (std::size_t d = 0; d < st.streams.size(); ++d)
      rows[kHierarchyLanes * d + l] = st.streams[d].transforms.data() + std::size_t{slots[l]} * 3;
  }
  instances.lanes_world = pass.lanes_world;
  instances.in_lanes = pass.in_lanes;
  instances.rest_world = rig.rest_world.data();
  instances.rows = rows;
  affine_kernels().instance_lanes(instances);
  for (std::size_t l = 0; l < slots.size(); ++l) pack_weights(st, slots[l], lanes[l]);
  clock.lap(ticks[3]);
}

}  // namespace gltf_crowd
