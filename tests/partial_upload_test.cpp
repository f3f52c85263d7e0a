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

}  // namespace
}  // namespace gltf_crowd
