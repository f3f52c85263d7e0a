// Every shared asset loads, with the numbers of ../shared/assets/README.md.
#include <gtest/gtest.h>

#include "gltf_crowd/asset.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

std::size_t reachable_primitives(const Asset& asset) {
  std::size_t count = 0;
  for (const std::uint32_t n : asset.drawn_nodes)
    count += asset.meshes[static_cast<std::size_t>(asset.nodes[n].mesh)].primitives.size();
  return count;
}

TEST(LoaderTest, EverySharedAssetLoads) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const char* files[] = {"threejs/RobotExpressive.glb",
                         "lumagl/SimpleSkinLOD.gltf",
                         "lumagl/msft-lod.gltf",
                         "lumagl/SimpleSkin.gltf",
                         "lumagl/AnimatedMorphCube.glb",
                         "khronos/CesiumMan.glb",
                         "khronos/Fox.glb",
                         "khronos/RiggedSimple.glb",
                         "khronos/RiggedFigure.glb",
                         "khronos/RecursiveSkeletons.glb",
                         "khronos/InterpolationTest.glb",
                         "khronos/NegativeScaleTest.glb",
                         "khronos/BoxAnimated.glb",
                         "khronos/AnimatedColorsCube.glb",
                         "khronos/SimpleInstancing.glb",
                         "khronos/MorphStressTest/MorphStressTest.gltf",
                         "khronos/SimpleMorph.gltf",
                         "khronos/AnimatedTriangle.gltf",
                         "khronos/SimpleSparseAccessor.gltf"};
  for (const char* file : files) {
    SCOPED_TRACE(file);
    EXPECT_NO_THROW(load_asset(test::asset_path(file)));
  }
}

TEST(LoaderTest, RobotExpressiveNumbers) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const Asset a = load_asset(test::asset_path("threejs/RobotExpressive.glb"));
  EXPECT_EQ(a.nodes.size(), 74u);
  EXPECT_EQ(a.meshes.size(), 14u);
  EXPECT_EQ(reachable_primitives(a), 19u);
  ASSERT_EQ(a.skins.size(), 2u);
  EXPECT_EQ(a.skins[0].joints.size(), 43u);
  ASSERT_EQ(a.clips.size(), 14u);
  const int dance = a.find_clip("Dance");
  ASSERT_GE(dance, 0);
  EXPECT_NEAR(a.clips[static_cast<std::size_t>(dance)].duration_seconds, 3.333f, 1e-3f);
  EXPECT_NEAR(a.clips[static_cast<std::size_t>(a.find_clip("Running"))].duration_seconds, 0.9583f, 1e-3f);
}

TEST(LoaderTest, RecursiveSkeletonsHas84ReachablePrimitiveInstances) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const Asset a = load_asset(test::asset_path("khronos/RecursiveSkeletons.glb"));
  EXPECT_EQ(a.nodes.size(), 924u);
  EXPECT_EQ(reachable_primitives(a), 84u);
  EXPECT_EQ(a.skins.size(), 84u);
}

TEST(LoaderTest, SparseAccessorIsApplied) {
  GLTF_CROWD_REQUIRE_ASSETS();
  // SimpleSparseAccessor: a 7×2 grid of vertices at y = 0 and 1; the sparse part (indices
  // 8, 10, 12; values read from the file with a script) moves them to (1,2,0), (3,3,0), (5,4,0).
  const Asset a = load_asset(test::asset_path("khronos/SimpleSparseAccessor.gltf"));
  const Primitive& p = a.meshes[0].primitives[0];
  ASSERT_EQ(p.vertex_count(), 14u);
  EXPECT_EQ(p.positions[8], glm::vec3(1, 2, 0));
  EXPECT_EQ(p.positions[10], glm::vec3(3, 3, 0));
  EXPECT_EQ(p.positions[12], glm::vec3(5, 4, 0));
  EXPECT_EQ(p.positions[9], glm::vec3(2, 1, 0));
  EXPECT_FLOAT_EQ(p.max.y, 4.0f);
}

}  // namespace
}  // namespace gltf_crowd
