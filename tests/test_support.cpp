#include "test_support.hpp"

#include <dlfcn.h>
#include <unistd.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <stb_image.h>

namespace gltf_crowd::test {

bool assets_available() { return std::filesystem::is_directory(GLTF_CROWD_ASSETS_DIR); }

std::filesystem::path asset_path(const std::string& relative) {
  return std::filesystem::path(GLTF_CROWD_ASSETS_DIR) / relative;
}

std::filesystem::path tool_path() { return GLTF_CROWD_TOOL; }

std::filesystem::path scratch_dir(const std::string& name) {
  // Per process: ctest runs test cases in parallel processes, several of which use one name
  // (png_bytes), and two checkouts may run their suites at once.
  auto dir = std::filesystem::temp_directory_path() / ("gltf_crowd_test_" + std::to_string(getpid()) + "_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

CommandOutput run_command(const std::string& command) {
  CommandOutput result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.out.append(buffer, n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

CommandOutput run_tool(const std::string& arguments) {
  return run_command(quoted(tool_path().string()) + " " + arguments);
}

Image read_png(const std::filesystem::path& file) {
  int width = 0, height = 0, channels = 0;
  stbi_uc* pixels = stbi_load(file.c_str(), &width, &height, &channels, 4);
  if (pixels == nullptr) return {};
  Image image{static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(height), {}};
  image.rgba.assign(pixels, pixels + std::size_t(image.width) * image.height * 4);
  stbi_image_free(pixels);
  return image;
}

ImageRun run_for_image(const std::string& command, const std::filesystem::path& png,
                       const std::filesystem::path& stats_json) {
  ImageRun r;
  r.png = png;
  CommandOutput run = run_command(command);
  r.exit_code = run.exit_code;
  r.output = std::move(run.out);
  if (r.exit_code != 0) return r;
  r.stats = nlohmann::json::parse(std::ifstream(stats_json));
  r.image = read_png(png);
  return r;
}

}  // namespace gltf_crowd::test

// Keeps Mesa's driver mapped until exit so LeakSanitizer can attribute its allocations instead
// of reporting them as leaks from an unloaded module (docs/platform.md §9).
__attribute__((constructor)) static void keep_mesa_driver() {
  dlopen("/usr/lib/x86_64-linux-gnu/dri/swrast_dri.so", RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
}
