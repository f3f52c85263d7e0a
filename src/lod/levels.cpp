// The levels of an asset (docs/spec.md §7 "Levels", "Thresholds"): authored MSFT_lod levels mapped back
// to their highest-detail node, else generated index-only levels, else none; thresholds; the
// per-level cost of one actor that the vertex budget spends.
// Based on: MSFT_lod (github.com/KhronosGroup/glTF, extensions/2.0/Vendor/MSFT_lod): node ids
// of progressively lower detail, and extras.MSFT_screencoverage hints, best level first.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "anim/posed_positions.hpp"
#include "gltf_crowd/bounds.hpp"
#include "gltf_crowd/error.hpp"
#include "gltf_crowd/pose.hpp"
#include "lod/spheres.hpp"

namespace gltf_crowd {
namespace {

constexpr float kDefaultThresholds[] = {0.5f, 0.2f, 0.01f};
// Geometric error a generated level may reach, relative to the character's extent: 3 % keeps
// thin limbs while the coarse levels reach their ratios (at 5 % RiggedFigure's level 2 lost 8.8 %
// of its walking silhouette; docs/benchmarks.md, "Tried and dropped"); the error reached, not this bound, sets the
// thresholds.
constexpr float kTargetError = 0.03f;
// The pose check (docs/spec.md §7.2): a removed vertex's distance to the level's surface may grow
// by at most 2 % of the character's rest-pose extent, within the 3 % error budget (at 0.5 %, Fox
// stayed above 1,000 of its 1,728 indices at both ratios); each clip is sampled at up to 16
// evenly spaced times from its start, at most 64 poses in all.
constexpr float kPoseTolerance = 0.02f;
constexpr std::size_t kPosesPerClip = 16;
constexpr std::size_t kMaxPoses = 64;
// A generated level without error (a flat part) takes over at any coverage up to this.
constexpr float kMaxThreshold = 1e6f;

LodNodeLevel authored_level(const Asset& asset, std::uint32_t node) {
  LodNodeLevel level{node, asset.nodes[node].mesh, {}};
  if (level.mesh < 0) return level;
  const Mesh& mesh = asset.meshes[static_cast<std::size_t>(level.mesh)];
  for (std::size_t p = 0; p < mesh.primitives.size(); ++p) {
    const Primitive& primitive = mesh.primitives[p];
    level.primitives.push_back({static_cast<std::uint32_t>(p),
                                static_cast<std::uint32_t>(primitive.indices.size()),
                                triangle_count(primitive.mode, primitive.indices.size()),
                                {}});
  }
  return level;
}

// A level draws with its source node's palette, so its skin must bind the same joints, and its
// joint indices must fit that palette.
void check_level_skin(const Asset& asset, std::uint32_t source, std::size_t k) {
  const std::uint32_t id = asset.nodes[source].lod_ids[k];
  const Node& level = asset.nodes[id];
  if (level.mesh < 0) return;
  const std::string path = fmt::format("nodes[{}].extensions.MSFT_lod.ids[{}]", source, k);
  const std::int32_t skin = asset.nodes[source].skin;
  const std::vector<std::uint32_t>* joints = skin >= 0 ? &asset.skins[static_cast<std::size_t>(skin)].joints : nullptr;
  if (level.skin >= 0 && (joints == nullptr || asset.skins[static_cast<std::size_t>(level.skin)].joints != *joints))
    throw Error(path, Rule::lod_skin_mismatch,
                fmt::format("node {} is skinned by skins[{}], whose joints differ from node {}'s skin", id, level.skin,
                            source));
  for (const Primitive& primitive : asset.meshes[static_cast<std::size_t>(level.mesh)].primitives) {
    if (primitive.joints0.empty()) continue;
    if (joints == nullptr)
      throw Error(path, Rule::lod_skin_mismatch,
                  fmt::format("node {} has skinned primitives but node {} has no skin", id, source));
    const auto fits = [&](const std::vector<glm::u16vec4>& set) {
      return std::all_of(set.begin(), set.end(), [&](const glm::u16vec4& j) {
        return glm::all(
            glm::lessThan(j, glm::u16vec4(static_cast<std::uint16_t>(std::min<std::size_t>(joints->size(), 0xFFFF)))));
      });
    };
    if (!fits(primitive.joints0) || !fits(primitive.joints1))
      throw Error(path, Rule::lod_skin_mismatch,
                  fmt::format("node {} uses joints beyond the {} of node {}'s skin", id, joints->size(), source));
  }
}

// The drawn nodes (Asset::drawn_nodes, the crowd's order) minus the nodes that are another drawn
// node's MSFT_lod alternative.
std::vector<std::uint32_t> source_nodes(const Asset& asset) {
  std::vector<std::uint32_t> drawn = asset.drawn_nodes;
  std::vector<bool> alternative(asset.nodes.size(), false);
  for (std::uint32_t n : drawn)
    for (std::uint32_t id : asset.nodes[n].lod_ids) alternative[id] = true;
  std::erase_if(drawn, [&](std::uint32_t n) { return alternative[n]; });
  return drawn;
}

// Largest side of a primitive's position bounds (meshopt_simplifyScale's extent), in mesh units.
float extent(const Primitive& p) noexcept {
  const glm::vec3 size = p.max - p.min;
  return std::max({size.x, size.y, size.z});
}

// The character's extent: the largest extent of any level-0 primitive, in mesh units. Errors are
// budgeted and reported against it, not against each part: a hand may lose what the body may.
float character_extent(const Asset& asset, std::span<const LodSourceNode> sources) noexcept {
  float out = 0.0f;
  for (const LodSourceNode& source : sources)
    for (const Primitive& primitive : asset.meshes[static_cast<std::size_t>(source.levels[0].mesh)].primitives)
      out = std::max(out, extent(primitive));
  return out;
}

// Largest side of the bounds of every level-0 primitive posed at the current pose of `pose`.
float posed_extent(const Asset& asset, std::span<const LodSourceNode> sources, AssetPose& pose) {
  std::vector<glm::mat4> world(asset.nodes.size());
  pose.world_matrices(glm::mat4(1.0f), world);
  std::vector<glm::vec3> points;
  for (const LodSourceNode& source : sources)
    for (const Primitive& primitive : asset.meshes[static_cast<std::size_t>(source.levels[0].mesh)].primitives)
      detail::append_posed_positions(asset, source.node, primitive, world, pose.weights(), points);
  Bounds bounds;
  for (const glm::vec3& p : points) bounds.add(p);
  if (bounds.empty()) return 0.0f;
  const glm::vec3 size = bounds.max - bounds.min;
  return std::max({size.x, size.y, size.z});
}

// `primitive`, drawn by `node`, at rest and at the sampled times of every clip; none when the
// asset has no clips or the primitive neither is skinned nor has morph targets.
PoseSamples sample_poses(const Asset& asset, std::uint32_t node, const Primitive& primitive, AssetPose& pose,
                         float tolerance) {
  PoseSamples out;
  out.tolerance = tolerance;
  if (asset.clips.empty() || (primitive.joints0.empty() && primitive.targets.empty())) return out;
  std::vector<glm::mat4> world(asset.nodes.size());
  const auto add = [&] {
    pose.world_matrices(glm::mat4(1.0f), world);
    detail::append_posed_positions(asset, node, primitive, world, pose.weights(), out.positions);
    ++out.pose_count;
  };
  pose.set_rest();
  add();
  const std::size_t per_clip = std::clamp<std::size_t>(kMaxPoses / asset.clips.size(), 1, kPosesPerClip);
  for (std::size_t c = 0; c < asset.clips.size() && out.pose_count <= kMaxPoses; ++c)
    for (std::size_t i = 0; i < per_clip; ++i) {
      pose.set_clip(c, asset.clips[c].duration_seconds * static_cast<float>(i) / static_cast<float>(per_clip));
      add();
    }
  return out;
}

void generate_levels(const Asset& asset, const LodOptions& options, LodModel& model) {
  const float model_extent = character_extent(asset, model.sources);
  AssetPose pose(asset);
  pose.set_rest();
  const float pose_tolerance = kPoseTolerance * posed_extent(asset, model.sources, pose);
  // A mesh drawn by several nodes is simplified once.
  std::map<std::int32_t, std::vector<std::vector<SimplifiedLevel>>> by_mesh;
  bool reduced = false;
  for (const LodSourceNode& source : model.sources) {
    const std::int32_t mesh = source.levels[0].mesh;
    if (by_mesh.contains(mesh)) continue;
    auto& primitives = by_mesh[mesh];
    for (const Primitive& primitive : asset.meshes[static_cast<std::size_t>(mesh)].primitives) {
      const float part = extent(primitive);
      const float target_error = part > 0.0f ? kTargetError * model_extent / part : kTargetError;
      const PoseSamples poses = sample_poses(asset, source.node, primitive, pose, pose_tolerance);
      primitives.push_back(simplify_levels(primitive, options.ratios, target_error, options.preserve_boundary, poses));
      for (const SimplifiedLevel& level : primitives.back())
        reduced = reduced || level.indices.size() < primitive.indices.size();
    }
  }
  if (!reduced) return;
  model.source = LodSource::generated;
  // A ratio whose level keeps as many indices as the level before it is dropped: no primitive
  // grows from level to level, so it would draw that level again (docs/spec.md §7.2).
  std::vector<bool> kept(options.ratios.size());
  std::size_t before = 0;  // indices of one actor at the last kept level
  for (const LodSourceNode& source : model.sources)
    for (const LodPrimitive& p : source.levels[0].primitives) before += p.index_count;
  for (std::size_t r = 0; r < options.ratios.size(); ++r) {
    std::size_t count = 0;
    for (const LodSourceNode& source : model.sources)
      for (const std::vector<SimplifiedLevel>& primitive : by_mesh[source.levels[0].mesh])
        count += primitive[r].indices.size();
    kept[r] = count < before;
    if (kept[r])
      before = count;
    else
      model.dropped_ratios.push_back(options.ratios[r]);
  }
  for (LodSourceNode& source : model.sources) {
    const LodNodeLevel base = source.levels[0];
    const Mesh& mesh = asset.meshes[static_cast<std::size_t>(base.mesh)];
    const auto& primitives = by_mesh[base.mesh];
    for (std::size_t r = 0; r < options.ratios.size(); ++r) {
      if (!kept[r]) continue;
      LodNodeLevel level{base.node, base.mesh, {}};
      for (std::size_t p = 0; p < primitives.size(); ++p) {
        const Primitive& primitive = mesh.primitives[p];
        const SimplifiedLevel& simplified = primitives[p][r];
        const std::size_t count = simplified.indices.size();
        // Unreduced primitives draw the asset's own indices.
        const bool reduced_here = count < primitive.indices.size();
        level.primitives.push_back({static_cast<std::uint32_t>(p), static_cast<std::uint32_t>(count),
                                    triangle_count(primitive.mode, count),
                                    reduced_here ? simplified.indices : std::vector<std::uint32_t>{},
                                    reduced_here ? simplified.error : 0.0f, reduced_here && simplified.sloppy});
      }
      source.levels.push_back(std::move(level));
    }
  }
}

std::vector<float> resolve_thresholds(const Asset& asset, const LodOptions& options, const LodModel& model) {
  if (!options.screen_coverage.empty()) {
    // Generated levels take one threshold per level asked for, the original and one per ratio:
    // which ratios are dropped is known only now, and their thresholds go with them.
    const bool generated = model.source == LodSource::generated;
    const std::size_t levels = generated ? options.ratios.size() + 1 : model.level_count;
    if (model.source != LodSource::none && options.screen_coverage.size() != levels)
      throw Error(
          "lod.screen_coverage", Rule::lod_screen_coverage_count,
          fmt::format("{} {} for {} levels ({}): give one threshold per level{}", options.screen_coverage.size(),
                      options.screen_coverage.size() == 1 ? "threshold" : "thresholds", levels, to_string(model.source),
                      generated ? ", the original and one per ratio" : ""));
    std::vector<float> thresholds = options.screen_coverage;
    // Threshold r is where ratio r's level would take over: without it, the level before holds on.
    for (std::size_t r = options.ratios.size(); generated && r-- > 0;)
      if (std::find(model.dropped_ratios.begin(), model.dropped_ratios.end(), options.ratios[r]) !=
          model.dropped_ratios.end())
        thresholds.erase(thresholds.begin() + static_cast<std::ptrdiff_t>(r));
    return thresholds;
  }
  if (model.source == LodSource::authored)
    for (const LodSourceNode& source : model.sources)
      if (const std::vector<float>& hints = asset.nodes[source.node].lod_screen_coverage; !hints.empty()) {
        for (std::size_t i = 0; i < hints.size(); ++i)
          if (!(hints[i] > 0.0f && std::isfinite(hints[i])) || (i > 0 && hints[i] > hints[i - 1]))
            throw Error(fmt::format("nodes[{}].extras.MSFT_screencoverage[{}]", source.node, i),
                        Rule::lod_screen_coverage,
                        fmt::format("{} must be finite, > 0 and not above the previous hint", hints[i]));
        return hints;
      }
  std::vector<float> thresholds(std::begin(kDefaultThresholds), std::end(kDefaultThresholds));
  if (model.source == LodSource::generated) {
    // Level l takes over where its error, a fraction e of the character's extent, covers
    // pixel_error pixels: coverage × viewport × e = pixel_error. The extent is at most the rest
    // sphere's diameter that coverage measures, so the error on screen is at most that.
    const float cull = thresholds.back();
    thresholds.assign(model.level_count, cull);
    for (std::uint32_t l = 1; l < model.level_count; ++l) {
      const float e = model.level_errors[l];
      float t = e > 0.0f ? options.pixel_error / (e * options.viewport_pixels) : kMaxThreshold;
      t = std::min({t, kMaxThreshold, l > 1 ? thresholds[l - 2] : kMaxThreshold});
      thresholds[l - 1] = std::max(t, cull);
    }
    return thresholds;
  }
  while (thresholds.size() < model.level_count) thresholds.push_back(thresholds.back() * 0.5f);
  return thresholds;
}

// Drops each level whose every band is empty: band i is empty when tᵢ equals tᵢ₋₁, since coverage
// ≥ tᵢ already chose band i − 1 (docs/spec.md §7.4). Those bands' thresholds go too, so band i
// still draws level min(i, level_count − 1); levels that no band reaches are left as they were.
void drop_unselectable_levels(LodModel& model, const LodOptions& options) {
  const std::vector<float>& t = model.thresholds;
  std::vector<bool> banded(model.level_count, false), selectable(model.level_count, false);
  std::vector<float> thresholds;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const std::size_t level = std::min<std::size_t>(i, model.level_count - 1);
    if (!banded[level]) model.dropped_levels.push_back({static_cast<std::uint32_t>(level), t[i]});
    banded[level] = true;
    if (i > 0 && t[i] == t[i - 1]) continue;
    selectable[level] = true;
    thresholds.push_back(t[i]);
  }
  std::erase_if(model.dropped_levels, [&](const LodDroppedLevel& d) { return selectable[d.level]; });
  model.thresholds = std::move(thresholds);
  if (model.dropped_levels.empty()) return;
  std::vector<std::uint32_t> kept;
  for (std::uint32_t l = 0; l < model.level_count; ++l)
    if (selectable[l] || !banded[l]) kept.push_back(l);
  // A source with fewer levels draws its last one for the lower levels, so it keeps that one.
  for (LodSourceNode& source : model.sources) {
    std::vector<LodNodeLevel> levels;
    for (std::size_t k = 0, last = source.levels.size(); k < kept.size(); ++k) {
      const std::size_t own = std::min<std::size_t>(kept[k], source.levels.size() - 1);
      if (own != last) levels.push_back(source.levels[own]);
      last = own;
    }
    source.levels = std::move(levels);
  }
  const auto keep = [&](auto& per_level) {
    for (std::size_t k = 0; k < kept.size(); ++k) per_level[k] = per_level[kept[k]];
    per_level.resize(kept.size());
  };
  keep(model.level_indices);
  keep(model.level_triangles);
  keep(model.level_errors);
  model.level_count = static_cast<std::uint32_t>(kept.size());
  if (model.source != LodSource::generated) return;
  std::vector<float> ratios = options.ratios;  // of levels 1, 2, ... as made
  std::erase_if(ratios,
                [&](float r) { return std::ranges::find(model.dropped_ratios, r) != model.dropped_ratios.end(); });
  for (LodDroppedLevel& d : model.dropped_levels) d.ratio = ratios[d.level - 1];
}

}  // namespace

std::string_view to_string(LodSource source) noexcept {
  switch (source) {
    case LodSource::authored: return "authored";
    case LodSource::generated: return "generated";
    default: return "none";
  }
}

void validate_lod_options(const LodOptions& options) {
  for (std::size_t i = 0; i < options.ratios.size(); ++i) {
    const float r = options.ratios[i];
    if (!(r > 0.0f && r < 1.0f) || (i > 0 && !(r < options.ratios[i - 1])))
      throw Error(fmt::format("lod.ratios[{}]", i), Rule::lod_ratio,
                  fmt::format("{} must be in (0, 1) and below the previous ratio", r));
  }
  for (std::size_t i = 0; i < options.screen_coverage.size(); ++i) {
    const float t = options.screen_coverage[i];
    if (!(t > 0.0f && std::isfinite(t)) || (i > 0 && t > options.screen_coverage[i - 1]))
      throw Error(fmt::format("lod.screen_coverage[{}]", i), Rule::lod_screen_coverage,
                  fmt::format("{} must be finite, > 0 and not above the previous threshold", t));
  }
  if (!(options.hysteresis >= 0.0f && options.hysteresis < 1.0f))
    throw Error("lod.hysteresis", Rule::lod_hysteresis, fmt::format("{} is not in [0, 1)", options.hysteresis));
  if (!(options.pixel_error > 0.0f && std::isfinite(options.pixel_error)))
    throw Error("lod.pixel_error", Rule::lod_pixel_error,
                fmt::format("{} must be finite and > 0", options.pixel_error));
  if (!(options.viewport_pixels > 0.0f && std::isfinite(options.viewport_pixels)))
    throw Error("lod.viewport_pixels", Rule::lod_pixel_error,
                fmt::format("{} must be finite and > 0", options.viewport_pixels));
  if (options.min_coverage && !(*options.min_coverage >= 0.0f && std::isfinite(*options.min_coverage)))
    throw Error("lod.min_coverage", Rule::lod_min_coverage,
                fmt::format("{} must be finite and >= 0", *options.min_coverage));
}

LodModel build_lod_model(const Asset& asset, const LodOptions& options) {
  validate_lod_options(options);
  LodModel model;
  const std::vector<std::uint32_t> nodes = source_nodes(asset);
  const bool authored =
      std::any_of(nodes.begin(), nodes.end(), [&](std::uint32_t n) { return !asset.nodes[n].lod_ids.empty(); });
  for (std::uint32_t n : nodes) {
    LodSourceNode source{n, {authored_level(asset, n)}};
    if (authored) {
      for (std::size_t k = 0; k < asset.nodes[n].lod_ids.size(); ++k) {
        check_level_skin(asset, n, k);
        source.levels.push_back(authored_level(asset, asset.nodes[n].lod_ids[k]));
      }
    }
    model.sources.push_back(std::move(source));
  }
  if (authored)
    model.source = LodSource::authored;
  else if (options.auto_generate)
    generate_levels(asset, options, model);

  for (const LodSourceNode& source : model.sources)
    model.level_count = std::max(model.level_count, static_cast<std::uint32_t>(source.levels.size()));
  model.level_indices.assign(model.level_count, 0);
  model.level_triangles.assign(model.level_count, 0);
  model.level_errors.assign(model.level_count, 0.0f);
  const float model_extent = model.source == LodSource::generated ? character_extent(asset, model.sources) : 0.0f;
  for (std::uint32_t l = 0; l < model.level_count; ++l) {
    for (const LodSourceNode& source : model.sources) {
      const LodNodeLevel& level = source.levels[std::min<std::size_t>(l, source.levels.size() - 1)];
      const Mesh* mesh = level.mesh >= 0 ? &asset.meshes[static_cast<std::size_t>(level.mesh)] : nullptr;
      for (const LodPrimitive& p : level.primitives) {
        model.level_indices[l] += p.index_count;
        model.level_triangles[l] += p.triangle_count;
        if (p.error > 0.0f && model_extent > 0.0f)
          model.level_errors[l] =
              std::max(model.level_errors[l], p.error * extent(mesh->primitives[p.primitive]) / model_extent);
      }
    }
  }
  model.thresholds = resolve_thresholds(asset, options, model);
  if (options.min_coverage) {
    std::erase_if(model.thresholds, [&](float t) { return t <= *options.min_coverage; });
    model.thresholds.push_back(*options.min_coverage);
  }
  drop_unselectable_levels(model, options);
  detail::compute_lod_bounds(asset, model);
  return model;
}

std::uint32_t triangle_count(PrimitiveMode mode, std::size_t indices) noexcept {
  switch (mode) {
    case PrimitiveMode::triangles: return static_cast<std::uint32_t>(indices / 3);
    case PrimitiveMode::triangle_strip:
    case PrimitiveMode::triangle_fan: return indices >= 3 ? static_cast<std::uint32_t>(indices - 2) : 0;
    default: return 0;
  }
}

}  // namespace gltf_crowd
