// The application's own shaders (docs/spec.md §6.8): a program built on the published include
// (crowd_skinning_glsl()) with a constant-colour fragment shader, drawn through
// CrowdRenderer::bind_group_inputs for every group, must cover exactly the pixels
// CrowdRenderer::draw covers, with storage buffers, textures (OpenGL 4.5 core and ES 3.0) and
// Animation::gpu: both run the same vertex code on the same data, so any difference would be a
// binding or uniform bind_group_inputs got wrong. Also: the bindings it leaves, the embedded text
// is the installed file, and the errors of bind_group_inputs.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <epoxy/gl.h>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>
#include <gtest/gtest.h>

#include "gltf_crowd/bounds.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"
#include "gltf_crowd/gl.hpp"
#include "gl_program.hpp"
#include "image_compare.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

constexpr std::uint32_t kWidth = 160;
constexpr std::uint32_t kHeight = 120;
constexpr glm::vec4 kBackground{1.0f, 0.0f, 1.0f, 1.0f};  // magenta: bytes (255, 0, 255)
constexpr std::uint8_t kBackgroundBytes[3] = {255, 0, 255};

// Outputs one constant: only coverage matters.
constexpr const char* kFlatVertex = R"glsl(
uniform mat4 view_projection;
void main() { gl_Position = view_projection * gltf_crowd_vertex().position; }
)glsl";
constexpr const char* kFlatFragment = R"glsl(
out vec4 frag_color;
void main() { frag_color = vec4(0.0, 1.0, 0.0, 1.0); }
)glsl";

// The include with the constant-colour shaders, for `storage` on the current context.
GLuint flat_program(PaletteStorage storage) {
  const bool buffers = storage == PaletteStorage::storage_buffer;
  const std::string version = buffers                  ? "#version 430 core\n"
                              : !epoxy_is_desktop_gl() ? "#version 300 es\nprecision highp float;\n"
                                                         "precision highp int;\nprecision highp sampler2D;\n"
                                                       : "#version 330 core\n";
  return test::link_program(
      version + (buffers ? "#define GLTF_CROWD_STORAGE_BUFFERS 1\n" : "") + crowd_skinning_glsl() + kFlatVertex,
      version + kFlatFragment);
}

struct Scene {
  std::unique_ptr<Crowd> crowd;
  glm::mat4 view{1.0f}, projection{1.0f};
};

// 9 actors of `asset` on a 3 × 3 grid, each on its own clip and phase, advanced 0.4 s, framed
// from the front and above. No mirrored placements, so draw() culls every group with GL_CCW.
Scene make_scene(std::shared_ptr<const Asset> asset, Animation animation) {
  Scene scene;
  const glm::vec3 size = animated_bounds(*asset).size();
  const float spacing = 1.3f * std::max(size.x, size.z);
  scene.crowd = std::make_unique<Crowd>(asset, CrowdOptions{.capacity = 9, .animation = animation});
  std::vector<ActorOptions> actors(9);
  for (std::size_t i = 0; i < actors.size(); ++i) {
    if (!asset->clips.empty()) actors[i].clip = asset->clips[i % asset->clips.size()].name;
    actors[i].phase = 0.13f * static_cast<float>(i);
    actors[i].transform = glm::translate(
        glm::mat4(1.0f), glm::vec3(static_cast<float>(i % 3), 0.0f, static_cast<float>(i / 3)) * spacing);
  }
  scene.crowd->add_actors(actors);
  scene.crowd->update(0.4f);
  const glm::vec3 center(spacing, 0.5f * size.y, spacing);
  const float distance = 3.2f * std::max(spacing, size.y);
  scene.view = glm::lookAt(center + glm::vec3(0.0f, 0.45f, 1.0f) * distance, center, glm::vec3(0, 1, 0));
  scene.projection = glm::perspective(glm::radians(45.0f), 4.0f / 3.0f, 0.02f * distance, 6.0f * distance);
  return scene;
}

// The application's pass: animate(), then per group bind_group_inputs and its own draw with
// draw()'s depth test and culling (back faces of single-sided materials).
void draw_custom(CrowdRenderer& renderer, const Crowd& crowd, GLuint program, const glm::mat4& view_projection) {
  renderer.animate(crowd);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glCullFace(GL_BACK);
  glFrontFace(GL_CCW);
  const Asset& asset = crowd.asset();
  for (std::size_t g = 0; g < crowd.primitive_groups().size(); ++g) {
    const GroupInputs in = renderer.bind_group_inputs(crowd, g, program);
    if (in.instance_count == 0) continue;
    const bool double_sided = in.material >= 0 && asset.materials[static_cast<std::size_t>(in.material)].double_sided;
    if (double_sided) {
      glDisable(GL_CULL_FACE);
    } else {
      glEnable(GL_CULL_FACE);
    }
    glUniformMatrix4fv(glGetUniformLocation(program, "view_projection"), 1, GL_FALSE, glm::value_ptr(view_projection));
    glDrawElementsInstanced(in.mode, in.index_count, in.index_type, nullptr, in.instance_count);
  }
  glUseProgram(0);
  glBindVertexArray(0);
  glDisable(GL_CULL_FACE);
  glDisable(GL_DEPTH_TEST);
}

// Pixels covered in one image and not in the other (not the background colour).
std::size_t coverage_difference(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  std::size_t differing = 0;
  for (std::size_t i = 0; i + 3 < a.size() && i + 3 < b.size(); i += 4) {
    const bool in_a = a[i] != kBackgroundBytes[0] || a[i + 1] != kBackgroundBytes[1] || a[i + 2] != kBackgroundBytes[2];
    const bool in_b = b[i] != kBackgroundBytes[0] || b[i + 1] != kBackgroundBytes[1] || b[i + 2] != kBackgroundBytes[2];
    differing += in_a != in_b ? 1 : 0;
  }
  return differing;
}

// draw()'s image and the custom pass's on one scene: exactly the same coverage, and a crowd in
// view (not two empty images). Against the per-actor reference path (CPU-skinned vertices), as
// the renderers' own images: at most 0.5 % of the pixels covered by one image only.
void expect_same_coverage(const Scene& scene, PaletteStorage storage, const std::string& name) {
  for (const Material& m : scene.crowd->asset().materials)
    ASSERT_NE(m.alpha_mode, AlphaMode::mask) << "a MASK material cuts out in draw() only";
  Framebuffer target({.width = kWidth, .height = kHeight});
  CrowdRenderer renderer(*scene.crowd, {.palette = storage});
  ASSERT_EQ(renderer.palette_storage(), storage);
  Camera camera;
  camera.view = scene.view;
  camera.projection = scene.projection;
  target.clear(kBackground);
  renderer.draw(*scene.crowd, camera);
  const std::vector<std::uint8_t> library = target.read_pixels();

  const GLuint program = flat_program(storage);
  target.clear(kBackground);
  draw_custom(renderer, *scene.crowd, program, scene.projection * scene.view);
  glDeleteProgram(program);
  const std::vector<std::uint8_t> custom = target.read_pixels();
  EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
  {
    ReferenceRenderer reference(*scene.crowd);
    target.clear(kBackground);
    reference.draw(*scene.crowd, camera);
    const std::size_t from_reference = coverage_difference(target.read_pixels(), custom);
    EXPECT_LE(from_reference, std::size_t{kWidth} * kHeight / 200) << "pixels covered by the reference path only, or "
                                                                      "by the custom pass only";
  }

  const test::Image expected{kWidth, kHeight, library}, actual{kWidth, kHeight, custom};
  const double covered = test::foreground_fraction(expected, kBackgroundBytes);
  EXPECT_GT(covered, 0.05) << "the crowd is not in view";
  const std::size_t differing = coverage_difference(library, custom);
  EXPECT_EQ(differing, 0u) << differing << " pixels covered by one image only; "
                           << test::write_difference(test::scratch_dir("custom_shader_" + name), "coverage", actual,
                                                     expected, 255);
}

std::shared_ptr<const Asset> default_character() {
  return std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
}

class CustomShaderTest : public ::testing::TestWithParam<PaletteStorage> {};
INSTANTIATE_TEST_SUITE_P(Palettes, CustomShaderTest,
                         ::testing::Values(PaletteStorage::storage_buffer, PaletteStorage::texture),
                         [](const auto& test_info) { return std::string(palette_storage_name(test_info.param)); });

TEST_P(CustomShaderTest, CoversWhatDrawCovers) {
  HeadlessContext context;
  expect_same_coverage(make_scene(default_character(), Animation::cpu), GetParam(),
                       std::string("builtin_") + palette_storage_name(GetParam()));
}

// RobotExpressive adds rigid groups and many groups per actor; AnimatedMorphCube animated morph
// targets that change the silhouette (RobotExpressive's face morphs rest at weight 0 in its
// clips, so a morph uniform left unset would not show there).
TEST_P(CustomShaderTest, CoversWhatDrawCoversOnSharedAssets) {
  GLTF_CROWD_REQUIRE_ASSETS();
  HeadlessContext context;
  for (const char* file : {"threejs/RobotExpressive.glb", "lumagl/AnimatedMorphCube.glb"}) {
    SCOPED_TRACE(file);
    auto asset = std::make_shared<const Asset>(load_asset(test::asset_path(file)));
    expect_same_coverage(make_scene(asset, Animation::cpu), GetParam(),
                         std::filesystem::path(file).stem().string() + "_" + palette_storage_name(GetParam()));
  }
}

// animate() runs the GPU evaluator; bind_group_inputs reads what it wrote.
TEST_P(CustomShaderTest, CoversWhatDrawCoversWithGpuAnimation) {
  HeadlessContext context;
  if (!epoxy_is_desktop_gl() || epoxy_gl_version() < 43)
    GTEST_SKIP() << "Animation::gpu needs compute shaders (desktop OpenGL 4.3); this context lacks them";
  expect_same_coverage(make_scene(default_character(), Animation::gpu), GetParam(),
                       std::string("gpu_") + palette_storage_name(GetParam()));
}

TEST(CustomShaderEsTest, CoversWhatDrawCoversOnOpenGlEs) {
  HeadlessContext context({.api = GlApi::gles30});
  expect_same_coverage(make_scene(default_character(), Animation::cpu), PaletteStorage::texture, "es");
}

// The bindings stay for the application's draw; the active texture unit is the application's.
TEST_P(CustomShaderTest, LeavesItsBindingsAndTheActiveUnit) {
  HeadlessContext context;
  Crowd crowd(default_character());
  crowd.add_actor();
  CrowdRenderer renderer(crowd, {.palette = GetParam()});
  renderer.animate(crowd);
  const GLuint program = flat_program(GetParam());
  glActiveTexture(GL_TEXTURE3);
  const GroupInputs in = renderer.bind_group_inputs(crowd, 0, program);
  EXPECT_EQ(in.instance_count, 1);
  EXPECT_EQ(in.index_type, static_cast<std::uint32_t>(GL_UNSIGNED_INT));
  GLint value = 0;
  glGetIntegerv(GL_CURRENT_PROGRAM, &value);
  EXPECT_EQ(value, static_cast<GLint>(program));
  glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &value);
  EXPECT_NE(value, 0);
  glGetIntegerv(GL_ACTIVE_TEXTURE, &value);
  EXPECT_EQ(value, GL_TEXTURE3);
  if (GetParam() == PaletteStorage::storage_buffer) {
    glGetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, 2, &value);  // the slot list
  } else {
    glActiveTexture(GL_TEXTURE7);  // the slot list's unit
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &value);
  }
  EXPECT_NE(value, 0);
  EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
  glUseProgram(0);
  glBindVertexArray(0);
  glDeleteProgram(program);
}

// The renderer's own objects that bind_group_inputs leaves bound are the application's bindings
// at the next call; when the crowd grows that call replaces them, and its restore must not bind
// the deleted names (GL_INVALID_OPERATION, found by a new user's review).
TEST_P(CustomShaderTest, GrowingTheCrowdAfterBindGroupInputsLeavesNoGlError) {
  HeadlessContext context({.debug = true});
  Crowd crowd(default_character(), {.capacity = 2});
  crowd.add_actor();
  crowd.update(0.1f);
  CrowdRenderer renderer(crowd, {.palette = GetParam()});
  renderer.animate(crowd);
  const GLuint program = flat_program(GetParam());
  for (std::size_t g = 0; g < crowd.primitive_groups().size(); ++g) renderer.bind_group_inputs(crowd, g, program);
  crowd.reserve(32);
  crowd.add_actor();
  crowd.update(0.1f);
  Framebuffer target({.width = 64, .height = 48});
  target.clear(kBackground);
  EXPECT_GT(renderer.draw(crowd, Camera{}), 0u);
  EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
  EXPECT_EQ(context.debug_error_count(), 0u) << (context.debug_errors().empty() ? "" : context.debug_errors().front());
  glUseProgram(0);
  glDeleteProgram(program);
}

// The library embeds the file it installs: the text an application prepends is the file.
TEST(CustomShaderIncludeTest, EmbeddedTextIsTheInstalledFile) {
  const std::filesystem::path file =
      std::filesystem::path(GLTF_CROWD_TESTS_DIR) / ".." / "include" / "gltf_crowd" / "gltf_crowd_skinning.glsl";
  std::ifstream in(file, std::ios::binary);
  ASSERT_TRUE(in) << file;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_FALSE(text.empty());
  EXPECT_EQ(std::string(crowd_skinning_glsl()), text);
}

TEST(CustomShaderErrorTest, GroupOutOfRangeIsAnError) {
  HeadlessContext context;
  Crowd crowd(default_character());
  crowd.add_actor();
  CrowdRenderer renderer(crowd);
  const GLuint program = flat_program(renderer.palette_storage());
  const std::size_t groups = crowd.primitive_groups().size();
  try {
    renderer.bind_group_inputs(crowd, groups, program);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "group_index");
    EXPECT_EQ(e.path(), "bind_group_inputs.group");
  }
  EXPECT_NO_THROW(renderer.bind_group_inputs(crowd, groups - 1, program));
  glUseProgram(0);
  glDeleteProgram(program);
}

TEST(CustomShaderErrorTest, WrongCrowdIsAnError) {
  HeadlessContext context;
  Crowd a(default_character()), b(default_character());
  CrowdRenderer renderer(a);
  const GLuint program = flat_program(renderer.palette_storage());
  try {
    renderer.bind_group_inputs(b, 0, program);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "wrong_crowd");
  }
  glDeleteProgram(program);
}

// A destroyed renderer or crowd binds nothing: no instances to draw, no program made current.
TEST(CustomShaderErrorTest, DestroyedRendererOrCrowdBindsNothing) {
  HeadlessContext context;
  Crowd crowd(default_character());
  crowd.add_actor();
  CrowdRenderer renderer(crowd);
  const GLuint program = flat_program(renderer.palette_storage());
  renderer.destroy();
  EXPECT_EQ(renderer.bind_group_inputs(crowd, 0, program).instance_count, 0);
  Crowd other(default_character());
  other.add_actor();
  CrowdRenderer live(other);
  other.destroy();
  EXPECT_EQ(live.bind_group_inputs(other, 0, program).instance_count, 0);
  GLint current = -1;
  glGetIntegerv(GL_CURRENT_PROGRAM, &current);
  EXPECT_EQ(current, 0);
  glDeleteProgram(program);
}

}  // namespace
}  // namespace gltf_crowd
