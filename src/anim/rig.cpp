// Compiling a Rig and its ClipTracks from an Asset (rig.hpp): done once per crowd, so
// everything the per-frame jobs would otherwise look up (parents, rest transforms, which nodes
// a clip animates, which palettes are equal) is decided here.
#include "gltf_crowd/rig.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "anim/kernels.hpp"

namespace gltf_crowd {
namespace {

std::vector<bool> animated_nodes(const Asset& asset) {
  std::vector<bool> animated(asset.nodes.size(), false);
  for (const Clip& clip : asset.clips)
    for (const Channel& channel : clip.channels)
      if (channel.path != ChannelPath::weights) animated[channel.node] = true;
  return animated;
}

bool same_bytes(const Affine& a, const Affine& b) noexcept { return std::memcmp(&a, &b, sizeof(Affine)) == 0; }

std::vector<bool> needed_nodes(const Asset& asset, std::span<const std::uint32_t> drawn_nodes, bool all) {
  std::vector<bool> needed(asset.nodes.size(), all);
  const auto mark_with_ancestors = [&](std::uint32_t n) {
    for (std::int32_t i = static_cast<std::int32_t>(n); i >= 0 && !needed[static_cast<std::size_t>(i)];
         i = asset.nodes[static_cast<std::size_t>(i)].parent)
      needed[static_cast<std::size_t>(i)] = true;
  };
  for (std::uint32_t n : drawn_nodes) {
    mark_with_ancestors(n);
    if (asset.nodes[n].skin >= 0)
      for (std::uint32_t j : asset.skins[static_cast<std::size_t>(asset.nodes[n].skin)].joints) mark_with_ancestors(j);
  }
  return needed;
}

// The palette of drawn node `d`, with its mesh world when the node's chain is never animated.
RigSkin make_skin(const Asset& asset, const Rig& rig, std::uint32_t d, std::uint32_t node,
                  const std::vector<bool>& animated) {
  const Skin& skin = asset.skins[static_cast<std::size_t>(asset.nodes[node].skin)];
  RigSkin s;
  s.drawn = d;
  s.mesh_node = rig.rig_node[node];
  for (std::uint32_t j : skin.joints) s.joints.push_back(rig.rig_node[j]);
  for (const glm::mat4& ibm : skin.inverse_bind_matrices) s.inverse_binds.push_back(to_affine(ibm));
  s.static_mesh = true;
  glm::mat4 mesh_world(1.0f);
  for (std::int32_t i = static_cast<std::int32_t>(node); i >= 0; i = asset.nodes[static_cast<std::size_t>(i)].parent) {
    const auto n = static_cast<std::size_t>(i);
    if (animated[n]) s.static_mesh = false;
    mesh_world = asset.local_matrix(static_cast<std::uint32_t>(n)) * mesh_world;
  }
  s.mesh_world = to_affine(mesh_world);
  if (s.static_mesh && abs_determinant(s.mesh_world) <= 1e-12f) s.static_mesh = false;
  return s;
}

bool same_palette(const RigSkin& a, const RigSkin& b) noexcept {
  return a.static_mesh && b.static_mesh && a.joints == b.joints && same_bytes(a.mesh_world, b.mesh_world) &&
         std::memcmp(a.inverse_binds.data(), b.inverse_binds.data(), a.inverse_binds.size() * sizeof(Affine)) == 0;
}

// Rewrites one clip against the rig; channels keyed at equal times share one timeline.
ClipTracks compile_clip(const Asset& asset, const Clip& clip, const Rig& rig) {
  ClipTracks tracks;
  tracks.duration_seconds = clip.duration_seconds;
  tracks.rig_nodes = static_cast<std::uint32_t>(rig.node_count());
  tracks.weight_count = asset.total_weights;
  std::unordered_map<std::string_view, std::uint32_t> timeline_of;  // key bytes → timeline
  std::vector<std::uint32_t> source_values;                         // per channel: Clip::values offset
  for (const Channel& channel : clip.channels) {
    BoundChannel out;
    out.path = channel.path;
    out.interpolation = channel.interpolation;
    out.components = channel.components;
    if (channel.path == ChannelPath::weights) {
      if (asset.weight_counts[channel.node] == 0) continue;
      out.target = asset.weight_offsets[channel.node];
    } else {
      if (rig.rig_node[channel.node] == kNotInRig) continue;
      out.target = rig.rig_node[channel.node];
      tracks.animated.push_back(out.target);
    }
    const std::string_view times(reinterpret_cast<const char*>(clip.times.data() + channel.times_offset),
                                 channel.key_count * sizeof(float));
    const auto [it, inserted] = timeline_of.emplace(times, static_cast<std::uint32_t>(tracks.timelines.size()));
    if (inserted) {
      tracks.timelines.push_back({static_cast<std::uint32_t>(tracks.times.size()), channel.key_count});
      tracks.times.insert(tracks.times.end(), clip.times.begin() + channel.times_offset,
                          clip.times.begin() + channel.times_offset + channel.key_count);
    }
    out.timeline = it->second;
    tracks.channels.push_back(out);
    source_values.push_back(channel.values_offset);
  }
  // Interleave each timeline's channels key by key (BoundChannel).
  const auto per_key = [](const BoundChannel& ch) {
    return ch.interpolation == Interpolation::cubic_spline ? 3 * ch.components : ch.components;
  };
  std::vector<std::uint32_t> row_floats(tracks.timelines.size(), 0), in_row(tracks.channels.size());
  for (std::size_t i = 0; i < tracks.channels.size(); ++i) {
    in_row[i] = row_floats[tracks.channels[i].timeline];
    row_floats[tracks.channels[i].timeline] += per_key(tracks.channels[i]);
  }
  std::vector<std::size_t> block(tracks.timelines.size(), 0);
  std::size_t size = 0;
  for (std::size_t t = 0; t < tracks.timelines.size(); ++t) {
    block[t] = size;
    size += std::size_t{row_floats[t]} * tracks.timelines[t].key_count;
  }
  tracks.key_rows.resize(size);
  for (std::size_t i = 0; i < tracks.channels.size(); ++i) {
    BoundChannel& ch = tracks.channels[i];
    const std::uint32_t floats = per_key(ch), row = row_floats[ch.timeline];
    const float* source = clip.values.data() + source_values[i];
    float* target = tracks.key_rows.data() + block[ch.timeline] + in_row[i];
    for (std::uint32_t k = 0; k < tracks.timelines[ch.timeline].key_count; ++k)
      std::copy_n(source + std::size_t{k} * floats, floats, target + std::size_t{k} * row);
    ch.values_offset = static_cast<std::uint32_t>(block[ch.timeline] + in_row[i]);
    ch.key_stride = row;
  }
  std::sort(tracks.animated.begin(), tracks.animated.end());
  tracks.animated.erase(std::unique(tracks.animated.begin(), tracks.animated.end()), tracks.animated.end());
  return tracks;
}

}  // namespace

Rig build_rig(const Asset& asset, std::span<const std::uint32_t> drawn_nodes, const RigOptions& options) {
  const AffineKernels& kernels = affine_kernels();
  Rig rig;
  const std::vector<bool> needed = needed_nodes(asset, drawn_nodes, options.all_nodes);
  rig.rig_node.assign(asset.nodes.size(), kNotInRig);
  for (std::uint32_t n : asset.hierarchy_order) {
    if (!needed[n]) continue;
    const Node& node = asset.nodes[n];
    rig.rig_node[n] = static_cast<std::uint32_t>(rig.asset_node.size());
    rig.asset_node.push_back(n);
    rig.parent.push_back(
        node.parent >= 0 ? static_cast<std::int32_t>(rig.rig_node[static_cast<std::size_t>(node.parent)]) : -1);
    rig.rest_local.push_back(to_affine(asset.local_matrix(n)));
    rig.rest_translation.push_back(node.translation);
    rig.rest_rotation.push_back(node.rotation);
    rig.rest_scale.push_back(node.scale);
  }
  rig.rest_weights = asset.rest_weights;

  const std::vector<bool> animated = animated_nodes(asset);
  for (std::size_t d = 0; d < drawn_nodes.size(); ++d) {
    const std::uint32_t node = drawn_nodes[d];
    RigDrawn drawn;
    drawn.node = rig.rig_node[node];
    drawn.palette_owner = static_cast<std::uint32_t>(d);
    drawn.weight_offset = asset.weight_offsets[node];
    drawn.weight_count = asset.weight_counts[node];
    if (asset.nodes[node].skin >= 0) {
      RigSkin skin = make_skin(asset, rig, static_cast<std::uint32_t>(d), node, animated);
      const auto equal = std::find_if(rig.skins.begin(), rig.skins.end(),
                                      [&](const RigSkin& other) { return same_palette(other, skin); });
      if (equal != rig.skins.end()) {
        drawn.skin = static_cast<std::int32_t>(equal - rig.skins.begin());
        drawn.palette_owner = equal->drawn;
      } else {
        drawn.skin = static_cast<std::int32_t>(rig.skins.size());
        rig.skins.push_back(std::move(skin));
      }
      drawn.rule = rig.skins[static_cast<std::size_t>(drawn.skin)].static_mesh ? InstanceRule::static_mesh
                                                                               : InstanceRule::animated_mesh;
    }
    rig.drawn.push_back(drawn);
  }
  const auto first_static =
      std::find_if(rig.skins.begin(), rig.skins.end(), [](const RigSkin& s) { return s.static_mesh; });
  if (options.frame && first_static != rig.skins.end()) {
    rig.unframe = first_static->mesh_world;
    rig.frame = inverse(rig.unframe);
    rig.framed = !same_bytes(rig.frame, Affine{});
  }
  if (!rig.framed) rig.frame = rig.unframe = Affine{};
  // The framed rest world by the same kernel products the hierarchy uses, so that a node whose
  // chain is at rest gets exactly the value the product chain would give it.
  rig.rest_world.resize(rig.node_count());
  for (std::size_t n = 0; n < rig.node_count(); ++n) {
    const std::int32_t parent = rig.parent[n];
    if (parent >= 0)
      kernels.multiply(rig.rest_world[static_cast<std::size_t>(parent)], rig.rest_local[n], rig.rest_world[n]);
    else if (rig.framed)
      kernels.multiply(rig.frame, rig.rest_local[n], rig.rest_world[n]);
    else
      rig.rest_world[n] = rig.rest_local[n];
  }
  for (RigSkin& s : rig.skins) {
    if (!s.static_mesh) continue;
    s.identity_correction = same_bytes(s.mesh_world, rig.unframe);
    if (!s.identity_correction) s.correction = inverse(s.mesh_world) * rig.unframe;
  }
  return rig;
}

std::vector<ClipTracks> build_clip_tracks(const Asset& asset, const Rig& rig) {
  std::vector<ClipTracks> tracks;
  tracks.reserve(asset.clips.size());
  for (const Clip& clip : asset.clips) tracks.push_back(compile_clip(asset, clip, rig));
  return tracks;
}

std::size_t max_timelines(std::span<const ClipTracks> clips) noexcept {
  std::size_t n = 0;
  for (const ClipTracks& c : clips) n = std::max(n, c.timelines.size());
  return n;
}

ClipTracks build_clip_tracks(const Asset& asset, const Clip& clip, const Rig& rig) {
  return compile_clip(asset, clip, rig);
}

}  // namespace gltf_crowd
