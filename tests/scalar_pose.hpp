// Straightforward scalar implementations of what the anim jobs compute, written from the glTF
// 2.0 specification for the tests to compare against: sampling (Appendix C, keys found by a
// linear scan, glm's slerp), local TRS matrices and world matrices by walking parent chains
// (§3.5.2–3.5.3). Header-only; nothing here uses the library's sampling or hierarchy code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

#include "gltf_crowd/asset.hpp"

namespace gltf_crowd::test {

// A local pose in glTF node order.
struct ScalarPose {
  std::vector<glm::vec3> translations;
  std::vector<glm::quat> rotations;
  std::vector<glm::vec3> scales;
  std::vector<float> weights;  // Asset::weight_offsets layout
};

// The rest pose: node TRS and default morph weights.
inline ScalarPose scalar_rest_pose(const Asset& asset) {
  ScalarPose pose;
  for (const Node& node : asset.nodes) {
    pose.translations.push_back(node.translation);
    pose.rotations.push_back(node.rotation);
    pose.scales.push_back(node.scale);
  }
  pose.weights = asset.rest_weights;
  return pose;
}

// One channel's output element `e` (component `c`) at key k: the value of a CUBICSPLINE triplet.
inline float scalar_value(const Clip& clip, const Channel& ch, std::uint32_t k, std::uint32_t c,
                          std::uint32_t part = 1) {
  const bool cubic = ch.interpolation == Interpolation::cubic_spline;
  const std::size_t per_key = cubic ? 3u * ch.components : ch.components;
  return clip.values[ch.values_offset + k * per_key + (cubic ? part * ch.components : 0) + c];
}

// Samples every channel of `clip` at `seconds` over `pose` (glTF 2.0 Appendix C).
inline void scalar_sample(const Asset& asset, const Clip& clip, float seconds, ScalarPose& pose) {
  for (const Channel& ch : clip.channels) {
    const float* times = clip.times.data() + ch.times_offset;
    std::vector<float> out(ch.components);
    std::uint32_t k = 0;
    while (k + 1 < ch.key_count && times[k + 1] <= seconds) ++k;
    const bool clamped = seconds <= times[0] || k + 1 >= ch.key_count;
    if (seconds <= times[0]) k = 0;
    const bool rotation = ch.path == ChannelPath::rotation;
    if (clamped || ch.interpolation == Interpolation::step) {
      for (std::uint32_t c = 0; c < ch.components; ++c) out[c] = scalar_value(clip, ch, k, c);
    } else {
      const float td = times[k + 1] - times[k];
      const float t = (seconds - times[k]) / td;
      if (ch.interpolation == Interpolation::linear && rotation) {
        const glm::quat a(scalar_value(clip, ch, k, 3), scalar_value(clip, ch, k, 0), scalar_value(clip, ch, k, 1),
                          scalar_value(clip, ch, k, 2));
        const glm::quat b(scalar_value(clip, ch, k + 1, 3), scalar_value(clip, ch, k + 1, 0),
                          scalar_value(clip, ch, k + 1, 1), scalar_value(clip, ch, k + 1, 2));
        const glm::quat q = glm::normalize(glm::slerp(a, glm::dot(a, b) < 0.0f ? -b : b, t));
        out = {q.x, q.y, q.z, q.w};
      } else if (ch.interpolation == Interpolation::linear) {
        for (std::uint32_t c = 0; c < ch.components; ++c)
          out[c] = glm::mix(scalar_value(clip, ch, k, c), scalar_value(clip, ch, k + 1, c), t);
      } else {  // Hermite with tangents scaled by the key interval
        const float t2 = t * t, t3 = t2 * t;
        for (std::uint32_t c = 0; c < ch.components; ++c)
          out[c] = (2 * t3 - 3 * t2 + 1) * scalar_value(clip, ch, k, c) +
                   (t3 - 2 * t2 + t) * td * scalar_value(clip, ch, k, c, 2) +
                   (-2 * t3 + 3 * t2) * scalar_value(clip, ch, k + 1, c) +
                   (t3 - t2) * td * scalar_value(clip, ch, k + 1, c, 0);
        if (rotation) {
          const glm::quat q = glm::normalize(glm::quat(out[3], out[0], out[1], out[2]));
          out = {q.x, q.y, q.z, q.w};
        }
      }
    }
    switch (ch.path) {
      case ChannelPath::translation: pose.translations[ch.node] = {out[0], out[1], out[2]}; break;
      case ChannelPath::rotation: pose.rotations[ch.node] = glm::quat(out[3], out[0], out[1], out[2]); break;
      case ChannelPath::scale: pose.scales[ch.node] = {out[0], out[1], out[2]}; break;
      case ChannelPath::weights:
        for (std::uint32_t c = 0; c < ch.components; ++c) pose.weights[asset.weight_offsets[ch.node] + c] = out[c];
        break;
    }
  }
}

// The rest pose with `clip` sampled at `seconds` over it.
inline ScalarPose scalar_clip_pose(const Asset& asset, const Clip& clip, float seconds) {
  ScalarPose pose = scalar_rest_pose(asset);
  scalar_sample(asset, clip, seconds, pose);
  return pose;
}

// T × R × S, or the authored matrix of an unanimated node.
inline glm::mat4 scalar_local(const Asset& asset, const ScalarPose& pose, std::size_t n) {
  const Node& node = asset.nodes[n];
  if (node.has_matrix) return node.matrix;
  return glm::translate(glm::mat4(1.0f), pose.translations[n]) * glm::mat4_cast(pose.rotations[n]) *
         glm::scale(glm::mat4(1.0f), pose.scales[n]);
}

// root × world of `node`, by walking its parent chain (independent of any node order).
inline glm::mat4 scalar_world(const Asset& asset, const ScalarPose& pose, std::int32_t node,
                              const glm::mat4& root = glm::mat4(1.0f)) {
  if (node < 0) return root;
  const auto n = static_cast<std::size_t>(node);
  return scalar_world(asset, pose, asset.nodes[n].parent, root) * scalar_local(asset, pose, n);
}

}  // namespace gltf_crowd::test
