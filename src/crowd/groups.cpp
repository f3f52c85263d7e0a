// Primitive groups and node streams (docs/spec.md §5, §7): one stream per drawn node, and one
// group per (node, level, primitive) reading its source node's stream. Built when the crowd is
// constructed or LOD is first enabled, never per frame.
#include <algorithm>

#include "crowd/pack.hpp"

namespace gltf_crowd {
namespace {

// The stream of `node`, added when the crowd does not pack it yet.
std::uint32_t stream_of(Crowd::State& st, std::uint32_t node) {
  const auto it =
      std::find_if(st.streams.begin(), st.streams.end(), [&](const NodeStream& s) { return s.node == node; });
  if (it != st.streams.end()) return static_cast<std::uint32_t>(it - st.streams.begin());
  const Asset& asset = st.asset;
  NodeStream stream;
  stream.node = node;
  if (asset.nodes[node].skin >= 0)
    stream.joint_count =
        static_cast<std::uint32_t>(asset.skins[static_cast<std::size_t>(asset.nodes[node].skin)].joints.size());
  stream.weight_stride = (asset.weight_counts[node] + 3u) / 4u * 4u;
  st.streams.push_back(std::move(stream));
  return static_cast<std::uint32_t>(st.streams.size() - 1);
}

// One group drawing primitive `primitive` of `mesh` (on `node`, at `level`) for `source`'s stream.
PrimitiveGroup& add_group(Crowd::State& st, std::uint32_t source, std::uint32_t node, std::uint32_t mesh,
                          std::uint32_t primitive, std::uint32_t level) {
  const Primitive& prim = st.asset.meshes[mesh].primitives[primitive];
  PrimitiveGroup group;
  group.node = node;
  group.source_node = source;
  group.mesh = mesh;
  group.primitive = primitive;
  group.level = level;
  group.stream = stream_of(st, source);
  group.index_count = static_cast<std::uint32_t>(prim.indices.size());
  group.triangle_count = triangle_count(prim.mode, prim.indices.size());
  group.joint_count = prim.joints0.empty() ? 0 : st.streams[group.stream].joint_count;
  group.palette_kind = group.joint_count > 0 ? PaletteKind::skinned : PaletteKind::rigid;
  group.instances.reserve(st.capacity);
  st.groups.push_back(std::move(group));
  return st.groups.back();
}

bool same_group_layout(const ClipTracks& a, const ClipTracks& b) noexcept {
  const auto same_group = [](const ChannelGroup& x, const ChannelGroup& y) {
    return x.path == y.path && x.lanes == y.lanes && std::equal(std::begin(x.targets), std::end(x.targets), y.targets);
  };
  return a.animated == b.animated && a.rest_translations == b.rest_translations &&
         a.rest_rotations == b.rest_rotations && a.rest_scales == b.rest_scales && a.rest_weights == b.rest_weights &&
         std::equal(a.groups.begin(), a.groups.end(), b.groups.begin(), b.groups.end(), same_group);
}

}  // namespace

void build_groups(Crowd::State& st) {
  const Asset& asset = st.asset;
  for (std::uint32_t n : asset.drawn_nodes) {
    const auto mesh = static_cast<std::uint32_t>(asset.nodes[n].mesh);
    stream_of(st, n);  // a mesh without primitives still packs its node
    for (std::uint32_t p = 0; p < asset.meshes[mesh].primitives.size(); ++p) add_group(st, n, n, mesh, p, 0);
  }
}

void prepare_lod_levels(Crowd::State& st) {
  LodState& lod = st.lod;
  lod.model = build_lod_model(st.asset, lod.options);
  lod.configured = true;
  st.lod_stats.dropped_ratios = lod.model.dropped_ratios;
  st.lod_stats.dropped_levels = lod.model.dropped_levels;
  st.groups.clear();
  lod.group_primitive.clear();
  for (const LodSourceNode& source : lod.model.sources) {
    for (std::size_t l = 0; l < source.levels.size(); ++l) {
      const LodNodeLevel& level = source.levels[l];
      for (const LodPrimitive& p : level.primitives) {
        PrimitiveGroup& group = add_group(st, source.node, level.node, static_cast<std::uint32_t>(level.mesh),
                                          p.primitive, static_cast<std::uint32_t>(l));
        group.index_count = p.index_count;
        group.triangle_count = p.triangle_count;
        lod.group_primitive.push_back(&p);
      }
    }
  }
}

void index_lod_groups(Crowd::State& st) {
  LodState& lod = st.lod;
  const auto& groups = st.groups;
  lod.plain_slots = kNoBand;
  const std::uint32_t levels = lod.configured ? lod.model.level_count : 1;
  lod.level_groups.assign(levels, {});
  lod.group_primitive.resize(groups.size(), nullptr);
  if (lod.configured) {
    lod.level_indices = lod.model.level_indices;
    lod.level_triangles = lod.model.level_triangles;
    // Per source node, the highest level it has; an actor below it draws that level.
    for (std::uint32_t l = 0; l < levels; ++l) {
      for (std::uint32_t g = 0; g < groups.size(); ++g) {
        std::uint32_t own = 0;
        for (const LodSourceNode& s : lod.model.sources)
          if (s.node == groups[g].source_node) own = static_cast<std::uint32_t>(s.levels.size() - 1);
        if (groups[g].level == std::min(l, own)) lod.level_groups[l].push_back(g);
      }
    }
    return;
  }
  lod.level_indices.assign(1, 0);
  lod.level_triangles.assign(1, 0);
  for (std::uint32_t g = 0; g < groups.size(); ++g) {
    lod.level_groups[0].push_back(g);
    lod.level_indices[0] += groups[g].index_count;
    lod.level_triangles[0] += groups[g].triangle_count;
  }
}

CompiledRig compile_rig(const Asset& asset, std::span<const std::uint32_t> drawn_nodes, const RigOptions& options) {
  CompiledRig compiled;
  compiled.rig = build_rig(asset, drawn_nodes, options);
  compiled.clips = build_clip_tracks(asset, compiled.rig);
  compiled.max_timelines = max_timelines(compiled.clips);
  for (const Clip& clip : asset.clips)
    compiled.inverse_durations.push_back(1.0 / static_cast<double>(clip.duration_seconds));
  for (std::size_t c = 0; c < compiled.clips.size(); ++c) {
    const ClipTracks& clip = compiled.clips[c];
    std::vector<std::uint8_t>& flags = compiled.animates.emplace_back(compiled.rig.node_count(), 0);
    for (std::uint32_t a : clip.animated) flags[a] = 1;
    std::size_t equal = 0;
    while (compiled.clips[equal].animated != clip.animated) ++equal;  // stops at c at the latest
    compiled.node_set.push_back(static_cast<std::uint32_t>(equal));
    std::size_t same = 0;
    while (!same_group_layout(compiled.clips[same], clip)) ++same;  // stops at c at the latest
    compiled.group_layout.push_back(static_cast<std::uint32_t>(same));
    // Groups sort by timeline, then path (rig.cpp): the constant timeline's come last, weights last of them.
    const auto constant_timeline = static_cast<std::uint32_t>(clip.timelines.size() - 1);
    const auto on_constant = [&](const ChannelGroup& g) {
      return clip.constant_channels > 0 && g.timeline == constant_timeline;
    };
    const auto first = std::find_if(clip.groups.begin(), clip.groups.end(), on_constant);
    const auto end =
        std::find_if(first, clip.groups.end(), [](const ChannelGroup& g) { return g.path == ChannelPath::weights; });
    compiled.constant_pose_groups.push_back({static_cast<std::uint32_t>(first - clip.groups.begin()),
                                             static_cast<std::uint32_t>(end - clip.groups.begin())});
    std::vector<std::uint32_t>& weights = compiled.animated_weights.emplace_back();
    for (const BoundChannel& channel : clip.channels)
      if (channel.path == ChannelPath::weights) weights.push_back(channel.target);
    std::sort(weights.begin(), weights.end());
    weights.erase(std::unique(weights.begin(), weights.end()), weights.end());
  }
  const Rig& rig = compiled.rig;
  compiled.static_skins =
      std::all_of(rig.skins.begin(), rig.skins.end(), [](const RigSkin& skin) { return skin.static_mesh; });
  for (const RigSkin& skin : rig.skins) compiled.palette_joints += skin.joints.size();
  compiled.instance_lanes =
      compiled.static_skins &&
      std::any_of(rig.drawn.begin(), rig.drawn.end(), [](const RigDrawn& d) { return d.rule == InstanceRule::rigid; });
  compiled.static_meshes_only = std::all_of(rig.drawn.begin(), rig.drawn.end(),
                                            [](const RigDrawn& d) { return d.rule == InstanceRule::static_mesh; });
  for (std::uint32_t d = 0; d < rig.drawn.size(); ++d)
    if (rig.drawn[d].weight_count > 0) compiled.weighted_drawn.push_back(d);
  compiled.keep_world.assign(rig.node_count(), compiled.static_skins ? 0 : 1);
  compiled.weight_node.resize(asset.total_weights);
  for (std::uint32_t n = 0; n < asset.nodes.size(); ++n)
    for (std::uint32_t i = 0; i < asset.weight_counts[n]; ++i) compiled.weight_node[asset.weight_offsets[n] + i] = n;
  return compiled;
}

void compile_streams(Crowd::State& st) {
  std::vector<std::uint32_t> drawn;
  for (const NodeStream& s : st.streams) drawn.push_back(s.node);
  st.draw = compile_rig(st.asset, drawn);
  for (std::size_t s = 0; s < st.streams.size(); ++s) st.streams[s].palette_stream = st.draw.rig.drawn[s].palette_owner;
  make_workers(st);
  resize_streams(st);
}

void resize_streams(Crowd::State& st) {
  const std::size_t capacity = st.capacity;
  // Animation::gpu keeps records instead of rows: the evaluator writes the rows on the GPU.
  const bool gpu = st.animation == Animation::gpu;
  const std::size_t rows = gpu ? 0 : capacity;
  for (std::size_t i = 0; i < st.streams.size(); ++i) {
    NodeStream& s = st.streams[i];
    s.transforms.resize(rows * 3);
    if (s.palette_stream == i) s.palette.resize(rows * s.joint_count * 3);
    s.weights.resize(rows * s.weight_stride);
    if (gpu) {
      s.transforms.shrink_to_fit();
      s.palette.shrink_to_fit();
      s.weights.shrink_to_fit();
    }
  }
  st.records.resize(gpu ? capacity : 0);
  st.tails.resize(gpu ? capacity : 0);
  if (!gpu) {
    st.records.shrink_to_fit();
    st.tails.shrink_to_fit();
  }
  size_layer_records(st);
  st.placement_generation.resize(capacity);
  for (PrimitiveGroup& g : st.groups) g.instances.reserve(capacity);
  st.lod.resize(capacity);
  st.weights.resize(capacity * st.asset.total_weights);
  st.due_group.resize(capacity);
  st.order.resize(capacity);
  st.order_starts.resize(order_keys(st.asset) + 1);
  st.stale.resize(capacity);
  st.pending.resize(capacity);
  st.pending_slots.reserve(capacity);  // one entry per slot at most: marking never allocates
  st.hidden.resize(capacity);
  st.tints.resize(capacity, glm::vec4(1.0f));
  st.variants.resize(capacity, kNoVariant);
  st.appearance_generation.resize(capacity);
  st.root.pending.resize(capacity);
  st.root.last.resize(capacity);
  st.packed_frame.resize(capacity);
  st.packed_generation.resize(capacity);
  st.slot_key.reserve(capacity);
  st.ids.reserve(capacity);
  st.playback.reserve(capacity);
  st.placements.reserve(capacity);
  st.overrides.reserve(capacity);
  st.layers.reserve(capacity);
}

}  // namespace gltf_crowd
