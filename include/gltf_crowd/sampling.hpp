// Layer 2, anim: sampling one clip at one time into a local pose (glTF 2.0 Appendix C).
#pragma once

#include <span>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "gltf_crowd/asset.hpp"

namespace gltf_crowd {

// A local pose in structure-of-arrays form: one entry per node (glTF node order) for TRS, and
// the flat morph weight array laid out by Asset::weight_offsets.
struct PoseView {
  std::span<glm::vec3> translations;
  std::span<glm::quat> rotations;  // unit quaternions
  std::span<glm::vec3> scales;
  std::span<float> weights;
};

// Writes the asset's rest pose (node TRS; authored matrices decomposed; default morph weights).
// Spans must have nodes.size() / total_weights entries.
void write_rest_pose(const Asset& asset, const PoseView& out) noexcept;

// Samples one channel at `seconds` (clamped to its first/last key) into `out`, which receives
// `channel.components` floats (rotations x,y,z,w). STEP holds the previous key, LINEAR lerps
// (slerp on the shortest arc for rotations), CUBICSPLINE evaluates the Hermite spline with
// tangents scaled by the key interval; rotations are normalized. Source: glTF 2.0 Appendix C.
void sample_channel(const Clip& clip, const Channel& channel, float seconds,
                    std::span<float> out) noexcept;

// Overwrites the nodes the clip animates with its channels sampled at `seconds`; every other
// entry of `out` is left as is (callers start from the rest pose).
void sample_clip(const Asset& asset, const Clip& clip, float seconds, const PoseView& out) noexcept;

}  // namespace gltf_crowd
