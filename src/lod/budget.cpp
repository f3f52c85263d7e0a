// The deterministic vertex budget of docs/spec.md §7: demote the smallest actors first, never cull.
// Coverage does not change while demoting, so the actor with the smallest coverage stays the
// smallest: one sort, then each actor is lowered as far as needed before the next one.
#include <algorithm>
#include <cassert>
#include <numeric>

#include "gltf_crowd/lod.hpp"

namespace gltf_crowd {

BudgetResult apply_vertex_budget(std::span<const float> coverage, std::span<const std::uint64_t> insertion,
                                 std::span<std::uint32_t> levels, std::span<const std::uint64_t> level_indices,
                                 std::uint64_t budget, std::span<std::uint32_t> scratch) noexcept {
  assert(coverage.size() == levels.size() && insertion.size() == levels.size() && scratch.size() >= levels.size());
  assert(!level_indices.empty());
  BudgetResult result;
  for (std::uint32_t level : levels) result.vertices += level_indices[level];
  if (budget == 0 || result.vertices <= budget) return result;
  const std::span<std::uint32_t> order = scratch.first(levels.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return coverage[a] != coverage[b] ? coverage[a] < coverage[b] : insertion[a] < insertion[b];
  });
  const auto lowest = static_cast<std::uint32_t>(level_indices.size() - 1);
  for (std::uint32_t i : order) {
    if (result.vertices <= budget) break;
    if (levels[i] >= lowest) continue;
    while (levels[i] < lowest && result.vertices > budget) {
      result.vertices -= level_indices[levels[i]];
      result.vertices += level_indices[++levels[i]];
    }
    ++result.demoted_actors;
  }
  result.satisfied = result.vertices <= budget;
  return result;
}

}  // namespace gltf_crowd
