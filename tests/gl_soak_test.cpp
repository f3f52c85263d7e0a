// GL soak (issue 10, item 4, "GL object count constant"): the randomized operations of the CPU
// soak (crowd_soak.hpp) on RobotExpressive with generated LOD levels, drawn every frame by a
// CrowdRenderer into a 32 × 32 framebuffer, in both palette storages. Between operations the
// test also grows the crowd with reserve and changes the LOD view, enabled state, bias and
// vertex budget.
// Every frame checks the crowd's invariants and that gl_object_count() and the renderer's
// object_count() equal their values after the first draw: growing replaces each capacity-sized
// buffer or texture by one larger object, so no growth may change the count either. Sizes are
// small because llvmpipe is slow; GLTF_CROWD_GL_SOAK_FRAMES overrides the frame count.
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include "crowd_soak.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/gl.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

constexpr std::uint32_t kSize = 32;  // framebuffer width and height, pixels
constexpr std::size_t kStartCapacity = 8;
constexpr std::size_t kCapacityStep = 8;  // reserve grows by this, twice
constexpr int kViewPeriod = 40;           // frames between LOD view changes
constexpr int kSyncPeriod = 64;           // frames between read-backs, which wait for the GPU

// A camera looking at the crowd's centre from `distance` at a random bearing, with the LOD view
// that matches it in a random viewport: near and far cameras and small and large viewports
// move actors between levels and cull some.
struct SoakView {
  Camera camera;
  LodView lod;
};

SoakView random_view(std::mt19937& rng) {
  const float distances[] = {6.0f, 25.0f, 80.0f, 300.0f};
  const std::uint32_t viewports[][2] = {{kSize, kSize}, {640, 480}, {3840, 2160}};
  const float distance = distances[std::uniform_int_distribution<int>(0, 3)(rng)];
  const float bearing = std::uniform_real_distribution<float>(-3.14159f, 3.14159f)(rng);
  const auto* viewport = viewports[std::uniform_int_distribution<int>(0, 2)(rng)];
  SoakView v;
  const glm::vec3 eye(distance * std::sin(bearing), 0.4f * distance + 1.0f, distance * std::cos(bearing));
  v.camera.view = glm::lookAt(eye, glm::vec3(0, 1, 0), glm::vec3(0, 1, 0));
  v.camera.projection = glm::perspective(glm::radians(45.0f), 1.0f, 0.1f, 1000.0f);
  v.lod = {v.camera.view, v.camera.projection, viewport[0], viewport[1]};
  return v;
}

class GlSoakTest : public ::testing::TestWithParam<PaletteStorage> {};

INSTANTIATE_TEST_SUITE_P(Palettes, GlSoakTest,
                         ::testing::Values(PaletteStorage::storage_buffer, PaletteStorage::texture),
                         [](const auto& test_info) { return std::string(palette_storage_name(test_info.param)); });

TEST_P(GlSoakTest, RandomizedOperationsKeepTheGlObjectCountConstant) {
  GLTF_CROWD_REQUIRE_ASSETS();
  // ASan + UBSan at -O0 make both the crowd update and llvmpipe's setup much slower.
  const std::size_t frames = test::soak_frames("GLTF_CROWD_GL_SOAK_FRAMES", 2'000, 1'000);
  ASSERT_GE(frames, 3u);
  HeadlessContext context({.debug = true});
  test::CrowdSoak soak(std::make_shared<const Asset>(load_asset(test::asset_path("threejs/RobotExpressive.glb"))),
                       {.capacity = kStartCapacity, .lod = {.enabled = true, .auto_generate = true}}, 20261201);
  Crowd& crowd = soak.crowd();
  Framebuffer target({.width = kSize, .height = kSize});
  CrowdRenderer renderer(crowd, {.palette = GetParam()});
  std::mt19937 rng(20261202);  // the test's own choices, apart from the driver's operations
  SoakView view = random_view(rng);
  std::size_t objects = 0, renderer_objects = 0, growths = 0;
  std::uint64_t draws = 0;
  // Whether some frame drew actors at each LOD level, and culled some: else the view changes
  // would not have exercised what they are there for.
  std::vector<bool> level_used;
  bool culled = false;
  for (std::size_t frame = 0; frame < frames; ++frame) {
    soak.operate();
    if (frame > 0 && frame % (frames / 3) == 0 && growths < 2) {
      crowd.reserve(crowd.capacity() + kCapacityStep);
      ++growths;
    }
    if (frame % kViewPeriod == 0) {
      view = random_view(rng);
      crowd.set_lod_enabled(std::uniform_int_distribution<int>(0, 4)(rng) != 0);
      crowd.set_lod_bias(std::uniform_real_distribution<float>(0.25f, 4.0f)(rng));
      const std::uint64_t budgets[] = {0, 20'000, 200'000};  // index references; 0 = unlimited
      crowd.set_lod_vertex_budget(budgets[std::uniform_int_distribution<int>(0, 2)(rng)]);
      crowd.update(soak.random_delta(), view.lod);
    } else {
      crowd.update(soak.random_delta());
    }
    target.clear(glm::vec4(0.0f, 0.0f, 1.0f, 1.0f));
    try {
      draws += renderer.draw(crowd, view.camera);
    } catch (const Error& e) {  // name the frame, so that a failure can be replayed
      FAIL() << "frame " << frame << ", capacity " << crowd.capacity() << ", " << crowd.actor_count()
             << " actors: " << e.what() << (context.debug_errors().empty() ? "" : "; first GL debug error: ")
             << (context.debug_errors().empty() ? "" : context.debug_errors().front());
    }
    if (frame % kSyncPeriod == 0) (void)target.read_pixels();
    const LodStats& lod = crowd.lod_stats();
    level_used.resize(lod.levels.size());
    for (std::size_t l = 0; l < lod.levels.size(); ++l) level_used[l] = level_used[l] || lod.levels[l].actors > 0;
    culled = culled || lod.culled_actors > 0;
    ASSERT_TRUE(soak.check(/*dense_groups=*/false)) << "frame " << frame;
    if (frame == 0) {
      objects = gl_object_count();
      renderer_objects = renderer.object_count();
      ASSERT_GT(renderer_objects, 0u);
    }
    ASSERT_EQ(gl_object_count(), objects) << "frame " << frame << ", capacity " << crowd.capacity();
    ASSERT_EQ(renderer.object_count(), renderer_objects) << "frame " << frame;
  }
  (void)target.read_pixels();
  RecordProperty("gl_objects", static_cast<int>(objects));  // for the robustness notes
  RecordProperty("renderer_objects", static_cast<int>(renderer_objects));
  EXPECT_EQ(growths, 2u);
  EXPECT_EQ(crowd.capacity(), kStartCapacity + growths * kCapacityStep);
  EXPECT_GT(draws, 0u);
  EXPECT_EQ(level_used, std::vector<bool>(3, true)) << "RobotExpressive with two generated levels";
  EXPECT_TRUE(culled);
  EXPECT_EQ(context.debug_error_count(), 0u) << (context.debug_errors().empty() ? "" : context.debug_errors().front());
  renderer.destroy();
  target.destroy();
  EXPECT_EQ(gl_object_count(), 0u);
}

}  // namespace
}  // namespace gltf_crowd
