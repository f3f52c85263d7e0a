// `gltf-crowd render` frames what the actors draw over their clips (animated_bounds), not the
// rest pose: an asset whose clip moves geometry away from its rest place stays inside the
// picture at every rendered time.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace gltf_crowd {
namespace {

using test::quoted;

// Pixels of the outermost rows and columns that differ from the clear colour.
std::size_t border_foreground(const test::Image& image, const nlohmann::json& background) {
  std::size_t count = 0;
  for (std::uint32_t y = 0; y < image.height; ++y) {
    for (std::uint32_t x = 0; x < image.width; ++x) {
      if (y != 0 && y + 1 != image.height && x != 0 && x + 1 != image.width) continue;
      const std::size_t i = (static_cast<std::size_t>(y) * image.width + x) * 4;
      count +=
          image.rgba[i] != background[0] || image.rgba[i + 1] != background[1] || image.rgba[i + 2] != background[2];
    }
  }
  return count;
}

// BoxAnimated's clip (3.708 s) lifts and turns its inner box away from where it rests. One actor
// plays it at speed 0.8 (render's speed for actor 0), so rendered times 0 to 4.75 s in 0.25 s
// steps cover the whole clip. No frame may have a foreground pixel on the image border.
TEST(RenderFraming, AnimatedAssetStaysInsideThePicture) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const std::string asset = test::asset_path("khronos/BoxAnimated.glb").string();
  const auto dir = test::scratch_dir("render_framing");
  for (int step = 0; step <= 19; ++step) {
    const std::string seconds = std::to_string(step * 0.25);
    SCOPED_TRACE("--seconds " + seconds);
    const auto png = dir / ("box_" + std::to_string(step) + ".png");
    const auto json = dir / ("box_" + std::to_string(step) + ".json");
    const std::string command = quoted(test::tool_path().string()) + " render " + quoted(asset) +
                                " --no-shadows --actors 1 --width 96 --height 72 --seconds " + seconds + " --out " +
                                quoted(png.string()) + " --stats " + quoted(json.string()) + " 2>&1 >/dev/null";
    const test::ImageRun r = test::run_for_image(command, png, json);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    ASSERT_EQ(r.image.width, 96u);
    ASSERT_EQ(r.image.height, 72u);
    EXPECT_EQ(border_foreground(r.image, r.stats.at("background")), 0u) << r.png;
  }
}

}  // namespace
}  // namespace gltf_crowd
