// Private LOD state of a Crowd (docs/spec.md §7): the prepared levels, the live controls, per-actor
// hysteresis and insertion order, and the per-frame scratch of classification.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/lod.hpp"

namespace gltf_crowd {

// A slot that draws nothing this frame.
inline constexpr std::uint32_t kCulledLevel = 0xFFFFFFFFu;

struct LodState {
  LodOptions options;       // enabled, hysteresis and vertex_budget change with controls
  bool configured = false;  // levels prepared: `model` and the level groups exist
  LodModel model;
  // Crowd::world_bounds' spheres while no levels are prepared: level 0's, built on first use.
  std::optional<LodModel> bounds_model;
  float bias = 1.0f;
  std::optional<LodView> view;
  // LOD selects levels this frame: prepared, enabled, and given a view by update().
  bool active() const noexcept { return configured && options.enabled && view.has_value(); }
  // Per level: the groups one actor at that level draws (a source node with fewer levels
  // contributes its last one). Without levels, one entry: every group.
  std::vector<std::vector<std::uint32_t>> level_groups;
  // Per group (groups_ order): its prepared primitive, null for groups without levels.
  std::vector<const LodPrimitive*> group_primitive;
  // One actor's submitted index references and triangles per level.
  std::vector<std::uint64_t> level_indices;
  std::vector<std::uint64_t> level_triangles;

  // Per actor key (stable across slot compaction).
  std::vector<std::uint32_t> band;       // hysteresis state, kNoBand before the first view
  std::vector<std::uint64_t> insertion;  // order of addition: budget tie-break
  std::uint64_t next_insertion = 0;

  // Without classification the level-0 groups draw the visible slots of [0, plain_slots) and the
  // others none, so a refresh with as many actors has nothing to change. kNoBand: rebuild the
  // lists (Actor::set_visible sets it).
  std::uint32_t plain_slots = kNoBand;

  // Per slot, sized for capacity: the level drawn this frame or kCulledLevel, and the
  // coverage it was chosen by (valid while classification is active).
  std::vector<std::uint32_t> level;
  std::vector<float> coverage;
  // Visible actors of this frame, dense; sized for capacity.
  std::vector<std::uint32_t> visible_slots;
  std::vector<float> visible_coverage;
  std::vector<std::uint64_t> visible_insertion;
  std::vector<std::uint32_t> visible_levels;
  std::vector<std::uint32_t> budget_scratch;

  // Records a new actor under `key`: no band yet, next insertion number.
  void add_actor(std::uint32_t key) {
    if (key >= band.size()) {
      band.resize(key + 1, kNoBand);
      insertion.resize(key + 1, 0);
    }
    band[key] = kNoBand;
    insertion[key] = next_insertion++;
  }

  // Sizes the per-slot arrays for `capacity` slots.
  void resize(std::size_t capacity) {
    level.resize(capacity, 0);
    coverage.resize(capacity, 0.0f);
    visible_slots.resize(capacity);
    visible_coverage.resize(capacity);
    visible_insertion.resize(capacity);
    visible_levels.resize(capacity);
    budget_scratch.resize(capacity);
  }
};

}  // namespace gltf_crowd
