// The GPU evaluator behind CrowdRenderer for a crowd with Animation::gpu (docs/architecture.md
// "GPU animation"): the rig and every clip's tracks uploaded once into std430 storage buffers;
// per frame the changed PlaybackRecords (with their LayerRecords) and placements are uploaded and
// five compute passes (sample, weights, hierarchy, palette per skin, instances per stream) write
// the joint palettes, instance transforms and morph weights where the draw reads them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gl/gl_object.hpp"
#include "gl/state_cache.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/rig.hpp"

namespace gltf_crowd::gl {

// The compute programs, one per pass.
enum class AnimationPass : std::uint8_t { sample, weights, hierarchy, palette, instances };
inline constexpr std::size_t kAnimationPasses = 5;

// GLSL 4.30 source of one pass (animation_shaders.cpp).
std::string animation_compute_source(AnimationPass pass);

// Where one stream's outputs go: buffers the passes write (the renderer's own stream buffers
// with storage_buffer palettes, staging buffers copied into its textures otherwise).
struct AnimationTargets {
  GLuint transforms = 0;
  GLuint palette = 0;  // 0: the stream shares another's palette (or is rigid)
  GLuint weights = 0;  // 0: no morph weights

  bool operator==(const AnimationTargets&) const = default;
};

struct GpuAnimation {
  Rig rig;  // built as the crowd builds its draw rig, so rig order and palettes agree
  std::uint32_t weight_count = 0;
  std::vector<std::uint32_t> skin_first_joint;  // into the skin joint buffer, per Rig::skins
  std::vector<Object> programs;                 // per AnimationPass
  Object nodes, clip_nodes, channels, times, key_rows, clip_weights, rest_weights, skin_joints, dummy;
  Object records, tails, placements, locals, worlds, weights;
  // The application-driven poses (Crowd::node_overrides), flattened: per slot a uvec4 range,
  // then node and morph weight entries; rebuilt whole when overrides_generation moves.
  Object override_ranges, node_overrides, morph_overrides;
  std::uint64_t uploaded_overrides = 0;
  bool has_overrides = false;
  // Animation layers (Crowd::layer_records, kMaxLayers per slot of layer_capacity), made with
  // the first layer; and the masks, reference poses and first-key references they index, in rig
  // order, rebuilt whole when layer_tables_generation moves.
  Object layer_records, layer_tables;
  std::size_t layer_capacity = 0;
  std::uint64_t uploaded_layer_tables = 0;
  std::size_t capacity = 0;  // slots the records, tails and placements hold
  // Slots the scratch (locals, worlds, weights) holds: the passes run over the live slots in
  // batches of this many, so the scratch stays within GL_MAX_SHADER_STORAGE_BLOCK_SIZE and
  // kMaxBatch however large the crowd.
  std::size_t batch = 0;
  // Change tracking, as CrowdRenderer's: the generations the GPU copies hold.
  std::uint64_t uploaded_records = 0, uploaded_placements = 0;
  bool upload_everything = true;
  // What the last passes evaluated: when nothing was uploaded since and these agree, the targets
  // already hold the crowd's poses (a depth pass and the main pass of one frame).
  bool evaluated = false;
  std::array<std::uint64_t, 3> evaluated_generations{};  // packed, overrides, layer tables
  std::uint32_t evaluated_live = 0, evaluated_root_node = 0, evaluated_root_flags = 0;
  std::vector<AnimationTargets> evaluated_targets;
  std::uint64_t evaluations = 0;  // passes run so far: a change means the targets were rewritten
  std::vector<std::pair<std::uint32_t, std::uint32_t>> runs;  // scratch: [first, end) slot runs
  Object timer;                                               // GL_TIME_ELAPSED query
  bool timer_pending = false;
  // GL_TIMESTAMP queries of a timed run: stamps[0] before the first pass, then one after each
  // pass of each batch, whose pass stamp_passes[i - 1] names; stamps_used of them were issued.
  std::vector<Object> stamps;
  std::vector<AnimationPass> stamp_passes;
  std::size_t stamps_used = 0;

  template <class Fn>
  void for_each_object(Fn&& fn) {
    for (Object& p : programs) fn(p);
    for (Object* o : {&nodes,         &clip_nodes,   &channels, &times,           &key_rows,       &clip_weights,
                      &rest_weights,  &skin_joints,  &dummy,    &records,         &tails,          &placements,
                      &locals,        &worlds,       &weights,  &override_ranges, &node_overrides, &morph_overrides,
                      &layer_records, &layer_tables, &timer})
      fn(*o);
    for (Object& s : stamps) fn(s);
  }
};

// Throws Error (path `who`, rule "gl_version") naming the missing capability unless the current
// context runs compute shaders with 16 storage buffer bindings (desktop OpenGL 4.3).
void require_compute(const char* who);

// Compiles the passes and uploads the rig and clip tracks of `crowd`'s streams: the crowd's
// draw rig by default, or every node unframed (`options` {.all_nodes = true, .frame = false})
// for reading any node's pose back.
void build_gpu_animation(GpuAnimation& gpu, const Crowd& crowd, const RigOptions& options = {});

// Uploads the records (layer records included) and placements that changed (all after a
// (re)allocation) and the layer tables when they grew, runs the passes for the live slots and
// writes into `targets` (one per node stream; empty: only the local poses, morph weights and
// world matrices are computed, for read-back). Runs no pass when nothing was uploaded and the
// live slots, root motion options and targets are those of the last run, since the targets then
// hold these poses already. Returns the bytes uploaded.
// With `timed`, the passes run inside a GL_TIME_ELAPSED query whose result gpu_milliseconds reads,
// unless the application's own GL_TIME_ELAPSED query is running (queries do not nest): then
// gpu_milliseconds reads -1.
std::uint64_t animate(GpuAnimation& gpu, StateCache& cache, const Crowd& crowd,
                      std::span<const AnimationTargets> targets, bool timed);

// Reads the live slots' locals (3 vec4 per slot × rig node), world′ rows (3 vec4 each) and morph
// weights back after animate(); waits for the GPU. Throws Error "palette_too_large" when the
// live slots took more than one batch (only the last one is left in the scratch).
void read_scratch(const GpuAnimation& gpu, std::size_t live, std::vector<glm::vec4>& locals,
                  std::vector<glm::vec4>& worlds, std::vector<float>& weights);

// The last timed animate()'s GPU milliseconds, in all and pass by pass (summed over batches);
// waits for the GPU. All negative when none ran.
struct GpuMilliseconds {
  double total = -1.0;
  std::array<double, kAnimationPasses> passes{-1.0, -1.0, -1.0, -1.0, -1.0};
};
GpuMilliseconds gpu_milliseconds(GpuAnimation& gpu);

}  // namespace gltf_crowd::gl
