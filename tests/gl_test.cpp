// Tests of the OpenGL backend (docs/spec.md §4–§6): headless context, KHR_debug error counting,
// framebuffer read-back, PNG output, the crowd renderer's draw count, placement, skinning,
// morphing and winding on hand-made glTF files in both palette storages, and that destroy()
// deletes every GL object. Images are tiny; failures write the actual PNG.
#include "gltf_crowd/gl.hpp"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <epoxy/gl.h>
#include <glm/gtc/constants.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>
#include <stb_image.h>

#include "gl_test_assets.hpp"
#include "image_compare.hpp"
#include "readme_snippets_prelude.hpp"
#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

constexpr glm::vec4 background{0.0f, 0.0f, 1.0f, 1.0f};  // pure blue: bytes (0, 0, 255)

std::shared_ptr<const Asset> default_character() {
  return std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
}

// Orthographic camera over x ∈ [-4, 4], y ∈ [-3, 3] looking down -z; light from the viewer.
Camera ortho_camera() {
  Camera camera;
  camera.projection = glm::ortho(-4.0f, 4.0f, -3.0f, 3.0f, -10.0f, 10.0f);
  camera.light_direction = glm::vec3(0.0f, 0.0f, -1.0f);
  return camera;
}

// A camera that sees a 1.8-unit character at the origin from the front.
Camera front_camera() {
  Camera camera;
  camera.view = glm::lookAt(glm::vec3(0, 1, 6), glm::vec3(0, 1, 0), glm::vec3(0, 1, 0));
  camera.projection = glm::perspective(glm::radians(45.0f), 4.0f / 3.0f, 0.1f, 50.0f);
  return camera;
}

struct Pixels {
  std::vector<std::uint8_t> rgba;
  std::uint32_t width = 0;
  // RGBA of the pixel in column x, row y (row 0 at the top).
  const std::uint8_t* at(std::uint32_t x, std::uint32_t y) const { return &rgba[(std::size_t{y} * width + x) * 4]; }
  // The red quad: the default material is fully metallic (glTF 2.0 §3.9.6), so it shows its
  // red base color through the specular and ambient terms only, never green or blue.
  bool red(std::uint32_t x, std::uint32_t y) const { return at(x, y)[0] > 150 && at(x, y)[1] < 40 && at(x, y)[2] < 40; }
  bool background(std::uint32_t x, std::uint32_t y) const {
    return at(x, y)[0] == 0 && at(x, y)[1] == 0 && at(x, y)[2] == 255;
  }
};

// Renders `crowd` into a fresh w × h target with palettes in `storage` and writes the result
// under the test's scratch dir.
Pixels render(Crowd& crowd, const Camera& camera, const std::string& name,
              PaletteStorage storage = PaletteStorage::automatic, std::uint32_t w = 64, std::uint32_t h = 48,
              std::uint32_t* draws = nullptr) {
  Framebuffer target({.width = w, .height = h});
  CrowdRenderer renderer(crowd, {.palette = storage});
  crowd.update(0.0f);
  target.clear(background);
  const std::uint32_t issued = renderer.draw(crowd, camera);
  if (draws != nullptr) *draws = issued;
  Pixels pixels{target.read_pixels(), w};
  write_png(test::scratch_dir("gl_" + name + "_" + palette_storage_name(storage)) / "actual.png", w, h, pixels.rgba);
  return pixels;
}

class GlTest : public ::testing::Test {
 protected:
  HeadlessContext context{{.debug = true}};
  void TearDown() override {
    EXPECT_EQ(context.debug_error_count(), 0u)
        << (context.debug_errors().empty() ? "" : context.debug_errors().front());
  }
};

// The same tests for both palette storages on an OpenGL 4.5 core context.
class StorageTest : public GlTest, public ::testing::WithParamInterface<PaletteStorage> {};

INSTANTIATE_TEST_SUITE_P(Palettes, StorageTest,
                         ::testing::Values(PaletteStorage::storage_buffer, PaletteStorage::texture),
                         [](const auto& test_info) { return std::string(palette_storage_name(test_info.param)); });

TEST(HeadlessContextTest, CreatesACoreContextOfAtLeast43) {
  HeadlessContext context;
  EXPECT_TRUE(epoxy_is_desktop_gl());
  EXPECT_GE(epoxy_gl_version(), 43);
  // The profile, not the version string: Mesa writes "(Core Profile)" there, NVIDIA does not.
  GLint profile = 0;
  glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &profile);
  EXPECT_NE(profile & GL_CONTEXT_CORE_PROFILE_BIT, 0) << context.version();
  EXPECT_FALSE(context.renderer().empty());
}

TEST(HeadlessContextTest, TwoContextsCoexist) {
  auto first = std::make_unique<HeadlessContext>();
  {
    HeadlessContext second;
    EXPECT_FALSE(second.version().empty());
  }
  // The shared EGL display must survive the second context's destruction.
  EXPECT_NO_THROW(first->make_current());
  EXPECT_NE(glGetString(GL_VERSION), nullptr);
}

TEST(HeadlessContextTest, DevicePlatformWorksToo) {
  HeadlessContext surfaceless({.platform = EglPlatform::surfaceless});
  EXPECT_EQ(surfaceless.platform(), EglPlatform::surfaceless);
  HeadlessContext device({.platform = EglPlatform::device});
  EXPECT_EQ(device.platform(), EglPlatform::device);
  EXPECT_GE(epoxy_gl_version(), 43);
  Framebuffer target({.width = 4, .height = 4});
  target.clear({1.0f, 0.0f, 0.0f, 1.0f});
  EXPECT_EQ(target.read_pixels()[0], 255);
  target.destroy();
  surfaceless.make_current();  // the other display is still initialized
  EXPECT_NE(glGetString(GL_VERSION), nullptr);
}

// Mesa returns the highest compatible version for a 3.3 request (docs/platform.md P4).
TEST(HeadlessContextTest, Gl33RequestGivesACoreContext) {
  HeadlessContext context({.api = GlApi::gl33_core});
  EXPECT_EQ(context.api(), GlApi::gl33_core);
  EXPECT_TRUE(epoxy_is_desktop_gl());
  EXPECT_GE(epoxy_gl_version(), 33);
}

// The debug callback counts GL errors: glEnable of a value that names no capability is
// GL_INVALID_ENUM in every version. This is what lets the other tests assert zero.
TEST(HeadlessContextTest, DebugContextCountsGlErrors) {
  constexpr GLenum no_capability = 0x7FFF;
  for (GlApi api : {GlApi::gl43_core, GlApi::gles30}) {
    HeadlessContext context({.api = api, .debug = true});
    EXPECT_EQ(context.debug_error_count(), 0u);
    glEnable(no_capability);
    EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_INVALID_ENUM));
    EXPECT_EQ(context.debug_error_count(), 1u) << context.version();
    ASSERT_EQ(context.debug_errors().size(), 1u);
    EXPECT_FALSE(context.debug_errors().front().empty());
  }
  HeadlessContext quiet;  // without debug nothing is counted
  glEnable(no_capability);
  EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_INVALID_ENUM));
  EXPECT_EQ(quiet.debug_error_count(), 0u);
}

// The skinned-vertex cache needs transform feedback objects, which desktop OpenGL has from 4.0:
// on a 3.3 context (Mesa capped by MESA_GL_VERSION_OVERRIDE, as `render --gl 3.3` does) the
// renderer refuses it, naming the option, and allocates nothing.
TEST(HeadlessContextTest, Gl33RefusesTheSkinnedVertexCache) {
  setenv("MESA_GL_VERSION_OVERRIDE", "3.3", 1);
  HeadlessContext context({.api = GlApi::gl33_core, .debug = true});
  unsetenv("MESA_GL_VERSION_OVERRIDE");
  if (epoxy_gl_version() >= 40) GTEST_SKIP() << "the driver gave " << context.version() << ", not 3.3";
  Crowd crowd(test::red_quad(), {.capacity = 1});
  crowd.add_actor();
  try {
    CrowdRenderer renderer(crowd, {.skinned_vertex_cache = true});
    FAIL() << "a 3.3 context has no transform feedback objects";
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "gl_version");
    EXPECT_EQ(e.path(), "CrowdRendererOptions.skinned_vertex_cache");
  }
  EXPECT_EQ(gl_object_count(), 0u);
  EXPECT_EQ(context.debug_error_count(), 0u);
}

// An OpenGL ES 3.0 context has no vertex storage buffers: automatic storage picks textures,
// and asking for storage buffers is an error that leaves nothing allocated.
TEST(HeadlessContextTest, GlesContextDrawsWithTexturePalettes) {
  HeadlessContext context({.api = GlApi::gles30, .debug = true});
  EXPECT_FALSE(epoxy_is_desktop_gl());
  EXPECT_GE(epoxy_gl_version(), 30);
  Crowd crowd(test::red_quad(), {.capacity = 1});
  crowd.add_actor();
  try {
    CrowdRenderer renderer(crowd, {.palette = PaletteStorage::storage_buffer});
    FAIL() << "an ES context has no GLSL 430 storage buffers";
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "gl_version");
    EXPECT_EQ(e.path(), "CrowdRendererOptions.palette");
  }
  EXPECT_EQ(gl_object_count(), 0u);
  {
    CrowdRenderer renderer(crowd);
    EXPECT_EQ(renderer.palette_storage(), PaletteStorage::texture);
    Pixels p = render(crowd, ortho_camera(), "gles");
    EXPECT_TRUE(p.red(32, 24));
    EXPECT_TRUE(p.background(8, 8));
  }
  EXPECT_EQ(gl_object_count(), 0u);
  EXPECT_EQ(context.debug_error_count(), 0u);
}

TEST_F(GlTest, FramebufferRejectsBadSizes) {
  try {
    Framebuffer bad({.width = 0, .height = 4});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "invalid_size");
  }
  try {
    Framebuffer bad({.width = 4, .height = 4, .samples = 1024});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "invalid_size");
    EXPECT_EQ(e.path(), "FramebufferOptions.samples");
  }
  EXPECT_EQ(gl_object_count(), 0u);
}

TEST_F(GlTest, ReadPixelsReturnsTheTopRowFirst) {
  for (std::uint32_t samples : {0u, 4u}) {
    Framebuffer target({.width = 8, .height = 6, .samples = samples});
    target.clear({0.0f, 0.0f, 1.0f, 1.0f});
    glEnable(GL_SCISSOR_TEST);
    glScissor(0, 3, 8, 3);  // GL rows 3..5 are the top half
    glClearColor(1.0f, 0.0f, 0.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glDisable(GL_SCISSOR_TEST);
    const auto rgba = target.read_pixels();
    ASSERT_EQ(rgba.size(), 8u * 6u * 4u);
    EXPECT_EQ(rgba[0], 255) << "samples " << samples;  // row 0: red
    EXPECT_EQ(rgba[2], 0);
    const std::size_t last_row = 5 * 8 * 4;
    EXPECT_EQ(rgba[last_row], 0) << "samples " << samples;  // row 5: blue
    EXPECT_EQ(rgba[last_row + 2], 255);
  }
  EXPECT_EQ(gl_object_count(), 0u);
}

TEST_F(GlTest, FramebufferDestroyIsIdempotent) {
  Framebuffer target({.width = 4, .height = 4, .samples = 4});
  EXPECT_EQ(gl_object_count(), 5u);  // 2 framebuffers, 3 renderbuffers
  target.destroy();
  target.destroy();
  EXPECT_EQ(gl_object_count(), 0u);
  try {
    target.bind();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "destroyed");
  }
}

TEST(WritePngTest, RoundTripsAndRejectsWrongSizes) {
  const auto file = test::scratch_dir("png") / "two.png";
  const std::vector<std::uint8_t> rgba = {255, 0, 0, 255, 0, 255, 0, 128};  // 2 × 1
  write_png(file, 2, 1, rgba);
  int w = 0, h = 0, channels = 0;
  stbi_uc* back = stbi_load(file.c_str(), &w, &h, &channels, 4);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(std::vector<std::uint8_t>(back, back + 8), rgba);
  stbi_image_free(back);
  try {
    write_png(file, 3, 1, rgba);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "invalid_size");
  }
  try {
    write_png("/nonexistent/dir/x.png", 2, 1, rgba);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "png_write_failed");
  }
}

TEST_P(StorageTest, RendererObjectsReturnToZeroAfterDestroy) {
  Crowd crowd(default_character(), {.capacity = 8});
  crowd.add_actors(std::vector<ActorOptions>(3));
  crowd.update(0.1f);
  {
    Framebuffer target({.width = 32, .height = 24});
    CrowdRenderer renderer(crowd, {.palette = GetParam()});
    EXPECT_EQ(renderer.palette_storage(), GetParam());
    EXPECT_GT(renderer.object_count(), 0u);
    EXPECT_EQ(gl_object_count(), renderer.object_count() + 3);  // + framebuffer's 3
    ReferenceRenderer reference(crowd);
    EXPECT_GT(reference.object_count(), 0u);
    EXPECT_EQ(gl_object_count(), renderer.object_count() + reference.object_count() + 3);
    target.clear(background);
    EXPECT_EQ(renderer.draw(crowd, front_camera()), crowd.primitive_groups().size());
    EXPECT_EQ(reference.draw(crowd, front_camera()), 3 * crowd.primitive_groups().size());
    renderer.destroy();
    reference.destroy();
    EXPECT_TRUE(renderer.destroyed());
    EXPECT_TRUE(reference.destroyed());
    EXPECT_EQ(renderer.object_count(), 0u);
    EXPECT_EQ(reference.object_count(), 0u);
    renderer.destroy();  // idempotent
    reference.destroy();
    EXPECT_EQ(renderer.draw(crowd, front_camera()), 0u);  // a destroyed renderer draws nothing
    EXPECT_EQ(reference.draw(crowd, front_camera()), 0u);
    target.destroy();
  }
  EXPECT_EQ(gl_object_count(), 0u);
  {  // the destructors delete too
    CrowdRenderer dropped(crowd, {.palette = GetParam()});
    ReferenceRenderer dropped_reference(crowd);
  }
  EXPECT_EQ(gl_object_count(), 0u);
}

TEST(GlLifetimeTest, RendererOutlivingItsContextDropsNamesWithoutGlCalls) {
  Crowd crowd(default_character());
  std::unique_ptr<CrowdRenderer> renderer;
  std::unique_ptr<ReferenceRenderer> reference;
  {
    HeadlessContext context;
    renderer = std::make_unique<CrowdRenderer>(crowd);
    reference = std::make_unique<ReferenceRenderer>(crowd);
    EXPECT_GT(gl_object_count(), 0u);
  }
  renderer.reset();  // must not crash: the context and its objects are gone
  reference.reset();
  EXPECT_EQ(gl_object_count(), 0u);
}

TEST_P(StorageTest, OneDrawPerNonEmptyGroup) {
  Crowd crowd(default_character(), {.capacity = 4});
  std::uint32_t draws = 99;
  render(crowd, front_camera(), "empty", GetParam(), 32, 24, &draws);
  EXPECT_EQ(draws, 0u);  // no actors: every group is empty
  crowd.add_actors(std::vector<ActorOptions>(4));
  render(crowd, front_camera(), "four", GetParam(), 32, 24, &draws);
  EXPECT_EQ(draws, crowd.primitive_groups().size());
}

TEST_F(GlTest, WrongCrowdIsAnError) {
  Crowd a(default_character());
  Crowd b(default_character());
  CrowdRenderer renderer(a);
  ReferenceRenderer reference(a);
  for (int which = 0; which < 2; ++which) {
    try {
      if (which == 0)
        renderer.draw(b, front_camera());
      else
        reference.draw(b, front_camera());
      FAIL();
    } catch (const Error& e) {
      EXPECT_EQ(e.rule(), "wrong_crowd");
    }
  }
}

TEST_P(StorageTest, GrowingCapacityGrowsTheStreamStorage) {
  Crowd crowd(default_character(), {.capacity = 2});
  crowd.add_actors(std::vector<ActorOptions>(2));
  Framebuffer target({.width = 32, .height = 24});
  CrowdRenderer renderer(crowd, {.palette = GetParam()});
  crowd.update(0.0f);
  EXPECT_EQ(renderer.draw(crowd, front_camera()), crowd.primitive_groups().size());
  crowd.reserve(40);
  crowd.add_actors(std::vector<ActorOptions>(30));
  crowd.update(0.0f);
  EXPECT_EQ(renderer.draw(crowd, front_camera()), crowd.primitive_groups().size());
  EXPECT_EQ(renderer.stats().instances, 32u * crowd.primitive_groups().size());
}

// Two actors placed at x = -2 and x = +2: one draw, a red quad at each placement, background
// between them. Pixel centres: x = -2 → column 16 of 64, y = 0 → row 24 of 48.
TEST_P(StorageTest, RigidInstancesLandWherePlaced) {
  Crowd crowd(test::red_quad(), {.capacity = 2});
  crowd.add_actors(std::vector<ActorOptions>{{.transform = glm::translate(glm::mat4(1.0f), glm::vec3(-2, 0, 0))},
                                             {.transform = glm::translate(glm::mat4(1.0f), glm::vec3(2, 0, 0))}});
  std::uint32_t draws = 0;
  Pixels p = render(crowd, ortho_camera(), "rigid", GetParam(), 64, 48, &draws);
  EXPECT_EQ(draws, 1u);
  EXPECT_TRUE(p.red(16, 24));
  EXPECT_TRUE(p.red(48, 24));
  EXPECT_TRUE(p.background(32, 24));
  EXPECT_TRUE(p.background(16, 8));
}

// Skinned quad: vertices follow joint 1 to x = +2, then each actor's placement (scale 0.5, then
// y = ±1.5) applies after skinning, so the quads are centred at (1, ±1.5) with side 0.5; the
// mesh node's own (0, 5, 0) is ignored. Columns: x = 1 → 40, x = 2 → 48; rows: y = ±1.5 → 12, 36.
TEST_P(StorageTest, SkinnedVerticesFollowTheirJointThenThePlacement) {
  auto placement = [](float y) {
    return glm::scale(glm::translate(glm::mat4(1.0f), glm::vec3(0, y, 0)), glm::vec3(0.5f));
  };
  Crowd crowd(test::red_quad(test::QuadDeform::skinned), {.capacity = 2});
  crowd.add_actors(std::vector<ActorOptions>{{.transform = placement(1.5f)}, {.transform = placement(-1.5f)}});
  std::uint32_t draws = 0;
  Pixels p = render(crowd, ortho_camera(), "skinned", GetParam(), 64, 48, &draws);
  EXPECT_EQ(draws, 1u);
  EXPECT_TRUE(p.red(40, 12));
  EXPECT_TRUE(p.red(40, 36));
  EXPECT_TRUE(p.background(48, 12));  // where skinning after the placement would put it
  EXPECT_TRUE(p.background(32, 12));  // where the unskinned quad would be
  EXPECT_TRUE(p.background(40, 24));  // between the two actors
}

// Influences 5..8 count: weight 0.25 on the identity joint 0 (JOINTS_0) and 0.75 on joint 1 at
// x = +2 (JOINTS_1) put the quad at x = 1.5, spanning columns 40..48; with the second set ignored
// it would shrink to a quarter at the centre (column 32). The reference path agrees.
TEST_P(StorageTest, EightInfluencesBlendBothJointSets) {
  Crowd crowd(test::red_quad(test::QuadDeform::skinned8), {.capacity = 1});
  crowd.add_actor();
  Pixels p = render(crowd, ortho_camera(), "eight_influences", GetParam());
  EXPECT_TRUE(p.red(44, 24));
  EXPECT_TRUE(p.background(32, 24));
  EXPECT_TRUE(p.background(52, 24));

  Framebuffer target({.width = 64, .height = 48});
  target.clear(background);
  ReferenceRenderer reference(crowd);
  EXPECT_EQ(reference.draw(crowd, ortho_camera()), 1u);
  EXPECT_TRUE(test::images_agree(test::scratch_dir("gl_eight_influences_reference"), "reference", {64, 48, p.rgba},
                                 {64, 48, target.read_pixels()}));
}

// The morph target's delta, weighted 1 by the mesh's default weights, moves the quad from the
// centre (column 32) to x = +2 (column 48).
TEST_P(StorageTest, MorphTargetsMoveVertices) {
  Crowd crowd(test::red_quad(test::QuadDeform::morphed), {.capacity = 1});
  crowd.add_actor();
  Pixels p = render(crowd, ortho_camera(), "morphed", GetParam());
  EXPECT_TRUE(p.red(48, 24));
  EXPECT_TRUE(p.background(32, 24));
}

// A mirrored placement (det < 0) must not make the quad's front face culled.
TEST_P(StorageTest, MirroredPlacementKeepsFrontFaces) {
  Crowd crowd(test::red_quad(), {.capacity = 1});
  crowd.add_actor({.transform = glm::scale(glm::mat4(1.0f), glm::vec3(-1, 1, 1))});
  Pixels p = render(crowd, ortho_camera(), "mirrored", GetParam());
  EXPECT_TRUE(p.red(32, 24));
}

// One group whose instances disagree on winding (glTF 2.0: det < 0 reverses it): a plain and a
// mirrored quad facing the viewer are drawn; a plain and a mirrored quad turned 180° about y
// show their back faces and are culled, each by its own instance's determinant. Quad centres:
// x = -3, -1, +1, +3 → columns 8, 24, 40, 56 of 64.
TEST_P(StorageTest, MixedWindingsAreCulledPerInstance) {
  const glm::mat4 mirror = glm::scale(glm::mat4(1.0f), glm::vec3(-1, 1, 1));
  const glm::mat4 turn = glm::rotate(glm::mat4(1.0f), glm::pi<float>(), glm::vec3(0, 1, 0));
  auto at = [](float x) { return glm::translate(glm::mat4(1.0f), glm::vec3(x, 0, 0)); };
  Crowd crowd(test::red_quad(), {.capacity = 4});
  crowd.add_actors(std::vector<ActorOptions>{{.transform = at(-3)},
                                             {.transform = at(-1) * mirror},
                                             {.transform = at(1) * turn},
                                             {.transform = at(3) * turn * mirror}});
  std::uint32_t draws = 0;
  Pixels p = render(crowd, ortho_camera(), "mixed_winding", GetParam(), 64, 48, &draws);
  EXPECT_EQ(draws, 1u);
  EXPECT_TRUE(p.red(8, 24));
  EXPECT_TRUE(p.red(24, 24));
  EXPECT_TRUE(p.background(40, 24));
  EXPECT_TRUE(p.background(56, 24));
}

// README.md's snippets compile (readme_snippets.cpp, generated from it); two of them run here:
// the layer fade-in is half-way 0.15 s into its 0.3 s (docs/spec.md §3.11), and the shadow
// snippet frames the crowd's world_bounds and draws.
TEST_F(GlTest, ReadmeSnippetsRun) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto asset = std::make_shared<const Asset>(load_asset(test::asset_path("threejs/RobotExpressive.glb")));
  Crowd crowd(asset, {.capacity = 8});
  std::vector<ActorOptions> options(8);
  for (std::size_t i = 0; i < options.size(); ++i) {
    options[i].clip = "Walking";
    options[i].transform = glm::translate(glm::mat4(1.0f), glm::vec3(5.0f * float(i), 0.0f, 0.0f));
  }
  crowd.add_actors(options);
  CrowdRenderer renderer(crowd);
  Framebuffer target({.width = 64, .height = 36});
  Actor robot = *crowd.find_actor("actor-7");
  readme::Context in{
      .asset = asset, .crowd = crowd, .renderer = renderer, .robot = robot, .actor = robot, .target = target};
  in.camera = {glm::lookAt(glm::vec3(17, 20, 40), glm::vec3(17, 0, 0), glm::vec3(0, 1, 0)),
               glm::perspective(glm::radians(45.0f), 16.0f / 9.0f, 0.5f, 500.0f)};
  const auto run = [&](std::string_view words) {
    const auto snippets = readme::snippets();
    const auto found = std::find_if(snippets.begin(), snippets.end(), [&](const readme::ReadmeSnippet& s) {
      return s.text.find(words) != std::string_view::npos;
    });
    ASSERT_NE(found, snippets.end()) << "no README snippet has " << words;
    found->run(in);
  };
  run("ActorLayer wave");
  EXPECT_EQ(robot.layer(1).weight(), 0.0f);
  crowd.update(0.15f);
  EXPECT_NEAR(robot.layer(1).weight(), 0.5f, 1e-5f) << "the README's fade-in";
  crowd.update(0.15f);
  EXPECT_NEAR(robot.layer(1).weight(), 1.0f, 1e-5f);
  run("shadow_map.fit");
  EXPECT_GT(renderer.stats().draws, 0u);
  EXPECT_EQ(renderer.stats().frame_calls, 2u) << "the depth pass and the main pass";
}

}  // namespace
}  // namespace gltf_crowd
