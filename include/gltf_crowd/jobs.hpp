// Layer 2, anim: the animation jobs, after ozz-animation's SamplingJob, BlendingJob,
// LocalToModelJob and skinning matrices. Each job is a plain struct of inputs and output spans
// over a Rig's arrays: validate() checks the spans once (sizes, null pointers) and run() does
// the work with no allocation, no virtual call and no search by name, returning false (and
// writing nothing) when validate() would. A crowd's per-frame update, its read-back calls, the
// tools and the reference renderer all evaluate poses with these jobs.
//
// Local poses are in rig order (Rig::asset_node) with a mark per node: a node whose mark equals
// the evaluation's stamp holds a sampled TRS, every other node is at rest, so a job touches
// only the nodes a clip animates and nothing is reset between evaluations.
#pragma once

#include <cstdint>
#include <span>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "gltf_crowd/affine.hpp"
#include "gltf_crowd/rig.hpp"
#include "gltf_crowd/sampling.hpp"
#include "gltf_crowd/export.hpp"

GLTF_CROWD_API_BEGIN
namespace gltf_crowd {

// A writable local pose in structure-of-arrays form: Rig::node_count() TRS entries in rig
// order, and the flat morph weights (Asset::weight_offsets layout, Asset::total_weights).
struct RigPose {
  std::span<glm::vec3> translations;
  std::span<glm::quat> rotations;  // unit quaternions where marked
  std::span<glm::vec3> scales;
  std::span<float> weights;
};

// Samples one clip at `seconds` (clamped to its keys; glTF 2.0 Appendix C) into `output`: every
// node the clip animates gets its sampled TRS, with `from_rest` the rest value for a property no
// channel of the clip writes (ClipTracks::rest_translations, …; a clip may animate only some of a
// node's properties), and the morph weights no channel writes keep their rest value. Every node
// the clip animates is marked with `stamp` unless `mark` is empty. Other nodes are not written.
// `clip` must have been built for `rig` (build_clip_tracks); validate() fails for tracks whose
// node or morph-weight count differs from the rig's, but cannot tell another rig of equal counts.
struct SampleJob {
  const Rig* rig = nullptr;
  const ClipTracks* clip = nullptr;
  float seconds = 0.0f;
  // Key hints per timeline (locate_key), updated; timelines past its size search. May be empty.
  std::span<std::uint16_t> cursors;
  std::span<KeyPosition> keys;    // scratch, >= clip->timelines.size()
  std::span<std::uint32_t> mark;  // node_count(), written for animated nodes
  std::uint32_t stamp = 0;
  // false: the caller already put the pose the clip's channels override into `output` (sample_clip
  // over a caller's pose), so no rest value is written.
  bool from_rest = true;
  RigPose output;
  // true: `output` already holds what this clip's constant channels (ClipTracks::
  // constant_channels) and, with from_rest, its rest values write: an earlier run of this clip
  // wrote them, and nothing wrote those entries since. Only the moving channels are sampled (and
  // the animated nodes marked). One RiggedFigure pose then samples 3 of its 9 channel groups.
  bool constants_held = false;

  bool validate() const noexcept;
  bool run() const noexcept;
};

// Adds one layer to a weighted blend of local poses (docs/spec.md §3 "Pose"): translations,
// scales and morph weights as weighted sums, rotations as a sum sign-aligned to the first
// layer's (q and -q are one rotation), normalized after the last layer (a normalized linear
// blend: order-independent and exact for one layer). Run it once per layer, `first` on the
// first (which overwrites `output`), `last` on the last; only `nodes` are blended (every node
// in [0, output size) when empty; each must be below the output size, which validate() does not
// check per node), the morph weights always all.
struct BlendJob {
  RigPose layer;        // read only
  float weight = 0.0f;  // finite
  bool first = false;
  bool last = false;
  std::span<const std::uint32_t> nodes;
  // The first layer's rotations, node-indexed; read by the later layers (unused by the first).
  std::span<const glm::quat> reference;
  RigPose output;

  bool validate() const noexcept;
  bool run() const noexcept;
};

// world'[n] = world'[parent] × local(n) over the rig (glTF 2.0 §3.5.2–3.5.3), in the rig's frame
// (roots: frame × local): local(n) = T × R × S of the input where mark[n] == stamp, else the
// rest local transform; a node with no marked node on its chain takes its rest world.
struct LocalToModelJob {
  const Rig* rig = nullptr;
  std::span<const glm::vec3> translations;
  std::span<const glm::quat> rotations;
  std::span<const glm::vec3> scales;
  std::span<const std::uint32_t> mark;
  std::uint32_t stamp = 0;
  std::span<std::uint8_t> moved;  // scratch, node_count()
  std::span<Affine> output;       // node_count()

  bool validate() const noexcept;
  bool run() const noexcept;
};

// The joint palettes of every rig skin from the model-space pose (RigSkin): 3 rows per joint of
// skin k written to outputs[k]. One job per pose, not per skin: a character with many skinned
// meshes (RobotExpressive) pays one call.
struct PaletteJob {
  const Rig* rig = nullptr;
  std::span<const Affine> world;                  // LocalToModelJob::output
  std::span<const std::span<glm::vec4>> outputs;  // rig->skins.size(), each 3 × joints.size()
  // Non-temporal stores for 16-byte aligned outputs, fenced before run() returns: they skip the
  // cache, which pays only when a frame's palettes are larger than it (several MiB) and are next
  // read by an upload. Plain stores otherwise: streaming a few palettes that would have stayed
  // in the cache costs a small crowd a quarter of its update.
  bool stream = false;

  bool validate() const noexcept;
  bool run() const noexcept;
};

// Name of the affine kernel set the jobs use: "avx512vl" where the CPU has AVX2, FMA, AVX-512F
// and AVX-512VL, else "avx2+fma" where it has AVX2 and FMA, else "sse2" (GLTF_CROWD_SIMD=sse2
// or =avx2 asks for one of the last two). sse2 differs from the others in the last bits (FMA
// rounds once); avx512vl is avx2+fma's code with 32 registers, the same bits.
const char* affine_kernel_name() noexcept;

}  // namespace gltf_crowd
GLTF_CROWD_API_END
