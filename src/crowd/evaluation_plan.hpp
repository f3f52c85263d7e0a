// What one actor evaluation must compute, decided once per crowd: the nodes whose world
// transforms matter, renumbered densely (parents first), their rest transforms, each clip's
// channels rewritten against that numbering with shared keyframe timelines, and per skinned
// stream how its palette is produced. The per-frame code (evaluate.cpp) then reads only
// contiguous arrays indexed by these dense numbers.
#pragma once

#include <cstdint>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "anim/kernels.hpp"
#include "gltf_crowd/affine.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/sampling.hpp"

namespace gltf_crowd {

// Key cursors kept per contributor (Playback); a clip's timelines beyond this many are located
// by binary search. Exporters usually key every channel of a clip on one timeline
// (RobotExpressive, Fox: one; CesiumMan: 19 accessors with equal times, merged to one).
inline constexpr std::size_t kCursorTimelines = 4;

// One key-time array of a clip, shared by every channel keyed at the same times.
struct Timeline {
  std::uint32_t times_offset = 0;  // into Clip::times
  std::uint32_t key_count = 0;
};

struct ClipPlan {
  std::vector<Timeline> timelines;
  std::vector<BoundChannel> channels;       // those reaching the drawn output
  std::vector<float> key_rows;              // per timeline, its channels' outputs key by key
  std::vector<std::uint32_t> animated;  // dense nodes with a TRS channel, ascending, unique
};

struct PalettePlan {
  std::uint32_t stream = 0;
  std::vector<std::uint32_t> joints;        // dense node per joint
  std::vector<Affine> inverse_binds;        // per joint
  // The mesh node and its ancestors are unanimated (as in most exported characters), so its
  // model-space world transform is a constant, computed here once.
  bool static_mesh = false;
  Affine mesh_world;                        // valid when static_mesh
  // Static meshes: palette = correction × world'(joint) × IBM, where world' is the framed
  // world of the hierarchy (EvaluationPlan::frame) and correction = mesh_world⁻¹ × frame⁻¹;
  // identity_correction skips that product (always, for the mesh that chose the frame).
  Affine correction;
  bool identity_correction = false;
  std::uint32_t mesh_node = 0;              // dense index of the stream's node
};

// How one stream's instance transform and morph weights are packed, decided once so that the
// per-actor loop reads one small record per stream.
enum class InstanceRule : std::uint8_t {
  rigid,         // placement × unframe × world'(node)
  static_mesh,   // placement × mesh_world of `palette` (a constant)
  animated_mesh  // placement × unframe × world'(node), or the placement alone when singular
};
struct StreamPlan {
  std::uint32_t node = 0;           // dense index of the stream's node
  InstanceRule rule = InstanceRule::rigid;
  std::uint32_t palette = 0;        // skinned: index into EvaluationPlan::palettes (own or shared)
  std::uint32_t weight_offset = 0;  // the node's morph weights in Asset::weight_offsets layout
  std::uint32_t weight_count = 0;
};

struct EvaluationPlan {
  std::vector<std::uint32_t> order;         // asset node of each dense node, parents first
  std::vector<std::int32_t> parent;         // dense parent per dense node, -1 for roots
  std::vector<std::uint32_t> dense;         // asset node → dense index (unused entries: 0)
  std::vector<Affine> rest_local;           // per dense node: rest pose or authored matrix
  std::vector<Affine> rest_world;           // per dense node: framed world of the rest pose
  std::vector<glm::vec3> rest_translation;  // per dense node (rest TRS of animated nodes)
  std::vector<glm::quat> rest_rotation;
  std::vector<glm::vec3> rest_scale;
  std::vector<ClipPlan> clips;              // per asset clip
  std::vector<PalettePlan> palettes;        // one per stream that computes its own palette
  std::vector<StreamPlan> streams;          // per stream
  std::size_t max_timelines = 0;            // over clips
  // The hierarchy computes world' = frame × world(model space): frame is the inverse world of
  // the first static skinned mesh, so that mesh's palette rows are world'(joint) × IBM, one
  // product per joint instead of two. Instance transforms use placement × unframe × world'.
  bool framed = false;                      // frame is not the identity
  Affine frame;
  Affine unframe;                           // frame⁻¹
  const AffineKernels* kernels = nullptr;   // affine_kernels(), looked up once
};

// Builds the plan for these streams and sets NodeStream::palette_stream: a skinned stream whose
// palette always equals an earlier stream's (same joints, inverse bind matrices and static mesh
// world) shares that stream's palette instead of packing a copy. Nodes that neither carry a
// drawn mesh nor a joint of a drawn skin (nor are ancestors of one) are left out.
EvaluationPlan make_evaluation_plan(const Asset& asset, std::vector<NodeStream>& streams);

}  // namespace gltf_crowd
