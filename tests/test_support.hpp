// Shared helpers of the test suite: locating ../shared/assets, running the tool and reading
// the PNGs it writes.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace gltf_crowd::test {

// Absolute path of `relative` under ../shared/assets. When the folder is absent the calling test
// is skipped with a message, unless the CI environment variable is set: then it fails.
std::filesystem::path asset_path(const std::string& relative);

// True when ../shared/assets exists.
bool assets_available();

// Path of the built gltf-crowd executable.
std::filesystem::path tool_path();

// A fresh empty directory for one test's outputs, private to this process.
std::filesystem::path scratch_dir(const std::string& name);

// `text` as one /bin/sh word: single-quoted, embedded quotes escaped, so paths with spaces or
// quotes survive.
std::string quoted(const std::string& text);

// What a shell command printed on its standard output, and its exit status (-1 when it did not
// exit normally, e.g. killed by a signal).
struct CommandOutput {
  int exit_code = -1;
  std::string out;
};

// Runs `command` with /bin/sh and captures its standard output. Standard error is left alone,
// so each test chooses with a redirection in `command` (" 2>&1", " 2>/dev/null") what it reads.
CommandOutput run_command(const std::string& command);

// Runs the built gltf-crowd with `arguments` (quoted by the caller) through run_command.
CommandOutput run_tool(const std::string& arguments);

// An RGBA8 image, top row first (Framebuffer::read_pixels order).
struct Image {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<std::uint8_t> rgba;
};

// Decodes the PNG `file` to RGBA8; an empty image when it is missing or unreadable (tests then
// fail on the size rather than crash).
Image read_png(const std::filesystem::path& file);

// What a command that writes a PNG and a statistics JSON (render, studio) left behind.
struct ImageRun {
  int exit_code = -1;
  std::string output;    // what the command's redirections sent to its standard output
  nlohmann::json stats;  // parsed only when exit_code is 0
  Image image;           // decoded only when exit_code is 0
  std::filesystem::path png;
};

// Runs `command` (run_command), which writes `png` and `stats_json`, then reads both if it
// exited with 0.
ImageRun run_for_image(const std::string& command, const std::filesystem::path& png,
                       const std::filesystem::path& stats_json);

}  // namespace gltf_crowd::test

// Skips (outside CI) or fails (in CI) the current test when the assets are missing.
#define GLTF_CROWD_REQUIRE_ASSETS()                                                      \
  do {                                                                                   \
    if (!::gltf_crowd::test::assets_available()) {                                       \
      if (std::getenv("CI") != nullptr) FAIL() << "../shared/assets is missing in CI";   \
      GTEST_SKIP() << "../shared/assets is absent; skipping (set CI to make this fail)"; \
    }                                                                                    \
  } while (0)
