// The per-frame data of CrowdRenderer in either palette storage (docs/spec.md §6): per NodeStream the
// instance transforms, joint palette and morph weights, per primitive group its slot list.
// Storage buffers hold the NodeStream arrays byte for byte; textures hold the same bytes as
// RGBA32F texel rows, one row per slot (3 texels per transform, 3 per joint, 1 per 4 weights),
// so both are uploaded straight from the crowd's arrays without a repack.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
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

// Per primitive group: its slot list and which drawable it draws.
struct GroupGpu {
  Object instances;                     // uint32 slot per instance: buffer or R32UI texture
  std::size_t capacity = 0;             // instances the object holds
  std::vector<std::uint32_t> uploaded;  // what it holds, to upload only on change
  std::uint32_t drawable = 0;           // index into CrowdRenderer::State::drawables
};

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

}  // namespace gltf_crowd::gl
