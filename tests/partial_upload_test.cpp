// Upload only what changed (issue 9, item 4): CrowdRenderer re-uploads the slots whose packed
// rows changed since its last draw (Crowd::slot_generations), and the image stays the one a
// fresh renderer, which uploads everything, draws.
#include <memory>
#include <string>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"
#include "gltf_crowd/gl.hpp"

namespace gltf_crowd {
namespace {

class PartialUploadTest : public ::testing::TestWithParam<PaletteStorage> {};

INSTANTIATE_TEST_SUITE_P(Palettes, PartialUploadTest,
                         ::testing::Values(PaletteStorage::storage_buffer, PaletteStorage::texture),
                         [](const auto& test_info) { return std::string(palette_storage_name(test_info.param)); });

// Bytes one slot occupies on the GPU: a transform per stream, a palette per palette owner,
// morph weights padded to 4.
std::uint64_t slot_bytes(const Crowd& crowd) {
  std::uint64_t bytes = 0;
  for (const NodeStream& s : crowd.node_streams())
    bytes += 48 + (s.palette.empty() ? 0 : 48ull * s.joint_count) + 4ull * s.weight_stride;
  return bytes;
}

std::vector<std::uint8_t> draw(CrowdRenderer& renderer, const Crowd& crowd, const Camera& camera,
                               const Framebuffer& target) {
  target.clear(glm::vec4(0.1f, 0.1f, 0.1f, 1.0f));
  renderer.draw(crowd, camera);
  return target.read_pixels();
}

TEST_P(PartialUploadTest, OnlyChangedSlotsAreUploadedAndTheImageIsUnchanged) {
  HeadlessContext context;
  const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  constexpr std::size_t kActors = 30;
  Crowd crowd(asset, {.capacity = kActors});
  std::vector<ActorOptions> options(kActors);
  for (std::size_t i = 0; i < kActors; ++i) {
    options[i].clip = asset->clips[i % asset->clips.size()].name;
    options[i].phase = static_cast<float>(i) / kActors;
    options[i].transform = glm::translate(glm::mat4(1.0f), glm::vec3(float(i % 6) - 2.5f, 0.0f, -float(i / 6)));
  }
  auto actors = crowd.add_actors(options);
  Camera camera;
  camera.view = glm::lookAt(glm::vec3(0, 3, 6), glm::vec3(0, 1, -2), glm::vec3(0, 1, 0));
  camera.projection = glm::perspective(glm::radians(60.0f), 1.0f, 0.1f, 100.0f);
  Framebuffer target({.width = 96, .height = 96});
  CrowdRenderer renderer(crowd, {.palette = GetParam()});

  crowd.update(1.0f / 60.0f);
  draw(renderer, crowd, camera, target);
  EXPECT_GE(renderer.stats().upload_bytes, kActors * slot_bytes(crowd)) << "the first draw uploads every slot";

  // Nothing changed: nothing is uploaded.
  draw(renderer, crowd, camera, target);
  EXPECT_EQ(renderer.stats().upload_bytes, 0u);

  // Everyone paused but three actors far apart in slot order: three slots change per frame.
  for (Actor& a : actors) a.pause();
  draw(renderer, crowd, camera, target);
  for (const std::size_t i : {2u, 14u, 26u}) actors[i].play();
  for (int frame = 0; frame < 5; ++frame) {
    crowd.update(1.0f / 30.0f);
    ASSERT_EQ(crowd.frame_stats().actors_evaluated, 3u);
    const std::vector<std::uint8_t> partial = draw(renderer, crowd, camera, target);
    EXPECT_EQ(renderer.stats().upload_bytes, 3 * slot_bytes(crowd)) << "frame " << frame;
    CrowdRenderer fresh(crowd, {.palette = GetParam()});
    EXPECT_EQ(draw(fresh, crowd, camera, target), partial) << "frame " << frame;
  }

  // Removing an actor moves the last one into its slot: that slot is uploaded again (its rows
  // and its 16-byte tint), and every group's slot list, one uint32 per instance, since all of
  // them changed.
  crowd.remove_actor(actors[4].id());
  const std::vector<std::uint8_t> after_removal = draw(renderer, crowd, camera, target);
  std::uint64_t lists = 0;
  for (const PrimitiveGroup& g : crowd.primitive_groups()) lists += 4ull * g.instance_count;
  EXPECT_EQ(renderer.stats().upload_bytes, slot_bytes(crowd) + 16u + lists);
  CrowdRenderer fresh(crowd, {.palette = GetParam()});
  EXPECT_EQ(draw(fresh, crowd, camera, target), after_removal);
}

// A frame's first pass uploads; the frame's later passes read it. RenderStats per call says what
// each call did, RenderStats::frame what the frame did (docs/spec.md §6.4), for both renderers.
TEST_P(PartialUploadTest, FrameTotalsSumEveryPassOfTheFrame) {
  HeadlessContext context;
  const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  Crowd crowd(asset, {.capacity = 4});
  std::vector<ActorOptions> options(4);
  for (std::size_t i = 0; i < options.size(); ++i) {
    options[i].clip = asset->clips[0].name;
    options[i].transform = glm::translate(glm::mat4(1.0f), glm::vec3(float(i) - 1.5f, 0.0f, 0.0f));
  }
  crowd.add_actors(options);
  Camera camera;
  camera.view = glm::lookAt(glm::vec3(0, 2, 6), glm::vec3(0, 1, 0), glm::vec3(0, 1, 0));
  camera.projection = glm::perspective(glm::radians(60.0f), 1.0f, 0.1f, 100.0f);
  Framebuffer target({.width = 32, .height = 32});
  CrowdRenderer renderer(crowd, {.palette = GetParam()});
  ReferenceRenderer reference(crowd);
  // The reference path uploads each actor's deformed vertices in every pass.
  const auto check = [&](auto& r, const char* name, bool instanced) {
    for (int frame = 0; frame < 2; ++frame) {
      crowd.update(0.1f);
      const std::uint32_t depth_draws = r.draw_depth(crowd, camera);
      const RenderStats depth = r.stats();
      const std::uint32_t color_draws = r.draw(crowd, camera);
      const RenderStats& color = r.stats();
      SCOPED_TRACE(testing::Message() << name << " frame " << frame);
      if (instanced) {
        EXPECT_GE(depth.upload_bytes, 4 * slot_bytes(crowd)) << "the depth pass uploads the moved slots";
        EXPECT_EQ(color.upload_bytes, 0u) << "per call: the main pass found them uploaded";
      }
      EXPECT_GT(color.frame.upload_bytes, 0u);
      EXPECT_EQ(color.frame.upload_bytes, depth.upload_bytes + color.upload_bytes);
      EXPECT_EQ(color.frame.draws, depth_draws + color_draws);
      EXPECT_EQ(color.frame.instances, depth.instances + color.instances);
      EXPECT_EQ(color.frame.triangles, depth.triangles + color.triangles);
      EXPECT_EQ(color.frame_calls, 2u) << "the previous frame's calls are not summed";
      EXPECT_EQ(color.crowd_frame, crowd.frame());
    }
  };
  check(renderer, "CrowdRenderer", true);
  check(reference, "ReferenceRenderer", false);
}

}  // namespace
}  // namespace gltf_crowd
