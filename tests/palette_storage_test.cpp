// Palette storage selection and limits (docs/spec.md §6): storage buffers on OpenGL 4.3+, textures on
// OpenGL ES 3.0 (and on request), and an error naming the driver limit, never a per-actor
// fallback, when a crowd's arrays cannot fit.
#include <string>
#include <vector>

#include <epoxy/gl.h>
#include <gtest/gtest.h>

#include "gl_test_assets.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/gl.hpp"

namespace gltf_crowd {
namespace {

void expect_too_large(const Crowd& crowd, PaletteStorage storage, const std::string& path, const std::string& limit) {
  try {
    CrowdRenderer renderer(crowd, {.palette = storage});
    FAIL() << "expected palette_too_large";
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "palette_too_large") << e.what();
    EXPECT_EQ(e.path(), path) << e.what();
    EXPECT_NE(std::string(e.what()).find(limit), std::string::npos) << e.what();
  }
  EXPECT_EQ(gl_object_count(), 0u);  // nothing stays allocated after the throw
}

TEST(PaletteStorageTest, AutomaticFollowsTheContext) {
  Crowd crowd(test::red_quad());
  {
    HeadlessContext context;  // OpenGL 4.5 core on llvmpipe
    EXPECT_EQ(CrowdRenderer(crowd).palette_storage(), PaletteStorage::storage_buffer);
    EXPECT_EQ(CrowdRenderer(crowd, {.palette = PaletteStorage::texture}).palette_storage(), PaletteStorage::texture);
    EXPECT_EQ(CrowdRenderer(crowd, {.palette = PaletteStorage::storage_buffer}).palette_storage(),
              PaletteStorage::storage_buffer);
  }
  {
    HeadlessContext context({.api = GlApi::gles30});
    EXPECT_EQ(CrowdRenderer(crowd).palette_storage(), PaletteStorage::texture);
  }
  EXPECT_EQ(gl_object_count(), 0u);
}

TEST(PaletteStorageTest, NamesAreTheToolsSpelling) {
  EXPECT_STREQ(palette_storage_name(PaletteStorage::storage_buffer), "storage");
  EXPECT_STREQ(palette_storage_name(PaletteStorage::texture), "texture");
  EXPECT_STREQ(palette_storage_name(PaletteStorage::automatic), "auto");
}

// One texel row per slot: a capacity of GL_MAX_TEXTURE_SIZE fits, one more does not.
TEST(PaletteStorageTest, TextureRowsLimitTheCapacity) {
  HeadlessContext context;
  GLint max_size = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
  ASSERT_GT(max_size, 0);
  Crowd fits(test::red_quad(), {.capacity = static_cast<std::size_t>(max_size)});
  EXPECT_NO_THROW(CrowdRenderer(fits, {.palette = PaletteStorage::texture}));
  Crowd too_many(test::red_quad(), {.capacity = static_cast<std::size_t>(max_size) + 1});
  const std::string node = "node_streams[node 0].";
  expect_too_large(too_many, PaletteStorage::texture, node + "transforms", "GL_MAX_TEXTURE_SIZE");
  EXPECT_NO_THROW(CrowdRenderer(too_many, {.palette = PaletteStorage::storage_buffer}));
}

// Three texels per joint in a row: ⌊max / 3⌋ joints fit, one more does not.
TEST(PaletteStorageTest, TextureRowsLimitTheJointCount) {
  HeadlessContext context;
  GLint max_size = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
  const auto fitting = static_cast<std::size_t>(max_size / 3);
  Crowd fits(test::many_joints_asset(fitting), {.capacity = 1});
  EXPECT_NO_THROW(CrowdRenderer(fits, {.palette = PaletteStorage::texture}));
  Crowd too_many(test::many_joints_asset(fitting + 1), {.capacity = 1});
  expect_too_large(too_many, PaletteStorage::texture, "node_streams[node 0].palette", "GL_MAX_TEXTURE_SIZE");
}

// 48 bytes per joint per slot: just past GL_MAX_SHADER_STORAGE_BLOCK_SIZE is an error (128 MiB
// on llvmpipe, so this crowd holds about that much palette memory on the CPU).
TEST(PaletteStorageTest, StorageBlockSizeLimitsThePalette) {
  HeadlessContext context;
  GLint64 max_bytes = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &max_bytes);
  if (max_bytes > (GLint64{1} << 28)) GTEST_SKIP() << "the block limit is too large to reach cheaply";
  constexpr std::size_t joints = 4096;
  const auto capacity = static_cast<std::size_t>(max_bytes) / (joints * 48) + 1;
  Crowd crowd(test::many_joints_asset(joints), {.capacity = capacity});
  expect_too_large(crowd, PaletteStorage::storage_buffer, "node_streams[node 0].palette",
                   "GL_MAX_SHADER_STORAGE_BLOCK_SIZE");
}

// Growing a crowd past the limit later is reported by draw, and the renderer keeps working
// for what fits.
TEST(PaletteStorageTest, ReserveBeyondTheTextureLimitFailsInDraw) {
  HeadlessContext context;
  GLint max_size = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
  Crowd crowd(test::red_quad(), {.capacity = 2});
  crowd.add_actor();
  CrowdRenderer renderer(crowd, {.palette = PaletteStorage::texture});
  Framebuffer target({.width = 8, .height = 8});
  crowd.update(0.0f);
  EXPECT_EQ(renderer.draw(crowd, Camera{}), 1u);
  crowd.reserve(static_cast<std::size_t>(max_size) + 1);
  try {
    renderer.draw(crowd, Camera{});
    FAIL() << "expected palette_too_large";
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "palette_too_large");
  }
}

}  // namespace
}  // namespace gltf_crowd
