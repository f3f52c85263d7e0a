// LodStats as JSON with the field names of docs/spec.md §7, for the tools' statistics files.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "gltf_crowd/lod.hpp"
#include "tools/lod_report.hpp"

namespace gltf_crowd::tools {

// {source, visible_actors, culled_actors, draw_count, triangles, vertices, vertex_budget,
// demoted_actors, budget_satisfied, levels: [{actors, triangles}], dropped_ratios,
// dropped_levels: [{level, threshold, ratio}]};
// vertex_budget is absent when the budget is unlimited, as in lod_stats.
inline nlohmann::json lod_stats_json(const LodStats& s) {
  nlohmann::json out = {{"source", std::string(to_string(s.source))},
                        {"visible_actors", s.visible_actors},
                        {"culled_actors", s.culled_actors},
                        {"draw_count", s.draw_count},
                        {"triangles", s.triangles},
                        {"vertices", s.vertices},
                        {"demoted_actors", s.demoted_actors},
                        {"budget_satisfied", s.budget_satisfied},
                        {"levels", nlohmann::json::array()},
                        {"dropped_ratios", s.dropped_ratios},
                        {"dropped_levels", dropped_levels_json(s.dropped_levels)}};
  if (s.vertex_budget) out["vertex_budget"] = *s.vertex_budget;
  for (const LodLevelStats& level : s.levels)
    out["levels"].push_back({{"actors", level.actors}, {"triangles", level.triangles}});
  return out;
}

}  // namespace gltf_crowd::tools
