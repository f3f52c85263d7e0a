// Layer 2, anim: axis-aligned bounds of what a crowd draws from an asset, at the rest pose and
// over its clips, for laying out actors and framing cameras (the tools' `info`, `render` and
// `studio`). Computed on demand from the immutable Asset; nothing is cached.
//
// Units: asset space, the space of the default scene's roots (an actor's space before its
// placement), in the asset's units: meters (glTF 2.0 §3.4).
//
// Drawn geometry is what a Crowd without LOD draws: every vertex of every primitive of every
// mesh node reachable from the default scene through visible nodes (KHR_node_visibility hides a
// subtree), at full detail (MSFT_lod levels are not added). A vertex is placed as the renderer
// places it: morph targets added with the pose's weights (glTF 2.0 §3.7.2.2), then, for a
// primitive with JOINTS_0 on a skinned node, Σ wᵢ · world(jointᵢ) · IBMᵢ · v (the node's own
// transform is ignored, §3.7.3), else world(node) · v. Bounds are exact per vertex at each pose
// they look at; they are not padded.
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

#include <glm/glm.hpp>

#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/export.hpp"

GLTF_CROWD_API_BEGIN
namespace gltf_crowd {

// An axis-aligned box; empty (min > max) until a point is added.
struct Bounds {
  glm::vec3 min{std::numeric_limits<float>::max()};
  glm::vec3 max{std::numeric_limits<float>::lowest()};

  bool empty() const noexcept { return min.x > max.x; }
  void add(const glm::vec3& p) noexcept {
    min = glm::min(min, p);
    max = glm::max(max, p);
  }
  // Grows the box to contain `other` (an empty `other` changes nothing).
  void add(const Bounds& other) noexcept {
    min = glm::min(min, other.min);
    max = glm::max(max, other.max);
  }
  // Meaningless for an empty box.
  glm::vec3 center() const noexcept { return (min + max) * 0.5f; }
  glm::vec3 size() const noexcept { return max - min; }
};

// The times, in seconds within [0, duration], at which animated_bounds (and the LOD layer's
// animated spheres, docs/spec.md §7) pose a clip: every key time of its channels and a uniform grid from
// 0 to the duration in ceil(30 × duration) steps, at most 1,024 (clips longer than 34 s get a
// coarser grid), sorted and without duplicates. More than 2,048 such times are thinned to 2,048
// spread evenly over them, first and last kept, which bounds the cost of a clip with very many
// keys.
std::vector<float> bounds_sample_times(const Clip& clip);

// Box of every drawn vertex at the rest pose: node TRS (authored matrices), default morph
// weights (node weights, else mesh weights), skins bound to their joints' rest transforms.
// Empty when the default scene draws nothing. Cost: one pass over the drawn vertices.
Bounds rest_bounds(const Asset& asset);

// Box of every drawn vertex over the whole duration of `asset.clips[clip]`: the union of the
// exact per-vertex boxes of the poses at bounds_sample_times(clip) (the rest pose overwritten by
// the clip's channels, as an actor playing only that clip is posed). It contains the geometry at
// every sampled time; between samples it is conservative only up to the sampling: a vertex that
// swings out between two samples (a fast rotation) may leave it, by at most the distance it
// travels in one sample interval. Cost: drawn vertices × sample times.
// Throws Error (path "animated_bounds.clip", rule "unknown_clip") when `clip` is not an index
// into asset.clips.
Bounds animated_bounds(const Asset& asset, std::size_t clip);

// Union of animated_bounds over every clip; rest_bounds when the asset has no clips (its actors
// then hold the rest pose).
Bounds animated_bounds(const Asset& asset);

}  // namespace gltf_crowd
GLTF_CROWD_API_END
