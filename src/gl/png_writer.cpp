// PNG output through stb_image_write. Debian's libstb already contains the implementation, so
// no STB_IMAGE_WRITE_IMPLEMENTATION here (docs/platform.md P7).
#include "gltf_crowd/gl_platform.hpp"

#include <limits>

#include <fmt/format.h>
#include <stb_image_write.h>

namespace gltf_crowd {

void write_png(const std::filesystem::path& file, std::uint32_t width, std::uint32_t height,
               std::span<const std::uint8_t> rgba) {
  constexpr auto int_max = static_cast<std::uint64_t>(std::numeric_limits<int>::max());
  const std::uint64_t expected = std::uint64_t{width} * height * 4;
  if (width == 0 || height == 0 || std::uint64_t{width} * 4 > int_max || expected > int_max ||
      rgba.size() != expected) {
    throw Error(file.string(), Rule::invalid_size,
                fmt::format("{} x {} RGBA8 needs {} bytes, got {}", width, height, expected, rgba.size()));
  }
  const int stride = static_cast<int>(width) * 4;
  stbi_flip_vertically_on_write(0);  // a process-wide flag; our rows are already top first
  if (stbi_write_png(file.c_str(), static_cast<int>(width), static_cast<int>(height), 4, rgba.data(), stride) == 0) {
    throw Error(file.string(), Rule::png_write_failed,
                "stbi_write_png could not write the file (missing folder or no permission?)");
  }
}

}  // namespace gltf_crowd
