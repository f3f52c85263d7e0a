#include "crowd/evaluation_plan.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_map>

namespace gltf_crowd {
namespace {

std::vector<bool> animated_nodes(const Asset& asset) {
  std::vector<bool> animated(asset.nodes.size(), false);
  for (const Clip& clip : asset.clips)
    for (const Channel& channel : clip.channels)
      if (channel.path != ChannelPath::weights) animated[channel.node] = true;
  return animated;
}

// Rewrites one clip against the dense numbering; channels of nodes outside it are dropped, and
// channels keyed at equal times share one timeline (so one key lookup serves all of them).
ClipPlan plan_clip(const Asset& asset, const Clip& clip, const std::vector<bool>& needed,
                   const std::vector<std::uint32_t>& dense) {
  ClipPlan plan;
  std::unordered_map<std::string_view, std::uint32_t> timeline_of;  // key bytes → timeline
  for (const Channel& channel : clip.channels) {
    BoundChannel out;
    out.path = channel.path;
    out.interpolation = channel.interpolation;
    out.values_offset = channel.values_offset;
    out.components = channel.components;
    if (channel.path == ChannelPath::weights) {
      if (asset.weight_counts[channel.node] == 0) continue;
      out.target = asset.weight_offsets[channel.node];
    } else {
      if (!needed[channel.node]) continue;
      out.target = dense[channel.node];
      plan.animated.push_back(out.target);
    }
    const std::string_view times(reinterpret_cast<const char*>(clip.times.data() + channel.times_offset),
                                 channel.key_count * sizeof(float));
    const auto [it, inserted] = timeline_of.emplace(times, static_cast<std::uint32_t>(plan.timelines.size()));
    if (inserted) plan.timelines.push_back({channel.times_offset, channel.key_count});
    out.timeline = it->second;
    plan.channels.push_back(out);
  }
  // Interleave each timeline's channels key by key (BoundChannel): a frame reads two adjacent
  // rows instead of two keys from each channel's own array.
  const auto per_key = [](const BoundChannel& ch) {
    return ch.interpolation == Interpolation::cubic_spline ? 3 * ch.components : ch.components;
  };
  std::vector<std::uint32_t> row_floats(plan.timelines.size(), 0), in_row(plan.channels.size());
  for (std::size_t i = 0; i < plan.channels.size(); ++i) {
    in_row[i] = row_floats[plan.channels[i].timeline];
    row_floats[plan.channels[i].timeline] += per_key(plan.channels[i]);
  }
  std::vector<std::size_t> block(plan.timelines.size(), 0);
  std::size_t size = 0;
  for (std::size_t t = 0; t < plan.timelines.size(); ++t) {
    block[t] = size;
    size += std::size_t{row_floats[t]} * plan.timelines[t].key_count;
  }
  plan.key_rows.resize(size);
  for (std::size_t i = 0; i < plan.channels.size(); ++i) {
    BoundChannel& ch = plan.channels[i];
    const std::uint32_t floats = per_key(ch), row = row_floats[ch.timeline];
    const float* source = clip.values.data() + ch.values_offset;
    float* target = plan.key_rows.data() + block[ch.timeline] + in_row[i];
    for (std::uint32_t k = 0; k < plan.timelines[ch.timeline].key_count; ++k)
      std::copy_n(source + std::size_t{k} * floats, floats, target + std::size_t{k} * row);
    ch.values_offset = static_cast<std::uint32_t>(block[ch.timeline] + in_row[i]);
    ch.key_stride = row;
  }
  std::sort(plan.animated.begin(), plan.animated.end());
  plan.animated.erase(std::unique(plan.animated.begin(), plan.animated.end()), plan.animated.end());
  return plan;
}

}  // namespace

EvaluationPlan make_evaluation_plan(const Asset& asset, std::vector<NodeStream>& streams) {
  EvaluationPlan plan;
  plan.kernels = &affine_kernels();
  std::vector<bool> needed(asset.nodes.size(), false);
  const auto mark_with_ancestors = [&](std::uint32_t n) {
    for (std::int32_t i = static_cast<std::int32_t>(n); i >= 0 && !needed[static_cast<std::size_t>(i)];
         i = asset.nodes[static_cast<std::size_t>(i)].parent)
      needed[static_cast<std::size_t>(i)] = true;
  };
  for (const NodeStream& stream : streams) {
    mark_with_ancestors(stream.node);
    if (stream.joint_count > 0)
      for (std::uint32_t j : asset.skins[static_cast<std::size_t>(asset.nodes[stream.node].skin)].joints) mark_with_ancestors(j);
  }
  plan.dense.assign(asset.nodes.size(), 0);
  for (std::uint32_t n : asset.hierarchy_order) {
    if (!needed[n]) continue;
    const Node& node = asset.nodes[n];
    plan.dense[n] = static_cast<std::uint32_t>(plan.order.size());
    plan.order.push_back(n);
    plan.parent.push_back(node.parent >= 0 ? static_cast<std::int32_t>(plan.dense[static_cast<std::size_t>(node.parent)]) : -1);
    plan.rest_local.push_back(to_affine(asset.local_matrix(n)));
    plan.rest_translation.push_back(node.translation);
    plan.rest_rotation.push_back(node.rotation);
    plan.rest_scale.push_back(node.scale);
  }
  for (const Clip& clip : asset.clips) {
    plan.clips.push_back(plan_clip(asset, clip, needed, plan.dense));
    plan.max_timelines = std::max(plan.max_timelines, plan.clips.back().timelines.size());
  }

  const std::vector<bool> animated = animated_nodes(asset);
  std::vector<std::int32_t> palette_of_stream(streams.size(), -1);  // own palettes only
  for (std::size_t s = 0; s < streams.size(); ++s) {
    NodeStream& stream = streams[s];
    stream.palette_stream = static_cast<std::uint32_t>(s);
    if (stream.joint_count == 0) continue;
    const Skin& skin = asset.skins[static_cast<std::size_t>(asset.nodes[stream.node].skin)];
    PalettePlan p;
    p.stream = static_cast<std::uint32_t>(s);
    p.mesh_node = plan.dense[stream.node];
    for (std::uint32_t j : skin.joints) p.joints.push_back(plan.dense[j]);
    for (const glm::mat4& ibm : skin.inverse_bind_matrices) p.inverse_binds.push_back(to_affine(ibm));
    p.static_mesh = true;
    glm::mat4 mesh_world(1.0f);
    for (std::int32_t i = static_cast<std::int32_t>(stream.node); i >= 0; i = asset.nodes[static_cast<std::size_t>(i)].parent) {
      const auto n = static_cast<std::size_t>(i);
      if (animated[n]) p.static_mesh = false;
      mesh_world = asset.local_matrix(static_cast<std::uint32_t>(n)) * mesh_world;
    }
    p.mesh_world = to_affine(mesh_world);
    // A singular static mesh world is treated as "not static": the general path handles it.
    if (p.static_mesh && abs_determinant(p.mesh_world) <= 1e-12f) p.static_mesh = false;
    bool shared = false;
    for (std::size_t q = 0; q < plan.palettes.size() && p.static_mesh && !shared; ++q) {
      const PalettePlan& other = plan.palettes[q];
      if (other.static_mesh && other.joints == p.joints &&
          std::memcmp(&other.mesh_world, &p.mesh_world, sizeof(Affine)) == 0 &&
          std::memcmp(other.inverse_binds.data(), p.inverse_binds.data(), p.inverse_binds.size() * sizeof(Affine)) == 0) {
        stream.palette_stream = other.stream;
        shared = true;
      }
    }
    if (shared) continue;
    palette_of_stream[s] = static_cast<std::int32_t>(plan.palettes.size());
    plan.palettes.push_back(std::move(p));
  }
  const auto first_static = std::find_if(plan.palettes.begin(), plan.palettes.end(),
                                         [](const PalettePlan& p) { return p.static_mesh; });
  if (first_static != plan.palettes.end()) {
    plan.unframe = first_static->mesh_world;
    plan.frame = inverse(plan.unframe);
    const Affine identity;
    plan.framed = std::memcmp(&plan.frame, &identity, sizeof(Affine)) != 0;
  }
  // The framed rest world, by the same kernel products the frame uses, so that a node whose
  // chain is at rest gets exactly the value the product chain would give it.
  plan.rest_world.resize(plan.order.size());
  for (std::size_t n = 0; n < plan.order.size(); ++n) {
    const std::int32_t parent = plan.parent[n];
    if (parent >= 0) plan.kernels->multiply(plan.rest_world[static_cast<std::size_t>(parent)], plan.rest_local[n], plan.rest_world[n]);
    else if (plan.framed) plan.kernels->multiply(plan.frame, plan.rest_local[n], plan.rest_world[n]);
    else plan.rest_world[n] = plan.rest_local[n];
  }
  for (std::size_t s = 0; s < streams.size(); ++s) {
    const NodeStream& stream = streams[s];
    StreamPlan sp;
    sp.node = plan.dense[stream.node];
    sp.weight_offset = asset.weight_offsets[stream.node];
    sp.weight_count = asset.weight_counts[stream.node];
    if (stream.joint_count > 0) {
      sp.palette = static_cast<std::uint32_t>(palette_of_stream[stream.palette_stream]);
      sp.rule = plan.palettes[sp.palette].static_mesh ? InstanceRule::static_mesh : InstanceRule::animated_mesh;
    }
    plan.streams.push_back(sp);
  }
  for (PalettePlan& p : plan.palettes) {
    if (!p.static_mesh) continue;
    p.identity_correction = std::memcmp(&p.mesh_world, &plan.unframe, sizeof(Affine)) == 0;
    if (!p.identity_correction) p.correction = inverse(p.mesh_world) * plan.unframe;
  }
  return plan;
}

}  // namespace gltf_crowd
