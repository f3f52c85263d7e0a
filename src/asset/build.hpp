// The passes that turn a parsed tinygltf::Model into a validated Asset. Each throws Error naming
// the JSON path and rule of the first broken rule it finds.
#pragma once

#include <tiny_gltf.h>

#include "gltf_crowd/asset.hpp"

namespace gltf_crowd::detail {

// Nodes: TRS or matrix, children → parent (single parent, acyclic), skins, MSFT_lod,
// KHR_node_visibility; scene roots; hierarchy order. `animated` flags nodes that channels target.
void build_nodes(const tinygltf::Model& model, const std::vector<bool>& animated, Asset& asset);
// Skins: joints valid and unique, inverse bind matrices (identity when absent), count >= joints.
void build_skins(const tinygltf::Model& model, Asset& asset);
// Meshes and primitives with every attribute decoded; indices and joints range-checked.
void build_meshes(const tinygltf::Model& model, Asset& asset);
// Materials, textures, samplers, decoded images.
void build_materials(const tinygltf::Model& model, Asset& asset);
// Animations → clips: channels, keys finite and non-decreasing, output counts consistent.
void build_clips(const tinygltf::Model& model, Asset& asset);
// Nodes targeted by any animation channel (for keeping matrices vs decomposing them).
std::vector<bool> animated_nodes(const tinygltf::Model& model);

}  // namespace gltf_crowd::detail
