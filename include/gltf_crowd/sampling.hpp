// Layer 2, anim: sampling one clip at one time into a local pose (glTF 2.0 Appendix C).
#pragma once

#include <cstdint>
#include <span>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/export.hpp"

GLTF_CROWD_API_BEGIN
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

// Where a time falls on a keyframe timeline: the value is key `k` blended towards key `next` by
// `t` in [0, 1); k == next outside the keys (clamped to the first or last key) and at a repeated
// first time. `interval` is times[next] - times[k] in seconds, > 0 when k != next (cubic tangents
// scale by it).
struct KeyPosition {
  std::uint32_t k = 0;
  std::uint32_t next = 0;
  float t = 0.0f;
  float interval = 0.0f;
};

// Locates `seconds` on `times` (key times in seconds, non-decreasing, at least one key). Equal
// times are a step (docs/spec.md §2.7): from that time on, the last key with it is the value.
// `cursor` is a hint, typically the k of the previous frame: steady playback finds its key at
// the cursor or the one after it, so no search runs; anything else (a seek, a loop wrap, a
// stale hint) falls back to a binary search. `cursor` is updated to the key found. Saturating
// 16-bit cursors keep per-actor storage small; timelines longer than 65,535 keys just search.
KeyPosition locate_key(std::span<const float> times, float seconds, std::uint16_t& cursor) noexcept;

// Writes `components` floats (rotations x,y,z,w) of a channel's output at `key` (glTF 2.0
// Appendix C): STEP holds key k, LINEAR lerps (shortest-arc slerp for rotations), CUBICSPLINE
// evaluates the Hermite spline with tangents scaled by the key interval; rotations are unit
// length. `values` is the channel's output accessor data (for CUBICSPLINE: in-tangent, value,
// out-tangent per key).
void interpolate_key(const float* values, std::uint32_t components, Interpolation interpolation, bool rotation,
                     const KeyPosition& key, float* out) noexcept;

// A clip channel bound to dense pose arrays (a rig's ClipTracks): its output goes to
// translations/rotations/scales[target], or to weights[target] (a weights channel is bound once
// per morph target, components = 1). Component c of key k's output starts at
// values_offset + k × key_stride + c × component_stride of a key-row array (for CUBICSPLINE:
// in-tangent components first, then the value's, then the out-tangent's), in which the outputs
// of every channel on one timeline are interleaved key by key, so one frame reads two adjacent
// rows.
struct BoundChannel {
  std::uint32_t timeline = 0;  // index into the caller's located keys, one per key-time array
  std::uint32_t target = 0;
  std::uint32_t values_offset = 0;     // into the key-row array
  std::uint32_t key_stride = 0;        // floats from one key's row to the next
  std::uint32_t component_stride = 1;  // floats from one component to the next
  std::uint32_t components = 0;
  ChannelPath path = ChannelPath::translation;
  Interpolation interpolation = Interpolation::linear;  // the sampler's; LINEAR for a constant channel
};

// Samples one channel at `seconds` (clamped to its first/last key) into `out`, which receives
// `channel.components` floats (rotations x,y,z,w). STEP holds the previous key, LINEAR lerps
// (slerp on the shortest arc for rotations), CUBICSPLINE evaluates the Hermite spline with
// tangents scaled by the key interval; rotations are normalized. Source: glTF 2.0 Appendix C.
void sample_channel(const Clip& clip, const Channel& channel, float seconds, std::span<float> out) noexcept;

// Overwrites the nodes the clip animates with its channels sampled at `seconds`; every other
// entry of `out` is left as is (callers start from the rest pose). Runs SampleJob (jobs.hpp)
// over a rig and tracks compiled on every call: loops should keep an AssetPose (pose.hpp).
void sample_clip(const Asset& asset, const Clip& clip, float seconds, const PoseView& out);

}  // namespace gltf_crowd
GLTF_CROWD_API_END
