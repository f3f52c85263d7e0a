// Generated levels against gltfpack (issue 19): Debian's gltfpack, the same meshoptimizer this
// project links, simplifies the same files with -si in the same run. Targets: at ratios 0.5 and
// 0.25 a generated level has at most 1.1 × the indices gltfpack reaches, and at most 1.15 × the
// requested ratio of level 0 wherever gltfpack reaches that ratio; RobotExpressive (which
// gltfpack leaves unsimplified) reaches 0.3 × level 0 at 0.25. scripts/install-deps.sh installs
// gltfpack; without it the test is skipped with a message, unless CI is set: then it fails.
#include <cstdlib>
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/lod.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

using test::quoted;
using test::run_command;

// Index references one actor draws: every primitive of every drawn node, computed here from the
// asset rather than by the LOD layer.
std::uint64_t drawn_indices(const Asset& asset) {
  std::uint64_t total = 0;
  for (std::uint32_t n : asset.drawn_nodes)
    for (const Primitive& p : asset.meshes[static_cast<std::size_t>(asset.nodes[n].mesh)].primitives)
      total += p.indices.empty() ? p.vertex_count() : p.indices.size();
  return total;
}

class LodGltfpack : public ::testing::TestWithParam<const char*> {};

INSTANTIATE_TEST_SUITE_P(Assets, LodGltfpack,
                         ::testing::Values("khronos/CesiumMan.glb", "khronos/Fox.glb", "khronos/RiggedFigure.glb",
                                           "threejs/RobotExpressive.glb"),
                         [](const auto& test_info) { return std::filesystem::path(test_info.param).stem().string(); });

TEST_P(LodGltfpack, GeneratedLevelsReachWhatGltfpackReaches) {
  GLTF_CROWD_REQUIRE_ASSETS();
  if (run_command("gltfpack -h > /dev/null 2>&1; command -v gltfpack > /dev/null").exit_code != 0) {
    const std::string why = "gltfpack is not installed (run scripts/install-deps.sh)";
    if (std::getenv("CI") != nullptr) FAIL() << why;
    GTEST_SKIP() << why << "; skipping (set CI to make this fail)";
  }
  const std::filesystem::path file = test::asset_path(GetParam());
  const Asset asset = load_asset(file);
  const LodModel model = build_lod_model(asset, {.auto_generate = true, .ratios = {0.5f, 0.25f}});
  ASSERT_EQ(model.level_count, 3u);
  const std::uint64_t base = drawn_indices(asset);
  ASSERT_EQ(model.level_indices[0], base);
  const auto dir = test::scratch_dir("lod_gltfpack");
  const float ratios[] = {0.5f, 0.25f};
  for (std::size_t r = 0; r < 2; ++r) {
    const std::filesystem::path out = dir / fmt::format("{}-{}.glb", file.stem().string(), ratios[r]);
    const auto packed =
        run_command(fmt::format("gltfpack -i {} -o {} -si {} -noq 2>&1", quoted(file), quoted(out), ratios[r]));
    ASSERT_EQ(packed.exit_code, 0) << packed.out;
    const std::uint64_t theirs = drawn_indices(load_asset(out));
    const std::uint64_t ours = model.level_indices[r + 1];
    const std::string where =
        fmt::format("{} at {}: ours {}, gltfpack {}, level 0 {}", GetParam(), ratios[r], ours, theirs, base);
    EXPECT_LE(static_cast<double>(ours), 1.1 * static_cast<double>(theirs)) << where;
    const double asked = ratios[r] * static_cast<double>(base);
    if (static_cast<double>(theirs) <= 1.15 * asked) {
      EXPECT_LE(static_cast<double>(ours), 1.15 * asked) << where;
    }
  }
}

// Issue 19's own target for RobotExpressive, which needs no gltfpack: at ratio 0.25 its
// generated level draws at most 0.3 × level 0's indices.
TEST(LodTargets, RobotExpressiveReachesThreeTenthsAtAQuarter) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const Asset asset = load_asset(test::asset_path("threejs/RobotExpressive.glb"));
  const LodModel model = build_lod_model(asset, {.auto_generate = true, .ratios = {0.5f, 0.25f}});
  ASSERT_EQ(model.level_count, 3u);
  const std::uint64_t base = drawn_indices(asset);
  ASSERT_EQ(model.level_indices[0], base);
  EXPECT_LE(static_cast<double>(model.level_indices[2]), 0.3 * static_cast<double>(base))
      << "ours " << model.level_indices[2] << ", level 0 " << base;
}

}  // namespace
}  // namespace gltf_crowd
