// GPU objects behind CrowdRenderer.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gl/gl_object.hpp"
#include "gl/gpu_animation.hpp"
#include "gl/material.hpp"
#include "gl/palette_store.hpp"
#include "gl/primitive_upload.hpp"
#include "gl/state_cache.hpp"
#include "gltf_crowd/gl_renderers.hpp"

namespace gltf_crowd::gl {

// Uniform locations of the crowd vertex shader (shaders.cpp, crowd_vertex_body and preludes).
struct CrowdUniforms {
  GLint view_projection = -1, skinned = -1, eight_influences = -1, target_count = -1, vertex_count = -1,
        normal_block = -1, tangent_block = -1, joint_count = -1, weight_quads = -1,  // storage buffer prelude
      delta_width = -1,                                                              // texture prelude
      instance_offset = -1;                                                          // both preludes
  GLint previous_view_projection = -1, remap_slots = -1;                             // velocity program
  GLint skinned_width = -1;                                                          // cached programs, texture path
  GLint skinned_first = -1;                                                          // cached programs
};

// The crowd programs: the color pass's, the depth pass's with cutouts (MASK materials, groups
// that cull per instance) and without (every other group: no discard, so the depth test may
// run before the fragment shader, or the shader not at all), the velocity pass's.
enum class ProgramKind : std::uint8_t { color, depth, depth_opaque, velocity };
inline constexpr std::size_t kProgramKinds = 4;

// A linked crowd program and its uniform locations.
struct CrowdProgram {
  Object program;
  CrowdUniforms uniforms;
  MaterialUniforms material;
};

// draw_velocity (docs/spec.md §6.4): the stream set holding the previous frame. Once
// draw_velocity was first called the renderer keeps two sets and swaps them when the crowd's
// frame() moves, so the previous frame's arrays stay where they were written, without a copy;
// the set that becomes current then receives the slots changed since it last was.
struct MotionHistory {
  std::vector<StreamGpu> streams;
  std::uint64_t uploaded_generation = 0;  // as CrowdRenderer::State's, for this set
  bool upload_everything = true;
  bool valid = false;  // `streams` hold a whole earlier frame; else draw_velocity uses this one's
  // The actors the set was written for: Crowd::actor_serials per slot, taken when
  // Crowd::membership_generation moved.
  std::uint64_t membership = ~std::uint64_t{0};
  std::vector<std::uint64_t> serials;
  // Per slot of this frame: the slot its actor had in `streams`, or kNewActor; uploaded when the
  // sets' memberships differ (actors added or removed in between).
  static constexpr std::uint32_t kNewActor = 0xFFFFFFFFu;
  Object previous_slots;
  std::size_t previous_slots_capacity = 0;
  std::vector<std::uint32_t> remap;                          // scratch
  std::unordered_map<std::uint64_t, std::uint32_t> slot_of;  // scratch: serial → previous slot
};

// CrowdRendererOptions::skinned_vertex_cache (docs/spec.md §6.9): per primitive group, its
// instances' vertices morphed, skinned and placed once by transform feedback, 48 bytes each
// (shaders.hpp skinned_outputs), read by the color and depth passes until the streams, the slot
// lists or the group's primitive change. The rows lie in pieces of `piece` instances, each its
// own buffer (and texture, on the texture path) and one draw, so that no group is bounded by
// GL_MAX_SHADER_STORAGE_BLOCK_SIZE or GL_MAX_TEXTURE_SIZE.
struct SkinnedVertices {
  std::vector<Object> buffers;     // piece k's rows, as transform feedback writes them
  std::vector<Object> textures;    // texture path: piece k's rows copied into RGBA32F rows
  std::uint32_t vertex_count = 0;  // per instance, that the objects were sized for
  std::size_t capacity = 0;        // instances the objects hold
  std::size_t piece = 0;           // instances per piece
  std::uint32_t primitive = ~0u;   // the PrimitiveGpu the rows were captured from (~0u: none)
  std::uint32_t stream = ~0u;      // and the node stream (transforms, palette, weights)
};

// Texels per row, and rows at most, of a texture-path piece of the skinned-vertex cache: OpenGL
// ES 3.0's least GL_MAX_TEXTURE_SIZE, so a piece (64 MiB) fits every driver.
inline constexpr GLint kSkinnedTextureSide = 2048;

struct SkinnedVertexCache {
  CrowdProgram capture;  // skin_vertex_source: deforms and captures
  Object feedback;       // the transform feedback object the capture binds its buffers to
  // By ProgramKind (but velocity): cached_vertex_source with the pass's fragment shader, built
  // on first use.
  std::array<CrowdProgram, kProgramKinds - 1> programs;
  std::vector<SkinnedVertices> groups;
  GLsizei texture_width = 0;  // texels per row (and most rows) of the texture path's textures
  // Something the captured rows depend on changed since the last capture: stream rows or a GPU
  // evaluation, slot lists, the current stream set.
  bool stale = true;
};

}  // namespace gltf_crowd::gl

namespace gltf_crowd {

struct CrowdRenderer::State {
  void* egl_context = nullptr;  // context current at creation
  PaletteStorage storage = PaletteStorage::storage_buffer;
  gl::StorageLimits limits;
  // By gl::ProgramKind: the color program is built at construction, the others on first use
  // (velocity together with `history`).
  std::array<gl::CrowdProgram, gl::kProgramKinds> programs;
  std::unique_ptr<gl::MotionHistory> history;
  std::unique_ptr<gl::SkinnedVertexCache> skinned;  // CrowdRendererOptions::skinned_vertex_cache
  std::uint64_t frame = 0;                          // Crowd::frame() the current set was last brought up to date at
  bool current_prepared = false;                    // a pass brought the current set up to date since it became current
  // The current set's actors, as MotionHistory::membership and serials (kept once `history` is).
  std::uint64_t membership = ~std::uint64_t{0};
  std::vector<std::uint64_t> serials;
  gl::Object dummy;  // storage path: bound to storage bindings a draw does not read
  std::vector<gl::PrimitiveGpu> primitives;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> primitive_index;  // (mesh, prim)
  std::vector<gl::DrawableGpu> drawables;
  // (mesh, primitive, level): a level's indices are the same for every node drawing that mesh.
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::uint32_t> drawable_index;
  gl::MaterialTextures textures;
  std::vector<gl::StreamGpu> streams;
  std::vector<gl::GroupGpu> groups;
  gl::StateCache cache;
  // Upload only what changed (Crowd::slot_generations): the crowd generation the GPU copies
  // hold, unless new objects must first receive every live slot.
  std::uint64_t uploaded_generation = 0;
  bool upload_everything = true;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> dirty_runs;  // [first, end) slot runs
  // Per-slot tints (Crowd::tints), uploaded as the rows are: the slots whose appearance
  // generation exceeds `uploaded_appearance`, everything after the object was (re)created.
  gl::TintGpu tints;
  std::uint64_t uploaded_appearance = 0;
  bool upload_all_tints = true;
  // Animation::gpu: the evaluator, built for `animated_streams` streams (LOD may add some), and
  // with texture storage the buffers its passes write, copied into the stream textures.
  std::unique_ptr<gl::GpuAnimation> animation;
  std::size_t animated_streams = 0;
  std::unique_ptr<gl::GpuAnimation> pose_reader;  // every node, unframed (read_poses)
  std::vector<gl::StreamGpu> staging;
  std::vector<gl::AnimationTargets> targets;

  // Calls fn(gl::Object&) for every owned object.
  template <class Fn>
  void for_each_object(Fn&& fn) {
    for (auto& p : programs) fn(p.program);
    fn(dummy);
    for (auto& p : primitives) {
      fn(p.vertices);
      fn(p.morph_deltas);
    }
    for (auto& d : drawables) {
      fn(d.indices);
      fn(d.vertex_array);
    }
    textures.for_each_object(fn);
    for (auto& s : streams) {
      fn(s.transforms);
      fn(s.palette);
      fn(s.weights);
    }
    for (auto& g : groups) fn(g.instances);
    fn(tints.tints);
    if (history) {
      for (auto& s : history->streams) {
        fn(s.transforms);
        fn(s.palette);
        fn(s.weights);
      }
      fn(history->previous_slots);
    }
    if (skinned) {
      fn(skinned->capture.program);
      fn(skinned->feedback);
      for (auto& p : skinned->programs) fn(p.program);
      for (auto& g : skinned->groups) {
        for (auto& b : g.buffers) fn(b);
        for (auto& t : g.textures) fn(t);
      }
    }
    if (animation) animation->for_each_object(fn);
    if (pose_reader) pose_reader->for_each_object(fn);
    for (auto& s : staging) {
      fn(s.transforms);
      fn(s.palette);
      fn(s.weights);
    }
  }
};

}  // namespace gltf_crowd
