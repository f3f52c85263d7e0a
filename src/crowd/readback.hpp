// Read-back of one actor's pose for Actor::local_pose and Actor::node_world: the jobs of the
// per-frame path, run on the caller's thread over the whole asset's rig (Crowd::State::full),
// from a copy of the actor's playback so nothing of the actor changes.
#pragma once

#include <cstdint>

#include <glm/glm.hpp>

#include "crowd/state.hpp"
#include "gltf_crowd/pose.hpp"

namespace gltf_crowd {

// Every node's local TRS (glTF node order) and the morph weights. Allocates.
Pose readback_pose(const Crowd::State& st, std::uint32_t slot);

// placement × model-space world of asset node `node` (< nodes.size()). Allocates.
glm::mat4 readback_world(const Crowd::State& st, std::uint32_t slot, std::uint32_t node);

}  // namespace gltf_crowd
