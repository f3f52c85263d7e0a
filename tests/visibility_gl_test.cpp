// Actor visibility drawn (docs/spec.md §5.10): a hidden actor leaves no pixel, and one shown
// again is drawn at its current pose, in both palette storages and with Animation::gpu.
#include <memory>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"
#include "gltf_crowd/gl.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

// Three walkers side by side; `with_middle` false leaves out the middle one.
Crowd walkers(const std::shared_ptr<const Asset>& asset, Animation animation, bool with_middle) {
  Crowd crowd(asset, {.capacity = 4, .animation = animation});
  for (int i = 0; i < 3; ++i) {
    if (i == 1 && !with_middle) continue;
    crowd.add_actor({.id = "a" + std::to_string(i),
                     .clip = i == 1 ? "Running" : "Walking",
                     .phase = 0.3f * float(i),
                     .transform = glm::translate(glm::mat4(1.0f), glm::vec3(float(i - 1) * 1.2f, 0.0f, 0.0f))});
  }
  return crowd;
}

TEST(VisibilityGl, HiddenDrawsNothingAndShownDrawsTheCurrentPose) {
  const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  HeadlessContext context;
  Camera camera;
  camera.view = glm::lookAt(glm::vec3(0, 1.2f, 4.5f), glm::vec3(0, 0.9f, 0), glm::vec3(0, 1, 0));
  camera.projection = glm::perspective(glm::radians(50.0f), 1.0f, 0.1f, 50.0f);
  Framebuffer target({.width = 128, .height = 128});
  for (Animation animation : {Animation::cpu, Animation::gpu}) {
    for (PaletteStorage storage : {PaletteStorage::storage_buffer, PaletteStorage::texture}) {
      const auto image = [&](const Crowd& crowd) {
        CrowdRenderer renderer(crowd, {.palette = storage});
        target.clear(glm::vec4(0.1f, 0.1f, 0.1f, 1.0f));
        renderer.draw(crowd, camera);
        return target.read_pixels();
      };
      const char* what = animation == Animation::cpu ? "cpu" : "gpu";
      Crowd hiding = walkers(asset, animation, true);
      Crowd never = walkers(asset, animation, true);
      Crowd without = walkers(asset, animation, false);
      hiding.find_actor("a1")->set_visible(false);
      for (int f = 0; f < 4; ++f)
        for (Crowd* c : {&hiding, &never, &without}) c->update(0.11f);
      const std::vector<std::uint8_t> hidden = image(hiding);
      EXPECT_EQ(hidden, image(without)) << what << ", " << palette_storage_name(storage) << ": hidden draws nothing";
      EXPECT_NE(hidden, image(never)) << "the middle actor is in view";
      hiding.find_actor("a1")->set_visible(true);
      EXPECT_EQ(image(hiding), image(never)) << what << ", " << palette_storage_name(storage) << ": shown is current";
    }
  }
}

}  // namespace
}  // namespace gltf_crowd
