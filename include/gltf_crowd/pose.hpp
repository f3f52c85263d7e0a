// Layer 2, anim: pose storage, blending, hierarchy and palettes (docs/spec.md §3 "Pose", §4).
#pragma once

#include <span>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "gltf_crowd/affine.hpp"
#include "gltf_crowd/asset.hpp"
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
      : translations(asset.nodes.size()), rotations(asset.nodes.size()), scales(asset.nodes.size()),
        weights(asset.total_weights) {}
  PoseView view() noexcept { return {translations, rotations, scales, weights}; }
};

// Adds `weight` × `source` into `accumulator` (docs/spec.md §3 "Pose"): translations, scales and morph
// weights as weighted sums; rotations sign-aligned to `reference` (the first contributor) before
// summing. With `first`, the accumulator is overwritten instead. Call normalize_rotations after
// the last contributor.
void accumulate_pose(const PoseView& source, float weight, bool first, std::span<const glm::quat> reference,
                     const PoseView& accumulator) noexcept;

// Normalizes every rotation of the pose (the end of a blend).
void normalize_rotations(const PoseView& pose) noexcept;

// world[n] = world[parent(n)] × local(n) for every node as 4×4 matrices, roots relative to
// `root` (placement or identity), for read-back calls, tools and bounds; the crowd's per-frame
// path runs its own 3×4 kernels over the nodes it needs. `world` has nodes.size() entries.
// Source: glTF 2.0 §3.5.3.
void compute_world_matrices(const Asset& asset, const PoseView& pose, const glm::mat4& root,
                            std::span<glm::mat4> world) noexcept;

}  // namespace gltf_crowd
GLTF_CROWD_API_END
