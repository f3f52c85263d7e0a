// What the GPU evaluator's files share (gpu_animation.cpp runs the passes, gpu_animation_build.cpp
// uploads the rig and clips, gpu_overrides_and_layers.cpp the application's poses and layer tables).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gl/gpu_animation.hpp"

namespace gltf_crowd::gl {

// A buffer holding `data` for the passes to read; at least 16 bytes, so that it can be bound.
template <class T>
Object make_static(const std::vector<T>& data) {
  Object buffer = make_buffer();
  glBindBuffer(GL_COPY_WRITE_BUFFER, buffer.name());
  const std::size_t bytes = data.size() * sizeof(T);
  // An empty array still gets a 16-byte buffer: a binding must name a buffer with storage.
  std::vector<unsigned char> zeros(16, 0);
  glBufferData(GL_COPY_WRITE_BUFFER, static_cast<GLsizeiptr>(bytes < 16 ? 16 : bytes),
               bytes < 16 ? static_cast<const void*>(zeros.data()) : static_cast<const void*>(data.data()),
               GL_STATIC_DRAW);
  if (bytes > 0 && bytes < 16) glBufferSubData(GL_COPY_WRITE_BUFFER, 0, static_cast<GLsizeiptr>(bytes), data.data());
  check_gl("glBufferData(GL_STATIC_DRAW)");
  return buffer;
}

// gpu_animation.cpp
// Grows the records, tails and placements to `capacity` slots (every slot uploaded again then) and
// sizes the scratch for one batch. Error "palette_too_large" when not one tile of slots fits.
void reserve_slots(GpuAnimation& gpu, std::size_t capacity);

// gpu_overrides_and_layers.cpp
// Flattens every slot's overrides (dropping nodes the rig leaves out) and uploads them whole.
// Returns the bytes uploaded.
std::uint64_t upload_overrides(GpuAnimation& gpu, const Crowd& crowd);
// The tables layer records index (animation_shaders.cpp, kLayers), rig-ordered, uploaded whole.
// Returns the bytes uploaded.
std::uint64_t upload_layer_tables(GpuAnimation& gpu, const Crowd& crowd);

}  // namespace gltf_crowd::gl
