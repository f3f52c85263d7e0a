// Layer 4: levels of detail inside the crowd (docs/spec.md §5, §7) — one primitive group per (source
// node, level, primitive) sharing the source node's stream, and the per-frame classification
// that fills each group's instance list: coverage → band with hysteresis → culling → budget.
// Based on: docs/spec.md §7; the pure functions of gltf_crowd/lod.hpp.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "crowd/lod_state.hpp"
#include "crowd/state.hpp"

namespace gltf_crowd {
namespace {

// Smallest sphere around both (exact for two spheres).
Sphere merge(const Sphere& a, const Sphere& b) {
  const float d = glm::length(b.center - a.center);
  if (d + b.radius <= a.radius) return a;
  if (d + a.radius <= b.radius) return b;
  const float radius = 0.5f * (d + a.radius + b.radius);
  return {a.center + (b.center - a.center) * ((radius - a.radius) / d), radius};
}

// World-space sphere that holds the actor's mesh during all its contributing clips.
Sphere animated_sphere(const LodModel& model, const Playback& p, const glm::mat4& placement) {
  Sphere local = p.count == 0 ? model.rest_pose_bounds : model.clip_spheres[p.contributors[0].clip];
  for (std::uint32_t i = 1; i < p.count; ++i) local = merge(local, model.clip_spheres[p.contributors[i].clip]);
  return {glm::vec3(placement * glm::vec4(local.center, 1.0f)), local.radius * max_axis_scale(placement)};
}

}  // namespace

void Crowd::init_lod(const LodOptions& options) {
  validate_lod_options(options);
  lod_ = std::make_unique<LodState>();
  lod_->options = options;
  if (options.enabled || options.auto_generate) prepare_lod_levels();
  else build_groups();
  index_lod_groups();
  refresh_instances();  // lod_stats of an empty crowd: the source and its levels
}

void Crowd::prepare_lod_levels() {
  LodState& lod = *lod_;
  lod.model = build_lod_model(*asset_, lod.options);
  lod.configured = true;
  const Asset& asset = *asset_;
  groups_.clear();
  lod.group_primitive.clear();
  for (const LodSourceNode& source : lod.model.sources) {
    // Levels draw with the source node's transforms, palette and weights: one stream, reused
    // when the crowd already packs this node.
    auto stream_it = std::find_if(streams_.begin(), streams_.end(), [&](const NodeStream& s) { return s.node == source.node; });
    if (stream_it == streams_.end()) {
      const Node& node = asset.nodes[source.node];
      NodeStream stream;
      stream.node = source.node;
      if (node.skin >= 0) stream.joint_count = static_cast<std::uint32_t>(asset.skins[static_cast<std::size_t>(node.skin)].joints.size());
      stream.weight_stride = (asset.weight_counts[source.node] + 3u) / 4u * 4u;
      streams_.push_back(std::move(stream));
      stream_it = streams_.end() - 1;
    }
    const auto stream_index = static_cast<std::uint32_t>(stream_it - streams_.begin());
    for (std::size_t l = 0; l < source.levels.size(); ++l) {
      const LodNodeLevel& level = source.levels[l];
      for (const LodPrimitive& p : level.primitives) {
        const Primitive& primitive = asset.meshes[static_cast<std::size_t>(level.mesh)].primitives[p.primitive];
        PrimitiveGroup group;
        group.node = level.node;
        group.source_node = source.node;
        group.mesh = static_cast<std::uint32_t>(level.mesh);
        group.primitive = p.primitive;
        group.level = static_cast<std::uint32_t>(l);
        group.index_count = p.index_count;
        group.triangle_count = p.triangle_count;
        group.joint_count = primitive.joints0.empty() ? 0 : streams_[stream_index].joint_count;
        group.palette_kind = group.joint_count > 0 ? PaletteKind::skinned : PaletteKind::rigid;
        group.stream = stream_index;
        group.instances.reserve(state_->capacity);
        groups_.push_back(std::move(group));
        lod.group_primitive.push_back(&p);
      }
    }
  }
}

void Crowd::index_lod_groups() {
  LodState& lod = *lod_;
  lod.plain_slots = kNoBand;
  const std::uint32_t levels = lod.configured ? lod.model.level_count : 1;
  lod.level_groups.assign(levels, {});
  lod.group_primitive.resize(groups_.size(), nullptr);
  if (lod.configured) {
    lod.level_indices = lod.model.level_indices;
    lod.level_triangles = lod.model.level_triangles;
    // Per source node, the highest level it has; an actor below it draws that level.
    for (std::uint32_t l = 0; l < levels; ++l) {
      for (std::uint32_t g = 0; g < groups_.size(); ++g) {
        std::uint32_t own = 0;
        for (const LodSourceNode& s : lod.model.sources)
          if (s.node == groups_[g].source_node) own = static_cast<std::uint32_t>(s.levels.size() - 1);
        if (groups_[g].level == std::min(l, own)) lod.level_groups[l].push_back(g);
      }
    }
    return;
  }
  lod.level_indices.assign(1, 0);
  lod.level_triangles.assign(1, 0);
  for (std::uint32_t g = 0; g < groups_.size(); ++g) {
    lod.level_groups[0].push_back(g);
    lod.level_indices[0] += groups_[g].index_count;
    lod.level_triangles[0] += groups_[g].triangle_count;
  }
}

void Crowd::refresh_instances() {
  LodState& lod = *lod_;
  const State& st = *state_;
  const auto n = static_cast<std::uint32_t>(st.size());
  const bool active = lod.configured && lod.options.enabled && lod.view.has_value();
  if (!active && lod.plain_slots == n) return;
  lod.plain_slots = active ? kNoBand : n;
  // Refilled in place: update() allocates nothing after warm-up.
  LodStats& stats = lod_stats_;
  stats.source = lod.configured ? lod.model.source : LodSource::none;
  stats.levels.assign(lod.level_groups.size(), {});
  stats.triangles = stats.vertices = 0;
  stats.vertex_budget.reset();
  stats.demoted_actors = 0;
  stats.budget_satisfied = true;
  std::uint32_t visible = 0;
  if (!active) {
    std::fill_n(lod.level.begin(), n, 0u);
    visible = n;
  } else {
    const LodModel& model = lod.model;
    const LodView& view = *lod.view;
    const std::array<glm::vec4, 6> planes = frustum_planes(view);
    const auto bands = static_cast<std::uint32_t>(model.thresholds.size());
    for (std::uint32_t slot = 0; slot < n; ++slot) {
      const std::uint32_t key = st.slot_key[slot];
      const glm::mat4& placement = st.placements[slot];
      const float coverage = lod_coverage(model.rest_sphere, placement, view, lod.bias);
      const std::uint32_t band = select_band(coverage, model.thresholds, lod.band[key], lod.options.hysteresis);
      lod.band[key] = band;
      lod.coverage[slot] = coverage;
      if (band >= bands || outside_frustum(planes, animated_sphere(model, st.playback[slot], placement))) {
        lod.level[slot] = kCulledLevel;
        continue;
      }
      lod.visible_slots[visible] = slot;
      lod.visible_coverage[visible] = coverage;
      lod.visible_insertion[visible] = lod.insertion[key];
      lod.visible_levels[visible] = std::min(band, model.level_count - 1);
      ++visible;
    }
    const BudgetResult budget = apply_vertex_budget(
        std::span(lod.visible_coverage).first(visible), std::span(lod.visible_insertion).first(visible),
        std::span(lod.visible_levels).first(visible), lod.level_indices, lod.options.vertex_budget,
        std::span(lod.budget_scratch).first(visible));
    for (std::uint32_t i = 0; i < visible; ++i) lod.level[lod.visible_slots[i]] = lod.visible_levels[i];
    if (lod.options.vertex_budget > 0) stats.vertex_budget = lod.options.vertex_budget;
    stats.demoted_actors = budget.demoted_actors;
    stats.budget_satisfied = budget.satisfied;
  }
  for (PrimitiveGroup& g : groups_) g.instances.clear();
  for (std::uint32_t slot = 0; slot < n; ++slot) {
    const std::uint32_t level = lod.level[slot];
    if (level == kCulledLevel) continue;
    for (std::uint32_t g : lod.level_groups[level]) groups_[g].instances.push_back(slot);
    ++stats.levels[level].actors;
  }
  stats_.draws = 0;
  for (PrimitiveGroup& g : groups_) {
    g.instance_count = static_cast<std::uint32_t>(g.instances.size());
    if (g.instance_count > 0) ++stats_.draws;
  }
  for (std::size_t l = 0; l < stats.levels.size(); ++l) {
    stats.levels[l].triangles = stats.levels[l].actors * lod.level_triangles[l];
    stats.triangles += stats.levels[l].triangles;
    stats.vertices += stats.levels[l].actors * lod.level_indices[l];
  }
  stats.visible_actors = visible;
  stats.culled_actors = n - visible;
  stats.draw_count = stats_.draws;
}

void Crowd::update(float delta_seconds, const LodView& view) {
  check_alive();
  validate_lod_view(view, "update.view");
  if (!std::isfinite(delta_seconds))
    throw Error("update.delta_seconds", "not_finite", fmt::format("{} is not finite", delta_seconds));
  lod_->view = view;
  update(delta_seconds);
}

void Crowd::set_lod_enabled(bool enabled) {
  check_alive();
  lod_->options.enabled = enabled;
  if (enabled && !lod_->configured) {
    // First use on a crowd created without LOD: prepare the levels now. Streams are kept, so
    // actors and their packed poses are untouched; only level groups are added.
    const std::size_t streams_before = streams_.size();
    prepare_lod_levels();
    index_lod_groups();
    if (streams_.size() != streams_before) {  // a level source the plain groups did not pack
      state_->plan = make_evaluation_plan(*asset_, streams_);
      state_->make_scratch(asset_->total_weights);  // sized for the old plan
      resize_streams();
      for (std::uint32_t slot = 0; slot < state_->size(); ++slot) evaluate(slot);
    }
  }
  reclassify();
}

void Crowd::set_lod_bias(float bias) {
  check_alive();
  if (!(bias > 0.0f && std::isfinite(bias)))
    throw Error("set_lod_bias.bias", "lod_bias", fmt::format("{} must be finite and > 0", bias));
  lod_->bias = bias;
  reclassify();
}

void Crowd::set_lod_vertex_budget(std::uint64_t vertices) {
  check_alive();
  lod_->options.vertex_budget = vertices;
  reclassify();
}

void Crowd::set_lod_view(const LodView& view) {
  check_alive();
  validate_lod_view(view, "set_lod_view.view");
  lod_->view = view;
  reclassify();
}

const LodModel* Crowd::lod_model() const noexcept {
  return lod_ && lod_->configured ? &lod_->model : nullptr;
}

std::span<const std::uint32_t> Crowd::group_indices(const PrimitiveGroup& group) const {
  check_alive();
  if (&group < groups_.data() || &group >= groups_.data() + groups_.size())
    throw Error("group_indices.group", "foreign_group", "the group is not one of this crowd's primitive_groups()");
  const LodPrimitive* prepared = lod_->group_primitive[static_cast<std::size_t>(&group - groups_.data())];
  if (prepared != nullptr && !prepared->indices.empty()) return prepared->indices;
  return asset_->meshes[group.mesh].primitives[group.primitive].indices;
}

}  // namespace gltf_crowd
