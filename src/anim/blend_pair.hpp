// Internal to the library: the two-layer blend of a crossfade in one pass.
#pragma once

#include <cstdint>
#include <span>

#include "gltf_crowd/jobs.hpp"

namespace gltf_crowd {

// BlendJob run on `a` (first, weight wa) and then on `b` (last, weight wb), with a's rotations as
// the sign reference, over `nodes` (every node of `output` when empty, as BlendJob): the same
// result bit for bit (the same products and sums in the same order), but the output is written
// once instead of written, read back and written again. Spans as BlendJob's; not validated.
void blend_pair(const RigPose& a, float wa, const RigPose& b, float wb, std::span<const std::uint32_t> nodes,
                const RigPose& output) noexcept;

// What blend_pair gives for the properties of the clip's animated nodes that no channel of it
// writes (ClipTracks::rest_translations, …) when both poses hold the rest value there: the rest
// value weighed by wa and by wb. Only those properties of `output` are written.
void blend_rest_pair(const Rig& rig, const ClipTracks& clip, float wa, float wb, const RigPose& output) noexcept;

// out = a × wa + b × wb over n floats, as blend_pair weighs morph weights (out may be a or b).
void weigh_pair(const float* a, float wa, const float* b, float wb, std::size_t n, float* out) noexcept;

}  // namespace gltf_crowd
