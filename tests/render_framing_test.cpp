// `gltf-crowd render` frames what the actors draw over their clips (animated_bounds), not the
// rest pose: an asset whose clip moves geometry away from its rest place stays inside the
// picture at every rendered time.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
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

#ifdef GLTF_CROWD_EMBED_EXAMPLE
// Whether the RGB at `i` is within 2 of `rgb` (GL's float-to-byte rounding).
bool near_colour(const test::Image& image, std::size_t i, const int (&rgb)[3]) {
  for (int c = 0; c < 3; ++c)
    if (std::abs(int{image.rgba[i + static_cast<std::size_t>(c)]} - rgb[c]) > 2) return false;
  return true;
}

// examples/embed frames its nine actors with Crowd::world_bounds and spaces them by the
// character's height (issue 57): three.js's RobotExpressive, 2.5 times the built-in character's
// height, filled the picture past every border at its fixed camera. The actors (every pixel that
// is neither the application's sky nor its ground) stay inside the picture, 8 pixels from each
// side, and are not lost in it (a quarter of its width at least).
TEST(RenderFraming, EmbedExampleFramesAnyCharacter) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto dir = test::scratch_dir("embed_framing");
  const std::string robot = quoted(test::asset_path("threejs/RobotExpressive.glb").string()) + " Palm2.R";
  const int sky[3] = {158, 179, 204}, ground[3] = {89, 107, 77};  // its clear colour and ground, × 255
  for (const auto& [name, arguments] : {std::pair<std::string, std::string>{"builtin", ""}, {"robot", robot}}) {
    SCOPED_TRACE(name);
    const auto png = dir / (name + ".png");
    const test::CommandOutput r =
        test::run_command(quoted(GLTF_CROWD_EMBED_EXAMPLE) + " " + quoted(png.string()) + " " + arguments + " 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const test::Image image = test::read_png(png);
    ASSERT_EQ(image.width, 800u);
    std::uint32_t left = image.width, right = 0, top = image.height, bottom = 0;
    for (std::uint32_t y = 0; y < image.height; ++y)
      for (std::uint32_t x = 0; x < image.width; ++x) {
        const std::size_t i = (static_cast<std::size_t>(y) * image.width + x) * 4;
        if (near_colour(image, i, sky) || near_colour(image, i, ground)) continue;
        left = std::min(left, x), right = std::max(right, x), top = std::min(top, y), bottom = std::max(bottom, y);
      }
    ASSERT_LE(left, right) << "no actor drawn: " << png;
    EXPECT_GE(left, 8u) << png;
    EXPECT_GE(top, 8u) << png;
    EXPECT_LT(right, image.width - 8) << png;
    EXPECT_LT(bottom, image.height - 8) << png;
    EXPECT_GE(right - left, image.width / 4) << png;
  }
}
#endif

}  // namespace
}  // namespace gltf_crowd
