// The per-frame data of CrowdRenderer in either palette storage (docs/spec.md §6): per NodeStream the
// instance transforms, joint palette and morph weights, per primitive group its slot list.
// Storage buffers hold the NodeStream arrays byte for byte; textures hold the same bytes as
// RGBA32F texel rows, one row per slot (3 texels per transform, 3 per joint, 1 per 4 weights),
// so both are uploaded straight from the crowd's arrays without a repack.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "gl/gl_object.hpp"
#include "gl/state_cache.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/gl_renderers.hpp"

namespace gltf_crowd::gl {

// Driver limits the storages must respect, queried once at renderer creation.
struct StorageLimits {
  GLint64 max_storage_block_bytes = 0;  // GL_MAX_SHADER_STORAGE_BLOCK_SIZE (storage buffers)
  GLint max_texture_size = 0;           // GL_MAX_TEXTURE_SIZE (textures)
};

// GPU copies of one NodeStream: buffers or textures, per storage.
struct StreamGpu {
  Object transforms;
  Object palette;            // absent for rigid streams
  Object weights;            // absent without morph weights
  std::size_t capacity = 0;  // slots the objects hold
};

// A run of a group's uploaded slot list drawn with one material (docs/spec.md §5.11).
struct MaterialPartition {
  std::int32_t material = -1;  // Asset::materials index, -1 = the glTF default material
  std::uint32_t first = 0;     // first instance in the uploaded slot list
  std::uint32_t count = 0;     // instances
};

// Per primitive group: its slot list and which drawable it draws.
struct GroupGpu {
  Object instances;                     // uint32 slot per instance: buffer or R32UI texture
  std::size_t capacity = 0;             // instances the object holds
  std::vector<std::uint32_t> uploaded;  // what it holds, to upload only on change
  std::uint32_t drawable = 0;           // index into CrowdRenderer::State::drawables
  // This frame's draws: one partition per material its instances' variants select, and, when
  // there is more than one, the instances reordered so each partition is contiguous. Scratch
  // reused every frame: it allocates only while it grows.
  std::vector<MaterialPartition> partitions;
  std::vector<std::uint32_t> ordered;
};

// Splits `instances` of a group drawing `primitive` into gpu.partitions by the material each
// slot's variant (variants[slot], Crowd::material_variants) selects, in order of first
// appearance, and returns the slot list to upload: `instances` itself when one material serves
// them all (always for a primitive without KHR_materials_variants mappings), else gpu.ordered.
std::span<const std::uint32_t> partition_by_material(GroupGpu& gpu, const Primitive& primitive,
                                                     std::span<const std::uint32_t> instances,
                                                     std::span<const std::uint32_t> variants);

// (Re)allocates `gpu` for `capacity` slots of `stream` when it holds fewer. Throws Error
// "palette_too_large" (path "node_streams[node N].<array>") naming GL_MAX_SHADER_STORAGE_BLOCK_SIZE
// or GL_MAX_TEXTURE_SIZE when an array cannot fit; `gpu` is unchanged then. Returns whether it
// allocated new objects (which hold nothing yet). A stream that shares another's palette
// (`owns_palette` false: its palette_stream is another) gets no palette object.
bool reserve_stream(StreamGpu& gpu, const NodeStream& stream, bool owns_palette, std::size_t capacity,
                    PaletteStorage storage, const StorageLimits& limits);

// The same for a group's slot list of up to `capacity` instances; `node` names it in errors.
void reserve_instances(GroupGpu& gpu, std::uint32_t node, std::size_t capacity, PaletteStorage storage,
                       const StorageLimits& limits);

// Uploads slots [first, first + count) of every array of `stream` (within gpu.capacity).
void upload_stream(StateCache& cache, const StreamGpu& gpu, const NodeStream& stream, std::size_t first,
                   std::size_t count, PaletteStorage storage);

// Uploads `slots` (size <= gpu.capacity) when they differ from what the group holds.
void upload_instances(StateCache& cache, GroupGpu& gpu, std::span<const std::uint32_t> slots, PaletteStorage storage);

// Runs [first, end) of consecutive slots whose generation exceeds `since` (every slot with
// `everything`); runs closer than 8 slots are merged, since one call moving more bytes costs less
// than two. Reuses `runs`' storage.
void changed_runs(std::span<const std::uint64_t> generations, std::uint64_t since, bool everything,
                  std::vector<std::pair<std::uint32_t, std::uint32_t>>& runs);

// The crowd's per-slot tints (Crowd::tints) on the GPU: a std430 vec4 array (storage binding
// binding::tints) or an RGBA32F texture of one texel per row, row = slot (unit::tints).
struct TintGpu {
  Object tints;
  std::size_t capacity = 0;  // slots it holds
};

// (Re)allocates `gpu` for `capacity` slots when it holds fewer; returns whether it did (the new
// object holds nothing yet). Error "palette_too_large" (path "Crowd::tints") past the limits.
bool reserve_tints(TintGpu& gpu, std::size_t capacity, PaletteStorage storage, const StorageLimits& limits);

// Uploads tints[first, end) of every run.
void upload_tints(StateCache& cache, const TintGpu& gpu, std::span<const glm::vec4> tints,
                  std::span<const std::pair<std::uint32_t, std::uint32_t>> runs, PaletteStorage storage);

}  // namespace gltf_crowd::gl
