// Shared helpers of the test suite: locating ../shared/assets and running the tool.
#pragma once

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace gltf_crowd::test {

// Absolute path of `relative` under ../shared/assets. When the folder is absent the calling test
// is skipped with a message, unless the CI environment variable is set: then it fails.
std::filesystem::path asset_path(const std::string& relative);

// True when ../shared/assets exists.
bool assets_available();

// Path of the built gltf-crowd executable.
std::filesystem::path tool_path();

// A fresh empty directory for one test's outputs.
std::filesystem::path scratch_dir(const std::string& name);

}  // namespace gltf_crowd::test

// Skips (outside CI) or fails (in CI) the current test when the assets are missing.
#define GLTF_CROWD_REQUIRE_ASSETS()                                                        \
  do {                                                                                     \
    if (!::gltf_crowd::test::assets_available()) {                                         \
      if (std::getenv("CI") != nullptr) FAIL() << "../shared/assets is missing in CI";     \
      GTEST_SKIP() << "../shared/assets is absent; skipping (set CI to make this fail)";   \
    }                                                                                      \
  } while (0)
