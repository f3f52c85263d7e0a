// Compiling a Rig and its ClipTracks from an Asset (rig.hpp): done once per crowd, so
// everything the per-frame jobs would otherwise look up (parents, rest transforms, which nodes
// a clip animates, which palettes are equal) is decided here.
#include "gltf_crowd/rig.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <tuple>
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

// One lane of a group before layout: a TRS channel, or one morph weight of a weights channel.
struct Lane {
  std::uint32_t timeline = 0;
  std::uint32_t target = 0;
  ChannelPath path = ChannelPath::translation;
  Interpolation interpolation = Interpolation::linear;
  const float* source = nullptr;    // its first value in Clip::values (a weight's: that weight's)
  std::uint32_t source_stride = 0;  // floats from one key's part to the next (the channel's components)
};

// Whether a lane samples to one value at every time (glTF 2.0 Appendix C): it has one key, or
// every key holds the first key's value bit for bit and, for CUBICSPLINE, every tangent is zero.
// Exported characters key every property of every joint, and most of those channels never move.
bool constant_lane(const Lane& l, std::uint32_t key_count) noexcept {
  if (key_count == 1) return true;
  const std::uint32_t n = lane_components(l.path);
  const bool cubic = l.interpolation == Interpolation::cubic_spline;
  const std::uint32_t parts = cubic ? 3 : 1, value = cubic ? 1 : 0;
  for (std::uint32_t k = 0; k < key_count; ++k)
    for (std::uint32_t p = 0; p < parts; ++p)
      for (std::uint32_t c = 0; c < n; ++c) {
        const float x = l.source[(std::size_t{k} * parts + p) * l.source_stride + c];
        const float first = l.source[std::size_t{value} * l.source_stride + c];
        if (p == value ? std::memcmp(&x, &first, sizeof x) != 0 : x != 0.0f) return false;
      }
  return true;
}

// Appends the lanes of one channel: one for a TRS channel, one per morph weight of a weights
// channel; none for a node outside the rig, or a weights channel of a node without morph targets.
void append_lanes(const Asset& asset, const Clip& clip, const Channel& channel, const Rig& rig,
                  std::vector<Lane>& lanes) {
  Lane lane{0, 0, channel.path, channel.interpolation, clip.values.data() + channel.values_offset, channel.components};
  if (channel.path == ChannelPath::weights) {
    if (asset.weight_counts[channel.node] == 0) return;
    lane.target = asset.weight_offsets[channel.node];
  } else {
    if (rig.rig_node[channel.node] == kNotInRig) return;
    lane.target = rig.rig_node[channel.node];
  }
  const std::uint32_t count = channel.path == ChannelPath::weights ? channel.components : 1;
  for (std::uint32_t c = 0; c < count; ++c) {
    lanes.push_back(lane);
    if (channel.path == ChannelPath::weights) {
      lanes.back().target += c;
      lanes.back().source += c;
    }
  }
}

// The properties some clip of the asset moves (a lane that is not constant_lane): a bit per TRS
// path (1 << path) per rig node, and per morph weight. A lane is compiled constant only where no
// clip moves its property, so that clips with the same channels keep one group layout
// (sample_pair's condition) whichever of them hold still.
struct MovingProperties {
  std::vector<std::uint8_t> paths;  // per rig node
  std::vector<bool> weights;        // per morph weight
  bool moves(const Lane& l) const {
    return l.path == ChannelPath::weights ? weights[l.target] : (paths[l.target] >> static_cast<unsigned>(l.path)) & 1u;
  }
};

MovingProperties moving_properties(const Asset& asset, const Rig& rig) {
  MovingProperties moving{std::vector<std::uint8_t>(rig.node_count(), 0), std::vector<bool>(asset.total_weights)};
  std::vector<Lane> lanes;
  for (const Clip& clip : asset.clips)
    for (const Channel& channel : clip.channels) {
      lanes.clear();
      append_lanes(asset, clip, channel, rig, lanes);
      for (const Lane& l : lanes) {
        if (constant_lane(l, channel.key_count)) continue;
        if (l.path == ChannelPath::weights)
          moving.weights[l.target] = true;
        else
          moving.paths[l.target] |= static_cast<std::uint8_t>(1u << static_cast<unsigned>(l.path));
      }
    }
  return moving;
}

// Rewrites one clip against the rig; channels keyed at equal times share one timeline, and the
// lanes of each timeline with the same path and interpolation are grouped (ChannelGroup).
// Constant lanes of properties that no clip moves keep only their value, as LINEAR on one
// timeline of a single key, the last timeline, so that sampling them is a load and they take no
// key cursor from the others.
ClipTracks compile_clip(const Asset& asset, const Clip& clip, const Rig& rig, const MovingProperties& moving) {
  ClipTracks tracks;
  tracks.duration_seconds = clip.duration_seconds;
  tracks.rig_nodes = static_cast<std::uint32_t>(rig.node_count());
  tracks.weight_count = asset.total_weights;
  std::unordered_map<std::string_view, std::uint32_t> timeline_of;  // key bytes → timeline
  std::vector<Lane> lanes;
  constexpr std::uint32_t kConstant = ~0u;  // the constant lanes' timeline, numbered once the others are
  for (const Channel& channel : clip.channels) {
    const std::size_t first = lanes.size();
    append_lanes(asset, clip, channel, rig, lanes);
    if (lanes.size() == first) continue;
    if (channel.path != ChannelPath::weights) tracks.animated.push_back(lanes[first].target);
    bool keyed = false;
    for (std::size_t i = first; i < lanes.size(); ++i) {
      Lane& l = lanes[i];
      if (moving.moves(l) || !constant_lane(l, channel.key_count)) {
        keyed = true;
        continue;
      }
      if (l.interpolation == Interpolation::cubic_spline)
        l.source += l.source_stride;  // the value, past the in-tangent
      l.interpolation = Interpolation::linear;
      l.timeline = kConstant;
      ++tracks.constant_channels;
    }
    if (!keyed) continue;
    const std::string_view times(reinterpret_cast<const char*>(clip.times.data() + channel.times_offset),
                                 channel.key_count * sizeof(float));
    const auto [it, inserted] = timeline_of.emplace(times, static_cast<std::uint32_t>(tracks.timelines.size()));
    if (inserted) {
      tracks.timelines.push_back({static_cast<std::uint32_t>(tracks.times.size()), channel.key_count});
      tracks.times.insert(tracks.times.end(), clip.times.begin() + channel.times_offset,
                          clip.times.begin() + channel.times_offset + channel.key_count);
    }
    for (std::size_t i = first; i < lanes.size(); ++i)
      if (lanes[i].timeline != kConstant) lanes[i].timeline = it->second;
  }
  if (tracks.constant_channels > 0) {
    const auto constant = static_cast<std::uint32_t>(tracks.timelines.size());
    tracks.timelines.push_back({static_cast<std::uint32_t>(tracks.times.size()), 1});
    tracks.times.push_back(0.0f);  // any time: a single key is sampled at every time
    for (Lane& l : lanes)
      if (l.timeline == kConstant) l.timeline = constant;
  }
  // Lanes of one timeline, path and interpolation in groups of kGroupLanes, a timeline's groups
  // side by side in its rows.
  std::stable_sort(lanes.begin(), lanes.end(), [](const Lane& x, const Lane& y) {
    return std::tie(x.timeline, x.path, x.interpolation) < std::tie(y.timeline, y.path, y.interpolation);
  });
  std::vector<std::vector<std::uint32_t>> group_lanes;                          // per group: indices into lanes
  std::vector<std::uint32_t> row_floats(tracks.timelines.size(), 0), block_at;  // block_at: per group, in its row
  const auto parts = [](Interpolation i) { return i == Interpolation::cubic_spline ? 3u : 1u; };
  for (std::uint32_t i = 0; i < lanes.size(); ++i) {
    const Lane& l = lanes[i];
    const bool joins = !group_lanes.empty() && group_lanes.back().size() < kGroupLanes &&
                       tracks.groups.back().timeline == l.timeline && tracks.groups.back().path == l.path &&
                       tracks.groups.back().interpolation == l.interpolation;
    if (!joins) {
      ChannelGroup g;
      g.timeline = l.timeline;
      g.path = l.path;
      g.interpolation = l.interpolation;
      tracks.groups.push_back(g);
      group_lanes.emplace_back();
      block_at.push_back(row_floats[l.timeline]);
      row_floats[l.timeline] += parts(l.interpolation) * lane_components(l.path) * kGroupLanes;
    }
    ChannelGroup& g = tracks.groups.back();
    g.targets[g.lanes++] = l.target;
    group_lanes.back().push_back(i);
  }
  std::vector<std::size_t> timeline_at(tracks.timelines.size(), 0);
  std::size_t size = 0;
  for (std::size_t t = 0; t < tracks.timelines.size(); ++t) {
    timeline_at[t] = size;
    size += std::size_t{row_floats[t]} * tracks.timelines[t].key_count;
  }
  tracks.key_rows.resize(size);
  for (std::size_t gi = 0; gi < tracks.groups.size(); ++gi) {
    ChannelGroup& g = tracks.groups[gi];
    const std::uint32_t n = lane_components(g.path), p_count = parts(g.interpolation);
    g.values_offset = static_cast<std::uint32_t>(timeline_at[g.timeline] + block_at[gi]);
    g.key_stride = row_floats[g.timeline];
    for (std::uint32_t lane = g.lanes; lane < kGroupLanes; ++lane) g.targets[lane] = g.targets[0];
    for (std::uint32_t lane = 0; lane < kGroupLanes; ++lane) {
      const Lane& l = lanes[group_lanes[gi][lane < g.lanes ? lane : 0]];
      for (std::uint32_t k = 0; k < tracks.timelines[g.timeline].key_count; ++k)
        for (std::uint32_t p = 0; p < p_count; ++p)
          for (std::uint32_t c = 0; c < n; ++c)
            tracks.key_rows[g.values_offset + std::size_t{k} * g.key_stride + (p * n + c) * kGroupLanes + lane] =
                l.source[(std::size_t{k} * p_count + p) * l.source_stride + c];
      if (lane >= g.lanes) continue;
      BoundChannel ch;
      ch.timeline = g.timeline;
      ch.target = l.target;
      ch.values_offset = g.values_offset + lane;
      ch.key_stride = g.key_stride;
      ch.component_stride = kGroupLanes;
      ch.components = n;
      ch.path = g.path;
      ch.interpolation = g.interpolation;
      tracks.channels.push_back(ch);
    }
  }
  std::sort(tracks.animated.begin(), tracks.animated.end());
  tracks.animated.erase(std::unique(tracks.animated.begin(), tracks.animated.end()), tracks.animated.end());
  std::vector<std::uint8_t> has(rig.node_count(), 0);  // per rig node: bit per TRS path with a channel
  std::vector<bool> weight_has(asset.total_weights, false);
  for (const BoundChannel& ch : tracks.channels) {
    if (ch.path == ChannelPath::weights)
      weight_has[ch.target] = true;
    else
      has[ch.target] |= static_cast<std::uint8_t>(1u << static_cast<unsigned>(ch.path));
  }
  for (std::uint32_t a : tracks.animated) {
    if (!(has[a] & (1u << static_cast<unsigned>(ChannelPath::translation)))) tracks.rest_translations.push_back(a);
    if (!(has[a] & (1u << static_cast<unsigned>(ChannelPath::rotation)))) tracks.rest_rotations.push_back(a);
    if (!(has[a] & (1u << static_cast<unsigned>(ChannelPath::scale)))) tracks.rest_scales.push_back(a);
  }
  tracks.rest_weights = std::find(weight_has.begin(), weight_has.end(), false) != weight_has.end();
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
  const MovingProperties moving = moving_properties(asset, rig);
  for (const Clip& clip : asset.clips) tracks.push_back(compile_clip(asset, clip, rig, moving));
  return tracks;
}

std::size_t max_timelines(std::span<const ClipTracks> clips) noexcept {
  std::size_t n = 0;
  for (const ClipTracks& c : clips) n = std::max(n, c.timelines.size());
  return n;
}

ClipTracks build_clip_tracks(const Asset& asset, const Clip& clip, const Rig& rig) {
  return compile_clip(asset, clip, rig, moving_properties(asset, rig));
}

}  // namespace gltf_crowd
