#include "test_support.hpp"

#include <dlfcn.h>

#include <cstdlib>

namespace gltf_crowd::test {

bool assets_available() { return std::filesystem::is_directory(GLTF_CROWD_ASSETS_DIR); }

std::filesystem::path asset_path(const std::string& relative) {
  return std::filesystem::path(GLTF_CROWD_ASSETS_DIR) / relative;
}

std::filesystem::path tool_path() { return GLTF_CROWD_TOOL; }

std::filesystem::path scratch_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("gltf_crowd_test_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace gltf_crowd::test

// Keeps Mesa's driver mapped until exit so LeakSanitizer can attribute its allocations instead
// of reporting them as leaks from an unloaded module (PLATFORM.md §9).
__attribute__((constructor)) static void keep_mesa_driver() {
  dlopen("/usr/lib/x86_64-linux-gnu/dri/swrast_dri.so", RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
}
