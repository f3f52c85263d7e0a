// The GPU evaluator's inputs that animate() rebuilds whole when their generation moves: the
// application-driven poses (Crowd::node_overrides) and the animation layers' masks and references.
#include <algorithm>
#include <cstring>

#include "gl/gpu_animation_steps.hpp"

namespace gltf_crowd::gl {
namespace {

// A std430 node override (animation_shaders.cpp, struct NodeOverride): 4 vec4.
struct NodeOverrideRecord {
  glm::vec4 meta{0.0f};  // x: rig node (uint bits), y: weight
  glm::vec4 t{0.0f}, r{0.0f}, s{0.0f};
};
static_assert(sizeof(NodeOverrideRecord) == 64);

float uint_bits(std::uint32_t value) {
  float f;
  std::memcpy(&f, &value, sizeof f);
  return f;
}

}  // namespace

std::uint64_t upload_overrides(GpuAnimation& gpu, const Crowd& crowd) {
  const Rig& rig = gpu.rig;
  const std::size_t live = crowd.actor_count();
  std::vector<glm::uvec4> ranges(std::max<std::size_t>(live, 1), glm::uvec4(0u));
  std::vector<NodeOverrideRecord> nodes;
  std::vector<glm::vec4> morphs;
  for (std::size_t slot = 0; slot < live; ++slot) {
    glm::uvec4& range = ranges[slot];
    range.x = static_cast<std::uint32_t>(nodes.size());
    for (const NodeOverride& o : crowd.node_overrides(slot)) {
      const std::uint32_t a = rig.rig_node[o.node];
      if (a == kNotInRig) continue;
      const glm::quat& q = o.local.rotation;
      nodes.push_back({glm::vec4(uint_bits(a), o.weight, 0.0f, 0.0f), glm::vec4(o.local.translation, 0.0f),
                       glm::vec4(q.x, q.y, q.z, q.w), glm::vec4(o.local.scale, 0.0f)});
    }
    range.y = static_cast<std::uint32_t>(nodes.size()) - range.x;
    range.z = static_cast<std::uint32_t>(morphs.size());
    const std::span<const float> values = crowd.morph_override_values(slot);
    for (const MorphOverride& m : crowd.morph_overrides(slot))
      for (std::uint32_t i = 0; i < m.count; ++i)
        morphs.emplace_back(uint_bits(m.offset + i), values[m.values + i], m.weight, 0.0f);
    range.w = static_cast<std::uint32_t>(morphs.size()) - range.z;
  }
  gpu.has_overrides = !nodes.empty() || !morphs.empty();
  gpu.uploaded_overrides = crowd.overrides_generation();
  if (!gpu.has_overrides) {  // the passes skip the lookups; the bindings still need buffers
    if (!gpu.override_ranges) {
      gpu.override_ranges = make_static(std::vector<glm::uvec4>(1));
      gpu.node_overrides = make_static(std::vector<NodeOverrideRecord>(1));
      gpu.morph_overrides = make_static(std::vector<glm::vec4>(1));
    }
    return 0;
  }
  if (morphs.empty()) morphs.emplace_back(0.0f);  // a binding needs a buffer with storage
  if (nodes.empty()) nodes.emplace_back();
  gpu.override_ranges = make_static(ranges);
  gpu.node_overrides = make_static(nodes);
  gpu.morph_overrides = make_static(morphs);
  return ranges.size() * sizeof(glm::uvec4) + nodes.size() * sizeof(NodeOverrideRecord) +
         morphs.size() * sizeof(glm::vec4);
}

std::uint64_t upload_layer_tables(GpuAnimation& gpu, const Crowd& crowd) {
  const Rig& rig = gpu.rig;
  const Asset& asset = crowd.asset();
  const std::size_t n = rig.node_count();
  std::vector<std::uint32_t> weight_node(gpu.weight_count);  // the asset node whose mesh owns it
  for (std::uint32_t a = 0; a < asset.weight_counts.size(); ++a)
    for (std::uint32_t i = 0; i < asset.weight_counts[a]; ++i) weight_node[asset.weight_offsets[a] + i] = a;
  std::vector<float> tables(2);
  for (std::size_t m = 0; m < crowd.mask_count(); ++m) {
    const std::span<const float> mask = crowd.mask_weights_at(m);
    for (std::size_t i = 0; i < n; ++i) tables.push_back(mask[rig.asset_node[i]]);
    for (std::uint32_t a : weight_node) tables.push_back(mask[a]);
  }
  tables[0] = uint_bits(static_cast<std::uint32_t>(tables.size()));
  for (const AdditiveReference& ref : crowd.additive_references()) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t a = rig.asset_node[i];
      const glm::vec3& t = ref.translations[a];
      const glm::quat& q = ref.inverse_rotations[a];
      const glm::vec3& sc = ref.scales[a];
      tables.insert(tables.end(), {t.x, t.y, t.z, q.x, q.y, q.z, q.w, sc.x, sc.y, sc.z});
    }
    tables.insert(tables.end(), ref.weights.begin(), ref.weights.end());
  }
  tables[1] = uint_bits(static_cast<std::uint32_t>(tables.size()));
  for (std::uint32_t ref : crowd.first_key_references()) tables.push_back(uint_bits(ref));
  gpu.layer_tables = make_static(tables);
  gpu.uploaded_layer_tables = crowd.layer_tables_generation();
  return tables.size() * sizeof(float);
}

}  // namespace gltf_crowd::gl
