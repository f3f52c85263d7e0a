// The image callback tinygltf calls for every image: size caps and PNG chunk framing checked
// before decoding, then stb_image (through tinygltf's default decoder) to RGBA8.
//
// Based on: glTF 2.0 §3.8.3 (images are PNG or JPEG), the PNG specification §5.3 (chunk layout)
// and §11.2.2 (IHDR follows the 8-byte signature) and ITU T.81 Annex B (JPEG marker segments; SOFn carries the frame
// size). Reading the size from the header first means a 60-byte file cannot ask for gigabytes.
#include <algorithm>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "asset/build.hpp"
#include "asset/checks.hpp"

namespace gltf_crowd::detail {
namespace {

constexpr std::uint32_t kMaxImageSide = 16384;
constexpr std::uint64_t kMaxImagePixels = std::uint64_t{1} << 26;

struct ImageSize {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
};

std::uint32_t big_endian(const unsigned char* p, int bytes) noexcept {
  std::uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}

std::optional<ImageSize> png_size(const unsigned char* p, std::size_t size) noexcept {
  static constexpr unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (size < 24 || !std::equal(kSignature, kSignature + 8, p) || !std::equal(p + 12, p + 16, "IHDR"))
    return std::nullopt;
  return ImageSize{big_endian(p + 16, 4), big_endian(p + 20, 4)};
}

std::optional<ImageSize> jpeg_size(const unsigned char* p, std::size_t size) noexcept {
  if (size < 4 || p[0] != 0xFF || p[1] != 0xD8) return std::nullopt;
  std::size_t i = 2;
  while (i + 4 <= size) {
    if (p[i] != 0xFF) return std::nullopt;
    const unsigned char marker = p[i + 1];
    if (marker == 0xFF) {  // fill byte
      ++i;
      continue;
    }
    if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD8)) {  // segments without a length
      i += 2;
      continue;
    }
    const std::size_t length = big_endian(p + i + 2, 2);
    const bool frame = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    if (frame) {
      if (length < 7 || i + 9 > size) return std::nullopt;
      return ImageSize{big_endian(p + i + 7, 2), big_endian(p + i + 5, 2)};
    }
    if (length < 2) return std::nullopt;
    i += 2 + length;
  }
  return std::nullopt;
}

// PNG §5.3: a chunk is its length, type, data and CRC. stb_image grows its IDAT buffer to the
// length a chunk claims before it reads the data, so a chunk longer than the bytes left would
// allocate up to 4 GiB for a file of a few bytes.
std::optional<std::string> png_chunk_overrun(const unsigned char* p, std::size_t size) {
  for (std::size_t at = 8; at + 12 <= size;) {
    const std::size_t length = big_endian(p + at, 4);
    if (length > size - at - 12)
      return fmt::format("PNG chunk at byte {} claims {} bytes of data; {} are left", at, length, size - at - 12);
    if (std::equal(p + at + 4, p + at + 8, "IEND")) break;
    at += 12 + length;
  }
  return std::nullopt;
}

bool fail(ImageDecoding& state, int index, Rule rule, std::string message) {
  state.failed_path = fmt::format("images[{}]", index);
  state.failed_rule = rule;
  state.failed_message = std::move(message);
  return false;
}

// 16-bit channels → 8-bit, rounding to nearest (v · 255 / 65535).
void reduce_to_8_bits(tinygltf::Image& image) {
  const std::size_t values = image.image.size() / 2;
  for (std::size_t i = 0; i < values; ++i) {
    std::uint16_t v;
    std::memcpy(&v, image.image.data() + 2 * i, 2);
    image.image[i] = static_cast<unsigned char>((std::uint32_t{v} * 255u + 32767u) / 65535u);
  }
  image.image.resize(values);
  image.bits = 8;
  image.pixel_type = TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE;
}

bool load_image(tinygltf::Image* image, int index, std::string* err, std::string* warn, int, int,
                const unsigned char* bytes, int size, void* user_data) {
  ImageDecoding& state = *static_cast<ImageDecoding*>(user_data);
  const auto length = static_cast<std::size_t>(size > 0 ? size : 0);
  std::optional<ImageSize> header = png_size(bytes, length);
  if (header) {
    if (auto overrun = png_chunk_overrun(bytes, length)) return fail(state, index, Rule::image_decode, *overrun);
  } else {
    header = jpeg_size(bytes, length);
  }
  if (!header) {
    state.warnings.push_back(make_warning(fmt::format("images[{}]", index), Rule::image_not_decoded,
                                          "not a PNG or JPEG image; left undecoded"));
    return true;
  }
  const std::uint64_t pixels = std::uint64_t{header->width} * header->height;
  if (header->width == 0 || header->height == 0 || header->width > kMaxImageSide || header->height > kMaxImageSide ||
      pixels > kMaxImagePixels)
    return fail(state, index, Rule::image_size,
                fmt::format("{} × {} pixels is empty or larger than {} a side / {} in all", header->width,
                            header->height, kMaxImageSide, kMaxImagePixels));
  if (pixels > state.pixels_left)
    return fail(state, index, Rule::image_budget, "the document's images exceed 2^28 pixels in total");
  state.pixels_left -= pixels;
  std::string decode_error;
  // No options: tinygltf's default expands every image to 4 channels.
  if (!tinygltf::LoadImageData(image, index, &decode_error, warn, 0, 0, bytes, size, nullptr)) {
    while (!decode_error.empty() && decode_error.back() == '\n') decode_error.pop_back();
    if (err != nullptr) *err += decode_error;
    return fail(state, index, Rule::image_decode, decode_error);
  }
  if (image->bits == 16) reduce_to_8_bits(*image);
  return true;
}

}  // namespace

void install_image_loader(tinygltf::TinyGLTF& loader, ImageDecoding& state) {
  loader.SetImageLoader(&load_image, &state);
}

}  // namespace gltf_crowd::detail
