// The smallest complete gltf-crowd program: load an asset, build a crowd of 100 actors, draw one
// frame headless (EGL, no window or display) and write it as a PNG.
//
//   gltf_crowd_minimal [OUT.png] [ASSET.gltf|ASSET.glb]
//
// Without an asset it uses the built-in character.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <gltf_crowd/bounds.hpp>
#include <gltf_crowd/crowd.hpp>
#include <gltf_crowd/default_character.hpp>
#include <gltf_crowd/gl.hpp>

using namespace gltf_crowd;

int main(int argc, char** argv) try {
  const std::string out = argc > 1 ? argv[1] : "minimal.png";
  auto asset =
      std::make_shared<const Asset>(argc > 2 ? load_asset(argv[2]) : load_asset_from_memory(default_character_glb()));

  // A 10 × 10 grid, one footprint and a bit apart, each actor on its own clip and phase.
  const glm::vec3 size = animated_bounds(*asset).size();
  const float spacing = 1.25f * std::max(size.x, size.z);
  Crowd crowd(asset, {.capacity = 100});
  std::vector<ActorOptions> actors(100);
  for (std::size_t i = 0; i < actors.size(); ++i) {
    if (!asset->clips.empty()) actors[i].clip = asset->clips[i % asset->clips.size()].name;
    actors[i].phase = 0.1f * static_cast<float>(i % 10);
    actors[i].transform = glm::translate(
        glm::mat4(1.0f), glm::vec3(static_cast<float>(i % 10), 0.0f, static_cast<float>(i / 10)) * spacing);
  }
  crowd.add_actors(actors);  // atomic: all or nothing
  crowd.update(0.5f);        // every actor half a second into its clip

  HeadlessContext context;  // current on this thread
  Framebuffer target({.width = 960, .height = 540, .samples = 4});
  CrowdRenderer renderer(crowd);  // storage buffers on GL 4.3, else textures
  const glm::vec3 center = glm::vec3(4.5f * spacing, 0.5f * size.y, 4.5f * spacing);
  const float distance = 14.0f * spacing;
  const Camera camera{glm::lookAt(center + glm::vec3(0.0f, 0.55f, 1.0f) * distance, center, glm::vec3(0, 1, 0)),
                      glm::perspective(glm::radians(40.0f), 960.0f / 540.0f, 0.01f * distance, 4.0f * distance)};
  target.clear({0.55f, 0.6f, 0.68f, 1.0f});
  const std::uint32_t draws = renderer.draw(crowd, camera);  // one instanced draw per group
  write_png(out, target.width(), target.height(), target.read_pixels());
  std::printf("%zu actors, %u draws, wrote %s\n", crowd.actor_count(), draws, out.c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "gltf_crowd_minimal: %s\n", e.what());
  return 1;
}
