// Layer 3, lod: levels of detail (docs/spec.md §7). GPU-free.
//
// Once per crowd, build_lod_model() turns the immutable Asset into a LodModel: the source nodes
// the crowd draws, their levels (authored MSFT_lod nodes, or index-only levels generated with
// meshoptimizer that share the original vertex buffers), the coverage thresholds, a rest-pose
// bounding sphere (coverage) and a conservative animated sphere per clip (culling). The asset is
// never mutated.
//
// Per frame, for every actor, the crowd calls:
//   lod_coverage()        → projected sphere diameter / min(W, H) × bias
//   outside_frustum()     → culled when the animated sphere lies outside any of the six planes
//   select_band()         → threshold band with hysteresis; band == thresholds.size() is culled
// then once for all visible actors:
//   apply_vertex_budget() → deterministic demotions until Σ index counts fits the budget
// and reports the result as LodStats.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <glm/glm.hpp>

#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/export.hpp"

GLTF_CROWD_API_BEGIN
namespace gltf_crowd {

// Where a LodModel's levels came from (docs/spec.md §7 "Levels").
enum class LodSource : std::uint8_t { none, authored, generated };

// "none", "authored" or "generated", the names lod_stats uses in JSON.
std::string_view to_string(LodSource source) noexcept;

// LOD options of a crowd (docs/spec.md §7). Defaults: disabled, no generation, ratios [0.5, 0.25],
// boundaries free, thresholds from the asset (authored hints; for generated levels, from their
// error: pixel_error at viewport_pixels; else [0.5, 0.2, 0.01]), hysteresis 0.1, no budget,
// culling below the last threshold. A crowd builds its levels when `enabled` or `auto_generate`
// is set at construction.
struct LodOptions {
  bool enabled = false;                    // classify actors by coverage; set_lod_enabled toggles
  bool auto_generate = false;              // generate levels when the asset has no MSFT_lod
  std::vector<float> ratios{0.5f, 0.25f};  // target index ratio per generated level, each in
                                           // (0, 1), strictly decreasing; of the original primitive
  bool preserve_boundary = false;          // lock open mesh borders (meshopt_SimplifyLockBorder)
  std::vector<float> screen_coverage;      // thresholds, > 0 and non-increasing, one per level
                                           // (build_lod_model checks the count); empty = authored
  float hysteresis = 0.1f;                 // relative dead band, in [0, 1)
  // Generated levels without screen_coverage: level l takes over where its geometric error
  // projects to pixel_error pixels on a viewport whose smaller side is viewport_pixels
  // (docs/spec.md §7 "Thresholds"). Both finite and > 0.
  float pixel_error = 1.0f;
  float viewport_pixels = 1080.0f;
  std::uint64_t vertex_budget = 0;  // max submitted index references; 0 = unlimited
  // Coverage below which an actor is culled for its size, in place of the last threshold
  // (docs/spec.md §11, where the last threshold culls): finite and >= 0; 0 never culls for size
  // (the frustum still culls). Thresholds at or below it are dropped, so actors between it and
  // the last remaining threshold draw at the lowest level reached. Absent: the last threshold.
  std::optional<float> min_coverage{};
};

// Throws Error (path "lod.ratios[i]", "lod.screen_coverage[i]", "lod.hysteresis",
// "lod.min_coverage", "lod.pixel_error", "lod.viewport_pixels"; rules "lod_ratio",
// "lod_screen_coverage", "lod_hysteresis", "lod_min_coverage", "lod_pixel_error") for the first
// invalid field. The count of screen_coverage depends on the
// asset's levels: build_lod_model checks it.
void validate_lod_options(const LodOptions& options);

// The camera LOD classifies against: glm matrices (column-major, clip z in [-1, 1]) and the
// viewport in pixels (both > 0).
struct LodView {
  glm::mat4 view{1.0f};
  glm::mat4 projection{1.0f};
  std::uint32_t width = 1;
  std::uint32_t height = 1;
};

// Throws Error (path "<where>.view" / ".projection" rule "not_finite"; "<where>.projection" rule
// "singular_projection"; "<where>.width" / ".height" rule "viewport_size") for non-finite
// matrices, a singular projection or an empty viewport.
void validate_lod_view(const LodView& view, std::string_view where);

// A bounding sphere; radius 0 with any centre is a point.
struct Sphere {
  glm::vec3 center{0.0f};
  float radius = 0.0f;
};

// One primitive drawn at one level: a primitive of the level node's mesh. `indices` holds
// generated indices into that primitive's own vertex buffers (shared with level 0); it is empty
// when the level draws the asset primitive's own indices (authored levels and level 0).
struct LodPrimitive {
  std::uint32_t primitive = 0;  // index within the level mesh
  std::uint32_t index_count = 0;
  std::uint32_t triangle_count = 0;
  std::vector<std::uint32_t> indices;  // generated; empty = Asset primitive's indices
  float error = 0.0f;                  // SimplifiedLevel::error; 0 for authored levels and level 0
  bool sloppy = false;                 // SimplifiedLevel::sloppy
};

// One level of a source node: the node whose mesh is drawn (it uses the source node's
// animation, skin and placement) and one entry per primitive of that mesh (none for a level node
// without mesh, which draws nothing).
struct LodNodeLevel {
  std::uint32_t node = 0;
  std::int32_t mesh = -1;
  std::vector<LodPrimitive> primitives;
};

// A level dropped because no coverage selects it (docs/spec.md §7.4): each of its bands has a
// threshold equal to the one before it.
struct LodDroppedLevel {
  std::uint32_t level = 0;  // its index among the levels made, before the drop
  float threshold = 0.0f;   // its threshold, equal to the one before it
  float ratio = 0.0f;       // generated: the LodOptions::ratios entry it was made for; else 0
};

// A reachable, visible mesh node (highest detail) with its levels; levels[0] is the node itself.
// A node may have fewer levels than the model: its last level then stands for the lower ones.
struct LodSourceNode {
  std::uint32_t node = 0;
  std::vector<LodNodeLevel> levels;
};

// Everything LOD needs from an asset, built once (docs/spec.md §7).
struct LodModel {
  LodSource source = LodSource::none;
  std::uint32_t level_count = 1;  // max over sources of levels.size(); >= 1
  // Descending thresholds: options.screen_coverage (less dropped_ratios'), else the authored
  // MSFT_screencoverage of the first source node that has one, else for generated levels the
  // error-driven ones (threshold l − 1, where level l takes over: pixel_error /
  // (level_errors[l] × viewport_pixels), at most 1e6 and the previous one, at least the last;
  // the last, 0.01, culls), else [0.5, 0.2, 0.01] then halving to level_count entries;
  // with options.min_coverage, those at or below it dropped and it appended (it may be 0); then
  // each one equal to the one before it dropped (dropped_levels). Strictly decreasing.
  // Level of band i is min(i, level_count - 1); coverage below the last one culls.
  std::vector<float> thresholds;
  std::vector<LodSourceNode> sources;          // depth-first scene order, as the crowd draws them
  std::vector<std::uint64_t> level_indices;    // per level: Σ index counts of one actor
  std::vector<std::uint64_t> level_triangles;  // per level: Σ triangles of one actor
  // Per level: the largest geometric error of its generated primitives, relative to the
  // character's extent (the largest side of any level-0 primitive's bounds, mesh units); 0 for
  // level 0 and authored levels, whose error is unknown.
  std::vector<float> level_errors;
  // Generated: the ratios (of LodOptions::ratios, in order) whose level kept as many indices as
  // the level before it (no primitive could be reduced further) and was therefore not made a
  // level; the levels are those of the other ratios. Empty otherwise.
  std::vector<float> dropped_ratios;
  // Levels dropped, in order, with their thresholds, because their threshold equals the one before
  // it, whatever gave the thresholds; the levels after one move up by one. Empty otherwise.
  std::vector<LodDroppedLevel> dropped_levels;
  // Rest pose, level 0, actor space (before placement): AABB centre of every drawn vertex,
  // radius = largest distance of a vertex from it.
  Sphere rest_sphere;
  // Per clip (Asset::clips order), actor space: contains every vertex of every level at every
  // time of bounds_sample_times (each key and at least 30 Hz), padded by half the largest
  // per-sample motion.
  std::vector<Sphere> clip_spheres;
  // The same for the rest pose (actors of an asset without clips).
  Sphere rest_pose_bounds;
};

// Builds the levels of `asset`: authored MSFT_lod levels of reachable nodes when any exist,
// otherwise (with options.auto_generate) one generated level per ratio, less those that keep as
// many indices as the level before them (LodModel::dropped_ratios), otherwise none. A given
// screen_coverage then has one threshold per ratio and level 0; a dropped ratio's is removed.
// A level whose thresholds all equal the one before them is dropped (LodModel::dropped_levels).
// Throws Error for invalid options (validate_lod_options), for a non-empty screen_coverage whose
// count differs from the level count when there are levels (path "lod.screen_coverage", rule
// "lod_screen_coverage_count": fewer would cull every actor below the last one given, more
// name levels that do not exist) and for an authored level whose skin differs from its source
// node's (path "nodes[i].extensions.MSFT_lod.ids[k]", rule "lod_skin_mismatch").
// O(levels × indices) plus one simplification per primitive and ratio.
LodModel build_lod_model(const Asset& asset, const LodOptions& options);

// The file `asset` was loaded from, as one self-contained GLB with `model`'s generated levels
// added as MSFT_lod alternatives (docs/spec.md §8 `gltf-crowd lod`): per source node and level >= 1 a
// detached node (same skin and morph weights) drawing a copy of its mesh whose reduced primitives
// get new index accessors into the shared vertex data; the source node gets MSFT_lod.ids and
// extras.MSFT_screencoverage = model.thresholds. Buffers and images move into the BIN chunk;
// nothing else in the document changes, so the result loads back with source `authored`.
// Throws Error: rule "lod_export_source" unless model.source is generated with a level to export
// (every one may have been dropped, LodModel::dropped_levels) and the asset has a file, "lod_export_coverage" when a
// threshold is 0 (min_coverage 0: hints must be > 0), "lod_export_compressed" for EXT_meshopt_compression /
// KHR_draco_mesh_compression input, "lod_export_extras" when a source node's extras is not an object, and file errors.
std::vector<std::uint8_t> export_lod_glb(const Asset& asset, const LodModel& model);

// One generated level of one primitive (simplify_levels).
struct SimplifiedLevel {
  std::vector<std::uint32_t> indices;  // triangle list into the primitive's vertices
  // Geometric error relative to the primitive's extent (the largest side of its position
  // bounds): the larger of meshoptimizer's error at rest and the pose check's largest growth
  // (relative to the rest pose's extent); 0 when `indices` are the original ones.
  float error = 0.0f;
  bool sloppy = false;  // from meshopt_simplifySloppy: attribute seams and skin weights ignored
};

// Where a primitive's vertices go as the character moves, for simplify_levels' pose check
// (docs/spec.md §7.2): positions of all vertex_count() vertices at pose_count poses, pose-major
// (vertex v of pose k at positions[k · vertex_count() + v]), pose 0 the rest pose, all in one
// space; and how far, in that space's units, a removed vertex's distance to the level's surface
// may grow at a pose. Fewer than 2 poses: no check.
struct PoseSamples {
  std::vector<glm::vec3> positions;
  std::size_t pose_count = 0;
  float tolerance = 0.0f;
};

// One primitive simplified to each ratio of `ratios` (docs/spec.md §7.2 "Generated"), of its
// original index count each time, with a geometric error of at most `target_error` (relative to
// the primitive's extent; twice that for the sloppy fallback). The topology, not the render
// vertices, is simplified: vertices that differ only in normal or tangent are welded (joint
// weights within 1e-3 in Σ|Δweight|), UV seams stay seams, and each output corner maps back to a
// vertex of its welded class with the normal closest to the face. With `poses`, a result is kept
// only when no vertex it removes is further from the result's surface (the 8 triangles nearest it
// at rest) at any pose than at rest by more than the tolerance; otherwise the worst 4 (or worst
// eighth, if more) are locked and it runs again, up to 64 times. The tolerance is tried at 1/16,
// 1/8, 1/4, 1/2 and 1 × poses.tolerance; the first result within 1.1 × the target is kept, else
// the smallest. Without poses, a skinned vertex whose weights differ from a neighbour's by more
// than 0.5 in Σ|Δweight| stays in place. Open borders move only without `preserve_boundary`. A
// level the regular simplifier leaves above 1.2 × its target comes from meshopt_simplifySloppy
// when that is smaller and passes the pose check (never with `preserve_boundary`, nor for a
// skinned primitive without poses). A level equals the original indices (error 0) when nothing
// could be reduced; primitives not drawn as triangle lists are never reduced. Output:
// ratios.size() levels, each at most the original size and the level before it, every index <
// vertex_count().
std::vector<SimplifiedLevel> simplify_levels(const Primitive& primitive, std::span<const float> ratios,
                                             float target_error, bool preserve_boundary, const PoseSamples& poses = {});

// Triangles drawn by `indices` index references in `mode`: n/3 for triangles, n − 2 for strips
// and fans (n ≥ 3), 0 for points and lines (glTF 2.0 §3.7.2.1 primitive modes).
std::uint32_t triangle_count(PrimitiveMode mode, std::size_t indices) noexcept;

// Largest axis scale of an affine placement: the longest of its first three columns.
float max_axis_scale(const glm::mat4& placement) noexcept;

// Coverage (docs/spec.md §7) = r · s · |P[1][1]| / w_clip × (H / min(W, H)) × bias, with r the rest
// sphere radius, s = max_axis_scale(placement), w_clip the clip-space w of the sphere centre.
// A centre at or behind the eye plane (w_clip <= 0) has infinite coverage.
float lod_coverage(const Sphere& rest_sphere, const glm::mat4& placement, const LodView& view, float bias) noexcept;

// The six planes (left, right, bottom, top, near, far) of projection × view as (n, d) with unit
// n pointing inside: a point p is inside a plane when dot(n, p) + d >= 0.
std::array<glm::vec4, 6> frustum_planes(const LodView& view) noexcept;

// True when the world-space sphere lies entirely outside at least one of the planes.
bool outside_frustum(std::span<const glm::vec4, 6> planes, const Sphere& sphere) noexcept;

// No band yet: the first classification uses the plain thresholds.
inline constexpr std::uint32_t kNoBand = 0xFFFFFFFFu;

// Threshold band of `coverage` with hysteresis h (docs/spec.md §7): the plain band is the first i with
// coverage >= thresholds[i] (thresholds.size() when none: culled). From `current`, move to lower
// detail only when coverage < thresholds[current] · (1 − h), then to the plain band; to higher
// detail only to the first band j in [plain, current) with coverage >= thresholds[j] · (1 + h).
// `current` == kNoBand returns the plain band. `thresholds` is non-empty and descending.
std::uint32_t select_band(float coverage, std::span<const float> thresholds, std::uint32_t current,
                          float hysteresis) noexcept;

// Result of apply_vertex_budget.
struct BudgetResult {
  std::uint64_t vertices = 0;        // Σ level_indices[levels[i]] after demotion
  std::uint32_t demoted_actors = 0;  // actors left below their preferred level
  bool satisfied = true;             // vertices <= budget (always true for budget 0)
};

// The vertex budget of docs/spec.md §7 over n visible actors. While Σ level_indices[levels[i]] > budget,
// demotes the actor with the smallest coverage (ties: smaller insertion number) one level at a
// time until it is at the last level, then the next one. Never culls. `budget` 0 = unlimited
// (nothing changes). Spans: coverage, insertion, levels (in: preferred, out: final) and scratch
// have n entries; every level < level_indices.size(). Never allocates.
BudgetResult apply_vertex_budget(std::span<const float> coverage, std::span<const std::uint64_t> insertion,
                                 std::span<std::uint32_t> levels, std::span<const std::uint64_t> level_indices,
                                 std::uint64_t budget, std::span<std::uint32_t> scratch) noexcept;

// Per-level figures of LodStats.
struct LodLevelStats {
  std::uint32_t actors = 0;     // visible actors drawn at this level
  std::uint64_t triangles = 0;  // their submitted triangles
};

// What the last LOD classification submitted (docs/spec.md §7 `lod_stats`).
struct LodStats {
  LodSource source = LodSource::none;
  std::uint32_t visible_actors = 0;
  std::uint32_t culled_actors = 0;
  std::uint32_t draw_count = 0;                // non-empty primitive groups
  std::uint64_t triangles = 0;                 // submitted triangles, all visible actors
  std::uint64_t vertices = 0;                  // submitted index references
  std::optional<std::uint64_t> vertex_budget;  // absent when unlimited or LOD is off
  std::uint32_t demoted_actors = 0;            // actors below their coverage level for the budget
  bool budget_satisfied = true;
  std::vector<LodLevelStats> levels;            // one per level of the model
  std::vector<float> dropped_ratios;            // LodModel::dropped_ratios: generated levels not made
  std::vector<LodDroppedLevel> dropped_levels;  // LodModel::dropped_levels: levels never selected
};

}  // namespace gltf_crowd
GLTF_CROWD_API_END
