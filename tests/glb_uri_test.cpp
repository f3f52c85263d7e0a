// The asset layer's one GLB writer and base64 codec (src/asset/glb.hpp, src/asset/uri.hpp), which
// the loader, `gltf-crowd lod` export, the tests and the fuzz targets share.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "asset/glb.hpp"
#include "asset/uri.hpp"

namespace gltf_crowd {
namespace {

std::vector<std::uint8_t> bytes_of(std::string_view text) { return {text.begin(), text.end()}; }

TEST(GlbWriter, PadsChunksAndParsesBack) {
  const std::vector<std::uint8_t> bin = {1, 2, 3, 4, 5};
  const std::vector<std::uint8_t> glb = detail::write_glb(R"({"asset":{}})", bin);
  // 12 header + 8 + 12 JSON (already a multiple of 4) + 8 + 8 BIN (5 padded with zeros).
  ASSERT_EQ(glb.size(), 12u + 8u + 12u + 8u + 8u);
  const detail::GlbChunks chunks = detail::parse_glb(glb);
  EXPECT_EQ(chunks.length, glb.size());
  EXPECT_EQ(std::string(chunks.json.begin(), chunks.json.end()), R"({"asset":{}})");
  ASSERT_TRUE(chunks.has_bin);
  EXPECT_EQ(std::vector<std::uint8_t>(chunks.bin.begin(), chunks.bin.end()),
            (std::vector<std::uint8_t>{1, 2, 3, 4, 5, 0, 0, 0}));
  EXPECT_TRUE(chunks.warnings.empty());
}

TEST(GlbWriter, WithoutBinWritesOnlyTheSpacePaddedJsonChunk) {
  const std::vector<std::uint8_t> glb = detail::write_glb("{}");
  ASSERT_EQ(glb.size(), 12u + 8u + 4u);
  const detail::GlbChunks chunks = detail::parse_glb(glb);
  EXPECT_FALSE(chunks.has_bin);
  EXPECT_EQ(std::string(chunks.json.begin(), chunks.json.end()), "{}  ");
}

TEST(Base64, RoundTripsEveryPaddingLength) {
  EXPECT_EQ(detail::base64_encode(bytes_of("")), "");
  EXPECT_EQ(detail::base64_encode(bytes_of("f")), "Zg==");
  EXPECT_EQ(detail::base64_encode(bytes_of("fo")), "Zm8=");
  EXPECT_EQ(detail::base64_encode(bytes_of("foo")), "Zm9v");
  EXPECT_EQ(detail::base64_encode(bytes_of("foobar")), "Zm9vYmFy");  // RFC 4648 §10
  std::vector<std::uint8_t> all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<std::uint8_t>(i));
  for (std::size_t n = 0; n <= all.size(); n += 37) {
    const std::vector<std::uint8_t> part(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_EQ(detail::base64_decode(detail::base64_encode(part)), part) << n << " bytes";
  }
}

TEST(DataUri, DecodesBase64AndPercentEncodedPayloads) {
  EXPECT_EQ(detail::data_uri_bytes("data:application/octet-stream;base64,Zm9vYg=="), bytes_of("foob"));
  EXPECT_EQ(detail::data_uri_bytes("data:application/octet-stream,f%6Fo%00"),
            (std::vector<std::uint8_t>{'f', 'o', 'o', 0}));
  EXPECT_EQ(detail::data_uri_as_base64("data:application/octet-stream,foo"),
            "data:application/octet-stream;base64,Zm9v");
  const detail::DataUri parsed = detail::parse_data_uri("data:image/png;base64,Zm9vYg==", "uri");
  EXPECT_EQ(parsed.media_type, "image/png");
  EXPECT_EQ(parsed.decoded_bytes, 4u);
}

}  // namespace
}  // namespace gltf_crowd
