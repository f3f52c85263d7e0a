// Layer 2, anim: the kernels of the per-actor frame path (sampling in groups of 8 channels, and
// the affine products of the hierarchy, palettes and instance transforms), compiled three times:
// for SSE2 (every x86-64 CPU); for AVX2 with FMA, where 8 lanes are one register and a row of a
// product is three fused multiply-adds on broadcast loads; and the
// AVX2 + FMA code again with AVX-512VL's 32 registers (the same bits). affine_kernels() picks the
// best set once per process; SSE2's results differ from the others' in the last bits (FMA rounds
// once), never between threads or frames of one process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "gltf_crowd/affine.hpp"
#include "gltf_crowd/rig.hpp"
#include "gltf_crowd/sampling.hpp"

namespace gltf_crowd {

// One hierarchy pass over `count` nodes numbered parents first (parent[n] < n, -1 for roots).
// local(n) = compose_trs(translations[n], rotations[n], scales[n]) where mark[n] == stamp, else
// rest_local[n]; world[n] = world[parent[n]] × local(n), or root × local(n) for roots (identity
// when root is null). A node with no marked node among itself and its ancestors takes
// rest_world[n], which must equal that product for the rest pose (precomputed once), and
// `moved` records per node whether it had one. Source: glTF 2.0 §3.5.2–3.5.3.
struct HierarchyPass {
  std::size_t count = 0;
  const std::int32_t* parent = nullptr;
  const Affine* rest_local = nullptr;
  const glm::vec3* translations = nullptr;
  const glm::quat* rotations = nullptr;  // unit length where marked
  const glm::vec3* scales = nullptr;
  const std::uint32_t* mark = nullptr;
  std::uint32_t stamp = 0;
  const Affine* root = nullptr;
  const Affine* rest_world = nullptr;
  std::uint8_t* moved = nullptr;  // count entries, written
};

// Sampling of a clip's channel groups (ChannelGroup) at their timelines' located keys into
// rig-indexed pose arrays, as interpolate_key does for one channel; slerp weights of slerp.hpp.
struct SamplePass {
  const float* key_rows = nullptr;
  const ChannelGroup* groups = nullptr;
  std::size_t count = 0;
  const KeyPosition* keys = nullptr;  // per timeline
  glm::vec3* translations = nullptr;
  glm::quat* rotations = nullptr;
  glm::vec3* scales = nullptr;
  float* weights = nullptr;
};

// The local poses of up to kSampleLanes poses playing one clip, sampled by SamplePass's groups,
// each pose at its own keys, into structure-of-arrays lanes for hierarchy_lanes: per rig node,
// kPoseLaneComponents components (translation x, y, z; rotation x, y, z, w; scale x, y, z), each
// as kSampleLanes floats, one per pose. Each value is bit for bit what `sample` gives that pose;
// only the groups' targets are written. Morph weights go to each pose's own array. Lanes past
// `lanes` hold lane 0's values; `lanes` outside 1..kSampleLanes does nothing.
constexpr std::size_t kSampleLanes = 8;
constexpr std::size_t kPoseLaneComponents = 10;
struct SampleLanes {
  const float* key_rows = nullptr;
  const ChannelGroup* groups = nullptr;
  std::size_t count = 0;
  std::size_t lanes = 0;
  const KeyPosition* keys[kSampleLanes] = {};  // per lane, per timeline
  float* pose = nullptr;                       // kPoseLaneComponents × kSampleLanes floats per rig node
  float* weights[kSampleLanes] = {};
};

// A two-layer crossfade of SampleLanes poses, each lane as blend_pair blends one pose (bit for
// bit): out = a × wa + b × wb for translations and scales; rotations a × wa + b × ±wb (minus where
// b·a < 0), normalized, the identity where that sum is zero. Only `nodes` are written; `out` may
// be `a` or `b`. Every lane is computed: for lanes past a batch's poses, give lane 0's weights.
struct BlendLanes {
  const float* a = nullptr;  // SampleLanes::pose layouts
  const float* b = nullptr;
  float wa[kSampleLanes] = {}, wb[kSampleLanes] = {};
  const std::uint32_t* nodes = nullptr;
  std::size_t count = 0;
  float* out = nullptr;
};

// A crossfade of two clips into one pose in one pass: group i of `a` and group i of `b` (the same
// path, lanes and targets: CompiledRig::group_layout) are each sampled as `sample` samples them,
// then blended in registers as blend_pair blends the two sampled poses (bit for bit):
// translations and scales a × wa + b × wb; rotations a × wa + b × ±wb (minus where b·a < 0),
// normalized, the identity where that sum is zero. Morph weights are not blended here: each
// clip's go to its own array (weights[0], weights[1]).
struct SamplePair {
  const float* key_rows[2] = {};
  const ChannelGroup* groups[2] = {};
  std::size_t count = 0;            // groups of each clip
  const KeyPosition* keys[2] = {};  // per timeline of each clip
  float wa = 0.0f, wb = 0.0f;
  glm::vec3* translations = nullptr;
  glm::quat* rotations = nullptr;
  glm::vec3* scales = nullptr;
  float* weights[2] = {};
};

// A crossfade of two clips with one group layout (SamplePair's condition) for up to kSampleLanes
// poses in one pass: each clip's groups sampled as SampleLanes samples them, blended lane by lane
// in registers as BlendLanes blends the two sampled poses, and written to `pose` once (bit for
// bit SampleLanes of each clip, from the rest pose, then BlendLanes over the clip's animated
// nodes). The properties of the animated nodes that no channel writes (ClipTracks::rest_*) get
// the rest value blended with itself; nothing else of `pose` is written. Morph weights are not
// blended: each clip's go to its own arrays (weights[0], weights[1]). Lanes past `lanes` get
// lane 0's values, and their weights must be lane 0's; `lanes` outside 1..kSampleLanes does
// nothing.
struct SamplePairLanes {
  const Rig* rig = nullptr;
  const ClipTracks* clips[2] = {};  // the same group layout
  std::size_t lanes = 0;
  const KeyPosition* keys[2][kSampleLanes] = {};  // per clip, per lane, per timeline
  float wa[kSampleLanes] = {}, wb[kSampleLanes] = {};
  float* pose = nullptr;  // SampleLanes::pose
  float* weights[2][kSampleLanes] = {};
};

// The hierarchy pass of up to kHierarchyLanes poses of one rig at once, one pose per lane of an
// 8-wide register, each pose's result bit for bit that of `hierarchy` for it (the same
// operations in the same order). Every node some lane moves is composed and multiplied across
// lanes (structure of arrays); lanes that do not animate it select rest_local, lanes whose chain
// is at rest select rest_world. Lanes past `lanes` of the pose arrays are not read or written;
// `lanes` outside 1..8 does nothing.
constexpr std::size_t kHierarchyLanes = 8;
struct HierarchyLanes {
  std::size_t count = 0;  // rig nodes, as HierarchyPass
  const std::int32_t* parent = nullptr;
  const Affine* rest_local = nullptr;
  const Affine* root = nullptr;
  const Affine* rest_world = nullptr;
  std::size_t lanes = 0;  // poses, 1..kHierarchyLanes
  const glm::vec3* translations[kHierarchyLanes] = {};
  const glm::quat* rotations[kHierarchyLanes] = {};  // unit length where marked
  const glm::vec3* scales[kHierarchyLanes] = {};
  const std::uint32_t* mark[kHierarchyLanes] = {};
  std::uint32_t stamp[kHierarchyLanes] = {};
  // Instead of the arrays above: every lane's local pose from SampleLanes::pose, where
  // animated[n] != 0 (the same in every lane; translations, rotations, scales and mark unread).
  // All 8 lanes are read: lanes past `lanes` must hold lane 0's values (as SampleLanes and
  // BlendLanes leave them), since their worlds are stored where lane 0's go.
  const float* pose = nullptr;
  const std::uint8_t* animated = nullptr;
  Affine* world[kHierarchyLanes] = {};  // count entries each, written where keep_world
  // Per node: 1 where world[l][n] must be written; null = every node. Elsewhere world[l][n] is
  // left as it was; lanes_world holds every node but those at rest in every lane.
  const std::uint8_t* keep_world = nullptr;
  // Scratch, written: per node, its world as 12 components × 8 lanes (96 floats, any alignment),
  // whether lanes_world holds it, and hierarchy's `moved` flag of each lane as bit l (count
  // entries each).
  float* lanes_world = nullptr;
  std::uint8_t* in_lanes = nullptr;
  std::uint8_t* moved_lanes = nullptr;
};

// The joint palettes of one rig skin for up to kHierarchyLanes poses after their hierarchy_lanes
// pass: rows[l][3j..3j+2] = left × world_l(joints[j]) × inverse_binds[j], bit for bit as
// `palette` computes each, with `left` shared by all lanes (null = identity); `lanes` outside
// 1..8 does nothing. Reads the pass's lanes_world, putting into it the rest_world of the joints
// it does not hold (at rest in every lane). With `stream`, 16-byte aligned rows are written with
// non-temporal stores, fenced before returning; otherwise with plain stores, which leave them in
// the cache. Streaming pays only for palettes larger than the cache (the crowd's rule:
// stream_palettes in src/crowd/pack.cpp).
struct PaletteLanes {
  std::span<const std::uint32_t> joints;
  std::span<const Affine> inverse_binds;
  const Affine* left = nullptr;
  std::size_t lanes = 0;                  // poses, 1..kHierarchyLanes
  const Affine* rest_world = nullptr;     // HierarchyLanes::rest_world
  glm::vec4* rows[kHierarchyLanes] = {};  // 3 × joints.size() each, written
  float* lanes_world = nullptr;           // HierarchyLanes::lanes_world and in_lanes, after the pass
  std::uint8_t* in_lanes = nullptr;
  glm::vec4* staging = nullptr;  // scratch, 3 × joints.size() × kHierarchyLanes rows (streaming only)
  bool stream = false;
};

// The instance transforms of the drawn nodes (Rig::drawn) for up to kHierarchyLanes poses after
// their hierarchy_lanes pass, as the crowd packs each (InstanceRule), bit for bit as `multiply`
// gives them one pose at a time: for drawn node d and lane l, 3 rows at rows[8d + l] =
// placement[l] × mesh_world of its skin (static_mesh, with static_rows), or placement[l] ×
// unframe × world_l(node) (rigid; null unframe = identity), with the world from lanes_world where
// in_lanes, else rest_world (the node rests in every lane). No drawn node may be an
// animated_mesh. Lanes past `lanes` are not read or written; `lanes` outside 1..8 does nothing.
struct InstanceLanes {
  std::span<const RigDrawn> drawn;
  std::span<const RigSkin> skins;
  const Affine* unframe = nullptr;
  std::size_t lanes = 0;
  const Affine* placement[kHierarchyLanes] = {};
  const float* lanes_world = nullptr;  // HierarchyLanes::lanes_world and in_lanes, after the pass
  const std::uint8_t* in_lanes = nullptr;
  const Affine* rest_world = nullptr;
  glm::vec4* const* rows = nullptr;  // kHierarchyLanes per drawn node, written
  bool static_rows = true;           // false: static_mesh nodes' rows are left as they are
};

// The scratch arrays of hierarchy_lanes, palette_lanes and instance_lanes for a rig of `nodes`
// nodes and `drawn` drawn nodes. One per worker, on cache lines of its own: each worker writes
// its rest_clip in every batch.
struct alignas(64) LanesScratch {
  // `joints`: the most joints of any skin (palette_lanes' staging).
  LanesScratch(std::size_t nodes, std::size_t joints, std::size_t drawn)
      : world(96 * nodes),
        in_lanes(nodes),
        moved_lanes(nodes),
        staging(3 * joints * kHierarchyLanes),
        pose(kPoseLaneComponents * kSampleLanes * nodes),
        second_pose(kPoseLaneComponents * kSampleLanes * nodes),
        animated(nodes),
        instance_rows(kHierarchyLanes * drawn) {
    blend_nodes.reserve(nodes);
  }
  std::vector<float> world;
  std::vector<std::uint8_t> in_lanes, moved_lanes;
  std::vector<glm::vec4> staging;
  // sample_lanes' output and the nodes its clips animate (HierarchyLanes::pose and animated);
  // a crossfade of two clips with different group layouts (no SamplePairLanes) samples its
  // second clip into second_pose, then blends it into pose over blend_nodes (reserved for every
  // node, so filling it does not allocate).
  std::vector<float> pose, second_pose;
  // The clip whose rest values of its animated nodes' unanimated properties, and whose constant
  // channels' values, `pose` holds (-1: none): sampling that clip again writes only its moving
  // channels' targets, so they stay.
  std::int64_t rest_clip = -1;
  std::vector<std::uint8_t> animated;
  std::vector<std::uint32_t> blend_nodes;
  std::vector<glm::vec4*> instance_rows;  // InstanceLanes::rows
};

struct AffineKernels {
  const char* name;  // "sse2", "avx2+fma" or "avx512vl"
  void (*sample)(const SamplePass& pass) noexcept;
  void (*sample_lanes)(const SampleLanes& pass) noexcept;           // see SampleLanes
  void (*blend_lanes)(const BlendLanes& pass) noexcept;             // see BlendLanes
  void (*sample_pair)(const SamplePair& pass) noexcept;             // see SamplePair
  void (*sample_pair_lanes)(const SamplePairLanes& pass) noexcept;  // see SamplePairLanes
  void (*hierarchy)(const HierarchyPass& pass, Affine* world) noexcept;
  void (*hierarchy_lanes)(const HierarchyLanes& pass) noexcept;  // see HierarchyLanes
  void (*palette_lanes)(const PaletteLanes& pass) noexcept;      // see PaletteLanes
  void (*instance_lanes)(const InstanceLanes& pass) noexcept;    // see InstanceLanes
  // rows[3j..3j+2] = left × world[joints[j]] × inverse_binds[j]; null left = identity. With
  // `stream`, 16-byte aligned rows are written with non-temporal stores, fenced before returning
  // (when that pays: PaletteLanes); otherwise with plain stores.
  void (*palette)(std::span<const std::uint32_t> joints, std::span<const Affine> inverse_binds,
                  std::span<const Affine> world, const Affine* left, glm::vec4* rows, bool stream) noexcept;
  // out = a × b (apply b first); out may alias neither input.
  void (*multiply)(const Affine& a, const Affine& b, Affine& out) noexcept;
};

// SSE2 kernels; available everywhere.
const AffineKernels& portable_affine_kernels() noexcept;
// AVX2 + FMA kernels when this CPU has both, else null.
const AffineKernels* fma_affine_kernels() noexcept;
// The AVX2 + FMA kernels compiled with AVX-512VL's 32 registers ("avx512vl": the same results bit
// for bit) when this CPU has AVX2, FMA, AVX-512F and AVX-512VL, else null.
const AffineKernels* avx512_affine_kernels() noexcept;
// The set the crowd uses: avx512vl, else avx2+fma, else sse2, where the CPU has it; the
// environment variable GLTF_CROWD_SIMD=sse2 or =avx2 asks for the portable or the AVX2 + FMA set
// (to compare them). Chosen once per process.
const AffineKernels& affine_kernels() noexcept;

}  // namespace gltf_crowd
