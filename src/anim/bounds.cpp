// Rest and animated bounds (include/gltf_crowd/bounds.hpp): every drawn vertex posed exactly, at
// the rest pose or at each sample time of a clip. Per-vertex work is affordable at tool time on
// the assets crowds use; bounds_sample_times caps the number of poses per clip.
#include "gltf_crowd/bounds.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "anim/posed_positions.hpp"
#include "gltf_crowd/pose.hpp"

namespace gltf_crowd {
namespace {

constexpr float kSamplesPerSecond = 30.0f;
constexpr float kMaxGridSteps = 1024.0f;
constexpr std::size_t kMaxSampleTimes = 2048;

// Poses the drawn vertices at the current pose of `pose` and adds them to `bounds`.
struct PosedBounds {
  explicit PosedBounds(const Asset& a) : asset(a), pose(a), world(a.nodes.size()) {}

  void add(Bounds& bounds) {
    pose.world_matrices(glm::mat4(1.0f), world);
    for (std::uint32_t n : asset.drawn_nodes) {
      for (const Primitive& primitive : asset.meshes[static_cast<std::size_t>(asset.nodes[n].mesh)].primitives) {
        scratch.clear();
        detail::append_posed_positions(asset, n, primitive, world, pose.weights(), scratch);
        for (const glm::vec3& p : scratch) bounds.add(p);
      }
    }
  }

  const Asset& asset;
  AssetPose pose;
  std::vector<glm::mat4> world;
  std::vector<glm::vec3> scratch;
};

Bounds clip_bounds(const Asset& asset, std::size_t clip, PosedBounds& posed) {
  Bounds bounds;
  for (float t : bounds_sample_times(asset.clips[clip])) {
    posed.pose.set_clip(clip, t);
    posed.add(bounds);
  }
  return bounds;
}

}  // namespace

std::vector<float> bounds_sample_times(const Clip& clip) {
  std::vector<float> times(clip.times);
  const float steps = std::min(std::ceil(clip.duration_seconds * kSamplesPerSecond), kMaxGridSteps);
  for (float i = 0.0f; i <= steps; i += 1.0f) times.push_back(steps > 0.0f ? clip.duration_seconds * i / steps : 0.0f);
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  if (times.size() <= kMaxSampleTimes) return times;
  std::vector<float> thinned(kMaxSampleTimes);
  const std::size_t last = times.size() - 1;
  for (std::size_t i = 0; i < kMaxSampleTimes; ++i) thinned[i] = times[i * last / (kMaxSampleTimes - 1)];
  return thinned;
}

Bounds rest_bounds(const Asset& asset) {
  PosedBounds posed(asset);
  Bounds bounds;
  posed.add(bounds);
  return bounds;
}

Bounds animated_bounds(const Asset& asset, std::size_t clip) {
  if (clip >= asset.clips.size())
    throw Error("animated_bounds.clip", Rule::unknown_clip,
                fmt::format("clip index {} does not exist (the asset has {} clips)", clip, asset.clips.size()));
  PosedBounds posed(asset);
  return clip_bounds(asset, clip, posed);
}

Bounds animated_bounds(const Asset& asset) {
  if (asset.clips.empty()) return rest_bounds(asset);
  PosedBounds posed(asset);
  Bounds bounds;
  for (std::size_t clip = 0; clip < asset.clips.size(); ++clip) bounds.add(clip_bounds(asset, clip, posed));
  return bounds;
}

}  // namespace gltf_crowd
