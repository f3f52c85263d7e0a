// Each level of a LodModel as `lod` and `info` report it: indices per actor, the ratio reached
// against level 0, the geometric error and whether the sloppy simplifier made any of it
// (issue 19: ratios are asked for, not promised, so the tools say what was reached).
#pragma once

#include <algorithm>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gltf_crowd/lod.hpp"

namespace gltf_crowd::tools {

// [{level, indices, ratio, error, sloppy}], error relative to the character's extent
// (LodModel::level_errors), null for authored levels (unknown).
inline nlohmann::json lod_levels_json(const LodModel& model) {
  nlohmann::json levels = nlohmann::json::array();
  for (std::uint32_t l = 0; l < model.level_count; ++l) {
    bool sloppy = false;
    for (const LodSourceNode& source : model.sources)  // the last level stands for lower ones
      for (const LodPrimitive& p : source.levels[std::min<std::size_t>(l, source.levels.size() - 1)].primitives)
        sloppy = sloppy || p.sloppy;
    const double base = static_cast<double>(model.level_indices[0]);
    levels.push_back({{"level", l},
                      {"indices", model.level_indices[l]},
                      {"ratio", base > 0 ? static_cast<double>(model.level_indices[l]) / base : 1.0},
                      {"error", model.source == LodSource::authored && l > 0 ? nlohmann::json()
                                                                             : nlohmann::json(model.level_errors[l])},
                      {"sloppy", sloppy}});
  }
  return levels;
}

// One line per level of lod_levels_json, two-space indented by `indent`.
inline void print_lod_levels(const nlohmann::json& levels, int indent) {
  for (const auto& level : levels)
    fmt::print("{:{}}level {}: {} indices per actor, ratio {:.3f}, error {}{}\n", "", indent,
               level["level"].get<std::uint32_t>(), level["indices"].get<std::uint64_t>(), level["ratio"].get<double>(),
               level["error"].is_null() ? "unknown" : fmt::format("{:.3g} of the extent", level["error"].get<float>()),
               level["sloppy"].get<bool>() ? " (sloppy)" : "");
}

// One line per ratio of LodModel::dropped_ratios, indented by `indent`: asked for, but its level
// would have drawn the level before it again.
inline void print_dropped_ratios(const std::vector<float>& ratios, int indent) {
  for (const float ratio : ratios)
    fmt::print("{:{}}ratio {}: dropped, no fewer indices than the level before it\n", "", indent, ratio);
}

// [{level, threshold, ratio}] of LodModel::dropped_levels; ratio only for generated levels.
inline nlohmann::json dropped_levels_json(const std::vector<LodDroppedLevel>& dropped) {
  nlohmann::json out = nlohmann::json::array();
  for (const LodDroppedLevel& d : dropped) {
    out.push_back({{"level", d.level}, {"threshold", d.threshold}});
    if (d.ratio > 0.0f) out.back()["ratio"] = d.ratio;
  }
  return out;
}

// One line per entry of dropped_levels_json, indented by `indent`: no coverage would select it.
// A generated level is named by its ratio, as print_dropped_ratios does.
inline void print_dropped_levels(const nlohmann::json& dropped, int indent) {
  for (const auto& d : dropped)
    fmt::print("{:{}}{}: dropped, its screen coverage threshold {} equals the one before it\n", "", indent,
               d.contains("ratio")
                   ? fmt::format("ratio {}", d["ratio"].get<float>())
                   : fmt::format("level {} (numbered before the drop)", d["level"].get<std::uint32_t>()),
               d["threshold"].get<float>());
}

}  // namespace gltf_crowd::tools
