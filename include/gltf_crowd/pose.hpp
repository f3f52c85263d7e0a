// Layer 2, anim: pose storage, blending, hierarchy and palettes (SPEC §3 "Pose", §4).
#pragma once

#include <span>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "gltf_crowd/affine.hpp"
#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/sampling.hpp"

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

// Adds `weight` × `source` into `accumulator` (SPEC §3 "Pose"): translations, scales and morph
// weights as weighted sums; rotations sign-aligned to `reference` (the first contributor) before
// summing. With `first`, the accumulator is overwritten instead. Call normalize_rotations after
// the last contributor.
void accumulate_pose(const PoseView& source, float weight, bool first, std::span<const glm::quat> reference,
                     const PoseView& accumulator) noexcept;

// Normalizes every rotation of the pose (the end of a blend).
void normalize_rotations(const PoseView& pose) noexcept;

// world[n] = world[parent(n)] × local(n) for every node as 4×4 matrices, roots relative to
// `root` (placement or identity), for tools and bounds; the per-frame path uses
// compute_world_transforms below over its own node subset. `world` has nodes.size() entries.
// Source: glTF 2.0 §3.5.3.
void compute_world_matrices(const Asset& asset, const PoseView& pose, const glm::mat4& root,
                            std::span<glm::mat4> world) noexcept;

// world[n] = world[parent(n)] × local(n) for the nodes in `order`, which lists nodes parents
// first and contains every listed node's parent (Asset::hierarchy_order, or a subset closed under
// parents); roots are relative to `root` (placement, or identity for model space). Authored
// matrices of unanimated nodes are used as authored. `world` has nodes.size() entries; entries of
// unlisted nodes are left as they are. Source: glTF 2.0 §3.5.2–3.5.3.
void compute_world_transforms(const Asset& asset, const PoseView& pose, const Affine& root,
                              std::span<const std::uint32_t> order, std::span<Affine> world) noexcept;

// Writes a skin's palette (SPEC §4): rows[3j..3j+2] = inverse_mesh_world × world[joints[j]] ×
// inverse_binds[j]; a null inverse_mesh_world means identity (a static identity mesh node), which
// saves one product per joint. `rows` has 3 × joints.size() entries.
void write_palette(std::span<const std::uint32_t> joints, std::span<const Affine> inverse_binds,
                   std::span<const Affine> world, const Affine* inverse_mesh_world, glm::vec4* rows) noexcept;

}  // namespace gltf_crowd
