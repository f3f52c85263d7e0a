// Layer 2, anim: owning poses in glTF node order, one pose of an asset at a time (AssetPose), and
// the one-off blend and hierarchy functions, all over the jobs of jobs.hpp (docs/spec.md §3 "Pose").
#pragma once

#include <span>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "gltf_crowd/affine.hpp"
#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/jobs.hpp"
#include "gltf_crowd/rig.hpp"
#include "gltf_crowd/sampling.hpp"
#include "gltf_crowd/export.hpp"

GLTF_CROWD_API_BEGIN
namespace gltf_crowd {

// Owning structure-of-arrays local pose: nodes.size() TRS entries, total_weights weights.
struct Pose {
  std::vector<glm::vec3> translations;
  std::vector<glm::quat> rotations;
  std::vector<glm::vec3> scales;
  std::vector<float> weights;

  explicit Pose(const Asset& asset)
      : translations(asset.nodes.size()),
        rotations(asset.nodes.size()),
        scales(asset.nodes.size()),
        weights(asset.total_weights) {}
  PoseView view() noexcept { return {translations, rotations, scales, weights}; }
};

// One pose of a whole asset at a time, by the jobs (jobs.hpp) over its full rig (every node,
// unframed) with every clip compiled once: what tools, bounds and other one-pose-at-a-time
// callers use instead of a crowd. Keeps a reference to `asset`, which must outlive it. Not
// thread-safe; one per thread.
class AssetPose {
 public:
  explicit AssetPose(const Asset& asset);

  // The rest pose (node TRS, authored matrices, default morph weights).
  void set_rest() noexcept;
  // The rest pose with clip `clip` sampled at `seconds` over it; false, changing nothing, when
  // clip >= asset.clips.size().
  bool set_clip(std::size_t clip, float seconds) noexcept;

  // The current local pose in glTF node order (nodes.size() entries) and its morph weights.
  Pose local_pose() const;
  // Morph weights of the current pose (Asset::weight_offsets layout); valid until the next set_*.
  std::span<const float> weights() const noexcept { return weights_; }
  // root × world of every node (glTF 2.0 §3.5.3) into `world`; false, writing nothing, unless it
  // has nodes.size() entries or more.
  bool world_matrices(const glm::mat4& root, std::span<glm::mat4> world) noexcept;

  // The full rig (every node, unframed: world' is model space). It has no drawn nodes and no
  // skins, so a PaletteJob on it computes nothing; build a rig of the drawn nodes for palettes.
  const Rig& rig() const noexcept { return rig_; }

 private:
  const Asset& asset_;
  Rig rig_;
  std::vector<ClipTracks> clips_;
  std::vector<glm::vec3> translations_, scales_;
  std::vector<glm::quat> rotations_;
  std::vector<float> weights_;
  std::vector<std::uint32_t> mark_;
  std::uint32_t stamp_ = 1;
  std::vector<std::uint8_t> moved_;
  std::vector<KeyPosition> keys_;
  std::vector<Affine> model_;
};

// Adds `weight` × `source` into `accumulator` (docs/spec.md §3 "Pose") as one BlendJob layer over
// every node: translations, scales and morph weights as weighted sums; rotations sign-aligned to
// `reference` (the first contributor) before summing. With `first`, the accumulator is
// overwritten instead. Call normalize_rotations after the last contributor.
void accumulate_pose(const PoseView& source, float weight, bool first, std::span<const glm::quat> reference,
                     const PoseView& accumulator) noexcept;

// Normalizes every rotation of the pose (the end of a blend; a zero sum becomes the identity).
void normalize_rotations(const PoseView& pose) noexcept;

// world[n] = world[parent(n)] × local(n) for every node, roots relative to `root` (placement or
// identity), by LocalToModelJob over the asset's full rig. Builds that rig on every call (loops
// over clips should keep an AssetPose). `world` has nodes.size() entries. Source: glTF 2.0 §3.5.3.
void compute_world_matrices(const Asset& asset, const PoseView& pose, const glm::mat4& root,
                            std::span<glm::mat4> world);

}  // namespace gltf_crowd
GLTF_CROWD_API_END
