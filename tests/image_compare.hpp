// Pixel comparison of rendered images for the GL tests (Filament's golden-image model):
// the fraction of pixels whose largest channel difference exceeds a tolerance, and on failure
// the actual, expected and diff PNGs in the test's scratch directory.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gltf_crowd/gl.hpp"
#include "test_support.hpp"

namespace gltf_crowd::test {

// Fraction of pixels of `actual` whose largest RGBA channel difference from `expected` is more
// than `tolerance` (in 1/255 steps); 1 when the sizes differ.
inline double differing_fraction(const Image& actual, const Image& expected, int tolerance = 2) {
  if (actual.width != expected.width || actual.height != expected.height ||
      actual.rgba.size() != expected.rgba.size() || actual.rgba.empty()) {
    return 1.0;
  }
  std::size_t differing = 0;
  for (std::size_t i = 0; i < actual.rgba.size(); i += 4) {
    int worst = 0;
    for (std::size_t c = 0; c < 4; ++c) {
      worst = std::max(worst, std::abs(int{actual.rgba[i + c]} - int{expected.rgba[i + c]}));
    }
    differing += worst > tolerance ? 1 : 0;
  }
  return static_cast<double>(differing) / static_cast<double>(actual.rgba.size() / 4);
}

// Fraction of pixels that differ from `background` (RGB bytes) at all.
inline double foreground_fraction(const Image& image, const std::uint8_t background[3]) {
  std::size_t differing = 0;
  for (std::size_t i = 0; i + 3 < image.rgba.size(); i += 4) {
    differing +=
        image.rgba[i] != background[0] || image.rgba[i + 1] != background[1] || image.rgba[i + 2] != background[2];
  }
  return image.rgba.empty() ? 0.0 : static_cast<double>(differing) / static_cast<double>(image.rgba.size() / 4);
}

// Writes `<dir>/<name>_actual.png`, `_expected.png` and `_diff.png` (white where a pixel differs
// by more than `tolerance`, else the expected pixel at a quarter brightness) and returns a
// message naming them, for a failing assertion.
inline std::string write_difference(const std::filesystem::path& dir, const std::string& name, const Image& actual,
                                    const Image& expected, int tolerance = 2) {
  write_png(dir / (name + "_actual.png"), actual.width, actual.height, actual.rgba);
  if (expected.rgba.size() != actual.rgba.size()) return "sizes differ; wrote " + name + "_actual.png";
  write_png(dir / (name + "_expected.png"), expected.width, expected.height, expected.rgba);
  std::vector<std::uint8_t> diff(actual.rgba.size());
  for (std::size_t i = 0; i < diff.size(); i += 4) {
    int worst = 0;
    for (std::size_t c = 0; c < 4; ++c) {
      worst = std::max(worst, std::abs(int{actual.rgba[i + c]} - int{expected.rgba[i + c]}));
    }
    for (std::size_t c = 0; c < 3; ++c) {
      diff[i + c] = static_cast<std::uint8_t>(worst > tolerance ? 255 : expected.rgba[i + c] / 4);
    }
    diff[i + 3] = 255;
  }
  write_png(dir / (name + "_diff.png"), actual.width, actual.height, diff);
  return "see " + (dir / (name + "_actual.png")).string() + ", _expected.png and _diff.png";
}

// The acceptance rule of the pixel tests: at most 0.5% of the pixels differ by more than 2/255
// in any channel. Writes the PNGs when it fails.
inline ::testing::AssertionResult images_agree(const std::filesystem::path& dir, const std::string& name,
                                               const Image& actual, const Image& expected) {
  const double fraction = differing_fraction(actual, expected);
  if (fraction <= 0.005) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << name << ": " << fraction * 100.0 << "% of pixels differ by more than 2/255; "
                                       << write_difference(dir, name, actual, expected);
}

}  // namespace gltf_crowd::test
