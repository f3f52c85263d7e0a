// Animation layers in an evaluation (docs/spec.md §3.11): each active layer's clips are sampled
// and blended into the layer arrays of a worker's scratch (as the base layer's contributors are,
// §3.6), turned into differences from their reference pose when additive, then combined into the
// actor's pose, node by node, with the layer's weight times its mask's weight of the node. Only
// the nodes and morph weights the layer's clips animate change.
#include <algorithm>

#include "crowd/blend_towards.hpp"
#include "crowd/pack.hpp"

namespace gltf_crowd {
namespace {

// The reference a contributor of an additive layer subtracts (AdditiveReference).
const AdditiveReference& reference_of(const Crowd::State& st, const LayerState& layer, std::uint32_t clip) noexcept {
  return st.references[layer.reference != kNoReference ? layer.reference : st.first_key_reference[clip]];
}

// pose ⊖ reference over `nodes` and the clip's morph weights: translation and weights subtract,
// rotation is inverse(reference) · rotation, scale divides (1 where the reference's is 0).
void subtract_reference(const Rig& rig, const AdditiveReference& ref, std::span<const std::uint32_t> nodes,
                        std::span<const std::uint32_t> weights, const RigPose& pose) noexcept {
  for (std::uint32_t a : nodes) {
    const std::uint32_t n = rig.asset_node[a];
    pose.translations[a] -= ref.translations[n];
    pose.rotations[a] = ref.inverse_rotations[n] * pose.rotations[a];
    for (int c = 0; c < 3; ++c)
      pose.scales[a][c] = ref.scales[n][c] != 0.0f ? pose.scales[a][c] / ref.scales[n][c] : 1.0f;
  }
  for (std::uint32_t w : weights) pose.weights[w] -= ref.weights[w];
}

// Starts a new layer evaluation: a fresh stamp for the layer's node and weight marks.
void next_layer_stamp(Scratch& s) noexcept {
  if (++s.layer_stamp == 0) {
    std::fill(s.layer_mark.begin(), s.layer_mark.end(), 0u);
    std::fill(s.layer_weight_mark.begin(), s.layer_weight_mark.end(), 0u);
    s.layer_stamp = 1;
  }
}

// Samples the layer's contributors into scratch's layer arrays (as differences from their
// references when additive); the nodes and morph weights they animate end up in s.layer_nodes
// and s.layer_weights_used. One additive clip is left undifferenced: returns its reference, which
// combine_layer subtracts only where the mask lets the layer through.
const AdditiveReference* sample_layer(const Crowd::State& st, const CompiledRig& compiled, LayerState& layer,
                                      Scratch& s) noexcept {
  const Rig& rig = compiled.rig;
  Playback& p = layer.playback;
  const bool additive = layer.mode == LayerMode::additive;
  const RigPose out = s.layer_pose();
  next_layer_stamp(s);
  s.layer_nodes.clear();
  s.layer_weights_used.clear();
  const auto used = [&p](std::uint32_t i) { return i == 0 || p.contributors[i].weight > 0.0f; };
  std::uint32_t last = 0;
  for (std::uint32_t i = 0; i < p.count; ++i) {
    if (!used(i)) continue;
    last = i;
    for (std::uint32_t a : compiled.clips[p.contributors[i].clip].animated)
      if (s.layer_mark[a] != s.layer_stamp) {
        s.layer_mark[a] = s.layer_stamp;
        s.layer_nodes.push_back(a);
      }
    for (std::uint32_t w : compiled.animated_weights[p.contributors[i].clip])
      if (s.layer_weight_mark[w] != s.layer_stamp) {
        s.layer_weight_mark[w] = s.layer_stamp;
        s.layer_weights_used.push_back(w);
      }
  }
  if (p.count == 1) {  // one clip (the common case): sampled straight into the layer arrays
    ContributorState& c = p.contributors[0];
    const float seconds = contributor_time(st.asset, p, c, compiled.inverse_durations[c.clip]).seconds;
    SampleJob{&rig, &compiled.clips[c.clip], seconds, c.cursors, s.keys, {}, 0, true, out}.run();
    return additive ? &reference_of(st, layer, c.clip) : nullptr;
  }
  // A crossfade within the layer: every contributor over the rest pose, then the base layer's
  // blend (BlendJob) of their poses, or of their differences when additive. The base layer is
  // done with the first_* and one_* arrays.
  const RigPose first{s.first_translations, s.reference, s.first_scales, s.first_weights};
  const RigPose one{s.one_translations, s.one_rotations, s.one_scales, s.one_weights};
  for (std::uint32_t i = 0; i < p.count; ++i) {
    if (!used(i)) continue;
    ContributorState& c = p.contributors[i];
    const RigPose& pose = i == 0 ? first : one;
    rest_where_not_animated(rig, compiled.animates[c.clip].data(), s.layer_nodes, pose);
    SampleJob{&rig, &compiled.clips[c.clip], contributor_time(st.asset, p, c).seconds, c.cursors, s.keys, {}, 0, true,
              pose}
        .run();
    if (additive) subtract_reference(rig, reference_of(st, layer, c.clip), s.layer_nodes, s.layer_weights_used, pose);
    BlendJob{pose, c.weight, i == 0, i == last, s.layer_nodes, s.reference, out}.run();
  }
  return nullptr;
}

// Adds the difference `delta` (translation, rotation, scale) at weight w in (0, 1] to a TRS:
// t + w·Δt, s ⊙ (1 + w·(Δs − 1)), r · nlerp(identity, Δr, w) on Δr's shortest arc.
void add_delta(glm::vec3& t, glm::quat& r, glm::vec3& s, const glm::vec3& dt, glm::quat dr, const glm::vec3& ds,
               float w) noexcept {
  t += dt * w;
  s *= glm::vec3(1.0f) + (ds - glm::vec3(1.0f)) * w;
  if (dr.w < 0.0f) dr = -dr;
  if (w < 1.0f) {
    const glm::quat sum(dr.w * w + (1.0f - w), dr.x * w, dr.y * w, dr.z * w);
    dr = sum / glm::length(sum);  // |sum| >= 1 - w > 0: dr.w >= 0
  }
  const glm::quat q = r * dr;
  r = q / glm::length(q);
}

// Combines the sampled layer into scratch's pose; `ref`: the reference sample_layer left to
// subtract here, node by node.
void combine_layer(const Crowd::State& st, const CompiledRig& compiled, const LayerState& layer,
                   const AdditiveReference* ref, Scratch& s) noexcept {
  const Rig& rig = compiled.rig;
  const float* mask = layer.mask != kNoMask ? st.masks[layer.mask].weights.data() : nullptr;
  const bool additive = layer.mode == LayerMode::additive;
  for (std::uint32_t a : s.layer_nodes) {
    const float w = layer.weight * (mask != nullptr ? mask[rig.asset_node[a]] : 1.0f);
    if (!(w > 0.0f)) continue;
    if (ref != nullptr) subtract_reference(rig, *ref, std::span(&a, 1), {}, s.layer_pose());
    if (s.mark[a] != s.stamp) {  // at rest below this layer
      s.translations[a] = rig.rest_translation[a];
      s.rotations[a] = rig.rest_rotation[a];
      s.scales[a] = rig.rest_scale[a];
      s.mark[a] = s.stamp;
    }
    if (additive)
      add_delta(s.translations[a], s.rotations[a], s.scales[a], s.layer_translations[a], s.layer_rotations[a],
                s.layer_scales[a], w);
    else
      blend_towards(s.translations[a], s.rotations[a], s.scales[a], s.layer_translations[a], s.layer_rotations[a],
                    s.layer_scales[a], w);
  }
  for (std::uint32_t i : s.layer_weights_used) {
    const float w = layer.weight * (mask != nullptr ? mask[compiled.weight_node[i]] : 1.0f);
    if (!(w > 0.0f)) continue;
    if (ref != nullptr) s.layer_weights[i] -= ref->weights[i];
    s.weights[i] =
        additive ? s.weights[i] + w * s.layer_weights[i] : s.weights[i] * (1.0f - w) + s.layer_weights[i] * w;
  }
}

}  // namespace

void apply_layers(const Crowd::State& st, const CompiledRig& compiled, std::span<LayerState> layers,
                  Scratch& s) noexcept {
  for (LayerState& layer : layers) {
    if (layer.playback.count == 0 || !(layer.weight > 0.0f)) continue;
    combine_layer(st, compiled, layer, sample_layer(st, compiled, layer, s), s);
  }
}

}  // namespace gltf_crowd
