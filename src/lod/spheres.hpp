// Bounding spheres of a LodModel (docs/spec.md §7: rest-pose sphere for coverage, conservative animated
// sphere per clip for culling). Private to the lod layer.
#pragma once

#include "gltf_crowd/lod.hpp"

namespace gltf_crowd::detail {

// Fills model.rest_sphere, model.clip_spheres and model.rest_pose_bounds from model.sources.
void compute_lod_bounds(const Asset& asset, LodModel& model);

}  // namespace gltf_crowd::detail
