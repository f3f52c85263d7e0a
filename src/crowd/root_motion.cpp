// Root motion (docs/spec.md §3.10): the root node's motion is summed along each contributor's
// clock segments (segments.hpp) into a per-actor delta, and the same components are pinned to
// their clip-start values in the pose, so the mesh stays on the actor while the delta moves it.
// Only the clocks drive it, which update() advances on the CPU for both evaluators; the GPU
// sample pass pins the pose as remove_root_motion does (animation_shaders.cpp).
#include <cmath>

#include <fmt/format.h>
#include <glm/gtc/matrix_transform.hpp>

#include "crowd/pack.hpp"
#include "crowd/segments.hpp"
#include "crowd/state.hpp"
#include "gltf_crowd/sampling.hpp"

namespace gltf_crowd {
namespace {

constexpr float kPi = 3.14159265358979323846f;

// a wrapped to (-pi, pi]: yaw deltas take the short way round.
float wrap_angle(float a) noexcept {
  a = std::remainder(a, 2.0f * kPi);
  return a <= -kPi ? a + 2.0f * kPi : a;
}

// The rotation's twist about +y, in (-pi, pi]. The twist angle is the same whether the twist is
// taken as the first or the last factor (swing-twist), so it is the heading in the parent space.
float yaw_of(const glm::quat& q) noexcept { return wrap_angle(2.0f * std::atan2(q.y, q.w)); }

glm::vec3 sample_translation(const Clip& clip, std::int32_t channel, float seconds) noexcept {
  glm::vec3 v{0.0f};
  sample_channel(clip, clip.channels[static_cast<std::size_t>(channel)], seconds, std::span<float>(&v.x, 3));
  return v;
}

float sample_yaw(const Clip& clip, std::int32_t channel, float seconds) noexcept {
  float xyzw[4] = {0.0f, 0.0f, 0.0f, 1.0f};
  sample_channel(clip, clip.channels[static_cast<std::size_t>(channel)], seconds, xyzw);
  return yaw_of(glm::quat(xyzw[3], xyzw[0], xyzw[1], xyzw[2]));
}

}  // namespace

RootMotionState make_root_motion(const Crowd::State& st, const RootMotionOptions& options) {
  RootMotionState root;
  root.options = options;
  root.pending.resize(st.capacity);
  root.last.resize(st.capacity);
  if (options.node.empty()) return root;
  const Asset& asset = st.asset;
  root.node = asset.resolve_node(options.node, "root_motion.node");
  const Rig& rig = st.full.rig;  // every node, unframed: the rest values in the parent space
  const std::uint32_t r = rig.rig_node[root.node];
  root.clips.resize(asset.clips.size());
  for (std::size_t c = 0; c < asset.clips.size(); ++c) {
    const Clip& clip = asset.clips[c];
    RootClip& rc = root.clips[c];
    rc.reference_translation = rig.rest_translation[r];
    rc.reference_yaw = yaw_of(rig.rest_rotation[r]);
    for (std::size_t i = 0; i < clip.channels.size(); ++i) {
      const Channel& ch = clip.channels[i];
      if (ch.node != root.node || ch.key_count == 0) continue;
      if (ch.path == ChannelPath::translation) {
        rc.translation = static_cast<std::int32_t>(i);
        rc.reference_translation = sample_translation(clip, rc.translation, 0.0f);
      } else if (ch.path == ChannelPath::rotation) {
        rc.rotation = static_cast<std::int32_t>(i);
        rc.reference_yaw = sample_yaw(clip, rc.rotation, 0.0f);
      }
    }
  }
  return root;
}

void set_root_motion_options(Crowd::State& st, const RootMotionOptions& options) {
  st.root = make_root_motion(st, options);
}

void Crowd::set_root_motion(const RootMotionOptions& options) {
  State& st = live();
  set_root_motion_options(st, options);
  // The pose keeps or frees the root's motion from now on.
  for (std::uint32_t slot = 0; slot < st.size(); ++slot) mark_pending(st, slot);
}

const RootMotionOptions& Crowd::root_motion() const { return live().root.options; }

std::int32_t Crowd::root_motion_node() const {
  const RootMotionState& root = live().root;
  return root.enabled() ? static_cast<std::int32_t>(root.node) : -1;
}

RootMotion Actor::take_root_motion() {
  const std::uint32_t s = slot();
  RootMotion& pending = crowd().state_->root.pending[s];
  const RootMotion taken = pending;
  pending = {};
  return taken;
}

void accumulate_root_motion(Crowd::State& st, std::uint32_t slot, std::uint32_t count, const std::uint32_t* clips,
                            const double* from, const float* weight_before, double step) noexcept {
  const RootMotionState& root = st.root;
  const RootMotionOptions& o = root.options;
  const Playback& p = st.playback[slot];
  glm::vec3 translation{0.0f};
  float yaw = 0.0f;
  for (std::uint32_t i = 0; i < count; ++i) {
    const RootClip& rc = root.clips[clips[i]];
    const bool moves = rc.translation >= 0 || (o.yaw && rc.rotation >= 0);
    // The mean of the weights before and after the update: they sum to 1 over the contributors
    // at both ends, so a crossfade between two clips of equal motion moves as either does.
    const float weight_after = i < p.count ? p.contributors[i].weight : 0.0f;
    const float weight = 0.5f * (weight_before[i] + weight_after);
    if (!moves || !(weight > 0.0f)) continue;
    const Clip& clip = st.asset.clips[clips[i]];
    const auto sample = [&](float seconds) {
      RootSample s{clips[i], seconds, glm::vec3(0.0f), 0.0f};
      if (rc.translation >= 0) s.translation = sample_translation(clip, rc.translation, seconds);
      if (o.yaw && rc.rotation >= 0) s.yaw = sample_yaw(clip, rc.rotation, seconds);
      return s;
    };
    RootSample& last = st.root.last[slot];
    glm::vec3 t{0.0f};
    float y = 0.0f;
    for_each_segment(from[i], step, clip.duration_seconds, p.loop, p.repetitions,
                     [&](float t_from, float t_to, double times) {
                       const bool hit = last.clip == clips[i] && last.seconds == t_from;
                       const RootSample a = hit ? last : sample(t_from);
                       const RootSample b = sample(t_to);
                       if (i == 0) last = b;  // the active clip's: where its next update starts
                       const auto n = static_cast<float>(times);
                       t += n * (b.translation - a.translation);
                       y += n * wrap_angle(b.yaw - a.yaw);
                     });
    translation += weight * t;
    yaw += weight * y;
  }
  if (!o.translation_xz) translation.x = translation.z = 0.0f;
  if (!o.translation_y) translation.y = 0.0f;
  if (!o.apply_to_placement) {
    RootMotion& pending = st.root.pending[slot];
    pending.translation += translation;
    pending.yaw_radians += yaw;
    return;
  }
  if (translation == glm::vec3(0.0f) && yaw == 0.0f) return;
  glm::mat4& placement = st.placements[slot];
  placement = glm::rotate(glm::translate(placement, translation), yaw, glm::vec3(0.0f, 1.0f, 0.0f));
  st.placement_generation[slot] = st.generation;  // run_update raised it before the clocks
}

void remove_root_motion(const Crowd::State& st, const CompiledRig& compiled, const Playback& p, Scratch& s) noexcept {
  const RootMotionState& root = st.root;
  const std::uint32_t r = compiled.rig.rig_node[root.node];
  if (r == kNotInRig || s.mark[r] != s.stamp || p.count == 0) return;
  // Every contributor's pose pinned at its own clip start, blended as translations blend
  // (weights sum to 1); yaws blend the same way, which assumes clips that start at similar
  // headings, as the clips of one character do.
  glm::vec3 reference{0.0f};
  float reference_yaw = 0.0f;
  for (std::uint32_t i = 0; i < p.count; ++i) {
    const RootClip& rc = root.clips[p.contributors[i].clip];
    reference += p.contributors[i].weight * rc.reference_translation;
    reference_yaw += p.contributors[i].weight * rc.reference_yaw;
  }
  const RootMotionOptions& o = root.options;
  glm::vec3& t = s.translations[r];
  if (o.translation_xz) {
    t.x = reference.x;
    t.z = reference.z;
  }
  if (o.translation_y) t.y = reference.y;
  if (o.yaw) {
    glm::quat& q = s.rotations[r];
    q = glm::normalize(glm::angleAxis(reference_yaw - yaw_of(q), glm::vec3(0.0f, 1.0f, 0.0f)) * q);
  }
}

}  // namespace gltf_crowd
