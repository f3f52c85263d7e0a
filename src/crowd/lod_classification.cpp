// Layer 4: levels of detail inside the crowd (docs/spec.md §5, §7) — the per-frame classification
// that fills each group's instance list (coverage → band with hysteresis → culling → budget), and
// the LOD controls. The level groups themselves are built in groups.cpp.
// Based on: docs/spec.md §7; the pure functions of gltf_crowd/lod.hpp.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "asset/checks.hpp"
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

void refresh_instances(Crowd::State& st) {
  LodState& lod = st.lod;
  std::vector<PrimitiveGroup>& groups = st.groups;
  const auto n = static_cast<std::uint32_t>(st.size());
  const bool active = lod.active();
  if (!active && lod.plain_slots == n) return;
  lod.plain_slots = active ? kNoBand : n;
  // Refilled in place: update() allocates nothing after warm-up.
  LodStats& stats = st.lod_stats;
  stats.source = lod.configured ? lod.model.source : LodSource::none;
  stats.levels.assign(lod.level_groups.size(), {});
  stats.triangles = stats.vertices = 0;
  stats.vertex_budget.reset();
  stats.demoted_actors = 0;
  stats.budget_satisfied = true;
  std::uint32_t visible = 0;
  if (!active) {
    std::fill_n(lod.level.begin(), n, 0u);
    visible = n - st.hidden_count;
    if (st.hidden_count > 0)
      for (std::uint32_t slot = 0; slot < n; ++slot)
        if (st.hidden[slot]) lod.level[slot] = kCulledLevel;
  } else {
    const LodModel& model = lod.model;
    const LodView& view = *lod.view;
    const std::array<glm::vec4, 6> planes = frustum_planes(view);
    const auto bands = static_cast<std::uint32_t>(model.thresholds.size());
    for (std::uint32_t slot = 0; slot < n; ++slot) {
      if (st.hidden_count > 0 && st.hidden[slot]) {  // drawn by nothing; its band waits
        lod.level[slot] = kCulledLevel;
        continue;
      }
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
  for (PrimitiveGroup& g : groups) g.instances.clear();
  for (std::uint32_t slot = 0; slot < n; ++slot) {
    const std::uint32_t level = lod.level[slot];
    if (level == kCulledLevel) continue;
    for (std::uint32_t g : lod.level_groups[level]) groups[g].instances.push_back(slot);
    ++stats.levels[level].actors;
  }
  st.stats.draws = 0;
  for (PrimitiveGroup& g : groups) {
    g.instance_count = static_cast<std::uint32_t>(g.instances.size());
    if (g.instance_count > 0) ++st.stats.draws;
  }
  for (std::size_t l = 0; l < stats.levels.size(); ++l) {
    stats.levels[l].triangles = stats.levels[l].actors * lod.level_triangles[l];
    stats.triangles += stats.levels[l].triangles;
    stats.vertices += stats.levels[l].actors * lod.level_indices[l];
  }
  stats.visible_actors = visible;
  stats.culled_actors = n - visible - st.hidden_count;  // hidden actors are neither
  st.stats.hidden_actors = st.hidden_count;
  stats.draw_count = st.stats.draws;
}

void Crowd::set_lod_enabled(bool enabled) {
  State& st = live();
  st.lod.options.enabled = enabled;
  if (enabled && !st.lod.configured) {
    // First use on a crowd created without LOD: prepare the levels now. Streams are kept, so
    // actors and their packed poses are untouched; only level groups are added.
    const std::size_t streams_before = st.streams.size();
    prepare_lod_levels(st);
    index_lod_groups(st);
    if (st.streams.size() != streams_before) {  // a level source the plain groups did not pack
      compile_streams(st);
      // Every row of the new stream at once: an update writes the rows of static meshes only
      // where the placement moved.
      for (std::uint32_t slot = 0; slot < st.size(); ++slot) mark_pending(st, slot);
      flush_pending(st);
    }
  }
  reclassify(st);
}

void Crowd::set_lod_bias(float bias) {
  State& st = live();
  if (!(bias > 0.0f && std::isfinite(bias)))
    throw Error("set_lod_bias.bias", Rule::lod_bias, fmt::format("{} must be finite and > 0", bias));
  st.lod.bias = bias;
  reclassify(st);
}

void Crowd::set_lod_vertex_budget(std::uint64_t vertices) {
  State& st = live();
  st.lod.options.vertex_budget = vertices;
  reclassify(st);
}

void Crowd::set_lod_view(const LodView& view) {
  State& st = live();
  validate_lod_view(view, "set_lod_view.view");
  st.lod.view = view;
  reclassify(st);
}

const LodModel* Crowd::lod_model() const noexcept {
  return state_ && state_->lod.configured ? &state_->lod.model : nullptr;
}

Bounds Crowd::world_bounds() const {
  const State& st = live();
  LodState& lod = state_->lod;  // the spheres are built on first use
  if (!lod.configured && !lod.bounds_model) lod.bounds_model = build_lod_model(st.asset, {});
  const LodModel& model = lod.configured ? lod.model : *lod.bounds_model;
  Bounds out;
  for (std::size_t slot = 0; slot < st.size(); ++slot) {
    if (st.hidden_count > 0 && st.hidden[slot]) continue;
    const Sphere s = animated_sphere(model, st.playback[slot], st.placements[slot]);
    out.add(s.center - s.radius);
    out.add(s.center + s.radius);
  }
  return out;
}

std::span<const std::uint32_t> Crowd::group_indices(const PrimitiveGroup& group) const {
  const State& st = live();
  const std::vector<PrimitiveGroup>& groups = st.groups;
  if (&group < groups.data() || &group >= groups.data() + groups.size())
    throw Error("group_indices.group", Rule::foreign_group, "the group is not one of this crowd's primitive_groups()");
  const LodPrimitive* prepared = st.lod.group_primitive[static_cast<std::size_t>(&group - groups.data())];
  if (prepared != nullptr && !prepared->indices.empty()) return prepared->indices;
  return st.asset.meshes[group.mesh].primitives[group.primitive].indices;
}

}  // namespace gltf_crowd
