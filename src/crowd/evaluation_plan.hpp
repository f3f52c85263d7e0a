// What one actor evaluation must compute, decided once per crowd: the nodes whose world
// transforms matter (parents first) and, per skinned stream, how its palette is produced.
#pragma once

#include <cstdint>
#include <vector>

#include "gltf_crowd/affine.hpp"
#include "gltf_crowd/crowd.hpp"

namespace gltf_crowd {

struct PalettePlan {
  std::uint32_t stream = 0;
  std::vector<std::uint32_t> joints;        // node per joint
  std::vector<Affine> inverse_binds;        // per joint
  // The mesh node and its ancestors are unanimated (as in most exported characters), so its
  // model-space world transform and that transform's inverse are constants, computed here once.
  bool static_mesh = false;
  bool identity_mesh = false;               // static and identity: palette = world(joint) × IBM
  Affine mesh_world;                        // valid when static_mesh
  Affine inverse_mesh_world;                // valid when static_mesh and invertible
  // An earlier stream whose palette is always equal (same joints, IBMs and static mesh world),
  // copied instead of recomputed; -1 when none.
  std::int32_t same_as = -1;
};

struct EvaluationPlan {
  std::vector<std::uint32_t> order;         // nodes to transform, parents first
  std::vector<PalettePlan> palettes;        // one per skinned stream, in stream order
  std::vector<std::int32_t> palette_of_stream;  // stream → index into palettes, -1 rigid
};

// Builds the plan for these streams. Nodes that neither carry a drawn mesh nor a joint of a drawn
// skin (nor are ancestors of one) are left out of `order`.
EvaluationPlan make_evaluation_plan(const Asset& asset, const std::vector<NodeStream>& streams);

}  // namespace gltf_crowd
