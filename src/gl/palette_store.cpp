// Allocation (with the limit checks docs/spec.md §6 asks for: an error, never a per-actor fallback)
// and per-frame upload of the crowd's packed arrays, in storage buffers or data textures.
#include "gl/palette_store.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "gl/primitive_upload.hpp"
#include "gltf_crowd/error.hpp"

namespace gltf_crowd::gl {
namespace {

constexpr std::size_t row_bytes = 3 * sizeof(glm::vec4);  // one affine matrix: 48 bytes

std::string where(std::uint32_t node, const char* array) {
  return fmt::format("node_streams[node {}].{}", node, array);
}

void check_block(std::size_t bytes, const StorageLimits& limits, std::uint32_t node, const char* array,
                 const std::string& shape) {
  if (bytes > static_cast<std::uint64_t>(limits.max_storage_block_bytes)) {
    throw Error(where(node, array), Rule::palette_too_large,
                fmt::format("{} = {} bytes exceed GL_MAX_SHADER_STORAGE_BLOCK_SIZE = {}", shape, bytes,
                            limits.max_storage_block_bytes));
  }
}

void check_texture(std::size_t width, std::size_t height, const StorageLimits& limits, std::uint32_t node,
                   const char* array, const char* width_meaning) {
  const auto max = static_cast<std::size_t>(limits.max_texture_size);
  if (height > max) {
    throw Error(where(node, array), Rule::palette_too_large,
                fmt::format("capacity {} (one texel row per slot) exceeds GL_MAX_TEXTURE_SIZE = {}", height, max));
  }
  if (width > max) {
    throw Error(where(node, array), Rule::palette_too_large,
                fmt::format("{} = {} texels per row exceed GL_MAX_TEXTURE_SIZE = {}", width_meaning, width, max));
  }
}

}  // namespace

bool reserve_stream(StreamGpu& gpu, const NodeStream& stream, bool owns_palette, std::size_t capacity,
                    PaletteStorage storage, const StorageLimits& limits) {
  if (gpu.transforms && gpu.capacity >= capacity) return false;
  const std::uint32_t node = stream.node;
  const std::size_t joints = owns_palette ? stream.joint_count : 0;
  const std::size_t quads = stream.weight_stride / 4;
  StreamGpu fresh;
  fresh.capacity = std::max<std::size_t>(capacity, 1);
  const std::size_t slots = fresh.capacity;
  if (storage == PaletteStorage::storage_buffer) {
    check_block(slots * row_bytes, limits, node, "transforms", fmt::format("{} slots × 48", slots));
    check_block(slots * joints * row_bytes, limits, node, "palette",
                fmt::format("{} slots × {} joints × 48", slots, joints));
    check_block(slots * quads * sizeof(glm::vec4), limits, node, "weights",
                fmt::format("{} slots × {} weights × 4", slots, quads * 4));
    fresh.transforms = make_dynamic_buffer(slots * row_bytes);
    if (joints > 0) fresh.palette = make_dynamic_buffer(slots * joints * row_bytes);
    if (quads > 0) fresh.weights = make_dynamic_buffer(slots * quads * sizeof(glm::vec4));
  } else {
    check_texture(3, slots, limits, node, "transforms", "3 texels per transform");
    check_texture(3 * joints, slots, limits, node, "palette", "3 texels × joints");
    check_texture(quads, slots, limits, node, "weights", "morph weights / 4");
    const auto rows = static_cast<std::uint32_t>(slots);
    fresh.transforms = make_data_texture(3, rows);
    if (joints > 0) fresh.palette = make_data_texture(static_cast<std::uint32_t>(3 * joints), rows);
    if (quads > 0) fresh.weights = make_data_texture(static_cast<std::uint32_t>(quads), rows);
    glBindTexture(GL_TEXTURE_2D, 0);
  }
  gpu = std::move(fresh);
  return true;
}

void reserve_instances(GroupGpu& gpu, std::uint32_t node, std::size_t capacity, PaletteStorage storage,
                       const StorageLimits& limits) {
  if (gpu.instances && gpu.capacity >= capacity) return;
  const std::size_t count = std::max<std::size_t>(capacity, 1);
  Object fresh;
  if (storage == PaletteStorage::storage_buffer) {
    check_block(count * sizeof(std::uint32_t), limits, node, "instances", fmt::format("{} instances × 4", count));
    fresh = make_dynamic_buffer(count * sizeof(std::uint32_t));
  } else {
    check_texture(1, count, limits, node, "instances", "1 texel per instance");
    fresh = make_data_texture(1, static_cast<std::uint32_t>(count), true);
    glBindTexture(GL_TEXTURE_2D, 0);
  }
  gpu.instances = std::move(fresh);
  gpu.capacity = count;
  gpu.uploaded.clear();  // the new object holds nothing yet
}

void upload_stream(StateCache& cache, const StreamGpu& gpu, const NodeStream& stream, std::size_t first,
                   std::size_t count, PaletteStorage storage) {
  if (count == 0) return;
  const std::size_t joints = stream.joint_count;
  const std::size_t quads = stream.weight_stride / 4;
  const std::size_t palette_row = joints * row_bytes, weight_row = quads * sizeof(glm::vec4);
  const auto bytes = [](const auto& v) { return reinterpret_cast<const std::uint8_t*>(v.data()); };
  if (storage == PaletteStorage::storage_buffer) {
    cache.upload(gpu.transforms.name(), static_cast<GLsizeiptr>(count * row_bytes),
                 bytes(stream.transforms) + first * row_bytes, static_cast<GLintptr>(first * row_bytes));
    if (gpu.palette) {
      cache.upload(gpu.palette.name(), static_cast<GLsizeiptr>(count * palette_row),
                   bytes(stream.palette) + first * palette_row, static_cast<GLintptr>(first * palette_row));
    }
    if (gpu.weights) {
      cache.upload(gpu.weights.name(), static_cast<GLsizeiptr>(count * weight_row),
                   bytes(stream.weights) + first * weight_row, static_cast<GLintptr>(first * weight_row));
    }
    return;
  }
  const auto rows = static_cast<GLsizei>(count);
  const auto y = static_cast<GLint>(first);
  cache.upload_texture(unit::transforms, gpu.transforms.name(), 3, rows, false,
                       bytes(stream.transforms) + first * row_bytes, y);
  if (gpu.palette) {
    cache.upload_texture(unit::palette, gpu.palette.name(), static_cast<GLsizei>(3 * joints), rows, false,
                         bytes(stream.palette) + first * palette_row, y);
  }
  if (gpu.weights) {
    cache.upload_texture(unit::morph_weights, gpu.weights.name(), static_cast<GLsizei>(quads), rows, false,
                         bytes(stream.weights) + first * weight_row, y);
  }
}

void upload_instances(StateCache& cache, GroupGpu& gpu, std::span<const std::uint32_t> slots, PaletteStorage storage) {
  if (slots.empty() || std::equal(slots.begin(), slots.end(), gpu.uploaded.begin(), gpu.uploaded.end())) {
    return;
  }
  if (storage == PaletteStorage::storage_buffer) {
    cache.upload(gpu.instances.name(), static_cast<GLsizeiptr>(slots.size_bytes()), slots.data());
  } else {
    cache.upload_texture(unit::instances, gpu.instances.name(), 1, static_cast<GLsizei>(slots.size()), true,
                         slots.data());
  }
  gpu.uploaded.assign(slots.begin(), slots.end());
}

std::span<const std::uint32_t> partition_by_material(GroupGpu& gpu, const Primitive& primitive,
                                                     std::span<const std::uint32_t> instances,
                                                     std::span<const std::uint32_t> variants) {
  auto& parts = gpu.partitions;
  parts.clear();
  const auto count = static_cast<std::uint32_t>(instances.size());
  if (primitive.variant_materials.empty()) {
    parts.push_back({primitive.material, 0, count});
    return instances;
  }
  const auto find = [&parts](std::int32_t material) {
    std::size_t k = 0;
    while (k < parts.size() && parts[k].material != material) ++k;
    return k;
  };
  for (const std::uint32_t slot : instances) {
    const std::int32_t material = primitive.material_for(variants[slot]);
    const std::size_t k = find(material);
    if (k == parts.size()) parts.push_back({material, 0, 0});
    ++parts[k].count;
  }
  if (parts.size() <= 1) return instances;
  std::uint32_t first = 0;
  for (MaterialPartition& part : parts) {
    part.first = first;
    first += part.count;
    part.count = 0;  // the fill cursor below; it ends at the count again
  }
  gpu.ordered.resize(instances.size());
  for (const std::uint32_t slot : instances) {
    MaterialPartition& part = parts[find(primitive.material_for(variants[slot]))];
    gpu.ordered[part.first + part.count++] = slot;
  }
  return gpu.ordered;
}

void changed_runs(std::span<const std::uint64_t> generations, std::uint64_t since, bool everything,
                  std::vector<std::pair<std::uint32_t, std::uint32_t>>& runs) {
  constexpr std::uint32_t kMergeGap = 8;
  runs.clear();
  const auto live = static_cast<std::uint32_t>(generations.size());
  if (everything) {
    if (live > 0) runs.emplace_back(0, live);
    return;
  }
  for (std::uint32_t slot = 0; slot < live; ++slot) {
    if (generations[slot] <= since) continue;
    if (!runs.empty() && slot - runs.back().second < kMergeGap)
      runs.back().second = slot + 1;
    else
      runs.emplace_back(slot, slot + 1);
  }
}

bool reserve_tints(TintGpu& gpu, std::size_t capacity, PaletteStorage storage, const StorageLimits& limits) {
  if (gpu.tints && gpu.capacity >= capacity) return false;
  const std::size_t slots = std::max<std::size_t>(capacity, 1);
  Object fresh;
  if (storage == PaletteStorage::storage_buffer) {
    const std::size_t bytes = slots * sizeof(glm::vec4);
    if (bytes > static_cast<std::uint64_t>(limits.max_storage_block_bytes))
      throw Error("Crowd::tints", Rule::palette_too_large,
                  fmt::format("{} slots × 16 = {} bytes exceed GL_MAX_SHADER_STORAGE_BLOCK_SIZE = {}", slots, bytes,
                              limits.max_storage_block_bytes));
    fresh = make_dynamic_buffer(bytes);
  } else {
    if (slots > static_cast<std::size_t>(limits.max_texture_size))
      throw Error("Crowd::tints", Rule::palette_too_large,
                  fmt::format("capacity {} (one texel row per slot) exceeds GL_MAX_TEXTURE_SIZE = {}", slots,
                              limits.max_texture_size));
    fresh = make_data_texture(1, static_cast<std::uint32_t>(slots));
    glBindTexture(GL_TEXTURE_2D, 0);
  }
  gpu.tints = std::move(fresh);
  gpu.capacity = slots;
  return true;
}

void upload_tints(StateCache& cache, const TintGpu& gpu, std::span<const glm::vec4> tints,
                  std::span<const std::pair<std::uint32_t, std::uint32_t>> runs, PaletteStorage storage) {
  for (const auto& [first, end] : runs) {
    if (storage == PaletteStorage::storage_buffer) {
      cache.upload(gpu.tints.name(), static_cast<GLsizeiptr>((end - first) * sizeof(glm::vec4)), tints.data() + first,
                   static_cast<GLintptr>(first * sizeof(glm::vec4)));
    } else {
      cache.upload_texture(unit::tints, gpu.tints.name(), 1, static_cast<GLsizei>(end - first), false,
                           tints.data() + first, static_cast<GLint>(first));
    }
  }
}

}  // namespace gltf_crowd::gl
