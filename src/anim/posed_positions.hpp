// Positions of a primitive's vertices at one pose, placed as the renderer places them; shared by
// the public bounds (anim) and the LOD spheres (lod). Private to the library.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <glm/glm.hpp>

#include "gltf_crowd/asset.hpp"

namespace gltf_crowd::detail {

// Appends one position per vertex of `primitive`, a primitive of node `node`'s mesh, to `out`:
// morph deltas weighted by the node's entries of `weights` (the flat array laid out by
// Asset::weight_offsets), then Σ wᵢ · world(jointᵢ) · IBMᵢ when the node is skinned and the
// primitive has JOINTS_0, else world(node). `world` holds compute_world_matrices' output.
void append_posed_positions(const Asset& asset, std::uint32_t node, const Primitive& primitive,
                            std::span<const glm::mat4> world, std::span<const float> weights,
                            std::vector<glm::vec3>& out);

}  // namespace gltf_crowd::detail
