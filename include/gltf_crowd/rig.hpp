// Layer 2, anim: the compiled animation data of one asset, as plain arrays (in the spirit of
// ozz-animation's runtime skeleton and animation): a Rig (the nodes that matter, parents
// first, with their rest transforms and the palettes of the drawn skinned nodes) and one
// ClipTracks per clip (channels bound to the rig's numbering, keys laid out for sequential
// access). Built once, immutable, shared by every actor; the jobs of jobs.hpp read them. A GPU
// evaluator uploads the same arrays.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "gltf_crowd/affine.hpp"
#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/sampling.hpp"
#include "gltf_crowd/export.hpp"

GLTF_CROWD_API_BEGIN
namespace gltf_crowd {

// Rig::rig_node of an asset node the rig leaves out.
inline constexpr std::uint32_t kNotInRig = 0xFFFFFFFFu;

// How a drawn node's instance transform is produced from the model-space pose.
enum class InstanceRule : std::uint8_t {
  rigid,         // placement × unframe × world'(node)
  static_mesh,   // placement × mesh_world of its skin: a constant, the node's chain is never animated
  animated_mesh  // placement × unframe × world'(node), or placement × unframe when world' is singular
};

// The joint palette of one drawn skinned node (glTF 2.0 §3.7.3): row block j is
// inverse(world(mesh node)) × world(joints[j]) × inverse_binds[j], 3 rows of 16 bytes.
struct RigSkin {
  std::uint32_t drawn = 0;            // index into Rig::drawn of the node that owns it
  std::uint32_t mesh_node = 0;        // rig index of that node
  std::vector<std::uint32_t> joints;  // rig index per skin joint
  std::vector<Affine> inverse_binds;  // per joint, from the skin's inverseBindMatrices
  // The mesh node and its ancestors are never animated (as in most exported characters), so
  // its model-space world is a constant: mesh_world. A singular one counts as animated.
  bool static_mesh = false;
  Affine mesh_world;  // valid when static_mesh
  // Static meshes: rows = correction × world'(joint) × IBM with correction = mesh_world⁻¹ ×
  // unframe (world' is the framed model space, Rig::frame); identity_correction skips it.
  Affine correction;
  bool identity_correction = false;
};

// One drawn node (a node with a mesh, in the order given to build_rig).
struct RigDrawn {
  std::uint32_t node = 0;  // rig index
  InstanceRule rule = InstanceRule::rigid;
  // Skinned: index into Rig::skins of the palette it skins with. Palettes that are always equal
  // (same joints, inverse bind matrices and static mesh world, e.g. RobotExpressive's hands) are
  // computed once: `palette_owner` is the drawn index whose skin that is (this one or earlier).
  std::int32_t skin = -1;  // -1 = rigid (or its mesh is unskinned)
  std::uint32_t palette_owner = 0;
  std::uint32_t weight_offset = 0;  // its morph weights in Asset::weight_offsets layout
  std::uint32_t weight_count = 0;
};

// What build_rig keeps.
struct RigOptions {
  // Every asset node (read-back of any node's world), instead of only the drawn nodes, their
  // skins' joints and the ancestors of both.
  bool all_nodes = false;
  // Compute the hierarchy in the frame of the first static skinned mesh (see Rig::frame), which
  // saves a product per joint; off, world' is plain model space.
  bool frame = true;
};

// The nodes an evaluation needs, renumbered densely parents first ("rig index"), and how each
// drawn node is packed. Every per-node array has node_count() entries in rig order.
struct Rig {
  std::vector<std::uint32_t> asset_node;    // asset node of each rig node
  std::vector<std::int32_t> parent;         // rig parent, -1 for roots; parent[n] < n
  std::vector<std::uint32_t> rig_node;      // per asset node: rig index, or kNotInRig
  std::vector<Affine> rest_local;           // rest TRS or authored matrix
  std::vector<Affine> rest_world;           // world' of the rest pose (framed model space)
  std::vector<glm::vec3> rest_translation;  // rest TRS (an authored matrix decomposed when animated)
  std::vector<glm::quat> rest_rotation;
  std::vector<glm::vec3> rest_scale;
  std::vector<float> rest_weights;  // Asset::rest_weights: total_weights entries
  std::vector<RigDrawn> drawn;
  std::vector<RigSkin> skins;  // one per distinct palette
  // world' = frame × world(model space); frame is the inverse model-space world of the first
  // static skinned mesh, so its palette rows are world'(joint) × IBM. Instance transforms
  // multiply by unframe = frame⁻¹.
  bool framed = false;
  Affine frame;
  Affine unframe;

  std::size_t node_count() const noexcept { return asset_node.size(); }
};

// One key-time array of a clip, shared by every channel keyed at the same times; or, last, the
// single key (at time 0) of its constant channels (ClipTracks::constant_channels).
struct Timeline {
  std::uint32_t times_offset = 0;  // into ClipTracks::times
  std::uint32_t key_count = 0;     // >= 1
};

// Channels sampled together, in structure-of-arrays form: up to kGroupLanes channels of one
// timeline, one path and one interpolation, one per lane. Key k's block starts at key_rows[
// values_offset + k × key_stride] and holds, for each part (CUBICSPLINE: in-tangent, value,
// out-tangent; else the value) and component c (x, y, z[, w]; one per morph weight), the
// kGroupLanes lanes' values side by side: part p, component c, lane l at (p × n + c) ×
// kGroupLanes + l, n = components. Lanes from `lanes` on repeat lane 0 (keys and target),
// so that a sampler may write all kGroupLanes of them.
inline constexpr std::uint32_t kGroupLanes = 8;
// A lane's components n: 4 for a rotation (x, y, z, w), 3 for a translation or scale, 1 for a
// morph weight.
inline constexpr std::uint32_t lane_components(ChannelPath path) noexcept {
  return path == ChannelPath::rotation ? 4 : path == ChannelPath::weights ? 1 : 3;
}
struct ChannelGroup {
  std::uint32_t timeline = 0;
  std::uint32_t values_offset = 0;
  std::uint32_t key_stride = 0;  // floats, the timeline's row
  std::uint32_t lanes = 0;       // 1..kGroupLanes
  ChannelPath path = ChannelPath::translation;
  Interpolation interpolation = Interpolation::linear;
  std::uint32_t targets[kGroupLanes] = {};  // rig index (TRS) or weight index, per lane
};

// One clip compiled against a rig: the channels that reach it, bound to rig nodes (TRS) or to
// the flat morph weight array (weights). Channels keyed at equal times share a timeline, and
// constant channels the last one (constant_channels); a timeline's channels are sampled in groups of kGroupLanes
// (ChannelGroup), whose blocks are interleaved key by key in key_rows, so one frame reads two adjacent rows per
// timeline, and playback moves forward through memory.
struct ClipTracks {
  float duration_seconds = 0.0f;  // the asset clip's
  std::vector<float> times;       // seconds, per timeline back to back
  std::vector<Timeline> timelines;
  // One per TRS channel, one per morph weight of a weights channel (target: rig index or weight
  // index), each naming its lane of key_rows: the description a GPU evaluator uploads.
  std::vector<BoundChannel> channels;
  // How many of `channels` are constant: one key, or keys that all hold one value (CUBICSPLINE:
  // with zero tangents), of a property that no clip of the asset moves (so that clips with the
  // same channels keep one group layout). They keep that one value as LINEAR on the last
  // timeline, of a single key, which samples to exactly the authored value at every time:
  // lossless, and a load to sample.
  std::uint32_t constant_channels = 0;
  std::vector<ChannelGroup> groups;  // what SampleJob runs, by timeline
  std::vector<float> key_rows;
  std::vector<std::uint32_t> animated;  // rig nodes with a TRS channel, ascending, unique
  // Animated nodes without a channel for one property, which a sample from the rest pose fills
  // with its rest value; and whether some morph weight has no channel.
  std::vector<std::uint32_t> rest_translations, rest_rotations, rest_scales;
  bool rest_weights = true;
  // What it was compiled against, so that a job refuses tracks of another rig or asset.
  std::uint32_t rig_nodes = 0;     // Rig::node_count()
  std::uint32_t weight_count = 0;  // Asset::total_weights
};

// Compiles the rig for `drawn_nodes` (asset nodes with a mesh, e.g. Asset::drawn_nodes; their
// order is RigDrawn's). Nodes that are neither drawn, a joint of a drawn skin, nor an ancestor
// of one are left out unless options.all_nodes. Never throws for a loaded asset.
Rig build_rig(const Asset& asset, std::span<const std::uint32_t> drawn_nodes, const RigOptions& options = {});

// Compiles every clip of the asset against `rig` (Asset::clips order). Channels of nodes outside
// the rig, and weights channels of nodes without morph targets, are dropped.
std::vector<ClipTracks> build_clip_tracks(const Asset& asset, const Rig& rig);
// The most timelines any of `clips` has: the KeyPosition scratch a SampleJob over them needs.
std::size_t max_timelines(std::span<const ClipTracks> clips) noexcept;

// The same for one clip (of `asset`).
ClipTracks build_clip_tracks(const Asset& asset, const Clip& clip, const Rig& rig);

}  // namespace gltf_crowd
GLTF_CROWD_API_END
