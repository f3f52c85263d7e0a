// Per-actor LOD decisions (docs/spec.md §7): coverage, frustum culling, threshold bands with hysteresis,
// and the deterministic vertex budget. Expected values are worked out by hand in comments.
#include <cmath>
#include <limits>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include "gltf_crowd/lod.hpp"

namespace gltf_crowd {
namespace {

// 90° vertical field of view: P[1][1] = 1 / tan(45°) = 1, so coverage = r · s / w_clip.
LodView view_90(std::uint32_t width = 512, std::uint32_t height = 512, float far_plane = 1000.0f) {
  return {
      glm::mat4(1.0f),
      glm::perspective(glm::radians(90.0f), static_cast<float>(width) / static_cast<float>(height), 0.1f, far_plane),
      width, height};
}

glm::mat4 at(float x, float y, float z) { return glm::translate(glm::mat4(1.0f), glm::vec3(x, y, z)); }

TEST(LodCoverage, ProjectedDiameterOverShortSide) {
  const Sphere unit{{0, 0, 0}, 1.0f};
  EXPECT_NEAR(lod_coverage(unit, at(0, 0, -4), view_90(), 1.0f), 0.25f, 1e-6f);  // r / w = 1 / 4
  EXPECT_NEAR(lod_coverage(unit, at(3, 2, -4), view_90(), 1.0f), 0.25f, 1e-6f);  // w ignores x, y
  EXPECT_NEAR(lod_coverage(unit, at(0, 0, -4), view_90(), 2.0f), 0.5f, 1e-6f);   // bias
  // Wide viewport: H / min(W, H) = 1; tall viewport: 1024 / 512 = 2.
  EXPECT_NEAR(lod_coverage(unit, at(0, 0, -4), view_90(1024, 512), 1.0f), 0.25f, 1e-6f);
  EXPECT_NEAR(lod_coverage(unit, at(0, 0, -4), view_90(512, 1024), 1.0f), 0.5f, 1e-6f);
  // Largest axis scale 3; the sphere centre (0, 1, 0) is placed at w = 4 + 0 (y does not count).
  const glm::mat4 scaled = at(0, 0, -4) * glm::scale(glm::mat4(1.0f), glm::vec3(1, 3, 2));
  EXPECT_NEAR(lod_coverage({{0, 1, 0}, 1.0f}, scaled, view_90(), 1.0f), 0.75f, 1e-6f);
  EXPECT_FLOAT_EQ(max_axis_scale(scaled), 3.0f);
  // A camera at z = 10 looking at the origin sees the sphere at distance 10.
  LodView moved = view_90();
  moved.view = glm::lookAt(glm::vec3(0, 0, 10), glm::vec3(0), glm::vec3(0, 1, 0));
  EXPECT_NEAR(lod_coverage(unit, glm::mat4(1.0f), moved, 1.0f), 0.1f, 1e-6f);
  // Centre behind the eye: infinitely large (culling decides whether it is seen).
  EXPECT_EQ(lod_coverage(unit, at(0, 0, 5), view_90(), 1.0f), std::numeric_limits<float>::infinity());
}

TEST(LodCulling, SixPlanes) {
  const auto planes = frustum_planes(view_90(512, 512, 50.0f));
  EXPECT_FALSE(outside_frustum(planes, {{0, 0, -10}, 1.0f}));
  EXPECT_FALSE(outside_frustum(planes, {{0, 0, -0.05f}, 1.0f}));  // straddles the near plane
  // Left plane at x = z (90°, aspect 1): centre 0.5 beyond it, 0.5/√2 ≈ 0.35 < r = 1: partly in.
  EXPECT_FALSE(outside_frustum(planes, {{-10.5f, 0, -10}, 1.0f}));
  EXPECT_TRUE(outside_frustum(planes, {{-12, 0, -10}, 1.0f}));    // 2/√2 ≈ 1.41 > r beyond it
  EXPECT_TRUE(outside_frustum(planes, {{0, 12, -10}, 1.0f}));     // above the top plane
  EXPECT_TRUE(outside_frustum(planes, {{0, 0, 5}, 1.0f}));        // entirely behind the camera
  EXPECT_TRUE(outside_frustum(planes, {{0, 0, -52}, 1.0f}));      // beyond the far plane
  EXPECT_FALSE(outside_frustum(planes, {{0, 0, -50.5f}, 1.0f}));  // straddles the far plane
}

TEST(LodValidity, ViewRejectedWithPathAndRule) {
  LodView bad = view_90();
  bad.width = 0;
  try {
    validate_lod_view(bad, "v");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.path(), "v.width");
    EXPECT_EQ(e.rule(), "viewport_size");
  }
  bad = view_90();
  bad.projection[2][3] = std::numeric_limits<float>::quiet_NaN();
  try {
    validate_lod_view(bad, "v");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.path(), "v.projection");
    EXPECT_EQ(e.rule(), "not_finite");
  }
}

const std::vector<float> kThresholds = {0.5f, 0.2f, 0.01f};

TEST(LodSelection, PlainBandsAtJustBelowAndAbove) {
  const struct {
    float coverage;
    std::uint32_t band;
  } table[] = {{10.0f, 0},   {0.5f, 0},    {0.4999f, 1},
               {0.2f, 1},    {0.1999f, 2}, {0.01f, 2},
               {0.0099f, 3}, {0.0f, 3},    {std::numeric_limits<float>::infinity(), 0}};
  for (const auto& row : table)
    EXPECT_EQ(select_band(row.coverage, kThresholds, kNoBand, 0.1f), row.band) << row.coverage;
}

TEST(LodSelection, HysteresisDeadBand) {
  // h = 0.2: leave level 0 below 0.5 · 0.8 = 0.4; return to it at 0.5 · 1.2 = 0.6 or more.
  std::uint32_t band = select_band(0.6f, kThresholds, kNoBand, 0.2f);
  EXPECT_EQ(band, 0u);
  EXPECT_EQ(band = select_band(0.45f, kThresholds, band, 0.2f), 0u);
  EXPECT_EQ(band = select_band(0.35f, kThresholds, band, 0.2f), 1u);
  EXPECT_EQ(band = select_band(0.55f, kThresholds, band, 0.2f), 1u);
  EXPECT_EQ(select_band(0.55f * 2.0f, kThresholds, band, 0.2f), 0u);  // bias 2
  // From band 2, 0.23 is in band 1 but below 0.2 · 1.2 = 0.24: stay; 0.25 moves up.
  EXPECT_EQ(select_band(0.23f, kThresholds, 2, 0.2f), 2u);
  EXPECT_EQ(select_band(0.25f, kThresholds, 2, 0.2f), 1u);
  // A jump across two bands goes to the best band whose raised threshold it meets.
  EXPECT_EQ(select_band(0.58f, kThresholds, 2, 0.2f), 1u);
  EXPECT_EQ(select_band(0.61f, kThresholds, 2, 0.2f), 0u);
  // Culling obeys the same dead band: culled below 0.01 · 0.8, seen again from 0.01 · 1.2.
  EXPECT_EQ(select_band(0.009f, kThresholds, 2, 0.2f), 2u);
  EXPECT_EQ(select_band(0.007f, kThresholds, 2, 0.2f), 3u);
  EXPECT_EQ(select_band(0.011f, kThresholds, 3, 0.2f), 3u);
  EXPECT_EQ(select_band(0.013f, kThresholds, 3, 0.2f), 2u);
  // Several bands down at once when far below.
  EXPECT_EQ(select_band(0.05f, kThresholds, 0, 0.2f), 2u);
}

// Cost per level of SimpleSkinLOD: 24, 12, 6 indices.
const std::vector<std::uint64_t> kCost = {24, 12, 6};

struct Budgeted {
  std::vector<std::uint32_t> levels;
  BudgetResult result;
};

Budgeted run_budget(std::vector<float> coverage, std::vector<std::uint64_t> insertion,
                    std::vector<std::uint32_t> levels, std::uint64_t budget) {
  std::vector<std::uint32_t> scratch(levels.size());
  const BudgetResult r = apply_vertex_budget(coverage, insertion, levels, kCost, budget, scratch);
  return {levels, r};
}

TEST(LodBudget, SimpleSkinLodReference) {
  // Actors at z = -1.5, -4, -12 prefer levels 0, 1, 2: 24 + 12 + 6 = 42 > 24. The smallest
  // (z = -12) is already lowest; z = -4 goes to 2 (36), then z = -1.5 to 1 (24): fits.
  const Budgeted b = run_budget({0.745f, 0.28f, 0.093f}, {0, 1, 2}, {0, 1, 2}, 24);
  EXPECT_EQ(b.levels, (std::vector<std::uint32_t>{1, 2, 2}));
  EXPECT_EQ(b.result.vertices, 24u);
  EXPECT_EQ(b.result.demoted_actors, 2u);
  EXPECT_TRUE(b.result.satisfied);
}

TEST(LodBudget, EqualCoverageDemotesTheFirstInserted) {
  // Two actors at level 0 (48) with budget 36: one demotion to level 1 suffices. Slot order is
  // not insertion order: the actor in slot 1 was inserted first.
  const Budgeted b = run_budget({0.3f, 0.3f}, {7, 4}, {0, 0}, 36);
  EXPECT_EQ(b.levels, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(b.result.demoted_actors, 1u);
}

TEST(LodBudget, ImpossibleBudgetLowersEveryoneAndNeverCulls) {
  const Budgeted b = run_budget({0.9f, 0.5f, 0.3f}, {0, 1, 2}, {0, 0, 1}, 1);
  EXPECT_EQ(b.levels, (std::vector<std::uint32_t>{2, 2, 2}));
  EXPECT_EQ(b.result.vertices, 18u);
  EXPECT_EQ(b.result.demoted_actors, 3u);
  EXPECT_FALSE(b.result.satisfied);
}

TEST(LodBudget, ZeroIsUnlimitedAndAFittingBudgetChangesNothing) {
  for (std::uint64_t budget : {0ull, 42ull, 1000ull}) {
    const Budgeted b = run_budget({0.745f, 0.28f, 0.093f}, {0, 1, 2}, {0, 1, 2}, budget);
    EXPECT_EQ(b.levels, (std::vector<std::uint32_t>{0, 1, 2})) << budget;
    EXPECT_EQ(b.result.vertices, 42u);
    EXPECT_EQ(b.result.demoted_actors, 0u);
    EXPECT_TRUE(b.result.satisfied);
  }
}

}  // namespace
}  // namespace gltf_crowd
