// The per-actor frame path: sampling with key cursors, blending, hierarchy (docs/spec.md §3 "Pose",
// glTF 2.0 §3.5.3 and Appendix C). It touches only the nodes the actor's clips animate: their
// rest TRS is copied in, their channels sampled, their local transform composed; every other
// node keeps its precomputed rest transform. The straightforward full-pose path (full_pose in
// actor_playback.cpp) computes the same pose over all nodes and serves read-back calls.
#include <algorithm>

#include "anim/kernels.hpp"
#include "crowd/state.hpp"

namespace gltf_crowd {
namespace {

// Marks `a` animated this evaluation with its rest TRS as the starting pose.
void mark_rest(const EvaluationPlan& plan, Scratch& s, std::uint32_t a) noexcept {
  s.mark[a] = s.stamp;
  s.translations[a] = plan.rest_translation[a];
  s.rotations[a] = plan.rest_rotation[a];
  s.scales[a] = plan.rest_scale[a];
}

struct PoseOut {
  glm::vec3* translations;
  glm::quat* rotations;
  glm::vec3* scales;
  float* weights;
};

// Overwrites the nodes and weights contributor `c` animates with its clip sampled at `seconds`.
void sample_contributor(const Asset& asset, const EvaluationPlan& plan, ContributorState& c, float seconds,
                        Scratch& s, const PoseOut& out) noexcept {
  const Clip& clip = asset.clips[c.clip];
  const ClipPlan& cp = plan.clips[c.clip];
  for (std::size_t i = 0; i < cp.timelines.size(); ++i) {
    std::uint16_t no_hint = 0;
    std::uint16_t& cursor = i < kCursorTimelines ? c.cursors[i] : no_hint;
    const Timeline& timeline = cp.timelines[i];
    s.keys[i] = locate_key(std::span(clip.times.data() + timeline.times_offset, timeline.key_count), seconds, cursor);
  }
  sample_bound_channels(cp.key_rows.data(), cp.channels, s.keys, out.translations, out.rotations, out.scales, out.weights);
}

// A crossfade: every contributor's pose is its clip over the rest pose; the blend is their
// weighted sum with rotations sign-aligned to the first contributor, then normalized.
void blend_contributors(const Asset& asset, const EvaluationPlan& plan, Playback& p, Scratch& s) noexcept {
  const auto used = [&p](std::uint32_t i) { return i == 0 || p.contributors[i].weight > 0.0f; };
  s.touched.clear();
  for (std::uint32_t i = 0; i < p.count; ++i) {
    if (!used(i)) continue;
    for (std::uint32_t a : plan.clips[p.contributors[i].clip].animated) {
      if (s.mark[a] == s.stamp) continue;
      s.mark[a] = s.stamp;
      s.touched.push_back(a);
    }
  }
  const PoseOut one{s.one_translations.data(), s.one_rotations.data(), s.one_scales.data(), s.one_weights.data()};
  for (std::uint32_t i = 0; i < p.count; ++i) {
    if (!used(i)) continue;
    ContributorState& c = p.contributors[i];
    for (std::uint32_t a : s.touched) {
      s.one_translations[a] = plan.rest_translation[a];
      s.one_rotations[a] = plan.rest_rotation[a];
      s.one_scales[a] = plan.rest_scale[a];
    }
    std::copy(asset.rest_weights.begin(), asset.rest_weights.end(), s.one_weights.begin());
    sample_contributor(asset, plan, c, contributor_time(asset, p, c).seconds, s, one);
    const float w = c.weight;
    if (i == 0) {
      for (std::uint32_t a : s.touched) {
        s.reference[a] = s.one_rotations[a];
        s.translations[a] = s.one_translations[a] * w;
        s.rotations[a] = s.one_rotations[a] * w;
        s.scales[a] = s.one_scales[a] * w;
      }
      for (std::size_t k = 0; k < s.weights.size(); ++k) s.weights[k] = s.one_weights[k] * w;
      continue;
    }
    for (std::uint32_t a : s.touched) {
      const glm::quat q = s.one_rotations[a];
      s.translations[a] += s.one_translations[a] * w;
      s.rotations[a] = s.rotations[a] + q * (glm::dot(q, s.reference[a]) < 0.0f ? -w : w);
      s.scales[a] += s.one_scales[a] * w;
    }
    for (std::size_t k = 0; k < s.weights.size(); ++k) s.weights[k] += s.one_weights[k] * w;
  }
  for (std::uint32_t a : s.touched) {
    const float len = glm::length(s.rotations[a]);
    s.rotations[a] = len > 0.0f ? s.rotations[a] / len : glm::quat(1.0f, 0.0f, 0.0f, 0.0f);
  }
}

}  // namespace

Scratch::Scratch(const EvaluationPlan& plan, std::size_t total_weights)
    : translations(plan.order.size()), scales(plan.order.size()), rotations(plan.order.size()),
      one_translations(plan.order.size()), one_scales(plan.order.size()), one_rotations(plan.order.size()),
      reference(plan.order.size()), weights(total_weights), one_weights(total_weights),
      mark(plan.order.size(), 0), moved(plan.order.size(), 0), keys(plan.max_timelines), world(plan.order.size()) {
  touched.reserve(plan.order.size());
}

void evaluate_local_pose(const Asset& asset, const EvaluationPlan& plan, Playback& p, Scratch& s) noexcept {
  if (++s.stamp == 0) {  // wrapped after 2^32 evaluations on this thread: clear old marks
    std::fill(s.mark.begin(), s.mark.end(), 0u);
    s.stamp = 1;
  }
  if (p.count > 1) return blend_contributors(asset, plan, p, s);
  std::copy(asset.rest_weights.begin(), asset.rest_weights.end(), s.weights.begin());
  if (p.count == 0) return;
  ContributorState& c = p.contributors[0];
  for (std::uint32_t a : plan.clips[c.clip].animated) mark_rest(plan, s, a);
  sample_contributor(asset, plan, c, contributor_time(asset, p, c).seconds, s,
                     {s.translations.data(), s.rotations.data(), s.scales.data(), s.weights.data()});
}

void evaluate_hierarchy(const EvaluationPlan& plan, Scratch& s) noexcept {
  const HierarchyPass pass{plan.order.size(), plan.parent.data(), plan.rest_local.data(), s.translations.data(),
                           s.rotations.data(), s.scales.data(), s.mark.data(), s.stamp,
                           plan.framed ? &plan.frame : nullptr, plan.rest_world.data(), s.moved.data()};
  plan.kernels->hierarchy(pass, s.world.data());
}

}  // namespace gltf_crowd
